//! Bounded reads: a job log shows where it failed, not only its end; an empty log says it
//! has no lines; a raw file read fetches only the bytes it shows.

use std::time::{Duration, Instant};

use gitlab_mcp::dispatch::{Context, Dispatcher};
use gitlab_mcp::gitlab::{ClientSettings, GitlabClient, Token};
use gitlab_mcp::policy::Policy;
use serde_json::json;

use crate::support::{args, dispatcher};
use crate::upstream::{Reply, Upstream};

#[tokio::test]
async fn a_job_log_shows_the_failing_test_above_the_tail() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let outcome = dispatcher
        .call(
            "job.log",
            args(json!({"project_id": "acme/platform/api", "job_id": 70042})),
            false,
        )
        .await;
    assert!(!outcome.is_error, "{}", outcome.text);
    // Line 180 of 606: far above the last 100 lines.
    assert!(
        outcome
            .text
            .contains("test api::auth::login::burst_of_20_is_allowed ... FAILED"),
        "{}",
        outcome.text
    );
    assert!(
        outcome.text.contains("section step_script"),
        "{}",
        outcome.text
    );
    assert!(outcome.text.contains("ERROR: Job failed: exit code 101"));
    assert!(!outcome.text.contains('\u{1b}'), "ANSI left in the log");
    let shown = outcome.text.lines().count();
    assert!(shown < 140, "{shown} lines");
}

fn plain(url: &str) -> Dispatcher {
    let settings = ClientSettings::new(url, Some(Token::new("glpat-test-token")));
    Dispatcher::new(
        Context::new(GitlabClient::with_settings(settings)),
        std::sync::Arc::new(Policy::default()),
    )
}

#[tokio::test]
async fn an_empty_log_has_no_lines() {
    let upstream = Upstream::start(|_| {
        Reply::With(
            200,
            vec![("content-type".into(), "text/plain".into())],
            b"\n".to_vec(),
        )
    });
    let outcome = plain(&upstream.url())
        .call(
            "job.log",
            args(json!({"project_id": 1, "job_id": 5})),
            false,
        )
        .await;
    assert!(!outcome.is_error, "{}", outcome.text);
    let structured = outcome.structured.unwrap();
    assert_eq!(structured["total_lines"], 0, "{structured:?}");
    assert!(outcome.text.contains("**Lines**: 0"), "{}", outcome.text);
}

#[tokio::test]
async fn a_raw_read_stops_after_the_bytes_it_shows() {
    // A server that ignores `Range` and sends 64 MB: the read stops after `max_bytes`.
    let size = 64 * 1024 * 1024;
    let upstream = Upstream::start(move |_| {
        Reply::With(
            200,
            vec![("content-type".into(), "text/plain".into())],
            vec![b'a'; size],
        )
    });
    let outcome = plain(&upstream.url())
        .call(
            "repository.file_raw",
            args(
                json!({"project_id": 1, "file_path": "big.txt", "ref": "main", "max_bytes": 1000}),
            ),
            false,
        )
        .await;
    assert!(!outcome.is_error, "{}", outcome.text);
    let structured = outcome.structured.unwrap();
    assert_eq!(structured["size"], size as i64);
    assert_eq!(structured["shown_bytes"], 1000);
    // The client hung up on the body: 64 MB is far more than the sockets' buffers hold,
    // so writing it all would have succeeded only if the client had read it all.
    let waited = Instant::now();
    while upstream.hung_up.lock().unwrap().is_none() && waited.elapsed() < Duration::from_secs(60) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        upstream.hung_up.lock().unwrap().is_some(),
        "the whole 64 MB body was read"
    );
    let seen = upstream.seen().pop().unwrap();
    assert_eq!(seen.header("range"), Some("bytes=0-1000"));
}

#[tokio::test]
async fn the_sandbox_answers_a_range_as_gitlab_may() {
    let (dispatcher, sandbox) = dispatcher(Policy::default()).await;
    let outcome = dispatcher
        .call(
            "repository.file_raw",
            args(json!({"project_id": "acme/platform/api", "file_path": "Cargo.toml", "max_bytes": 10})),
            false,
        )
        .await;
    assert!(!outcome.is_error, "{}", outcome.text);
    let structured = outcome.structured.unwrap();
    assert_eq!(structured["shown_bytes"], 10);
    assert!(structured["size"].as_i64().unwrap() > 10);
    assert!(
        sandbox
            .requests()
            .iter()
            .any(|r| r.path.ends_with("/raw") && r.status == 206),
        "{:?}",
        sandbox.requests()
    );
}

#[tokio::test]
async fn a_singleton_gitlab_answers_null_for_is_not_found() {
    // GitLab answers `null` (200) for a project without push rules: not found, with the
    // action's own words, never an empty card or a decoding error.
    let upstream = Upstream::start(|_| {
        Reply::With(
            200,
            vec![("content-type".into(), "application/json".into())],
            b"null".to_vec(),
        )
    });
    let outcome = plain(&upstream.url())
        .call("push_rule.get", args(json!({"project_id": 7})), false)
        .await;
    assert!(
        outcome
            .text
            .contains("push rule configuration of project 7 does not exist"),
        "{}",
        outcome.text
    );
    assert!(!outcome.text.contains("not JSON"), "{}", outcome.text);
}

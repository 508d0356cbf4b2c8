//! Failures are repairable `isError` results: one clear message, what to do next, no
//! structured content, and never the token.

use gitlab_mcp::policy::Policy;
use gitlab_mcp::sandbox::TOKEN;
use serde_json::json;

use crate::support::{admin_dispatcher, args, dispatcher, dispatcher_with_token};

#[tokio::test]
async fn a_bad_token_is_a_clear_401() {
    let (dispatcher, _sandbox) =
        dispatcher_with_token(Policy::default(), "glpat-not-a-real-token").await;
    let outcome = dispatcher
        .call(
            "project.get",
            args(json!({"project_id": "acme/platform/api"})),
            false,
        )
        .await;
    assert!(outcome.is_error);
    assert!(outcome.structured.is_none());
    assert!(
        outcome.text.contains("GitLab rejected the token (401)"),
        "{}",
        outcome.text
    );
    assert!(outcome.text.contains("GITLAB_TOKEN"), "{}", outcome.text);
    assert!(!outcome.text.contains("glpat-not-a-real-token"));
}

#[tokio::test]
async fn a_missing_entity_is_an_informational_not_found_with_hints() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let outcome = dispatcher
        .call(
            "merge_request.get",
            args(json!({"project_id": "acme/platform/api", "merge_request_iid": 999})),
            false,
        )
        .await;
    assert!(outcome.is_error);
    assert!(
        outcome.text.starts_with("## ❓ Merge Request Not Found"),
        "{}",
        outcome.text
    );
    assert!(
        outcome
            .text
            .contains("merge request !999 in project acme/platform/api"),
        "{}",
        outcome.text
    );
    assert!(
        outcome.text.contains("💡 **Next steps:**"),
        "{}",
        outcome.text
    );
    assert!(
        outcome
            .text
            .contains("Find the right one with `merge_request.list`"),
        "{}",
        outcome.text
    );
}

#[tokio::test]
async fn private_projects_of_others_look_missing() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let outcome = dispatcher
        .call(
            "project.get",
            args(json!({"project_id": "acme/platform/billing"})),
            false,
        )
        .await;
    assert!(
        outcome.is_error && outcome.text.contains("Project Not Found"),
        "{}",
        outcome.text
    );
    let list = dispatcher
        .call("project.list", args(json!({"per_page": 100})), false)
        .await;
    assert!(
        !list.text.contains("acme/platform/billing"),
        "{}",
        list.text
    );
}

#[tokio::test]
async fn bad_params_are_refused_before_anything_is_sent() {
    let (dispatcher, sandbox) = dispatcher(Policy::default()).await;
    let cases = [
        (
            json!({"project_id": "acme/platform/api", "merge_request_iid": 42, "colour": "red"}),
            "`colour` is not a parameter",
        ),
        (
            json!({"project_id": "acme/platform/api"}),
            "`merge_request_iid` is required",
        ),
        (
            json!({"project_id": "acme/platform/api", "merge_request_iid": "forty-two"}),
            "`merge_request_iid`: expected an integer, got \"forty-two\"",
        ),
        (
            json!({"project_id": true, "merge_request_iid": 42}),
            "`project_id`: expected a numeric id or a path",
        ),
        (
            json!({"project_id": "acme/platform/api", "mr_iid": 42, "merge_request_iid": 42}),
            "name the same parameter",
        ),
    ];
    for (arguments, expected) in cases {
        let outcome = dispatcher
            .call("merge_request.get", args(arguments.clone()), false)
            .await;
        assert!(outcome.is_error, "{arguments}");
        assert!(
            outcome.text.contains(expected),
            "{arguments}: {}",
            outcome.text
        );
        assert!(
            outcome.text.contains("Accepted parameters:"),
            "{}",
            outcome.text
        );
    }
    assert!(
        sandbox.requests().is_empty(),
        "no request may reach GitLab: {:?}",
        sandbox.requests()
    );
}

#[tokio::test]
async fn unknown_actions_get_suggestions() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let outcome = dispatcher
        .call("merge_request.lst", args(json!({})), false)
        .await;
    assert!(
        outcome.is_error && outcome.text.contains("Did you mean `merge_request.list`"),
        "{}",
        outcome.text
    );
    let outcome = dispatcher.call("list", args(json!({})), false).await;
    assert!(
        outcome.is_error && outcome.text.contains("is ambiguous"),
        "{}",
        outcome.text
    );
    assert!(
        outcome.text.contains("`merge_request.list`") && outcome.text.contains("`issue.list`"),
        "{}",
        outcome.text
    );
}

#[tokio::test]
async fn the_token_never_appears_in_any_result() {
    let policy = || Policy {
        yolo: true,
        ..Policy::default()
    };
    let (users, _sandbox) = dispatcher(policy()).await;
    // Actions only administrators may call run with `--sandbox-admin`.
    let (admin, _admin_sandbox) = admin_dispatcher(policy()).await;
    for action in gitlab_mcp::catalog::ACTIONS {
        let dispatcher = match action.requires.admin {
            true => &admin,
            false => &users,
        };
        let token = TOKEN;
        let outcome = dispatcher
            .call(action.id, action.example_args(), true)
            .await;
        let structured = serde_json::to_string(&outcome.structured).unwrap();
        assert!(
            !outcome.text.contains(token) && !structured.contains(token),
            "{} leaked the token",
            action.id
        );
    }
}

#[tokio::test]
async fn upstream_faults_become_repairable_errors_and_reads_retry() {
    let (dispatcher, sandbox) = dispatcher(Policy::default()).await;
    let faults = sandbox.url().to_owned() + "/-/sandbox/faults";
    gitlab_mcp::tls::install_crypto_provider();
    let http = reqwest::Client::new();

    // One 429 on a read: retried after Retry-After, then it succeeds.
    http.post(&faults)
        .body(r#"{"next": [429]}"#)
        .send()
        .await
        .unwrap();
    let outcome = dispatcher
        .call("project.get", args(json!({"project_id": 101})), false)
        .await;
    assert!(!outcome.is_error, "{}", outcome.text);

    // A 500 on a write is not retried: it may have taken effect.
    http.post(&faults)
        .body(r#"{"next": [500]}"#)
        .send()
        .await
        .unwrap();
    let outcome = dispatcher
        .call(
            "issue.create",
            args(json!({"project_id": 101, "title": "x"})),
            false,
        )
        .await;
    assert!(
        outcome.is_error && outcome.text.contains("server error (500)"),
        "{}",
        outcome.text
    );

    // A dropped connection, three times: reads give up after their retries.
    http.post(&faults)
        .body(r#"{"next": ["drop", "drop", "drop"]}"#)
        .send()
        .await
        .unwrap();
    let outcome = dispatcher
        .call("project.get", args(json!({"project_id": 101})), false)
        .await;
    assert!(
        outcome.is_error
            && outcome.text.contains("connection to GitLab broke")
            && outcome.text.contains("This read changed nothing"),
        "{}",
        outcome.text
    );
}

/// GitLab's global `id` of a merge request or issue is a different number from its `iid`
/// (the `12` in `!12`): taking one for the other would read or write the wrong record.
#[tokio::test]
async fn global_ids_are_never_taken_for_iids() {
    let (dispatcher, sandbox) = dispatcher(Policy {
        yolo: true,
        ..Policy::default()
    })
    .await;
    let cases = [
        (
            "merge_request.get",
            json!({"project_id": "acme/platform/api", "merge_request_id": 42}),
            "merge_request_id",
        ),
        (
            "merge_request.note_create",
            json!({"project_id": "acme/platform/api", "merge_request_id": 42, "body": "x"}),
            "merge_request_id",
        ),
        (
            "issue.get",
            json!({"project_id": "acme/platform/api", "issue_id": 34}),
            "issue_id",
        ),
        (
            "issue.update",
            json!({"project_id": "acme/platform/api", "issue_id": 34, "title": "x"}),
            "issue_id",
        ),
    ];
    for (action, arguments, key) in cases {
        let outcome = dispatcher.call(action, args(arguments), true).await;
        assert!(outcome.is_error, "{action}: {}", outcome.text);
        assert!(
            outcome
                .text
                .contains(&format!("`{key}` is not a parameter")),
            "{action}: {}",
            outcome.text
        );
        let accepted = gitlab_mcp::catalog::accepted(gitlab_mcp::catalog::find(action).unwrap());
        assert!(!accepted.contains(key), "{action} still accepts {key}");
    }
    assert!(sandbox.requests().is_empty(), "{:?}", sandbox.requests());
}

//! The fault suite: the client against a fake GitLab (`upstream.rs`) that redirects,
//! stalls, resets, floods and answers HTML. Each test asserts the rule it is about: how
//! many requests reached GitLab, that the call ended within its (short, 2 s) deadline,
//! that no token reached another host, that no write was repeated, that the result fits
//! its byte budget. Each prints a `FAULT |` line (name, attempts, elapsed, outcome) for
//! the fault table: `cargo test --test it faults -- --nocapture --test-threads 1`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use gitlab_mcp::dispatch::{Context, Dispatcher, Outcome};
use gitlab_mcp::gitlab::{AuthKind, ClientSettings, GitlabClient, Token};
use gitlab_mcp::policy::Policy;
use serde_json::{Value, json};

use crate::support::args;
use crate::upstream::{Reply, Upstream};

const TOKEN: &str = "glpat-x9_-Kd2Lm8QpZz";
const DEADLINE: Duration = Duration::from_secs(2);

/// How much longer than its deadline a call may take here: a call that ignored its
/// deadline waits for an upstream that never answers, so any bound proves it; a wide one
/// holds on a machine at load average 7, where a debug build's scheduling alone can take
/// seconds.
const SLACK: Duration = Duration::from_secs(30);

/// What a call that waited for the upstream would take in tests of things that must not
/// wait: far above any scheduling delay, far below the wait itself.
const AT_ONCE: Duration = Duration::from_secs(10);

/// Below the 30 s after which the fake GitLab stops waiting for a silent client by itself.
const STALL_BOUND: Duration = Duration::from_secs(25);

static LARGEST_RESULT: AtomicUsize = AtomicUsize::new(0);

fn dispatcher(url: &str, tweak: impl FnOnce(&mut ClientSettings)) -> Dispatcher {
    let mut settings = ClientSettings::new(url, Some(Token::new(TOKEN)));
    settings.deadline = DEADLINE;
    tweak(&mut settings);
    Dispatcher::new(
        Context::new(GitlabClient::with_settings(settings)),
        Arc::new(Policy {
            yolo: true,
            ..Policy::default()
        }),
    )
}

fn project() -> Value {
    let seed: Value =
        serde_json::from_str(include_str!("../../src/sandbox/seed/records/projects.json")).unwrap();
    seed["records"][0].clone()
}

fn note(body: &str) -> Value {
    let seed: Value = serde_json::from_str(include_str!(
        "../../src/sandbox/seed/records/issue_notes.json"
    ))
    .unwrap();
    let mut note = seed["records"][0].clone();
    note["body"] = Value::String(body.to_owned());
    note
}

/// Runs one call, checks the invariants every call keeps, and prints its table row.
async fn run(
    name: &str,
    dispatcher: &Dispatcher,
    upstream: &Upstream,
    action: &str,
    arguments: Value,
) -> (Outcome, usize, Duration) {
    let started = Instant::now();
    let outcome = dispatcher.call(action, args(arguments), true).await;
    let elapsed = started.elapsed();
    let attempts = upstream.seen().len();
    let bytes = serde_json::to_vec(&gitlab_mcp::server::call_result(&outcome))
        .unwrap()
        .len();
    LARGEST_RESULT.fetch_max(bytes, Ordering::Relaxed);
    let deadline = dispatcher.context().gitlab().settings().deadline;
    assert!(elapsed < deadline + SLACK, "{name}: took {elapsed:?}");
    let wire = serde_json::to_string(&gitlab_mcp::server::call_result(&outcome)).unwrap();
    assert!(
        !wire.contains("Kd2Lm8Qp"),
        "{name}: the token is in the result"
    );
    let first: String = outcome
        .text
        .lines()
        .last()
        .unwrap_or_default()
        .chars()
        .take(90)
        .collect();
    eprintln!(
        "FAULT | {name} | {attempts} | {} ms | {} | {bytes} B | {first}",
        elapsed.as_millis(),
        if outcome.is_error { "error" } else { "ok" },
    );
    eprintln!(
        "FAULT | largest result so far | {} B",
        LARGEST_RESULT.load(Ordering::Relaxed)
    );
    (outcome, attempts, elapsed)
}

#[tokio::test]
async fn a_redirect_within_the_origin_is_followed_with_the_token() {
    let body = project().to_string();
    let upstream = Upstream::start(move |seen| match seen.path.as_str() {
        "/api/v4/projects/1" => Reply::Redirect(301, "/api/v4/projects/101".into()),
        _ => Reply::Json(200, body.clone()),
    });
    let dispatcher = dispatcher(&upstream.url(), |_| {});
    let (outcome, attempts, _) = run(
        "redirect, same origin",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": 1}),
    )
    .await;
    assert!(!outcome.is_error, "{}", outcome.text);
    assert_eq!(attempts, 2);
    assert!(
        upstream
            .seen()
            .iter()
            .all(|s| s.header("private-token") == Some(TOKEN))
    );
    assert!(
        upstream
            .seen()
            .iter()
            .all(|s| s.header("referer").is_none())
    );
}

#[tokio::test]
async fn no_token_or_body_follows_a_redirect_to_another_host() {
    let other = Upstream::start(|_| Reply::Json(200, "{}".into()));
    let target = format!("{}/api/v4/stolen", other.url());
    let upstream = Upstream::start(move |_| Reply::Redirect(307, target.clone()));
    let dispatcher = dispatcher(&upstream.url(), |_| {});
    let (outcome, attempts, _) = run(
        "redirect (307) of a POST to another host",
        &dispatcher,
        &upstream,
        "issue.note_create",
        json!({"project_id": 101, "issue_iid": 1, "body": "secret plans"}),
    )
    .await;
    assert!(outcome.is_error);
    assert!(outcome.text.contains("another address"), "{}", outcome.text);
    assert_eq!(attempts, 1, "a refused redirect is never retried");
    assert!(
        other.seen().is_empty(),
        "the other host got {:?}",
        other.seen()
    );
    assert_eq!(other.accepted.load(Ordering::Relaxed), 0);
    assert!(upstream.seen()[0].body_text().contains("secret plans"));

    let (outcome, attempts, _) = run(
        "redirect (302) of a GET to another host",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(
        outcome.is_error && outcome.text.contains("GITLAB_URL"),
        "{}",
        outcome.text
    );
    assert_eq!(attempts, 2);
    assert!(other.seen().is_empty());
}

#[tokio::test]
async fn https_never_downgrades_to_http() {
    let plain = Upstream::start(|_| Reply::Json(200, "{}".into()));
    let target = format!("http://127.0.0.1:{}/api/v4/projects/101", plain.port);
    let upstream = Upstream::start_tls(move |_| Reply::Redirect(302, target.clone()));
    let dispatcher = dispatcher(&upstream.url(), |s| s.ca_file = Some(ca_file()));
    let (outcome, attempts, _) = run(
        "redirect https → http",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(
        outcome.text.contains("from https to plain http"),
        "{}",
        outcome.text
    );
    assert_eq!(attempts, 1);
    assert_eq!(plain.accepted.load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn a_redirect_loop_stops_early_and_is_not_retried() {
    let upstream = Upstream::start(|seen| {
        let next = if seen.path.ends_with("/a") {
            "/api/v4/b"
        } else {
            "/api/v4/a"
        };
        Reply::Redirect(302, next.into())
    });
    let dispatcher = dispatcher(&upstream.url(), |_| {});
    let (outcome, attempts, _) = run(
        "redirect loop",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(outcome.text.contains("in a loop"), "{}", outcome.text);
    assert!(
        attempts <= gitlab_mcp::gitlab::redirect::MAX_REDIRECTS + 1,
        "{attempts} requests for one call"
    );
}

#[tokio::test]
async fn a_silent_upstream_ends_at_the_deadline() {
    let upstream = Upstream::start(|_| Reply::Stall);
    let dispatcher = dispatcher(&upstream.url(), |_| {});
    let (outcome, attempts, elapsed) = run(
        "silent upstream (GET)",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(
        outcome.text.contains("did not answer within 2.0 s"),
        "{}",
        outcome.text
    );
    assert!(
        outcome.text.contains("This read changed nothing"),
        "{}",
        outcome.text
    );
    assert_eq!(attempts, 1);
    // The deadline ended it (`run` bounds it from above).
    assert!(elapsed >= DEADLINE, "{elapsed:?}");
    eprintln!(
        "FAULT | deadline observed against a silent upstream | {} ms",
        elapsed.as_millis()
    );
}

#[tokio::test]
async fn a_too_long_address_is_refused_before_sending_naming_the_parameter() {
    let upstream = Upstream::start(|_| Reply::Json(200, "[]".into()));
    let dispatcher = dispatcher(&upstream.url(), |_| {});
    // 70 KB of search words: past what nginx and Puma take (8 KiB); GitLab would close
    // the connection, which a read would retry.
    let (outcome, attempts, _) = run(
        "a 70 KB query string",
        &dispatcher,
        &upstream,
        "issue.list",
        json!({"project_id": 101, "search": "word ".repeat(14_000)}),
    )
    .await;
    assert!(outcome.is_error, "{}", outcome.text);
    assert_eq!(attempts, 0, "nothing is sent");
    for part in ["`search`", "8000 bytes", "Nothing was sent"] {
        assert!(outcome.text.contains(part), "{part}: {}", outcome.text);
    }
    // A long path value is named by its parameter too.
    let (outcome, attempts, _) = run(
        "a 9 KB path value",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": format!("acme/{}", "sub/".repeat(2_300))}),
    )
    .await;
    assert_eq!(attempts, 0, "nothing is sent");
    assert!(outcome.text.contains("`project_id`"), "{}", outcome.text);
    // Just under the limit, it is sent.
    let (outcome, attempts, _) = run(
        "a 7 KB query string",
        &dispatcher,
        &upstream,
        "issue.list",
        json!({"project_id": 101, "search": "word ".repeat(1_000)}),
    )
    .await;
    assert_eq!(attempts, 1, "{}", outcome.text);
}

#[tokio::test]
async fn a_write_whose_connection_resets_is_not_repeated_and_says_to_check() {
    let upstream = Upstream::start(|_| Reply::Reset);
    let dispatcher = dispatcher(&upstream.url(), |_| {});
    let (outcome, attempts, _) = run(
        "reset after a POST was read",
        &dispatcher,
        &upstream,
        "issue.note_create",
        json!({"project_id": 101, "issue_iid": 1, "body": "hello"}),
    )
    .await;
    assert_eq!(attempts, 1, "the write was repeated");
    assert!(
        outcome.text.contains("may or may not have taken effect"),
        "{}",
        outcome.text
    );
    assert!(
        outcome.text.contains("`issue.note_list`"),
        "{}",
        outcome.text
    );
    assert!(!outcome.text.contains("then retry"), "{}", outcome.text);

    let (outcome, attempts, _) = run(
        "reset on a GET",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert_eq!(attempts, 1 + 3, "a read is retried twice");
    assert!(
        outcome.text.contains("This read changed nothing"),
        "{}",
        outcome.text
    );
}

#[tokio::test]
async fn server_errors_are_worded_by_whether_anything_may_have_changed() {
    let upstream = Upstream::start(|seen| {
        if seen.method == "GET" {
            Reply::Json(502, r#"{"message":"502 Bad Gateway"}"#.into())
        } else {
            Reply::Json(500, r#"{"message":"500 Internal Server Error"}"#.into())
        }
    });
    let dispatcher = dispatcher(&upstream.url(), |_| {});
    let (outcome, attempts, _) = run(
        "502 on a GET",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert_eq!(attempts, 3);
    assert!(
        outcome.text.contains("This read changed nothing"),
        "{}",
        outcome.text
    );
    assert!(!outcome.text.contains("may or may not"), "{}", outcome.text);
    let (outcome, attempts, _) = run(
        "500 on a POST",
        &dispatcher,
        &upstream,
        "issue.note_create",
        json!({"project_id": 101, "issue_iid": 1, "body": "hello"}),
    )
    .await;
    assert_eq!(attempts, 4, "the write was repeated");
    assert!(
        outcome.text.contains("may or may not have taken effect"),
        "{}",
        outcome.text
    );
    assert!(
        outcome.text.contains("Check with `issue.note_list`"),
        "{}",
        outcome.text
    );
}

#[tokio::test]
async fn a_flood_is_cut_off_at_the_body_cap() {
    let upstream = Upstream::start(|_| Reply::Flood(512 * 1024 * 1024));
    let dispatcher = dispatcher(&upstream.url(), |s| s.max_body_bytes = 4 * 1024 * 1024);
    let (outcome, attempts, _) = run(
        "flood (endless 200 body)",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(outcome.text.contains("too large"), "{}", outcome.text);
    assert_eq!(attempts, 1);
}

#[tokio::test]
async fn an_html_page_is_not_an_answer() {
    let upstream = Upstream::start(|_| Reply::Html);
    let dispatcher = dispatcher(&upstream.url(), |_| {});
    let (outcome, attempts, _) = run(
        "HTML sign-in page (200)",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(
        outcome.text.contains("a web page instead of an API answer"),
        "{}",
        outcome.text
    );
    assert_eq!(attempts, 1);
    let (outcome, _, _) = run(
        "HTML page for a job log",
        &dispatcher,
        &upstream,
        "job.log",
        json!({"project_id": 101, "job_id": 5}),
    )
    .await;
    assert!(outcome.is_error, "{}", outcome.text);
    assert!(outcome.text.contains("web page"), "{}", outcome.text);
}

#[tokio::test]
async fn rate_limits_are_waited_out_as_asked() {
    let body = project().to_string();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let upstream = Upstream::start(move |_| match counter.fetch_add(1, Ordering::Relaxed) {
        0 => {
            let at = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(1));
            Reply::With(429, vec![("retry-after".into(), at)], b"{}".to_vec())
        }
        1 => {
            let reset = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_secs();
            Reply::With(
                429,
                vec![("ratelimit-reset".into(), reset.to_string())],
                b"{}".to_vec(),
            )
        }
        _ => Reply::Json(200, body.clone()),
    });
    // A deadline that no loaded machine misses: the waits (a second at most) fit it.
    let first = dispatcher(&upstream.url(), |s| s.deadline = Duration::from_secs(60));
    let (outcome, attempts, _) = run(
        "429 with an HTTP-date Retry-After, then RateLimit-Reset",
        &first,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(!outcome.is_error, "{}", outcome.text);
    assert_eq!(attempts, 3);

    // A wait that does not fit the deadline ends the call at once, saying how long.
    let upstream = Upstream::start(|_| {
        Reply::With(
            429,
            vec![("retry-after".into(), "30".into())],
            b"{}".to_vec(),
        )
    });
    // 20 s: the 30 s asked for do not fit, and waiting until the deadline would show.
    let patient = dispatcher(&upstream.url(), |s| s.deadline = AT_ONCE * 2);
    let (outcome, attempts, elapsed) = run(
        "429 asking for 30 s",
        &patient,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(outcome.text.contains("Wait 30 s"), "{}", outcome.text);
    assert_eq!(attempts, 1);
    assert!(elapsed < AT_ONCE, "{elapsed:?}");
}

fn ca_file() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/tls/ca.pem")
}

#[tokio::test]
async fn a_private_ca_is_named_then_trusted() {
    let body = project().to_string();
    let upstream = Upstream::start_tls(move |_| Reply::Json(200, body.clone()));
    let untrusting = dispatcher(&upstream.url(), |_| {});
    let (outcome, attempts, _) = run(
        "TLS, unknown certificate authority",
        &untrusting,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(outcome.text.contains("GITLAB_CA_FILE"), "{}", outcome.text);
    assert!(
        outcome.text.contains("unknown certificate authority"),
        "{}",
        outcome.text
    );
    assert_eq!(attempts, 0);
    assert_eq!(
        upstream.accepted.load(Ordering::Relaxed),
        1,
        "a TLS failure is not retried"
    );

    let trusting = dispatcher(&upstream.url(), |s| s.ca_file = Some(ca_file()));
    let (outcome, _, _) = run(
        "TLS with GITLAB_CA_FILE",
        &trusting,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(!outcome.is_error, "{}", outcome.text);

    let skipping = dispatcher(&upstream.url(), |s| s.skip_tls_verify = true);
    let (outcome, _, _) = run(
        "TLS with GITLAB_SKIP_TLS_VERIFY",
        &skipping,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(!outcome.is_error, "{}", outcome.text);
}

#[tokio::test]
async fn each_auth_kind_sends_its_header() {
    let body = project().to_string();
    let upstream = Upstream::start(move |_| Reply::Json(200, body.clone()));
    for (kind, header, value) in [
        (AuthKind::PrivateToken, "private-token", TOKEN.to_owned()),
        (AuthKind::Oauth, "authorization", format!("Bearer {TOKEN}")),
        (AuthKind::JobToken, "job-token", TOKEN.to_owned()),
    ] {
        let dispatcher = dispatcher(&upstream.url(), |s| s.auth = kind);
        let outcome = dispatcher
            .call("project.get", args(json!({"project_id": 101})), false)
            .await;
        assert!(!outcome.is_error, "{}", outcome.text);
        let seen = upstream.seen().pop().unwrap();
        assert_eq!(seen.header(header), Some(value.as_str()), "{kind:?}");
    }
}

#[tokio::test]
async fn results_fit_the_budget_and_every_comment_keeps_a_share() {
    let notes: Vec<Value> = (0..20)
        .map(|i| note(&format!("comment {i}: {}", "long words ".repeat(90_000))))
        .collect();
    let page = Value::Array(notes).to_string();
    let mut description = project();
    description["description"] = Value::String("d".repeat(5_000_000));
    let description = description.to_string();
    let upstream = Upstream::start(move |seen| {
        if seen.path.contains("/notes") {
            Reply::Json(200, page.clone())
        } else {
            Reply::Json(200, description.clone())
        }
    });
    // 20 MB to parse and render: a deadline for a slow debug build on a busy machine (it
    // failed at 30 s with two builds beside it), not for the network.
    let dispatcher = dispatcher(&upstream.url(), |s| s.deadline = Duration::from_secs(120));
    let budget = gitlab_mcp::output::budget::DEFAULT_RESULT_BYTES;
    let (outcome, _, _) = run(
        "20 comments of 1,000,000 characters",
        &dispatcher,
        &upstream,
        "issue.note_list",
        json!({"project_id": 101, "issue_iid": 1, "per_page": 20}),
    )
    .await;
    assert!(!outcome.is_error, "{}", &outcome.text[..300]);
    let bytes = serde_json::to_vec(&gitlab_mcp::server::call_result(&outcome))
        .unwrap()
        .len();
    assert!(bytes <= budget, "{bytes} bytes");
    for i in 0..20 {
        assert!(
            outcome.text.contains(&format!("comment {i}:")),
            "comment {i} is gone"
        );
    }
    assert!(outcome.text.contains("cut to fit"), "no note about the cut");
    assert!(
        outcome.text.contains("`per_page`"),
        "no way to get the rest"
    );

    let (outcome, _, _) = run(
        "a 5 MB project description",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    let bytes = serde_json::to_vec(&gitlab_mcp::server::call_result(&outcome))
        .unwrap()
        .len();
    assert!(bytes <= budget, "{bytes} bytes");
    let structured = serde_json::to_string(&outcome.structured).unwrap();
    assert!(
        structured.len() < budget / 2,
        "the description went out twice"
    );
}

#[tokio::test]
async fn the_token_is_masked_in_every_encoding_gitlab_may_echo() {
    let escaped = TOKEN.replace('_', "\\_");
    let encoded = gitlab_mcp::gitlab::encode_component(TOKEN);
    let mut body = project();
    body["description"] = Value::String(format!(
        "raw {TOKEN} md {escaped} url ?t={encoded} _{TOKEN}_"
    ));
    body["name"] = Value::String(format!("x{TOKEN}"));
    let body = body.to_string();
    let upstream = Upstream::start(move |_| Reply::Json(200, body.clone()));
    let dispatcher = dispatcher(&upstream.url(), |_| {});
    let (outcome, _, _) = run(
        "the token echoed in a description",
        &dispatcher,
        &upstream,
        "project.get",
        json!({"project_id": 101}),
    )
    .await;
    assert!(!outcome.is_error, "{}", outcome.text);
    assert!(outcome.text.contains("[redacted]"), "{}", outcome.text);
}

/// Through the real binary: `notifications/cancelled` closes the upstream connection long
/// before the deadline, and debug logs hold neither the token, the URL's password, nor
/// any body.
#[tokio::test]
async fn cancellation_aborts_the_upstream_request_and_logs_stay_clean() {
    use std::process::Stdio;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

    let mut marked = project();
    marked["description"] = Value::String("BODY-MARKER".into());
    let marked = marked.to_string();
    let upstream = Upstream::start(move |seen| {
        if seen.path.ends_with("/projects/101") {
            Reply::Stall
        } else {
            Reply::Json(200, marked.clone())
        }
    });
    let url = format!("http://bot:pa55w0rd-xyz@127.0.0.1:{}", upstream.port);
    let mut child = tokio::process::Command::new(crate::support::BINARY)
        .args(["--tool-surface", "individual", "serve"])
        .env("GITLAB_URL", &url)
        .env("GITLAB_TOKEN", TOKEN)
        .env("GITLAB_TIMEOUT", "20")
        .env("GITLAB_MCP_LOG", "trace")
        // This test counts upstream requests: no instance detection among them.
        .env("GITLAB_FIT_CATALOG", "false")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let send = |line: Value| format!("{line}\n");
    stdin
        .write_all(send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})).as_bytes())
        .await
        .unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).await.unwrap();
    stdin
        .write_all(
            send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).as_bytes(),
        )
        .await
        .unwrap();
    // A call that succeeds, so that a logged body would show.
    stdin
        .write_all(
            send(
                json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
            "name": "gitlab_project_get", "arguments": {"project_id": 202}}}),
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).await.unwrap();
    assert!(
        line.contains("BODY-MARKER"),
        "{}",
        &line[..line.len().min(300)]
    );
    stdin
        .write_all(
            send(
                json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "gitlab_project_get", "arguments": {"project_id": 101}}}),
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    // Wait until the request reached the fake GitLab, then cancel it.
    let waited = Instant::now();
    while upstream.seen().len() < 2 && waited.elapsed() < SLACK {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(upstream.seen().len(), 2);
    let seen = upstream.seen().pop().unwrap();
    assert_eq!(seen.header("private-token"), Some(TOKEN));
    let cancelled = Instant::now();
    stdin
        .write_all(
            send(
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "user pressed stop"}}),
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    while upstream.hung_up.lock().unwrap().is_none() && cancelled.elapsed() < STALL_BOUND {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let hung_up = upstream
        .hung_up
        .lock()
        .unwrap()
        .expect("the upstream request was not aborted");
    let after = hung_up.duration_since(cancelled);
    eprintln!(
        "FAULT | cancelled call: upstream connection closed after | {} ms",
        after.as_millis()
    );
    // Without the abort the connection would stay open for the call's 120 s deadline
    // (the fake GitLab gives up at 30 s, without saying the client hung up).
    assert!(after < STALL_BOUND, "{after:?}");
    drop(stdin);
    let mut logs = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stderr.read_to_string(&mut logs)).await;
    assert!(!logs.is_empty(), "no logs at trace level");
    for secret in ["Kd2Lm8Qp", "pa55w0rd-xyz", "BODY-MARKER"] {
        assert!(!logs.contains(secret), "the logs hold {secret}");
    }
}

#[tokio::test]
async fn a_list_gitlab_did_not_page_is_read_only_as_far_as_one_answer_holds() {
    // A GitLab (or a proxy) that ignores `per_page` and sends 20 MB of merge requests in
    // one answer, with no pagination headers.
    let seed: Value = serde_json::from_str(include_str!(
        "../../src/sandbox/seed/records/merge_requests.json"
    ))
    .unwrap();
    let record = seed["records"][0].clone();
    let items: Vec<Value> = (1..=5_000)
        .map(|iid| {
            let mut item = record.clone();
            item["iid"] = json!(iid);
            item["id"] = json!(100_000 + iid);
            item
        })
        .collect();
    let body = Value::Array(items).to_string();
    assert!(body.len() > 20_000_000, "{} bytes", body.len());
    let upstream = Upstream::start(move |_| Reply::Json(200, body.clone()));
    let dispatcher = dispatcher(&upstream.url(), |s| s.deadline = Duration::from_secs(120));
    let (outcome, attempts, _) = run(
        "a 20 MB list GitLab did not page",
        &dispatcher,
        &upstream,
        "merge_request.list",
        json!({"project_id": 101, "per_page": 20}),
    )
    .await;
    assert!(!outcome.is_error, "{}", outcome.text);
    assert_eq!(attempts, 1);
    let budget = gitlab_mcp::output::budget::DEFAULT_RESULT_BYTES;
    let bytes = serde_json::to_vec(&gitlab_mcp::server::call_result(&outcome))
        .unwrap()
        .len();
    assert!(bytes <= budget, "{bytes} bytes");
    // The structure holds exactly the items the table shows, no more.
    let structured = outcome.structured.as_ref().unwrap();
    let shown = structured["merge_requests"].as_array().unwrap().len();
    assert!((20..5_000).contains(&shown), "{shown} items");
    let rows = outcome
        .text
        .lines()
        .filter(|l| l.starts_with("| [!"))
        .count();
    assert_eq!(rows, shown, "{}", &outcome.text[..400]);
    assert_eq!(structured["pagination"]["per_page"], json!(shown));
    assert_eq!(structured["pagination"]["next_page"], json!(2));
    assert!(
        outcome.text.contains("did not page"),
        "no word on the paging"
    );
    let steps = structured["next_steps"].to_string();
    assert!(
        steps.contains(&format!("per_page: {shown}")) && steps.contains("page: 2"),
        "{steps}"
    );
}

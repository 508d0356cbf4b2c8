//! `gitlab-mcp serve --http`: the real binary over Streamable HTTP, driven with raw POSTs
//! so every status, header and JSON-RPC error is seen as a client sees it. Each request
//! carries its own token; nothing is remembered between requests (so two processes answer
//! one client as one would); Host, Origin, body size, rate and authentication failures are
//! checked; SIGTERM lets a request in flight finish; no token reaches the log; each token
//! sees the catalog fitted to itself, never another token's.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gitlab_mcp::sandbox::{self, Faults, Sandbox};
use serde_json::{Value, json};

use crate::support::BINARY;

/// The binary serving HTTP on a free loopback port, its stderr collected.
struct HttpServer {
    child: Child,
    endpoint: String,
    log: Arc<Mutex<String>>,
}

impl HttpServer {
    fn start(gitlab: &str, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(BINARY);
        command
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .env("GITLAB_URL", gitlab)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for name in [
            "GITLAB_TOKEN",
            "GITLAB_PERSONAL_ACCESS_TOKEN",
            "GITLAB_MCP_SHARED_TOKEN",
            "GITLAB_MCP_ALLOWED_HOSTS",
            "GITLAB_MCP_ALLOWED_ORIGINS",
            "GITLAB_MCP_RATE_LIMIT",
            "GITLAB_MCP_AUTH_FAILURE_LIMIT",
            "GITLAB_MCP_ALLOWED_GITLAB_URLS",
            "GITLAB_MCP_CLIENT_ADDRESS_HEADER",
            "GITLAB_MCP_MAX_CONNECTIONS",
            "GITLAB_MCP_READ_TIMEOUT",
            "GITLAB_MCP_LOG",
            "GITLAB_FIT_CATALOG",
            "TOOL_SURFACE",
            "GITLAB_MCP_OAUTH_APPS",
            "GITLAB_MCP_PUBLIC_URL",
            "GITLAB_MCP_OAUTH_ONLY",
        ] {
            command.env_remove(name);
        }
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("the binary starts");
        let log = Arc::new(Mutex::new(String::new()));
        let (found, endpoint) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().expect("piped stderr");
        let collected = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("http://") {
                    let url: String = line[at..]
                        .chars()
                        .take_while(|c| !c.is_whitespace())
                        .collect();
                    let _ = found.send(url);
                }
                let mut log = collected.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        let endpoint = endpoint
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the server did not start: {}", log.lock().unwrap()));
        Self {
            child,
            endpoint,
            log,
        }
    }

    fn origin(&self) -> String {
        self.endpoint.trim_end_matches("/mcp").to_owned()
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }

    /// Waits until the log has `text` (a minute at most: a bound for a hung server).
    async fn until_logged(&self, text: &str) {
        self.until_logged_times(text, 1).await;
    }

    /// Waits until the log has `text` `times` times: the log arrives from the server's
    /// stderr on a thread of its own, so a line for the last answer may still be on its way.
    async fn until_logged_times(&self, text: &str, times: usize) {
        let start = Instant::now();
        while self.log().matches(text).count() < times {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "never logged {text:?} {times} times:\n{}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn wait(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer: status, headers, and the body as JSON (`Value::Null` when empty).
struct Reply {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

impl Reply {
    fn error_code(&self) -> i64 {
        self.body["error"]["code"].as_i64().unwrap_or(0)
    }

    fn error_message(&self) -> &str {
        self.body["error"]["message"].as_str().unwrap_or_default()
    }

    fn tool_text(&self) -> &str {
        self.body["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
    }

    fn is_tool_error(&self) -> bool {
        self.body["result"]["isError"] == true
    }
}

/// An HTTP client; rustls needs the process's crypto provider, which a test run alone
/// would otherwise not have installed.
fn client() -> reqwest::Client {
    gitlab_mcp::tls::install_crypto_provider();
    reqwest::Client::new()
}

/// POSTs `body` with the usual MCP headers, `headers` added or replacing them.
async fn post(endpoint: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
    let mut map = HeaderMap::new();
    for (name, value) in [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2025-11-25"),
    ]
    .iter()
    .chain(headers)
    {
        map.insert(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_bytes(value.as_bytes()).unwrap(),
        );
    }
    let response = client()
        .post(endpoint)
        .headers(map)
        .body(body.to_owned())
        .send()
        .await
        .expect("sent");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.expect("a body");
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    };
    Reply {
        status,
        headers,
        body,
    }
}

fn call(action: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "gitlab_execute_action", "arguments": {"action": action, "params": params}}})
    .to_string()
}

fn initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "http-test", "version": "1"}}})
    .to_string()
}

const ALICE: (&str, &str) = ("private-token", sandbox::TOKEN);
const BOB: (&str, &str) = ("authorization", "Bearer sandbox-token-bob");
const NO_FITTING: (&str, &str) = ("GITLAB_FIT_CATALOG", "false");

#[tokio::test]
async fn each_request_runs_with_its_own_token() {
    let gitlab = Sandbox::start_local().await.unwrap();
    // Fitting off, so the requests GitLab sees are the calls' own (fitting per token is
    // `each_token_sees_the_catalog_fitted_to_itself`).
    let server = HttpServer::start(gitlab.url(), &[], &[NO_FITTING]);
    for (header, user) in [
        (ALICE, "alice"),
        (BOB, "bob"),
        (ALICE, "alice"),
        (BOB, "bob"),
    ] {
        let reply = post(
            &server.endpoint,
            &[header],
            &call("user.current", json!({})),
        )
        .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(
            reply.body["result"]["structuredContent"]["username"], user,
            "{}",
            reply.body
        );
    }
    // Alice's private project: hers to read, not Bob's, on the same server.
    let dotfiles = call("project.get", json!({"project_id": "alice/dotfiles"}));
    let reply = post(&server.endpoint, &[BOB], &dotfiles).await;
    assert!(reply.is_tool_error(), "{}", reply.body);
    let reply = post(&server.endpoint, &[ALICE], &dotfiles).await;
    assert!(!reply.is_tool_error(), "{}", reply.body);
    // GitLab saw each request with its caller's token, in the header the caller used.
    let users: Vec<Option<String>> = gitlab.requests().into_iter().map(|r| r.user).collect();
    let expected = ["alice", "bob", "alice", "bob", "bob", "alice"];
    assert_eq!(
        users,
        expected.map(|u| Some(u.to_owned())),
        "GitLab saw these users"
    );
}

#[tokio::test]
async fn a_token_is_never_remembered_for_a_later_request() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(gitlab.url(), &[], &[("GITLAB_TOKEN", sandbox::TOKEN)]);
    let reply = post(&server.endpoint, &[ALICE], &initialize()).await;
    assert_eq!(reply.status, 200);
    assert!(reply.headers.get("mcp-session-id").is_none(), "stateless");
    // The next request brings no token: the one on initialize is not reused, and the
    // server's own GITLAB_TOKEN is not shared unless the operator says so.
    let reply = post(&server.endpoint, &[], &call("user.current", json!({}))).await;
    assert_eq!(reply.status, 401, "{}", reply.body);
    assert_eq!(reply.error_code(), -32001);
    assert!(
        reply.error_message().contains("PRIVATE-TOKEN"),
        "{}",
        reply.body
    );
    assert!(reply.headers.contains_key("www-authenticate"));
    assert!(
        server.log().contains("GITLAB_TOKEN is set but not used"),
        "{}",
        server.log()
    );
    assert!(gitlab.requests().is_empty(), "nothing reached GitLab");
}

#[tokio::test]
async fn a_shared_token_only_when_the_operator_sets_one() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let other = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(
        gitlab.url(),
        &["--shared-token", "--allowed-gitlab-urls", other.url()],
        &[("GITLAB_TOKEN", sandbox::TOKEN)],
    );
    let reply = post(&server.endpoint, &[], &call("user.current", json!({}))).await;
    assert_eq!(
        reply.body["result"]["structuredContent"]["username"], "alice",
        "{}",
        reply.body
    );
    // A caller's own token still wins.
    let reply = post(&server.endpoint, &[BOB], &call("user.current", json!({}))).await;
    assert_eq!(reply.body["result"]["structuredContent"]["username"], "bob");
    // The shared token never goes to another instance.
    let reply = post(
        &server.endpoint,
        &[("x-gitlab-url", other.url())],
        &call("user.current", json!({})),
    )
    .await;
    assert_eq!(reply.status, 401, "{}", reply.body);
    assert!(other.requests().is_empty());
}

#[tokio::test]
async fn another_gitlab_only_from_the_allow_list() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let other = Sandbox::start_local().await.unwrap();
    let strict = HttpServer::start(gitlab.url(), &[], &[]);
    let reply = post(
        &strict.endpoint,
        &[ALICE, ("x-gitlab-url", other.url())],
        &call("user.current", json!({})),
    )
    .await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    assert!(
        reply
            .error_message()
            .contains("GITLAB_MCP_ALLOWED_GITLAB_URLS")
    );

    let open = HttpServer::start(
        gitlab.url(),
        &[],
        &[
            (
                "GITLAB_MCP_ALLOWED_GITLAB_URLS",
                &format!("{}/api/v4/", other.url()),
            ),
            NO_FITTING,
        ],
    );
    let reply = post(
        &open.endpoint,
        &[BOB, ("x-gitlab-url", other.url())],
        &call("user.current", json!({})),
    )
    .await;
    assert_eq!(reply.body["result"]["structuredContent"]["username"], "bob");
    assert_eq!(
        other.requests().len(),
        1,
        "the request went to the named GitLab"
    );
    assert!(gitlab.requests().is_empty());
}

#[tokio::test]
async fn host_and_origin_must_be_allowed() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(gitlab.url(), &[], &[]);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let port = server
        .endpoint
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp");

    let reply = post(
        &server.endpoint,
        &[ALICE, ("host", &format!("evil.example.com:{port}"))],
        &list,
    )
    .await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    assert_eq!(reply.error_code(), -32003);
    assert!(reply.error_message().contains("GITLAB_MCP_ALLOWED_HOSTS"));

    let reply = post(
        &server.endpoint,
        &[ALICE, ("origin", "https://evil.example.com")],
        &list,
    )
    .await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    assert!(reply.error_message().contains("GITLAB_MCP_ALLOWED_ORIGINS"));

    for origin in ["http://localhost:6274", "http://127.0.0.1:3000"] {
        let reply = post(&server.endpoint, &[ALICE, ("origin", origin)], &list).await;
        assert_eq!(reply.status, 200, "{origin}: {}", reply.body);
    }

    // Probes come with the pod's address as Host: /health answers them.
    let health = client()
        .get(format!("{}/health", server.origin()))
        .header("host", "10.1.2.3:8080")
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);

    // An operator's own name, and loopback no longer.
    let named = HttpServer::start(gitlab.url(), &["--allowed-hosts", "mcp.example.com"], &[]);
    let reply = post(
        &named.endpoint,
        &[ALICE, ("host", "mcp.example.com")],
        &list,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let reply = post(&named.endpoint, &[ALICE], &list).await;
    assert_eq!(reply.status, 403);
}

#[tokio::test]
async fn bodies_are_limited_and_judged() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(
        gitlab.url(),
        &[],
        &[("GITLAB_MCP_MAX_MESSAGE_BYTES", "4096")],
    );
    let big = call(
        "issue.create",
        json!({"project_id": 101, "title": "x".repeat(5000)}),
    );
    let reply = post(&server.endpoint, &[ALICE], &big).await;
    assert_eq!(reply.status, 413, "{}", reply.body);
    assert!(
        reply.error_message().contains("4096 bytes"),
        "{}",
        reply.body
    );

    let reply = post(
        &server.endpoint,
        &[ALICE],
        "{\"jsonrpc\": \"2.0\", \"id\": 3,",
    )
    .await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error_code(), -32700, "{}", reply.body);
    assert_eq!(reply.body.get("id"), Some(&Value::Null), "{}", reply.body);

    let unversioned = r#"{"id":5,"method":"tools/list"}"#;
    let reply = post(&server.endpoint, &[ALICE], unversioned).await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error_code(), -32600, "{}", reply.body);
    assert_eq!(reply.body["id"], 5, "the error answers the request's id");

    let wrong = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}"#;
    let reply = post(&server.endpoint, &[ALICE], wrong).await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error_code(), -32602, "{}", reply.body);
    assert_eq!(reply.body["id"], 4, "the error answers the request's id");

    let get = client()
        .get(&server.endpoint)
        .header("accept", "text/event-stream")
        .header(ALICE.0, ALICE.1)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 405, "stateless: no standalone stream");
    assert!(gitlab.requests().is_empty());
}

#[tokio::test]
async fn each_token_has_its_own_rate_limit() {
    let gitlab = Sandbox::start_local().await.unwrap();
    // 6 a minute: a burst of one, then one every 10 s.
    let server = HttpServer::start(gitlab.url(), &["--rate-limit", "6"], &[]);
    let me = call("user.current", json!({}));
    assert_eq!(post(&server.endpoint, &[ALICE], &me).await.status, 200);
    let reply = post(&server.endpoint, &[ALICE], &me).await;
    assert_eq!(reply.status, 429, "{}", reply.body);
    assert_eq!(reply.error_code(), -32029);
    let wait: u64 = reply.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=10).contains(&wait), "Retry-After: {wait}");
    // Another token is not held back by Alice's.
    assert_eq!(post(&server.endpoint, &[BOB], &me).await.status, 200);
}

/// POSTs `body` with `headers` through `client` (one connection pool, kept alive).
async fn post_with(
    client: &reqwest::Client,
    endpoint: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<(u16, Option<String>), reqwest::Error> {
    let mut request = client
        .post(endpoint)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await?;
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    response.bytes().await?;
    Ok((status, retry_after))
}

#[tokio::test]
async fn a_valid_token_is_served_after_twelve_rejected_ones_from_its_address() {
    let gitlab = Sandbox::start_local().await.unwrap();
    // The default limits: 10 rejections of one token, 30 failures of one address.
    let server = HttpServer::start(
        gitlab.url(),
        &["--client-address-header", "X-Forwarded-For"],
        &[],
    );
    let me = call("user.current", json!({}));
    let office = ("x-forwarded-for", "203.0.113.7");
    // One client behind the office's NAT retries an expired token: GitLab rejects it ten
    // times, then the token (not the address) waits.
    for attempt in 1..=12 {
        let reply = post(
            &server.endpoint,
            &[office, ("private-token", "glpat-expired-token")],
            &me,
        )
        .await;
        if attempt <= 10 {
            assert_eq!(
                reply.status, 200,
                "{attempt}: GitLab's 401 is a tool result"
            );
            assert!(reply.is_tool_error(), "{attempt}");
        } else {
            assert_eq!(reply.status, 429, "{attempt}: {}", reply.body);
            assert!(reply.headers.contains_key("retry-after"));
            assert!(reply.error_message().contains("rejected this token"));
        }
    }
    // Everyone else in the office is served, with a token the server has never seen.
    let reply = post(&server.endpoint, &[office, ALICE], &me).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(!reply.is_tool_error(), "{}", reply.body);
    // Twelve different wrong tokens: still under the address's limit.
    for attempt in 0..12 {
        let token = format!("glpat-guess-{attempt}");
        let reply = post(&server.endpoint, &[office, ("private-token", &token)], &me).await;
        assert_eq!(reply.status, 200, "{attempt}");
    }
    let reply = post(&server.endpoint, &[office, BOB], &me).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(!reply.is_tool_error(), "{}", reply.body);
}

#[tokio::test]
async fn an_address_that_keeps_guessing_waits_but_valid_tokens_do_not() {
    let gitlab = Sandbox::start_local().await.unwrap();
    // 3 rejections of a token; 9 failures of an address.
    let server = HttpServer::start(
        gitlab.url(),
        &[
            "--auth-failure-limit",
            "3",
            "--client-address-header",
            "X-Forwarded-For",
        ],
        &[],
    );
    let me = call("user.current", json!({}));
    let mallory = ("x-forwarded-for", "10.0.0.1, 203.0.113.7");
    // Alice works from the same address; GitLab accepts her token.
    assert_eq!(
        post(&server.endpoint, &[mallory, ALICE], &me).await.status,
        200
    );
    // No token, a malformed one, and seven GitLab rejects: nine failures.
    let reply = post(&server.endpoint, &[mallory], &me).await;
    assert_eq!(reply.status, 401);
    let reply = post(
        &server.endpoint,
        &[mallory, ("private-token", "two words")],
        &me,
    )
    .await;
    assert_eq!(reply.status, 401);
    assert!(
        reply.error_message().contains("malformed"),
        "{}",
        reply.body
    );
    for guess in 0..7 {
        let token = format!("guessed-token-{guess}");
        let reply = post(&server.endpoint, &[mallory, ("private-token", &token)], &me).await;
        assert_eq!(reply.status, 200, "GitLab's 401 is a tool result");
        assert!(reply.is_tool_error());
        assert!(
            reply.tool_text().contains("the token this request sent"),
            "{}",
            reply.tool_text()
        );
    }
    // The address waits now, for tokens GitLab has not accepted from it...
    for token in ["guessed-token-8", "sandbox-token-bob"] {
        let reply = post(&server.endpoint, &[mallory, ("private-token", token)], &me).await;
        assert_eq!(reply.status, 429, "{token}: {}", reply.body);
        assert!(reply.headers.contains_key("retry-after"));
        assert!(reply.error_message().contains("authentication failures"));
    }
    // ...but Alice's valid token is served.
    let reply = post(&server.endpoint, &[mallory, ALICE], &me).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(!reply.is_tool_error(), "{}", reply.body);
    // Another client address is not held back.
    let reply = post(
        &server.endpoint,
        &[("x-forwarded-for", "203.0.113.8"), BOB],
        &me,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
}

#[tokio::test]
async fn every_request_over_the_limit_is_answered_429_with_retry_after() {
    let gitlab = Sandbox::start_local().await.unwrap();
    // A burst of one request, then one every 10 s.
    let server = HttpServer::start(gitlab.url(), &["--rate-limit", "6"], &[]);
    let me = call("user.current", json!({}));
    // Kept-alive connections, many requests at once, each with a body: none may be
    // closed under the client instead of answered.
    let pool = client();
    let mut statuses = std::collections::BTreeMap::new();
    for _round in 0..4 {
        let mut requests = tokio::task::JoinSet::new();
        for _ in 0..50 {
            let (pool, endpoint, me) = (pool.clone(), server.endpoint.clone(), me.clone());
            requests.spawn(async move { post_with(&pool, &endpoint, &[ALICE], &me).await });
        }
        for reply in requests.join_all().await {
            let (status, retry_after) = reply.expect("every request is answered");
            if status == 429 {
                let wait: u64 = retry_after.expect("Retry-After").parse().unwrap();
                assert!((1..=10).contains(&wait), "Retry-After: {wait}");
            }
            *statuses.entry(status).or_insert(0) += 1;
        }
    }
    assert_eq!(
        statuses.keys().copied().collect::<Vec<_>>(),
        [200, 429],
        "{statuses:?}"
    );
    assert!(statuses[&429] >= 190, "{statuses:?}");
}

#[tokio::test]
async fn a_connection_sending_half_a_request_is_closed() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(gitlab.url(), &["--read-timeout", "1"], &[]);
    let address = server.origin().trim_start_matches("http://").to_owned();
    // Half a header, then nothing: without a header timeout it would be held forever.
    let mut half = tokio::net::TcpStream::connect(&address).await.unwrap();
    half.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nPrivate-To")
        .await
        .unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(60), half.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "still open a minute later");
    // A header, and half the body it announces: 408.
    let mut slow = tokio::net::TcpStream::connect(&address).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nPrivate-Token: {}\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\":",
        sandbox::TOKEN
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), slow.read_to_end(&mut answer))
        .await
        .expect("answered and closed within a minute")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("GITLAB_MCP_READ_TIMEOUT"), "{answer}");
    // The server goes on.
    let me = call("user.current", json!({}));
    assert_eq!(post(&server.endpoint, &[ALICE], &me).await.status, 200);
}

#[tokio::test]
async fn connections_over_the_cap_are_answered_503_with_retry_after() {
    use tokio::io::AsyncWriteExt;
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(
        gitlab.url(),
        &["--max-connections", "4", "--read-timeout", "120"],
        &[],
    );
    let address = server.origin().trim_start_matches("http://").to_owned();
    let me = call("user.current", json!({}));
    // Four connections held open, each with a request header under way.
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        stream.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
        held.push(stream);
    }
    // The server has taken them all (a request on a fresh connection is refused).
    let mut refused = None;
    for _ in 0..600 {
        let reply = post(&server.endpoint, &[ALICE], &me).await;
        if reply.status == 503 {
            refused = Some(reply);
            break;
        }
        assert_eq!(reply.status, 200);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let refused = refused.expect("a fifth connection is refused");
    assert_eq!(refused.headers["retry-after"], "1");
    assert!(
        refused
            .error_message()
            .contains("GITLAB_MCP_MAX_CONNECTIONS"),
        "{}",
        refused.body
    );
    // Their closing frees the server for others.
    drop(held);
    let mut served = false;
    for _ in 0..600 {
        if post(&server.endpoint, &[ALICE], &me).await.status == 200 {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(served, "served again once the held connections closed");
}

#[tokio::test]
async fn two_processes_answer_one_client_as_one_process_does() {
    let script: Vec<String> = vec![
        initialize(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string(),
        call("issue.create", json!({"project_id": "acme/platform/api", "title": "Replicas agree"})),
        call("issue.list", json!({"project_id": "acme/platform/api", "search": "Replicas agree"})),
        call("issue.note_create", json!({"project_id": "acme/platform/api", "issue_iid": 17, "body": "Seen from a replica"})),
        call("issue.note_list", json!({"project_id": "acme/platform/api", "issue_iid": 17})),
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "gitlab://project/acme%2Fplatform%2Fapi/mr/42"}}).to_string(),
        call("user.current", json!({})),
    ];
    let run = |replicas: usize| {
        let script = script.clone();
        async move {
            let gitlab = Sandbox::start_local().await.unwrap();
            let servers: Vec<HttpServer> = (0..replicas)
                .map(|_| HttpServer::start(gitlab.url(), &[], &[]))
                .collect();
            let mut answers = Vec::new();
            for (at, message) in script.iter().enumerate() {
                let server = &servers[at % servers.len()];
                let reply = post(&server.endpoint, &[ALICE], message).await;
                answers.push((reply.status, reply.body));
            }
            answers
        }
    };
    let one = run(1).await;
    let two = run(2).await;
    for (at, (single, alternating)) in one.iter().zip(&two).enumerate() {
        assert!([200, 202].contains(&single.0), "step {at}: {:?}", single);
        assert_eq!(
            single, alternating,
            "step {at} differs between one and two processes"
        );
    }
    assert!(
        one[4].1.to_string().contains("Replicas agree"),
        "the issue created through one process is listed through the other: {}",
        one[4].1
    );
}

#[tokio::test]
async fn sigterm_lets_a_request_in_flight_finish() {
    let slow = Faults {
        latency_ms: 1500,
        ..Faults::default()
    };
    let gitlab = Sandbox::start(SocketAddr::from(([127, 0, 0, 1], 0)), slow)
        .await
        .unwrap();
    // Debug logs say when the call reached GitLab and when the server stopped listening
    // (no fitting, so the only GitLab request is the call's): no guessed sleeps.
    let mut server = HttpServer::start(
        gitlab.url(),
        &[],
        &[("GITLAB_MCP_LOG", "debug"), ("GITLAB_FIT_CATALOG", "false")],
    );
    let endpoint = server.endpoint.clone();
    let in_flight =
        tokio::spawn(
            async move { post(&endpoint, &[ALICE], &call("user.current", json!({}))).await },
        );
    server.until_logged("GitLab request").await;
    server.terminate();
    server.until_logged("stopping: no new connections").await;
    // No new connections once stopping...
    let refused = client()
        .get(format!("{}/health", server.origin()))
        .send()
        .await;
    assert!(
        refused.is_err(),
        "a new connection was accepted after SIGTERM"
    );
    // ...but the request in flight gets its whole answer.
    let reply = in_flight.await.unwrap();
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.body["result"]["structuredContent"]["username"], "alice",
        "{}",
        reply.body
    );
    let (status, server) = tokio::task::spawn_blocking(move || {
        let status = server.wait(Duration::from_secs(60));
        (status, server)
    })
    .await
    .unwrap();
    assert!(
        status.is_some_and(|s| s.success()),
        "exit: {status:?}\n{}",
        server.log()
    );
    // The log arrives on a thread of its own: its last line may come after the exit.
    server.until_logged("stopped").await;
}

#[tokio::test]
async fn no_token_reaches_the_log() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(gitlab.url(), &[], &[("GITLAB_MCP_LOG", "debug")]);
    let secrets = [
        sandbox::TOKEN,
        "sandbox-token-bob",
        "glpat-Revoked9Token",
        "glpat malformed-two-words",
    ];
    for token in secrets {
        for body in [
            initialize(),
            call("user.current", json!({})),
            call("project.get", json!({"project_id": "acme/nothing"})),
            "{nope".to_owned(),
        ] {
            post(&server.endpoint, &[("private-token", token)], &body).await;
            post(
                &server.endpoint,
                &[("authorization", &format!("Bearer {token}"))],
                &body,
            )
            .await;
        }
    }
    server.until_logged("GitLab request").await;
    let log = server.log();
    assert!(log.contains("GitLab request"), "debug logging is on: {log}");
    for secret in secrets {
        assert!(!log.contains(secret), "{secret} is in the log:\n{log}");
    }
}

/// A token GitLab creates (a field marked `secret: shown_once`) is shown once, in its
/// result with a note to store it now, and masked in the log from then on: a later
/// request that carries it (a search for it) is logged without it.
#[tokio::test]
async fn a_token_gitlab_creates_never_reaches_the_log() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(gitlab.url(), &[], &[("GITLAB_MCP_LOG", "debug")]);
    let mut created = Vec::new();
    for id in [
        "deploy_key.token_create",
        "access_token.project_create",
        "runner.create",
    ] {
        let action = gitlab_mcp::catalog::ACTIONS
            .iter()
            .find(|a| a.id == id)
            .unwrap();
        let example: Value = serde_json::from_str(action.example).unwrap();
        let reply = post(&server.endpoint, &[ALICE], &call(id, example)).await;
        let token = reply.body["result"]["structuredContent"]["token"]
            .as_str()
            .unwrap_or_else(|| panic!("{id} shows no token: {}", reply.body))
            .to_owned();
        // The manifest's mark (`secret: shown_once`), not a handler, says so.
        assert_eq!(
            reply.body["result"]["structuredContent"]["shown_once"],
            "Store this token now: GitLab shows it only in this answer and never again.",
            "{id}: {}",
            reply.body
        );
        let text = reply.body["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("- **⚠ Shown once**: Store this token now") && text.contains(&token),
            "{id}: {text}"
        );
        let search = call("search.global", json!({"search": token, "scope": "issues"}));
        let reply = post(&server.endpoint, &[ALICE], &search).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        created.push(token);
    }
    server
        .until_logged_times("path=/search?", created.len())
        .await;
    let log = server.log();
    assert!(
        log.matches("path=/search?").count() >= created.len(),
        "each search is logged with its query: {log}"
    );
    for token in created {
        assert!(!log.contains(&token), "{token} is in the log:\n{log}");
    }
}

#[tokio::test]
async fn protocol_2026_is_served_statelessly_too() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(gitlab.url(), &[], &[]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "http-test", "version": "1"}
    });
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "gitlab_execute_action",
        "arguments": {"action": "user.current", "params": {}},
        "_meta": meta}})
    .to_string();
    let reply = post(
        &server.endpoint,
        &[
            BOB,
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "gitlab_execute_action"),
        ],
        &body,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        reply.body["result"]["structuredContent"]["username"], "bob",
        "{}",
        reply.body
    );
}

fn list_tools() -> String {
    json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}).to_string()
}

fn tool_names(reply: &Reply) -> Vec<String> {
    reply.body["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {}", reply.body))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Reads the catalog resource with `header`'s token until it says what fitting learned.
async fn until_fitted(server: &HttpServer, header: (&str, &str)) {
    let read = json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "gitlab://tools"}})
        .to_string();
    for _ in 0..1200 {
        let reply = post(&server.endpoint, &[header], &read).await;
        let text = reply.body["result"]["contents"][0]["text"].as_str();
        if text.is_some_and(|text| text.contains("\"instance\"")) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the catalog was not fitted to {}", header.1);
}

#[tokio::test]
async fn each_token_sees_the_catalog_fitted_to_itself() {
    const READ: (&str, &str) = ("private-token", sandbox::TOKEN_READ_API);
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(gitlab.url(), &[], &[("TOOL_SURFACE", "individual")]);
    // A token's first request waits for its fitting at most a second; on a loaded machine
    // it may take longer, so wait until the catalog resource says what was learned.
    for header in [READ, ALICE] {
        until_fitted(&server, header).await;
    }
    // Interleaved, so a fitting kept for one token would show in the next one's answer.
    for (header, can_write) in [(READ, false), (ALICE, true), (READ, false), (ALICE, true)] {
        let reply = post(&server.endpoint, &[header], &list_tools()).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        let names = tool_names(&reply);
        assert!(names.iter().any(|n| n == "gitlab_issue_list"), "{names:?}");
        assert_eq!(
            names.iter().any(|n| n == "gitlab_issue_create"),
            can_write,
            "{}: {names:?}",
            header.1
        );
    }
    // The read_api token is refused a write with the reason; alice's token is not.
    let create = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "gitlab_issue_create",
        "arguments": {"project_id": "acme/platform/api", "title": "fitted per token"}}})
    .to_string();
    let reply = post(&server.endpoint, &[READ], &create).await;
    let refused = reply.is_tool_error() || reply.body["error"].is_object();
    assert!(refused, "{}", reply.body);
    let reply = post(&server.endpoint, &[ALICE], &create).await;
    assert!(!reply.is_tool_error(), "{}", reply.body);
    // Each token was detected once: its later requests reuse its own fitting.
    let detections = gitlab
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/personal_access_tokens/self"))
        .count();
    assert_eq!(detections, 2, "one detection per token");
    assert!(!server.log().contains(sandbox::TOKEN), "{}", server.log());
}

#[tokio::test]
async fn with_fitting_off_every_token_sees_the_full_catalog() {
    const READ: (&str, &str) = ("private-token", sandbox::TOKEN_READ_API);
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(
        gitlab.url(),
        &[],
        &[
            ("TOOL_SURFACE", "individual"),
            ("GITLAB_FIT_CATALOG", "false"),
        ],
    );
    let reply = post(&server.endpoint, &[READ], &list_tools()).await;
    assert!(
        tool_names(&reply)
            .iter()
            .any(|n| n == "gitlab_issue_create")
    );
    assert!(
        !gitlab
            .requests()
            .iter()
            .any(|r| r.path.ends_with("/personal_access_tokens/self")),
        "no detection when fitting is off"
    );
}

/// Sign-in with GitLab: the server's address as its clients know it.
const PUBLIC_URL: &str = "https://mcp.example.com";

fn oauth_args() -> Vec<&'static str> {
    vec![
        "--oauth-apps",
        sandbox::OAUTH_APP,
        "--public-url",
        PUBLIC_URL,
    ]
}

async fn get(url: &str) -> Reply {
    let response = client().get(url).send().await.expect("sent");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.expect("a body");
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    Reply {
        status,
        headers,
        body,
    }
}

fn challenge(reply: &Reply) -> &str {
    reply
        .headers
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

#[tokio::test]
async fn with_oauth_apps_it_is_a_resource_server_of_gitlab() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(gitlab.url(), &oauth_args(), &[NO_FITTING]);
    // The metadata, at the well-known path and at it followed by the resource's path.
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let reply = get(&format!("{}{path}", server.origin())).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
        assert_eq!(reply.body["resource"], "https://mcp.example.com/mcp");
        assert_eq!(reply.body["authorization_servers"], json!([gitlab.url()]));
        assert_eq!(reply.body["scopes_supported"], json!(["api", "read_api"]));
        assert_eq!(reply.body["bearer_methods_supported"], json!(["header"]));
        assert_eq!(
            reply.body["resource_documentation"],
            "https://mcp.example.com/"
        );
        assert_eq!(reply.headers["access-control-allow-origin"], "*");
    }
    let page = get(&format!("{}/", server.origin())).await;
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .as_str()
            .unwrap()
            .contains("https://mcp.example.com/mcp"),
        "{}",
        page.body
    );
    // Without a token: 401 and where to sign in, with no error code (RFC 6750 §3.1).
    let reply = post(&server.endpoint, &[], &initialize()).await;
    assert_eq!(reply.status, 401, "{}", reply.body);
    assert_eq!(
        challenge(&reply),
        "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"api\""
    );
    assert!(
        reply.error_message().contains("sign in with GitLab"),
        "{}",
        reply.body
    );
    assert!(gitlab.requests().is_empty(), "nothing reached GitLab");

    // Without --oauth-apps there is no metadata, and the challenge names no sign-in.
    let plain = HttpServer::start(gitlab.url(), &[], &[NO_FITTING]);
    let reply = get(&format!(
        "{}/.well-known/oauth-protected-resource",
        plain.origin()
    ))
    .await;
    assert_eq!(reply.status, 404);
    let reply = post(&plain.endpoint, &[], &initialize()).await;
    assert_eq!(challenge(&reply), "Bearer realm=\"gitlab-mcp\"");
}

#[test]
fn oauth_settings_that_cannot_work_stop_the_server_with_what_to_set() {
    for (args, says) in [
        (vec!["--oauth-apps", "app"], "GITLAB_MCP_PUBLIC_URL"),
        (
            vec![
                "--oauth-apps",
                "app",
                "--public-url",
                "http://mcp.example.com",
            ],
            "must be https",
        ),
        (
            vec!["--public-url", "https://mcp.example.com"],
            "GITLAB_MCP_OAUTH_APPS",
        ),
        (vec!["--oauth-only"], "GITLAB_MCP_OAUTH_APPS"),
    ] {
        let output = Command::new(BINARY)
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(&args)
            .env("GITLAB_URL", "http://127.0.0.1:9")
            .env_remove("GITLAB_MCP_OAUTH_APPS")
            .env_remove("GITLAB_MCP_PUBLIC_URL")
            .env_remove("GITLAB_MCP_OAUTH_ONLY")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} started");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[tokio::test]
async fn only_tokens_of_the_listed_oauth_applications_with_the_scope_are_served() {
    let gitlab = Sandbox::start_local().await.unwrap();
    // Fitting on: the catalog is fitted to the OAuth token's scopes, learned from GitLab's
    // description of it, as the gate's own check is.
    let server = HttpServer::start(gitlab.url(), &oauth_args(), &[("GITLAB_MCP_LOG", "debug")]);
    let bearer = format!("Bearer {}", sandbox::OAUTH_TOKEN);
    for _ in 0..20 {
        let reply = post(
            &server.endpoint,
            &[("authorization", &bearer)],
            &call("user.current", json!({})),
        )
        .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(
            reply.body["result"]["structuredContent"]["username"], "alice",
            "{}",
            reply.body
        );
    }
    let described = |requests: &[sandbox::Logged]| {
        requests
            .iter()
            .filter(|r| r.path == "/oauth/token/info")
            .count()
    };
    let requests = gitlab.requests();
    assert!(
        (1..=2).contains(&described(&requests)),
        "described {} times",
        described(&requests)
    );
    let calls = requests
        .iter()
        .filter(|r| r.path == "/api/v4/user" && r.user.as_deref() == Some("alice"))
        .count();
    assert!(calls >= 20, "{requests:?}");

    // Another application's token, and one without an API scope: refused, and nothing
    // of theirs reaches the API.
    let before = gitlab.requests().len();
    let refused = [
        (
            sandbox::OAUTH_TOKEN_OTHER_APP,
            401,
            "error=\"invalid_token\"",
        ),
        (
            sandbox::OAUTH_TOKEN_READ_USER,
            403,
            "error=\"insufficient_scope\"",
        ),
        ("not-an-oauth-token", 401, "error=\"invalid_token\""),
    ];
    for (token, status, error) in refused {
        for _ in 0..2 {
            let reply = post(
                &server.endpoint,
                &[("authorization", &format!("Bearer {token}"))],
                &call("user.current", json!({})),
            )
            .await;
            assert_eq!(reply.status, status, "{token}: {}", reply.body);
            assert!(challenge(&reply).contains(error), "{}", challenge(&reply));
            assert!(
                challenge(&reply).contains("scope=\"api\"")
                    && challenge(&reply).contains("resource_metadata="),
                "{}",
                challenge(&reply)
            );
        }
    }
    let requests = gitlab.requests().split_off(before);
    assert!(
        requests.iter().all(|r| r.path == "/oauth/token/info"),
        "{requests:?}"
    );
    // Each described once: the answer is kept.
    assert_eq!(described(&requests), refused.len(), "{requests:?}");

    // A personal access token still works beside OAuth.
    let reply = post(&server.endpoint, &[ALICE], &call("user.current", json!({}))).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(!reply.is_tool_error(), "{}", reply.body);

    let log = server.log();
    for token in [
        sandbox::OAUTH_TOKEN,
        sandbox::OAUTH_TOKEN_OTHER_APP,
        sandbox::OAUTH_TOKEN_READ_USER,
        "not-an-oauth-token",
        "oauth-token",
    ] {
        assert!(!log.contains(token), "{token} in the log:\n{log}");
    }
}

#[tokio::test]
async fn with_oauth_only_a_personal_access_token_is_refused() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let mut args = oauth_args();
    args.push("--oauth-only");
    let server = HttpServer::start(gitlab.url(), &args, &[NO_FITTING]);
    let reply = post(&server.endpoint, &[ALICE], &call("user.current", json!({}))).await;
    assert_eq!(reply.status, 401, "{}", reply.body);
    assert!(
        challenge(&reply).contains("resource_metadata="),
        "{}",
        challenge(&reply)
    );
    assert!(
        reply.error_message().contains("only sign-in with GitLab"),
        "{}",
        reply.body
    );
    let bearer = format!("Bearer {}", sandbox::OAUTH_TOKEN);
    let reply = post(
        &server.endpoint,
        &[("authorization", &bearer)],
        &call("user.current", json!({})),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        reply.body["result"]["structuredContent"]["username"],
        "alice"
    );
    // A read_api token in a read-only server is enough.
    drop(server);
    let server = HttpServer::start(
        gitlab.url(),
        &args,
        &[NO_FITTING, ("GITLAB_READ_ONLY", "true")],
    );
    let read = format!("Bearer {}", sandbox::OAUTH_TOKEN_READ_API);
    let reply = post(
        &server.endpoint,
        &[("authorization", &read)],
        &call("user.current", json!({})),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let reply = post(&server.endpoint, &[], &initialize()).await;
    assert!(
        challenge(&reply).contains("scope=\"read_api\""),
        "{}",
        challenge(&reply)
    );
}

/// A 2026-07-28 tools/call of `branch.delete` without `confirm`, from a client whose
/// `_meta` declares elicitation (or not), with the answers of an earlier round.
fn delete_2026(elicits: bool, responses: Option<Value>) -> String {
    let capabilities = if elicits {
        json!({"elicitation": {"form": {}}})
    } else {
        json!({})
    };
    let mut params = json!({
    "name": "gitlab_execute_action",
    "arguments": {"action": "branch.delete", "params": {"project_id": "acme/platform/api", "branch_name": "fix/login-pipe"}},
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }});
    if let Some(responses) = responses {
        params["inputResponses"] = responses;
    }
    json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": params}).to_string()
}

const HEADERS_2026: [(&str, &str); 4] = [
    ALICE,
    ("mcp-protocol-version", "2026-07-28"),
    ("mcp-method", "tools/call"),
    ("mcp-name", "gitlab_execute_action"),
];

/// Over stateless HTTP a 2026-07-28 client that declares elicitation gets `input_required`
/// with a one-boolean form, and its retry decides: declined keeps the branch (an isError
/// false result saying nothing was done), accepted deletes it. Without the capability the
/// call is refused until `confirm: true`, as before. A 2025-11-25 client over HTTP cannot
/// be sent `elicitation/create` (each POST is answered on its own): it needs `confirm`.
#[tokio::test]
async fn input_required_asks_before_a_destructive_call() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let server = HttpServer::start(gitlab.url(), &[], &[NO_FITTING]);
    let branch = call(
        "branch.get",
        json!({"project_id": "acme/platform/api", "branch_name": "fix/login-pipe"}),
    );
    let exists = async || {
        let reply = post(&server.endpoint, &[ALICE], &branch).await;
        !reply.is_tool_error()
    };
    assert!(exists().await, "seeded");

    let reply = post(&server.endpoint, &HEADERS_2026, &delete_2026(true, None)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let result = &reply.body["result"];
    assert_eq!(result["resultType"], "input_required", "{result}");
    let ask = &result["inputRequests"]["confirm"];
    assert_eq!(ask["method"], "elicitation/create", "{result}");
    assert_eq!(ask["params"]["mode"], "form", "{result}");
    assert_eq!(
        ask["params"]["requestedSchema"]["properties"]["confirm"]["type"],
        "boolean"
    );
    assert!(
        ask["params"]["message"]
            .as_str()
            .unwrap()
            .contains("on project_id `acme/platform/api`, branch_name `fix/login-pipe`"),
        "{result}"
    );
    assert!(exists().await, "asking deletes nothing");

    for answer in [
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "accept", "content": {"confirm": false}}),
    ] {
        let retry = delete_2026(true, Some(json!({"confirm": answer})));
        let reply = post(&server.endpoint, &HEADERS_2026, &retry).await;
        assert_eq!(
            reply.body["result"]["resultType"], "complete",
            "{}",
            reply.body
        );
        assert!(!reply.is_tool_error(), "{}", reply.body);
        assert!(
            reply.tool_text().starts_with("Nothing was done"),
            "{answer}: {}",
            reply.body
        );
        assert!(exists().await, "{answer}: kept");
    }

    let reply = post(&server.endpoint, &HEADERS_2026, &delete_2026(false, None)).await;
    assert!(reply.is_tool_error(), "{}", reply.body);
    assert!(
        reply.tool_text().contains("`confirm: true`"),
        "{}",
        reply.body
    );
    let legacy = call(
        "branch.delete",
        json!({"project_id": "acme/platform/api", "branch_name": "fix/login-pipe"}),
    );
    let reply = post(&server.endpoint, &[ALICE], &legacy).await;
    assert!(
        reply.tool_text().contains("`confirm: true`"),
        "{}",
        reply.body
    );
    assert!(exists().await, "refused");

    let accept = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let reply = post(
        &server.endpoint,
        &HEADERS_2026,
        &delete_2026(true, Some(accept)),
    )
    .await;
    assert!(!reply.is_tool_error(), "{}", reply.body);
    assert!(
        reply.tool_text().contains("Deleted branch"),
        "{}",
        reply.body
    );
    assert!(!exists().await, "deleted");
}

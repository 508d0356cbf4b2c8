//! Start-up never waits for GitLab. Against a fake GitLab that accepts connections and
//! says nothing (`upstream.rs`), the real binary answers `tools/list` on every surface
//! while GitLab has still not answered (the dynamic surface without waiting at all, meta
//! and individual after at most `fit::GRACE`, with the catalog as known before fitting),
//! and answers calls. When fitting finishes later, a client that was shown tools fitting
//! changed gets `notifications/tools/list_changed` (on a `subscriptions/listen` stream for
//! a 2026-07-28 client), and a client whose tools did not change gets nothing.
//!
//! Nothing here is timed against the machine's load: GitLab's answers are held back
//! until the test lets them go, and the checks are about order (the list came while
//! GitLab had not answered), not about milliseconds. The elapsed times are printed
//! (`STARTUP |` lines) for the record.
//!
//! Nor does start-up read the system's root certificates before a handshake needs them.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use gitlab_mcp::catalog::ACTIONS;
use rmcp::model::{
    ProtocolVersion, ReadResourceRequestParams, ServerNotification, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support::BINARY;
use crate::upstream::{Reply, Upstream};

const TOKEN: &str = "glpat-startup-token";

/// The paths fitting asks about.
fn is_fitting(path: &str) -> bool {
    [
        "/metadata",
        "/version",
        "/personal_access_tokens/self",
        "/user",
    ]
    .iter()
    .any(|p| path == format!("/api/v4{p}"))
}

/// A GitLab whose answers to fitting wait until `open` is set (until then it has accepted
/// the connection and says nothing), then say: Enterprise Edition, the token's `scopes`,
/// and whether its user is an administrator. Every other request gets a project.
fn held_gitlab(open: Arc<AtomicBool>, scopes: &'static [&'static str], admin: bool) -> Upstream {
    Upstream::start(move |seen| {
        if is_fitting(&seen.path) {
            while !open.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        match seen.path.as_str() {
            "/api/v4/metadata" => Reply::Json(
                200,
                json!({"version": "18.5.0", "enterprise": true}).to_string(),
            ),
            "/api/v4/personal_access_tokens/self" => {
                Reply::Json(200, json!({"scopes": scopes}).to_string())
            }
            "/api/v4/user" => Reply::Json(
                200,
                json!({"id": 1, "username": "alice", "is_admin": admin}).to_string(),
            ),
            _ => Reply::Json(200, project().to_string()),
        }
    })
}

fn project() -> Value {
    let seed: Value =
        serde_json::from_str(include_str!("../../src/sandbox/seed/records/projects.json")).unwrap();
    seed["records"][0].clone()
}

fn command(gitlab: &Upstream, surface: &str) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(BINARY);
    command
        .args(["--tool-surface", surface, "serve"])
        .env("GITLAB_URL", gitlab.url())
        .env("GITLAB_TOKEN", TOKEN)
        // Long enough that fitting never gives up while a test holds GitLab back.
        .env("GITLAB_TIMEOUT", "600")
        .env_remove("GITLAB_FIT_CATALOG")
        .env_remove("TOOL_SURFACE")
        .env_remove("GITLAB_READ_ONLY")
        .env_remove("GITLAB_EXCLUDE_ACTIONS");
    command
}

/// The raw stdio wire, to see each message as the server writes it.
struct Wire {
    _child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: BufReader<tokio::process::ChildStdout>,
}

impl Wire {
    fn start(gitlab: &Upstream, surface: &str) -> Self {
        Self::of(command(gitlab, surface))
    }

    fn of(mut command: tokio::process::Command) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the binary starts");
        Self {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            _child: child,
        }
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The next message, within a minute.
    async fn next(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(60), self.stdout.read_line(&mut line))
            .await
            .expect("the server writes within a minute")
            .unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// The answer to request `id`, and the notifications written before it.
    async fn answer(&mut self, id: i64) -> (Value, Vec<Value>) {
        let mut notifications = Vec::new();
        loop {
            let message = self.next().await;
            if message["id"] == id {
                return (message, notifications);
            }
            notifications.push(message);
        }
    }

    async fn initialize(&mut self) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "startup", "version": "1"}
        }}))
        .await;
        let (reply, _) = self.answer(0).await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        reply
    }

    /// The tools listed, and the notifications written before the list.
    async fn tools(&mut self, id: i64) -> (Vec<Value>, Vec<Value>) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}))
            .await;
        let (reply, notifications) = self.answer(id).await;
        let tools = reply["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{reply}"))
            .clone();
        (tools, notifications)
    }

    /// Reads the catalog resource until it says what fitting learned; the notifications
    /// written meanwhile.
    async fn until_fitted(&mut self, mut id: i64) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            id += 1;
            self.send(json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": "gitlab://tools"}}))
                .await;
            let (reply, notifications) = self.answer(id).await;
            seen.extend(notifications);
            if reply["result"]["contents"][0]["text"]
                .as_str()
                .is_some_and(|text| text.contains("\"instance\""))
            {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A round trip: the notifications written before its answer.
    async fn ping(&mut self, id: i64) -> Vec<Value> {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
            .await;
        self.answer(id).await.1
    }
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

fn list_changed(notifications: &[Value]) -> usize {
    notifications
        .iter()
        .filter(|n| n["method"] == "notifications/tools/list_changed")
        .count()
}

#[tokio::test]
async fn every_surface_lists_its_tools_while_gitlab_says_nothing() {
    let domains = ACTIONS
        .iter()
        .map(|a| a.domain)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    for surface in ["dynamic", "meta", "individual"] {
        // GitLab accepts fitting's questions and never answers them: whatever is answered
        // below did not wait for GitLab.
        let gitlab = held_gitlab(Arc::new(AtomicBool::new(false)), &["api"], false);
        let started = Instant::now();
        let mut wire = Wire::start(&gitlab, surface);
        let reply = wire.initialize().await;
        let initialized = started.elapsed();
        let capabilities = &reply["result"]["capabilities"]["tools"];
        // Only tools fitting can change are declared as changing.
        assert_eq!(
            capabilities["listChanged"].as_bool().unwrap_or(false),
            surface != "dynamic",
            "{surface}: {reply}"
        );
        let listing = Instant::now();
        let (tools, _) = wire.tools(1).await;
        let listed = listing.elapsed();
        // What is known before fitting: the whole catalog.
        let expected = match surface {
            "dynamic" => 2,
            "individual" => ACTIONS.len(),
            _ => domains,
        };
        assert_eq!(tools.len(), expected, "{surface}");
        // A call is answered too: judged with what is known, and GitLab asked.
        wire.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": match surface {
            "dynamic" => json!({"name": "gitlab_execute_action", "arguments": {"action": "project.get", "params": {"project_id": 101}}}),
            "meta" => json!({"name": "gitlab_project", "arguments": {"action": "get", "params": {"project_id": 101}}}),
            _ => json!({"name": "gitlab_project_get", "arguments": {"project_id": 101}}),
        }}))
        .await;
        let (answer, _) = wire.answer(2).await;
        assert_eq!(answer["result"]["isError"], false, "{surface}: {answer}");
        assert!(
            gitlab
                .seen()
                .iter()
                .any(|s| s.path == "/api/v4/projects/101"),
            "{surface}"
        );
        eprintln!(
            "STARTUP | {surface} | GitLab silent | initialize {} ms | tools/list {} ms after it | {} tools",
            initialized.as_millis(),
            listed.as_millis(),
            tools.len()
        );
    }
}

#[tokio::test]
async fn a_client_shown_tools_that_fitting_changed_is_told_once() {
    for surface in ["individual", "meta"] {
        // A `read_api` token: fitting hides every write.
        let open = Arc::new(AtomicBool::new(false));
        let gitlab = held_gitlab(open.clone(), &["read_api"], false);
        let mut wire = Wire::start(&gitlab, surface);
        wire.initialize().await;
        let (before, _) = wire.tools(1).await;
        open.store(true, Ordering::SeqCst);
        // Fitting finishes: the client is told, then lists again.
        let notification = wire.next().await;
        assert_eq!(
            notification["method"], "notifications/tools/list_changed",
            "{surface}: {notification}"
        );
        let (after, notifications) = wire.tools(2).await;
        assert_eq!(list_changed(&notifications), 0, "{surface}: told twice");
        assert_ne!(after, before, "{surface}");
        let (before, after) = (
            Value::from(before).to_string(),
            Value::from(after).to_string(),
        );
        assert!(before.contains("\"create\"") || before.contains("gitlab_issue_create"));
        assert!(!after.contains("\"create\"") && !after.contains("gitlab_issue_create"));
        // Nothing more comes.
        let notifications = wire.ping(3).await;
        assert!(notifications.is_empty(), "{surface}: {notifications:?}");
    }
}

#[tokio::test]
async fn no_notification_when_fitting_changes_nothing_shown() {
    // An administrator's `api` token on the Enterprise Edition: fitting hides nothing.
    let open = Arc::new(AtomicBool::new(false));
    let gitlab = held_gitlab(open.clone(), &["api"], true);
    let mut wire = Wire::start(&gitlab, "individual");
    wire.initialize().await;
    let (before, _) = wire.tools(1).await;
    open.store(true, Ordering::SeqCst);
    let mut seen = wire.until_fitted(10).await;
    let (after, notifications) = wire.tools(100).await;
    seen.extend(notifications);
    seen.extend(wire.ping(101).await);
    assert_eq!(before, after);
    assert_eq!(list_changed(&seen), 0, "{seen:?}");

    // Fitting that finished before the first list changes nothing the client saw either,
    // even though it hides every write.
    let gitlab = held_gitlab(Arc::new(AtomicBool::new(true)), &["read_api"], false);
    let mut wire = Wire::start(&gitlab, "individual");
    wire.initialize().await;
    let mut seen = wire.until_fitted(0).await;
    let (tools, notifications) = wire.tools(100).await;
    seen.extend(notifications);
    seen.extend(wire.ping(101).await);
    let tools = names(&tools);
    assert!(!tools.contains(&"gitlab_issue_create"));
    assert!(tools.contains(&"gitlab_issue_list"));
    assert_eq!(list_changed(&seen), 0, "{seen:?}");
}

/// An MCP client (rmcp) that counts `notifications/tools/list_changed`.
#[derive(Clone, Default)]
struct Counting {
    changed: Arc<AtomicUsize>,
    told: Arc<tokio::sync::Notify>,
}

impl ClientHandler for Counting {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.fetch_add(1, Ordering::SeqCst);
        self.told.notify_one();
    }
}

async fn rmcp_client(
    gitlab: &Upstream,
    surface: &str,
    lifecycle: ClientLifecycleMode,
) -> (RunningService<RoleClient, Counting>, Counting) {
    let (transport, _) = TokioChildProcess::builder(command(gitlab, surface))
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let handler = Counting::default();
    let client = handler
        .clone()
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("the MCP handshake succeeds");
    (client, handler)
}

#[tokio::test]
async fn an_mcp_client_relists_when_told() {
    let open = Arc::new(AtomicBool::new(false));
    let gitlab = held_gitlab(open.clone(), &["read_api"], false);
    let (client, handler) =
        rmcp_client(&gitlab, "individual", ClientLifecycleMode::Initialize).await;
    let before = client.list_all_tools().await.unwrap();
    assert!(before.iter().any(|t| t.name == "gitlab_issue_create"));
    open.store(true, Ordering::SeqCst);
    tokio::time::timeout(Duration::from_secs(60), handler.told.notified())
        .await
        .expect("notifications/tools/list_changed arrives");
    let after = client.list_all_tools().await.unwrap();
    assert!(!after.iter().any(|t| t.name == "gitlab_issue_create"));
    assert!(after.iter().any(|t| t.name == "gitlab_issue_list"));
    // A round trip, then count: told once.
    client.list_all_tools().await.unwrap();
    assert_eq!(handler.changed.load(Ordering::SeqCst), 1);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_2026_client_is_told_on_its_subscription() {
    let open = Arc::new(AtomicBool::new(false));
    let gitlab = held_gitlab(open.clone(), &["read_api"], false);
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let (client, _) = rmcp_client(&gitlab, "meta", lifecycle).await;
    let mut subscription = client
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .expect("the subscription is acknowledged");
    assert_eq!(subscription.acknowledged().tools_list_changed, Some(true));
    let before = client.list_all_tools().await.unwrap();
    open.store(true, Ordering::SeqCst);
    let notification = tokio::time::timeout(Duration::from_secs(60), subscription.next())
        .await
        .expect("a notification within a minute")
        .unwrap();
    assert!(
        matches!(
            notification,
            Some(ServerNotification::ToolListChangedNotification(_))
        ),
        "{notification:?}"
    );
    let after = client.list_all_tools().await.unwrap();
    assert_ne!(
        serde_json::to_string(&before).unwrap(),
        serde_json::to_string(&after).unwrap()
    );
    let manifest = client
        .read_resource(ReadResourceRequestParams::new("gitlab://tools"))
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&manifest)
            .unwrap()
            .contains("read_api")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_timeout_names_the_deadline_in_force() {
    let gitlab = Upstream::start(|_| Reply::Stall);
    let mut child = tokio::process::Command::new(BINARY)
        .args(["serve"])
        .env("GITLAB_URL", gitlab.url())
        .env("GITLAB_TOKEN", TOKEN)
        .env("GITLAB_TIMEOUT", "1.5")
        .env_remove("GITLAB_FIT_CATALOG")
        .env_remove("GITLAB_MCP_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let warning = tokio::time::timeout(Duration::from_secs(120), async {
        while let Some(line) = stderr.next_line().await.unwrap() {
            if line.contains("could not learn") {
                return line;
            }
        }
        panic!("no warning about fitting");
    })
    .await
    .expect("fitting gives up at its deadline");
    assert!(
        warning.contains("within 1.5 s (GITLAB_TIMEOUT)"),
        "{warning}"
    );
    assert!(!warning.contains("50 s"), "{warning}");
    assert!(!warning.contains(TOKEN), "{warning}");
}

/// The system's root certificates are read only when a TLS handshake needs them: a GitLab
/// on plain http is served where there are none to read (a minimal container), and an
/// https GitLab is verified against them (here the test's CA, as SSL_CERT_FILE names it)
/// and refused without them.
#[tokio::test]
async fn root_certificates_are_read_only_for_https() {
    let plain = Upstream::start(|_| Reply::Json(200, project().to_string()));
    let secure = Upstream::start_tls(|_| Reply::Json(200, project().to_string()));
    let test_ca = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/tls/ca.pem");
    let nowhere = "/nonexistent/gitlab-mcp-test/ca.pem";
    for (gitlab, cert_file, served) in [
        (&plain, nowhere, true),
        (&secure, test_ca, true),
        (&secure, nowhere, false),
    ] {
        let mut command = command(gitlab, "dynamic");
        command
            .env("SSL_CERT_FILE", cert_file)
            .env("SSL_CERT_DIR", "/nonexistent/gitlab-mcp-test")
            .env_remove("GITLAB_CA_FILE");
        let mut wire = Wire::of(command);
        wire.initialize().await;
        wire.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "gitlab_execute_action",
                "arguments": {"action": "project.get", "params": {"project_id": "acme/api"}}
            }}),
        )
        .await;
        let (reply, _) = wire.answer(1).await;
        let result = &reply["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        let case = format!("{} with SSL_CERT_FILE={cert_file}", gitlab.url());
        assert_eq!(result["isError"] == true, !served, "{case}: {reply}");
        if served {
            assert!(
                text.contains(project()["name"].as_str().unwrap()),
                "{case}: {text}"
            );
        } else {
            assert!(
                text.contains("TLS") || text.contains("certificate"),
                "{case}: {text}"
            );
        }
    }
}

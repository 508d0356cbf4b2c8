//! Load test of `gitlab-mcp serve --http`: many users, each with their own token, against
//! the sandbox GitLab, on loopback only. Not a timed test: it measures and reports, and
//! fails only on wrong answers (a protocol error, another token's data, a token in the
//! server's log).
//!
//! `cargo bench --bench load` runs 1, 8 and 32 concurrent clients (2,000, 5,000 and
//! 10,000 calls); `-- --quick` runs 32 clients × 100 calls (what `.ci/run` does);
//! `-- --write` also writes `target/load.md`, which `cargo bench --bench report -- --write`
//! appends to BENCHMARKS.md. Options: `--clients 1,8,32`, `--calls 2000,5000,10000`,
//! `--log debug` (the server's log level), `--oauth` (sign-in with GitLab on: see below).
//!
//! Each client `loadNN` sends `PRIVATE-TOKEN: load-token-NN` (a sandbox user with one
//! private project, `loadNN/notes`) and cycles through `user.current`, `project.get` of its
//! project and `project.list membership=true`, checking that every answer is its own:
//! its username, its project, and no other load user's project. The server and the
//! sandbox are separate processes of the bench-profile binary; RSS is the server's.
//!
//! With `--oauth` the server is an OAuth resource server (`--oauth-apps load-oauth-app`)
//! and each client sends `Authorization: Bearer load-oauth-token-NN`, an OAuth token of
//! that application: every token is described by GitLab's `/oauth/token/info` before it is
//! served, and the report says how often that happened per token. The revoked token is
//! then refused by the server itself (HTTP 401), before any API call. `--write` writes
//! `target/load-oauth.md` instead.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

// Only `ms` is needed here: the load test writes its own percentiles.
#[allow(dead_code)]
#[path = "../bench/measure.rs"]
mod measure;
use measure::ms;

const BINARY: &str = env!("CARGO_BIN_EXE_gitlab-mcp");
const USERS: usize = 32;
const PROTOCOL: &str = "2025-11-25";

fn main() {
    let options = Options::parse();
    gitlab_mcp::tls::install_crypto_provider();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let outcome = runtime.block_on(run(&options));
    print!("{}", outcome.report);
    if options.write {
        let name = if options.oauth {
            "target/load-oauth.md"
        } else {
            "target/load.md"
        };
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name);
        std::fs::write(&path, &outcome.report).expect("target/ is writable");
        eprintln!("wrote {}", path.display());
    }
    if !outcome.problems.is_empty() {
        eprintln!("FAILED:\n- {}", outcome.problems.join("\n- "));
        std::process::exit(1);
    }
}

struct Options {
    levels: Vec<(usize, usize)>,
    quick: bool,
    write: bool,
    log: String,
    oauth: bool,
}

impl Options {
    fn parse() -> Self {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let value = |name: &str| {
            args.iter()
                .position(|a| a == name)
                .and_then(|at| args.get(at + 1))
                .cloned()
        };
        let numbers = |text: String| -> Vec<usize> {
            text.split(',')
                .map(|n| n.trim().parse().expect("a number"))
                .collect()
        };
        let quick = args.iter().any(|a| a == "--quick");
        let clients = value("--clients")
            .map_or_else(|| if quick { vec![32] } else { vec![1, 8, 32] }, numbers);
        let calls = value("--calls").map_or_else(
            || {
                if quick {
                    vec![3_200]
                } else {
                    vec![2_000, 5_000, 10_000]
                }
            },
            numbers,
        );
        assert_eq!(
            clients.len(),
            calls.len(),
            "one --calls count per --clients level"
        );
        assert!(
            clients.iter().all(|&c| (1..=USERS).contains(&c)),
            "1 to {USERS} clients"
        );
        Self {
            levels: clients.into_iter().zip(calls).collect(),
            quick,
            write: args.iter().any(|a| a == "--write"),
            log: value("--log").unwrap_or_else(|| if quick { "debug" } else { "info" }.into()),
            oauth: args.iter().any(|a| a == "--oauth"),
        }
    }
}

struct Outcome {
    report: String,
    problems: Vec<String>,
}

/// A child process killed when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// How a client shows its token: a personal access token, or an OAuth token of the
/// application the server accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Auth {
    PrivateToken,
    Bearer,
}

impl Auth {
    fn token(self, user: usize) -> String {
        match self {
            Self::PrivateToken => format!("load-token-{user:02}"),
            Self::Bearer => format!("load-oauth-token-{user:02}"),
        }
    }

    fn revoked(self) -> String {
        format!("{}-revoked", self.token(1))
    }

    /// The header that carries `token`: GitLab's own for a PAT, a bearer for OAuth.
    fn header(self, token: &str) -> (&'static str, String) {
        match self {
            Self::PrivateToken => ("private-token", token.to_owned()),
            Self::Bearer => ("authorization", format!("Bearer {token}")),
        }
    }
}

/// How many times the sandbox GitLab was asked to describe an OAuth token.
async fn token_descriptions(gitlab: &str) -> usize {
    let Ok(response) = reqwest::get(format!("{gitlab}/-/sandbox/requests")).await else {
        return usize::MAX;
    };
    let log: Value =
        serde_json::from_slice(&response.bytes().await.unwrap_or_default()).unwrap_or_default();
    log.as_array().map_or(usize::MAX, |requests| {
        requests
            .iter()
            .filter(|r| r["path"] == "/oauth/token/info")
            .count()
    })
}

fn username(user: usize) -> String {
    format!("load{user:02}")
}

fn project(user: usize) -> String {
    format!("load{user:02}/notes")
}

async fn run(options: &Options) -> Outcome {
    let load_before = load_average();
    let (sandbox, gitlab) = start_sandbox();
    let sandbox_pid = sandbox.0.id();
    let log_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/load-server.log");
    // `target/` beside the manifest, where the report looks for `load.md`: absent when
    // CARGO_TARGET_DIR builds elsewhere.
    std::fs::create_dir_all(log_path.parent().expect("a folder")).expect("target/ is writable");
    let auth = if options.oauth {
        Auth::Bearer
    } else {
        Auth::PrivateToken
    };
    let (server, endpoint) = start_server(&gitlab, &log_path, &options.log, auth);
    let pid = server.0.id();
    let mut problems = Vec::new();
    let mut memory = vec![("after start".to_owned(), rss_kib(pid))];

    // Warm-up: every user connects and makes a few calls, so later figures are steady.
    let clients: Vec<Rc<Client>> = (1..=USERS)
        .map(|user| Rc::new(Client::new(user, &endpoint, auth)))
        .collect();
    for client in &clients {
        if let Err(problem) = client.initialize().await {
            problems.push(problem);
        }
    }
    let warm = measure(&clients, USERS * 10).await;
    problems.extend(warm.problems.iter().cloned());
    memory.push(("after warm-up (320 calls)".to_owned(), rss_kib(pid)));

    let mut rows = Vec::new();
    let mut totals = Totals::default();
    for &(count, calls) in &options.levels {
        let cpu_before = (
            cpu_seconds(pid),
            cpu_seconds(sandbox_pid),
            cpu_seconds(std::process::id()),
        );
        let mut level = measure(&clients[..count], calls).await;
        level.cpu = (
            cpu_seconds(pid) - cpu_before.0,
            cpu_seconds(sandbox_pid) - cpu_before.1,
            cpu_seconds(std::process::id()) - cpu_before.2,
        );
        totals.add(&level);
        problems.extend(level.problems.iter().take(5).cloned());
        memory.push((
            format!("after {calls} calls at {count} clients"),
            rss_kib(pid),
        ));
        rows.push((count, level));
    }

    // A revoked token: a tool error that names the request's header (an OAuth token: the
    // server's own 401), and nothing in the log.
    let revoked = Client::with_token(1, &endpoint, auth, &auth.revoked());
    for _ in 0..3 {
        match (auth, revoked.call(Call::Me).await) {
            (Auth::PrivateToken, Ok(Answer::Error(text)))
                if text.contains("rejected the token (401)") => {}
            (Auth::Bearer, Err(text)) if text.starts_with("HTTP 401") => {}
            (_, other) => problems.push(format!("a revoked token gave {other:?}")),
        }
    }
    let descriptions = if auth == Auth::Bearer {
        let described = token_descriptions(&gitlab).await;
        if described > 2 * (USERS + 1) {
            problems.push(format!(
                "{described} token descriptions for {} tokens: each should be described at most twice (the gate, fitting)",
                USERS + 1
            ));
        }
        Some(described)
    } else {
        None
    };

    let load_after = load_average();
    drop(server);
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    let mut secrets: Vec<String> = (1..=USERS).map(|user| auth.token(user)).collect();
    secrets.push(auth.revoked());
    let leaked: Vec<&String> = secrets
        .iter()
        .filter(|t| log.contains(t.as_str()))
        .collect();
    if !leaked.is_empty() {
        problems.push(format!("tokens in the server log: {leaked:?}"));
    }

    let mut report = String::new();
    let mut line = |text: String| {
        report.push_str(&text);
        report.push('\n');
    };
    line(if auth == Auth::Bearer {
        "\n## HTTP under load with sign-in with GitLab (`serve --http --oauth-apps`, each client its own OAuth token)\n".into()
    } else {
        "\n## HTTP under load (`serve --http`, stateless, each client its own user and token)\n"
            .into()
    });
    line(format!(
        "Produced by `cargo bench --bench load -- --write` (source: `tests/load/main.rs`){}. One server process and one sandbox process ({}), the load generator in a third, all on this machine's 2 cores over loopback. Each client is a sandbox user with its own token, cycling `user.current`, `project.get` (its private project) and `project.list membership=true`, and checking every answer is its own. Server log level `{}`, rate limit off (`--rate-limit 0`). Load average (1 min) before the run {load_before}, after it {load_after}.\n",
        match (options.quick, auth) {
            (true, Auth::Bearer) => ", quick mode, `--oauth`",
            (false, Auth::Bearer) => ", `--oauth`",
            (true, Auth::PrivateToken) => ", quick mode",
            (false, Auth::PrivateToken) => "",
        },
        if cfg!(debug_assertions) {
            "a debug build: figures far below release"
        } else {
            "the bench-profile binary, release settings"
        },
        options.log,
    ));
    line("| clients | calls | calls/s | p50 | p99 | max | CPU per call: server, sandbox, load generator |".into());
    line("|---|---|---|---|---|---|---|".into());
    for (count, level) in &rows {
        let per_call =
            |seconds: f64| format!("{:.0} µs", seconds * 1e6 / level.latencies.len() as f64);
        line(format!(
            "| {count} | {} | {:.0} | {} | {} | {} | {}, {}, {} |",
            level.latencies.len(),
            level.latencies.len() as f64 / level.elapsed.as_secs_f64(),
            ms(level.percentile(0.50)),
            ms(level.percentile(0.99)),
            ms(level.percentile(1.0)),
            per_call(level.cpu.0),
            per_call(level.cpu.1),
            per_call(level.cpu.2),
        ));
    }
    line(String::new());
    line("| server RSS | |\n|---|---|".into());
    for (when, kib) in &memory {
        line(format!("| {when} | {:.1} MiB |", *kib as f64 / 1024.0));
    }
    line(String::new());
    line(format!(
        "Calls in total: {} (warm-up included: {}). Protocol errors: {}. Tool errors: {}. Answers carrying another token's data: {}. Tokens in the server log: {} (of {} checked, the revoked one included).",
        totals.calls + warm.latencies.len(),
        warm.latencies.len(),
        totals.protocol_errors + warm.protocol_errors,
        totals.tool_errors + warm.tool_errors,
        totals.foreign + warm.foreign,
        leaked.len(),
        secrets.len(),
    ));
    if let Some(described) = descriptions {
        line(format!(
            "GitLab was asked to describe an OAuth token (`/oauth/token/info`) {described} times for {} tokens ({} calls).",
            USERS + 1,
            totals.calls + warm.latencies.len() + 3,
        ));
    }
    Outcome { report, problems }
}

fn start_sandbox() -> (Process, String) {
    let mut child = Command::new(BINARY)
        .args(["sandbox", "--listen", "127.0.0.1:0"])
        .env("GITLAB_MCP_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the sandbox starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut url = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut url)
        .expect("the sandbox prints its URL");
    (Process(child), url.trim().to_owned())
}

fn start_server(gitlab: &str, log: &PathBuf, level: &str, auth: Auth) -> (Process, String) {
    let file = std::fs::File::create(log).expect("the log file");
    let mut args = vec!["serve", "--http", "127.0.0.1:0", "--rate-limit", "0"];
    if auth == Auth::Bearer {
        args.extend([
            "--oauth-apps",
            "load-oauth-app",
            "--public-url",
            "http://localhost",
        ]);
    }
    let server = Process(
        Command::new(BINARY)
            .args(&args)
            .env("GITLAB_URL", gitlab)
            .env("GITLAB_MCP_LOG", level)
            .env_remove("GITLAB_TOKEN")
            .env_remove("GITLAB_MCP_SHARED_TOKEN")
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("the server starts"),
    );
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if let Some(at) = text.find("http://") {
            let url: String = text[at..]
                .chars()
                .take_while(|c| !c.is_whitespace())
                .collect();
            return (server, url);
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the server did not start: {text}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[derive(Debug, Clone, Copy)]
enum Call {
    Me,
    Project,
    Projects,
}

#[derive(Debug)]
enum Answer {
    Ok(Value),
    Error(String),
}

struct Client {
    user: usize,
    endpoint: String,
    auth: Auth,
    token: String,
    http: reqwest::Client,
}

impl Client {
    fn new(user: usize, endpoint: &str, auth: Auth) -> Self {
        Self::with_token(user, endpoint, auth, &auth.token(user))
    }

    fn with_token(user: usize, endpoint: &str, auth: Auth, token: &str) -> Self {
        Self {
            user,
            endpoint: endpoint.to_owned(),
            auth,
            token: token.to_owned(),
            http: reqwest::Client::new(),
        }
    }

    async fn post(&self, body: Value) -> Result<Value, String> {
        let (header_name, header_value) = self.auth.header(&self.token);
        let response = self
            .http
            .post(&self.endpoint)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", PROTOCOL)
            .header(header_name, header_value)
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| format!("request failed: {e}"))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|e| format!("body failed: {e}"))?;
        if status == 202 && bytes.is_empty() {
            return Ok(Value::Null);
        }
        if status != 200 {
            return Err(format!(
                "HTTP {status}: {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        serde_json::from_slice(&bytes).map_err(|e| format!("not JSON ({e})"))
    }

    async fn initialize(&self) -> Result<(), String> {
        let answer = self
            .post(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": PROTOCOL, "capabilities": {},
                "clientInfo": {"name": "gitlab-mcp-load", "version": "1"}}}),
            )
            .await?;
        if answer["result"]["serverInfo"]["name"] != "gitlab-mcp" {
            return Err(format!("initialize answered {answer}"));
        }
        self.post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await
            .map(|_| ())
    }

    /// One tool call; `Err` is a protocol error (anything but a JSON-RPC result).
    async fn call(&self, call: Call) -> Result<Answer, String> {
        let (action, params) = match call {
            Call::Me => ("user.current", json!({})),
            Call::Project => ("project.get", json!({"project_id": project(self.user)})),
            Call::Projects => ("project.list", json!({"membership": true})),
        };
        let answer = self
            .post(
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "gitlab_execute_action",
                "arguments": {"action": action, "params": params}}}),
            )
            .await?;
        let result = answer
            .get("result")
            .ok_or_else(|| format!("no result: {answer}"))?;
        if result["isError"] == true {
            return Ok(Answer::Error(
                result["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            ));
        }
        Ok(Answer::Ok(result["structuredContent"].clone()))
    }

    /// Whether a successful answer is this client's own (and nobody else's).
    fn own(&self, call: Call, structured: &Value) -> bool {
        match call {
            Call::Me => structured["username"] == username(self.user),
            Call::Project => structured["path_with_namespace"] == project(self.user),
            Call::Projects => {
                let paths: Vec<&str> = structured["projects"]
                    .as_array()
                    .map(|items| {
                        items
                            .iter()
                            .filter_map(|p| p["path_with_namespace"].as_str())
                            .collect()
                    })
                    .unwrap_or_default();
                let mine = project(self.user);
                paths.contains(&mine.as_str())
                    && paths.iter().all(|p| *p == mine || !p.starts_with("load"))
            }
        }
    }
}

#[derive(Default)]
struct Level {
    latencies: Vec<Duration>,
    /// CPU seconds spent by the server, the sandbox and this process.
    cpu: (f64, f64, f64),
    elapsed: Duration,
    protocol_errors: usize,
    tool_errors: usize,
    foreign: usize,
    problems: Vec<String>,
}

impl Level {
    fn percentile(&self, p: f64) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        let at = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len().max(1)) - 1;
        sorted.get(at).copied().unwrap_or_default()
    }
}

#[derive(Default)]
struct Totals {
    calls: usize,
    protocol_errors: usize,
    tool_errors: usize,
    foreign: usize,
}

impl Totals {
    fn add(&mut self, level: &Level) {
        self.calls += level.latencies.len();
        self.protocol_errors += level.protocol_errors;
        self.tool_errors += level.tool_errors;
        self.foreign += level.foreign;
    }
}

/// `calls` calls spread evenly over `clients`, all running at once, each client closed-loop.
async fn measure(clients: &[Rc<Client>], calls: usize) -> Level {
    let per_client = calls.div_ceil(clients.len());
    let started = Instant::now();
    let runs = clients.iter().cloned().map(|client| async move {
        let mut level = Level::default();
        for k in 0..per_client {
            let call = match k % 4 {
                1 => Call::Project,
                3 => Call::Projects,
                _ => Call::Me,
            };
            let start = Instant::now();
            let answer = client.call(call).await;
            level.latencies.push(start.elapsed());
            match answer {
                Err(problem) => {
                    level.protocol_errors += 1;
                    level
                        .problems
                        .push(format!("{}: {problem}", username(client.user)));
                }
                Ok(Answer::Error(text)) => {
                    level.tool_errors += 1;
                    level.problems.push(format!(
                        "{} {call:?}: tool error {text}",
                        username(client.user)
                    ));
                }
                Ok(Answer::Ok(structured)) if !client.own(call, &structured) => {
                    level.foreign += 1;
                    level.problems.push(format!(
                        "{} {call:?} got another's data: {structured}",
                        username(client.user)
                    ));
                }
                Ok(Answer::Ok(_)) => {}
            }
        }
        level
    });
    let results = join_all(runs).await;
    let mut level = Level {
        elapsed: started.elapsed(),
        ..Level::default()
    };
    for result in results {
        level.latencies.extend(result.latencies);
        level.protocol_errors += result.protocol_errors;
        level.tool_errors += result.tool_errors;
        level.foreign += result.foreign;
        level.problems.extend(result.problems);
    }
    level
}

/// Runs futures concurrently on this (single-threaded) runtime and collects their outputs.
async fn join_all<F: Future + 'static>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F::Output: 'static,
{
    let local = tokio::task::LocalSet::new();
    let handles: Vec<_> = futures.map(|f| local.spawn_local(f)).collect();
    local
        .run_until(async move {
            let mut outputs = Vec::with_capacity(handles.len());
            for handle in handles {
                outputs.push(handle.await.expect("a client task"));
            }
            outputs
        })
        .await
}

/// The server's resident memory in KiB.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kib| kib.parse().ok())
        })
        .unwrap_or(0)
}

/// User and system CPU time of a process so far, in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let ticks = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            // The fields after the command name (which may hold spaces) in parentheses.
            let rest = stat.rsplit_once(')')?.1;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let user: f64 = fields.get(11)?.parse().ok()?;
            let system: f64 = fields.get(12)?.parse().ok()?;
            Some(user + system)
        })
        .unwrap_or(0.0);
    // Linux reports clock ticks of 1/100 s on every platform this runs on.
    ticks / 100.0
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

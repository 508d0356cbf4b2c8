//! The benchmark report: `cargo bench --bench report` prints it, and
//! `cargo bench --bench report -- --write` also rewrites BENCHMARKS.md.
//!
//! Whole-process figures (spawn to initialize, spawn to tools/list, memory) drive the built
//! binary over real pipes; search latency and result sizes call the library. Every number
//! is a median (or a percentile) over repeated runs on this machine, against the sandbox
//! served over loopback, so nothing here touches the network.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "../readme_figures.rs"]
mod readme_figures;

#[path = "../search/arrival.rs"]
mod arrival;

mod measure;
use measure::{median, ms, us};

const BINARY: &str = env!("CARGO_BIN_EXE_gitlab-mcp");
const STARTUP_RUNS: usize = 30;
const CALL_RUNS: usize = 200;
const MEMORY_CALLS: usize = 1000;

fn main() {
    let write = std::env::args().any(|a| a == "--write");
    gitlab_mcp::tls::install_crypto_provider();
    let sandbox = SandboxProcess::start();
    let mut report = Report::default();

    report.section("Machine");
    report.line(&machine());

    report.section("Startup (whole process, median of 30 spawns)");
    report.table(&[
        "surface",
        "spawn → initialize response",
        "spawn → tools/list response",
        "RSS after tools/list",
    ]);
    for surface in ["dynamic", "meta", "individual"] {
        let (initialize, list, rss) = startup(surface, &sandbox.url);
        report.row(&[surface.into(), ms(initialize), ms(list), mib(rss)]);
    }

    report
        .section("tools/list size per surface (bytes of `{\"tools\":[...]}`; tokens ≈ bytes / 4)");
    report.table(&["surface", "tools", "bytes", "≈ tokens", "bytes per tool"]);
    for (surface, schema) in [
        ("dynamic", "opaque"),
        ("meta", "opaque"),
        ("meta", "compact"),
        ("meta", "full"),
        ("individual", "opaque"),
    ] {
        let (tools, bytes) = tools_list_size(surface, schema, &sandbox.url);
        let name = if surface == "meta" {
            format!("meta ({schema})")
        } else {
            surface.to_owned()
        };
        report.row(&[
            name,
            tools.to_string(),
            bytes.to_string(),
            (bytes / 4).to_string(),
            (bytes / tools.max(1)).to_string(),
        ]);
    }

    report.section("Search (`gitlab_find_action`) over the whole catalog");
    // The known requests first (the README quotes them; each ranked without its own line),
    // then each writer's requests ranked by a search built without them (words nobody
    // showed it), then the requests never learnt from: the holdout written with the first of
    // them, and independent writers' (`holdout-fresh.tsv`).
    report.table(&["requests", "P@1", "P@5", "latency p50", "latency p99"]);
    for (file, label) in [
        ("actions/requests", ""),
        ("actions/requests/writer*", " (each writer left out)"),
        ("tests/search/holdout.tsv", " (holdout)"),
        ("tests/search/holdout-fresh.tsv", " (fresh holdout)"),
    ] {
        let (p50, p99, p1, p5, total) = if file.ends_with('*') {
            search_writers_left_out()
        } else {
            search(file)
        };
        report.row(&[
            format!("{total}{label}"),
            format!("{p1:.3}"),
            format!("{p5:.3}"),
            us(p50),
            us(p99),
        ]);
    }

    report.section("Search on arrival (actions nobody has asked for yet)");
    report.line(arrival::ABOUT);
    report.line("");
    report.table(&["requests", "P@1", "P@5"]);
    let known_files = arrival::request_files("actions/requests", |_| true);
    let known: Vec<_> = known_files
        .iter()
        .flat_map(|(_, text)| gitlab_mcp::search::parse_requests(text))
        .collect();
    for row in arrival::report_rows(&known, |_, _| {}) {
        report.row(&row);
    }

    report.section("Catalog");
    report.line(&catalog_counts());
    let (median, p90, max, total) = find_answer_bytes();
    report.line(&format!(
        "`gitlab_find_action` answer (text + structuredContent, default limit) over the {total} known requests: median {median} B, p90 {p90} B, max {max} B."
    ));

    report.section(
        "Per-call overhead over the upstream (median of 200 calls, `merge_request.list`, 20 items)",
    );
    let (direct, through, rss) = overhead(&sandbox.url);
    report.table(&[
        "direct HTTP to the sandbox",
        "through gitlab-mcp (tools/call)",
        "difference",
    ]);
    report.row(&[ms(direct), ms(through), ms(through.saturating_sub(direct))]);

    report.section("Memory (RSS of the server process, dynamic surface)");
    report.line(
        "Right after tools/list the search index is still being built in the background (some 30 ms), \
         so the process at rest is the second column: a quarter of a second after a first `gitlab_find_action`, which waits for the index.",
    );
    report.line("");
    report.table(&[
        "after startup (tools/list)",
        "at rest (after the first find)",
        format!("after {MEMORY_CALLS} calls").as_str(),
    ]);
    report.row(&[mib(rss.listed), mib(rss.at_rest), mib(rss.after_calls)]);

    report.section("Bytes per result (content text, structuredContent, bytes in both)");
    report.table(&["call", "content", "structured", "in both", "total"]);
    for (name, action, args) in typical_calls() {
        let (content, structured, both) = result_bytes(&sandbox.url, action, args);
        report.row(&[
            name.into(),
            content.to_string(),
            structured.to_string(),
            both.to_string(),
            (content + structured).to_string(),
        ]);
    }

    print!("{}", report.text);
    if write {
        let header = "# Benchmarks\n\nProduced by `cargo bench --bench report -- --write` (source: `tests/bench/main.rs`); rerun it to refresh every figure. Before it, `npm run side-by-side` (in `tests/clients/node`; it also writes the four-task sessions), `cargo bench --bench load -- --write`, `.ci/scale-rehearsal --write`, `.ci/bench-build` and `.ci/bench-quickstart` write the side-by-side, HTTP load, scale, release-build and quick-start sections it appends.\n";
        let current =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/BENCHMARKS.md"))
                .unwrap_or_default();
        // What another command wrote this time (`target/NAME`), or else its section as
        // BENCHMARKS.md has it now: a fresh clone or machine has none of those files, and
        // the sections must not vanish for that.
        let extra = |name: &str, section: &str| {
            std::fs::read_to_string(format!("{}/target/{name}", env!("CARGO_MANIFEST_DIR")))
                .unwrap_or_else(|_| carried_over(&current, section))
        };
        let text = format!(
            "{header}{}{}{}{}{}{}{}",
            report.text,
            extra("side-by-side.md", "Side by side"),
            extra("sessions.md", "A session of four everyday tasks"),
            extra("load.md", "HTTP under load"),
            extra("scale.md", "Scale rehearsal"),
            extra("bench-build.md", "Release build"),
            extra("bench-quickstart.md", "Quick start")
        );
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/BENCHMARKS.md"), &text)
            .expect("BENCHMARKS.md is writable");
        eprintln!("wrote BENCHMARKS.md");
        let readme_path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
        let readme = std::fs::read_to_string(readme_path).expect("README.md is readable");
        match readme_figures::blocks(&text).and_then(|b| readme_figures::rewrite(&readme, &b)) {
            Ok(readme) => {
                std::fs::write(readme_path, readme).expect("README.md is writable");
                eprintln!("rewrote the figures in README.md");
            }
            Err(problem) => eprintln!("README.md figures not rewritten: {problem}"),
        }
    }
}

/// The section of `text` whose title starts with `title`, from its heading to the next one
/// (empty when there is none).
fn carried_over(text: &str, title: &str) -> String {
    let Some(start) = text.find(&format!("\n## {title}")) else {
        return String::new();
    };
    let rest = &text[start + 1..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    format!("\n{}", &rest[..end])
}

#[derive(Default)]
struct Report {
    text: String,
}

impl Report {
    fn section(&mut self, title: &str) {
        self.text.push_str(&format!("\n## {title}\n\n"));
    }

    fn line(&mut self, text: &str) {
        self.text.push_str(text);
        self.text.push('\n');
    }

    fn table(&mut self, columns: &[&str]) {
        self.text.push_str(&format!(
            "| {} |\n|{}\n",
            columns.join(" | "),
            "---|".repeat(columns.len())
        ));
    }

    fn row(&mut self, cells: &[String]) {
        self.text.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines().next().map(|l| {
                l.split_whitespace()
                    .nth(1)
                    .unwrap_or("0")
                    .parse::<u64>()
                    .unwrap_or(0)
            })
        })
        .unwrap_or(0);
    let rustc = Command::new("rustc")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    format!(
        "{cores} cores ({cpu}), {:.0} GiB RAM, {} {}, {rustc}; the binary is the `bench` profile build (release settings).",
        memory as f64 / 1024.0 / 1024.0,
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// A sandbox GitLab in its own process, so its memory is not counted as the server's.
struct SandboxProcess {
    child: Child,
    url: String,
}

impl SandboxProcess {
    fn start() -> Self {
        let mut child = Command::new(BINARY)
            .args(["sandbox", "--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the sandbox starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Self {
            child,
            url: line.trim().to_owned(),
        }
    }
}

impl Drop for SandboxProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The server over pipes, talking JSON-RPC lines.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn spawn(surface: &str, schema: &str, upstream: &str) -> Self {
        let mut child = Command::new(BINARY)
            .arg("serve")
            .env("TOOL_SURFACE", surface)
            .env("META_PARAM_SCHEMA", schema)
            .env("GITLAB_URL", upstream)
            .env("GITLAB_TOKEN", "sandbox-token")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its response line.
    fn request(&mut self, method: &str, params: Value) -> String {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            self.stdout.read_line(&mut line).unwrap();
            if line.contains(&format!("\"id\":{id}")) {
                return line.trim_end().to_owned();
            }
        }
    }

    fn initialize(&mut self) -> String {
        let response = self.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        response
    }

    fn rss_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find(|l| l.starts_with("VmRSS:"))
                    .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            })
            .unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn startup(surface: &str, upstream: &str) -> (Duration, Duration, u64) {
    let mut initialize = Vec::new();
    let mut list = Vec::new();
    let mut rss = Vec::new();
    for _ in 0..STARTUP_RUNS {
        let start = Instant::now();
        let mut server = Server::spawn(surface, "opaque", upstream);
        server.initialize();
        initialize.push(start.elapsed());
        server.request("tools/list", json!({}));
        list.push(start.elapsed());
        rss.push(server.rss_kib());
    }
    rss.sort();
    (median(initialize), median(list), rss[rss.len() / 2])
}

fn tools_list_size(surface: &str, schema: &str, upstream: &str) -> (usize, usize) {
    let mut server = Server::spawn(surface, schema, upstream);
    server.initialize();
    let response: Value = serde_json::from_str(&server.request("tools/list", json!({}))).unwrap();
    let result = &response["result"];
    (
        result["tools"].as_array().map(Vec::len).unwrap_or(0),
        // The tools themselves, as the demo counts them: the result's cache hints
        // (`ttlMs`, `cacheScope`) are not part of what a client lists.
        serde_json::to_string(&json!({"tools": result["tools"]}))
            .unwrap()
            .len(),
    )
}

/// Latencies and hits at 1 and 5 of `find` over the requests of `text`, `rounds` times
/// (hits counted in the first round).
fn rank_requests(
    text: &str,
    rounds: usize,
    find: impl Fn(&gitlab_mcp::search::FindRequest) -> gitlab_mcp::search::Found,
    measured: &mut Measured,
) {
    let requests: Vec<_> = gitlab_mcp::search::parse_requests(text).collect();
    for round in 0..rounds {
        for known in &requests {
            let request = gitlab_mcp::search::FindRequest {
                query: known.request.to_owned(),
                limit: 20,
                explain: false,
            };
            let start = Instant::now();
            let found = find(&request);
            measured.times.push(start.elapsed());
            if round == 0 {
                let ids: Vec<&str> = found.hits.iter().map(|h| h.action.id).collect();
                let expected = |id: &&str| known.actions.contains(id);
                measured.first += usize::from(ids.first().is_some_and(expected));
                measured.five += usize::from(ids.iter().take(5).any(expected));
                measured.total += 1;
            }
        }
    }
}

/// What `rank_requests` adds up.
#[derive(Default)]
struct Measured {
    times: Vec<Duration>,
    first: usize,
    five: usize,
    total: usize,
}

impl Measured {
    /// Latency p50 and p99, P@1, P@5 and the number of requests.
    fn summary(mut self) -> (Duration, Duration, f64, f64, usize) {
        self.times.sort();
        let p = |q: f64| self.times[((self.times.len() as f64 - 1.0) * q) as usize];
        (
            p(0.5),
            p(0.99),
            self.first as f64 / self.total as f64,
            self.five as f64 / self.total as f64,
            self.total,
        )
    }
}

/// Actions per domain and the share whose sandbox behaviour is hand-written Rust.
fn catalog_counts() -> String {
    let actions = gitlab_mcp::catalog::ACTIONS;
    let mut domains: Vec<(&str, usize)> = Vec::new();
    for action in actions {
        match domains.iter_mut().find(|(d, _)| *d == action.domain) {
            Some((_, count)) => *count += 1,
            None => domains.push((action.domain, 1)),
        }
    }
    domains.sort();
    let per_domain: Vec<String> = domains.iter().map(|(d, n)| format!("{d} {n}")).collect();
    let hand_written = gitlab_mcp::sandbox::hand_written().len();
    format!(
        "{} actions in {} domains: {}. Sandbox behaviour in hand-written Rust: {hand_written} of {} actions ({:.1}%); every other action is served from data.",
        actions.len(),
        domains.len(),
        per_domain.join(", "),
        actions.len(),
        hand_written as f64 * 100.0 / actions.len() as f64
    )
}

/// Median, p90 and largest `gitlab_find_action` answer over the known requests at the
/// default limit, as the dynamic surface sends it, and how many requests.
fn find_answer_bytes() -> (usize, usize, usize, usize) {
    let index = gitlab_mcp::search::Index::new(&gitlab_mcp::policy::Policy::default());
    let mut sizes: Vec<usize> = Vec::new();
    for (_, text) in arrival::request_files("actions/requests", |_| true) {
        for known in gitlab_mcp::search::parse_requests(&text) {
            let outcome = gitlab_mcp::surfaces::find(
                &index,
                &gitlab_mcp::search::FindRequest {
                    query: known.request.to_owned(),
                    limit: gitlab_mcp::search::DEFAULT_LIMIT,
                    explain: false,
                },
            );
            sizes.push(outcome.bytes());
        }
    }
    sizes.sort_unstable();
    let at = |q: f64| sizes[((sizes.len() as f64 - 1.0) * q) as usize];
    (at(0.5), at(0.9), sizes[sizes.len() - 1], sizes.len())
}

/// Precision and latency over each writer's requests (`actions/requests/writer*.tsv`),
/// each ranked by a search built without that writer's file.
fn search_writers_left_out() -> (Duration, Duration, f64, f64, usize) {
    use gitlab_mcp::search::{Index, Prepared};
    let policy = gitlab_mcp::policy::Policy::default();
    let mut measured = Measured::default();
    for (source, text) in arrival::request_files("actions/requests", |s| s.starts_with("writer")) {
        let prepared = std::sync::Arc::new(Prepared::built_in_with_requests(|s| s != source));
        let index = Index::assemble(policy.visible(), prepared);
        rank_requests(&text, 1, |r| index.find(r), &mut measured);
    }
    measured.summary()
}

/// Precision and latency over the known requests (each ranked as if unseen), or over a
/// holdout file in `tests/search/`, five rounds.
fn search(path: &str) -> (Duration, Duration, f64, f64, usize) {
    let index = gitlab_mcp::search::Index::new(&gitlab_mcp::policy::Policy::default());
    let mut measured = Measured::default();
    if let Some(file) = path.strip_prefix("tests/search/") {
        let texts = arrival::request_files("tests/search", |s| format!("{s}.tsv") == file);
        rank_requests(&texts[0].1, 5, |r| index.find(r), &mut measured);
    } else {
        for (_, text) in arrival::request_files(path, |_| true) {
            rank_requests(&text, 5, |r| index.find_unseen(r), &mut measured);
        }
    }
    measured.summary()
}

/// The server's RSS (KiB) at three moments of one session.
struct Rss {
    listed: u64,
    at_rest: u64,
    after_calls: u64,
}

fn overhead(upstream: &str) -> (Duration, Duration, Rss) {
    let http = reqwest::Client::new();
    let url = format!(
        "{upstream}/api/v4/projects/acme%2Fplatform%2Fapi/merge_requests?state=opened&per_page=20"
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut direct = Vec::new();
    for _ in 0..CALL_RUNS {
        let start = Instant::now();
        runtime.block_on(async {
            http.get(&url)
                .header("PRIVATE-TOKEN", "sandbox-token")
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap()
        });
        direct.push(start.elapsed());
    }
    let mut server = Server::spawn("dynamic", "opaque", upstream);
    server.initialize();
    server.request("tools/list", json!({}));
    let listed = server.rss_kib();
    server.request(
        "tools/call",
        json!({"name": "gitlab_find_action", "arguments": {"query": "list open merge requests"}}),
    );
    // At rest: the index built, and what building it freed handed back (right after it).
    std::thread::sleep(Duration::from_millis(250));
    let at_rest = server.rss_kib();
    let call = json!({"name": "gitlab_execute_action", "arguments": {"action": "merge_request.list", "params": {"project_id": "acme/platform/api"}}});
    let mut through = Vec::new();
    for _ in 0..CALL_RUNS {
        let start = Instant::now();
        server.request("tools/call", call.clone());
        through.push(start.elapsed());
    }
    for _ in CALL_RUNS..MEMORY_CALLS {
        server.request("tools/call", call.clone());
    }
    let rss = Rss {
        listed,
        at_rest,
        after_calls: server.rss_kib(),
    };
    (median(direct), median(through), rss)
}

fn typical_calls() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        (
            "20-MR list",
            "merge_request.list",
            json!({"project_id": "acme/platform/api"}),
        ),
        (
            "MR detail",
            "merge_request.get",
            json!({"project_id": "acme/platform/api", "merge_request_iid": 42}),
        ),
        (
            "file read (66 lines)",
            "repository.file_get",
            json!({"project_id": "acme/platform/api", "file_path": "src/main.rs"}),
        ),
        (
            "job log (last 100 lines)",
            "job.log",
            json!({"project_id": "acme/platform/api", "job_id": 70042}),
        ),
    ]
}

/// Content text bytes, structuredContent bytes, and the bytes of structured string
/// values that also appear verbatim in the text (what a client forwarding both pays twice).
fn result_bytes(upstream: &str, action: &str, params: Value) -> (usize, usize, usize) {
    let mut server = Server::spawn("dynamic", "opaque", upstream);
    server.initialize();
    let response: Value = serde_json::from_str(&server.request(
        "tools/call",
        json!({"name": "gitlab_execute_action", "arguments": {"action": action, "params": params}}),
    ))
    .unwrap();
    let result = &response["result"];
    let text: String = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect();
    let structured = serde_json::to_string(&result["structuredContent"]).unwrap();
    let mut both = 0;
    let mut stack = vec![&result["structuredContent"]];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(s) if s.len() > 3 && text.contains(s.as_str()) => both += s.len(),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    (text.len(), structured.len(), both)
}

//! The process itself: it explains how to start without a token, and it exits promptly
//! when its client goes away or it is told to stop, without waiting for start-up work or
//! calls in flight (held open here by a GitLab that never answers, so the checks do not
//! depend on how loaded the machine is).

use std::io::{BufRead as _, Read as _, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::BINARY;
use crate::upstream::{Reply, Upstream};

#[test]
fn without_a_token_it_says_how_to_get_started() {
    let output = Command::new(BINARY)
        .args(["call", "project.get", "project_id=acme/platform/api"])
        .env_remove("GITLAB_TOKEN")
        .env_remove("GITLAB_PERSONAL_ACCESS_TOKEN")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("gitlab-mcp demo") && stderr.contains("GITLAB_TOKEN"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

fn wait_for_exit(child: &mut std::process::Child, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Far below what waiting for start-up work would take here (fitting and the call below
/// wait for a GitLab that never answers, for up to `GITLAB_TIMEOUT` = 600 s), far above
/// what exiting takes on a loaded machine (0.04 s release, well under a second debug).
const EXIT_BOUND: Duration = Duration::from_secs(30);

/// Far above what a server's start takes on a loaded machine.
const START_BOUND: Duration = Duration::from_secs(60);

/// The server on a GitLab that accepts connections and never answers: fitting, and any
/// call, stay in flight for as long as the test runs.
fn on_a_silent_gitlab(gitlab: &Upstream) -> std::process::Child {
    on_a_silent_gitlab_with(Command::new(BINARY), gitlab, "glpat-exit-token")
}

fn on_a_silent_gitlab_with(
    mut command: Command,
    gitlab: &Upstream,
    token: &str,
) -> std::process::Child {
    command
        .args(["--tool-surface", "dynamic", "serve"])
        .env("GITLAB_URL", gitlab.url())
        .env("GITLAB_TOKEN", token)
        .env("GITLAB_TIMEOUT", "600")
        .env_remove("GITLAB_FIT_CATALOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn send(child: &mut std::process::Child, message: serde_json::Value) {
    let stdin = child.stdin.as_mut().unwrap();
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

/// Initializes, and starts a call that GitLab will never answer.
fn busy(child: &mut std::process::Child) {
    send(
        child,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    );
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("\"id\":0"), "{line}");
    send(
        child,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        child,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "gitlab_execute_action", "arguments": {"action": "project.get", "params": {"project_id": 1}}}}),
    );
}

#[test]
fn it_exits_when_stdin_closes_whatever_is_in_flight() {
    let gitlab = Upstream::start(|_| Reply::Stall);
    // Before the client said anything: fitting waits for GitLab, the search index is
    // being built.
    let mut child = on_a_silent_gitlab(&gitlab);
    let closed = Instant::now();
    drop(child.stdin.take());
    assert!(
        wait_for_exit(&mut child, EXIT_BOUND),
        "still running {EXIT_BOUND:?} after stdin closed"
    );
    eprintln!(
        "EXIT | stdin closed at start | {} ms",
        closed.elapsed().as_millis()
    );
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert!(
        stdout.is_empty(),
        "nothing but JSON-RPC on stdout: {stdout:?}"
    );

    // In a session, with a call waiting for GitLab.
    let mut child = on_a_silent_gitlab(&gitlab);
    busy(&mut child);
    let closed = Instant::now();
    drop(child.stdin.take());
    assert!(
        wait_for_exit(&mut child, EXIT_BOUND),
        "still running {EXIT_BOUND:?} after stdin closed"
    );
    eprintln!(
        "EXIT | stdin closed in a session | {} ms",
        closed.elapsed().as_millis()
    );
}

#[cfg(unix)]
#[test]
fn it_exits_on_sigterm_and_sigint_whatever_is_in_flight() {
    let gitlab = Upstream::start(|_| Reply::Stall);
    for signal in ["-TERM", "-INT"] {
        for in_session in [false, true] {
            // A token of its own, to tell this server's requests from the previous ones'.
            let token = format!("glpat-exit-token{signal}-{in_session}");
            // Started as a script's background job starts it, with SIGINT ignored: until
            // the server listens for signals, SIGINT does nothing (with the default
            // disposition it would end the process, listening or not).
            let mut command = Command::new("sh");
            command.args(["-c", "trap '' INT; exec \"$0\" \"$@\"", BINARY]);
            let mut child = on_a_silent_gitlab_with(command, &gitlab, &token);
            if in_session {
                busy(&mut child);
            } else {
                // Start-up work in flight: fitting waits for GitLab.
                reaches_gitlab(&gitlab, &token);
            }
            let sent = Instant::now();
            Command::new("kill")
                .args([signal, &child.id().to_string()])
                .status()
                .unwrap();
            assert!(
                wait_for_exit(&mut child, EXIT_BOUND),
                "still running {EXIT_BOUND:?} after {signal} with stdin open"
            );
            eprintln!(
                "EXIT | {signal} (in a session: {in_session}) | {} ms",
                sent.elapsed().as_millis()
            );
        }
    }
}

/// Waits until the silent GitLab has read a request with `token`: the server sends none
/// before it listens for signals.
fn reaches_gitlab(gitlab: &Upstream, token: &str) {
    let start = Instant::now();
    while !gitlab
        .seen()
        .iter()
        .any(|seen| seen.header("private-token") == Some(token))
    {
        assert!(
            start.elapsed() < START_BOUND,
            "no request reached GitLab {START_BOUND:?} after the start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    // `gitlab-mcp catalog | head -1`: the pipe closes after the first line.
    let mut child = Command::new(BINARY)
        .args(["catalog", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0_u8; 1];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{status}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

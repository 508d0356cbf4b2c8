//! The process itself: it explains how to start without a token, and it exits promptly
//! when its client goes away or it is told to stop.

use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::BINARY;

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

#[test]
fn it_exits_when_stdin_closes() {
    let mut child = Command::new(BINARY)
        .args(["--sandbox", "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    assert!(
        wait_for_exit(&mut child, Duration::from_secs(3)),
        "still running 3 s after stdin closed"
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
}

#[cfg(unix)]
#[test]
fn it_exits_on_sigterm_and_sigint() {
    for signal in ["-TERM", "-INT"] {
        let mut child = Command::new(BINARY)
            .args(["--sandbox", "serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(
            wait_for_exit(&mut child, Duration::from_secs(3)),
            "still running 3 s after {signal} with stdin open"
        );
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

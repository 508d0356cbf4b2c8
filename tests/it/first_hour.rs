//! What a newcomer meets in the first hour: the greeting on a terminal, a clear word when
//! something other than an MCP client writes to the server, quiet logs for ordinary
//! requests the server does not offer, bind errors that name the address, answers in the
//! words of the front end that asked, a demo worth a screenshot, README figures that come
//! from BENCHMARKS.md, and the license files Cargo.toml names.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::support::{BINARY, client};

#[path = "../readme_figures.rs"]
mod readme_figures;

fn repo_file(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The binary with none of the settings a developer's shell may have exported.
fn binary() -> Command {
    let mut command = Command::new(BINARY);
    for (name, _) in std::env::vars() {
        if name.starts_with("GITLAB_") || ["TOOL_SURFACE", "META_TOOLS"].contains(&name.as_str()) {
            command.env_remove(name);
        }
    }
    command
}

/// `gitlab-mcp --sandbox` with its three streams piped.
fn sandbox_server() -> std::process::Child {
    binary()
        .arg("--sandbox")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn on_a_terminal_it_says_what_it_is_once_then_serves() {
    // `script` gives the server a terminal; typing a line is what a person would do.
    let mut child = Command::new("script")
        .args(["-qec", &format!("{BINARY} --sandbox"), "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("`script` (util-linux) runs");
    child.stdin.take().unwrap().write_all(b"hello\n").unwrap();
    let mut screen = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut screen)
        .unwrap();
    child.wait().unwrap();
    assert_eq!(
        screen.matches("it is now waiting for one").count(),
        1,
        "{screen}"
    );
    assert!(screen.contains("gitlab-mcp demo"), "{screen}");
    assert!(
        screen.contains("no MCP session") && screen.contains("`initialize` request"),
        "{screen}"
    );
}

#[test]
fn a_pipe_that_is_not_an_mcp_client_gets_a_clear_word_and_no_greeting() {
    let mut child = sandbox_server();
    child.stdin.take().unwrap().write_all(b"hello\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!output.status.success());
    assert!(stderr.contains("no MCP session"), "{stderr}");
    assert!(!stderr.contains("waiting for one"), "{stderr}");
    // stdout stays JSON-RPC: at most the spec's parse error for the line.
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let message: Value = serde_json::from_str(line).unwrap();
        assert_eq!(message["error"]["code"], -32700, "{line}");
    }
}

#[test]
fn ordinary_requests_the_server_does_not_offer_get_method_not_found_without_a_warning() {
    let mut child = sandbox_server();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // Logging is deprecated in 2026-07-28 and not offered.
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "info"}}),
    );
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {
        "uri": "gitlab://tools"}}),
    );
    let mut answers = Vec::new();
    while answers.len() < 3 {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "stdout closed");
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    drop(stdin);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    child.wait().unwrap();
    for id in [2, 3] {
        let answer = answers.iter().find(|a| a["id"] == id).unwrap();
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
    }
    assert_eq!(stderr, "", "no warning for a client's ordinary request");
}

#[test]
fn a_bind_error_names_the_address() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let output = binary()
        .args(["sandbox", "--listen", &address])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!output.status.success());
    assert!(
        stderr.contains(&format!("cannot listen on {address}")),
        "{stderr}"
    );
}

#[test]
fn listings_have_no_trailing_spaces() {
    for args in [
        &["catalog"][..],
        &["find", "show the open merge requests"],
        &["find", "why did the pipeline fail", "--explain"],
    ] {
        let output = binary().args(args).output().unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(output.status.success() && !stdout.is_empty(), "{args:?}");
        for line in stdout.lines() {
            assert_eq!(line, line.trim_end(), "{args:?}: trailing spaces");
        }
    }
}

#[tokio::test]
async fn without_a_search_tool_an_unknown_action_points_at_the_catalog_resource() {
    let meta = client(&[("TOOL_SURFACE", "meta")]).await;
    let arguments =
        json!({"action": "show", "params": {"project_id": "acme/platform/api", "issue_iid": 17}});
    let result = meta
        .call_tool(
            CallToolRequestParams::new("gitlab_issue")
                .with_arguments(arguments.as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    let text = &result.content[0].as_text().unwrap().text;
    assert_eq!(result.is_error, Some(true));
    assert!(text.contains("`issue.get`"), "{text}");
    assert!(!text.contains("gitlab_find_action"), "{text}");
    assert!(text.contains("gitlab://tools"), "{text}");
    meta.cancel().await.unwrap();

    let dynamic = client(&[]).await;
    let arguments = json!({"action": "branch.delete", "params": {"project_id": "acme/platform/api", "branch_name": "fix/login-pipe"}});
    let result = dynamic
        .call_tool(
            CallToolRequestParams::new("gitlab_execute_action")
                .with_arguments(arguments.as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.contains("`confirm: true`"), "{text}");
    dynamic.cancel().await.unwrap();
}

#[test]
fn the_demo_shows_no_fixture_no_blank_runs_and_the_readme_figure() {
    let output = binary().arg("demo").output().unwrap();
    assert!(output.status.success());
    let screen = String::from_utf8(output.stdout).unwrap();
    assert!(!screen.contains("<script"), "a test fixture on screen");
    assert!(!screen.contains("\n\n\n"), "a run of blank lines");
    let bytes = screen
        .lines()
        .find_map(|l| l.strip_prefix("tools/list: 2 tools, "))
        .and_then(|rest| rest.split(" bytes").next())
        .expect("the demo says how big tools/list is");
    let readme = repo_file("README.md");
    assert!(
        readme.contains(&format!("dynamic {bytes} (2)")),
        "the demo says {bytes} bytes; README.md (from BENCHMARKS.md) says otherwise: rerun `cargo bench --bench report -- --write`"
    );
}

/// `demo --tool-surface` and `--capability-surface` are offered on its command line: every
/// surface walks the same steps through its own tools (meta and individual have no find
/// tool, so they read a domain's actions from the catalog instead).
#[test]
fn the_demo_runs_on_every_surface() {
    for (surface, run_tool) in [
        ("meta", "→ gitlab_merge_request {\"action\":\"list\""),
        ("individual", "→ gitlab_merge_request_list {"),
    ] {
        let output = binary()
            .args(["demo", "--tool-surface", surface])
            .output()
            .unwrap();
        let screen = String::from_utf8(output.stdout).unwrap();
        assert!(output.status.success(), "{surface}: {screen}");
        assert!(screen.contains(run_tool), "{surface}: {screen}");
        assert!(
            screen.contains("→ resources/read gitlab://tools/merge_request"),
            "{surface}: {screen}"
        );
        // The refused delete and the repaired typo, as on the dynamic surface.
        assert!(screen.contains("`confirm: true`"), "{surface}: {screen}");
        assert!(
            screen.contains("`colour` is not a parameter"),
            "{surface}: {screen}"
        );
    }
    // `--capability-surface minimal` offers no entity resources: the demo reads none.
    let output = binary()
        .args(["demo", "--capability-surface", "minimal"])
        .output()
        .unwrap();
    let screen = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "minimal: {screen}");
    assert!(
        !screen.contains("resources/read gitlab://project/"),
        "{screen}"
    );
}

#[test]
fn readme_figures_come_from_benchmarks_md() {
    let readme = repo_file("README.md");
    let blocks = readme_figures::blocks(&repo_file("BENCHMARKS.md")).unwrap();
    let expected = readme_figures::rewrite(&readme, &blocks).unwrap();
    if expected != readme {
        let shown: Vec<String> = blocks
            .iter()
            .map(|(name, text)| format!("figures:{name}\n{text}"))
            .collect();
        panic!(
            "README.md's figures differ from BENCHMARKS.md. `cargo bench --bench report -- --write` rewrites both; from the current BENCHMARKS.md they are:\n\n{}",
            shown.join("\n\n")
        );
    }
}

#[test]
fn the_licenses_cargo_toml_names_are_there() {
    let manifest = repo_file("Cargo.toml");
    assert!(manifest.contains("license = \"MIT OR Apache-2.0\""));
    assert!(repo_file("LICENSE-MIT").starts_with("MIT License"));
    assert!(
        repo_file("LICENSE-APACHE")
            .contains("Apache License\n                           Version 2.0")
    );
}

/// `sandbox --listen` with `--sandbox-admin` (or `GITLAB_SANDBOX_ADMIN=true`) serves alice
/// as an administrator; without it she is a regular user, refused an admin endpoint.
#[tokio::test]
async fn sandbox_admin_makes_the_token_user_an_administrator_when_listening() {
    gitlab_mcp::tls::install_crypto_provider();
    let http = reqwest::Client::new();
    for (flag, env, admin) in [
        (None, None, false),
        (Some("--sandbox-admin"), None, true),
        (None, Some("true"), true),
        (None, Some("false"), false),
    ] {
        let mut command = binary();
        command.args(["sandbox", "--listen", "127.0.0.1:0"]);
        command.args(flag);
        if let Some(value) = env {
            command.env("GITLAB_SANDBOX_ADMIN", value);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        let get = |path: &str| {
            http.get(format!("{}/api/v4/{path}", url.trim()))
                .header("PRIVATE-TOKEN", gitlab_mcp::sandbox::TOKEN)
                .send()
        };
        let user: Value =
            serde_json::from_str(&get("user").await.unwrap().text().await.unwrap()).unwrap();
        let hooks = get("hooks").await.unwrap().status().as_u16();
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(user["username"], "alice", "{flag:?} {env:?}");
        assert_eq!(user["is_admin"], admin, "{flag:?} {env:?}");
        assert_eq!(hooks, if admin { 200 } else { 403 }, "{flag:?} {env:?}");
    }
}

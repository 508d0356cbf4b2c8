//! The real binary over stdio, driven by the rmcp client: every action's example call on
//! the individual surface returns Markdown and a `structuredContent` that validates against
//! the tool's `outputSchema`.

use gitlab_mcp::catalog::ACTIONS;
use rmcp::model::CallToolRequestParams;
use serde_json::Value;

use crate::support::{ADMIN, assert_valid, client, example_user, text};

#[tokio::test]
async fn every_action_validates_against_its_output_schema() {
    let shared = client(&[("TOOL_SURFACE", "individual")]).await;
    // Actions only administrators may call run with `--sandbox-admin`.
    let shared_admin = client(&[("TOOL_SURFACE", "individual"), ADMIN]).await;
    let tools = shared_admin.list_all_tools().await.unwrap();
    assert_eq!(
        tools.len(),
        ACTIONS.len(),
        "one tool per action for an administrator"
    );
    let users_tools = shared.list_all_tools().await.unwrap();
    assert_eq!(
        users_tools.len(),
        ACTIONS.iter().filter(|a| !a.requires.admin).count(),
        "one tool per action but the administrators' for alice"
    );

    // Reads share one server per user; each write gets a fresh sandbox, as its example
    // expects.
    for action in ACTIONS {
        let fresh;
        let client = match (action.safety.read_only, action.requires.admin) {
            (true, false) => &shared,
            (true, true) => &shared_admin,
            (false, _) => {
                fresh = client(&[("TOOL_SURFACE", "individual"), example_user(action)]).await;
                &fresh
            }
        };
        let tool = tools
            .iter()
            .find(|t| t.name == action.tool_name())
            .unwrap_or_else(|| panic!("no tool for {}", action.id));
        let mut arguments = action.example_args();
        if action.safety.destructive {
            arguments.insert("confirm".into(), Value::Bool(true));
        }
        let result = client
            .call_tool(CallToolRequestParams::new(action.tool_name()).with_arguments(arguments))
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", action.id));
        let markdown = text(&result);
        assert_ne!(
            result.is_error,
            Some(true),
            "{} failed: {markdown}",
            action.id
        );
        assert!(
            markdown.starts_with("## "),
            "{}: the text is Markdown with a heading:\n{markdown}",
            action.id
        );
        assert!(
            !markdown.trim_start().starts_with('{'),
            "{}: the text is not a JSON dump",
            action.id
        );
        let structured = result
            .structured_content
            .clone()
            .unwrap_or_else(|| panic!("{}: no structuredContent", action.id));
        assert!(
            structured.is_object(),
            "{}: structuredContent is an object",
            action.id
        );
        let schema = Value::Object(
            tool.output_schema
                .as_ref()
                .expect("every tool declares an outputSchema")
                .as_ref()
                .clone(),
        );
        assert_valid(&schema, &structured, action.id);
        let rendered = serde_json::to_string(&structured).unwrap();
        assert!(
            !rendered.contains("null"),
            "{}: no nulls in structuredContent: {rendered}",
            action.id
        );
        let annotations = result.content[0]
            .as_text()
            .and_then(|t| t.annotations.clone())
            .expect("annotated text");
        let expected = if !action.safety.read_only {
            0.8
        } else if matches!(action.result, gitlab_mcp::catalog::ResultShape::List { .. }) {
            0.4
        } else {
            0.6
        };
        assert_eq!(
            annotations.priority,
            Some(expected),
            "{}: content priority",
            action.id
        );
    }
    shared.cancel().await.unwrap();
    shared_admin.cancel().await.unwrap();
}

#[tokio::test]
async fn tools_carry_annotations_from_the_manifest() {
    // The administrator is offered every action.
    let client = client(&[("TOOL_SURFACE", "individual"), ADMIN]).await;
    let tools = client.list_all_tools().await.unwrap();
    for action in ACTIONS {
        let tool = tools.iter().find(|t| t.name == action.tool_name()).unwrap();
        let annotations = tool.annotations.as_ref().expect("annotations");
        // All four hints, each as the manifest says.
        assert_eq!(
            annotations.read_only_hint,
            Some(action.safety.read_only),
            "{}",
            action.id
        );
        assert_eq!(annotations.open_world_hint, Some(true), "{}", action.id);
        assert_eq!(
            annotations.destructive_hint,
            Some(action.safety.destructive),
            "{}",
            action.id
        );
        assert_eq!(
            annotations.idempotent_hint,
            Some(action.safety.idempotent),
            "{}",
            action.id
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_meta_tool_is_as_risky_as_its_riskiest_action() {
    let client = client(&[("TOOL_SURFACE", "meta"), ADMIN]).await;
    let tools = client.list_all_tools().await.unwrap();
    for tool in &tools {
        let domain = tool.name.trim_start_matches("gitlab_");
        let actions: Vec<_> = ACTIONS.iter().filter(|a| a.domain == domain).collect();
        assert!(!actions.is_empty(), "{}", tool.name);
        // A meta tool sends only the hints that differ from the spec's defaults (not
        // read-only, destructive, not idempotent): none at all for a risky domain.
        let annotations = tool.annotations.clone().unwrap_or_default();
        let read_only = actions.iter().all(|a| a.safety.read_only);
        let destructive = actions.iter().any(|a| a.safety.destructive);
        assert_eq!(
            annotations.read_only_hint.unwrap_or(false),
            read_only,
            "{}",
            tool.name
        );
        if !read_only {
            assert_eq!(
                annotations.destructive_hint.unwrap_or(true),
                destructive,
                "{}",
                tool.name
            );
            assert_eq!(
                annotations.idempotent_hint.unwrap_or(false),
                actions.iter().all(|a| a.safety.idempotent),
                "{}",
                tool.name
            );
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn stdout_carries_only_json_rpc() {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new(crate::support::BINARY)
        .args(["--sandbox", "--tool-surface", "individual", "serve"])
        .env("GITLAB_MCP_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gitlab_project_get","arguments":{"project_id":"acme/platform/api"}}}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
    }
    // Closing stdin ends the server without waiting for calls in flight: close it once
    // both answers are out, however long a loaded machine takes to write them.
    let stdout = child.stdout.take().unwrap();
    let (sender, received) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)).map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let mut answers = Vec::new();
    for _ in 0..2 {
        let answer = received.recv_timeout(std::time::Duration::from_secs(60));
        answers.push(answer.expect("an answer within a minute"));
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    reader.join().unwrap();
    answers.extend(received.try_iter());
    let stdout = answers.join("\n");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "two responses on stdout:\n{stdout}");
    for line in lines {
        let message: Value = serde_json::from_str(line).expect("every stdout line is JSON");
        assert_eq!(message["jsonrpc"], "2.0");
    }
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("GitLab request"),
        "debug logs go to stderr: {stderr}"
    );
    assert!(
        !stderr.contains("sandbox-token"),
        "the token is never logged"
    );
}

/// Every tool of every surface carries all four hints and an icon; the server says who it
/// is; a fitted tools/list may be cached; the dynamic surface's stays under 3,000 bytes.
#[tokio::test]
async fn every_tool_has_all_hints_and_an_icon() {
    for surface in ["dynamic", "meta", "individual"] {
        let client = client(&[("TOOL_SURFACE", surface)]).await;
        let peer = client.peer_info().unwrap();
        let info = peer.server_info.as_ref().unwrap();
        assert_eq!(info.title.as_deref(), Some("GitLab MCP server"));
        assert!(
            info.description
                .as_deref()
                .is_some_and(|d| d.contains("GitLab"))
        );
        assert!(info.icons.as_ref().is_some_and(|icons| !icons.is_empty()));
        let listed = client.list_tools(None).await.unwrap();
        assert!(
            listed.ttl_ms.is_some(),
            "{surface}: fitted tools are fixed for the token"
        );
        for tool in &listed.tools {
            let hints = tool.annotations.as_ref().expect("annotations");
            assert!(
                hints.read_only_hint.is_some()
                    && hints.destructive_hint.is_some()
                    && hints.idempotent_hint.is_some()
                    && hints.open_world_hint.is_some(),
                "{surface}: {}: {hints:?}",
                tool.name
            );
            let icons = tool.icons.as_ref().expect("icons");
            assert!(
                icons[0].src.starts_with("data:image/svg+xml,"),
                "{}",
                tool.name
            );
        }
        if surface == "dynamic" {
            let bytes = serde_json::to_string(&listed).unwrap().len();
            assert!(bytes <= 3_000, "the dynamic tools/list is {bytes} bytes");
        }
        client.cancel().await.unwrap();
    }
}

//! JSON-RPC edge cases on the raw stdio wire: every broken message gets an error reply
//! (the client would otherwise wait for its own timeout), and the session goes on.
//! -32700 for bytes that are not JSON, -32600 for JSON that is not a JSON-RPC 2.0 message
//! (`"id": null` when its id cannot be read), -32602 for a `tools/call` whose params have
//! the wrong shape, and a size limit whose refusal names the request.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::support::BINARY;

struct Wire {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Wire {
    async fn start(env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(BINARY);
        command
            .args(["--sandbox", "--tool-surface", "dynamic", "serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("the binary starts");
        let mut wire = Self {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            _child: child,
        };
        wire.send_line(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "wire", "version": "1"}
        }}).to_string()).await;
        let reply = wire.reply().await;
        assert_eq!(reply["id"], 0, "{}", short(&reply));
        wire.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        wire
    }

    async fn send_line(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The next message from the server, within a minute (a bound for a hung server, not
    /// a speed: a debug build at load average 7 may take seconds).
    async fn reply(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(60), self.stdout.read_line(&mut line))
            .await
            .expect("the server replies within a minute")
            .unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }
}

/// A reply cut short for an assertion message.
fn short(value: &Value) -> String {
    value.to_string().chars().take(400).collect()
}

#[tokio::test]
async fn bytes_that_are_not_json_get_a_parse_error() {
    let mut wire = Wire::start(&[]).await;
    wire.send_line("{not json").await;
    let reply = wire.reply().await;
    assert_eq!(reply["error"]["code"], -32700, "{}", short(&reply));
    // Present and null, as JSON-RPC 2.0 says (not left out).
    assert_eq!(reply.get("id"), Some(&Value::Null), "{}", short(&reply));
    // The session goes on.
    wire.send_line(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        .await;
    let reply = wire.reply().await;
    assert_eq!(reply["id"], 2, "{}", short(&reply));
    assert!(reply["result"]["tools"].is_array(), "{}", short(&reply));
}

#[tokio::test]
async fn json_that_is_not_a_json_rpc_2_message_is_an_invalid_request() {
    let mut wire = Wire::start(&[]).await;
    // Without `"jsonrpc": "2.0"` (or with another version): -32600, with the id it had.
    for (line, id) in [
        (r#"{"id":7,"method":"tools/list"}"#, json!(7)),
        (
            r#"{"jsonrpc":"1.0","id":"eight","method":"tools/call","params":{"name":"gitlab_find_action","arguments":{"query":"x"}}}"#,
            json!("eight"),
        ),
        // An id that is not a string or an integer cannot be echoed: `"id": null`.
        (
            r#"{"jsonrpc":"2.0","id":[9],"method":"tools/list"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"n":10},"method":"tools/list"}"#,
            Value::Null,
        ),
        (r#"["not", "a", "message"]"#, Value::Null),
    ] {
        wire.send_line(line).await;
        let reply = wire.reply().await;
        assert_eq!(reply["error"]["code"], -32600, "{line}: {}", short(&reply));
        assert_eq!(reply.get("id"), Some(&id), "{line}: {}", short(&reply));
        assert!(reply.get("result").is_none(), "{line}: {}", short(&reply));
    }
    // The session goes on.
    wire.send_line(r#"{"jsonrpc":"2.0","id":11,"method":"tools/list"}"#)
        .await;
    let reply = wire.reply().await;
    assert_eq!(reply["id"], 11, "{}", short(&reply));
    assert!(reply["result"]["tools"].is_array(), "{}", short(&reply));
}

#[tokio::test]
async fn tools_call_with_params_of_the_wrong_shape_is_invalid_params() {
    let mut wire = Wire::start(&[]).await;
    for (id, params) in [
        (3, json!("oops")),
        (4, json!({"name": 5})),
        (
            5,
            json!({"name": "gitlab_execute_action", "arguments": "not an object"}),
        ),
        (6, json!({"arguments": {}})),
    ] {
        wire.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
                .to_string(),
        )
        .await;
        let reply = wire.reply().await;
        assert_eq!(reply["id"], id, "{}", short(&reply));
        assert_eq!(
            reply["error"]["code"],
            -32602,
            "{params}: {}",
            short(&reply)
        );
    }
}

#[tokio::test]
async fn an_oversized_message_is_refused_by_id_and_never_forwarded() {
    let mut wire = Wire::start(&[("GITLAB_MCP_MAX_MESSAGE_BYTES", "65536")]).await;
    let body = "x".repeat(200_000);
    let call = json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {
        "name": "gitlab_execute_action",
        "arguments": {"action": "issue.note_create", "params": {"project_id": "acme/platform/api", "issue_iid": 1, "body": body}}
    }});
    wire.send_line(&call.to_string()).await;
    let reply = wire.reply().await;
    assert_eq!(reply["id"], 41, "{}", short(&reply));
    assert_eq!(reply["error"]["code"], -32600, "{}", short(&reply));
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("65536") || message.contains("64"),
        "{message}"
    );
    // Nothing was posted: the issue's notes have no 200 KB note.
    wire.send_line(&json!({"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {
        "name": "gitlab_execute_action",
        "arguments": {"action": "issue.note_list", "params": {"project_id": "acme/platform/api", "issue_iid": 1, "per_page": 100}}
    }}).to_string()).await;
    let reply = wire.reply().await;
    assert_eq!(reply["id"], 42, "{}", short(&reply));
    assert!(
        !reply.to_string().contains("xxxxxxxxxx"),
        "the note was posted"
    );
}

//! Both MCP lifecycles on the same binary: 2025-11-25 (initialize) and 2026-07-28
//! (discover, with `_meta` on every request).

use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::json;

use crate::support::{BINARY, args, assert_valid, text};

fn command() -> tokio::process::Command {
    tokio::process::Command::new(BINARY).configure(|command| {
        command.args(["--sandbox", "--tool-surface", "dynamic", "serve"]);
    })
}

async fn exercise(client: &crate::support::Client) {
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 2);
    let result = client
        .call_tool(
            CallToolRequestParams::new("gitlab_execute_action").with_arguments(args(
                json!({"action": "pipeline.latest", "params": {"project_id": "acme/platform/api"}}),
            )),
        )
        .await
        .unwrap();
    assert!(
        text(&result).starts_with("## Pipeline #9012"),
        "{}",
        text(&result)
    );
    let schema =
        serde_json::Value::Object(tools[1].output_schema.clone().unwrap().as_ref().clone());
    assert_valid(
        &schema,
        result.structured_content.as_ref().unwrap(),
        "execute envelope",
    );
}

#[tokio::test]
async fn initialize_lifecycle_2025_11_25() {
    let (transport, _) = TokioChildProcess::builder(command())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let client = ().serve(transport).await.unwrap();
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2025_11_25
    );
    exercise(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn discover_lifecycle_2026_07_28() {
    let (transport, _) = TokioChildProcess::builder(command())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let client = ()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2026_07_28
    );
    exercise(&client).await;
    client.cancel().await.unwrap();
}

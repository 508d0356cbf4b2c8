//! One catalog, one execution path: every action's example call gives the same Markdown,
//! structure and resource link on the individual, meta and dynamic surfaces.

use gitlab_mcp::catalog::ACTIONS;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Map, Value, json};

use crate::support::{ADMIN, Client, client};

async fn call(
    client: &Client,
    surface: &str,
    action: &gitlab_mcp::catalog::Action,
    params: Map<String, Value>,
) -> CallToolResult {
    let (tool, arguments) = match surface {
        "individual" => {
            let mut arguments = params;
            if action.safety.destructive {
                arguments.insert("confirm".into(), Value::Bool(true));
            }
            (action.tool_name(), arguments)
        }
        "meta" => (
            format!("gitlab_{}", action.domain),
            crate::support::args(
                json!({"action": action.name, "params": params, "confirm": action.safety.destructive}),
            ),
        ),
        _ => (
            "gitlab_execute_action".to_owned(),
            crate::support::args(
                json!({"action": action.id, "params": params, "confirm": action.safety.destructive}),
            ),
        ),
    };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
        .await
        .unwrap()
}

#[tokio::test]
async fn the_same_call_gives_the_same_result_on_every_surface() {
    let surfaces = ["individual", "meta", "dynamic"];
    let mut clients = Vec::new();
    // Actions only administrators may call run with `--sandbox-admin`.
    let mut admin_clients = Vec::new();
    for surface in surfaces {
        clients.push(client(&[("TOOL_SURFACE", surface)]).await);
        admin_clients.push(client(&[("TOOL_SURFACE", surface), ADMIN]).await);
    }
    let mut order: Vec<_> = ACTIONS.iter().collect();
    order.sort_by_key(|a| (!a.safety.read_only, a.safety.destructive));
    for action in order {
        let mut results = Vec::new();
        let clients = if action.requires.admin {
            &admin_clients
        } else {
            &clients
        };
        for (surface, client) in surfaces.iter().zip(clients) {
            results.push(call(client, surface, action, action.example_args()).await);
        }
        for (surface, result) in surfaces.iter().zip(&results).skip(1) {
            assert_eq!(
                result.content, results[0].content,
                "{}: {surface} content differs from individual",
                action.id
            );
            assert_eq!(
                result.structured_content, results[0].structured_content,
                "{}: {surface} structure differs",
                action.id
            );
            assert_eq!(
                result.is_error, results[0].is_error,
                "{}: {surface}",
                action.id
            );
        }
    }
    // Aliases and a URL-encoded project resolve to the same resource everywhere.
    let params = crate::support::args(json!({"project": "acme%2Fplatform%2Fapi", "mr_iid": 42}));
    let get = gitlab_mcp::catalog::find("merge_request.get").unwrap();
    let mut links = Vec::new();
    for (surface, client) in surfaces.iter().zip(&clients) {
        let result = call(client, surface, get, params.clone()).await;
        links.push(
            result
                .content
                .iter()
                .find_map(|c| c.as_resource_link().map(|l| l.uri.clone())),
        );
    }
    assert!(
        links
            .iter()
            .all(|l| l.as_deref() == Some("gitlab://project/acme%2Fplatform%2Fapi/mr/42")),
        "{links:?}"
    );
    for client in clients.into_iter().chain(admin_clients) {
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn meta_and_dynamic_repair_malformed_calls() {
    let meta = client(&[("TOOL_SURFACE", "meta")]).await;
    let result = meta
        .call_tool(
            CallToolRequestParams::new("gitlab_issue")
                .with_arguments(crate::support::args(json!({"params": {"project_id": 101}}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        crate::support::text(&result).contains("`action` is required: one of list, get"),
        "{}",
        crate::support::text(&result)
    );
    // Parameters beside `action` are moved into `params` and checked, never dropped.
    let result = meta
        .call_tool(
            CallToolRequestParams::new("gitlab_issue").with_arguments(crate::support::args(
                json!({"action": "get", "project_id": 101, "issue_iid": 17, "colour": "red"}),
            )),
        )
        .await
        .unwrap();
    assert!(
        crate::support::text(&result).contains("`colour` is not a parameter"),
        "{}",
        crate::support::text(&result)
    );
    meta.cancel().await.unwrap();

    let dynamic = client(&[]).await;
    let result = dynamic
        .call_tool(CallToolRequestParams::new("gitlab_find_action").with_arguments(Map::new()))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        crate::support::text(&result).contains("`query` is required"),
        "{}",
        crate::support::text(&result)
    );
    let result = dynamic
        .call_tool(
            CallToolRequestParams::new("gitlab_execute_action").with_arguments(
                crate::support::args(json!({"action": "pipeline.lastest", "params": {}})),
            ),
        )
        .await
        .unwrap();
    assert!(
        crate::support::text(&result).contains("Did you mean `pipeline.latest`"),
        "{}",
        crate::support::text(&result)
    );
    dynamic.cancel().await.unwrap();
}

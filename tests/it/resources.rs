//! Catalog resources on every surface, entity templates resolved through the dispatcher,
//! and get results that point at their resource with RFC 6570 escaping.

use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};

use crate::support::{args, client};

fn text_of(contents: &[ResourceContents]) -> String {
    match &contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        _ => panic!("expected text"),
    }
}

#[tokio::test]
async fn catalog_resources_on_every_surface() {
    for surface in ["dynamic", "meta", "individual"] {
        let client = client(&[("TOOL_SURFACE", surface)]).await;
        let manifest: Value = serde_json::from_str(&text_of(
            &client
                .read_resource(ReadResourceRequestParams::new("gitlab://tools"))
                .await
                .unwrap()
                .contents,
        ))
        .unwrap();
        assert_eq!(manifest["surface"], surface);
        // The catalog alice may use: every action but the administrators'.
        let visible = gitlab_mcp::catalog::ACTIONS
            .iter()
            .filter(|a| !a.requires.admin)
            .count();
        assert_eq!(manifest["action_count"], visible);
        let action: Value = serde_json::from_str(&text_of(
            &client
                .read_resource(ReadResourceRequestParams::new(
                    "gitlab://tools/merge_request.get",
                ))
                .await
                .unwrap()
                .contents,
        ))
        .unwrap();
        assert_eq!(action["id"], "merge_request.get");
        assert!(action["input_schema"]["properties"]["merge_request_iid"].is_object());
        assert!(action["output_schema"]["properties"]["iid"].is_object());
        // A domain's page: what a meta tool's action names stand for.
        let domain: Value = serde_json::from_str(&text_of(
            &client
                .read_resource(ReadResourceRequestParams::new("gitlab://tools/webhook"))
                .await
                .unwrap()
                .contents,
        ))
        .unwrap();
        assert_eq!(domain["domain"], "webhook");
        let get = domain["actions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == "webhook.get")
            .unwrap();
        assert_eq!(get["required"], json!(["project_id", "hook_id"]));
        // The administrators' actions are not alice's to see.
        assert!(!domain["actions"].to_string().contains("system_get"));
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn entity_templates_resolve_through_the_get() {
    let client = client(&[]).await;
    let templates = client.list_all_resource_templates().await.unwrap();
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "gitlab://project/{project_id}/mr/{merge_request_iid}")
    );
    let read = client
        .read_resource(ReadResourceRequestParams::new(
            "gitlab://project/acme%2Fplatform%2Fapi/mr/42",
        ))
        .await
        .unwrap();
    let entity: Value = serde_json::from_str(&text_of(&read.contents)).unwrap();
    assert_eq!(entity["iid"], 42);
    assert!(entity.get("next_steps").is_none());
    let missing = client
        .read_resource(ReadResourceRequestParams::new(
            "gitlab://project/acme%2Fplatform%2Fapi/mr/999",
        ))
        .await;
    assert!(missing.is_err(), "a missing entity is a resource error");
    client.cancel().await.unwrap();

    let minimal = crate::support::client(&[("CAPABILITY_SURFACE", "minimal")]).await;
    let templates = minimal.list_all_resource_templates().await.unwrap();
    assert_eq!(
        templates.len(),
        1,
        "minimal keeps only gitlab://tools/{{id}}"
    );
    minimal.cancel().await.unwrap();
}

#[tokio::test]
async fn get_results_link_their_resource_or_embed_it() {
    for (mode, expect_link, expect_embed) in [
        ("link", true, false),
        ("embed", false, true),
        ("off", false, false),
    ] {
        let client = client(&[
            ("TOOL_SURFACE", "individual"),
            ("GITLAB_MCP_EMBEDDED_RESOURCES", mode),
        ])
        .await;
        let result = client
            .call_tool(
                CallToolRequestParams::new("gitlab_merge_request_get").with_arguments(args(
                    json!({"project": "acme%2Fplatform%2Fapi", "mr_iid": 42}),
                )),
            )
            .await
            .unwrap();
        let link = result.content.iter().find_map(|c| c.as_resource_link());
        let embedded = result.content.iter().find_map(|c| c.as_resource());
        assert_eq!(link.is_some(), expect_link, "{mode}");
        assert_eq!(embedded.is_some(), expect_embed, "{mode}");
        if let Some(link) = link {
            assert_eq!(link.uri, "gitlab://project/acme%2Fplatform%2Fapi/mr/42");
        }
        if let Some(embedded) = embedded {
            let json = embedded.get_text();
            let structured = result.structured_content.clone().unwrap();
            let mut entity = structured.as_object().unwrap().clone();
            entity.remove("next_steps");
            assert_eq!(
                serde_json::from_str::<Value>(&json).unwrap(),
                Value::Object(entity)
            );
        }
        client.cancel().await.unwrap();
    }
}

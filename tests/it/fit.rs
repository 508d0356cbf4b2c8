//! The catalog fits the instance and the token: what the token's scopes or the edition
//! cannot run is hidden from every surface, from find and from the catalog resources, and
//! a call to it is refused with the reason, before anything is sent.

use gitlab_mcp::catalog::{ACTIONS, Tier};
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use serde_json::json;

use crate::support::{args, assert_not_offered, client, text};

const READ_TOKEN: (&str, &str) = ("GITLAB_SANDBOX_TOKEN", "sandbox-token-read");

#[tokio::test]
async fn a_read_api_token_sees_no_write_on_any_surface() {
    for surface in ["individual", "meta", "dynamic"] {
        let client = client(&[("TOOL_SURFACE", surface), READ_TOKEN]).await;
        let tools = client.list_all_tools().await.unwrap();
        let listed = serde_json::to_string(&tools).unwrap();
        assert_not_offered(surface, &tools, ACTIONS.iter().filter(|a| a.is_mutation()));
        // Reads stay.
        assert!(
            listed.contains("merge_request") && listed.contains("gitlab_"),
            "{surface}"
        );

        let manifest = client
            .read_resource(ReadResourceRequestParams::new("gitlab://tools"))
            .await
            .unwrap();
        let manifest = serde_json::to_string(&manifest).unwrap();
        assert!(!manifest.contains("issue.create"), "{surface}: {manifest}");
        assert!(manifest.contains("issue.list"), "{surface}: {manifest}");

        if surface == "dynamic" {
            let found = client
                .call_tool(
                    CallToolRequestParams::new("gitlab_find_action")
                        .with_arguments(args(json!({"query": "create an issue", "limit": 20}))),
                )
                .await
                .unwrap();
            let hits = found.structured_content.unwrap();
            for hit in hits["results"].as_array().unwrap() {
                let action = gitlab_mcp::catalog::find(hit["id"].as_str().unwrap()).unwrap();
                assert!(action.safety.read_only, "find offered {}", action.id);
            }
            let refused = client
                .call_tool(CallToolRequestParams::new("gitlab_execute_action").with_arguments(
                    args(json!({"action": "issue.create", "params": {"project_id": 101, "title": "x"}})),
                ))
                .await
                .unwrap();
            assert_eq!(refused.is_error, Some(true));
            let message = text(&refused);
            assert!(
                message.contains("needs a token with the `api` scope"),
                "{message}"
            );
        }
    }
}

#[tokio::test]
async fn fitting_can_be_switched_off() {
    let client = client(&[
        ("TOOL_SURFACE", "individual"),
        READ_TOKEN,
        ("GITLAB_FIT_CATALOG", "false"),
    ])
    .await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "gitlab_issue_create"));
    // The sandbox refuses the write itself, as GitLab would.
    let refused = client
        .call_tool(
            CallToolRequestParams::new("gitlab_issue_create")
                .with_arguments(args(json!({"project_id": 101, "title": "x"}))),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
}

#[tokio::test]
async fn the_community_edition_hides_every_paid_tier() {
    let paid: Vec<&str> = ACTIONS
        .iter()
        .filter(|a| a.requires.tier > Tier::Free)
        .map(|a| a.id)
        .collect();
    // Group wikis (Premium) at least: without a paid action this test proves nothing.
    assert!(
        paid.contains(&"wiki.group_list"),
        "no paid-tier action to hide: {paid:?}"
    );
    for surface in ["individual", "meta", "dynamic"] {
        let ce = client(&[("TOOL_SURFACE", surface), ("GITLAB_SANDBOX_EDITION", "ce")]).await;
        let manifest = ce
            .read_resource(ReadResourceRequestParams::new("gitlab://tools"))
            .await
            .unwrap();
        let manifest = serde_json::to_string(&manifest).unwrap();
        for id in &paid {
            assert!(
                !manifest.contains(&format!("\\\"{id}\\\"")),
                "{surface}: {id} offered on CE"
            );
        }
        let ee = client(&[("TOOL_SURFACE", surface)]).await;
        let all = ee
            .read_resource(ReadResourceRequestParams::new("gitlab://tools"))
            .await
            .unwrap();
        let all = serde_json::to_string(&all).unwrap();
        for id in &paid {
            assert!(
                all.contains(&format!("\\\"{id}\\\"")),
                "{surface}: {id} missing on EE"
            );
        }
    }
}

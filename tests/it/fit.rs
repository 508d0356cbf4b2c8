//! The catalog fits the instance and the token: what the token's scopes, the edition or a
//! user who is not an administrator cannot run is hidden from every surface, from find and
//! from the catalog resources, and a call to it is refused with the reason, before anything
//! is sent.

use gitlab_mcp::catalog::{ACTIONS, Tier};
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use serde_json::json;

use crate::support::{ADMIN, args, assert_not_offered, client, text};

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
        let tools = ce.list_all_tools().await.unwrap();
        assert_not_offered(
            surface,
            &tools,
            ACTIONS.iter().filter(|a| a.requires.tier > Tier::Free),
        );
        if surface == "dynamic" {
            // Find never offers what execute would refuse: a request in a paid action's
            // own words finds only what CE runs, and executing the paid one is refused.
            let found = ce
                .call_tool(
                    CallToolRequestParams::new("gitlab_find_action").with_arguments(args(
                        json!({"query": "list the wiki pages of group acme", "limit": 20}),
                    )),
                )
                .await
                .unwrap();
            let hits = found.structured_content.unwrap();
            for hit in hits["results"].as_array().unwrap() {
                let id = hit["id"].as_str().unwrap();
                assert!(!paid.contains(&id), "find offered {id} on CE");
            }
            let refused = ce
                .call_tool(
                    CallToolRequestParams::new("gitlab_execute_action").with_arguments(args(
                        json!({"action": "wiki.group_list", "params": {"group_id": "acme"}}),
                    )),
                )
                .await
                .unwrap();
            assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
        }
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
        // An administrator on EE: paid actions that are also administrators' (instance
        // audit events) are offered too.
        let ee = client(&[("TOOL_SURFACE", surface), ADMIN]).await;
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

#[tokio::test]
async fn administrators_actions_are_offered_with_sandbox_admin_only() {
    let admin: Vec<&gitlab_mcp::catalog::Action> =
        ACTIONS.iter().filter(|a| a.requires.admin).collect();
    // System hooks at least: without an admin action this test proves nothing.
    assert!(
        admin.iter().any(|a| a.id == "webhook.system_list"),
        "no admin action to hide"
    );
    for surface in ["individual", "meta", "dynamic"] {
        let alice = client(&[("TOOL_SURFACE", surface)]).await;
        let tools = alice.list_all_tools().await.unwrap();
        assert_not_offered(surface, &tools, admin.iter().copied());
        let manifest = alice
            .read_resource(ReadResourceRequestParams::new("gitlab://tools"))
            .await
            .unwrap();
        let manifest = serde_json::to_string(&manifest).unwrap();
        for action in &admin {
            assert!(
                !manifest.contains(&format!("\\\"{}\\\"", action.id)),
                "{surface}: {} offered to alice",
                action.id
            );
        }

        let admin_alice = client(&[("TOOL_SURFACE", surface), ADMIN]).await;
        let tools = admin_alice.list_all_tools().await.unwrap();
        let listed = serde_json::to_string(&tools).unwrap();
        let all = admin_alice
            .read_resource(ReadResourceRequestParams::new("gitlab://tools"))
            .await
            .unwrap();
        let all = serde_json::to_string(&all).unwrap();
        for action in &admin {
            let offered = match surface {
                "individual" => listed.contains(&format!("\"{}\"", action.tool_name())),
                "meta" => tools
                    .iter()
                    .find(|t| t.name == format!("gitlab_{}", action.domain))
                    .is_some_and(|t| {
                        t.input_schema["properties"]["action"]["enum"]
                            .as_array()
                            .is_some_and(|names| names.contains(&json!(action.name)))
                    }),
                _ => true,
            };
            assert!(
                offered,
                "{surface}: {} not offered with --sandbox-admin",
                action.id
            );
            assert!(
                all.contains(&format!("\\\"{}\\\"", action.id)),
                "{surface}: {} missing from the administrator's catalog",
                action.id
            );
        }

        if surface == "dynamic" {
            let find = CallToolRequestParams::new("gitlab_find_action")
                .with_arguments(args(json!({"query": "list the system hooks", "limit": 20})));
            let ids = |found: rmcp::model::CallToolResult| -> Vec<String> {
                found.structured_content.unwrap()["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|hit| hit["id"].as_str().unwrap().to_owned())
                    .collect()
            };
            let for_alice = ids(alice.call_tool(find.clone()).await.unwrap());
            assert!(
                !for_alice.iter().any(|id| id == "webhook.system_list"),
                "find offered alice {for_alice:?}"
            );
            let for_admin = ids(admin_alice.call_tool(find).await.unwrap());
            assert!(
                for_admin.iter().any(|id| id == "webhook.system_list"),
                "find did not offer the administrator {for_admin:?}"
            );
            // Every admin action, called anyway, is refused with the sentence that says why.
            for action in &admin {
                let refused = alice
                    .call_tool(
                        CallToolRequestParams::new("gitlab_execute_action").with_arguments(args(
                            json!({"action": action.id, "params": action.example_args(), "confirm": true}),
                        )),
                    )
                    .await
                    .unwrap();
                assert_eq!(refused.is_error, Some(true), "{}", action.id);
                let message = text(&refused);
                assert!(
                    message.contains("is for GitLab administrators"),
                    "{}: {message}",
                    action.id
                );
            }
        }
        alice.cancel().await.unwrap();
        admin_alice.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn the_sandbox_refuses_administrators_endpoints_to_others() {
    // Unfitted, alice's call reaches the sandbox, which answers as GitLab does.
    let client = client(&[
        ("TOOL_SURFACE", "individual"),
        ("GITLAB_FIT_CATALOG", "false"),
    ])
    .await;
    let refused = client
        .call_tool(
            CallToolRequestParams::new("gitlab_ci_variable_instance_list")
                .with_arguments(args(json!({}))),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    let message = text(&refused);
    assert!(
        message.contains("only GitLab administrators may call it") && message.contains("403"),
        "{message}"
    );
    client.cancel().await.unwrap();
}

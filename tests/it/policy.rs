//! Per-action safety on every surface: read-only removes mutations everywhere, safe mode
//! previews, destructive actions need confirmation, exclusions hide actions.

use gitlab_mcp::policy::Policy;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::support::{args, assert_not_offered, client, dispatcher, text};

#[tokio::test]
async fn read_only_removes_mutations_from_every_surface() {
    for surface in ["individual", "meta", "dynamic"] {
        let client = client(&[("TOOL_SURFACE", surface), ("GITLAB_READ_ONLY", "true")]).await;
        let tools = client.list_all_tools().await.unwrap();
        let mutations = gitlab_mcp::catalog::ACTIONS
            .iter()
            .filter(|a| a.is_mutation());
        assert_not_offered(surface, &tools, mutations);
        if surface == "dynamic" {
            let found = client
                .call_tool(
                    CallToolRequestParams::new("gitlab_find_action")
                        .with_arguments(args(json!({"query": "delete a branch", "limit": 50}))),
                )
                .await
                .unwrap();
            let ids: Vec<&str> = found.structured_content.as_ref().unwrap()["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].as_str().unwrap())
                .collect();
            assert!(
                ids.iter()
                    .all(|id| gitlab_mcp::catalog::find(id).unwrap().safety.read_only),
                "find offered {ids:?}"
            );
            let refused = client
                .call_tool(CallToolRequestParams::new("gitlab_execute_action").with_arguments(args(json!({"action": "issue.create", "params": {"project_id": 101, "title": "x"}}))))
                .await
                .unwrap();
            assert_eq!(refused.is_error, Some(true));
            assert!(
                text(&refused).contains("read-only mode"),
                "{}",
                text(&refused)
            );
        }
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn safe_mode_previews_and_changes_nothing() {
    let (dispatcher, sandbox) = dispatcher(Policy {
        safe_mode: true,
        ..Policy::default()
    })
    .await;
    let outcome = dispatcher
        .call("merge_request.update", args(json!({"project_id": "acme/platform/api", "merge_request_iid": 42, "state_event": "close"})), false)
        .await;
    assert!(outcome.is_error);
    assert!(outcome.text.contains("Safe mode is on"), "{}", outcome.text);
    assert!(
        outcome
            .text
            .contains("PUT /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/42"),
        "{}",
        outcome.text
    );
    assert!(
        outcome.text.contains("\"state_event\": \"close\""),
        "{}",
        outcome.text
    );
    // An upload's preview names the file the handler would send.
    let upload = dispatcher
        .call(
            "wiki.attachment_upload",
            args(json!({"project_id": "acme/platform/api", "file_name": "notes.md", "content": "# Notes"})),
            false,
        )
        .await;
    assert!(
        upload.is_error
            && upload.text.contains("Safe mode is on")
            && upload.text.contains("notes.md (7 bytes)"),
        "{}",
        upload.text
    );
    assert!(sandbox.requests().is_empty());
    let read = dispatcher
        .call(
            "merge_request.get",
            args(json!({"project_id": "acme/platform/api", "merge_request_iid": 42})),
            false,
        )
        .await;
    assert!(
        !read.is_error && read.text.contains("🟢 opened"),
        "reads still work: {}",
        read.text
    );
}

/// An action with a declared consequence (`safety.consequence`) is refused with the
/// strongest wording: what it does, on which target, and that only an explicit approval of
/// this one call counts; confirmed, it runs.
#[tokio::test]
async fn strong_confirmation_says_what_happens() {
    let (dispatcher, sandbox) = dispatcher(Policy::default()).await;
    let arguments = json!({"project_id": "acme/platform/api", "token_id": 7702});
    let refused = dispatcher
        .call(
            "access_token.project_revoke",
            args(arguments.clone()),
            false,
        )
        .await;
    assert!(refused.is_error, "{}", refused.text);
    for words in [
        "explicit approval of exactly this",
        "project access token 7702 of acme/platform/api",
        "an earlier general go-ahead is not enough",
        "`confirm: true`",
    ] {
        assert!(refused.text.contains(words), "{words}: {}", refused.text);
    }
    assert!(sandbox.requests().is_empty());
    let mut confirmed = args(arguments);
    confirmed.insert("confirm".into(), Value::Bool(true));
    let done = dispatcher
        .call("access_token.project_revoke", confirmed, false)
        .await;
    assert!(!done.is_error, "{}", done.text);
    // An ordinary destructive action keeps the plain wording.
    let plain = dispatcher
        .call(
            "branch.delete",
            args(json!({"project_id": "acme/platform/api", "branch_name": "fix/login-pipe"})),
            false,
        )
        .await;
    assert!(!plain.text.contains("explicit approval"), "{}", plain.text);
}

#[tokio::test]
async fn destructive_actions_need_confirmation() {
    let (dispatcher, sandbox) = dispatcher(Policy::default()).await;
    let arguments = json!({"project_id": "acme/platform/api", "branch_name": "fix/login-pipe"});
    let refused = dispatcher
        .call("branch.delete", args(arguments.clone()), false)
        .await;
    assert!(
        refused.is_error && refused.text.contains("needs confirmation"),
        "{}",
        refused.text
    );
    assert!(sandbox.requests().is_empty());
    let mut confirmed = args(arguments.clone());
    confirmed.insert("confirm".into(), Value::Bool(true));
    let done = dispatcher.call("branch.delete", confirmed, false).await;
    assert!(!done.is_error, "{}", done.text);
    assert_eq!(sandbox.requests().last().unwrap().method, "DELETE");

    let (yolo, _sandbox) = dispatcher_yolo().await;
    let done = yolo.call("branch.delete", args(arguments), false).await;
    assert!(
        !done.is_error,
        "YOLO mode needs no confirmation: {}",
        done.text
    );
}

async fn dispatcher_yolo() -> (
    gitlab_mcp::dispatch::Dispatcher,
    gitlab_mcp::sandbox::Sandbox,
) {
    dispatcher(Policy {
        yolo: true,
        ..Policy::default()
    })
    .await
}

#[tokio::test]
async fn excluded_actions_are_not_offered() {
    let client = client(&[
        ("TOOL_SURFACE", "individual"),
        ("GITLAB_EXCLUDE_ACTIONS", "*.delete,job.play"),
    ])
    .await;
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    // `*.delete` is an action named `delete` in any domain; `repository.file_delete` is
    // another name and stays.
    let excluded: Vec<String> = gitlab_mcp::catalog::ACTIONS
        .iter()
        .filter(|a| a.id.ends_with(".delete") || a.id == "job.play")
        .map(|a| format!("gitlab_{}", a.id.replace('.', "_")))
        .collect();
    assert!(excluded.len() > 2, "{excluded:?}");
    assert!(!names.iter().any(|n| excluded.contains(n)), "{names:?}");
    assert!(names.contains(&"gitlab_job_retry".to_owned()));
    assert!(names.contains(&"gitlab_repository_file_delete".to_owned()));
    client.cancel().await.unwrap();

    let (dispatcher, _sandbox) = dispatcher(Policy {
        exclude: vec!["project.*".into()],
        ..Policy::default()
    })
    .await;
    let outcome = dispatcher
        .call("project.get", args(json!({"project_id": 101})), false)
        .await;
    assert!(
        outcome.is_error && outcome.text.contains("disabled on this server"),
        "{}",
        outcome.text
    );
    let merge_request = dispatcher
        .call(
            "merge_request.get",
            args(json!({"project_id": 101, "merge_request_iid": 42})),
            false,
        )
        .await;
    assert!(
        !merge_request.text.contains("project.get"),
        "hints never name hidden actions"
    );
}

/// A secret parameter (a pipeline trigger token) reaches GitLab and nothing else: not the
/// result, not an error, not safe mode's preview of the request.
#[tokio::test]
async fn a_trigger_token_is_sent_and_never_shown() {
    const TOKEN: &str = "glptt-7c1e04b9a2d35f6e8b10";
    let call = |extra: Value| {
        let mut given = json!({"project_id": "acme/platform/api", "token": TOKEN, "ref": "main"});
        if let (Some(given), Some(extra)) = (given.as_object_mut(), extra.as_object()) {
            given.extend(extra.clone());
        }
        args(given)
    };
    let shown = |outcome: &gitlab_mcp::dispatch::Outcome| {
        let structured = serde_json::to_string(&outcome.structured).unwrap_or_default();
        outcome.text.contains(TOKEN) || structured.contains(TOKEN)
    };

    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let ran = dispatcher
        .call(
            "pipeline.trigger_run",
            call(json!({"variables": {"VERSION": "2"}})),
            false,
        )
        .await;
    assert!(
        !ran.is_error,
        "the sandbox knows this trigger token: {}",
        ran.text
    );
    assert!(ran.text.contains("triggered"), "{}", ran.text);
    assert!(!shown(&ran), "{}", ran.text);
    // The same token named by its alias, with arguments that do not check out.
    let refused = dispatcher
        .call(
            "pipeline.trigger_run",
            args(json!({"project_id": "acme/platform/api", "trigger_token": TOKEN, "ref": "main", "variables": ["VERSION=2"]})),
            false,
        )
        .await;
    assert!(
        refused.is_error && refused.text.contains("`variables`"),
        "{}",
        refused.text
    );
    assert!(!shown(&refused), "{}", refused.text);

    let (dispatcher, sandbox) = dispatcher_safe().await;
    let preview = dispatcher
        .call("pipeline.trigger_run", call(json!({})), false)
        .await;
    assert!(preview.text.contains("Safe mode is on"), "{}", preview.text);
    assert!(
        preview.text.contains("\"token\": \"[redacted]\""),
        "{}",
        preview.text
    );
    assert!(!shown(&preview), "{}", preview.text);
    assert!(sandbox.requests().is_empty());
}

async fn dispatcher_safe() -> (
    gitlab_mcp::dispatch::Dispatcher,
    gitlab_mcp::sandbox::Sandbox,
) {
    dispatcher(Policy {
        safe_mode: true,
        ..Policy::default()
    })
    .await
}

//! GraphQL actions (work items, epics) through the same client and dispatcher as REST:
//! GitLab's `errors` answers (HTTP 200) are failures, never results; a `null` result is
//! not found; a mutation changes what a later query reads.

use gitlab_mcp::gitlab::{ErrorKind, GitlabClient, Method, Request, Token, graphql};
use gitlab_mcp::policy::Policy;
use gitlab_mcp::sandbox::{Sandbox, TOKEN};
use serde_json::json;

use crate::support::{args, dispatcher};

#[tokio::test]
async fn an_unknown_operation_is_a_graphql_error_the_client_refuses() {
    crate::support::install_crypto();
    let sandbox = Sandbox::start_local().await.expect("the sandbox starts");
    let client = GitlabClient::new(sandbox.url(), Some(Token::new(TOKEN)));
    let request = Request::new(Method::Post).into_graphql(
        "Projects",
        "query Projects { projects { nodes { id } } }",
        true,
    );
    let response = client.send(request).await.expect("GraphQL answers 200");
    assert_eq!(response.status, 200);
    let error = graphql::result(&response, "projects").expect_err("an `errors` answer");
    assert_eq!(error.kind, ErrorKind::Invalid);
    assert!(
        error
            .explain()
            .contains("does not answer the GraphQL operation `Projects`"),
        "{}",
        error.explain()
    );
}

#[tokio::test]
async fn a_refused_mutation_is_a_repairable_error() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let outcome = dispatcher
        .call(
            "work_item.create",
            args(
                json!({"full_path": "acme/platform/api", "work_item_type": "task", "title": "  "}),
            ),
            false,
        )
        .await;
    assert!(outcome.is_error, "{}", outcome.text);
    assert!(outcome.structured.is_none());
    assert!(
        outcome.text.contains("Title can't be blank")
            && outcome.text.contains("Fix the parameters"),
        "{}",
        outcome.text
    );
    // A type the namespace does not offer (epics live in groups) is named.
    let outcome = dispatcher
        .call(
            "work_item.create",
            args(json!({"full_path": "acme/platform/api", "work_item_type": "epic", "title": "Roadmap"})),
            false,
        )
        .await;
    assert!(outcome.is_error);
    assert!(
        outcome
            .text
            .contains("acme/platform/api has no work item type `EPIC`"),
        "{}",
        outcome.text
    );
}

#[tokio::test]
async fn a_missing_work_item_is_not_found_with_hints() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    for (id, params) in [
        (
            "work_item.get",
            json!({"full_path": "acme/platform/api", "work_item_iid": "999"}),
        ),
        (
            "work_item.update",
            json!({"full_path": "acme/platform/api", "work_item_iid": "999", "title": "x"}),
        ),
        (
            "work_item.get",
            json!({"full_path": "acme/nowhere", "work_item_iid": "1"}),
        ),
    ] {
        let outcome = dispatcher.call(id, args(params), false).await;
        assert!(outcome.is_error);
        assert!(
            outcome.text.starts_with("## ❓ Work Item Not Found"),
            "{id}: {}",
            outcome.text
        );
        assert!(
            outcome.text.contains("`work_item.list`"),
            "{}",
            outcome.text
        );
    }
}

#[tokio::test]
async fn a_created_task_is_its_parents_child_and_closes() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let created = dispatcher
        .call(
            "work_item.create",
            args(json!({"full_path": "acme/platform/api", "type": "Task", "title": "Write the runbook", "parent_iid": 11})),
            false,
        )
        .await;
    assert!(!created.is_error, "{}", created.text);
    let structured = created.structured.expect("a work item");
    assert_eq!(structured["work_item_type"], "Task");
    assert_eq!(structured["parent"]["iid"], 11);
    let iid = structured["iid"].as_i64().expect("an iid");

    let parent = dispatcher
        .call(
            "work_item.get",
            args(json!({"full_path": "acme/platform/api", "iid": "11"})),
            false,
        )
        .await;
    let children = parent.structured.expect("the parent")["children"].clone();
    assert!(
        children
            .as_array()
            .is_some_and(|c| c.iter().any(|child| child["iid"] == iid)),
        "{children}"
    );

    let closed = dispatcher
        .call(
            "work_item.update",
            args(json!({"full_path": "acme/platform/api", "work_item_iid": iid, "state_event": "close"})),
            false,
        )
        .await;
    assert!(!closed.is_error, "{}", closed.text);
    assert_eq!(closed.structured.expect("the work item")["state"], "closed");
    // Closing an issue as a work item closes the issue REST reads.
    dispatcher
        .call(
            "work_item.update",
            args(json!({"full_path": "acme/platform/api", "work_item_iid": "9", "state_event": "CLOSE"})),
            false,
        )
        .await;
    let issue = dispatcher
        .call(
            "issue.get",
            args(json!({"project_id": "acme/platform/api", "issue_iid": 9})),
            false,
        )
        .await;
    assert_eq!(issue.structured.expect("the issue")["state"], "closed");
}

#[tokio::test]
async fn lists_page_by_cursor() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let first = dispatcher
        .call(
            "work_item.list",
            args(json!({"full_path": "acme/platform/api", "state": "all", "per_page": 20})),
            false,
        )
        .await;
    let first = first.structured.expect("a page");
    let total = first["pagination"]["total_items"]
        .as_i64()
        .expect("a count");
    assert!(total > 20, "issues are work items too: {total}");
    let cursor = first["pagination"]["next_cursor"]
        .as_str()
        .expect("a next cursor")
        .to_owned();
    assert!(first["next_steps"][0].as_str().unwrap().contains(&cursor));
    let second = dispatcher
        .call(
            "work_item.list",
            args(json!({"full_path": "acme/platform/api", "state": "all", "cursor": cursor})),
            false,
        )
        .await;
    let second = second.structured.expect("the next page");
    assert_eq!(second["pagination"]["has_more"], false);
    assert_eq!(
        second["work_items"].as_array().map(Vec::len),
        Some(total as usize - 20)
    );
    assert!(
        second["pagination"].get("page").is_none(),
        "cursors have no page numbers"
    );
}

#[tokio::test]
async fn safe_mode_previews_a_mutation_by_its_operation_and_variables() {
    let policy = Policy {
        safe_mode: true,
        ..Policy::default()
    };
    let (safe, _sandbox) = dispatcher(policy).await;
    let outcome = safe
        .call(
            "work_item.update",
            args(json!({"full_path": "acme/platform/api", "work_item_iid": "32", "title": "Send RateLimit headers"})),
            false,
        )
        .await;
    assert!(outcome.is_error);
    assert!(
        outcome
            .text
            .contains("the GraphQL mutation `WorkItemUpdate` (`POST /api/graphql`)"),
        "{}",
        outcome.text
    );
    assert!(
        outcome
            .text
            .contains("\"title\": \"Send RateLimit headers\""),
        "{}",
        outcome.text
    );
    assert!(
        !outcome.text.contains("mutation WorkItemUpdate("),
        "the document is not repeated"
    );
    let (plain, _sandbox) = dispatcher(Policy::default()).await;
    let unchanged = plain
        .call(
            "work_item.get",
            args(json!({"full_path": "acme/platform/api", "work_item_iid": "32"})),
            false,
        )
        .await;
    assert_eq!(
        unchanged.structured.expect("the task")["title"],
        "Send RateLimit headers with every response"
    );
}

#[tokio::test]
async fn labels_and_assignees_are_set_by_name() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let updated = dispatcher
        .call(
            "work_item.update",
            args(json!({
                "full_path": "acme/platform/api",
                "work_item_iid": "33",
                "add_labels": ["bug", "customer"],
                "remove_labels": ["performance"],
                "assignees": ["dave", "erin"]
            })),
            false,
        )
        .await;
    assert!(!updated.is_error, "{}", updated.text);
    let item = updated.structured.expect("the work item");
    // `customer` is a label of the group acme/platform.
    assert_eq!(item["labels"], json!(["bug", "customer"]));
    assert_eq!(
        item["assignees"],
        json!([{"username": "dave"}, {"username": "erin"}])
    );
    let refused = dispatcher
        .call(
            "work_item.update",
            args(json!({"full_path": "acme/platform/api", "work_item_iid": "33", "add_labels": ["nope"]})),
            false,
        )
        .await;
    assert!(refused.is_error);
    assert!(
        refused
            .text
            .contains("acme/platform/api has no label `nope`"),
        "{}",
        refused.text
    );
}

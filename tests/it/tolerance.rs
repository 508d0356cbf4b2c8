//! Tolerant reading: real GitLab answers vary by version, edition and permission, so a
//! missing, null or oddly typed field is left out (and said), never a failed call. Only a
//! field the result cannot do without (an item's `iid`) is required; one object where a
//! list was expected, and a list of one where one object was, read as meant. Each answer
//! comes from a fake GitLab (`upstream.rs`), and each result must still validate against
//! its action's output schema.

use std::sync::Arc;

use gitlab_mcp::catalog;
use gitlab_mcp::dispatch::{Context, Dispatcher, Outcome};
use gitlab_mcp::gitlab::{ClientSettings, GitlabClient, Token};
use gitlab_mcp::policy::Policy;
use serde_json::{Value, json};

use crate::support::{args, assert_valid};
use crate::upstream::{Reply, Upstream};

/// `action` called with `arguments` against a GitLab that answers `body` to everything.
async fn answer(action: &str, arguments: Value, body: Value) -> Outcome {
    let body = body.to_string();
    let upstream = Upstream::start(move |_| Reply::Json(200, body.clone()));
    let settings = ClientSettings::new(upstream.url(), Some(Token::new("glpat-tolerance")));
    let dispatcher = Dispatcher::new(
        Context::new(GitlabClient::with_settings(settings)),
        Arc::new(Policy {
            yolo: true,
            ..Policy::default()
        }),
    );
    let outcome = dispatcher.call(action, args(arguments), true).await;
    assert!(!outcome.is_error, "{action}: {}", outcome.text);
    let schema = catalog::find(action).unwrap().output_schema();
    let structured = Value::Object(outcome.structured.clone().unwrap());
    assert_valid(&schema, &structured, action);
    outcome
}

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/examples/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[tokio::test]
async fn odd_items_are_answered_with_what_could_be_read() {
    let issues = json!([
        {"id": 11, "iid": 1, "title": "Complete", "state": "opened",
         "created_at": "2025-01-15T10:30:00Z", "author": {"id": 1, "username": "ann"},
         "labels": ["bug", "ui"], "web_url": "https://gitlab.example.com/a/b/-/issues/1"},
        {"id": 12, "iid": 2, "title": "No date, no author", "state": "opened"},
        {"id": 13, "iid": 3, "title": 42, "state": "closed", "labels": "bug"},
        {"id": 14, "iid": 4, "title": "An author as text", "state": "opened", "author": "ann"},
        {"id": 15, "title": "No iid: nothing to act on", "state": "opened"},
    ]);
    let outcome = answer("issue.list", json!({"project_id": 101}), issues).await;
    let structured = outcome.structured.unwrap();
    let iids: Vec<i64> = structured["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|issue| issue["iid"].as_i64().unwrap())
        .collect();
    assert_eq!(iids, [1, 2, 3, 4]);
    assert_eq!(structured["issues"][2]["title"], "42");
    assert_eq!(structured["issues"][2]["labels"], json!(["bug"]));
    assert!(structured["issues"][1].get("author").is_none());
    assert_eq!(structured["unreadable_fields"], json!(["author", "iid"]));
    let rows = outcome
        .text
        .lines()
        .filter(|l| l.starts_with("| [#") || l.starts_with("| #"))
        .count();
    assert_eq!(rows, 4, "{}", outcome.text);
    assert!(
        outcome
            .text
            .contains("GitLab sent `author` in a form this server does not read")
            && outcome
                .text
                .contains("items without a readable `iid` are left out"),
        "{}",
        outcome.text
    );
}

#[tokio::test]
async fn a_list_of_one_where_one_object_was_documented_is_that_object() {
    // GitLab's documentation shows `GET /hooks/:id` answering a one-element list.
    let outcome = answer(
        "webhook.system_get",
        json!({"hook_id": 1}),
        fixture("webhook.system_get"),
    )
    .await;
    let structured = outcome.structured.unwrap();
    assert_eq!(structured["id"], 1);
    assert!(
        outcome.text.starts_with("## System hook 1"),
        "{}",
        outcome.text
    );
    assert!(structured.get("unreadable_fields").is_none());
}

#[tokio::test]
async fn one_object_where_a_list_was_expected_is_a_list_of_one() {
    let outcome = answer(
        "issue.list",
        json!({"project_id": 101}),
        json!({"id": 11, "iid": 1, "title": "Alone", "state": "opened"}),
    )
    .await;
    assert_eq!(outcome.structured.unwrap()["issues"][0]["iid"], 1);
}

#[tokio::test]
async fn a_single_answer_with_an_odd_field_says_so() {
    let outcome = answer(
        "issue.get",
        json!({"project_id": 101, "issue_iid": 1}),
        json!({"id": 11, "iid": 1, "title": "Odd", "state": "opened",
               "created_at": {"when": "yesterday"}, "labels": [["nested"], "ok"]}),
    )
    .await;
    let structured = outcome.structured.unwrap();
    assert_eq!(structured["labels"], json!(["ok"]));
    assert_eq!(
        structured["unreadable_fields"],
        json!(["labels", "created_at"])
    );
    assert!(
        outcome
            .text
            .contains("⚠️ GitLab sent `labels`, `created_at`"),
        "{}",
        outcome.text
    );
}

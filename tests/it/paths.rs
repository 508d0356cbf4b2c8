//! Path parameters stay inside their segment: the sandbox's request log shows the exact
//! path that reached GitLab. Values that would walk the path (`..`) are refused before
//! anything is sent.

use gitlab_mcp::policy::Policy;
use serde_json::json;

use crate::support::{args, dispatcher};

async fn upstream_paths(
    action: &str,
    arguments: serde_json::Value,
) -> (Vec<String>, gitlab_mcp::dispatch::Outcome) {
    let (dispatcher, sandbox) = dispatcher(Policy::default()).await;
    let outcome = dispatcher.call(action, args(arguments), false).await;
    (
        sandbox.requests().into_iter().map(|r| r.path).collect(),
        outcome,
    )
}

#[tokio::test]
async fn slashes_in_project_and_branch_are_one_segment_each() {
    let (paths, outcome) = upstream_paths(
        "branch.get",
        json!({"project_id": "acme/platform/api", "branch_name": "feature/rate-limit"}),
    )
    .await;
    assert!(!outcome.is_error, "{}", outcome.text);
    assert_eq!(
        paths,
        ["/api/v4/projects/acme%2Fplatform%2Fapi/repository/branches/feature%2Frate-limit"]
    );
}

#[tokio::test]
async fn question_marks_and_hashes_are_encoded() {
    let (paths, outcome) = upstream_paths(
        "repository.file_get",
        json!({"project_id": "acme/platform/api", "file_path": "docs/what?#now.md", "ref": "develop"}),
    )
    .await;
    assert_eq!(
        paths,
        ["/api/v4/projects/acme%2Fplatform%2Fapi/repository/files/docs%2Fwhat%3F%23now.md"]
    );
    assert!(
        outcome.is_error && outcome.text.contains("## ❓ File Not Found"),
        "{}",
        outcome.text
    );
}

#[tokio::test]
async fn url_encoded_and_numeric_projects_reach_the_same_path() {
    let (encoded, _) = upstream_paths(
        "project.get",
        json!({"project_id": "acme%2Fplatform%2Fapi"}),
    )
    .await;
    let (plain, _) = upstream_paths("project.get", json!({"project": "acme/platform/api"})).await;
    let (numeric, outcome) = upstream_paths("project.get", json!({"project_id": "101"})).await;
    assert_eq!(encoded, plain);
    assert_eq!(numeric, ["/api/v4/projects/101"]);
    assert!(
        outcome
            .text
            .starts_with("## Project acme/platform/api: API"),
        "{}",
        outcome.text
    );
}

#[tokio::test]
async fn dot_dot_is_refused_and_nothing_is_sent() {
    for bad in ["../../etc/passwd", "src/../../secrets", "..", "."] {
        let (paths, outcome) = upstream_paths(
            "repository.file_get",
            json!({"project_id": "acme/platform/api", "file_path": bad}),
        )
        .await;
        assert!(outcome.is_error, "{bad}");
        assert!(
            outcome.text.contains("`file_path`"),
            "{bad}: {}",
            outcome.text
        );
        assert!(
            paths.is_empty(),
            "{bad}: nothing may reach GitLab, got {paths:?}"
        );
    }
    let (paths, outcome) = upstream_paths(
        "branch.delete",
        json!({"project_id": "acme/platform/api", "branch_name": "../main"}),
    )
    .await;
    assert!(outcome.is_error && paths.is_empty(), "{}", outcome.text);
}

#[tokio::test]
async fn query_values_are_encoded() {
    let (dispatcher, sandbox) = dispatcher(Policy::default()).await;
    dispatcher
        .call(
            "merge_request.list",
            args(json!({"project_id": 101, "search": "a&b=c #d", "labels": "bug,priority::high"})),
            false,
        )
        .await;
    let request = sandbox.requests().pop().unwrap();
    assert_eq!(request.path, "/api/v4/projects/101/merge_requests");
    assert!(
        request.query.contains("search=a%26b%3Dc%20%23d"),
        "{}",
        request.query
    );
    assert!(
        request.query.contains("labels=bug%2Cpriority%3A%3Ahigh"),
        "{}",
        request.query
    );
}

//! `completion/complete` for prompt arguments and resource-template parameters: search as
//! you type, values of the project already chosen, at most ten, one GitLab call per
//! request, answers kept briefly per token.

use std::collections::HashMap;

use gitlab_mcp::complete::{Completions, MAX_VALUES};
use gitlab_mcp::policy::Policy;
use gitlab_mcp::prompts::Completion;
use rmcp::model::CompletionContext;

use crate::support;

fn project(path: &str) -> Option<CompletionContext> {
    Some(CompletionContext::with_arguments(HashMap::from([(
        "project_id".to_owned(),
        path.to_owned(),
    )])))
}

#[tokio::test]
async fn prompt_arguments_complete_over_mcp() {
    let client = support::client(&[]).await;
    assert!(
        client
            .peer_info()
            .unwrap()
            .capabilities
            .completions
            .is_some()
    );
    let projects = client
        .complete_prompt_argument("review_merge_request", "project_id", "acme/pla", None)
        .await
        .unwrap();
    assert!(!projects.values.is_empty());
    assert!(projects.values.len() <= MAX_VALUES);
    for value in &projects.values {
        assert!(value.starts_with("acme/platform/"), "{:?}", projects.values);
    }
    assert!(projects.values.contains(&"acme/platform/api".to_owned()));

    let branches = client
        .complete_prompt_argument(
            "what_changed",
            "from",
            "docs/",
            project("acme/platform/api"),
        )
        .await
        .unwrap();
    assert!(branches.values.len() >= 2 && branches.values.len() <= MAX_VALUES);
    for value in &branches.values {
        assert!(value.starts_with("docs/"), "{:?}", branches.values);
    }
    assert!(branches.values.contains(&"docs/api-guide".to_owned()));

    // Without the project chosen, a project's branches cannot be offered.
    let none = client
        .complete_prompt_argument("what_changed", "from", "docs/", None)
        .await
        .unwrap();
    assert!(none.values.is_empty());

    // Merge requests with their titles; the prompt reads the number back.
    let mrs = client
        .complete_prompt_argument(
            "review_merge_request",
            "merge_request_iid",
            "rate limit",
            project("acme/platform/api"),
        )
        .await
        .unwrap();
    assert!(
        mrs.values
            .contains(&"42: Add rate limiting to the public API".to_owned()),
        "{:?}",
        mrs.values
    );
    // The completed value, title and all, is what the prompt is then given.
    let review = client
        .get_prompt(
            rmcp::model::GetPromptRequestParams::new("review_merge_request").with_arguments(
                crate::support::args(serde_json::json!({
                    "project_id": "acme/platform/api",
                    "merge_request_iid": "42: Add rate limiting to the public API",
                })),
            ),
        )
        .await
        .unwrap();
    let text = review.messages[0].content.as_text().unwrap().text.clone();
    assert!(text.contains("Review merge request !42 of"), "{text}");
    assert!(text.contains("### Merge Request !42:"), "{text}");
    let tags = client
        .complete_prompt_argument(
            "release_notes",
            "to_tag",
            "v1.",
            project("acme/platform/api"),
        )
        .await
        .unwrap();
    assert!(
        tags.values.contains(&"v1.3.0".to_owned()),
        "{:?}",
        tags.values
    );

    // A resource template's parameters complete by name, without titles in a URI.
    let iids = client
        .complete_resource_argument(
            "gitlab://project/{project_id}/mr/{merge_request_iid}",
            "merge_request_iid",
            "4",
            project("acme/platform/api"),
        )
        .await
        .unwrap();
    assert!(iids.values.contains(&"42".to_owned()), "{:?}", iids.values);
    assert!(iids.values.iter().all(|v| v.starts_with('4')));
    let actions = client
        .complete_resource_argument("gitlab://tools/{id}", "id", "merge_request.ap", None)
        .await
        .unwrap();
    assert!(
        actions.values.contains(&"merge_request.approve".to_owned()),
        "{:?}",
        actions.values
    );

    let unknown = client
        .complete_prompt_argument("review_everything", "project_id", "a", None)
        .await
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("Unknown prompt"), "{unknown}");
    client.cancel().await.unwrap();
}

/// One GitLab call per request, and none for the same request again soon after.
#[tokio::test]
async fn one_call_per_request_and_a_brief_cache() {
    let (dispatcher, sandbox) = support::dispatcher(Policy::default()).await;
    let completions = Completions::default();
    let context = HashMap::from([("project_id".to_owned(), "acme/platform/api".to_owned())]);
    let before = sandbox.requests().len();
    let first = completions
        .complete(&dispatcher, Completion::Branch, "docs/", &context, true)
        .await;
    assert_eq!(
        sandbox.requests().len(),
        before + 1,
        "{:?}",
        sandbox.requests()
    );
    let again = completions
        .complete(&dispatcher, Completion::Branch, "docs/", &context, true)
        .await;
    assert_eq!(first, again);
    assert_eq!(
        sandbox.requests().len(),
        before + 1,
        "answered from the cache"
    );
    let last = sandbox.requests().pop().unwrap();
    assert!(last.query.contains("search=docs"), "{}", last.query);
}

//! Review work on the sandbox: a draft comment is anchored like a thread (the same position
//! building, the same refusal off the diff) and waits in the caller's pending review.

use gitlab_mcp::policy::Policy;
use serde_json::json;

use crate::support::{args, dispatcher};

#[tokio::test]
async fn a_draft_on_a_line_joins_the_pending_review_with_its_position() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let created = dispatcher
        .call(
            "merge_request.draft_note_create",
            args(json!({
                "project_id": "acme/platform/api", "merge_request_iid": 42,
                "file_path": "src/api/mod.rs", "line": 38, "side": "old",
                "body": "Keep the auth layer on this route?"
            })),
            false,
        )
        .await;
    assert!(!created.is_error, "{}", created.text);
    let draft = created.structured.unwrap();
    // An unchanged line: GitLab wants both its numbers.
    assert_eq!(draft["position"]["old_line"], 38, "{draft:?}");
    assert_eq!(draft["position"]["new_line"], 41, "{draft:?}");

    let listed = dispatcher
        .call(
            "merge_request.draft_note_list",
            args(json!({"project_id": "acme/platform/api", "merge_request_iid": 42})),
            false,
        )
        .await;
    let drafts = listed.structured.unwrap()["draft_notes"].clone();
    let same = drafts
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == draft["id"])
        .expect("the new draft is listed");
    assert_eq!(same["position"], draft["position"]);
    assert_eq!(same["note"], "Keep the auth layer on this route?");
}

#[tokio::test]
async fn a_draft_off_the_diff_is_refused_with_the_lines_it_may_use() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let outcome = dispatcher
        .call(
            "merge_request.draft_note_create",
            args(json!({
                "project_id": "acme/platform/api", "merge_request_iid": 42,
                "file_path": "README.md", "line": 5, "body": "Typo here"
            })),
            false,
        )
        .await;
    assert!(outcome.is_error, "{}", outcome.text);
    assert!(
        outcome
            .text
            .contains("not part of this merge request's diff")
            && outcome.text.contains("new lines 21–41"),
        "{}",
        outcome.text
    );
}

#[tokio::test]
async fn a_draft_reply_needs_a_thread_of_the_merge_request() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let reply = |thread: &'static str| {
        args(json!({
            "project_id": "acme/platform/api", "merge_request_iid": 42,
            "discussion_id": thread, "resolve_discussion": true, "body": "Fixed."
        }))
    };
    let outcome = dispatcher
        .call(
            "merge_request.draft_note_create",
            reply("3f2b9c1d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c"),
            false,
        )
        .await;
    assert!(!outcome.is_error, "{}", outcome.text);
    let draft = outcome.structured.unwrap();
    assert_eq!(
        draft["discussion_id"],
        "3f2b9c1d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c"
    );
    assert_eq!(draft["resolve_discussion"], true);

    let outcome = dispatcher
        .call(
            "merge_request.draft_note_create",
            reply("0000000000000000000000000000000000000000"),
            false,
        )
        .await;
    assert!(outcome.is_error, "{}", outcome.text);
    assert!(
        outcome.text.contains("Thread to reply to cannot be found"),
        "{}",
        outcome.text
    );
}

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

#[tokio::test]
async fn a_thumbs_up_is_an_upvote_and_a_second_one_is_refused() {
    let (dispatcher, sandbox) = dispatcher(Policy::default()).await;
    // The issue's upvotes as GitLab reports them (the catalog's Issue does not carry them).
    let upvotes = || async {
        let text = reqwest::Client::new()
            .get(format!("{}/api/v4/projects/101/issues/12", sandbox.url()))
            .header("PRIVATE-TOKEN", gitlab_mcp::sandbox::TOKEN)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let issue: serde_json::Value = serde_json::from_str(&text).unwrap();
        issue["upvotes"].as_i64().unwrap()
    };
    let thumbs_up =
        || args(json!({"project_id": "acme/platform/api", "issue_iid": 12, "name": "thumbsup"}));
    let issue = || args(json!({"project_id": "acme/platform/api", "issue_iid": 12}));
    let before = upvotes().await;

    let added = dispatcher
        .call("issue.reaction_add", thumbs_up(), false)
        .await;
    assert!(!added.is_error, "{}", added.text);
    assert_eq!(added.structured.unwrap()["awardable_type"], "Issue");
    assert_eq!(upvotes().await, before + 1);
    let listed = dispatcher.call("issue.reaction_list", issue(), false).await;
    assert!(listed.text.contains("@alice"), "{}", listed.text);

    let again = dispatcher
        .call("issue.reaction_add", thumbs_up(), false)
        .await;
    assert!(again.is_error, "{}", again.text);
    assert!(
        again.text.contains("has already been taken") && !again.text.contains("nothing there"),
        "{}",
        again.text
    );
}

#[tokio::test]
async fn an_emoji_name_with_colons_is_refused_as_a_bad_parameter() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let outcome = dispatcher
        .call(
            "merge_request.note_reaction_add",
            args(json!({
                "project_id": "acme/platform/api", "merge_request_iid": 42,
                "note_id": 600001, "name": ":eyes:"
            })),
            false,
        )
        .await;
    assert!(outcome.is_error, "{}", outcome.text);
    assert!(
        outcome.text.contains("not a valid emoji name")
            && outcome.text.contains("Fix the parameters"),
        "{}",
        outcome.text
    );
}

#[tokio::test]
async fn a_time_estimate_reads_gitlab_durations_and_refuses_others() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let estimate = |duration: &str| {
        args(json!({"project_id": "acme/platform/api", "issue_iid": 12, "duration": duration}))
    };
    let set = dispatcher
        .call("issue.time_estimate_set", estimate("1w 2d"), false)
        .await;
    assert!(!set.is_error, "{}", set.text);
    let stats = set.structured.unwrap();
    // A week of 5 days, a day of 8 hours.
    assert_eq!(stats["time_estimate"], 7 * 8 * 3600);
    assert_eq!(stats["human_time_estimate"], "1w 2d");

    let refused = dispatcher
        .call("issue.time_estimate_set", estimate("about two days"), false)
        .await;
    assert!(refused.is_error, "{}", refused.text);
    assert!(
        refused.text.contains("must have a valid format"),
        "{}",
        refused.text
    );
}

#[tokio::test]
async fn a_raw_patch_is_cut_after_its_budget_and_counted_whole() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let raw = |lines: i64| {
        args(json!({
            "project_id": "acme/platform/api", "merge_request_iid": 42, "max_patch_lines": lines
        }))
    };
    let whole = dispatcher
        .call("merge_request.raw_diffs", raw(5000), false)
        .await;
    assert!(!whole.is_error, "{}", whole.text);
    let whole_stats = whole.structured.unwrap();
    assert_eq!(whole_stats["truncated"], false);
    assert_eq!(whole_stats["shown_files"], 3);
    // The patch is in the Markdown only, never twice.
    assert!(whole_stats.get("patch").is_none());
    assert!(
        whole
            .text
            .contains("--- /dev/null\n+++ b/src/api/rate_limit.rs")
    );

    let cut = dispatcher
        .call("merge_request.raw_diffs", raw(10), false)
        .await;
    let cut_stats = cut.structured.unwrap();
    assert_eq!(cut_stats["truncated"], true);
    assert_eq!(cut_stats["shown_lines"], 10);
    assert_eq!(cut_stats["total_lines"], whole_stats["total_lines"]);
    assert!(cut.text.contains("patch cut here"), "{}", cut.text);
}

#[tokio::test]
async fn a_diff_version_keeps_every_file_listed_and_budgets_the_patch() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let version = |extra: serde_json::Value| {
        let mut call = args(json!({
            "project_id": "acme/platform/api", "merge_request_iid": 42, "version_id": 304042
        }));
        call.extend(args(extra));
        call
    };
    let one_file = dispatcher
        .call(
            "merge_request.version_get",
            version(json!({"file_path": "src/api/mod.rs"})),
            false,
        )
        .await;
    assert!(!one_file.is_error, "{}", one_file.text);
    let detail = one_file.structured.unwrap();
    assert_eq!(detail["total_files"], 3);
    assert_eq!(detail["shown_files"], 1);
    assert!(!detail["commits"].as_array().unwrap().is_empty());

    let cut = dispatcher
        .call(
            "merge_request.version_get",
            version(json!({"max_patch_lines": 5})),
            false,
        )
        .await;
    assert_eq!(cut.structured.unwrap()["truncated"], true);

    let missing = dispatcher
        .call(
            "merge_request.version_get",
            version(json!({"version_id": 1})),
            false,
        )
        .await;
    assert!(missing.text.contains("Not Found"), "{}", missing.text);
}

#[tokio::test]
async fn a_milestone_is_given_as_people_name_it() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let milestone_of = |outcome: &gitlab_mcp::dispatch::Outcome| {
        assert!(!outcome.is_error, "{}", outcome.text);
        outcome.structured.as_ref().unwrap()["milestone"]["title"].clone()
    };
    for (given, title) in [
        ("v1.3", "v1.3"),       // the project's, by title
        ("%v1.5", "v1.5"),      // with GitLab's sigil
        ("4", "v1.4"),          // by its number (IID), not its global id
        ("Q3 2025", "Q3 2025"), // the project's group's
    ] {
        let outcome = dispatcher
            .call(
                "issue.update",
                args(
                    json!({"project_id": "acme/platform/api", "issue_iid": 17, "milestone": given}),
                ),
                false,
            )
            .await;
        assert_eq!(milestone_of(&outcome), title, "{given}");
    }
    let cleared = dispatcher
        .call(
            "merge_request.update",
            args(json!({"project_id": "acme/platform/api", "merge_request_iid": 42, "milestone": "none"})),
            false,
        )
        .await;
    assert!(!cleared.is_error, "{}", cleared.text);
    assert!(cleared.structured.unwrap().get("milestone").is_none());
    let unknown = dispatcher
        .call(
            "issue.create",
            args(json!({"project_id": "acme/platform/api", "title": "x", "milestone": "v9.9"})),
            false,
        )
        .await;
    assert!(unknown.is_error);
    assert!(
        unknown.text.contains("No milestone `v9.9`"),
        "{}",
        unknown.text
    );
    assert!(
        unknown.text.contains("`milestone.list`"),
        "{}",
        unknown.text
    );
}

#[tokio::test]
async fn time_spent_is_added_and_taken_off_but_never_below_zero() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let add = |duration: &str| {
        args(json!({"project_id": "acme/platform/api", "issue_iid": 12, "duration": duration}))
    };
    let more = dispatcher
        .call("issue.time_spent_add", add("1h30m"), false)
        .await;
    assert_eq!(
        more.structured.unwrap()["total_time_spent"],
        3 * 3600 + 5400
    );
    let less = dispatcher
        .call("issue.time_spent_add", add("-30m"), false)
        .await;
    assert!(!less.is_error, "{}", less.text);
    assert_eq!(less.structured.unwrap()["total_time_spent"], 4 * 3600);
    let refused = dispatcher
        .call("issue.time_spent_add", add("-9h"), false)
        .await;
    assert!(refused.is_error);
    assert!(
        refused.text.contains("exceeds the total time spent"),
        "{}",
        refused.text
    );
    let reset = dispatcher
        .call(
            "issue.time_spent_reset",
            args(json!({"project_id": "acme/platform/api", "issue_iid": 12, "confirm": true})),
            false,
        )
        .await;
    assert!(reset.text.contains("**Time spent**: 0s"), "{}", reset.text);
}

#[tokio::test]
async fn one_draft_is_published_and_the_others_wait() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let on_42 = json!({"project_id": "acme/platform/api", "merge_request_iid": 42});
    let drafts = |d: &gitlab_mcp::dispatch::Outcome| {
        d.structured.as_ref().unwrap()["draft_notes"]
            .as_array()
            .unwrap()
            .len()
    };
    let before = dispatcher
        .call("merge_request.draft_note_list", args(on_42.clone()), false)
        .await;
    let published = dispatcher
        .call(
            "merge_request.draft_note_publish",
            args(json!({"project_id": "acme/platform/api", "merge_request_iid": 42, "draft_note_id": 71})),
            false,
        )
        .await;
    assert!(!published.is_error, "{}", published.text);
    let after = dispatcher
        .call("merge_request.draft_note_list", args(on_42.clone()), false)
        .await;
    assert_eq!(drafts(&after), drafts(&before) - 1);
    let notes = dispatcher
        .call("merge_request.note_list", args(on_42), false)
        .await;
    assert!(notes.text.contains("RATE_LIMIT_WINDOW"), "{}", notes.text);
}

#[tokio::test]
async fn only_ones_own_reaction_is_taken_back() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let remove = |award_id: i64| {
        args(
            json!({"project_id": "acme/platform/api", "issue_iid": 12, "award_id": award_id, "confirm": true}),
        )
    };
    // 910001 is bob's thumbs up.
    let refused = dispatcher
        .call("issue.reaction_remove", remove(910001), false)
        .await;
    assert!(refused.is_error, "{}", refused.text);
    let mine = dispatcher
        .call("issue.reaction_remove", remove(910004), false)
        .await;
    assert!(!mine.is_error, "{}", mine.text);
    let listed = dispatcher
        .call(
            "issue.reaction_list",
            args(json!({"project_id": "acme/platform/api", "issue_iid": 12})),
            false,
        )
        .await;
    let reactions = listed.structured.unwrap()["reactions"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(reactions, 3);
}

/// GitLab answers 304 when a subscription is already so; the answer is the state asked for,
/// read back, not a failure.
#[tokio::test]
async fn subscribing_twice_answers_the_subscription_as_it_is() {
    let (dispatcher, _sandbox) = dispatcher(Policy::default()).await;
    let label = json!({"group_id": "acme/platform", "label_id": "team::platform"});
    for _ in 0..2 {
        let outcome = dispatcher
            .call("label.group_subscribe", args(label.clone()), false)
            .await;
        assert!(!outcome.is_error, "{}", outcome.text);
        assert_eq!(outcome.structured.unwrap()["subscribed"], true);
    }
    let issue = json!({"project_id": "acme/platform/api", "issue_iid": 12});
    for _ in 0..2 {
        let outcome = dispatcher
            .call("issue.unsubscribe", args(issue.clone()), false)
            .await;
        assert!(!outcome.is_error, "{}", outcome.text);
        assert_eq!(outcome.structured.unwrap()["subscribed"], false);
    }
}

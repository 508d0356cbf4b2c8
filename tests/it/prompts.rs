//! Workflow prompts (`prompts/*.yaml`): listed and rendered by the real binary for an rmcp
//! client, gathered through the dispatcher (so the policy holds), within their budgets.

use gitlab_mcp::policy::Policy;
use gitlab_mcp::prompts::{self, PromptDef};
use rmcp::model::GetPromptRequestParams;
use serde_json::json;

use crate::support::{self, Listener, args};

fn text_of(result: &rmcp::model::GetPromptResult) -> String {
    result
        .messages
        .iter()
        .filter_map(|m| m.content.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn prompts_are_listed_and_rendered_over_mcp() {
    let client = support::client(&[]).await;
    let listed = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|p| p.name.as_str()).collect();
    for name in [
        "review_merge_request",
        "triage_failed_pipeline",
        "my_day",
        "what_changed",
        "release_notes",
        "stale_work",
        "onboard_project",
    ] {
        assert!(names.contains(&name), "{name} not in {names:?}");
    }
    let review = listed
        .iter()
        .find(|p| p.name == "review_merge_request")
        .unwrap();
    assert_eq!(review.title.as_deref(), Some("Review a merge request"));
    let arguments = review.arguments.as_ref().unwrap();
    assert!(
        arguments
            .iter()
            .any(|a| a.name == "merge_request_iid" && a.required == Some(true))
    );

    let result = client
        .get_prompt(
            GetPromptRequestParams::new("review_merge_request").with_arguments(args(
                json!({"project_id": "acme/platform/api", "merge_request_iid": "42"}),
            )),
        )
        .await
        .unwrap();
    let text = text_of(&result);
    assert!(
        text.contains("### Merge Request !42: Add rate limiting"),
        "{text}"
    );
    assert!(text.contains("src/api/rate_limit.rs"), "the diff is there");
    assert!(text.contains("Retry-After"), "the open thread is there");
    assert!(text.len() <= prompts::find("review_merge_request").unwrap().budget);
    assert!(!text.contains("Next steps"), "the prompt says what to do");

    // A missing required argument, and an unknown prompt, are the caller's mistakes.
    let missing = client
        .get_prompt(
            GetPromptRequestParams::new("review_merge_request")
                .with_arguments(args(json!({"project_id": "acme/platform/api"}))),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(missing.contains("merge_request_iid"), "{missing}");
    let unknown = client
        .get_prompt(GetPromptRequestParams::new("review_everything"))
        .await
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("Unknown prompt"), "{unknown}");
    client.cancel().await.unwrap();
}

/// A prompt runs several reads; a client that sent a progress token (the rmcp client sends
/// one with every request) hears of each step and each item of a step, the progress only
/// growing, out of the prompt's number of steps, and the last one saying the work is done.
#[tokio::test]
async fn a_prompt_reports_its_reads_as_progress() {
    let listener = Listener::default();
    let client = support::client_as(listener.clone(), &[]).await;
    let prompt = prompts::find("triage_failed_pipeline").unwrap();
    let result = client
        .get_prompt(
            GetPromptRequestParams::new(prompt.name.clone())
                .with_arguments(args(json!({"project_id": "acme/platform/api"}))),
        )
        .await
        .unwrap();
    assert!(text_of(&result).contains("Pipeline #9012"));
    // Notifications may still be on their way when the answer is read.
    let steps = prompt.steps.len();
    let mut heard = Vec::new();
    for _ in 0..50 {
        heard = listener.heard.lock().unwrap().clone();
        if heard.last().map(|p| p.progress) == Some(steps as f64) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        heard.len() > steps,
        "a report per step and per item: {heard:?}"
    );
    for pair in heard.windows(2) {
        assert!(
            pair[1].progress > pair[0].progress,
            "progress grows: {heard:?}"
        );
    }
    assert!(
        heard.iter().all(|p| p.total == Some(steps as f64)),
        "{heard:?}"
    );
    assert_eq!(heard.last().unwrap().progress, steps as f64, "{heard:?}");
    let messages: Vec<&str> = heard.iter().filter_map(|p| p.message.as_deref()).collect();
    for step in &prompt.steps {
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with(&format!("{}: ", step.title))),
            "{} is reported: {messages:?}",
            step.title
        );
    }
    assert!(
        messages.iter().any(|m| m.contains("test:unit")),
        "an item of a step is named: {messages:?}"
    );
    client.cancel().await.unwrap();
}

/// A prompt whose first action the operator excluded is not offered; one whose later
/// action is excluded still renders, and says what it could not gather.
#[tokio::test]
async fn the_policy_holds_for_prompts() {
    let client = support::client(&[(
        "GITLAB_EXCLUDE_ACTIONS",
        "merge_request.get,merge_request.discussion_list,job.log",
    )])
    .await;
    let names: Vec<String> = client
        .list_all_prompts()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert!(
        !names.contains(&"review_merge_request".to_owned()),
        "{names:?}"
    );
    assert!(names.contains(&"triage_failed_pipeline".to_owned()));
    let text = text_of(
        &client
            .get_prompt(
                GetPromptRequestParams::new("triage_failed_pipeline")
                    .with_arguments(args(json!({"project_id": "acme/platform/api"}))),
            )
            .await
            .unwrap(),
    );
    assert!(text.contains("Pipeline #9012"), "{text}");
    assert!(text.contains("_Not available:"), "{text}");
    assert!(
        text.contains("- Logs of failed jobs (`test:unit` (stage test, job 70042)): not available"),
        "{text}"
    );
    client.cancel().await.unwrap();
}

/// Over its budget, a prompt cuts its longest sections to a common length and says so.
#[tokio::test]
async fn a_prompt_over_its_budget_is_cut_and_says_what_it_left_out() {
    let (dispatcher, _sandbox) = support::dispatcher(Policy::default()).await;
    let mut small: PromptDef = prompts::find("review_merge_request").unwrap().clone();
    small.budget = 4_000;
    let small: &'static PromptDef = Box::leak(Box::new(small));
    let rendered = prompts::render(
        &dispatcher,
        small,
        &args(json!({"project_id": "acme/platform/api", "merge_request_iid": 42})),
    )
    .await
    .unwrap();
    assert!(
        rendered.text.len() <= 4_000,
        "{} bytes:\n{}",
        rendered.text.len(),
        rendered.text
    );
    assert!(
        rendered
            .left_out
            .iter()
            .any(|line| line.starts_with("Changes: cut to ")),
        "{:?}",
        rendered.left_out
    );
    assert!(
        rendered
            .text
            .contains("**Left out** (this prompt's budget is 4000 bytes):")
    );
    // The short sections were kept whole.
    assert!(
        rendered
            .text
            .contains("| All eligible users | `any_approver` | 2 | no |")
    );
}

/// Each prompt has its snapshot among the CLI cases, rendered on the sandbox.
#[test]
fn every_prompt_has_a_snapshot() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd");
    for prompt in prompts::all() {
        let case = dir.join(format!("prompt.{}.toml", prompt.name));
        let text =
            std::fs::read_to_string(&case).unwrap_or_else(|e| panic!("{}: {e}", case.display()));
        assert!(
            text.contains(&format!("\"--sandbox\", \"prompt\", \"{}\"", prompt.name)),
            "{}",
            case.display()
        );
        let stdout = std::fs::read_to_string(case.with_extension("stdout")).unwrap();
        assert!(
            stdout.len() <= prompt.budget,
            "{}: {} bytes over a budget of {}",
            prompt.name,
            stdout.len(),
            prompt.budget
        );
    }
}

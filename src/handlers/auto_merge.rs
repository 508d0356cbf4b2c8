//! `merge_request.cancel_auto_merge`: GitLab's `cancel_merge_when_pipeline_succeeds`
//! answers 201 either way. A cancellation is `{"status": "success"}` (not the merge
//! request its page promises), and a merge request with nothing to cancel is `{"status":
//! "error", "message": "Can't cancel the automatic merge", "http_status": 406}`. The
//! refusal becomes one, and a cancellation is answered with the merge request read again.

use serde_json::Value;

use crate::call::{ActionError, Context, decode};
use crate::catalog::{Action, Plan, arg_text};
use crate::gitlab::{ErrorKind, GitlabError, Method, Request};

/// Cancels the auto-merge, then reads the merge request back.
pub async fn cancel_auto_merge(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let answer: Value = context.send(plan.request.clone()).await?.json()?;
    if let Some(refused) = refusal(&answer) {
        return Err(refused.into());
    }
    let project = arg_text(&plan.args, "project_id").unwrap_or_default();
    let iid = arg_text(&plan.args, "merge_request_iid").unwrap_or_default();
    let read = Request::new(Method::Get).at(
        "/projects/{project_id}/merge_requests/{merge_request_iid}",
        &[&project.as_str(), &iid.as_str()],
    );
    let response = context.send(read).await?;
    Ok(decode(action, &plan.args, &response)?)
}

/// The refusal GitLab's 201 carries in its body, with the status it meant.
fn refusal(answer: &Value) -> Option<GitlabError> {
    if answer["status"] != "error" {
        return None;
    }
    let message = answer["message"]
        .as_str()
        .unwrap_or("GitLab did not cancel the automatic merge");
    let mut error = GitlabError::new(ErrorKind::Conflict, message);
    error.status = answer["http_status"]
        .as_u64()
        .and_then(|status| u16::try_from(status).ok());
    Some(error)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::refusal;

    #[test]
    fn a_success_is_no_refusal() {
        assert!(refusal(&json!({"status": "success"})).is_none());
    }

    #[test]
    fn an_error_in_a_201_is_a_refusal_with_its_status() {
        let answer = json!({"message": "Can't cancel the automatic merge", "status": "error", "http_status": 406});
        let error = refusal(&answer).expect("a refusal");
        assert_eq!(error.status, Some(406));
        assert!(error.detail.contains("Can't cancel the automatic merge"));
    }
}

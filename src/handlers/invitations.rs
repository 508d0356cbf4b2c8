//! Invitations (`member.invitation_create`, `member.group_invitation_create`): GitLab
//! answers `201 {"status": "success"}`, or `201 {"status": "error", "message": {...}}` when
//! some invitees failed, the reasons keyed by address or user id (or one sentence when the
//! request failed as a whole). The manifest cannot turn an object keyed by address into a
//! list, nor say who was invited (those asked for and not refused), so it is done here.

use serde_json::{Map, Value, json};

use crate::call::{ActionError, Context};
use crate::catalog::{Action, Plan};
use crate::gitlab::prune;

/// The invitees a call named: its comma-separated `email` and `user_id` values, trimmed.
fn invitees(args: &crate::catalog::Args) -> Vec<String> {
    ["email", "user_id"]
        .iter()
        .filter_map(|name| args.get(*name))
        .flat_map(|value| match value {
            Value::String(text) => text.split(',').map(str::to_owned).collect(),
            other => vec![other.to_string()],
        })
        .map(|invitee| invitee.trim().to_owned())
        .filter(|invitee| !invitee.is_empty())
        .collect()
}

/// The result from GitLab's answer and the invitees asked for: who was invited, and each
/// failure with its reason (a message that is not keyed by invitee applies to all).
fn outcome(answer: &Value, asked: &[String]) -> Value {
    let status = answer
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("success");
    let failures: Vec<(String, String)> = match answer.get("message") {
        Some(Value::Object(by_invitee)) => by_invitee
            .iter()
            .map(|(invitee, reason)| (invitee.clone(), reason_text(reason)))
            .collect(),
        Some(Value::String(reason)) if status != "success" => asked
            .iter()
            .map(|invitee| (invitee.clone(), reason.clone()))
            .collect(),
        _ => Vec::new(),
    };
    let invited: Vec<&String> = asked
        .iter()
        .filter(|invitee| {
            !failures
                .iter()
                .any(|(failed, _)| failed.eq_ignore_ascii_case(invitee))
        })
        .collect();
    let mut result = Map::new();
    result.insert("status".into(), json!(status));
    result.insert("invited".into(), json!(invited));
    result.insert(
        "failures".into(),
        Value::Array(
            failures
                .into_iter()
                .map(|(invitee, reason)| json!({"invitee": invitee, "reason": reason}))
                .collect(),
        ),
    );
    Value::Object(result)
}

/// A reason as GitLab words it: a sentence, or a list of them.
fn reason_text(reason: &Value) -> String {
    match reason {
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(reason_text).collect::<Vec<_>>().join("; "),
        other => other.to_string(),
    }
}

/// Sends the invitation request and reads GitLab's answer into the outcome.
pub async fn invitations_sent(
    context: &Context,
    _action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let answer: Value = context.send(plan.request.clone()).await?.json()?;
    let mut result = outcome(&answer, &invitees(&plan.args));
    prune(&mut result);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::outcome;

    fn asked() -> Vec<String> {
        vec!["jane@example.com".into(), "ops@vendor.example".into()]
    }

    #[test]
    fn success_lists_everyone_asked_as_invited() {
        let result = outcome(&json!({"status": "success"}), &asked());
        assert_eq!(result["status"], "success");
        assert_eq!(
            result["invited"],
            json!(["jane@example.com", "ops@vendor.example"])
        );
        assert_eq!(result["failures"], json!([]));
    }

    #[test]
    fn a_partial_failure_keeps_the_others_invited() {
        let answer = json!({"status": "error", "message": {"Ops@vendor.example": "Invite email has already been taken"}});
        let result = outcome(&answer, &asked());
        assert_eq!(result["invited"], json!(["jane@example.com"]));
        assert_eq!(
            result["failures"],
            json!([{"invitee": "Ops@vendor.example", "reason": "Invite email has already been taken"}])
        );
    }

    #[test]
    fn one_sentence_for_the_whole_request_fails_everyone() {
        let answer = json!({"status": "error", "message": "Emails cannot be blank"});
        let result = outcome(&answer, &asked());
        assert_eq!(result["invited"], json!([]));
        assert_eq!(result["failures"][1]["reason"], "Emails cannot be blank");
    }
}

//! How a destructive call is approved: by the caller's `confirm: true`, or by the person
//! themselves when their MCP client can ask them (elicitation).
//!
//! The dispatcher decides whether a call needs approval and what to say; the server only
//! tells it how this request's client can ask (`Approval`). A client that declares the
//! elicitation capability is asked through `elicitation/create` while the call waits
//! (protocol 2025-11-25, over stdio), or gets an `input_required` result and calls again
//! with the person's answer (2026-07-28, every transport). The form holds one boolean,
//! `confirm`: accepting it with `true` runs the call; declining, dismissing the dialog or
//! answering `false` changes nothing, and the result says so.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Value, json};

/// The form field the person answers, and the key of the input request that asks it.
pub const FIELD: &str = "confirm";

/// What the person answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// They approved exactly this call.
    Approved,
    /// They said no (declined the form, or accepted it with `confirm` false).
    Declined,
    /// They dismissed the dialog without answering.
    Dismissed,
}

/// Asks the person a question and waits for the answer; `None` when the client could not
/// be asked after all (it refused the request, or the connection failed), so that the call
/// falls back to the `confirm: true` rule.
pub trait Asker: Send + Sync {
    fn ask(&self, message: String) -> Pin<Box<dyn Future<Output = Option<Answer>> + Send + '_>>;
}

/// How this request's client can have a destructive call approved.
#[derive(Clone, Default)]
pub enum Approval {
    /// Only by `confirm: true`: the client cannot ask the person.
    #[default]
    Flag,
    /// By asking the person now, while the call waits (`elicitation/create`).
    Ask(Arc<dyn Asker>),
    /// By the client asking the person and calling again with the answer (an
    /// `input_required` result).
    Defer,
    /// The person answered already: this call is the retry of an `input_required` one.
    Answered(Answer),
}

/// The person's answer in an elicitation result (`{"action": ..., "content": {...}}`).
pub fn answer_of(result: &Value) -> Answer {
    match result.get("action").and_then(Value::as_str) {
        Some("accept") => {
            let confirmed = result
                .get("content")
                .and_then(|content| content.get(FIELD))
                .and_then(Value::as_bool);
            if confirmed == Some(true) {
                Answer::Approved
            } else {
                Answer::Declined
            }
        }
        Some("decline") => Answer::Declined,
        _ => Answer::Dismissed,
    }
}

/// The `elicitation/create` params that ask the person `message`: a form with one
/// required boolean, `confirm`.
pub fn form(message: &str) -> Value {
    json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                FIELD: {
                    "type": "boolean",
                    "title": "Approve",
                    "description": "Yes runs it now; no changes nothing.",
                    "default": false,
                }
            },
            "required": [FIELD],
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_accepted_true_approves() {
        let answer = |v: Value| answer_of(&v);
        assert_eq!(
            answer(json!({"action": "accept", "content": {"confirm": true}})),
            Answer::Approved
        );
        assert_eq!(
            answer(json!({"action": "accept", "content": {"confirm": false}})),
            Answer::Declined
        );
        assert_eq!(answer(json!({"action": "accept"})), Answer::Declined);
        assert_eq!(
            answer(json!({"action": "accept", "content": {"confirm": "true"}})),
            Answer::Declined
        );
        assert_eq!(answer(json!({"action": "decline"})), Answer::Declined);
        assert_eq!(answer(json!({"action": "cancel"})), Answer::Dismissed);
        assert_eq!(answer(json!({})), Answer::Dismissed);
    }

    #[test]
    fn the_form_is_one_required_boolean() {
        let form = form("Delete it?");
        assert_eq!(form["requestedSchema"]["required"], json!(["confirm"]));
        assert_eq!(
            form["requestedSchema"]["properties"]["confirm"]["type"],
            "boolean"
        );
        let parsed: rmcp::model::ElicitRequestParams =
            serde_json::from_value(form).expect("rmcp reads the form");
        assert!(matches!(
            parsed,
            rmcp::model::ElicitRequestParams::FormElicitationParams { .. }
        ));
    }
}

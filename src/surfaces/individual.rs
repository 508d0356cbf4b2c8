//! The individual surface: one tool per action, named `gitlab_<domain>_<action>`.

use serde_json::{Map, Value, json};

use super::{Route, annotations, take_confirm};
use crate::catalog;
use crate::policy::Policy;

pub fn tools(policy: &Policy) -> Vec<Value> {
    policy
        .visible()
        .map(|action| {
            let mut input = action.input_schema();
            if policy.needs_confirmation(action)
                && let Some(properties) = input.get_mut("properties").and_then(Value::as_object_mut)
            {
                properties.insert("confirm".into(), confirm_property());
            }
            json!({
                "name": action.tool_name(),
                "title": action.title,
                "description": action.description,
                "inputSchema": input,
                "outputSchema": action.output_schema(),
                "annotations": annotations(action.safety.read_only, action.safety.destructive, action.safety.idempotent),
            })
        })
        .collect()
}

fn confirm_property() -> Value {
    json!({"type": "boolean", "description": "true only after the user approved this destructive action."})
}

pub fn route(tool: &str, mut arguments: Map<String, Value>) -> Route {
    let confirm = take_confirm(&mut arguments);
    let action = catalog::ACTIONS
        .iter()
        .find(|a| a.tool_name() == tool)
        .map(|a| a.id)
        .unwrap_or(tool);
    Route::Execute {
        action: action.to_owned(),
        args: arguments,
        confirm,
    }
}

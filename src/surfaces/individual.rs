//! The individual surface: one tool per action, named `gitlab_<domain>_<action>`.

use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::{Map, Value, json};

use super::{Route, take_confirm, tool_annotations, tool_icons};
use crate::catalog;
use crate::policy::Policy;

/// One tool per visible action. The schemas are parsed once, straight into the maps the
/// tools hold: at a thousand actions, copying them through `serde_json::Value` (as `json!`
/// and `from_value` do) was most of the first `tools/list`.
pub fn tools(policy: &Policy) -> Vec<Tool> {
    policy
        .visible()
        .map(|action| {
            let mut input = schema(action.input_schema_json);
            if policy.needs_confirmation(action)
                && let Some(properties) = input.get_mut("properties").and_then(Value::as_object_mut)
            {
                properties.insert("confirm".into(), confirm_property());
            }
            let safety = &action.safety;
            Tool::new(action.tool_name(), action.description, Arc::new(input))
                .with_title(action.title)
                .with_raw_output_schema(Arc::new(schema(action.output_schema_json)))
                .with_annotations(tool_annotations(
                    safety.read_only,
                    safety.destructive,
                    safety.idempotent,
                ))
                .with_icons(tool_icons())
        })
        .collect()
}

/// A generated schema as a JSON object (build.rs writes objects; an empty one otherwise).
fn schema(json: &str) -> Map<String, Value> {
    serde_json::from_str(json).unwrap_or_default()
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

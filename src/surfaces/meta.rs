//! The meta surface: one `gitlab_<domain>` tool per domain, called with `{action, params}`.
//!
//! A meta tool is read-only only if every action it offers is, destructive if any is, so
//! its annotations never promise more safety than its riskiest action has.

use serde_json::{Map, Value, json};

use super::individual::confirm_property;
use super::{MetaSchema, Route, annotations, params_of, take_confirm};
use crate::catalog::{self, Action};
use crate::policy::Policy;

pub fn tools(policy: &Policy, schema: MetaSchema) -> Vec<Value> {
    catalog::DOMAINS
        .iter()
        .filter_map(|domain| {
            let actions: Vec<&'static Action> = policy
                .visible()
                .filter(|a| a.domain == domain.name)
                .collect();
            if actions.is_empty() {
                return None;
            }
            let names: Vec<&str> = actions.iter().map(|a| a.name).collect();
            let read_only = actions.iter().all(|a| a.safety.read_only);
            let destructive = actions.iter().any(|a| a.safety.destructive);
            let idempotent = actions.iter().all(|a| a.safety.idempotent);
            let mut properties = Map::new();
            properties.insert("action".into(), json!({"type": "string", "enum": names}));
            properties.insert(
                "params".into(),
                params_schema(&actions, domain.name, schema),
            );
            if actions.iter().any(|a| policy.needs_confirmation(a)) {
                properties.insert("confirm".into(), confirm_property());
            }
            Some(json!({
                "name": format!("gitlab_{}", domain.name),
                "title": domain.title,
                "description": domain.description,
                "inputSchema": {
                    "type": "object",
                    "properties": properties,
                    "required": ["action"],
                    "additionalProperties": false,
                },
                "outputSchema": envelope_schema(),
                "annotations": annotations(read_only, destructive, idempotent),
            }))
        })
        .collect()
}

/// What every result has in common; each action's exact schema is in `gitlab://tools/{id}`.
pub fn envelope_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "next_steps": {"type": "array", "items": {"type": "string"}},
            "pagination": {"type": "object"},
        },
    })
}

fn params_schema(actions: &[&'static Action], domain: &str, schema: MetaSchema) -> Value {
    match schema {
        MetaSchema::Opaque => json!({
            "type": "object",
            "description": format!("The action's parameters: see resource gitlab://tools/{domain}.<action>."),
        }),
        MetaSchema::Compact => {
            let branches: Vec<Value> = actions
                .iter()
                .map(|action| {
                    let properties: Map<String, Value> = action
                        .params
                        .iter()
                        .map(|p| {
                            let ty = match p.ty.json_name() {
                                "string|integer" => json!(["string", "integer"]),
                                "string[]" | "integer[]" | "object[]" => json!("array"),
                                other => json!(other),
                            };
                            (p.name.to_owned(), json!({"type": ty}))
                        })
                        .collect();
                    let required: Vec<&str> = action.required_params().map(|p| p.name).collect();
                    json!({"title": action.name, "properties": properties, "required": required})
                })
                .collect();
            json!({"type": "object", "anyOf": branches})
        }
        MetaSchema::Full => {
            let branches: Vec<Value> = actions
                .iter()
                .map(|action| {
                    let mut input = action.input_schema();
                    if let Some(object) = input.as_object_mut() {
                        object.insert("title".into(), json!(action.name));
                    }
                    input
                })
                .collect();
            json!({"type": "object", "anyOf": branches})
        }
    }
}

pub fn route(tool: &str, mut arguments: Map<String, Value>) -> Route {
    let domain = tool.strip_prefix("gitlab_").unwrap_or(tool);
    let confirm = take_confirm(&mut arguments);
    let action = match arguments.remove("action") {
        Some(Value::String(action)) => action,
        _ => {
            let names: Vec<&str> = catalog::ACTIONS
                .iter()
                .filter(|a| a.domain == domain)
                .map(|a| a.name)
                .collect();
            return Route::Repair(format!(
                "`action` is required: one of {}.",
                names.join(", ")
            ));
        }
    };
    let params = match params_of(arguments) {
        Ok(params) => params,
        Err(message) => return Route::Repair(message),
    };
    let name = action
        .strip_prefix(&format!("{domain}."))
        .unwrap_or(&action);
    if name.contains('.') {
        return Route::Repair(format!(
            "`{action}` is not an action of `{tool}`; call the tool of its own domain, `gitlab_{}`.",
            action.split('.').next().unwrap_or_default()
        ));
    }
    Route::Execute {
        action: format!("{domain}.{name}"),
        args: params,
        confirm,
    }
}

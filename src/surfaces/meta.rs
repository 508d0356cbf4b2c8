//! The meta surface: one `gitlab_<domain>` tool per domain, called with `{action, params}`.
//!
//! A meta tool lists its domain's title and the names of the actions it offers; the rest
//! is on demand: a domain's actions with their titles in `gitlab://tools/<domain>`, an
//! action's parameters in `gitlab://tools/<domain>.<action>`, and how to confirm in the
//! server's instructions, written once. So tools/list costs about the names of the actions
//! and little more per domain (10 KB at 348 actions, under 30 KB at 1,000), and the
//! dispatcher's repair answers teach what a call got wrong.
//!
//! A meta tool is read-only only if every action it offers is, destructive if any is, so
//! its annotations never promise more safety than its riskiest action has (all four hints
//! are sent, as on every surface).

use serde_json::{Map, Value, json};

use super::{MetaSchema, Route, params_of, take_confirm};
use crate::catalog::{self, Action};
use crate::policy::Policy;

pub fn tools(policy: &Policy, schema: MetaSchema) -> Vec<Value> {
    // What the policy lets through, read once, not once per domain (each a pass over the
    // whole catalog).
    let visible: Vec<&'static Action> = policy.visible().collect();
    catalog::DOMAINS
        .iter()
        .filter_map(|domain| {
            let actions: Vec<&'static Action> = visible
                .iter()
                .copied()
                .filter(|a| a.domain == domain.name)
                .collect();
            if actions.is_empty() {
                return None;
            }
            let names: Vec<&str> = actions.iter().map(|a| a.name).collect();
            let mut tool = json!({
                "name": format!("gitlab_{}", domain.name),
                "description": domain.title,
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "action": {"enum": names},
                        "params": params_schema(&actions, schema),
                    },
                    "required": ["action"],
                },
            });
            tool["annotations"] = annotations(&actions);
            Some(tool)
        })
        .collect()
}

/// A domain's hints promise no more than its riskiest action: read-only when all its
/// actions are, destructive when any is, idempotent when all are.
fn annotations(actions: &[&'static Action]) -> Value {
    super::annotations(
        actions.iter().all(|a| a.safety.read_only),
        actions.iter().any(|a| a.safety.destructive),
        actions.iter().all(|a| a.safety.idempotent),
    )
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

fn params_schema(actions: &[&'static Action], schema: MetaSchema) -> Value {
    match schema {
        MetaSchema::Opaque => json!({"type": "object"}),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What keeps tools/list small as the catalog grows: a domain's tool costs its action
    /// names and little more, so the list grows with the catalog at this catalog's rate:
    /// 1,000 actions (in copies of these domains, as `.ci/scale-rehearsal` builds them)
    /// stay under 30,000 bytes of what a model reads (name, description, input schema).
    /// Annotations and the icon, which clients show in their own interface rather than
    /// send to the model, are a fixed cost per tool, bounded on their own.
    #[test]
    fn tools_list_stays_under_30_kb_at_1000_actions() {
        let policy = Policy::default();
        let mut tools = tools(&policy, MetaSchema::Opaque);
        let mut interface = 0;
        for tool in &mut tools {
            let object = tool.as_object_mut().unwrap();
            let annotations = object.remove("annotations").unwrap_or_default();
            interface += annotations.to_string().len() + super::super::icons().to_string().len();
        }
        let bytes = json!({"tools": tools}).to_string().len();
        let actions = policy.visible().count();
        assert!(
            bytes * 1000 / actions <= 30_000,
            "{bytes} bytes for {actions} actions"
        );
        assert!(
            interface / tools.len() <= 250,
            "{interface} bytes of annotations and icons for {} tools",
            tools.len()
        );
    }
}

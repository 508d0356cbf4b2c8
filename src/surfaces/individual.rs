//! The individual surface: one tool per action, named `gitlab_<domain>_<action>`.

use std::sync::{Arc, OnceLock};

// foldhash, not SipHash: the keys are every schema's whole text, a megabyte and more.
use hashbrown::HashMap;

use rmcp::model::Tool;
use serde_json::{Map, Value, json};

use super::{Route, take_confirm, tool_annotations, tool_icons};
use crate::catalog;
use crate::policy::Policy;

/// One tool per visible action, holding the catalog's parsed schemas (`schemas`).
pub fn tools(policy: &Policy) -> Vec<Tool> {
    let schemas = schemas();
    catalog::ACTIONS
        .iter()
        .zip(schemas)
        .filter(|(action, _)| policy.allows(action))
        .map(|(action, parsed)| {
            let input = match &parsed.confirmed_input {
                Some(confirmed) if policy.needs_confirmation(action) => confirmed,
                _ => &parsed.input,
            };
            let safety = &action.safety;
            Tool::new(action.tool_name(), action.description, input.clone())
                .with_title(action.title)
                .with_raw_output_schema(parsed.output.clone())
                .with_annotations(tool_annotations(
                    safety.read_only,
                    safety.destructive,
                    safety.idempotent,
                ))
                .with_icons(tool_icons())
        })
        .collect()
}

/// Parses every action's schemas now, so that the first `tools/list` finds them ready.
pub fn warm() {
    schemas();
}

/// An action's schemas as the maps its tool holds.
struct ParsedSchemas {
    input: Arc<Map<String, Value>>,
    /// With `confirm`, for a destructive action.
    confirmed_input: Option<Arc<Map<String, Value>>>,
    output: Arc<Map<String, Value>>,
}

/// Every action's schemas, in catalog order, parsed once per process: every view (one per
/// token over HTTP) lists the same maps, and actions whose schemas are the same text share
/// one (the 906 tools of a regular user have 308 distinct output schemas and 705 input
/// schemas). Parsed straight into maps: copying them through `serde_json::Value` (as
/// `json!` and `from_value` do) was most of the first `tools/list` at a thousand actions.
fn schemas() -> &'static [ParsedSchemas] {
    static SCHEMAS: OnceLock<Vec<ParsedSchemas>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        // Each distinct text (with or without `confirm`) once, numbered in order of use.
        let mut numbers: HashMap<(&'static str, bool), usize> = HashMap::new();
        let mut texts: Vec<(&'static str, bool)> = Vec::new();
        let mut number = |json: &'static str, confirm: bool| {
            *numbers.entry((json, confirm)).or_insert_with(|| {
                texts.push((json, confirm));
                texts.len() - 1
            })
        };
        let slots: Vec<(usize, Option<usize>, usize)> = catalog::ACTIONS
            .iter()
            .map(|action| {
                let input = number(action.input_schema_json, false);
                let confirmed =
                    (action.safety.destructive).then(|| number(action.input_schema_json, true));
                (input, confirmed, number(action.output_schema_json, false))
            })
            .collect();
        let parsed = parse_in_two(&texts);
        slots
            .into_iter()
            .map(|(input, confirmed, output)| ParsedSchemas {
                input: parsed[input].clone(),
                confirmed_input: confirmed.map(|confirmed| parsed[confirmed].clone()),
                output: parsed[output].clone(),
            })
            .collect()
    })
}

/// Parses the schemas in two halves of about the same size, the second on a thread of its
/// own: at a thousand actions (1.6 MB of schemas) parsing took 8 ms on one core, most of
/// what the first `tools/list` waited for after `initialize`.
fn parse_in_two(texts: &[(&'static str, bool)]) -> Vec<Arc<Map<String, Value>>> {
    let parse = |part: &[(&'static str, bool)]| -> Vec<Arc<Map<String, Value>>> {
        part.iter()
            .map(|(json, confirm)| Arc::new(schema(json, *confirm)))
            .collect()
    };
    let total: usize = texts.iter().map(|(json, _)| json.len()).sum();
    let mut bytes = 0;
    let middle = texts
        .iter()
        .position(|(json, _)| {
            bytes += json.len();
            bytes * 2 >= total
        })
        .map_or(texts.len(), |at| at + 1);
    let (first, second) = texts.split_at(middle);
    std::thread::scope(|scope| {
        // Where no thread can be had (a process limit), both halves are parsed here.
        let second = std::thread::Builder::new()
            .name("schemas".into())
            .spawn_scoped(scope, || parse(second))
            .map_err(|_| second);
        let mut parsed = parse(first);
        match second {
            Ok(thread) => match thread.join() {
                Ok(rest) => parsed.extend(rest),
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(second) => parsed.extend(parse(second)),
        }
        parsed
    })
}

/// A generated schema as a JSON object (build.rs writes objects; an empty one otherwise),
/// with the `confirm` property when asked.
fn schema(json: &str, confirm: bool) -> Map<String, Value> {
    let mut schema: Map<String, Value> = serde_json::from_str(json).unwrap_or_default();
    if confirm && let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut)
    {
        properties.insert("confirm".into(), confirm_property());
    }
    schema
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

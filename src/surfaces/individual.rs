//! The individual surface: one tool per action, named `gitlab_<domain>_<action>`.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

// foldhash, not SipHash: the keys are every schema's whole text, a megabyte and more.
use hashbrown::HashMap;

use rmcp::model::Tool;
use serde_json::{Map, Value};

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

/// The same tools as JSON text, byte for byte what serializing `tools` gives, joined from
/// each action's tool text (`tool_texts`): nothing is parsed. The stdio wire sends it as
/// the `tools` of a `tools/list` (a thousand tools are 1.4 MB, which took 8 ms to parse
/// and 4 ms to write back out through rmcp's `Tool`).
pub fn listing(policy: &Policy) -> String {
    let texts = tool_texts();
    let chosen: Vec<&str> = catalog::ACTIONS
        .iter()
        .zip(&texts.spans)
        .filter(|(action, _)| policy.allows(action))
        .map(|(action, (plain, confirmed))| match confirmed {
            Some(confirmed) if policy.needs_confirmation(action) => &texts.text[confirmed.clone()],
            _ => &texts.text[plain.clone()],
        })
        .collect();
    let mut out = String::with_capacity(chosen.iter().map(|t| t.len() + 1).sum::<usize>() + 2);
    out.push('[');
    for (index, text) in chosen.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(text);
    }
    out.push(']');
    out
}

/// Writes every action's tool text now, so that the first `tools/list` only joins them.
pub fn warm_listing() {
    tool_texts();
}

/// Every action's tool as JSON text, in one string: as `tools` writes it, and for a
/// destructive action also with `confirm` (which the policy decides per view).
struct ToolTexts {
    text: String,
    /// Per action, in catalog order: where its text is, and its text with `confirm`.
    spans: Vec<(Range<usize>, Option<Range<usize>>)>,
}

fn tool_texts() -> &'static ToolTexts {
    static TEXTS: OnceLock<ToolTexts> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let icons = serde_json::to_string(&tool_icons()).unwrap_or_default();
        // Room for every text at once: growing a megabyte string copies it again.
        let room: usize = catalog::ACTIONS
            .iter()
            .map(|action| {
                let fixed = action.title.len() + action.description.len() * 2 + 400;
                let confirmed = action.confirmed_input_schema_json.len();
                let output = action.output_schema_json.len() + fixed;
                action.input_schema_json.len()
                    + output
                    + confirmed
                    + (confirmed > 0) as usize * output
            })
            .sum();
        let mut text = String::with_capacity(room);
        let mut write = |action: &catalog::Action, input: &'static str| {
            let start = text.len();
            let safety = &action.safety;
            let annotations =
                tool_annotations(safety.read_only, safety.destructive, safety.idempotent);
            // Fields in the order `Tool` serializes them.
            let fields: [(&str, &str); 7] = [
                ("name", &json_text(&action.tool_name())),
                ("title", &json_text(action.title)),
                ("description", &json_text(action.description)),
                ("inputSchema", object_text(input)),
                ("outputSchema", object_text(action.output_schema_json)),
                (
                    "annotations",
                    &serde_json::to_string(&annotations).unwrap_or_default(),
                ),
                ("icons", &icons),
            ];
            text.push('{');
            for (index, (key, value)) in fields.iter().enumerate() {
                if index > 0 {
                    text.push(',');
                }
                text.push('"');
                text.push_str(key);
                text.push_str("\":");
                text.push_str(value);
            }
            text.push('}');
            start..text.len()
        };
        let spans = catalog::ACTIONS
            .iter()
            .map(|action| {
                let plain = write(action, action.input_schema_json);
                let confirmed = (action.safety.destructive)
                    .then(|| write(action, action.confirmed_input_schema_json));
                (plain, confirmed)
            })
            .collect();
        ToolTexts { text, spans }
    })
}

fn json_text(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// A generated schema's text as its tool sends it: build.rs writes compact JSON objects
/// with sorted keys, which is what parsing and writing them again gives.
fn object_text(json: &'static str) -> &'static str {
    if json.starts_with('{') { json } else { "{}" }
}

/// Parses every action's schemas now, so that the first `tools/list` over HTTP (whose
/// transport sends rmcp's `Tool`s, not `listing`) finds them ready.
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
        // Each distinct text once, numbered in order of use.
        let mut numbers: HashMap<&'static str, usize> = HashMap::new();
        let mut texts: Vec<&'static str> = Vec::new();
        let mut number = |json: &'static str| {
            *numbers.entry(json).or_insert_with(|| {
                texts.push(json);
                texts.len() - 1
            })
        };
        let slots: Vec<(usize, Option<usize>, usize)> = catalog::ACTIONS
            .iter()
            .map(|action| {
                let input = number(action.input_schema_json);
                let confirmed =
                    (action.safety.destructive).then(|| number(action.confirmed_input_schema_json));
                (input, confirmed, number(action.output_schema_json))
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
/// what the first `tools/list` waited for after `initialize` (over stdio it no longer does:
/// `listing`).
fn parse_in_two(texts: &[&'static str]) -> Vec<Arc<Map<String, Value>>> {
    let parse = |part: &[&'static str]| -> Vec<Arc<Map<String, Value>>> {
        part.iter().map(|json| Arc::new(schema(json))).collect()
    };
    let total: usize = texts.iter().map(|json| json.len()).sum();
    let mut bytes = 0;
    let middle = texts
        .iter()
        .position(|json| {
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

/// A generated schema as a JSON object (build.rs writes objects; an empty one otherwise).
fn schema(json: &str) -> Map<String, Value> {
    serde_json::from_str(json).unwrap_or_default()
}

pub fn route(tool: &str, mut arguments: Map<String, Value>) -> Route {
    let confirm = take_confirm(&mut arguments);
    let action = catalog::ACTIONS
        .iter()
        .find(|a| is_named(a, tool))
        .map(|a| a.id)
        .unwrap_or(tool);
    Route::Execute {
        action: action.to_owned(),
        args: arguments,
        confirm,
    }
}

/// The visible action whose tool has this name.
pub fn action_named(policy: &Policy, tool: &str) -> Option<&'static catalog::Action> {
    catalog::ACTIONS
        .iter()
        .find(|action| is_named(action, tool))
        .filter(|action| policy.allows(action))
}

/// Whether `tool` is `gitlab_<domain>_<action>` (`Action::tool_name`), without writing it.
fn is_named(action: &catalog::Action, tool: &str) -> bool {
    tool.strip_prefix("gitlab_")
        .and_then(|rest| rest.strip_prefix(action.domain))
        .and_then(|rest| rest.strip_prefix('_'))
        == Some(action.name)
}

//! The dynamic surface: `gitlab_find_action` ranks the catalog and returns exact input
//! schemas; `gitlab_execute_action` runs one action by id through the dispatcher.
//!
//! A find answer is itself context the model pays for: the leading hits carry their full
//! input schema and an executable example, the rest only id, title and required params,
//! and nothing is said in both the Markdown and the structure.

use serde_json::{Map, Value, json};

use super::{Route, annotations, params_of, take_confirm};
use crate::catalog::Action;
use crate::catalog::ContentKind;
use crate::dispatch::Outcome;
use crate::output::{Markdown, cell};
use crate::policy::Policy;
use crate::search::{DEFAULT_LIMIT, FindRequest, Found, Hit, Index, MAX_LIMIT};

pub const FIND_TOOL: &str = "gitlab_find_action";
pub const EXECUTE_TOOL: &str = "gitlab_execute_action";

/// At most this many leading hits carry their input schema and example: the top hit and
/// those within `DETAILED_SHARE` percent of its score (too close to call).
const DETAILED_HITS: usize = 3;
const DETAILED_SHARE: i64 = 95;
/// Hits under this share (percent) of the top score are left out of an answer.
const RELEVANT_SHARE: i64 = 60;

const EXAMPLE_QUERIES: &str = "\"list open merge requests\", \"why did the latest pipeline fail\", \"read a file\", \"create an issue\"";

pub fn tools(policy: &Policy) -> Vec<Value> {
    // The two tools do not depend on the instance: they are described by the operator's
    // policy, so that `tools/list` never waits for fitting and never changes after it.
    let policy = policy.unfitted();
    let visible: Vec<_> = policy.visible().collect();
    let read_only = visible.iter().all(|a| a.safety.read_only);
    let destructive = visible.iter().any(|a| a.safety.destructive);
    vec![
        json!({
            "name": FIND_TOOL,
            "title": "Find a GitLab action",
            "description": format!(
                "Search {} GitLab actions (projects, merge requests, issues, pipelines, jobs, files, branches, users) in plain words. Returns action ids with their input schema and an example for {EXECUTE_TOOL}. Call this first.",
                visible.len()
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What you want to do, such as \"list open merge requests\"."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
                    "explain": {"type": "boolean", "description": "Add scoring reasons."},
                },
                "required": ["query"],
                "additionalProperties": false,
            },
            "outputSchema": find_schema(),
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
        }),
        json!({
            "name": EXECUTE_TOOL,
            "title": "Run a GitLab action",
            "description": format!("Run one action by id (from {FIND_TOOL}) with its params. Destructive actions need confirm: true, after the user approves."),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "action": {"type": "string", "description": "Action id, such as merge_request.list."},
                    "params": {"type": "object", "description": "The action's parameters, as its input schema says."},
                    "confirm": {"type": "boolean", "description": "true only after the user approved a destructive action."},
                },
                "required": ["action"],
                "additionalProperties": false,
            },
            "outputSchema": super::meta::envelope_schema(),
            "annotations": annotations(read_only, destructive, false),
        }),
    ]
}

fn find_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "results": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "tool": {"type": "string", "description": "The tool that runs it."},
                        "input_schema": {"type": "object", "description": "The leading hits only: the exact schema of `params`, without the prose (gitlab://tools/{id} has it)."},
                        "example": {"type": "object", "description": "The leading hits only."},
                        "score": {"type": "integer"},
                        "reasons": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["id", "tool"],
                },
            },
            "ambiguous": {"type": "array", "items": {"type": "string"}},
            "suggestions": {"type": "array", "items": {"type": "string"}},
            "missing": {"type": "string", "description": "What the catalog lacks for this request."},
        },
        "required": ["results"],
    })
}

pub fn route(tool: &str, mut arguments: Map<String, Value>) -> Route {
    if tool == FIND_TOOL {
        return find_route(arguments);
    }
    let confirm = take_confirm(&mut arguments);
    let action = match arguments.remove("action") {
        Some(Value::String(action)) if !action.trim().is_empty() => action,
        _ => {
            return Route::Repair(format!(
                "`action` is required: an action id such as `merge_request.list`. Search with `{FIND_TOOL}` (for example {EXAMPLE_QUERIES})."
            ));
        }
    };
    let params = match params_of(arguments) {
        Ok(params) => params,
        Err(message) => return Route::Repair(message),
    };
    Route::Execute {
        action,
        args: params,
        confirm,
    }
}

fn find_route(mut arguments: Map<String, Value>) -> Route {
    let query = match arguments.remove("query") {
        Some(Value::String(query)) if !query.trim().is_empty() => query,
        _ => {
            return Route::Repair(format!(
                "`query` is required: describe the task in a few words, such as {EXAMPLE_QUERIES}. Name the resource (merge request, pipeline, issue, file, branch), the verb and any filter."
            ));
        }
    };
    let limit = match arguments.remove("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(value) => match value
            .as_u64()
            .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
        {
            Some(limit) if limit >= 1 => (limit as usize).min(MAX_LIMIT),
            _ => {
                return Route::Repair(format!("`limit` must be an integer from 1 to {MAX_LIMIT}."));
            }
        },
    };
    let explain = matches!(arguments.remove("explain"), Some(Value::Bool(true)));
    if let Some(key) = arguments.keys().next() {
        return Route::Repair(format!(
            "`{key}` is not a parameter of `{FIND_TOOL}`; it takes `query`, `limit` and `explain`."
        ));
    }
    Route::Find(FindRequest {
        query,
        limit,
        explain,
    })
}

/// Runs a search and formats it. The Markdown is the ranking a model reads: one compact
/// entry per hit (id, title, required params). The structure carries what it takes to call
/// them: each hit's id and tool, and the leading hits' input schema and example. Neither
/// repeats the other.
pub fn find(index: &Index, request: &FindRequest) -> Outcome {
    let found = index.find(request);
    let Found {
        hits,
        ambiguous,
        suggestions,
        missing,
    } = &found;
    let top = hits.first().map_or(0, |h| h.score);
    // Hits far below the best are noise a model would still pay for.
    let hits: Vec<&Hit> = hits
        .iter()
        .filter(|h| request.explain || h.score * 100 >= top * RELEVANT_SHARE)
        .collect();
    let detailed = hits
        .iter()
        .take(DETAILED_HITS)
        .take_while(|h| h.score * 100 >= top * DETAILED_SHARE)
        .count();

    let results: Vec<Value> = hits
        .iter()
        .enumerate()
        .map(|(rank, hit)| {
            let action = hit.action;
            let mut entry = json!({"id": action.id, "tool": EXECUTE_TOOL});
            if rank < detailed {
                entry["input_schema"] = validation_schema(action);
                entry["example"] = json!({"tool": EXECUTE_TOOL, "arguments": example(action)});
            }
            if request.explain {
                entry["score"] = json!(hit.score);
                entry["reasons"] = json!(hit.reasons);
            }
            entry
        })
        .collect();

    let mut markdown = Markdown::new();
    let mut table = markdown.table(
        &format!("Actions for \"{}\"", request.query.trim()),
        hits.len(),
        &["Action", "Title", "Required params"],
    );
    for hit in &hits {
        let required: Vec<String> = hit
            .action
            .required_params()
            .map(|p| p.name.to_owned())
            .collect();
        let title = if hit.action.safety.destructive {
            format!("{} (destructive: needs confirm)", hit.action.title)
        } else {
            hit.action.title.to_owned()
        };
        table.row([
            cell::code(Some(hit.action.id)),
            cell::text(Some(&title)),
            cell::list(&required),
        ]);
    }
    table.finish(None);
    if !ambiguous.is_empty() {
        markdown.note(&format!(
            "Several actions fit equally well: {}. Pick the one that matches the task, or search with more specific words.",
            ambiguous.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    if let Some(missing) = missing {
        markdown.note(missing);
    }
    if hits.is_empty() && missing.is_none() {
        markdown.note(&format!(
            "Nothing matched. Try words such as {}, or name the resource and the verb, such as {EXAMPLE_QUERIES}.",
            suggestions.join(", ")
        ));
    }

    let mut structured = Map::new();
    structured.insert("results".into(), Value::Array(results));
    if !ambiguous.is_empty() {
        structured.insert("ambiguous".into(), json!(ambiguous));
    }
    if !suggestions.is_empty() {
        structured.insert("suggestions".into(), json!(suggestions));
    }
    if let Some(missing) = missing {
        structured.insert("missing".into(), json!(missing));
    }
    Outcome {
        text: markdown.into_string(),
        structured: Some(structured),
        is_error: false,
        kind: Some(ContentKind::List),
        resource: None,
        question: None,
    }
}

/// The arguments of `gitlab_execute_action` that run an action's example.
fn example(action: &Action) -> Value {
    let mut example = json!({"action": action.id, "params": action.example_args()});
    if action.safety.destructive {
        example["confirm"] = json!(true);
    }
    example
}

/// An action's exact input schema as validation reads it: types, enums, bounds, defaults,
/// required parameters, no unknown ones. The prose descriptions of the parameters are left
/// to `gitlab://tools/{id}`: in a find answer they would cost more than the rest together.
fn validation_schema(action: &Action) -> Value {
    let mut schema = action.input_schema();
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        for property in properties.values_mut() {
            if let Some(property) = property.as_object_mut() {
                property.remove("description");
            }
        }
    }
    schema
}

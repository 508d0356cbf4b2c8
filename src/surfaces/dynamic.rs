//! The dynamic surface: `gitlab_find_action` ranks the catalog and returns exact input
//! schemas; `gitlab_execute_action` runs one action by id through the dispatcher.
//!
//! A find answer is itself context the model pays for: the leading hits carry their full
//! input schema and an executable example, the rest only id, title and required params.

use serde_json::{Map, Value, json};

use super::{Route, annotations, params_of, take_confirm};
use crate::catalog::ContentKind;
use crate::dispatch::Outcome;
use crate::output::{Markdown, cell};
use crate::policy::Policy;
use crate::search::{DEFAULT_LIMIT, FindRequest, Found, Index, MAX_LIMIT};

pub const FIND_TOOL: &str = "gitlab_find_action";
pub const EXECUTE_TOOL: &str = "gitlab_execute_action";

/// Hits that carry their full input schema and example.
const DETAILED_HITS: usize = 3;

const EXAMPLE_QUERIES: &str = "\"list open merge requests\", \"why did the latest pipeline fail\", \"read a file\", \"create an issue\"";

pub fn tools(policy: &Policy) -> Vec<Value> {
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
            "annotations": {"readOnlyHint": true, "openWorldHint": false},
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
            "query": {"type": "string"},
            "count": {"type": "integer"},
            "results": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "title": {"type": "string"},
                        "tool": {"type": "string"},
                        "domain": {"type": "string"},
                        "action": {"type": "string"},
                        "schema_uri": {"type": "string"},
                        "destructive": {"type": "boolean"},
                        "required_params": {"type": "array", "items": {"type": "string"}},
                        "input_schema": {"type": "object"},
                        "example": {"type": "object"},
                        "score": {"type": "integer"},
                        "reasons": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["id", "title", "tool", "domain", "action", "schema_uri", "destructive", "required_params", "score"],
                },
            },
            "ambiguous": {"type": "array", "items": {"type": "string"}},
            "suggestions": {"type": "array", "items": {"type": "string"}},
            "next_steps": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["query", "count", "results"],
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

/// Runs a search and formats it: a compact Markdown table, the schemas in the structure.
pub fn find(index: &Index, request: &FindRequest) -> Outcome {
    let found = index.find(request);
    let Found {
        hits,
        ambiguous,
        suggestions,
    } = &found;

    let results: Vec<Value> = hits
        .iter()
        .enumerate()
        .map(|(rank, hit)| {
            let action = hit.action;
            let required: Vec<&str> = action.required_params().map(|p| p.name).collect();
            let mut entry = json!({
                "id": action.id,
                "title": action.title,
                "destructive": action.safety.destructive,
                "required_params": required,
                "score": hit.score,
            });
            entry["tool"] = json!(format!("gitlab_{}", action.domain));
            entry["domain"] = json!(action.domain);
            entry["action"] = json!(action.name);
            entry["schema_uri"] = json!(format!("gitlab://tools/{}", action.id));
            // The leading hits carry their exact schema and an example; the rest point at
            // `schema_uri`, so a default search stays a few KB.
            if rank < DETAILED_HITS {
                let mut example = json!({"action": action.id, "params": action.example_args()});
                if action.safety.destructive {
                    example["confirm"] = json!(true);
                }
                entry["input_schema"] = action.input_schema();
                entry["example"] = json!({"tool": EXECUTE_TOOL, "arguments": example});
            }
            if !hit.reasons.is_empty() {
                entry["reasons"] = json!(hit.reasons);
            }
            entry
        })
        .collect();

    let mut markdown = Markdown::new();
    let mut table = markdown.table(
        &format!("Actions for \"{}\"", request.query.trim()),
        hits.len(),
        &["Action", "Title", "Required params", "Destructive", "Score"],
    );
    for hit in hits {
        let required: Vec<String> = hit
            .action
            .required_params()
            .map(|p| p.name.to_owned())
            .collect();
        table.row([
            cell::code(Some(hit.action.id)),
            cell::text(Some(hit.action.title)),
            cell::list(&required),
            cell::boolean(Some(hit.action.safety.destructive)),
            cell::integer(Some(hit.score)),
        ]);
    }
    table.finish(None);
    for hit in hits.iter().take(DETAILED_HITS) {
        let params: Vec<String> = hit
            .action
            .params
            .iter()
            .map(|p| {
                let mut text = p.name.to_owned();
                if p.required {
                    text.push_str(" (required)");
                } else if !p.values.is_empty() && p.values.len() <= 6 {
                    text.push_str(&format!(" ({})", p.values.join("/")));
                }
                text
            })
            .collect();
        let mut example = json!({"action": hit.action.id, "params": hit.action.example_args()});
        if hit.action.safety.destructive {
            example["confirm"] = json!(true);
        }
        markdown.note(&format!(
            "`{}` params: {}",
            hit.action.id,
            params.join(", ")
        ));
        markdown.code_block("json", &crate::output::json::to_text(&example));
    }
    let mut steps = Vec::new();
    if let Some(first) = hits.first() {
        steps.push(format!(
            "Run one with `{EXECUTE_TOOL}`, for example `{}`",
            first.action.id
        ));
    }
    if !ambiguous.is_empty() {
        markdown.note(&format!(
            "Several actions fit equally well: {}. Pick the one that matches the task, or search with more specific words.",
            ambiguous.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    if hits.is_empty() {
        markdown.note(&format!(
            "Nothing matched. Try words such as {}.",
            suggestions.join(", ")
        ));
        steps.push(format!(
            "Search again naming the resource and the verb, such as {EXAMPLE_QUERIES}"
        ));
    }
    markdown.next_steps(&steps);

    let mut structured = Map::new();
    structured.insert("query".into(), json!(request.query));
    structured.insert("count".into(), json!(results.len()));
    structured.insert("results".into(), Value::Array(results));
    if !ambiguous.is_empty() {
        structured.insert("ambiguous".into(), json!(ambiguous));
    }
    if !suggestions.is_empty() {
        structured.insert("suggestions".into(), json!(suggestions));
    }
    if !steps.is_empty() {
        structured.insert("next_steps".into(), json!(steps));
    }
    Outcome {
        text: markdown.into_string(),
        structured: Some(structured),
        is_error: false,
        kind: Some(ContentKind::List),
        resource: None,
    }
}

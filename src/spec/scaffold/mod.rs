//! `gitlab-mcp scaffold --spec <openapi.yaml> "<METHOD /path>"`: drafts an action's YAML from
//! one operation of GitLab's spec, for a maintainer to edit.
//!
//! The draft names path parameters as the catalog does (`{id}` under `/projects` is
//! `project_id`), inherits the parameters `actions/shared.yaml` defines, turns `page` and
//! `per_page` into `pagination: offset`, reads body parameters from the operation's body
//! definition, and guesses the id, output and safety from the method and path. Titles,
//! descriptions, hints and the output's entity type are the maintainer's to finish.

use std::fmt::Write as _;

use serde_json::Value;

use super::{Operation, Parameter, Spec, shape, spec_shapes};

/// The shared parameter definitions every action may inherit by name.
const SHARED: &str = include_str!("../../actions/shared.yaml");

/// The YAML draft of the operation `request` names (`GET /projects/:id/merge_requests`).
pub fn scaffold(spec: &Spec, request: &str) -> anyhow::Result<String> {
    let (method, path) = request.trim().split_once(' ').ok_or_else(|| {
        anyhow::anyhow!("expected \"METHOD /path\", such as \"GET /projects/:id/merge_requests\"")
    })?;
    let method = method.trim().to_uppercase();
    let wanted = shape(path.trim());
    let operations = spec.operations();
    let Some(operation) = operations
        .iter()
        .find(|op| op.method == method && spec_shapes(&op.path).contains(&wanted))
    else {
        let mut closest: Vec<(usize, String)> = operations
            .iter()
            .filter(|op| op.method == method)
            .map(|op| {
                let distance = crate::text::edit_distance(&shape(&op.path), &wanted);
                (distance, format!("{} {}", op.method, op.path))
            })
            .collect();
        closest.sort();
        let suggestions: Vec<String> = closest.into_iter().take(3).map(|(_, op)| op).collect();
        anyhow::bail!(
            "the spec has no {method} {}; the closest are: {}",
            path.trim(),
            suggestions.join(", ")
        );
    };
    Ok(draft(spec, operation))
}

/// A parameter of the draft.
struct DraftParam {
    /// Our name: GitLab's, except for path parameters (`id` under `projects` is `project_id`).
    name: String,
    /// `path`, `query` or `body`.
    location: &'static str,
    source: Parameter,
}

fn draft(spec: &Spec, operation: &Operation) -> String {
    let shared = shared_params();
    let segments: Vec<&str> = operation
        .path
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let mut path = String::new();
    let mut params: Vec<DraftParam> = Vec::new();
    for (index, segment) in segments.iter().enumerate() {
        let placeholder = segment
            .strip_prefix('{')
            .and_then(|s| s.strip_suffix('}'))
            .or_else(|| segment.strip_prefix('*'));
        let Some(gitlab_name) = placeholder else {
            path.push('/');
            path.push_str(segment.trim_start_matches('(').trim_end_matches(')'));
            continue;
        };
        let ours = our_path_name(gitlab_name, index.checked_sub(1).map(|i| segments[i]));
        path.push_str(&format!("/{{{ours}}}"));
        let source = operation
            .parameters
            .iter()
            .find(|p| p.location == "path" && p.name == gitlab_name)
            .cloned()
            .unwrap_or_default();
        params.push(DraftParam {
            name: ours,
            location: "path",
            source,
        });
    }
    let mut paginated = false;
    for parameter in &operation.parameters {
        match parameter.location.as_str() {
            "query" | "formData" if matches!(parameter.name.as_str(), "page" | "per_page") => {
                paginated = true;
            }
            "query" | "formData" => params.push(DraftParam {
                name: parameter.name.clone(),
                location: if parameter.location == "query" {
                    "query"
                } else {
                    "body"
                },
                source: parameter.clone(),
            }),
            "body" => {
                let Some((_, definition)) = parameter
                    .schema
                    .as_ref()
                    .and_then(|schema| spec.definition(schema))
                else {
                    continue;
                };
                for (name, property) in &definition.properties {
                    let mut source = property.clone();
                    source.required = definition.required.contains(name);
                    params.push(DraftParam {
                        name: name.clone(),
                        location: "body",
                        source,
                    });
                }
            }
            _ => {}
        }
    }

    let (domain, action) = suggested_id(operation, &segments);
    let collection = segments
        .iter()
        .rev()
        .find(|s| !s.starts_with('{') && !s.starts_with('*'))
        .map(|s| s.replace('-', "_"))
        .unwrap_or_else(|| "items".to_owned());
    let entity = response_entity(spec, operation);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Drafted from GitLab's spec ({}); in actions/{domain}.yaml, under `actions:`.",
        operation.operation_id
    );
    let _ = writeln!(out, "  {action}:");
    let summary = if operation.summary.trim().is_empty() {
        &operation.description
    } else {
        &operation.summary
    };
    let _ = writeln!(out, "    title: {}", yaml_text(&title(summary)));
    let _ = writeln!(out, "    description: >");
    let description = match (operation.summary.trim(), operation.description.trim()) {
        (summary, "") => summary.to_owned(),
        (summary, description) if description.starts_with(summary) => description.to_owned(),
        (summary, description) => format!("{summary}. {description}"),
    };
    for line in wrap(&description, 84) {
        let _ = writeln!(out, "      {line}");
    }
    let _ = writeln!(out, "    method: {}", operation.method);
    let _ = writeln!(out, "    path: {path}");
    if paginated {
        let _ = writeln!(out, "    pagination: offset");
    }
    if !params.is_empty() {
        let _ = writeln!(out, "    params:");
    }
    for param in &params {
        if shared.contains(&param.name) {
            let _ = writeln!(out, "      {}: {{}}", param.name);
            continue;
        }
        let _ = writeln!(out, "      {}:", param.name);
        let _ = writeln!(out, "        type: {}", our_type(&param.source));
        if param.source.required && param.location != "path" {
            let _ = writeln!(out, "        required: true");
        }
        if param.location == "body" && operation.method == "GET" {
            let _ = writeln!(out, "        in: body");
        }
        let values: Vec<String> = param
            .source
            .values
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| v.to_string())
            })
            .collect();
        if !values.is_empty() {
            let _ = writeln!(out, "        enum: [{}]", values.join(", "));
        }
        for (key, value) in [
            ("default", &param.source.default),
            ("minimum", &param.source.minimum),
            ("maximum", &param.source.maximum),
        ] {
            if let Some(value) = value {
                let _ = writeln!(out, "        {key}: {}", yaml_value(value));
            }
        }
        let description = param
            .source
            .description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let description = if description.is_empty() {
            format!("GitLab's `{}`.", param.name)
        } else {
            description
        };
        let _ = writeln!(out, "        description: {}", yaml_text(&description));
    }
    let is_item = segments.last().is_some_and(|s| s.starts_with('{'));
    let output = match (operation.method.as_str(), &entity, is_item) {
        ("DELETE", ..) => format!("{{message: \"{} deleted.\"}}", title(&collection)),
        (_, Some((name, true)), _) => format!("{{type: {name}, list: {collection}}}"),
        ("GET", Some((name, false)), false) if paginated => {
            format!("{{type: {name}, list: {collection}}}")
        }
        (_, Some((name, _)), _) => format!("{{type: {name}}}"),
        (_, None, _) => "{message: \"Done.\"}".to_owned(),
    };
    let _ = writeln!(out, "    output: {output}");
    let (read_only, destructive, idempotent) = match operation.method.as_str() {
        "GET" => (true, false, true),
        "DELETE" => (false, true, true),
        "PUT" | "PATCH" => (false, false, true),
        _ => (false, false, false),
    };
    let _ = writeln!(
        out,
        "    safety: {{read_only: {read_only}, destructive: {destructive}, idempotent: {idempotent}}}"
    );
    let example: Vec<String> = params
        .iter()
        .filter(|p| p.location == "path" || p.source.required)
        .map(|p| format!("{}: {}", p.name, example_value(p)))
        .collect();
    let _ = writeln!(out, "    example: {{{}}}", example.join(", "));
    if let Some((name, _)) = &entity
        && !SHARED.contains(&format!("\n  {name}:\n"))
    {
        let _ = writeln!(
            out,
            "# `{name}` is not in actions/shared.yaml yet: declare it under `types:` (GitLab's response schemas say which fields are nullable)."
        );
    }
    out
}

/// The parameter names `actions/shared.yaml` defines.
fn shared_params() -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Shared {
        params: std::collections::BTreeMap<String, crate::yaml::Value>,
    }
    crate::yaml::from_str::<Shared>(SHARED)
        .map(|shared| shared.params.into_keys().collect())
        .unwrap_or_default()
}

/// GitLab's path parameter as the catalog names it: `id` under `projects` is `project_id`,
/// `branch` is `branch_name`, a splat is `file_path` when it is a file.
fn our_path_name(gitlab: &str, previous: Option<&str>) -> String {
    match (gitlab, previous) {
        ("id", Some(collection)) => format!("{}_id", singular(collection)),
        ("branch", _) => "branch_name".to_owned(),
        ("artifact_path" | "path", _) => "file_path".to_owned(),
        (name, _) => name.to_owned(),
    }
}

fn singular(collection: &str) -> String {
    let name = collection.replace('-', "_");
    if let Some(stem) = name.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = name
        .strip_suffix("es")
        .filter(|s| s.ends_with("ss") || s.ends_with('x'))
    {
        stem.to_owned()
    } else {
        name.strip_suffix('s').unwrap_or(&name).to_owned()
    }
}

/// `domain.action` from the path and method, as the catalog names them: the domain is the
/// first resource under the project or group (`repository` in
/// `/projects/{id}/repository/commits`), the action the rest plus the verb the method and
/// shape imply (`commit_list`, `commit_get`, `note_create`), or a verb segment as it is
/// (`approve`, `retry`, `latest`).
fn suggested_id(operation: &Operation, segments: &[&str]) -> (String, String) {
    let is_param = |s: &str| s.starts_with('{') || s.starts_with('*');
    let scoped = segments.len() >= 2
        && matches!(segments[0], "projects" | "groups" | "users")
        && is_param(segments[1]);
    let (domain_segment, rest): (&str, &[&str]) = match (scoped, segments.get(2)) {
        (true, Some(domain)) if !is_param(domain) => (domain, &segments[3..]),
        (true, _) => (segments[0], &segments[2..]),
        (false, _) => match segments.split_first() {
            Some((domain, rest)) => (domain, rest),
            None => ("gitlab", &[]),
        },
    };
    let ends_in_param = segments.last().is_some_and(|s| is_param(s));
    let mut words: Vec<String> = Vec::new();
    for (index, segment) in rest.iter().enumerate() {
        if is_param(segment) {
            continue;
        }
        let followed_by_param = rest.get(index + 1).is_some_and(|s| is_param(s));
        let last = index + 1 == rest.len();
        if followed_by_param || (last && segment.ends_with('s')) {
            words.push(singular(segment));
        } else {
            words.push(segment.replace('-', "_"));
        }
    }
    // A collection (plural) or an item takes the method's verb; a singular last segment is
    // a verb or a singleton of its own (`approve`, `latest`).
    let last_literal = rest.iter().rev().find(|s| !is_param(s));
    let collection = match last_literal {
        Some(segment) => ends_in_param || segment.ends_with('s'),
        None => ends_in_param || domain_segment.ends_with('s'),
    };
    if collection {
        let verb = match operation.method.as_str() {
            "GET" if ends_in_param => "get",
            "GET" => "list",
            "POST" => "create",
            "PUT" | "PATCH" => "update",
            "DELETE" => "delete",
            _ => "call",
        };
        words.push(verb.to_owned());
    } else if words.is_empty() {
        words.push(
            if operation.method == "GET" {
                "get"
            } else {
                "update"
            }
            .to_owned(),
        );
    }
    (singular(domain_segment), words.join("_"))
}

/// The response's entity name (`API_Entities_MergeRequest` → `MergeRequest`) and whether
/// the spec marks it as a list.
fn response_entity(spec: &Spec, operation: &Operation) -> Option<(String, bool)> {
    let schema = ["200", "201"]
        .iter()
        .find_map(|code| operation.responses.get(*code)?.schema.as_ref())?;
    let (reference, list) = match schema.get("items") {
        Some(items) => (items, true),
        None => (schema, false),
    };
    let (name, _) = spec.definition(reference)?;
    let name = name
        .trim_start_matches("EE_")
        .trim_start_matches("API_Entities_")
        .trim_start_matches("Entities_")
        .replace('_', "");
    Some((name, list))
}

fn our_type(parameter: &Parameter) -> String {
    match (parameter.ty.as_str(), parameter.items.as_deref()) {
        ("integer", _) => "integer".to_owned(),
        ("number", _) => "number".to_owned(),
        ("boolean", _) => "boolean".to_owned(),
        ("array", Some(items)) if items.ty == "integer" => "\"[integer]\"".to_owned(),
        ("array", _) => "\"[string]\"".to_owned(),
        _ => "string".to_owned(),
    }
}

fn example_value(param: &DraftParam) -> String {
    match param.name.as_str() {
        "project_id" => "acme/platform/api".to_owned(),
        "group_id" => "acme/platform".to_owned(),
        _ => match (&param.source.example, our_type(&param.source).as_str()) {
            (Some(value), _) => yaml_value(value),
            (None, "integer") => "1".to_owned(),
            (None, "boolean") => "true".to_owned(),
            (None, _) => yaml_text(&format!("example-{}", param.name.replace('_', "-"))),
        },
    }
}

fn title(summary: &str) -> String {
    let text = summary.trim().trim_end_matches('.');
    let mut chars = text.chars();
    let title: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    };
    if title.chars().count() > 59 {
        title.chars().take(59).collect()
    } else {
        title
    }
}

/// A YAML scalar: plain when that is safe, double-quoted otherwise.
fn yaml_text(text: &str) -> String {
    let plain = !text.is_empty()
        && !text.starts_with(|c: char| "!&*-?{}[]|>'\"%@`#,".contains(c) || c.is_whitespace())
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.ends_with(':')
        && !matches!(text, "true" | "false" | "null" | "yes" | "no")
        && text.parse::<f64>().is_err();
    if plain {
        text.to_owned()
    } else {
        serde_json::to_string(text).unwrap_or_default()
    }
}

fn yaml_value(value: &Value) -> String {
    match value {
        Value::String(text) => yaml_text(text),
        other => other.to_string(),
    }
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec() -> Spec {
        serde_json::from_value(json!({
            "paths": {
                "/api/v4/projects/{id}/merge_requests/{merge_request_iid}/approve": {
                    "post": {
                        "summary": "Approve a merge request",
                        "operationId": "postApprove",
                        "parameters": [
                            {"in": "path", "name": "id", "type": "string", "required": true},
                            {"in": "path", "name": "merge_request_iid", "type": "integer", "required": true},
                            {"in": "body", "name": "postApprove", "required": true,
                             "schema": {"$ref": "#/definitions/postApprove"}}
                        ],
                        "responses": {"201": {"schema": {"$ref": "#/definitions/API_Entities_MergeRequestApprovals"}}}
                    }
                },
                "/api/v4/projects/{id}/labels": {
                    "get": {
                        "summary": "List labels",
                        "operationId": "getLabels",
                        "parameters": [
                            {"in": "path", "name": "id", "type": "string", "required": true},
                            {"in": "query", "name": "with_counts", "type": "boolean", "description": "Include counts"},
                            {"in": "query", "name": "page", "type": "integer"},
                            {"in": "query", "name": "per_page", "type": "integer"}
                        ],
                        "responses": {"200": {"schema": {"type": "array", "items": {"$ref": "#/definitions/API_Entities_ProjectLabel"}}}}
                    }
                }
            },
            "definitions": {
                "postApprove": {"properties": {"sha": {"type": "string", "description": "The HEAD of the MR"}, "approval_password": {"type": "string"}}, "required": []},
                "API_Entities_MergeRequestApprovals": {},
                "API_Entities_ProjectLabel": {}
            }
        }))
        .unwrap()
    }

    #[test]
    fn drafts_a_verb_action_with_body_params_and_catalog_names() {
        let draft = scaffold(
            &spec(),
            "POST /projects/:id/merge_requests/:merge_request_iid/approve",
        )
        .unwrap();
        assert!(draft.contains("\n  approve:\n"), "{draft}");
        assert!(draft.contains("in actions/merge_request.yaml"), "{draft}");
        assert!(
            draft.contains(
                "    path: /projects/{project_id}/merge_requests/{merge_request_iid}/approve\n"
            ),
            "{draft}"
        );
        assert!(
            draft.contains("      project_id: {}\n      merge_request_iid: {}\n"),
            "{draft}"
        );
        assert!(draft.contains("      sha: {}\n"), "{draft}");
        assert!(
            draft.contains("      approval_password:\n        type: string\n"),
            "{draft}"
        );
        assert!(
            draft.contains("    output: {type: MergeRequestApprovals}\n"),
            "{draft}"
        );
        assert!(
            draft.contains(
                "    safety: {read_only: false, destructive: false, idempotent: false}\n"
            ),
            "{draft}"
        );
        assert!(
            draft.contains("    example: {project_id: acme/platform/api, merge_request_iid: 1}\n"),
            "{draft}"
        );
    }

    #[test]
    fn drafts_a_paginated_list() {
        let draft = scaffold(&spec(), "GET /api/v4/projects/{id}/labels").unwrap();
        assert!(draft.contains("\n  list:\n"), "{draft}");
        assert!(draft.contains("in actions/label.yaml"), "{draft}");
        assert!(draft.contains("    pagination: offset\n"), "{draft}");
        assert!(!draft.contains("per_page"), "{draft}");
        assert!(
            draft.contains(
                "      with_counts:\n        type: boolean\n        description: Include counts\n"
            ),
            "{draft}"
        );
        assert!(
            draft.contains("    output: {type: ProjectLabel, list: labels}\n"),
            "{draft}"
        );
    }

    #[test]
    fn an_unknown_operation_names_the_closest() {
        let error = scaffold(&spec(), "GET /projects/:id/label")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("closest are: GET /projects/{id}/labels"),
            "{error}"
        );
    }
}

#[cfg(test)]
mod naming {
    use super::*;

    fn id(method: &str, path: &str) -> String {
        let operation = Operation {
            method: method.to_owned(),
            path: path.to_owned(),
            summary: String::new(),
            description: String::new(),
            operation_id: String::new(),
            parameters: Vec::new(),
            responses: Default::default(),
        };
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let (domain, action) = suggested_id(&operation, &segments);
        format!("{domain}.{action}")
    }

    #[test]
    fn ids_follow_the_catalog() {
        assert_eq!(
            id("GET", "/projects/{id}/merge_requests"),
            "merge_request.list"
        );
        assert_eq!(
            id("POST", "/projects/{id}/merge_requests"),
            "merge_request.create"
        );
        assert_eq!(
            id("GET", "/projects/{id}/merge_requests/{merge_request_iid}"),
            "merge_request.get"
        );
        assert_eq!(
            id("PUT", "/projects/{id}/merge_requests/{merge_request_iid}"),
            "merge_request.update"
        );
        assert_eq!(
            id(
                "GET",
                "/projects/{id}/merge_requests/{merge_request_iid}/notes"
            ),
            "merge_request.note_list"
        );
        assert_eq!(
            id(
                "POST",
                "/projects/{id}/merge_requests/{merge_request_iid}/approve"
            ),
            "merge_request.approve"
        );
        assert_eq!(
            id("GET", "/projects/{id}/repository/commits"),
            "repository.commit_list"
        );
        assert_eq!(
            id("GET", "/projects/{id}/repository/commits/{sha}"),
            "repository.commit_get"
        );
        assert_eq!(
            id("GET", "/projects/{id}/pipelines/latest"),
            "pipeline.latest"
        );
        assert_eq!(id("GET", "/projects/{id}"), "project.get");
        assert_eq!(id("GET", "/projects"), "project.list");
        assert_eq!(id("GET", "/user"), "user.get");
    }
}

//! `gitlab-mcp scaffold --spec <openapi.yaml> "<METHOD /path>"`: drafts every file a new
//! action needs from one operation of GitLab's spec, for a maintainer to edit rather than
//! copy neighbours: the action in its domain's file (`naming`: the domain and name the
//! catalog's conventions give the path), its entity type when the catalog has none
//! (`entity`: from GitLab's response schema with `--schemas`, else the spec's model), the
//! sandbox collection and records, three commented request lines for search, and the
//! snapshot case. `files` prints the drafts or writes them into the tree (`--write`).
//!
//! The draft names path parameters as the catalog does (`{id}` under `/projects` is
//! `project_id`), inherits the parameters `actions/shared.yaml` defines, turns `page` and
//! `per_page` into `pagination: offset`, reads body parameters from the operation's body
//! definition, and never sends a default: GitLab applies its own, which the parameter's
//! description states instead.

mod entity;
mod files;
mod naming;

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use super::{Operation, Parameter, Schemas, Spec, current_shapes, shape, spec_shapes};
pub use files::Drafts;
use naming::{is_admin, is_param, past, plural_of, singular, title};

/// What the drafts are made from besides the spec: the tree they are for (its manifest's
/// conventions, types and records) and, optionally, GitLab's response schemas.
pub struct Options<'a> {
    /// The repository: `actions/`, `src/sandbox/seed/`, `tests/cmd/` under it.
    pub root: &'a Path,
    /// GitLab's `spec/fixtures/api/schemas/` folder, for entity types.
    pub schemas: Option<&'a Schemas>,
}

/// The drafts for the operation `request` names (`GET /projects/:id/merge_requests`).
pub fn scaffold(spec: &Spec, request: &str, options: &Options<'_>) -> anyhow::Result<Drafts> {
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
    let tree = files::Tree::read(options.root)?;
    // An operation the catalog has already is no new action, whatever name a draft would
    // take beside it.
    let shapes = current_shapes(&operation.path);
    if let Some(known) = tree
        .known
        .iter()
        .find(|k| k.method == method && shapes.iter().any(|s| k.serves.contains(s)))
    {
        anyhow::bail!(
            "{method} {} is already in the catalog as `{}.{}` (actions/{}.yaml)",
            operation.path,
            known.domain,
            known.name,
            known.domain
        );
    }
    let drafts = draft(spec, operation, &tree, options.schemas);
    let (domain, name) = drafts.id.split_once('.').unwrap_or_default();
    anyhow::ensure!(
        !tree
            .known
            .iter()
            .any(|k| k.domain == domain && k.name == name),
        "`{}` is already in the catalog (actions/{domain}.yaml)",
        drafts.id
    );
    Ok(drafts)
}

/// A parameter of the draft.
struct DraftParam {
    /// Our name: GitLab's, except for path parameters (`id` under `projects` is `project_id`).
    name: String,
    /// `path`, `query` or `body`.
    location: &'static str,
    source: Parameter,
}

fn params_of(
    spec: &Spec,
    operation: &Operation,
    segments: &[&str],
) -> (String, Vec<DraftParam>, bool) {
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
    (path, params, paginated)
}

fn draft(
    spec: &Spec,
    operation: &Operation,
    tree: &files::Tree,
    schemas: Option<&Schemas>,
) -> Drafts {
    let segments: Vec<&str> = operation
        .path
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let (path, params, paginated) = params_of(spec, operation, &segments);
    let (domain, action) = naming::suggested_id(&operation.method, &segments, &tree.known);
    let id = format!("{domain}.{action}");
    let mut review: Vec<String> = Vec::new();

    // The entity: the catalog's own type when it has one, else a draft.
    let collection_word = segments
        .iter()
        .rev()
        .find(|s| !is_param(s))
        .map(|s| naming::snake(s))
        .unwrap_or_else(|| "items".to_owned());
    let entity = response_entity(spec, operation);
    let new_type = entity.as_ref().and_then(|(name, _, definition)| {
        if tree.types.contains(name) {
            return None;
        }
        entity::draft(name, &collection_word, *definition, schemas)
    });
    if let Some(ty) = &new_type {
        review.push(format!(
            "type `{}` (from {}): which fields GitLab always sends (`required: true`), the card and table{}",
            ty.name,
            ty.source,
            if ty.left_out.is_empty() {
                String::new()
            } else {
                format!("; left out, nested: {}", ty.left_out.join(", "))
            }
        ));
    }

    let is_item = segments.last().is_some_and(|s| is_param(s));
    let verb_action = !matches!(
        action.rsplit('_').next(),
        Some("list" | "get" | "create" | "update" | "delete")
    );
    let output = match (operation.method.as_str(), &entity, is_item) {
        ("DELETE", ..) => format!(
            "{{message: \"{} deleted.\"}}",
            naming::capitalised(&singular(&collection_word).replace('_', " "))
        ),
        (_, Some((name, true, _)), _) => format!("{{type: {name}, list: {collection_word}}}"),
        ("GET", Some((name, false, _)), false) if paginated => {
            format!("{{type: {name}, list: {collection_word}}}")
        }
        (_, Some((name, _, _)), _) => format!("{{type: {name}}}"),
        (_, None, _) => {
            review.push("output: the spec names no response model; say what it returns".into());
            format!("{{message: \"{}.\"}}", title(&domain, &action))
        }
    };

    let mut out = String::new();
    let _ = writeln!(out, "  {action}:");
    let _ = writeln!(out, "    title: {}", yaml_text(&title(&domain, &action)));
    let _ = writeln!(out, "    description: >");
    for line in wrap(&description(operation, &domain, &action, &params), 84) {
        let _ = writeln!(out, "      {line}");
    }
    if verb_action {
        let _ = writeln!(
            out,
            "    vocabulary: {{operation: {action}, verbs: [{}], objects: []}}",
            action.replace('_', " ")
        );
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
        if tree.shared_params.contains(&param.name) {
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
            ("minimum", &param.source.minimum),
            ("maximum", &param.source.maximum),
        ] {
            if let Some(value) = value {
                let _ = writeln!(out, "        {key}: {}", yaml_value(value));
            }
        }
        let _ = writeln!(
            out,
            "        description: {}",
            yaml_text(&param_description(param))
        );
    }
    let _ = writeln!(out, "    output: {output}");
    if verb_action && operation.method != "GET" && matches!(entity, Some((_, false, _))) {
        let _ = writeln!(
            out,
            "    markdown: {{verb: {}}}",
            past(&action.replace('_', " "))
        );
    }
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
    // `/admin/...` answers administrators only: fitting hides it from anyone else, and its
    // example and snapshot run with `--sandbox-admin`.
    let admin = is_admin(&segments);
    if admin {
        let _ = writeln!(out, "    requires: {{admin: true}}");
    }
    let example: Vec<(String, String)> = params
        .iter()
        .filter(|p| p.location == "path" || p.source.required)
        .map(|p| (p.name.clone(), example_value(p)))
        .collect();
    let example_text: Vec<String> = example.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let _ = writeln!(out, "    example: {{{}}}", example_text.join(", "));

    review.insert(
        0,
        format!(
            "`{id}` in actions/{domain}.yaml: the title, and the description as a model choosing among actions reads it (what it does, when to use it, the neighbour to use instead); tags, hints, `requires`, and `safety` (is repeating it harmless?)"
        ),
    );
    if params.iter().any(|p| p.source.default.is_some()) {
        review.push("parameters: GitLab's defaults are in their descriptions, not `default:` (a default is sent on every call)".into());
    }

    let mut drafts = Drafts::new(id.clone());
    let owner = match segments.first() {
        Some(&"projects") => "of a project",
        Some(&"groups") => "of a group",
        Some(&("users" | "user")) => "of a user",
        _ if admin => "of the instance (administrators only)",
        _ => "on GitLab",
    };
    drafts.action(
        &domain,
        owner,
        tree.has_domain(&domain),
        out,
        new_type.as_ref().map(entity::DraftType::yaml),
    );

    // The sandbox: a collection of its own when the path names one the seed lacks.
    let collection = segments
        .iter()
        .filter(|s| !is_param(s))
        .map(|s| naming::snake(s))
        .collect::<Vec<_>>()
        .join("/");
    let type_for_records = new_type.clone().or_else(|| {
        let (name, _, definition) = entity.as_ref()?;
        entity::draft(name, &collection_word, *definition, schemas)
    });
    if !tree.has_collection(&collection)
        && !verb_action
        && let Some(ty) = &type_for_records
    {
        let parent = match segments.first() {
            Some(&"projects") if segments.get(1).is_some_and(|s| is_param(s)) => {
                let project = example
                    .iter()
                    .find(|(k, _)| k == "project_id")
                    .map(|(_, v)| v.as_str());
                tree.project_id(project.unwrap_or_default())
                    .map(|id| ("_project_id", id))
            }
            _ => None,
        };
        let example_body = ["200", "201"]
            .iter()
            .find_map(|code| operation.responses.get(*code)?.examples.as_ref())
            .and_then(|examples| examples.get("application/json"));
        let records = ty.records(example_body, parent);
        let key = if ty.fields.iter().any(|f| f.name == "id") {
            "id"
        } else {
            ty.fields.first().map_or("id", |f| f.name.as_str())
        };
        let spec = serde_json::json!({
            "keys": [key],
            "parents": parent.map(|(field, _)| vec![field]).unwrap_or_default(),
            "not_found": format!("404 {} Not Found", naming::capitalised(&singular(&collection_word).replace('_', " "))),
        });
        let file = collection_word.clone();
        drafts.records(&file, &collection, spec, records);
        review.push(format!(
            "sandbox: src/sandbox/seed/records/{file}.json holds made-up records of `{collection}`; make them look like GitLab's, and add behaviour beyond list/get/create/update/delete in src/sandbox/seed/behaviour/{domain}.json"
        ));
    } else if verb_action && operation.method != "GET" {
        review.push(format!(
            "sandbox: what `{id}` changes is behaviour data, in src/sandbox/seed/behaviour/{domain}.json (see src/sandbox/seed/README.md)"
        ));
    }

    // Search: three requests in everyday words, commented until the maintainer writes them.
    let object = plural_of(&singular(&collection_word).replace('_', " "));
    let place = example
        .first()
        .map(|(_, v)| v.trim_matches('"').to_owned())
        .unwrap_or_default();
    let phrasings = match action.rsplit('_').next() {
        Some("list") if place.is_empty() => [
            format!("list the {object}"),
            format!("show me all {object}"),
            format!("which {object} are there"),
        ],
        Some("list") => [
            format!("list the {object} of {place}"),
            format!("show me {place}'s {object}"),
            format!("which {object} does {place} have"),
        ],
        _ if verb_action => [
            format!("{} {place}", action.replace('_', " ")),
            format!("please {} {place}", action.replace('_', " ")),
            format!("can you {} {place}", action.replace('_', " ")),
        ],
        _ => [
            format!("{} {place}", title(&domain, &action).to_lowercase()),
            format!("please {} {place}", action.replace('_', " ")),
            format!("can you {} {place}", action.replace('_', " ")),
        ],
    };
    drafts.requests(&id, &phrasings);
    review.push("requests: write three requests in everyday words in actions/requests/team.tsv (the drafted ones are commented; a test fails until three are not)".into());

    // The snapshot case.
    let args: Vec<String> = example
        .iter()
        .map(|(k, v)| format!("{k}={}", v.trim_matches('"')))
        .collect();
    drafts.snapshot(&id, &title(&domain, &action), &args, admin);
    review.push(format!(
        "snapshot: `TRYCMD=overwrite CLI_CASES={id},cli-catalog cargo test --test cli` fills tests/cmd/{id}.stdout and adds the action to the catalog's listing (cli-catalog.stdout); read both as product output (the .stderr stays empty)"
    ));
    drafts.review = review;
    drafts
}

/// A description for a model choosing among actions, from the operation's own words:
/// what it does (GitLab's summary without version notes), then the filters it takes.
fn description(operation: &Operation, domain: &str, action: &str, params: &[DraftParam]) -> String {
    let words = [&operation.summary, &operation.description]
        .into_iter()
        .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
        .find(|text| !text.is_empty())
        .unwrap_or_default();
    // "This feature was introduced in GitLab 10.6." says nothing to a model.
    let sentences: Vec<&str> = words
        .split_inclusive(". ")
        .map(str::trim)
        .filter(|s| {
            !s.is_empty()
                && !s.contains("introduced in GitLab")
                && !s.contains("was added in GitLab")
        })
        .collect();
    let mut text = match sentences.join(" ") {
        said if said.is_empty() => format!("{}.", title(domain, action)),
        said => {
            let said = imperative(said.trim_end_matches('.'));
            format!("{}.", naming::capitalised(&said))
        }
    };
    let filters: Vec<String> = params
        .iter()
        .filter(|p| p.location == "query")
        .map(|p| format!("`{}`", p.name))
        .collect();
    if !filters.is_empty() {
        let _ = write!(text, " Narrow it with {}.", filters.join(", "));
    }
    let required: Vec<String> = params
        .iter()
        .filter(|p| p.location == "body" && p.source.required)
        .map(|p| format!("`{}`", p.name))
        .collect();
    if !required.is_empty() {
        let _ = write!(text, " Needs {}.", required.join(", "));
    }
    text
}

/// GitLab's third person as the catalog's imperative: "Gets a list of project badges" →
/// "List project badges", "Adds a badge" → "Add a badge".
fn imperative(text: &str) -> String {
    for list in [
        "Gets a list of ",
        "Get a list of ",
        "Get the list of ",
        "Lists all ",
    ] {
        if let Some(rest) = text.strip_prefix(list) {
            return format!("List {rest}");
        }
    }
    let (first, rest) = text.split_once(' ').unwrap_or((text, ""));
    let verb = match first {
        "Gets" | "Adds" | "Lists" | "Creates" | "Updates" | "Deletes" | "Removes" | "Returns"
        | "Retrieves" | "Edits" | "Shows" => first.trim_end_matches('s'),
        _ => return text.to_owned(),
    };
    format!("{verb} {rest}").trim_end().to_owned()
}

/// A parameter's description: GitLab's words, with its default said, never sent.
fn param_description(param: &DraftParam) -> String {
    let said = param
        .source
        .description
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let said = if said.is_empty() {
        format!("GitLab's `{}`.", param.name)
    } else {
        said
    };
    match &param.source.default {
        // GitLab's words say it already ("the default `main`").
        Some(_) if said.contains("default") => said,
        Some(default) => format!(
            "{} (GitLab's default: {}).",
            said.trim_end_matches('.'),
            default
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| default.to_string())
        ),
        None => said,
    }
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

/// The response's entity name (`API_Entities_MergeRequest` → `MergeRequest`), whether the
/// spec marks it as a list, and its definition.
fn response_entity<'a>(
    spec: &'a Spec,
    operation: &Operation,
) -> Option<(String, bool, Option<&'a super::Definition>)> {
    let schema = ["200", "201"]
        .iter()
        .find_map(|code| operation.responses.get(*code)?.schema.as_ref())?;
    let (reference, list) = match schema.get("items") {
        Some(items) => (items, true),
        None => (schema, false),
    };
    let (name, definition) = spec.definition(reference)?;
    let name = name
        .trim_start_matches("EE_")
        .trim_start_matches("API_Entities_")
        .trim_start_matches("Entities_")
        .replace('_', "");
    Some((name, list, Some(definition)))
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

/// A YAML scalar: plain when that is safe anywhere (in a `{...}` mapping too), double-quoted
/// otherwise.
fn yaml_text(text: &str) -> String {
    let plain = !text.is_empty()
        && !text.starts_with(|c: char| "!&*-?{}[]|>'\"%@`#,".contains(c) || c.is_whitespace())
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.contains(|c: char| ",[]{}".contains(c))
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

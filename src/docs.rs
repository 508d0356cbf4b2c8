//! The committed files in `generated/`: the catalog, each surface's `tools/list`, and the
//! docs rendered by minijinja from `templates/`. `gitlab-mcp docs` rewrites them; a test
//! fails when a committed copy is stale (rust-analyzer's way), naming the command.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

use crate::catalog::{ACTIONS, Action, DOMAINS, Location, ResultShape};
use crate::output::json::to_pretty;
use crate::policy::Policy;
use crate::surfaces::{MetaSchema, Surface, SurfaceKind};

/// Templates, compiled in so the binary can regenerate docs anywhere.
const TEMPLATES: &[(&str, &str)] = &[
    ("llms.txt", include_str!("../templates/llms.txt.jinja")),
    (
        "llms-full.txt",
        include_str!("../templates/llms-full.txt.jinja"),
    ),
    ("tools.md", include_str!("../templates/tools.md.jinja")),
];

/// One action as `catalog.json` and `gitlab-mcp catalog --json` describe it.
pub fn catalog_entry(action: &Action) -> Value {
    let params: Vec<Value> = action
        .params
        .iter()
        .map(|p| {
            let mut entry = json!({
                "name": p.name,
                "type": p.ty.json_name(),
                "required": p.required,
                "in": match p.location { Location::Path => "path", Location::Query => "query", Location::Body => "body", Location::Local => "local" },
                "description": p.description,
            });
            if !p.values.is_empty() {
                entry["enum"] = json!(p.values);
            }
            if let Some(default) = p.default {
                entry["default"] = serde_json::from_str(default).unwrap_or(Value::Null);
            }
            if let Some(minimum) = p.minimum {
                entry["minimum"] = json!(minimum);
            }
            if let Some(maximum) = p.maximum {
                entry["maximum"] = json!(maximum);
            }
            if !p.aliases.is_empty() {
                entry["aliases"] = json!(p.aliases);
            }
            if p.api_name != p.name {
                entry["api_name"] = json!(p.api_name);
            }
            entry
        })
        .collect();
    let result = match action.result {
        ResultShape::Single { entity } => json!({"shape": "single", "entity": entity.name}),
        ResultShape::List {
            entity,
            key,
            paginated,
            ..
        } => json!({"shape": "list", "entity": entity.name, "key": key, "paginated": paginated}),
        ResultShape::Message { .. } => json!({"shape": "message"}),
    };
    let mut entry = json!({
        "id": action.id,
        "domain": action.domain,
        "action": action.name,
        "title": action.title,
        "description": action.description,
        "method": action.method.name(),
        "path": action.path,
        "read_only": action.safety.read_only,
        "destructive": action.safety.destructive,
        "idempotent": action.safety.idempotent,
        "params": params,
        "result": result,
        // Two hints may name one action for different states of the result.
        "hints": action.hints.iter().fold(Vec::new(), |mut targets, hint| {
            if !targets.contains(&hint.action) {
                targets.push(hint.action);
            }
            targets
        }),
        "example": action.example_args(),
        "requires": requires(action),
    });
    if let Some(handler) = action.handler {
        entry["handler"] = json!(handler);
    }
    // A GraphQL action is a `POST /api/graphql` of its operation, whatever it does.
    if let Some(graphql) = action.graphql {
        entry["method"] = json!("POST");
        entry["graphql"] = json!(graphql.operation);
    }
    if let Some(resource) = action.resource {
        entry["resource"] = json!(resource.uri);
    }
    if !action.tags.is_empty() {
        entry["tags"] = json!(action.tags);
    }
    if !action.aliases.is_empty() {
        entry["aliases"] = json!(action.aliases);
    }
    entry
}

/// A surface's `tools/list` with every action offered (the default policy).
pub fn tools_list(kind: SurfaceKind, meta_schema: MetaSchema) -> Value {
    let surface = Surface::new(kind, meta_schema, Arc::new(Policy::default()));
    json!({"tools": surface.tools()})
}

/// One action as templates see it: its catalog entry plus what docs show.
fn template_action(action: &Action) -> Value {
    let mut entry = catalog_entry(action);
    entry["tool"] = json!(action.tool_name());
    entry["output_fields"] = json!(output_fields(action));
    entry["example_call"] = json!(crate::output::json::to_text(
        &json!({"action": action.id, "params": action.example_args()})
    ));
    entry
}

/// The fields of an action's result (for a list, of its items), as `name (type)`.
fn output_fields(action: &Action) -> Vec<String> {
    let schema = action.output_schema();
    let properties = match action.result {
        ResultShape::List { key, .. } => {
            let reference = schema["properties"][key]["items"]["$ref"]
                .as_str()
                .unwrap_or("")
                .trim_start_matches("#/$defs/");
            schema["$defs"][reference]["properties"].clone()
        }
        _ => schema["properties"].clone(),
    };
    properties
        .as_object()
        .map(|fields| {
            fields
                .iter()
                .filter(|(name, _)| name.as_str() != "next_steps")
                .map(|(name, field)| {
                    let ty = field["type"]
                        .as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| "object".to_owned());
                    format!("`{name}` ({ty})")
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The catalog as templates see it.
fn template_context() -> Value {
    let domains: Vec<Value> = DOMAINS
        .iter()
        .map(|domain| {
            let actions: Vec<Value> = ACTIONS.iter().filter(|a| a.domain == domain.name).map(template_action).collect();
            json!({"name": domain.name, "title": domain.title, "description": domain.description, "actions": actions})
        })
        .collect();
    let actions: Vec<Value> = ACTIONS.iter().map(template_action).collect();
    json!({"domains": domains, "actions": actions})
}

/// Every generated file: its name in `generated/` and its contents.
pub fn render_all() -> anyhow::Result<Vec<(String, String)>> {
    let mut files = vec![
        (
            "catalog.json".to_owned(),
            to_pretty(&Value::Array(ACTIONS.iter().map(catalog_entry).collect())),
        ),
        (
            "tools-dynamic.json".to_owned(),
            to_pretty(&tools_list(SurfaceKind::Dynamic, MetaSchema::Opaque)),
        ),
        (
            "tools-meta.json".to_owned(),
            to_pretty(&tools_list(SurfaceKind::Meta, MetaSchema::Opaque)),
        ),
        (
            "tools-individual.json".to_owned(),
            to_pretty(&tools_list(SurfaceKind::Individual, MetaSchema::Opaque)),
        ),
    ];
    let mut environment = minijinja::Environment::new();
    environment.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .map_err(|error| anyhow::anyhow!("template syntax: {error}"))?,
    );
    // Text inside a Markdown table cell: a pipe would end the cell.
    environment.add_filter("cell", |text: String| text.replace('|', "\\|"));
    for (name, source) in TEMPLATES {
        environment.add_template(name, source)?;
    }
    let context = minijinja::Value::from(minijinja::value::Serde(template_context()));
    for (name, _) in TEMPLATES {
        files.push((
            (*name).to_owned(),
            environment.get_template(name)?.render(&context)?,
        ));
    }
    for (_, contents) in &mut files {
        if !contents.ends_with('\n') {
            contents.push('\n');
        }
    }
    Ok(files)
}

/// Compares every generated file with `dir`; rewrites the stale ones unless `check_only`.
/// Returns the stale files.
pub fn write_all(dir: &Path, check_only: bool) -> anyhow::Result<Vec<PathBuf>> {
    let mut stale = Vec::new();
    if !check_only {
        std::fs::create_dir_all(dir)?;
    }
    for (name, contents) in render_all()? {
        let path = dir.join(&name);
        let current = std::fs::read_to_string(&path)
            .unwrap_or_default()
            .replace("\r\n", "\n");
        if current != contents {
            if !check_only {
                std::fs::write(&path, &contents)?;
            }
            stale.push(path);
        }
    }
    Ok(stale)
}

/// What an instance and a token need: tier, scope, and the role or admin when declared.
fn requires(action: &Action) -> Value {
    let mut requires = json!({"tier": action.requires.tier.name(), "scope": action.scope().name()});
    if let Some(role) = action.requires.role {
        requires["role"] = json!(role.name());
    }
    if action.requires.admin {
        requires["admin"] = json!(true);
    }
    requires
}

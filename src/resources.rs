//! MCP resources: the catalog (`gitlab://tools`, `gitlab://tools/{id}` for an action or a
//! whole domain) on every surface, and entity templates (`gitlab://project/{project_id}/mr/{merge_request_iid}`, ...) that a
//! read resolves by running the matching get through the dispatcher.

use serde_json::{Map, Value, json};

use crate::catalog::{self, Action, DomainInfo, ResultShape};
use crate::output::json::to_pretty;
use crate::policy::Policy;
use crate::surfaces::Surface;

pub const MANIFEST_URI: &str = "gitlab://tools";
pub const ACTION_TEMPLATE: &str = "gitlab://tools/{id}";

/// Which resources a server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum CapabilitySurface {
    /// The catalog resources and the entity templates.
    #[default]
    Full,
    /// Only `gitlab://tools` and `gitlab://tools/{id}`.
    Minimal,
}

/// A resource template an action declares, with the action that resolves it.
pub struct EntityTemplate {
    pub uri: &'static str,
    pub action: &'static Action,
}

/// The entity templates of the actions this server offers, first declaration wins.
pub fn entity_templates(policy: &Policy) -> Vec<EntityTemplate> {
    let mut templates: Vec<EntityTemplate> = Vec::new();
    for action in policy.visible() {
        if let Some(spec) = action.resource
            && !templates.iter().any(|t| t.uri == spec.uri)
        {
            templates.push(EntityTemplate {
                uri: spec.uri,
                action,
            });
        }
    }
    templates
}

/// `gitlab://tools`: the visible tools and every action this instance can execute.
pub fn manifest(surface: &Surface, policy: &Policy) -> Value {
    let tools = surface.tool_names();
    let actions: Vec<Value> = policy
        .visible()
        .map(|a| json!({"id": a.id, "title": a.title, "read_only": a.safety.read_only, "destructive": a.safety.destructive}))
        .collect();
    let mut manifest = json!({
        "surface": surface.kind.name(),
        "tools": tools,
        "action_count": actions.len(),
        "actions": actions,
        "action_uri": ACTION_TEMPLATE,
    });
    // What fitting learned, once it has (absent before, or when nothing could be learned).
    if let Some(fit) = policy.fit.get() {
        manifest["instance"] = Value::from(fit.summary());
    }
    manifest
}

/// `gitlab://tools/{id}`: how to call one action on this surface, and its schemas.
pub fn action(surface: &Surface, action: &Action) -> Value {
    let mut entry = crate::docs::catalog_entry(action);
    entry["call"] = surface.call_shape(action);
    entry["input_schema"] = action.input_schema();
    entry["output_schema"] = action.output_schema();
    entry
}

/// `gitlab://tools/{domain}`: the domain's actions this instance offers, each with its
/// title, required parameters and safety, and how to call them on this surface.
pub fn domain(surface: &Surface, policy: &Policy, domain: &DomainInfo) -> Value {
    let actions: Vec<Value> = policy
        .visible()
        .filter(|a| a.domain == domain.name)
        .map(|a| {
            let required: Vec<&str> = a.required_params().map(|p| p.name).collect();
            json!({
                "id": a.id,
                "title": a.title,
                "required": required,
                "read_only": a.safety.read_only,
                "destructive": a.safety.destructive,
            })
        })
        .collect();
    let call = policy
        .visible()
        .find(|a| a.domain == domain.name)
        .map(|a| surface.call_shape(a));
    json!({
        "domain": domain.name,
        "title": domain.title,
        "description": domain.description,
        "call": call,
        "actions": actions,
        "action_uri": ACTION_TEMPLATE,
    })
}

/// What a `resources/read` URI names.
pub enum Target {
    Manifest,
    Action(&'static Action),
    Domain(&'static DomainInfo),
    Entity {
        action: &'static Action,
        args: Map<String, Value>,
    },
}

/// Parses a resource URI against the catalog and the entity templates.
pub fn parse(uri: &str, templates: &[EntityTemplate]) -> Option<Target> {
    if uri == MANIFEST_URI {
        return Some(Target::Manifest);
    }
    if let Some(id) = uri.strip_prefix("gitlab://tools/") {
        return catalog::find(id)
            .map(Target::Action)
            .or_else(|| catalog::domain(id).map(Target::Domain));
    }
    templates.iter().find_map(|template| {
        let args = match_template(template.uri, uri)?;
        Some(Target::Entity {
            action: template.action,
            args,
        })
    })
}

/// Matches `gitlab://project/{project_id}/mr/{merge_request_iid}` against a URI; values are
/// single segments, percent-decoded (the inverse of the RFC 6570 expansion results use).
fn match_template(template: &str, uri: &str) -> Option<Map<String, Value>> {
    let template_parts: Vec<&str> = template.split('/').collect();
    let uri_parts: Vec<&str> = uri.split('/').collect();
    if template_parts.len() != uri_parts.len() {
        return None;
    }
    let mut args = Map::new();
    for (part, value) in template_parts.iter().zip(&uri_parts) {
        match part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            Some(name) => {
                let decoded = percent_encoding::percent_decode_str(value)
                    .decode_utf8()
                    .ok()?
                    .into_owned();
                if decoded.is_empty() {
                    return None;
                }
                args.insert(name.to_owned(), Value::String(decoded));
            }
            None if part == value => {}
            None => return None,
        }
    }
    Some(args)
}

/// The JSON text of an entity resource: the action's structured result without hints.
pub fn entity_text(structured: &Map<String, Value>) -> String {
    let mut entity = structured.clone();
    entity.remove("next_steps");
    crate::output::json::to_text(&Value::Object(entity))
}

/// A readable title for a template, from the entity type its action returns.
pub fn template_title(template: &EntityTemplate) -> String {
    match template.action.result {
        ResultShape::Single { entity } => entity.name.to_owned(),
        _ => template.action.title.to_owned(),
    }
}

/// The manifest and action documents as pretty JSON, for people and docs.
pub fn pretty(value: &Value) -> String {
    to_pretty(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_encoded_segments() {
        let args = match_template(
            "gitlab://project/{project_id}/mr/{merge_request_iid}",
            "gitlab://project/acme%2Fplatform%2Fapi/mr/42",
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"project_id": "acme/platform/api", "merge_request_iid": "42"})
        );
        assert!(match_template("gitlab://project/{project_id}", "gitlab://project/a/b").is_none());
    }
}

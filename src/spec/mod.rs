//! Maintainer tools against GitLab's own API descriptions: `spec-check` compares the catalog
//! with the OpenAPI v2 spec, `scaffold` drafts every file of a new action from one of its operations,
//! and `shape-check` holds the entity types to GitLab's response schemas.
//!
//! GitLab's spec is Swagger 2.0 with Grape's path syntax: optional segments in parentheses
//! (`/projects/{id}/(-/)search`) and splats (`*artifact_path`). Paths are compared by
//! shape, a placeholder matching any placeholder, after both are normalised.

mod check;
mod scaffold;
mod shapes;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

pub use check::{Report, check};
pub use scaffold::{Drafts, Options as ScaffoldOptions, scaffold};
pub use shapes::{Schemas, ShapeReport, check as check_shapes, write_fixtures};

/// The parts of the spec the tools read.
#[derive(Debug, Deserialize)]
pub struct Spec {
    #[serde(default)]
    pub paths: BTreeMap<String, BTreeMap<String, Value>>,
    #[serde(default)]
    pub definitions: BTreeMap<String, Definition>,
}

/// A request or response body definition.
#[derive(Debug, Default, Deserialize)]
pub struct Definition {
    #[serde(default)]
    pub properties: BTreeMap<String, Parameter>,
    #[serde(default)]
    pub required: Vec<String>,
}

/// One operation of the spec, by method and path.
#[derive(Debug, Deserialize)]
pub struct Operation {
    #[serde(skip)]
    pub method: String,
    /// The path as the spec writes it, without `/api/v4`.
    #[serde(skip)]
    pub path: String,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub description: String,
    #[serde(default, rename = "operationId")]
    pub operation_id: String,
    #[serde(default)]
    pub parameters: Vec<Parameter>,
    #[serde(default)]
    pub responses: BTreeMap<String, Response>,
}

#[derive(Debug, Default, Clone, Deserialize)]
pub struct Parameter {
    #[serde(default)]
    pub name: String,
    #[serde(default, rename = "in")]
    pub location: String,
    #[serde(default)]
    pub description: String,
    #[serde(default, rename = "type")]
    pub ty: String,
    /// `required: true` on a parameter (a nested schema's list of required names reads as
    /// false here).
    #[serde(default, deserialize_with = "flag")]
    pub required: bool,
    #[serde(default, rename = "enum")]
    pub values: Vec<Value>,
    #[serde(default)]
    pub items: Option<Box<Parameter>>,
    #[serde(default)]
    pub default: Option<Value>,
    #[serde(default)]
    pub minimum: Option<Value>,
    #[serde(default)]
    pub maximum: Option<Value>,
    #[serde(default)]
    pub example: Option<Value>,
    /// A body parameter's schema: `{"$ref": "#/definitions/..."}`.
    #[serde(default)]
    pub schema: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Response {
    #[serde(default)]
    pub schema: Option<Value>,
    /// Example bodies by media type (`application/json`), where the spec gives one.
    #[serde(default)]
    pub examples: Option<Value>,
}

fn flag<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    Ok(matches!(
        Value::deserialize(deserializer)?,
        Value::Bool(true)
    ))
}

const METHODS: &[&str] = &["get", "post", "put", "patch", "delete"];

impl Spec {
    pub fn read(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| anyhow::anyhow!("cannot read {}: {error}", path.display()))?;
        crate::yaml::from_str(&text).map_err(|error| {
            anyhow::anyhow!("{} is not an OpenAPI v2 document: {error}", path.display())
        })
    }

    /// Every operation, in path order.
    pub fn operations(&self) -> Vec<Operation> {
        let mut found = Vec::new();
        for (path, item) in &self.paths {
            for (method, value) in item {
                if !METHODS.contains(&method.as_str()) {
                    continue;
                }
                let Ok(mut operation) = serde_json::from_value::<Operation>(value.clone()) else {
                    continue;
                };
                operation.method = method.to_uppercase();
                operation.path = path.strip_prefix("/api/v4").unwrap_or(path).to_owned();
                found.push(operation);
            }
        }
        found
    }

    /// The definition a `{"$ref": "#/definitions/X"}` names.
    pub fn definition(&self, reference: &Value) -> Option<(&str, &Definition)> {
        let name = reference
            .get("$ref")?
            .as_str()?
            .strip_prefix("#/definitions/")?;
        self.definitions
            .get_key_value(name)
            .map(|(name, definition)| (name.as_str(), definition))
    }
}

/// Paths GitLab renamed and still serves under the old name, both in the spec (the
/// Integrations API was the Services API): an action on the new path serves the old one.
const RENAMED: &[(&str, &str)] = &[("/projects/{}/services", "/projects/{}/integrations")];

/// The shapes of a spec path as the catalog writes them: `spec_shapes`, a renamed path
/// under its current name.
pub fn current_shapes(path: &str) -> Vec<String> {
    spec_shapes(path)
        .into_iter()
        .map(|shape| {
            RENAMED
                .iter()
                .find_map(|(old, new)| {
                    let rest = shape.strip_prefix(old)?;
                    (rest.is_empty() || rest.starts_with('/')).then(|| format!("{new}{rest}"))
                })
                .unwrap_or(shape)
        })
        .collect()
}

/// The shapes of a catalog path, each path parameter with a fixed set of values (an
/// integration's `{slug}`) also written as each value: the spec has one operation per
/// value where the catalog has one action.
pub fn served_shapes(path: &str, values_of: impl Fn(&str) -> Vec<String>) -> Vec<String> {
    let mut paths = vec![path.to_owned()];
    for segment in path.split('/') {
        let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
            continue;
        };
        let written: Vec<String> = values_of(name)
            .iter()
            .flat_map(|value| {
                paths.iter().map(move |path| {
                    path.split('/')
                        .map(|s| if s == segment { value.as_str() } else { s })
                        .collect::<Vec<_>>()
                        .join("/")
                })
            })
            .collect();
        paths.extend(written);
    }
    paths.iter().map(|path| shape(path)).collect()
}

/// The shapes a spec path stands for: both sides of each optional `( )` group, each
/// placeholder (`{x}`, `*x`, or `{x}` inside a segment) written `{}`.
pub fn spec_shapes(path: &str) -> Vec<String> {
    expand_optional(path)
        .iter()
        .map(|variant| shape(variant))
        .collect()
}

fn expand_optional(path: &str) -> Vec<String> {
    let Some(open) = path.find('(') else {
        return vec![path.to_owned()];
    };
    let Some(length) = path[open..].find(')') else {
        return vec![path.to_owned()];
    };
    let close = open + length;
    let (before, inner, after) = (&path[..open], &path[open + 1..close], &path[close + 1..]);
    let mut variants = expand_optional(&format!("{before}{inner}{after}"));
    variants.extend(expand_optional(&format!("{before}{after}")));
    variants
}

/// `/projects/{project_id}/merge_requests` → `/projects/{}/merge_requests`.
pub fn shape(path: &str) -> String {
    let path = path.strip_prefix("/api/v4").unwrap_or(path);
    let segments: Vec<String> = path
        .split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| {
            if segment.starts_with('*') || segment.starts_with(':') {
                return "{}".to_owned();
            }
            let mut out = String::new();
            let mut rest = segment;
            while let Some(start) = rest.find('{') {
                let Some(end) = rest[start..].find('}') else {
                    break;
                };
                out.push_str(&rest[..start]);
                out.push_str("{}");
                rest = &rest[start + end + 1..];
            }
            out.push_str(rest);
            out
        })
        .collect();
    format!("/{}", segments.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_ignore_placeholder_names_and_expand_grape_syntax() {
        assert_eq!(
            shape("/api/v4/projects/{id}/merge_requests/{merge_request_iid}"),
            "/projects/{}/merge_requests/{}"
        );
        assert_eq!(
            shape("/projects/:id/jobs/:job_id/artifacts/*artifact_path"),
            "/projects/{}/jobs/{}/artifacts/{}"
        );
        assert_eq!(
            spec_shapes("/projects/{id}/(-/)search"),
            ["/projects/{}/-/search", "/projects/{}/search"]
        );
        assert_eq!(
            spec_shapes("/projects/{id}/(ref/{ref}/)trigger/pipeline"),
            [
                "/projects/{}/ref/{}/trigger/pipeline",
                "/projects/{}/trigger/pipeline"
            ]
        );
        assert_eq!(shape("/x/binary-{architecture}/y"), "/x/binary-{}/y");
    }

    #[test]
    fn an_old_path_is_read_under_its_new_name() {
        assert_eq!(
            current_shapes("/projects/{id}/services/asana"),
            ["/projects/{}/integrations/asana"]
        );
        assert_eq!(
            current_shapes("/projects/{id}/services"),
            ["/projects/{}/integrations"]
        );
        // Only the path GitLab renamed: a segment that merely begins alike is another.
        assert_eq!(
            current_shapes("/projects/{id}/services_usage"),
            ["/projects/{}/services_usage"]
        );
    }

    #[test]
    fn a_parameter_with_fixed_values_serves_each_of_them_as_written() {
        let values = |name: &str| match name {
            "slug" => vec!["asana".to_owned(), "jira".to_owned()],
            _ => Vec::new(),
        };
        assert_eq!(
            served_shapes("/projects/{project_id}/integrations/{slug}", values),
            [
                "/projects/{}/integrations/{}",
                "/projects/{}/integrations/asana",
                "/projects/{}/integrations/jira"
            ]
        );
        assert_eq!(
            served_shapes("/projects/{project_id}/pipelines/{pipeline_id}", values),
            ["/projects/{}/pipelines/{}"]
        );
    }
}

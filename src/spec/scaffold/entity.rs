//! The entity type an operation returns, drafted for `types:`, and sandbox records of it.
//!
//! Fields come from GitLab's own response schema when one is found (`--schemas`: which
//! fields GitLab always sends non-null, which are dates), else from the spec's response
//! model (every field optional: the spec does not say what may be null). Nested objects
//! are left out and listed for review. Records are the response's example when the spec
//! has one, else values made from each field's name and type.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::super::{Definition, Parameter, Schemas};
use super::naming::{camel, capitalised, snake_of};

/// A drafted field: its name, our type (`string`, `datetime`, `[string]`, ...) and whether
/// GitLab always sends it.
#[derive(Debug, Clone)]
pub struct DraftField {
    pub name: String,
    pub ty: String,
    pub required: bool,
    pub example: Option<Value>,
}

/// A drafted entity type.
#[derive(Debug, Clone)]
pub struct DraftType {
    pub name: String,
    pub fields: Vec<DraftField>,
    /// Where the fields came from, for the description and the review.
    pub source: String,
    /// Fields left out (nested objects and lists of them), for the review.
    pub left_out: Vec<String>,
}

/// The type named `name` (`Badge`), from the response schemas when a file fits, else from
/// the spec's definition.
pub fn draft(
    name: &str,
    collection: &str,
    definition: Option<&Definition>,
    schemas: Option<&Schemas>,
) -> Option<DraftType> {
    if let Some(schemas) = schemas {
        let snake = snake_of(name);
        let singular = super::naming::singular(collection);
        for file in [format!("{snake}.json"), format!("{singular}.json")] {
            if let Ok(shape) = schemas.load(&file) {
                let mut fields = Vec::new();
                let mut left_out = Vec::new();
                for (field, property) in &shape.properties {
                    let nullable = property.types.contains("null") || property.types.is_empty();
                    let items = property.items.as_deref();
                    let ty = if property.types.contains("array") {
                        items
                            .and_then(|items| scalar(&items.types, items.format.as_deref()))
                            .map(|inner| format!("[{inner}]"))
                    } else {
                        scalar(&property.types, property.format.as_deref())
                    };
                    match ty {
                        Some(ty) => fields.push(DraftField {
                            name: field.clone(),
                            ty: named_type(field, &ty),
                            required: shape.required.contains(field) && !nullable,
                            example: None,
                        }),
                        None => left_out.push(field.clone()),
                    }
                }
                return Some(DraftType {
                    name: name.to_owned(),
                    fields,
                    source: format!("GitLab's response schema public_api/v4/{file}"),
                    left_out,
                });
            }
        }
    }
    let definition = definition?;
    let mut fields = Vec::new();
    let mut left_out = Vec::new();
    for (field, property) in &definition.properties {
        match spec_type(property) {
            Some(ty) => fields.push(DraftField {
                name: field.clone(),
                ty: named_type(field, &ty),
                required: false,
                example: property.example.clone(),
            }),
            None => left_out.push(field.clone()),
        }
    }
    Some(DraftType {
        name: name.to_owned(),
        fields,
        source: "the spec's response model".to_owned(),
        left_out,
    })
}

/// A JSON Schema's scalar types as ours; none for objects.
fn scalar(types: &std::collections::BTreeSet<String>, format: Option<&str>) -> Option<String> {
    let ty = types.iter().find(|t| *t != "null")?;
    Some(
        match (ty.as_str(), format) {
            ("string", Some("date-time")) => "datetime",
            ("string", Some("date")) => "date",
            ("string", Some("uri")) => "url",
            ("string", _) => "string",
            ("integer", _) => "integer",
            ("number", _) => "number",
            ("boolean", _) => "boolean",
            _ => return None,
        }
        .to_owned(),
    )
}

fn spec_type(property: &Parameter) -> Option<String> {
    match property.ty.as_str() {
        "string" | "integer" | "number" | "boolean" => Some(property.ty.clone()),
        "array" => match property.items.as_deref().map(|i| i.ty.as_str()) {
            Some(inner @ ("string" | "integer")) => Some(format!("[{inner}]")),
            _ => None,
        },
        _ => None,
    }
}

/// A string named like a date or an address is one (`created_at`, `web_url`).
fn named_type(field: &str, ty: &str) -> String {
    match ty {
        "string" if field.ends_with("_at") => "datetime".to_owned(),
        "string" if field == "web_url" || field.ends_with("_url") => "url".to_owned(),
        other => other.to_owned(),
    }
}

impl DraftType {
    fn has(&self, field: &str) -> bool {
        self.fields.iter().any(|f| f.name == field)
    }

    /// The field that names one (`name`, `title`, `username`), if any.
    fn label_field(&self) -> Option<&str> {
        ["name", "title", "username", "path"]
            .into_iter()
            .find(|field| self.has(field))
    }

    /// The YAML under `types:`, two spaces in.
    pub fn yaml(&self) -> String {
        let mut out = String::new();
        let kind = self.name.chars().fold(String::new(), |mut kind, c| {
            if c.is_ascii_uppercase() && !kind.is_empty() {
                kind.push(' ');
            }
            kind.push(c);
            kind
        });
        let _ = writeln!(out, "  {}:", self.name);
        let _ = writeln!(
            out,
            "    description: {} as GitLab returns it (drafted from {}).",
            capitalised(&kind.to_lowercase()),
            self.source
        );
        if let Some(label) = self.label_field() {
            let _ = writeln!(out, "    heading: {label}");
        }
        if self.has("web_url") {
            let _ = writeln!(out, "    link: web_url");
        }
        let _ = writeln!(out, "    fields:");
        for field in &self.fields {
            let required = if field.required {
                ", required: true"
            } else {
                ""
            };
            let ty = if field.ty.starts_with('[') {
                format!("\"{}\"", field.ty)
            } else {
                field.ty.clone()
            };
            let _ = writeln!(out, "      {}: {{type: {ty}{required}}}", field.name);
        }
        let shown: Vec<&DraftField> = self
            .fields
            .iter()
            .filter(|f| !f.ty.starts_with('[') && f.name != "web_url")
            .collect();
        let label = self.label_field();
        let _ = writeln!(out, "    card:");
        for field in shown
            .iter()
            .filter(|f| Some(f.name.as_str()) != label)
            .take(6)
        {
            let _ = writeln!(out, "      - {{field: {}}}", field.name);
        }
        let _ = writeln!(out, "    table:");
        let mut columns: Vec<&str> = label.into_iter().collect();
        columns.extend(
            shown
                .iter()
                .map(|f| f.name.as_str())
                .filter(|name| Some(*name) != label && *name != "id"),
        );
        for field in columns.into_iter().take(4) {
            let _ = writeln!(out, "      - {{field: {field}}}");
        }
        out
    }

    /// Two records for the sandbox: the example's values, else values made from each
    /// field's name and type, under the parent the path implies.
    pub fn records(&self, example: Option<&Value>, parent: Option<(&str, i64)>) -> Vec<Value> {
        let base: Vec<Map<String, Value>> = match example {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|i| i.as_object().cloned())
                .collect(),
            Some(Value::Object(item)) => vec![item.clone()],
            _ => Vec::new(),
        };
        let made = (1..=2).map(|n| {
            let mut record = Map::new();
            for field in &self.fields {
                let value = field
                    .example
                    .clone()
                    .filter(|_| n == 1)
                    .map(|example| fitted(field, example))
                    .unwrap_or_else(|| made_value(field, n, &self.name));
                record.insert(field.name.clone(), value);
            }
            record
        });
        let records: Vec<Map<String, Value>> = if base.is_empty() {
            made.collect()
        } else {
            base
        };
        records
            .into_iter()
            .map(|mut record| {
                if let Some((key, id)) = parent {
                    record.insert(key.to_owned(), json!(id));
                }
                Value::Object(record)
            })
            .collect()
    }
}

/// A field's example as its type reads it: the spec gives one item for a list at times
/// (`architectures: amd64` for `[string]`), which the sandbox record must not copy.
fn fitted(field: &DraftField, example: Value) -> Value {
    if field.ty.starts_with('[') && !example.is_array() {
        Value::Array(vec![example])
    } else {
        example
    }
}

fn made_value(field: &DraftField, n: i64, type_name: &str) -> Value {
    let thing = snake_of(type_name).replace('_', "-");
    match field.ty.as_str() {
        "integer" => json!(n),
        "number" => json!(n as f64 + 0.5),
        "boolean" => json!(n == 1),
        "datetime" => json!(format!("2025-01-1{n}T10:30:00.000Z")),
        "date" => json!(format!("2025-01-1{n}")),
        "url" => json!(format!(
            "https://gitlab.example.com/acme/platform/api/-/{thing}/{n}"
        )),
        "[string]" => json!([format!("{}-{n}", field.name.replace('_', "-"))]),
        "[integer]" => json!([n]),
        _ if field.name == "id" => json!(n.to_string()),
        _ => json!(format!(
            "{} {} {n}",
            camel(&thing.replace('-', "_")),
            field.name.replace('_', " ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_records_example_fits_its_fields_type() {
        let field = |name: &str, ty: &str, example: Value| DraftField {
            name: name.to_owned(),
            ty: ty.to_owned(),
            required: true,
            example: Some(example),
        };
        let ty = DraftType {
            name: "Distribution".to_owned(),
            fields: vec![
                field("architectures", "[string]", json!("amd64")),
                field("components", "[string]", json!(["main"])),
                field("codename", "string", json!("bookworm")),
            ],
            source: String::new(),
            left_out: Vec::new(),
        };
        let records = ty.records(None, None);
        assert_eq!(records[0]["architectures"], json!(["amd64"]));
        assert_eq!(records[0]["components"], json!(["main"]));
        assert_eq!(records[0]["codename"], json!("bookworm"));
        assert!(records[1]["architectures"].is_array());
    }
}

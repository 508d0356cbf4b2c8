//! `gitlab-mcp shape-check <schemas-dir>`: holds each entity type to the JSON Schema GitLab's
//! own API tests check real responses against (`spec/fixtures/api/schemas/` in GitLab's
//! repository), and derives the test fixtures that prove decoding accepts every shape those
//! schemas allow.
//!
//! A type names its schema with `gitlab_schema:` in `actions/shared.yaml`. For each declared
//! field the check asks: does GitLab send it, is it only `required` here when GitLab always
//! sends it non-null, and can `conform` read every type GitLab allows for it. The fixtures
//! (`tests/fixtures/shapes/<Type>.json`) hold three instances per type, built from the
//! schema: every property present, every nullable one null, and only the required ones.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::catalog::{ENTITIES, Entity, FieldType};

/// A property's resolved schema: the types it may take and, for objects and arrays, what
/// they hold.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    /// `string`, `integer`, `number`, `boolean`, `object`, `array`, `null`.
    pub types: BTreeSet<String>,
    pub properties: BTreeMap<String, Shape>,
    pub required: BTreeSet<String>,
    pub items: Option<Box<Shape>>,
    pub format: Option<String>,
    /// `additionalProperties: false`: GitLab sends no other field.
    pub closed: bool,
}

impl Shape {
    fn nullable(&self) -> bool {
        self.types.contains("null") || self.types.is_empty()
    }

    fn merge(&mut self, other: Shape) {
        self.types.extend(other.types);
        for (name, shape) in other.properties {
            match self.properties.get_mut(&name) {
                Some(existing) => existing.merge(shape),
                None => {
                    self.properties.insert(name, shape);
                }
            }
        }
        self.required.extend(other.required);
        if let Some(items) = other.items {
            match &mut self.items {
                Some(existing) => existing.merge(*items),
                None => self.items = Some(items),
            }
        }
        self.format = self.format.take().or(other.format);
        self.closed |= other.closed;
    }
}

/// Reads schemas under a `spec/fixtures/api/schemas/` folder, resolving `$ref`s.
pub struct Schemas {
    root: PathBuf,
}

impl Schemas {
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_owned(),
        }
    }

    /// The schema of `public_api/v4/<name>`, resolved.
    pub fn load(&self, name: &str) -> anyhow::Result<Shape> {
        let path = self.root.join("public_api/v4").join(name);
        let shape = self.file(&path, 0)?;
        // A list schema (`notes.json`) describes its items.
        Ok(match shape.items {
            Some(items) if shape.types.contains("array") => *items,
            _ => shape,
        })
    }

    fn file(&self, path: &Path, depth: usize) -> anyhow::Result<Shape> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| anyhow::anyhow!("cannot read {}: {error}", path.display()))?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|error| anyhow::anyhow!("{} is not JSON: {error}", path.display()))?;
        Ok(self.shape(&value, path.parent().unwrap_or(&self.root), depth))
    }

    fn shape(&self, value: &Value, dir: &Path, depth: usize) -> Shape {
        let mut shape = Shape::default();
        if depth > 12 {
            return shape;
        }
        if let Some(reference) = value.get("$ref").and_then(Value::as_str) {
            // Some upstream files reach the same folder through a long relative path.
            let target = match reference.split_once("spec/fixtures/api/schemas/") {
                Some((_, rest)) => self.root.join(rest),
                None => dir.join(reference),
            };
            if let Ok(resolved) = self.file(&target, depth + 1) {
                shape.merge(resolved);
            }
        }
        match value.get("type") {
            Some(Value::String(ty)) => {
                shape.types.insert(normal_type(ty));
            }
            Some(Value::Array(types)) => {
                shape
                    .types
                    .extend(types.iter().filter_map(Value::as_str).map(normal_type));
            }
            // An `enum` without a `type` (deploy token `scopes` items) allows the types of
            // its values.
            _ => {
                for allowed in value
                    .get("enum")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let ty = match allowed {
                        Value::String(_) => "string",
                        Value::Bool(_) => "boolean",
                        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
                        Value::Number(_) => "number",
                        Value::Null => "null",
                        Value::Array(_) => "array",
                        Value::Object(_) => "object",
                    };
                    shape.types.insert(ty.to_owned());
                }
            }
        }
        if value.get("additionalProperties") == Some(&Value::Bool(false)) {
            shape.closed = true;
        }
        if let Some(format) = value.get("format").and_then(Value::as_str) {
            shape.format = Some(format.to_owned());
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            for part in value
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                shape.merge(self.shape(part, dir, depth + 1));
            }
        }
        if let Some(properties) = value.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                if property.is_object() {
                    let property = self.shape(property, dir, depth + 1);
                    match shape.properties.get_mut(name) {
                        Some(existing) => existing.merge(property),
                        None => {
                            shape.properties.insert(name.clone(), property);
                        }
                    }
                }
            }
            if shape.types.is_empty() {
                shape.types.insert("object".into());
            }
        }
        if let Some(required) = value.get("required").and_then(Value::as_array) {
            shape
                .required
                .extend(required.iter().filter_map(Value::as_str).map(str::to_owned));
        }
        if let Some(items) = value.get("items") {
            shape.items = Some(Box::new(self.shape(items, dir, depth + 1)));
        }
        shape
    }
}

/// Older files write `date`, `date-time`, `uri` or `"string "` as types: all strings.
fn normal_type(ty: &str) -> String {
    match ty.trim() {
        "date" | "date-time" | "datetime" | "uri" | "text" => "string".to_owned(),
        other => other.to_owned(),
    }
}

/// What `shape-check` found.
#[derive(Debug, Default)]
pub struct ShapeReport {
    pub checked: Vec<&'static str>,
    pub unmapped: Vec<&'static str>,
    /// Fields GitLab's schema does not describe (it lists only what its tests check):
    /// documented elsewhere, not a problem unless the schema forbids other fields.
    pub undescribed: Vec<String>,
    pub problems: Vec<String>,
}

impl ShapeReport {
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }

    pub fn text(&self) -> String {
        let mut out = format!(
            "{} entity types checked against GitLab's response schemas; {} have none (handler results, computed or undocumented shapes): {}.\n",
            self.checked.len(),
            self.unmapped.len(),
            self.unmapped.join(", ")
        );
        if !self.undescribed.is_empty() {
            let _ = writeln!(
                out,
                "{} declared fields are not in GitLab's schemas, which list only what GitLab's tests check: {}.",
                self.undescribed.len(),
                self.undescribed.join(", ")
            );
        }
        if !self.problems.is_empty() {
            let _ = writeln!(out, "\nProblems:");
            for problem in &self.problems {
                let _ = writeln!(out, "  {problem}");
            }
        }
        out
    }
}

/// Holds every entity with a `gitlab_schema` to it.
pub fn check(schemas: &Schemas) -> ShapeReport {
    let mut report = ShapeReport::default();
    for entity in ENTITIES {
        let Some(name) = entity.gitlab_schema else {
            report.unmapped.push(entity.name);
            continue;
        };
        match schemas.load(name) {
            Ok(shape) => {
                report.checked.push(entity.name);
                check_object(entity, &shape, entity.name, &mut report);
            }
            Err(error) => report.problems.push(format!("{}: {error}", entity.name)),
        }
    }
    report
}

fn check_object(entity: &Entity, shape: &Shape, at: &str, report: &mut ShapeReport) {
    for field in entity.fields {
        let path = format!("{at}.{}", field.name);
        let Some(property) = shape.properties.get(field.name) else {
            // GitLab's schemas are partial and some are old: a field its documentation gives
            // but the schema lacks is noted, not refused. (Where the schema allows no other
            // field, it describes an older or smaller entity.)
            report.undescribed.push(if shape.closed {
                format!("{path} (closed schema)")
            } else {
                path
            });
            continue;
        };
        if field.required && (!shape.required.contains(field.name) || property.nullable()) {
            report.problems.push(format!(
                "{path}: required here, but GitLab may leave it out or send null; make it optional"
            ));
        }
        check_type(&field.ty, field.required, property, &path, report);
    }
}

fn check_type(ty: &FieldType, required: bool, shape: &Shape, path: &str, report: &mut ShapeReport) {
    let sent: BTreeSet<&str> = shape
        .types
        .iter()
        .map(String::as_str)
        .filter(|t| *t != "null")
        .collect();
    if sent.is_empty() {
        return;
    }
    // What `conform` reads for each declared type; text that is not a number is read only
    // where the field is optional (it is then left out).
    let readable: &[&str] = match ty {
        FieldType::String => &["string", "integer", "number", "boolean"],
        FieldType::Integer if required => &["integer"],
        FieldType::Integer => &["integer", "string"],
        FieldType::Number if required => &["integer", "number"],
        FieldType::Number => &["integer", "number", "string"],
        FieldType::Boolean => &["boolean"],
        FieldType::Entity(_) => &["object"],
        FieldType::List(_) => &["array"],
    };
    let unreadable: Vec<&str> = sent
        .iter()
        .filter(|t| !readable.contains(t))
        .copied()
        .collect();
    if !unreadable.is_empty() {
        report.problems.push(format!(
            "{path}: GitLab may send {}, which this type cannot read",
            unreadable.join(" or ")
        ));
    }
    match ty {
        FieldType::Entity(nested) if nested.gitlab_schema.is_none() => {
            check_object(nested, shape, path, report);
        }
        FieldType::List(item) => {
            if let Some(items) = &shape.items {
                check_type(item, true, items, &format!("{path}[]"), report);
            }
        }
        _ => {}
    }
}

/// The fixture instances of every entity with a schema: `{type name: {"schema": ...,
/// "instances": {"full": ..., "nulls": ..., "sparse": ...}}}`.
pub fn fixtures(schemas: &Schemas) -> anyhow::Result<BTreeMap<&'static str, Value>> {
    let mut out = BTreeMap::new();
    for entity in ENTITIES {
        let Some(name) = entity.gitlab_schema else {
            continue;
        };
        let shape = schemas.load(name)?;
        let mut full = instance(&shape, Variant::Full, 0);
        numbers_as_text(&mut full, entity);
        out.insert(
            entity.name,
            json!({
                "schema": name,
                "instances": {
                    "full": full,
                    "nulls": instance(&shape, Variant::Nulls, 0),
                    "sparse": instance(&shape, Variant::Sparse, 0),
                },
            }),
        );
    }
    Ok(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// Every property, each in its first non-null type.
    Full,
    /// Every property; the nullable ones null.
    Nulls,
    /// Only the required properties.
    Sparse,
}

fn instance(shape: &Shape, variant: Variant, depth: usize) -> Value {
    let first = shape
        .types
        .iter()
        .map(String::as_str)
        .filter(|t| *t != "null")
        .find(|t| *t != "object" || !shape.properties.is_empty() || shape.types.len() == 1)
        .unwrap_or("null");
    match first {
        "object" if depth < 4 => {
            let mut object = Map::new();
            for (name, property) in &shape.properties {
                let required = shape.required.contains(name);
                let value = match variant {
                    Variant::Sparse if !required => continue,
                    Variant::Nulls if property.nullable() && !property.types.is_empty() => {
                        Value::Null
                    }
                    _ => instance(property, variant, depth + 1),
                };
                object.insert(name.clone(), value);
            }
            Value::Object(object)
        }
        "object" => json!({}),
        "array" => match &shape.items {
            Some(items) if depth < 4 => json!([instance(items, Variant::Full, depth + 1)]),
            _ => json!([]),
        },
        "string" => Value::String(text_for(shape)),
        "integer" => json!(7),
        "number" => json!(12.5),
        "boolean" => json!(true),
        _ => Value::Null,
    }
}

/// Where GitLab sends text for what this type reads as a number (pipeline `coverage`), the
/// text is a number, as GitLab writes it (`"12.5"`).
fn numbers_as_text(value: &mut Value, entity: &Entity) {
    let Value::Object(object) = value else {
        return;
    };
    for field in entity.fields {
        let Some(value) = object.get_mut(field.name) else {
            continue;
        };
        match (&field.ty, &*value) {
            (FieldType::Number, Value::String(_)) => *value = json!("12.5"),
            (FieldType::Integer, Value::String(_)) => *value = json!("7"),
            (FieldType::Entity(nested), Value::Object(_)) => numbers_as_text(value, nested),
            _ => {}
        }
    }
}

/// A string as GitLab would send it for the property's format.
fn text_for(shape: &Shape) -> String {
    match shape.format.as_deref() {
        Some("date-time") => "2025-01-15T10:30:00.000Z".to_owned(),
        Some("date") => "2025-01-15".to_owned(),
        Some("uri") => "https://gitlab.example.com/acme/app".to_owned(),
        _ => "text".to_owned(),
    }
}

/// Writes the fixtures as `<dir>/<Type>.json`; or, with `check`, lists the stale ones.
pub fn write_fixtures(schemas: &Schemas, dir: &Path, check: bool) -> anyhow::Result<Vec<PathBuf>> {
    let mut stale = Vec::new();
    if !check {
        std::fs::create_dir_all(dir)?;
    }
    for (name, fixture) in fixtures(schemas)? {
        let path = dir.join(format!("{name}.json"));
        let text = format!("{}\n", crate::output::json::to_pretty(&fixture));
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            if !check {
                std::fs::write(&path, &text)?;
            }
            stale.push(path);
        }
    }
    Ok(stale)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(value: Value) -> Shape {
        Schemas::new(Path::new("/nonexistent")).shape(&value, Path::new("/nonexistent"), 0)
    }

    #[test]
    fn merges_all_of_one_of_and_reads_quirky_types() {
        let shape = shape(json!({
            "type": "object",
            "allOf": [
                {"required": ["id"], "properties": {"id": {"type": "integer"}}},
                {"properties": {
                    "coverage": {"type": ["string", "null"]},
                    "user": {"oneOf": [{"type": "null"}, {"type": "object", "properties": {"username": {"type": "string "}}}]},
                    "due": {"type": "date"}
                }}
            ]
        }));
        assert!(shape.required.contains("id"));
        assert!(shape.properties["coverage"].nullable());
        assert!(shape.properties["user"].nullable());
        assert!(
            shape.properties["user"].properties["username"]
                .types
                .contains("string")
        );
        assert!(shape.properties["due"].types.contains("string"));
    }

    #[test]
    fn instances_cover_nulls_and_absences() {
        let shape = shape(json!({
            "type": "object",
            "required": ["id"],
            "properties": {
                "id": {"type": "integer"},
                "coverage": {"type": ["string", "null"]},
                "at": {"type": ["string", "null"], "format": "date-time"}
            }
        }));
        assert_eq!(
            instance(&shape, Variant::Full, 0),
            json!({"id": 7, "coverage": "text", "at": "2025-01-15T10:30:00.000Z"})
        );
        assert_eq!(
            instance(&shape, Variant::Nulls, 0),
            json!({"id": 7, "coverage": null, "at": null})
        );
        assert_eq!(instance(&shape, Variant::Sparse, 0), json!({"id": 7}));
    }
}

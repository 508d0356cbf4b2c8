//! JSON Schemas of action inputs and outputs, derived from the generated types by schemars.
//!
//! schemars describes the Rust types faithfully; this module trims what a model or client
//! does not need and pays for in every `tools/list`: the `$schema` and root `title`,
//! integer `format`s, `null` alternatives (we never send or expect `null`: absent fields are
//! omitted) and, in output schemas, descriptions. Output schemas also gain `next_steps`,
//! which the dispatcher adds to every result.

use schemars::JsonSchema;
use schemars::generate::{Contract, SchemaSettings};
use serde_json::{Map, Value, json};

/// The input schema of a params type: what a caller may send.
pub fn input<T: JsonSchema>() -> Value {
    let mut schema = generate::<T>(Contract::Deserialize);
    compact(&mut schema, Keep::Descriptions);
    schema
}

/// The output schema of a result type, with the `next_steps` every result may carry.
///
/// The result's own fields are typed one by one; an embedded record (an author, a
/// pipeline, a list item's nested user) is typed as an object with its required keys. That
/// keeps every schema true to what is sent while costing a tools/list a fraction of the
/// bytes; `gitlab://tools/{id}` serves the same schema.
pub fn output<T: JsonSchema>() -> Value {
    let mut schema = generate::<T>(Contract::Serialize);
    compact(&mut schema, Keep::Types);
    shallow_definitions(&mut schema);
    drop_unreferenced_definitions(&mut schema);
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.insert(
            "next_steps".into(),
            json!({"type": "array", "items": {"type": "string"}}),
        );
    }
    schema
}

/// Keeps only `type` and `required` of nested definitions, except those a list is made of
/// (`merge_requests: [MergeRequestSummary]`), whose fields are the result's own.
fn shallow_definitions(schema: &mut Value) {
    // A list result has one field besides `pagination` and `next_steps`: its items.
    let listed: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            let own: Vec<&Value> = properties
                .iter()
                .filter(|(key, _)| !matches!(key.as_str(), "pagination" | "next_steps"))
                .map(|(_, value)| value)
                .collect();
            match own.as_slice() {
                [items] => items
                    .get("items")
                    .and_then(|i| i.get("$ref"))
                    .and_then(Value::as_str)
                    .map(|r| vec![r.trim_start_matches("#/$defs/").to_owned()])
                    .unwrap_or_default(),
                _ => Vec::new(),
            }
        })
        .unwrap_or_default();
    let Some(definitions) = schema.get_mut("$defs").and_then(Value::as_object_mut) else {
        return;
    };
    for (name, definition) in definitions.iter_mut() {
        if listed.contains(name) {
            // A list item's own nested records are shallow too.
            if let Some(properties) = definition
                .get_mut("properties")
                .and_then(Value::as_object_mut)
            {
                for property in properties.values_mut() {
                    if property.get("$ref").is_some() {
                        *property = json!({"type": "object"});
                    } else if property.get("items").and_then(|i| i.get("$ref")).is_some() {
                        *property = json!({"type": "array", "items": {"type": "object"}});
                    }
                }
            }
            continue;
        }
        if let Some(object) = definition.as_object_mut() {
            object.retain(|key, _| key == "type" || key == "required");
        }
    }
}

/// Once a list item's nested records are plain objects, their definitions (`UserRef` in a
/// merge request list) are referenced by nothing; every tools/list would still carry them.
fn drop_unreferenced_definitions(schema: &mut Value) {
    let mut referenced = Vec::new();
    collect_references(schema, &mut referenced);
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(definitions) = object.get_mut("$defs").and_then(Value::as_object_mut) {
        definitions.retain(|name, _| referenced.iter().any(|r| r == name));
        if definitions.is_empty() {
            object.remove("$defs");
        }
    }
}

fn collect_references(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, value) in object {
                match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => {
                        found.push(target.trim_start_matches("#/$defs/").to_owned());
                    }
                    _ => collect_references(value, found),
                }
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| collect_references(item, found)),
        _ => {}
    }
}

fn generate<T: JsonSchema>(contract: Contract) -> Value {
    let settings = SchemaSettings::draft2020_12().with(|settings| {
        settings.meta_schema = None;
        settings.contract = contract;
    });
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    Descriptions,
    Types,
}

fn compact(schema: &mut Value, keep: Keep) {
    if let Some(object) = schema.as_object_mut() {
        object.remove("title");
        // The struct's doc comment ("Parameters of ..."): the tool's description says it.
        object.remove("description");
    }
    strip(schema, keep);
}

fn strip(value: &mut Value, keep: Keep) {
    match value {
        Value::Object(object) => {
            object.remove("format");
            if keep == Keep::Types {
                object.remove("description");
            }
            if object
                .get("default")
                .is_some_and(|d| d.is_null() || d.as_array().is_some_and(Vec::is_empty))
            {
                object.remove("default");
            }
            drop_null_type(object);
            for (key, child) in object.iter_mut() {
                // Property names are data, not keywords: `properties.description` is a field.
                if key == "properties" || key == "$defs" {
                    if let Value::Object(children) = child {
                        children.values_mut().for_each(|c| strip(c, keep));
                    }
                } else {
                    strip(child, keep);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| strip(item, keep)),
        _ => {}
    }
}

/// `"type": ["string", "null"]` → `"type": "string"`; `anyOf: [X, {"type": "null"}]` → X;
/// `"enum": ["a", null]` → `"enum": ["a"]`.
fn drop_null_type(object: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            object.insert("type".into(), only);
        }
    }
    let single = match object.get_mut("anyOf") {
        Some(Value::Array(options)) => {
            options.retain(|o| o.get("type").is_none_or(|t| t != "null"));
            (options.len() == 1).then(|| options.remove(0))
        }
        _ => None,
    };
    if let Some(Value::Object(only)) = single {
        object.remove("anyOf");
        for (key, value) in only {
            object.entry(key).or_insert(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(JsonSchema, serde::Deserialize, serde::Serialize)]
    #[allow(dead_code, reason = "only the schema is under test")]
    struct Sample {
        /// An id.
        id: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    }

    #[test]
    fn input_schemas_keep_descriptions_and_drop_nulls_and_formats() {
        let schema = input::<Sample>();
        assert_eq!(
            schema["properties"]["id"],
            json!({"type": "integer", "description": "An id."})
        );
        assert_eq!(schema["properties"]["name"], json!({"type": "string"}));
        assert!(schema.get("title").is_none() && schema.get("$schema").is_none());
    }

    #[test]
    fn output_schemas_drop_descriptions_and_add_next_steps() {
        let schema = output::<Sample>();
        assert_eq!(schema["properties"]["id"], json!({"type": "integer"}));
        assert_eq!(
            schema["properties"]["next_steps"]["items"]["type"],
            "string"
        );
        assert_eq!(schema["required"], json!(["id"]));
    }

    #[derive(JsonSchema, serde::Serialize)]
    struct Author {
        username: String,
    }

    #[derive(JsonSchema, serde::Serialize)]
    struct Row {
        title: String,
        author: Author,
    }

    #[derive(JsonSchema, serde::Serialize)]
    struct Rows {
        rows: Vec<Row>,
    }

    #[test]
    fn list_items_keep_their_fields_and_nested_records_become_plain_objects() {
        let schema = output::<Rows>();
        let row = &schema["$defs"]["Row"];
        assert_eq!(row["properties"]["title"], json!({"type": "string"}));
        assert_eq!(row["properties"]["author"], json!({"type": "object"}));
        // Nothing points at Author any more, so tools/list does not carry it.
        assert!(schema["$defs"].get("Author").is_none(), "{schema}");
    }
}

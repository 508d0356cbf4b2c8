//! The JSON Schemas of every action, computed at build time (build time only).
//!
//! An input schema lists the parameters (types, descriptions, enums, defaults, bounds); an
//! output schema types the result's own fields one by one, and an embedded record (an
//! author, a pipeline) as an object with its required keys, which keeps every schema true
//! to what is sent at a fraction of the bytes a full one costs in each `tools/list`.
//! Objects are written with sorted keys; `required` lists keep declaration order.

use serde_json::{Map, Value, json};

use super::super::kinds::SHOWN_ONCE_KEY;
use super::super::resolve::{Action, EntityType, FieldType, Output, Param, ParamType};

/// The input schema: what a caller may send.
pub fn input(action: &Action) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in &action.params {
        if param.required {
            required.push(json!(param.name));
        }
        properties.insert(param.name.clone(), param_schema(param));
    }
    let mut schema = json!({"type": "object", "additionalProperties": false});
    if !properties.is_empty() {
        schema["properties"] = Value::Object(properties);
    }
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    schema
}

/// The input schema of a destructive action as surfaces that ask for approval offer it:
/// with the `confirm` flag the dispatcher takes out of the arguments.
pub fn confirmed_input(action: &Action) -> Value {
    let mut schema = input(action);
    let confirm = json!({
        "type": "boolean",
        "description": "true only after the user approved this destructive action.",
    });
    match schema.get_mut("properties").and_then(Value::as_object_mut) {
        Some(properties) => {
            properties.insert("confirm".into(), confirm);
        }
        None => schema["properties"] = json!({"confirm": confirm}),
    }
    schema
}

/// One parameter (or an object's field): type, description, enum, default, bounds.
fn param_schema(param: &Param) -> Value {
    let mut schema = Map::new();
    schema.insert("description".into(), json!(param.description));
    let ty = match param.ty {
        ParamType::String => json!("string"),
        ParamType::Integer => json!("integer"),
        ParamType::Number => json!("number"),
        ParamType::Boolean => json!("boolean"),
        ParamType::PathOrId => json!(["string", "integer"]),
        ParamType::StringList | ParamType::IntegerList | ParamType::ObjectList => json!("array"),
        ParamType::StringMap => json!("object"),
    };
    schema.insert("type".into(), ty);
    match param.ty {
        ParamType::StringList => {
            schema.insert("items".into(), json!({"type": "string"}));
        }
        ParamType::IntegerList => {
            schema.insert("items".into(), json!({"type": "integer"}));
        }
        ParamType::StringMap => {
            schema.insert("additionalProperties".into(), json!({"type": "string"}));
        }
        ParamType::ObjectList => {
            let mut properties = Map::new();
            let mut required = Vec::new();
            for field in &param.items {
                if field.required {
                    required.push(json!(field.name));
                }
                properties.insert(field.name.clone(), param_schema(field));
            }
            let mut item = json!({
                "type": "object",
                "properties": properties,
                "additionalProperties": false,
            });
            if !required.is_empty() {
                item["required"] = Value::Array(required);
            }
            schema.insert("items".into(), item);
        }
        _ => {}
    }
    if !param.values.is_empty() {
        schema.insert("enum".into(), json!(param.values));
    }
    if let Some(default) = &param.default {
        schema.insert("default".into(), default.clone());
    }
    if let Some(minimum) = param.minimum {
        schema.insert("minimum".into(), json!(minimum));
    }
    if let Some(maximum) = param.maximum {
        schema.insert("maximum".into(), json!(maximum));
    }
    Value::Object(schema)
}

/// The output schema: every structured result of the action validates against it.
pub fn output(action: &Action, types: &[EntityType]) -> Value {
    let entity = |name: &str| types.iter().find(|t| t.name == name);
    let mut definitions = Map::new();
    let mut schema = match &action.output {
        Output::Message { .. } => json!({
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
        }),
        Output::Single { ty } => match entity(ty) {
            Some(entity) => object(entity, types, Nested::Reference(&mut definitions)),
            None => json!({"type": "object"}),
        },
        Output::List { ty, key, .. } => {
            if let Some(item) = entity(ty) {
                let item_schema = object(item, types, Nested::PlainObject);
                definitions.insert(ty.clone(), item_schema);
            }
            let mut properties = Map::new();
            properties.insert(
                key.clone(),
                json!({"type": "array", "items": {"$ref": format!("#/$defs/{ty}")}}),
            );
            let mut required = vec![json!(key)];
            if action.paginated {
                properties.insert("pagination".into(), json!({"$ref": "#/$defs/Pagination"}));
                required.push(json!("pagination"));
                // A GraphQL connection has cursors, not page numbers.
                let required = if action.cursor_paged {
                    json!(["per_page", "has_more"])
                } else {
                    json!(["page", "per_page", "has_more"])
                };
                definitions.insert(
                    "Pagination".into(),
                    json!({"type": "object", "required": required}),
                );
            }
            json!({"type": "object", "properties": properties, "required": required})
        }
    };
    if let Output::Single { ty } = &action.output
        && entity(ty).is_some_and(|e| e.fields.iter().any(|f| f.shown_once))
    {
        // The dispatcher's note beside the secret, when GitLab sent it.
        schema["properties"][SHOWN_ONCE_KEY] = json!({"type": "string"});
    }
    schema["properties"]["next_steps"] = json!({"type": "array", "items": {"type": "string"}});
    if !definitions.is_empty() {
        schema["$defs"] = Value::Object(definitions);
    }
    schema
}

/// How a field holding another entity is typed.
enum Nested<'a> {
    /// `{"$ref": ...}` to a definition holding its type and required keys.
    Reference(&'a mut Map<String, Value>),
    /// `{"type": "object"}`, for the records nested in a list's items.
    PlainObject,
}

/// An entity's fields as they are sent: content-only fields never are, lists may be left
/// out (when empty), every other required field always is.
fn object(entity: &EntityType, types: &[EntityType], mut nested: Nested<'_>) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in entity.fields.iter().filter(|f| !f.content_only) {
        let schema = field_schema(&field.ty, types, &mut nested);
        if field.required && !matches!(field.ty, FieldType::List(_)) {
            required.push(json!(field.name));
        }
        properties.insert(field.name.clone(), schema);
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    schema
}

fn field_schema(ty: &FieldType, types: &[EntityType], nested: &mut Nested<'_>) -> Value {
    match ty {
        FieldType::String => json!({"type": "string"}),
        FieldType::Integer => json!({"type": "integer"}),
        FieldType::Number => json!({"type": "number"}),
        FieldType::Boolean => json!({"type": "boolean"}),
        FieldType::List(item) => {
            json!({"type": "array", "items": field_schema(item, types, nested)})
        }
        FieldType::Entity(name) => match nested {
            Nested::PlainObject => json!({"type": "object"}),
            Nested::Reference(definitions) => {
                if let Some(entity) = types.iter().find(|t| &t.name == name) {
                    definitions.insert(name.clone(), shallow(entity));
                }
                json!({"$ref": format!("#/$defs/{name}")})
            }
        },
    }
}

/// A nested record's type and required keys only.
fn shallow(entity: &EntityType) -> Value {
    let required: Vec<Value> = entity
        .fields
        .iter()
        .filter(|f| f.required && !f.content_only && !matches!(f.ty, FieldType::List(_)))
        .map(|f| json!(f.name))
        .collect();
    let mut schema = json!({"type": "object"});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    schema
}

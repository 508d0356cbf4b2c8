//! Fits a GitLab JSON answer to an entity's declared fields.
//!
//! Real GitLab is looser than its documentation: counts arrive as strings (`"87.1"`),
//! fields are null or absent depending on version and permissions. This pass keeps only the
//! declared fields, converts each to its declared type where the value says the same thing
//! in another spelling, and leaves out an optional field it cannot read rather than failing
//! the whole answer. Only a required field that is missing or unreadable is an error.

use serde_json::{Map, Number, Value};

use super::entity::{Entity, FieldType};

/// The declared fields of `value`, each in its declared type (numbers as `f64`, integers
/// as `i64`); or why a required field could not be read.
pub fn conform(value: Value, entity: &Entity) -> Result<Value, String> {
    let Value::Object(mut raw) = value else {
        return Err(format!("expected an object for {}", entity.name));
    };
    let mut out = Map::new();
    for field in entity.fields {
        let Some(value) = raw.remove(field.name) else {
            if field.required {
                return Err(format!("missing field `{}`", field.name));
            }
            continue;
        };
        match coerce(value, &field.ty) {
            Some(value) if !is_empty(&value) => {
                out.insert(field.name.to_owned(), value);
            }
            _ if field.required => {
                return Err(format!(
                    "field `{}` is not {}",
                    field.name,
                    describe(&field.ty)
                ));
            }
            _ => {}
        }
    }
    Ok(Value::Object(out))
}

fn coerce(value: Value, ty: &FieldType) -> Option<Value> {
    match (ty, value) {
        (_, Value::Null) => None,
        (FieldType::String, Value::String(text)) => Some(Value::String(text)),
        (FieldType::String, Value::Number(n)) => Some(Value::String(n.to_string())),
        (FieldType::String, Value::Bool(flag)) => Some(Value::String(flag.to_string())),
        (FieldType::Integer, Value::Number(n)) => integer(&n).map(Value::from),
        (FieldType::Integer, Value::String(text)) => {
            text.trim().parse::<i64>().ok().map(Value::from)
        }
        (FieldType::Number, Value::Number(n)) => n.as_f64().and_then(float),
        (FieldType::Number, Value::String(text)) => text.trim().parse::<f64>().ok().and_then(float),
        (FieldType::Boolean, Value::Bool(flag)) => Some(Value::Bool(flag)),
        (FieldType::Boolean, Value::String(text)) => match text.as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        (FieldType::Entity(entity), value @ Value::Object(_)) => conform(value, entity).ok(),
        (FieldType::List(item), Value::Array(items)) => Some(Value::Array(
            items
                .into_iter()
                .filter_map(|value| coerce(value, item))
                .filter(|value| !is_empty(value))
                .collect(),
        )),
        _ => None,
    }
}

fn integer(n: &Number) -> Option<i64> {
    n.as_i64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
            .map(|f| f as i64)
    })
}

/// A number as the typed output writes it (`78` reads as `78.0`).
fn float(value: f64) -> Option<Value> {
    Number::from_f64(value).map(Value::Number)
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.is_empty(),
        Value::Object(fields) => fields.is_empty(),
        _ => false,
    }
}

fn describe(ty: &FieldType) -> &'static str {
    match ty {
        FieldType::String => "a string",
        FieldType::Integer => "an integer",
        FieldType::Number => "a number",
        FieldType::Boolean => "a boolean",
        FieldType::Entity(_) => "an object of the expected shape",
        FieldType::List(_) => "a list",
    }
}

/// Removes the fields marked `content_only` (bodies shown in the Markdown), at every level,
/// so nothing large is sent twice.
pub fn strip_content_only(value: &mut Value, entity: &Entity) {
    let Value::Object(fields) = value else {
        return;
    };
    for field in entity.fields {
        if field.content_only {
            fields.remove(field.name);
            continue;
        }
        let Some(inner) = fields.get_mut(field.name) else {
            continue;
        };
        match &field.ty {
            FieldType::Entity(nested) => strip_content_only(inner, nested),
            FieldType::List(FieldType::Entity(nested)) => {
                if let Value::Array(items) = inner {
                    items
                        .iter_mut()
                        .for_each(|item| strip_content_only(item, nested));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::entity::{Field, FieldType};
    use serde_json::json;

    static USER: Entity = Entity {
        name: "User",
        kind: "User",
        reference: None,
        heading: None,
        link: None,
        fields: &[
            Field {
                name: "id",
                ty: FieldType::Integer,
                required: true,
                content_only: false,
            },
            Field {
                name: "username",
                ty: FieldType::String,
                required: true,
                content_only: false,
            },
        ],
        card: &[],
        table: &[],
        gitlab_schema: None,
    };

    static PIPELINE: Entity = Entity {
        name: "Pipeline",
        kind: "Pipeline",
        reference: None,
        heading: None,
        link: None,
        fields: &[
            Field {
                name: "id",
                ty: FieldType::Integer,
                required: true,
                content_only: false,
            },
            Field {
                name: "coverage",
                ty: FieldType::Number,
                required: false,
                content_only: false,
            },
            Field {
                name: "user",
                ty: FieldType::Entity(&USER),
                required: false,
                content_only: false,
            },
            Field {
                name: "tags",
                ty: FieldType::List(&FieldType::String),
                required: false,
                content_only: false,
            },
            Field {
                name: "log",
                ty: FieldType::String,
                required: false,
                content_only: true,
            },
        ],
        card: &[],
        table: &[],
        gitlab_schema: None,
    };

    #[test]
    fn numbers_as_strings_and_undeclared_fields() {
        let value = json!({"id": "7", "coverage": "87.1", "extra": 1, "user": {"id": 1, "username": "a", "x": 2}});
        assert_eq!(
            conform(value, &PIPELINE).unwrap(),
            json!({"id": 7, "coverage": 87.1, "user": {"id": 1, "username": "a"}})
        );
    }

    #[test]
    fn unreadable_optional_fields_are_left_out_and_required_ones_fail() {
        let value = json!({"id": 7, "coverage": {"weird": true}, "user": {"id": 1}, "tags": [1, null, "x"]});
        assert_eq!(
            conform(value, &PIPELINE).unwrap(),
            json!({"id": 7, "tags": ["1", "x"]})
        );
        assert_eq!(
            conform(json!({"coverage": 1}), &PIPELINE).unwrap_err(),
            "missing field `id`"
        );
        assert_eq!(
            conform(json!({"id": "seven"}), &PIPELINE).unwrap_err(),
            "field `id` is not an integer"
        );
    }

    #[test]
    fn integral_numbers_read_as_floats() {
        let value = conform(json!({"id": 1.0, "coverage": 78}), &PIPELINE).unwrap();
        assert_eq!(value.to_string(), r#"{"coverage":78.0,"id":1}"#);
    }

    #[test]
    fn content_only_fields_leave_the_structure() {
        let mut value = json!({"id": 1, "log": "long"});
        strip_content_only(&mut value, &PIPELINE);
        assert_eq!(value, json!({"id": 1}));
    }
}

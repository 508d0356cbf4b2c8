//! Fits a GitLab JSON answer to an entity's declared fields.
//!
//! Real GitLab is looser than its documentation: counts arrive as strings (`"87.1"`),
//! fields are null, absent or of another type depending on version, edition and
//! permissions, and a few endpoints answer a one-element list where one object is meant.
//! This pass keeps only the declared fields, converts each to its declared type where the
//! value says the same thing in another spelling (a number as text, one value where a list
//! is declared), and leaves out a field it cannot read, noting its path (`Unreadable`), so
//! that one odd field never fails the whole answer. Only a required field (one the result
//! cannot do without, such as an item's `iid`) that is missing or unreadable is an error.

use serde_json::{Map, Number, Value};

use super::entity::{Entity, FieldType};

/// The structured result's key listing what `Unreadable` holds.
pub const UNREADABLE_KEY: &str = "unreadable_fields";

/// The dotted paths (`author.username`) of fields GitLab sent in a form their declared
/// type cannot read, each once, in the order met. Absent and null fields are not listed:
/// GitLab leaves fields out all the time.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Unreadable(Vec<String>);

impl Unreadable {
    fn note(&mut self, path: String) {
        if !self.0.contains(&path) {
            self.0.push(path);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn paths(&self) -> &[String] {
        &self.0
    }

    /// Adds the paths to a structured result under `UNREADABLE_KEY`, when there are any.
    pub fn record(self, structured: &mut Map<String, Value>) {
        if !self.0.is_empty() {
            structured.insert(UNREADABLE_KEY.to_owned(), Value::from(self.0));
        }
    }
}

/// Why a required field could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misfit {
    /// The field's dotted path from the entity read.
    pub path: String,
    problem: Problem,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Problem {
    NotAnObject(&'static str),
    /// Several objects where one entity was expected.
    Many(&'static str, usize),
    Missing,
    Unreadable(&'static str),
}

impl std::fmt::Display for Misfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.problem {
            Problem::NotAnObject(entity) => write!(f, "expected an object for {entity}"),
            Problem::Many(entity, count) => {
                write!(f, "expected one {entity}, GitLab sent a list of {count}")
            }
            Problem::Missing => write!(f, "missing field `{}`", self.path),
            Problem::Unreadable(what) => write!(f, "field `{}` is not {what}", self.path),
        }
    }
}

/// The declared fields of `value`, each in its declared type (numbers as `f64`, integers
/// as `i64`); or why a required field could not be read. Fields left out because they
/// could not be read are noted in `unreadable`.
pub fn conform(
    value: Value,
    entity: &Entity,
    unreadable: &mut Unreadable,
) -> Result<Value, Misfit> {
    read_entity(value, entity, "", unreadable)
}

/// `items` fitted to `entity`, one by one (`conform_item`). A single object where a list
/// was expected is a list of one.
pub fn conform_items(items: Value, entity: &Entity, unreadable: &mut Unreadable) -> Vec<Value> {
    let items = match items {
        Value::Array(items) => items,
        Value::Null => Vec::new(),
        one => vec![one],
    };
    items
        .into_iter()
        .filter_map(|item| conform_item(item, entity, unreadable))
        .collect()
}

/// One item of a list fitted to `entity`; an item whose required field cannot be read is
/// left out (`None`, the field noted in `unreadable`), so one odd item never fails a list.
pub fn conform_item(item: Value, entity: &Entity, unreadable: &mut Unreadable) -> Option<Value> {
    if item.is_null() {
        return None;
    }
    match conform(item, entity, unreadable) {
        Ok(item) => Some(item),
        Err(misfit) => {
            unreadable.note(misfit.path);
            None
        }
    }
}

fn read_entity(
    value: Value,
    entity: &Entity,
    path: &str,
    unreadable: &mut Unreadable,
) -> Result<Value, Misfit> {
    let misfit = |path: String, problem| Misfit { path, problem };
    let value = match value {
        // Some endpoints answer a one-element list where one object is documented.
        Value::Array(mut items) if items.len() == 1 => items.remove(0),
        Value::Array(items) => {
            return Err(misfit(
                path.to_owned(),
                Problem::Many(entity.name, items.len()),
            ));
        }
        value => value,
    };
    let Value::Object(mut raw) = value else {
        return Err(misfit(path.to_owned(), Problem::NotAnObject(entity.name)));
    };
    let mut out = Map::new();
    for field in entity.fields {
        let here = join(path, field.name);
        let read = match raw.remove(field.name) {
            None | Some(Value::Null) => None,
            Some(value) => match coerce(value, &field.ty, &here, unreadable) {
                Ok(value) => Some(value),
                Err(nested) if field.required => return Err(nested),
                Err(nested) => {
                    unreadable.note(nested.path);
                    None
                }
            },
        };
        match read {
            Some(value) if !is_empty(&value) => {
                out.insert(field.name.to_owned(), value);
            }
            _ if field.required => return Err(misfit(here, Problem::Missing)),
            _ => {}
        }
    }
    Ok(Value::Object(out))
}

/// `value` in the declared type, or why not (the path of what could not be read).
fn coerce(
    value: Value,
    ty: &FieldType,
    path: &str,
    unreadable: &mut Unreadable,
) -> Result<Value, Misfit> {
    let read = match (ty, value) {
        // `[]` for an absent object, as some endpoints write it: nothing to read.
        (FieldType::Entity(_), Value::Array(items)) if items.is_empty() => {
            Some(Value::Object(Map::new()))
        }
        (FieldType::Entity(entity), value @ (Value::Object(_) | Value::Array(_))) => {
            return read_entity(value, entity, path, unreadable);
        }
        (FieldType::List(item), Value::Array(items)) => {
            let mut read = Vec::with_capacity(items.len());
            for value in items.into_iter().filter(|value| !value.is_null()) {
                match coerce(value, item, path, unreadable) {
                    Ok(value) if !is_empty(&value) => read.push(value),
                    Ok(_) => {}
                    Err(nested) => unreadable.note(nested.path),
                }
            }
            Some(Value::Array(read))
        }
        // One value where a list is declared is a list of one.
        (FieldType::List(item), value) => {
            return coerce(value, item, path, unreadable).map(|one| Value::Array(vec![one]));
        }
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
        (FieldType::Boolean, Value::String(text)) => match text.trim() {
            "true" | "1" => Some(Value::Bool(true)),
            "false" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        (FieldType::Boolean, Value::Number(n)) => match n.as_i64() {
            Some(1) => Some(Value::Bool(true)),
            Some(0) => Some(Value::Bool(false)),
            _ => None,
        },
        _ => None,
    };
    read.ok_or_else(|| Misfit {
        path: path.to_owned(),
        problem: Problem::Unreadable(describe(ty)),
    })
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_owned()
    } else {
        format!("{path}.{field}")
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
                shown_once: false,
            },
            Field {
                name: "username",
                ty: FieldType::String,
                required: true,
                content_only: false,
                shown_once: false,
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
                shown_once: false,
            },
            Field {
                name: "coverage",
                ty: FieldType::Number,
                required: false,
                content_only: false,
                shown_once: false,
            },
            Field {
                name: "user",
                ty: FieldType::Entity(&USER),
                required: false,
                content_only: false,
                shown_once: false,
            },
            Field {
                name: "tags",
                ty: FieldType::List(&FieldType::String),
                required: false,
                content_only: false,
                shown_once: false,
            },
            Field {
                name: "log",
                ty: FieldType::String,
                required: false,
                content_only: true,
                shown_once: false,
            },
        ],
        card: &[],
        table: &[],
        gitlab_schema: None,
    };

    fn read(value: Value) -> (Result<Value, String>, Vec<String>) {
        let mut unreadable = Unreadable::default();
        let read = conform(value, &PIPELINE, &mut unreadable).map_err(|m| m.to_string());
        (read, unreadable.paths().to_vec())
    }

    #[test]
    fn numbers_as_strings_and_undeclared_fields() {
        let value = json!({"id": "7", "coverage": "87.1", "extra": 1, "user": {"id": 1, "username": "a", "x": 2}});
        assert_eq!(
            read(value),
            (
                Ok(json!({"id": 7, "coverage": 87.1, "user": {"id": 1, "username": "a"}})),
                vec![]
            )
        );
    }

    #[test]
    fn unreadable_optional_fields_are_left_out_and_noted() {
        let value = json!({"id": 7, "coverage": {"weird": true}, "user": {"id": 1}, "tags": [1, null, "x", {"o": 1}]});
        assert_eq!(
            read(value),
            (
                Ok(json!({"id": 7, "tags": ["1", "x"]})),
                vec!["coverage".into(), "user.username".into(), "tags".into()]
            )
        );
    }

    #[test]
    fn absent_and_null_fields_are_not_noted() {
        let value = json!({"id": 7, "coverage": null, "user": []});
        assert_eq!(read(value), (Ok(json!({"id": 7})), vec![]));
    }

    #[test]
    fn required_fields_that_cannot_be_read_fail() {
        assert_eq!(
            read(json!({"coverage": 1})).0.unwrap_err(),
            "missing field `id`"
        );
        assert_eq!(
            read(json!({"id": "seven"})).0.unwrap_err(),
            "field `id` is not an integer"
        );
    }

    #[test]
    fn one_value_where_a_list_is_declared_and_a_list_of_one_where_an_object_is() {
        let value = json!([{"id": 7, "tags": "solo", "user": [{"id": 1, "username": "a"}]}]);
        assert_eq!(
            read(value),
            (
                Ok(json!({"id": 7, "tags": ["solo"], "user": {"id": 1, "username": "a"}})),
                vec![]
            )
        );
        assert_eq!(
            read(json!([{"id": 1}, {"id": 2}])).0.unwrap_err(),
            "expected one Pipeline, GitLab sent a list of 2"
        );
    }

    #[test]
    fn list_items_without_a_required_field_are_left_out() {
        let mut unreadable = Unreadable::default();
        let items = conform_items(
            json!([{"id": 1}, {"coverage": 2}, null, {"id": "x"}, {"id": 4, "coverage": []}]),
            &PIPELINE,
            &mut unreadable,
        );
        assert_eq!(items, vec![json!({"id": 1}), json!({"id": 4})]);
        assert_eq!(unreadable.paths(), ["id", "coverage"]);
        let mut unreadable = Unreadable::default();
        let one = conform_items(json!({"id": 9}), &PIPELINE, &mut unreadable);
        assert_eq!(one, vec![json!({"id": 9})]);
    }

    #[test]
    fn booleans_as_numbers_and_text() {
        static FLAGS: Entity = Entity {
            name: "Flags",
            kind: "Flags",
            reference: None,
            heading: None,
            link: None,
            fields: &[Field {
                name: "on",
                ty: FieldType::List(&FieldType::Boolean),
                required: false,
                content_only: false,
                shown_once: false,
            }],
            card: &[],
            table: &[],
            gitlab_schema: None,
        };
        let mut unreadable = Unreadable::default();
        let value = conform(
            json!({"on": [1, 0, "true", " false", 2]}),
            &FLAGS,
            &mut unreadable,
        );
        assert_eq!(value.unwrap(), json!({"on": [true, false, true, false]}));
        assert_eq!(unreadable.paths(), ["on"]);
    }

    #[test]
    fn integral_numbers_read_as_floats() {
        let value = read(json!({"id": 1.0, "coverage": 78})).0.unwrap();
        assert_eq!(value.to_string(), r#"{"coverage":78.0,"id":1}"#);
    }

    #[test]
    fn content_only_fields_leave_the_structure() {
        let mut value = json!({"id": 1, "log": "long"});
        strip_content_only(&mut value, &PIPELINE);
        assert_eq!(value, json!({"id": 1}));
    }
}

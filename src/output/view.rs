//! Renders any action's result from its declared view: one card renderer and one table
//! renderer for every entity type.
//!
//! The catalog describes each card row and table column as data (`FieldView`: a field
//! path, a label, a kind); this module reads the values from the result's JSON and hands
//! them to `cell` and the Markdown writer, which do all formatting and escaping. A type is
//! therefore shown the same way by every action that returns it.

use serde_json::{Map, Value};

use super::cell::{self, Cell, Person};
use super::format;
use super::markdown::Markdown;
use crate::catalog::{
    Args, CellKind, Entity, FenceLanguage, FieldType, FieldView, ResultShape, SHOWN_ONCE_KEY, View,
    fill,
};
use crate::gitlab::Pagination;

/// The card row of the note beside a secret GitLab shows once.
const SHOWN_ONCE_LABEL: &str = "⚠ Shown once";

/// Writes the Markdown of a result: `value` is its full structure, content-only fields
/// included; `args` fills the headings' placeholders.
pub fn render(view: &View, shape: &ResultShape, args: &Args, value: &Value, out: &mut Markdown) {
    match (view, shape) {
        (View::Table { heading, columns }, ResultShape::List { entity, key, .. }) => {
            let items = value.get(*key).and_then(Value::as_array);
            let items = items.map(Vec::as_slice).unwrap_or_default();
            let labels: Vec<&str> = columns.iter().map(|c| c.label).collect();
            let mut table = out.table(&fill(heading, args), items.len(), &labels);
            for item in items {
                table.row(row(columns, entity, item));
            }
            let pagination = value
                .get("pagination")
                .and_then(|p| serde_json::from_value::<Pagination>(p.clone()).ok());
            table.finish(pagination.as_ref());
        }
        (
            View::Card {
                heading,
                verb,
                rows,
            },
            ResultShape::Single { entity },
        ) => {
            card(
                heading.map(|h| fill(h, args)),
                *verb,
                rows,
                entity,
                value,
                out,
            );
        }
        (View::Message { heading }, _) => {
            let message = value.get("message").and_then(Value::as_str);
            out.done(&fill(heading, args), message.unwrap_or_default());
        }
        // The generator pairs every view with its result shape.
        _ => {}
    }
}

fn card(
    heading: Option<String>,
    verb: Option<&str>,
    rows: &[FieldView],
    entity: &Entity,
    value: &Value,
    out: &mut Markdown,
) {
    let mut card = match heading {
        Some(heading) => out.card(&heading),
        None => {
            let mut builder = out.entity_card(entity.kind);
            if let Some(reference) = entity.reference {
                builder = builder.reference(reference.prefix, scalar(value.get(reference.field)));
            }
            if let Some(field) = entity.heading {
                builder = builder.title(value.get(field).and_then(Value::as_str));
            }
            if let Some(verb) = verb {
                builder = builder.verb(verb);
            }
            builder.open()
        }
    };
    // A secret GitLab shows once is announced above everything else, with the
    // dispatcher's note.
    if entity.shown_once().next().is_some() {
        card.row(SHOWN_ONCE_LABEL, cell::text(text_at(value, SHOWN_ONCE_KEY)));
    }
    for view in rows {
        match view.kind {
            CellKind::Body => card.body(view.label, text_at(value, view.field)),
            CellKind::CodeBlock => {
                let language = match view.language {
                    Some(FenceLanguage::Fixed(language)) => Some(language),
                    Some(FenceLanguage::FromField(field)) => {
                        text_at(value, field).map(format::language_of)
                    }
                    None => None,
                };
                card.code_block(view.label, text_at(value, view.field), language);
            }
            CellKind::Table => {
                let item_entity = match entity.field(view.field).map(|f| &f.ty) {
                    Some(FieldType::List(FieldType::Entity(item))) => *item,
                    _ => continue,
                };
                let items = value.get(view.field).and_then(Value::as_array);
                let labels: Vec<&str> = item_entity.table.iter().map(|c| c.label).collect();
                let rows = items
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .map(|item| row(item_entity.table, item_entity, item))
                    .collect();
                card.table(view.label, &labels, rows);
            }
            _ => card.row(view.label, cell_of(view, entity, value)),
        }
    }
    if let Some(link) = entity.link {
        let url = text_at(value, link);
        let text = match entity.reference {
            Some(reference) => {
                cell::reference(reference.prefix, scalar(value.get(reference.field)), url)
            }
            None => cell::url(url),
        };
        card.row("URL", text);
    }
    card.finish();
}

fn row(columns: &[FieldView], entity: &Entity, item: &Value) -> Vec<Cell> {
    columns
        .iter()
        .map(|column| cell_of(column, entity, item))
        .collect()
}

/// The value at a dotted path (`commit.title`) through nested objects; a number indexes a
/// list (`notes.0.author`: a thread's first comment).
fn at<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(value, |value, step| match value {
        Value::Array(items) => step.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => value.get(step),
    })
}

fn text_at<'v>(value: &'v Value, path: &str) -> Option<&'v str> {
    at(value, path).and_then(Value::as_str)
}

fn strings_at(value: &Value, path: &str) -> Vec<String> {
    at(value, path)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// A reference's value as text: `12` for an IID, the name for a branch.
fn scalar(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// A user as the JSON of any type with a `username`.
struct JsonPerson<'v>(&'v Map<String, Value>);

impl Person for JsonPerson<'_> {
    fn username(&self) -> &str {
        self.0
            .get("username")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    fn web_url(&self) -> Option<&str> {
        self.0.get("web_url").and_then(Value::as_str)
    }
}

fn person(value: &Value) -> Option<JsonPerson<'_>> {
    value
        .as_object()
        .filter(|object| object.get("username").is_some_and(Value::is_string))
        .map(JsonPerson)
}

fn cell_of(view: &FieldView, entity: &Entity, value: &Value) -> Cell {
    let found = at(value, view.field);
    let text = || found.and_then(Value::as_str);
    let float = || found.and_then(Value::as_f64);
    match view.kind {
        CellKind::Text => cell::text(text()),
        CellKind::Code => cell::code(text()),
        CellKind::Sha => cell::sha(text()),
        CellKind::Status => cell::status(text()),
        CellKind::Date => cell::date(text()),
        CellKind::Url => cell::url(text()),
        CellKind::Integer => cell::integer(found.and_then(Value::as_i64)),
        CellKind::Number => cell::number(float()),
        CellKind::Percent => cell::percent(float()),
        CellKind::Size => cell::size(float()),
        CellKind::Duration => cell::duration(float()),
        CellKind::Bool => cell::boolean(found.and_then(Value::as_bool)),
        CellKind::User => cell::user(found.and_then(person).as_ref()),
        CellKind::Users => {
            let people: Vec<JsonPerson<'_>> = found
                .and_then(Value::as_array)
                .map(|items| items.iter().filter_map(person).collect())
                .unwrap_or_default();
            cell::users(&people)
        }
        CellKind::Labels => cell::labels(&strings_at(value, view.field)),
        CellKind::List => cell::list(&strings_at(value, view.field)),
        CellKind::Reference => {
            let prefix = entity
                .reference
                .filter(|r| r.field == view.field)
                .map_or("", |r| r.prefix);
            let url = entity.link.and_then(|link| text_at(value, link));
            cell::reference(prefix, scalar(found), url)
        }
        CellKind::Transition => {
            let to = view.to.and_then(|to| text_at(value, to));
            cell::transition(text(), to)
        }
        // Sections are written by `card`; a table never holds one (the generator checks).
        CellKind::Body | CellKind::CodeBlock | CellKind::Table => Cell::default(),
    }
}

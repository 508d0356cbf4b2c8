//! Entity types: names, fields and their types (`from` inheritance, `[T]` lists, other
//! types), `reference`, `heading` and `link`, then each type's card and table.

use std::collections::BTreeSet;
use std::path::PathBuf;

use indexmap::IndexMap;

use super::super::Diagnostic;
use super::super::kinds::{CellKind, SHOWN_ONCE_KEY};
use super::super::model::{FieldDef, FieldSecret, TypeDef};
use super::names::{RESERVED_TYPES, check_identifier, humanize_type};
use super::views::resolve_views;
use super::{EntityType, Field, FieldType};

const SCALARS: &[&str] = &[
    "string", "integer", "number", "boolean", "datetime", "date", "url",
];

pub(super) fn resolve(
    files: &IndexMap<String, PathBuf>,
    defs: &IndexMap<String, TypeDef>,
    unreadable: &BTreeSet<String>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<EntityType> {
    let mut types = Vec::new();
    let mut pending_views = Vec::new();
    for (name, def) in defs {
        let path = &files[name];
        let mut error = |key: &str, message: String| {
            diagnostics.push(Diagnostic::file(
                path,
                format!("type `{name}`: key `{key}`: {message}"),
            ));
        };
        if RESERVED_TYPES.contains(&name.as_str()) {
            error(
                "",
                "generated code already uses this name (`RESERVED_TYPES` in src/codegen/resolve/names.rs lists them); rename the type".into(),
            );
        } else if !name.starts_with(|c: char| c.is_ascii_uppercase())
            || !name.chars().all(|c| c.is_ascii_alphanumeric())
        {
            error(
                "",
                "type names are CamelCase: letters and digits, starting with a capital".into(),
            );
        }
        let parent = def.from.as_ref().and_then(|parent| {
            let found = defs.get(parent);
            if found.is_none() && !unreadable.contains(parent) {
                error("from", format!("no type named `{parent}`"));
            }
            found
        });
        let mut fields = Vec::new();
        for (field_name, field_def) in &def.fields {
            if let Err(problem) = check_identifier(field_name) {
                error(&format!("fields.{field_name}"), problem);
                continue;
            }
            let inherited: FieldDef = match (field_def.ty.is_none(), parent) {
                (true, Some(parent)) => match parent.fields.get(field_name) {
                    Some(parent_def) => merge_field(parent_def, field_def),
                    None => {
                        error(
                            &format!("fields.{field_name}"),
                            format!(
                                "`{}` has no such field to inherit",
                                def.from.as_deref().unwrap_or_default()
                            ),
                        );
                        continue;
                    }
                },
                _ => field_def.clone(),
            };
            let Some(written) = inherited.ty.clone() else {
                error(&format!("fields.{field_name}.type"), "missing".into());
                continue;
            };
            let Some(ty) = parse_field_type(&written, defs) else {
                let named = written.trim_start_matches('[').trim_end_matches(']');
                if unreadable.contains(named) {
                    continue;
                }
                let names = SCALARS
                    .iter()
                    .copied()
                    .chain(defs.keys().map(String::as_str));
                error(
                    &format!("fields.{field_name}.type"),
                    format!(
                        "unknown type `{written}`{} (use {}, an entity type, or `[T]`)",
                        super::super::suggest::did_you_mean(named, names),
                        SCALARS.join(", ")
                    ),
                );
                continue;
            };
            fields.push(Field {
                name: field_name.clone(),
                ty,
                written,
                required: inherited.required.unwrap_or(false),
                description: inherited.description.clone(),
                content_only: inherited.content_only.unwrap_or(false),
                shown_once: inherited.secret == Some(FieldSecret::ShownOnce),
            });
        }
        for field in fields.iter().filter(|f| f.shown_once) {
            if field.written != "string" || field.content_only {
                error(
                    &format!("fields.{}.secret", field.name),
                    "`shown_once` marks a `string` field the structured result carries (not `content_only`)".into(),
                );
            }
            if fields.iter().any(|f| f.name == SHOWN_ONCE_KEY) {
                error(
                    &format!("fields.{SHOWN_ONCE_KEY}"),
                    format!(
                        "the result of a type with a `secret: shown_once` field gets its own `{SHOWN_ONCE_KEY}` note; rename this field"
                    ),
                );
            }
        }
        let kind = def.kind.clone().unwrap_or_else(|| humanize_type(name));
        let reference = def
            .reference
            .as_ref()
            .map(|r| (r.field.clone(), r.prefix.clone()));
        for (key, field) in [
            ("reference.field", reference.as_ref().map(|r| &r.0)),
            ("heading", def.heading.as_ref()),
            ("link", def.link.as_ref()),
        ] {
            if let Some(field) = field
                && !fields.iter().any(|f| &f.name == field)
            {
                error(key, format!("no field named `{field}`"));
            }
        }
        types.push(EntityType {
            name: name.clone(),
            description: def.description.trim().to_owned(),
            kind,
            reference,
            heading: def.heading.clone(),
            link: def.link.clone(),
            fields,
            card: Vec::new(),
            table: Vec::new(),
            gitlab_schema: def.gitlab_schema.clone(),
        });
        pending_views.push((&def.card, &def.table));
    }
    // Views are resolved once every type exists: a card row may show a list of another
    // type as a table (so all tables come first), and `user` works with any type that has
    // a `username`.
    let mut view_errors = Vec::new();
    for index in 0..types.len() {
        let table = resolve_views(
            &types[index],
            &types,
            pending_views[index].1,
            &mut |key, message| view_errors.push((index, format!("table.{key}"), message)),
        );
        if table.iter().any(|c| {
            matches!(
                c.kind,
                CellKind::Body | CellKind::CodeBlock | CellKind::Table
            )
        }) {
            view_errors.push((
                index,
                "table".into(),
                "`body`, `code_block` and `table` are card sections, not table columns".into(),
            ));
        }
        types[index].table = table;
    }
    for index in 0..types.len() {
        let card = resolve_views(
            &types[index],
            &types,
            pending_views[index].0,
            &mut |key, message| view_errors.push((index, format!("card.{key}"), message)),
        );
        types[index].card = card;
    }
    // The dispatcher looks for a shown-once secret at the top of a result only.
    for outer in &types {
        for field in &outer.fields {
            let holds_secret = field.ty.entity_name().is_some_and(|inner| {
                types
                    .iter()
                    .any(|t| t.name == inner && t.fields.iter().any(|f| f.shown_once))
            });
            if holds_secret {
                diagnostics.push(Diagnostic::file(
                    &files[&outer.name],
                    format!(
                        "type `{}`: key `fields.{}`: its type has a `secret: shown_once` field, which only the top of a result may carry",
                        outer.name, field.name
                    ),
                ));
            }
        }
    }
    for (index, key, message) in view_errors {
        diagnostics.push(Diagnostic::file(
            &files[&types[index].name],
            format!("type `{}`: key `{key}`: {message}", types[index].name),
        ));
    }
    types
}

/// A type a `user` cell can show: it has a required `username` string.
pub fn is_person(types: &[EntityType], name: &str) -> bool {
    types
        .iter()
        .find(|t| t.name == name)
        .and_then(|t| t.field("username"))
        .is_some_and(|f| f.required && f.ty == FieldType::String)
}

fn merge_field(parent: &FieldDef, child: &FieldDef) -> FieldDef {
    FieldDef {
        ty: parent.ty.clone(),
        required: child.required.or(parent.required),
        description: child
            .description
            .clone()
            .or_else(|| parent.description.clone()),
        content_only: child.content_only.or(parent.content_only),
        secret: child.secret.or(parent.secret),
    }
}

fn parse_field_type(text: &str, types: &IndexMap<String, TypeDef>) -> Option<FieldType> {
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        return parse_field_type(inner, types).map(|inner| FieldType::List(Box::new(inner)));
    }
    Some(match text {
        "string" | "datetime" | "date" | "url" => FieldType::String,
        "integer" => FieldType::Integer,
        "number" => FieldType::Number,
        "boolean" => FieldType::Boolean,
        name if types.contains_key(name) => FieldType::Entity(name.to_owned()),
        _ => return None,
    })
}

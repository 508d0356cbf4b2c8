//! Cards and tables: each row or column names a field (or a dotted path into a nested
//! entity) and a kind that can show it; an action's own `markdown` layout fits its result.

use super::super::kinds::CellKind;
use super::super::model::{ActionDef, FieldViewDef};
use super::names::humanize_field;
use super::types::is_person;
use super::{EntityType, Field, FieldType, FieldView, Output, Scope, View};

/// `commit.title` → [commit, title]: every step but the last must be a single entity, or
/// a list of entities followed by an index (`notes.0.author`).
fn field_path(
    entity: &EntityType,
    types: &[EntityType],
    dotted: &str,
) -> Result<Vec<Field>, String> {
    let mut path = Vec::new();
    let mut current = entity;
    let mut steps: Vec<&str> = dotted.split('.').collect();
    let mut index = 0;
    while index < steps.len() {
        let step = steps[index];
        let field = current
            .field(step)
            .ok_or_else(|| format!("`{}` has no field `{step}`", current.name))?;
        path.push(field.clone());
        // A list of entities is entered through an index: `notes.0`.
        let indexed = matches!(&field.ty, FieldType::List(inner) if matches!(**inner, FieldType::Entity(_)))
            && steps
                .get(index + 1)
                .is_some_and(|next| next.parse::<usize>().is_ok())
            && index + 2 < steps.len();
        if indexed {
            // The index stays in the emitted path (`notes.0.author`); it names no field.
            path.push(Field {
                name: steps.remove(index + 1).to_owned(),
                ..field.clone()
            });
        }
        if index + 1 < steps.len() {
            let next = match &field.ty {
                FieldType::List(inner) if indexed => match &**inner {
                    FieldType::Entity(next) => next,
                    _ => unreachable!("checked above"),
                },
                FieldType::Entity(next) => next,
                _ => {
                    return Err(format!(
                        "`{}.{step}` is not an entity, so `{dotted}` goes nowhere",
                        current.name
                    ));
                }
            };
            current = types
                .iter()
                .find(|t| &t.name == next)
                .ok_or_else(|| format!("no type `{next}`"))?;
        }
        index += 1;
    }
    Ok(path)
}

/// The kind a field gets when a view does not name one.
fn default_kind(field: &Field, types: &[EntityType]) -> CellKind {
    match (&field.ty, field.written.as_str()) {
        (_, "datetime" | "date") => CellKind::Date,
        (_, "url") => CellKind::Url,
        (FieldType::Integer, _) => CellKind::Integer,
        (FieldType::Number, _) => CellKind::Number,
        (FieldType::Boolean, _) => CellKind::Bool,
        (FieldType::Entity(name), _) if is_person(types, name) => CellKind::User,
        (FieldType::List(inner), _) => match inner.as_ref() {
            FieldType::Entity(name) if is_person(types, name) => CellKind::Users,
            FieldType::Entity(_) => CellKind::Table,
            _ => CellKind::List,
        },
        _ => CellKind::Text,
    }
}

/// Whether a kind can show a field of this type; `None` when it can, else what it needs.
fn kind_mismatch(kind: CellKind, field: &Field, types: &[EntityType]) -> Option<&'static str> {
    let ty = &field.ty;
    let is_user = |t: &FieldType| matches!(t, FieldType::Entity(name) if is_person(types, name));
    let has_table = |t: &FieldType| matches!(t, FieldType::Entity(name) if types.iter().any(|e| &e.name == name && !e.table.is_empty()));
    let ok = match kind {
        CellKind::Text
        | CellKind::Code
        | CellKind::Body
        | CellKind::Url
        | CellKind::Date
        | CellKind::Status => *ty == FieldType::String,
        CellKind::CodeBlock => *ty == FieldType::String,
        CellKind::Sha => *ty == FieldType::String,
        CellKind::Integer => *ty == FieldType::Integer,
        CellKind::Number | CellKind::Percent | CellKind::Size | CellKind::Duration => {
            matches!(ty, FieldType::Integer | FieldType::Number)
        }
        CellKind::Bool => *ty == FieldType::Boolean,
        CellKind::User => is_user(ty),
        CellKind::Users => matches!(ty, FieldType::List(inner) if is_user(inner)),
        CellKind::Labels | CellKind::List => {
            matches!(ty, FieldType::List(inner) if **inner == FieldType::String)
        }
        CellKind::Reference => matches!(ty, FieldType::Integer | FieldType::String),
        CellKind::Transition => *ty == FieldType::String,
        CellKind::Table => matches!(ty, FieldType::List(inner) if has_table(inner)),
    };
    (!ok).then_some(match kind {
        CellKind::Integer => "an integer",
        CellKind::Size | CellKind::Duration | CellKind::Number | CellKind::Percent => "a number",
        CellKind::Bool => "a boolean",
        CellKind::User => "a type with a required `username`",
        CellKind::Users => "a list of a type with a required `username`",
        CellKind::Table => "a list of a type that declares a `table`",
        CellKind::Labels | CellKind::List => "a `[string]`",
        CellKind::Reference => "an integer or a string",
        _ => "a string",
    })
}

pub(super) fn resolve_views(
    entity: &EntityType,
    types: &[EntityType],
    defs: &[FieldViewDef],
    error: &mut dyn FnMut(String, String),
) -> Vec<FieldView> {
    let mut views = Vec::new();
    for (index, def) in defs.iter().enumerate() {
        let names: Vec<String> = match (&def.field, &def.fields) {
            (Some(field), None) => vec![field.clone()],
            (None, Some(fields)) if fields.len() == 2 => fields.clone(),
            (None, Some(_)) => {
                error(format!("{index}.fields"), "takes exactly two fields".into());
                continue;
            }
            _ => {
                error(
                    format!("{index}"),
                    "needs exactly one of `field` or `fields`".into(),
                );
                continue;
            }
        };
        let mut paths = Vec::new();
        for name in &names {
            match field_path(entity, types, name) {
                Ok(path) => paths.push(path),
                Err(message) => error(format!("{index}.field"), message),
            }
        }
        if paths.len() != names.len() {
            continue;
        }
        let resolved: Vec<Field> = paths
            .iter()
            .map(|path| path.last().expect("paths are never empty").clone())
            .collect();
        let kind = match (def.kind, names.len()) {
            (Some(kind), _) => kind,
            (None, 2) => CellKind::Transition,
            (None, _) => default_kind(&resolved[0], types),
        };
        if (names.len() == 2) != (kind == CellKind::Transition) {
            error(
                format!("{index}.kind"),
                "`transition` takes two `fields`; every other kind one `field`".into(),
            );
            continue;
        }
        for field in &resolved {
            if let Some(needed) = kind_mismatch(kind, field, types) {
                error(
                    format!("{index}.kind"),
                    format!(
                        "`{}` needs {needed}, but `{}` is `{}`",
                        kind.name(),
                        field.name,
                        field.written
                    ),
                );
            }
        }
        if def.language.is_some() && (kind != CellKind::CodeBlock || def.language_from.is_some()) {
            error(
                format!("{index}.language"),
                "only applies to `code_block`, instead of `language_from`".into(),
            );
        }
        if let Some(language_from) = &def.language_from {
            if kind != CellKind::CodeBlock {
                error(
                    format!("{index}.language_from"),
                    "only applies to `code_block`".into(),
                );
            } else if entity.field(language_from).is_none() {
                error(
                    format!("{index}.language_from"),
                    format!("`{}` has no field `{language_from}`", entity.name),
                );
            }
        }
        if kind == CellKind::Reference && entity.link.is_none() {
            error(
                format!("{index}.kind"),
                format!("`reference` needs a `link` field on `{}`", entity.name),
            );
        }
        if matches!(
            kind,
            CellKind::Reference | CellKind::Table | CellKind::Body | CellKind::CodeBlock
        ) && paths.iter().any(|p| p.len() > 1)
        {
            error(
                format!("{index}.field"),
                format!(
                    "`{}` shows a field of the type itself, not a nested one",
                    kind.name()
                ),
            );
        }
        let label = def
            .label
            .clone()
            .unwrap_or_else(|| humanize_field(names[0].rsplit('.').next().unwrap_or_default()));
        views.push(FieldView {
            paths,
            label,
            kind,
            language_from: def.language_from.clone(),
            language: def.language.clone(),
        });
    }
    views
}

pub(super) fn resolve_view(
    scope: &mut Scope<'_>,
    def: &ActionDef,
    output: &Output,
    types: &[EntityType],
) -> View {
    let markdown = def.markdown.as_ref();
    let entity = match output {
        Output::Single { ty } | Output::List { ty, .. } => types.iter().find(|t| &t.name == ty),
        Output::Message { .. } => None,
    };
    match (output, entity) {
        (Output::List { key, .. }, Some(entity)) => {
            if markdown.is_some_and(|m| m.rows.is_some() || m.verb.is_some()) {
                scope.error(
                    "markdown",
                    "`rows` and `verb` are for single results; a list takes `columns`",
                );
            }
            let columns = match markdown.and_then(|m| m.columns.as_ref()) {
                Some(defs) => {
                    let mut found = Vec::new();
                    let views = resolve_views(entity, types, defs, &mut |key, message| {
                        found.push((key, message))
                    });
                    for (key, message) in found {
                        scope.error(&format!("markdown.columns.{key}"), message);
                    }
                    views
                }
                None => entity.table.clone(),
            };
            if columns.iter().any(|c| {
                matches!(
                    c.kind,
                    CellKind::Body | CellKind::CodeBlock | CellKind::Table
                )
            }) {
                scope.error(
                    "markdown.columns",
                    "`body`, `code_block` and `table` are card sections, not table columns",
                );
            }
            if columns.is_empty() {
                scope.error(
                    "markdown.columns",
                    format!(
                        "`{}` declares no `table` and the action gives no `columns`",
                        entity.name
                    ),
                );
            }
            let heading = markdown
                .and_then(|m| m.heading.clone())
                .unwrap_or_else(|| humanize_field(key));
            View::Table { heading, columns }
        }
        (Output::Single { .. }, Some(entity)) => {
            if markdown.is_some_and(|m| m.columns.is_some()) {
                scope.error(
                    "markdown.columns",
                    "`columns` are for lists; a single result takes `rows`",
                );
            }
            let rows = match markdown.and_then(|m| m.rows.as_ref()) {
                Some(defs) => {
                    let mut found = Vec::new();
                    let views = resolve_views(entity, types, defs, &mut |key, message| {
                        found.push((key, message))
                    });
                    for (key, message) in found {
                        scope.error(&format!("markdown.rows.{key}"), message);
                    }
                    views
                }
                None => entity.card.clone(),
            };
            if rows.is_empty() {
                scope.error(
                    "markdown.rows",
                    format!(
                        "`{}` declares no `card` and the action gives no `rows`",
                        entity.name
                    ),
                );
            }
            View::Card {
                heading: markdown.and_then(|m| m.heading.clone()),
                verb: markdown.and_then(|m| m.verb.clone()),
                rows,
            }
        }
        _ => {
            if markdown.is_some_and(|m| m.columns.is_some() || m.rows.is_some() || m.verb.is_some())
            {
                scope.error("markdown", "a message result takes only a `heading`");
            }
            View::Message {
                heading: markdown
                    .and_then(|m| m.heading.clone())
                    .unwrap_or_else(|| "Done".to_owned()),
            }
        }
    }
}

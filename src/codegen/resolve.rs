//! Checks the parsed manifest and resolves it into the model `emit` reads (build time only).
//!
//! Every rule a maintainer can break is checked here and reported as a diagnostic naming the
//! file, the action and the key; all diagnostics are collected before the build fails so one
//! run shows every mistake. After this pass, `emit` may assume the model is consistent:
//! every referenced type, field, parameter and action exists.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use super::Diagnostic;
pub use super::kinds::{ParamType, Requires};
use super::load::Manifest;
use super::model::{
    ActionDef, CellKind, FieldDef, FieldViewDef, GraphqlDef, HintDef, Location, Method,
    PaginationDef, ParamDef, ResourcePolicy, SafetyDef, Tier, TokenScope, TypeDef,
};
use super::suggest;
use super::vocabulary::{self, ActionVocabulary, DomainVocabulary, Vocabulary};

pub struct Catalog {
    pub types: Vec<EntityType>,
    /// Enumerated parameter types, one per distinct set of values under a name.
    pub enums: Vec<EnumType>,
    pub domains: Vec<Domain>,
    /// `shared.yaml`'s search vocabulary.
    pub vocabulary: Vocabulary,
}

/// An enumerated parameter type, shared by every parameter with the same name and values.
pub struct EnumType {
    pub name: String,
    /// `(variant, value)` pairs, in declaration order.
    pub variants: Vec<(String, String)>,
    /// `action.param` of each user, for the doc comment.
    pub users: Vec<String>,
}

pub struct Domain {
    pub name: String,
    pub title: String,
    pub description: String,
    pub vocabulary: DomainVocabulary,
    pub actions: Vec<Action>,
}

pub struct Action {
    pub id: String,
    pub domain: String,
    pub name: String,
    pub title: String,
    pub description: String,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub method: Method,
    pub path: String,
    pub segments: Vec<Segment>,
    pub handler: Option<String>,
    /// A GraphQL action's operation (`path` is then `/graphql`).
    pub graphql: Option<Graphql>,
    pub params: Vec<Param>,
    pub paginated: bool,
    /// Paged by GraphQL cursors (`first`, `after`) rather than page numbers.
    pub cursor_paged: bool,
    pub output: Output,
    pub view: View,
    pub safety: SafetyDef,
    pub resource: Option<(ResourcePolicy, String)>,
    pub not_found: Option<String>,
    pub hints: Vec<Hint>,
    pub example: serde_json::Value,
    pub requires: Requires,
    pub vocabulary: ActionVocabulary,
}

/// A GraphQL action's operation, checked against its parameters.
pub struct Graphql {
    pub operation: String,
    pub document: String,
    pub result: String,
    pub mutation: bool,
}

pub enum Segment {
    Literal,
    Param(String),
}

pub struct Param {
    pub name: String,
    pub ty: ParamType,
    pub required: bool,
    pub description: String,
    pub values: Vec<String>,
    pub default: Option<serde_json::Value>,
    pub minimum: Option<i64>,
    pub maximum: Option<i64>,
    pub location: Location,
    pub aliases: Vec<String>,
    pub api_name: String,
    /// The generated enum of an enumerated parameter (`EnumType::name`).
    pub enum_type: Option<String>,
    /// For an `[object]` parameter: each object's fields.
    pub items: Vec<Param>,
    /// A secret value, masked wherever the call is written out.
    pub secret: bool,
}

/// Checks a value written in the manifest (an example, a default) against the type.
impl ParamType {
    fn accepts(self, value: &serde_json::Value) -> bool {
        use serde_json::Value;
        match (self, value) {
            (Self::String, Value::String(_)) => true,
            (Self::Integer, Value::Number(n)) => n.is_i64(),
            (Self::Number, Value::Number(_)) => true,
            (Self::Boolean, Value::Bool(_)) => true,
            (Self::PathOrId, Value::String(_)) => true,
            (Self::PathOrId, Value::Number(n)) => n.is_i64(),
            (Self::StringList, Value::Array(items)) => items.iter().all(Value::is_string),
            (Self::StringMap, Value::Object(entries)) => entries.values().all(Value::is_string),
            (Self::IntegerList, Value::Array(items)) => items.iter().all(|item| item.is_i64()),
            (Self::ObjectList, Value::Array(items)) => items.iter().all(Value::is_object),
            _ => false,
        }
    }
}

/// A next step: its target action, its text, and the result's state it fits.
pub struct Hint {
    pub action: String,
    pub text: String,
    /// `(field, values, negated)`: the field's value is (or, negated, is not) one of these.
    pub conditions: Vec<(String, Vec<String>, bool)>,
}

pub enum Output {
    Single {
        ty: String,
    },
    List {
        ty: String,
        key: String,
        from_map: Option<(String, String)>,
    },
    Message {
        text: String,
    },
}

/// How the Markdown of a result is laid out, fully resolved.
pub enum View {
    Card {
        heading: Option<String>,
        verb: Option<String>,
        rows: Vec<FieldView>,
    },
    Table {
        heading: String,
        columns: Vec<FieldView>,
    },
    Message {
        heading: String,
    },
}

#[derive(Clone)]
pub struct FieldView {
    /// Each shown field as the chain of fields leading to it (`commit.title` → two).
    pub paths: Vec<Vec<Field>>,
    pub label: String,
    pub kind: CellKind,
    pub language_from: Option<String>,
    pub language: Option<String>,
}

pub struct EntityType {
    pub name: String,
    pub description: String,
    pub kind: String,
    pub reference: Option<(String, String)>,
    pub heading: Option<String>,
    pub link: Option<String>,
    pub fields: Vec<Field>,
    pub card: Vec<FieldView>,
    pub table: Vec<FieldView>,
    pub gitlab_schema: Option<String>,
}

impl EntityType {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|field| field.name == name)
    }
}

#[derive(Clone)]
pub struct Field {
    pub name: String,
    pub ty: FieldType,
    /// The type as written (`datetime`, `url`, ...), kept for docs and default kinds.
    pub written: String,
    pub required: bool,
    pub description: Option<String>,
    pub content_only: bool,
}

#[derive(Clone, PartialEq, Eq)]
pub enum FieldType {
    String,
    Integer,
    Number,
    Boolean,
    Entity(String),
    List(Box<FieldType>),
}

impl FieldType {
    /// The entity type this field holds, directly or as a list's items.
    pub fn entity_name(&self) -> Option<&str> {
        match self {
            Self::Entity(name) => Some(name),
            Self::List(inner) => inner.entity_name(),
            Self::String | Self::Integer | Self::Number | Self::Boolean => None,
        }
    }
}

/// Type names generated code already uses: what `src/prelude.rs` exports, the items every
/// action module declares, and the std prelude's. An entity or enum type of one of these
/// names would shadow it. (A test keeps this list in step with the prelude.)
pub const RESERVED_TYPES: &[&str] = &[
    // src/prelude.rs
    "Action",
    "ActionParams",
    "ActionVocabulary",
    "ArgReader",
    "CellKind",
    "DomainInfo",
    "DomainVocabulary",
    "Done",
    "Entity",
    "Field",
    "FenceLanguage",
    "FieldType",
    "FieldView",
    "Graphql",
    "Hint",
    "HintCondition",
    "Location",
    "Method",
    "ParamEnum",
    "ParamSpec",
    "ParamType",
    "PathOrId",
    "Reference",
    "Request",
    "ResourcePolicy",
    "ResourceSpec",
    "ResultShape",
    "Safety",
    "View",
    "Vocabulary",
    "WordList",
    "Requires",
    "JsonObject",
    "ObjectParam",
    "Role",
    "Tier",
    "TokenScope",
    "StringMap",
    // every action module
    "Params",
    "Output",
    // the std prelude
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "String",
    "Vec",
    "Box",
    "Default",
    "Self",
    "Clone",
    "Copy",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Iterator",
    "ToString",
    "ToOwned",
    "Eq",
    "PartialEq",
    "Ord",
    "PartialOrd",
    "Into",
    "From",
];
/// The generated modules beside the domain modules.
const RESERVED_MODULES: &[&str] = &["types", "enums", "params"];
/// Names that cannot be Rust identifiers even in raw form (`r#self` is not allowed).
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];
const SCALARS: &[&str] = &[
    "string", "integer", "number", "boolean", "datetime", "date", "url",
];
const MAX_DESCRIPTION: usize = 420;
const MAX_TITLE: usize = 60;

/// Resolves the manifest, or returns every problem found.
pub fn catalog(manifest: Manifest) -> Result<Catalog, Vec<Diagnostic>> {
    let mut diagnostics = Vec::new();
    let shared_path = manifest.shared_path.clone();
    let types = resolve_types(
        &manifest.type_files,
        &manifest.shared.types,
        &mut diagnostics,
    );
    let shared_params = &manifest.shared.params;
    for (name, def) in shared_params {
        if def.ty.is_none() {
            diagnostics.push(Diagnostic::file(
                &shared_path,
                format!("key `params.{name}.type`: missing"),
            ));
        }
        if def.description.is_none() {
            diagnostics.push(Diagnostic::file(
                &shared_path,
                format!("key `params.{name}.description`: missing"),
            ));
        }
    }

    let shared_vocabulary =
        vocabulary::shared(&shared_path, &manifest.shared.vocabulary, &mut diagnostics);
    let operation_words = vocabulary::operation_words(&manifest);

    let mut domains: Vec<Domain> = Vec::new();
    for (path, file) in &manifest.domains {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if let Err(problem) = check_identifier(&file.domain) {
            diagnostics.push(Diagnostic::file(path, format!("key `domain`: {problem}")));
        }
        if RESERVED_MODULES.contains(&file.domain.as_str()) {
            diagnostics.push(Diagnostic::file(
                path,
                format!(
                    "key `domain`: `{}` is the name of a generated module ({}); choose another",
                    file.domain,
                    RESERVED_MODULES.join(", ")
                ),
            ));
        }
        if stem != file.domain {
            diagnostics.push(Diagnostic::file(
                path,
                format!(
                    "key `domain`: `{}` must match the file name `{stem}.yaml`",
                    file.domain
                ),
            ));
        }
        let mut actions = Vec::new();
        for (name, def) in &file.actions {
            let mut scope = Scope {
                path,
                id: format!("{}.{name}", file.domain),
                diagnostics: &mut diagnostics,
            };
            if let Some(action) = resolve_action(
                &mut scope,
                &file.domain,
                name,
                def,
                shared_params,
                &types,
                &operation_words,
            ) {
                actions.push(action);
            }
        }
        let domain_vocabulary = vocabulary::domain(path, file, &mut diagnostics);
        let action_vocabularies: Vec<(&str, &ActionVocabulary)> = actions
            .iter()
            .map(|a: &Action| (a.name.as_str(), &a.vocabulary))
            .collect();
        vocabulary::check_domain(path, file, &action_vocabularies, &mut diagnostics);
        domains.push(Domain {
            name: file.domain.clone(),
            title: file.title.clone(),
            description: file.description.trim().to_owned(),
            vocabulary: domain_vocabulary,
            actions,
        });
    }

    vocabulary::check_shared(&manifest, &mut diagnostics);
    check_catalog_wide(&manifest, &domains, &mut diagnostics);
    let enums = assign_enums(&manifest, &mut domains, &types, &mut diagnostics);

    if diagnostics.is_empty() {
        Ok(Catalog {
            types,
            enums,
            domains,
            vocabulary: shared_vocabulary,
        })
    } else {
        Err(diagnostics)
    }
}

/// Diagnostics for one action, each naming the file and the action id.
struct Scope<'a> {
    path: &'a Path,
    id: String,
    diagnostics: &'a mut Vec<Diagnostic>,
}

impl Scope<'_> {
    fn error(&mut self, key: &str, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::action(self.path, &self.id, key, message.into()));
    }
}

fn resolve_types(
    files: &IndexMap<String, PathBuf>,
    defs: &IndexMap<String, TypeDef>,
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
                "generated code already uses this name (`RESERVED_TYPES` in src/codegen/resolve.rs lists them); rename the type".into(),
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
            if found.is_none() {
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
                error(
                    &format!("fields.{field_name}.type"),
                    format!(
                        "unknown type `{written}` (use {} , an entity type, or `[T]`)",
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
            });
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
    for (index, key, message) in view_errors {
        diagnostics.push(Diagnostic::file(
            &files[&types[index].name],
            format!("type `{}`: key `{key}`: {message}", types[index].name),
        ));
    }
    types
}

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

fn humanize_type(name: &str) -> String {
    let mut out = String::new();
    for (i, ch) in name.chars().enumerate() {
        if ch.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(ch);
    }
    out
}

/// `order_by` → `OrderBy`, as `ident::camel` names the generated enum.
fn camel_case(name: &str) -> String {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// "source_branch" → "Source branch".
pub fn humanize_field(name: &str) -> String {
    let text = name.replace('_', " ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
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

fn resolve_views(
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

fn resolve_action(
    scope: &mut Scope<'_>,
    domain: &str,
    name: &str,
    def: &ActionDef,
    shared_params: &IndexMap<String, ParamDef>,
    types: &[EntityType],
    operation_words: &BTreeMap<String, BTreeSet<String>>,
) -> Option<Action> {
    let errors_before = scope.diagnostics.len();
    if let Err(problem) = check_identifier(name) {
        scope.error("", format!("the action name: {problem}"));
    }
    if def.title.len() > MAX_TITLE {
        scope.error(
            "title",
            format!("{} characters; keep it under {MAX_TITLE}", def.title.len()),
        );
    }
    let description = normalize_space(&def.description);
    if description.len() > MAX_DESCRIPTION {
        scope.error(
            "description",
            format!(
                "{} characters; keep it under {MAX_DESCRIPTION}",
                description.len()
            ),
        );
    }
    if def.safety.read_only && def.safety.destructive {
        scope.error(
            "safety",
            "an action cannot be both read_only and destructive",
        );
    }
    let method = def.method();
    if method == Method::Get && !def.safety.read_only {
        scope.error(
            "safety.read_only",
            if def.graphql.is_some() {
                "a GraphQL query is read-only"
            } else {
                "a GET action is read-only"
            },
        );
    }
    if method != Method::Get && def.safety.read_only && def.handler.is_none() {
        scope.error(
            "safety.read_only",
            if def.graphql.is_some() {
                "a GraphQL mutation changes something; it is not read-only"
            } else {
                "only GET actions (or handlers that only read) are read-only"
            },
        );
    }
    if method == Method::Delete && !def.safety.destructive {
        scope.error("safety.destructive", "a DELETE action is destructive");
    }
    if let Some(handler) = &def.handler
        && !is_identifier(handler)
    {
        scope.error(
            "handler",
            format!("`{handler}` is not a Rust function name"),
        );
    }

    let (path, graphql) = match &def.graphql {
        Some(graphql) => {
            for (key, present) in [
                ("method", def.method.is_some()),
                ("path", def.path.is_some()),
            ] {
                if present {
                    scope.error(
                        key,
                        "a GraphQL action is sent as `POST /api/graphql`; leave it out",
                    );
                }
            }
            ("/graphql".to_owned(), Some(graphql))
        }
        None => {
            if def.method.is_none() {
                scope.error("method", "missing (or declare a `graphql` operation)");
            }
            match &def.path {
                Some(path) => (path.clone(), None),
                None => {
                    scope.error("path", "missing (or declare a `graphql` operation)");
                    ("/".to_owned(), None)
                }
            }
        }
    };
    let segments = match graphql {
        Some(_) => vec![Segment::Literal],
        None => parse_path(scope, &path),
    };
    let paginated = def.pagination.is_some();
    let cursor_paged = def.pagination == Some(PaginationDef::Cursor);
    match (def.pagination, graphql.is_some()) {
        (Some(PaginationDef::Offset), true) => scope.error(
            "pagination",
            "a GraphQL list pages by cursor: `pagination: cursor`",
        ),
        (Some(PaginationDef::Cursor), false) => scope.error(
            "pagination",
            "`cursor` pages a GraphQL connection; a REST list uses `offset`",
        ),
        _ => {}
    }
    if paginated && def.output.list.is_none() {
        scope.error("pagination", "only a list result is paged");
    }
    let params = resolve_params(scope, def, shared_params, &segments);
    let graphql = graphql.map(|graphql| resolve_graphql(scope, def, graphql, &params));
    let output = resolve_output(scope, def, types);
    let view = resolve_view(scope, def, &output, types);

    // Placeholders are filled from the call's parameters, so they may only name required,
    // scalar ones: an optional parameter could be absent when the text is written.
    let param_names: BTreeSet<&str> = params
        .iter()
        .filter(|p| p.required && !matches!(p.ty, ParamType::StringList | ParamType::IntegerList))
        .map(|p| p.name.as_str())
        .collect();
    for (index, hint) in def.hints.iter().enumerate() {
        check_placeholders(
            scope,
            &format!("hints.{index}.text"),
            &hint.text,
            &param_names,
        );
    }
    for (key, text) in [
        ("not_found", def.not_found.as_deref()),
        (
            "markdown.heading",
            def.markdown.as_ref().and_then(|m| m.heading.as_deref()),
        ),
        ("output.message", def.output.message.as_deref()),
    ] {
        if let Some(text) = text {
            check_placeholders(scope, key, text, &param_names);
        }
    }
    if def.not_found.is_some() && !matches!(output, Output::Single { .. }) {
        scope.error(
            "not_found",
            "only an action with a single-entity result can report not found",
        );
    }

    let resource = def.resource.as_ref().map(|resource| {
        if !resource.uri.starts_with("gitlab://") {
            scope.error("resource.uri", "must start with `gitlab://`");
        }
        check_placeholders(scope, "resource.uri", &resource.uri, &param_names);
        if !matches!(output, Output::Single { .. }) {
            scope.error(
                "resource",
                "only an action with a single-entity result has a resource",
            );
        }
        (resource.policy, resource.uri.clone())
    });

    let hints = def
        .hints
        .iter()
        .enumerate()
        .map(|(index, hint)| Hint {
            action: hint.action.clone(),
            text: normalize_space(&hint.text),
            conditions: hint_conditions(scope, index, hint, &output, types),
        })
        .collect();

    let example = serde_json::Value::Object(
        def.example
            .iter()
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
    );
    if let serde_json::Value::Object(example) = &example {
        for (key, value) in example {
            match params.iter().find(|p| &p.name == key) {
                None => scope.error(&format!("example.{key}"), "not a parameter of this action"),
                Some(param) if !param.ty.accepts(value) => scope.error(
                    &format!("example.{key}"),
                    "does not match the parameter's type",
                ),
                Some(param)
                    if !param.values.is_empty() && !param.values.iter().any(|v| value == v) =>
                {
                    scope.error(
                        &format!("example.{key}"),
                        "is not one of the parameter's `enum` values",
                    )
                }
                Some(_) => {}
            }
        }
        for param in params.iter().filter(|p| p.required) {
            if !example.contains_key(&param.name) {
                scope.error(
                    "example",
                    format!("the required parameter `{}` is missing", param.name),
                );
            }
        }
    }

    let requires = def
        .requires
        .as_ref()
        .map_or(Requires::ANYONE, |requires| Requires {
            tier: requires.tier.unwrap_or(Tier::Free),
            scope: requires.scope,
            role: requires.role,
            admin: requires.admin,
        });
    if requires.scope == Some(TokenScope::ReadApi) && !def.safety.read_only {
        scope.error(
            "requires.scope",
            "a `read_api` token cannot change anything; a write needs `api`",
        );
    }
    if requires.scope == Some(TokenScope::Api) && def.safety.read_only {
        scope.error(
            "requires.scope",
            "`api` is already implied for writes only; a read needs `read_api` (leave it out)",
        );
    }

    let vocabulary = vocabulary::action(name, def, operation_words, |key, message| {
        scope.error(key, message)
    });

    (scope.diagnostics.len() == errors_before).then(|| Action {
        id: scope.id.clone(),
        domain: domain.to_owned(),
        name: name.to_owned(),
        title: def.title.clone(),
        description,
        tags: def.tags.clone(),
        aliases: def.aliases.clone(),
        method,
        path,
        segments,
        handler: def.handler.clone(),
        graphql,
        params,
        paginated,
        cursor_paged,
        output,
        view,
        safety: def.safety,
        resource,
        not_found: def.not_found.as_deref().map(normalize_space),
        hints,
        example,
        requires,
        vocabulary,
    })
}

/// A GraphQL operation checked against the action: the document declares the operation
/// by name, every parameter sent is one of its variables (the first part of a dotted
/// `api_name`: `input.title` fills `$input`), every variable is filled by a parameter
/// (or the action's handler), and the result is a dotted path.
fn resolve_graphql(
    scope: &mut Scope<'_>,
    def: &ActionDef,
    graphql: &GraphqlDef,
    params: &[Param],
) -> Graphql {
    let document = graphql.query.trim().to_owned();
    let mutation = graphql.is_mutation();
    if !is_identifier_like(&graphql.operation) {
        scope.error(
            "graphql.operation",
            format!("`{}` is not a GraphQL operation name", graphql.operation),
        );
    }
    let keyword = if mutation { "mutation" } else { "query" };
    let declared_name = document
        .strip_prefix(keyword)
        .map(|rest| {
            rest.trim_start()
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default()
        })
        .unwrap_or_default();
    if !document.starts_with("query") && !document.starts_with("mutation") {
        scope.error(
            "graphql.query",
            "must start with `query <operation>` or `mutation <operation>`",
        );
    } else if declared_name != graphql.operation {
        scope.error(
            "graphql.query",
            format!(
                "declares the operation `{declared_name}`, but `graphql.operation` is `{}`",
                graphql.operation
            ),
        );
    }
    let variables = declared_variables(&document);
    for param in params.iter().filter(|p| p.location == Location::Body) {
        let variable = param.api_name.split('.').next().unwrap_or_default();
        if !variables.iter().any(|v| v == variable) {
            scope.error(
                &format!("params.{}", param.name),
                format!(
                    "is sent as the variable `${variable}`, which `graphql.query` does not declare"
                ),
            );
        }
    }
    if def.handler.is_none() {
        for variable in &variables {
            let filled = params.iter().any(|p| {
                p.location == Location::Body
                    && p.api_name.split('.').next() == Some(variable.as_str())
            });
            if !filled {
                scope.error(
                    "graphql.query",
                    format!("the variable `${variable}` has no parameter (set `api_name: {variable}` on one)"),
                );
            }
        }
    }
    if graphql.result.is_empty() || !graphql.result.split('.').all(is_identifier_like) {
        scope.error(
            "graphql.result",
            "the dotted path of the result under `data` (`namespace.workItems`)",
        );
    }
    Graphql {
        operation: graphql.operation.clone(),
        document,
        result: graphql.result.clone(),
        mutation,
    }
}

/// A GraphQL name: letters, digits and `_`, not starting with a digit.
fn is_identifier_like(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The variables an operation declares: each `$name` before the first `{`.
fn declared_variables(document: &str) -> Vec<String> {
    let header = document.split('{').next().unwrap_or_default();
    header
        .split('$')
        .skip(1)
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

fn parse_path(scope: &mut Scope<'_>, path: &str) -> Vec<Segment> {
    let Some(rest) = path.strip_prefix('/') else {
        scope.error("path", "must start with `/` (relative to /api/v4)");
        return Vec::new();
    };
    let mut segments = Vec::new();
    for part in rest.split('/') {
        if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            segments.push(Segment::Param(name.to_owned()));
        } else if part.is_empty() || part.contains(['{', '}', '?', '#', ':']) {
            scope.error(
                "path",
                format!("bad segment `{part}`: use `{{param}}` placeholders and plain literals"),
            );
        } else {
            segments.push(Segment::Literal);
        }
    }
    segments
}

fn resolve_params(
    scope: &mut Scope<'_>,
    def: &ActionDef,
    shared: &IndexMap<String, ParamDef>,
    segments: &[Segment],
) -> Vec<Param> {
    let path_params: Vec<&str> = segments
        .iter()
        .filter_map(|s| match s {
            Segment::Param(name) => Some(name.as_str()),
            Segment::Literal => None,
        })
        .collect();
    let mut defs: Vec<(String, ParamDef)> = def
        .params
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    match def.pagination {
        Some(PaginationDef::Offset) => {
            for name in ["page", "per_page"] {
                if !def.params.contains_key(name) {
                    defs.push((name.to_owned(), ParamDef::default()));
                }
            }
        }
        // A connection's page: `first` items `after` the cursor the last page ended at.
        Some(PaginationDef::Cursor) => {
            if !def.params.contains_key("per_page") {
                let per_page = ParamDef {
                    api_name: Some("first".to_owned()),
                    ..ParamDef::default()
                };
                defs.push(("per_page".to_owned(), per_page));
            }
            if !def.params.contains_key("cursor") {
                let cursor = ParamDef {
                    ty: Some("string".to_owned()),
                    description: Some(
                        "Where the page starts: the `next_cursor` of the previous page.".to_owned(),
                    ),
                    aliases: Some(vec!["after".to_owned()]),
                    api_name: Some("after".to_owned()),
                    ..ParamDef::default()
                };
                defs.push(("cursor".to_owned(), cursor));
            }
        }
        None => {}
    }

    let mut params = Vec::new();
    let mut seen_names = BTreeSet::new();
    for (name, local) in defs {
        let key = format!("params.{name}");
        if let Err(problem) = check_identifier(&name) {
            scope.error(&key, problem);
            continue;
        }
        let merged = match (local.ty.is_none(), shared.get(&name)) {
            (true, Some(base)) => ParamDef {
                ty: base.ty.clone(),
                required: local.required.or(base.required),
                description: local
                    .description
                    .clone()
                    .or_else(|| base.description.clone()),
                values: local.values.clone().or_else(|| base.values.clone()),
                default: local.default.clone().or_else(|| base.default.clone()),
                minimum: local.minimum.or(base.minimum),
                maximum: local.maximum.or(base.maximum),
                location: local.location.or(base.location),
                aliases: local.aliases.clone().or_else(|| base.aliases.clone()),
                api_name: local.api_name.clone().or_else(|| base.api_name.clone()),
                items: local.items.clone().or_else(|| base.items.clone()),
                secret: local.secret.or(base.secret),
            },
            (true, None) => {
                scope.error(
                    &format!("{key}.type"),
                    "missing, and `shared.yaml` defines no parameter of this name",
                );
                continue;
            }
            (false, _) => local,
        };
        let written = merged.ty.clone().unwrap_or_default();
        let Some(ty) = ParamType::parse(&written) else {
            let names = ParamType::ALL.iter().map(|(_, name)| *name);
            scope.error(
                &format!("{key}.type"),
                suggest::unknown("type", &written, names),
            );
            continue;
        };
        let in_path = path_params.contains(&name.as_str());
        let location = match (merged.location, in_path) {
            (Some(Location::Path), false) => {
                scope.error(&format!("{key}.in"), "the path has no such placeholder");
                continue;
            }
            (Some(location), true) if location != Location::Path => {
                scope.error(&format!("{key}.in"), "this parameter is a path placeholder");
                continue;
            }
            (_, true) => Location::Path,
            (Some(location), false) => location,
            (None, false) if def.graphql.is_some() => Location::Body,
            (None, false) => match def.method() {
                Method::Get | Method::Delete => Location::Query,
                _ => Location::Body,
            },
        };
        if def.graphql.is_some() && !matches!(location, Location::Body | Location::Local) {
            scope.error(
                &format!("{key}.in"),
                "a GraphQL action's parameters are its variables (`body`) or `local`",
            );
            continue;
        }
        let required = merged.required.unwrap_or(false) || in_path;
        if in_path && merged.required == Some(false) {
            scope.error(
                &format!("{key}.required"),
                "a path parameter is always required",
            );
        }
        if in_path
            && matches!(
                ty,
                ParamType::StringList
                    | ParamType::IntegerList
                    | ParamType::Boolean
                    | ParamType::StringMap
            )
        {
            scope.error(
                &format!("{key}.type"),
                "a path parameter is a string, an integer or `path_or_id`",
            );
        }
        let items = match (ty, &merged.items) {
            (ParamType::ObjectList, Some(items)) => resolve_items(scope, &key, items),
            (ParamType::ObjectList, None) => {
                scope.error(
                    &format!("{key}.items"),
                    "an `[object]` parameter lists its objects' fields in `items`",
                );
                continue;
            }
            (_, Some(_)) => {
                scope.error(
                    &format!("{key}.items"),
                    "only an `[object]` parameter has `items`",
                );
                continue;
            }
            (_, None) => Vec::new(),
        };
        if ty == ParamType::ObjectList && location != Location::Body {
            scope.error(
                &format!("{key}.in"),
                "a list of objects is sent in the body",
            );
        }
        if ty == ParamType::StringMap && location != Location::Body {
            scope.error(
                &format!("{key}.in"),
                "a map of strings is sent in the body (GitLab reads it as a JSON object)",
            );
        }
        let has_handler = def.handler.is_some();
        if let Some(param) = checked_param(
            scope,
            &key,
            name,
            &merged,
            ty,
            location,
            required,
            has_handler,
            &mut seen_names,
        ) {
            params.push(Param { items, ..param });
        }
    }
    for placeholder in path_params {
        if !params.iter().any(|p| p.name == placeholder) {
            scope.error(
                "path",
                format!("the placeholder `{{{placeholder}}}` has no parameter"),
            );
        }
    }
    params
}

/// The checks every parameter passes, an action's or an object's field.
#[allow(
    clippy::too_many_arguments,
    reason = "one call per parameter, each argument named"
)]
fn checked_param(
    scope: &mut Scope<'_>,
    key: &str,
    name: String,
    merged: &ParamDef,
    ty: ParamType,
    location: Location,
    required: bool,
    has_handler: bool,
    seen_names: &mut BTreeSet<String>,
) -> Option<Param> {
    let Some(description) = merged
        .description
        .as_deref()
        .map(normalize_space)
        .filter(|d| !d.is_empty())
    else {
        scope.error(&format!("{key}.description"), "missing");
        return None;
    };
    let values = merged.values.clone().unwrap_or_default();
    let mut variants = BTreeMap::new();
    for value in &values {
        if let Some(other) = variants.insert(variant_name(value), value) {
            scope.error(
                &format!("{key}.enum"),
                format!("`{other}` and `{value}` would be the same Rust variant"),
            );
        }
    }
    if !values.is_empty() && ty != ParamType::String {
        scope.error(&format!("{key}.enum"), "only string parameters take `enum`");
    }
    let default = match &merged.default {
        None => None,
        Some(value) => match value {
            value
                if ty.accepts(value)
                    && (values.is_empty() || values.iter().any(|v| value == v)) =>
            {
                Some(value.clone())
            }
            _ => {
                scope.error(
                    &format!("{key}.default"),
                    "does not match the parameter's type or `enum`",
                );
                None
            }
        },
    };
    if location == Location::Local && !has_handler {
        scope.error(
            &format!("{key}.in"),
            "`local` parameters are read by a `handler`, and this action has none",
        );
    }
    if default.is_some() && required {
        scope.error(
            &format!("{key}.default"),
            "a required parameter has no default",
        );
    }
    if (merged.minimum.is_some() || merged.maximum.is_some())
        && !matches!(ty, ParamType::Integer | ParamType::Number)
    {
        scope.error(&format!("{key}.minimum"), "bounds apply to numbers only");
    }
    if let (Some(min), Some(max)) = (merged.minimum, merged.maximum)
        && min > max
    {
        scope.error(&format!("{key}.maximum"), "is below `minimum`");
    }
    let aliases = merged.aliases.clone().unwrap_or_default();
    for alias in &aliases {
        if !seen_names.insert(alias.clone()) {
            scope.error(
                &format!("{key}.aliases"),
                format!("`{alias}` is already a name or alias of another parameter"),
            );
        }
    }
    if !seen_names.insert(name.clone()) {
        scope.error(key, "is already an alias of another parameter");
    }
    Some(Param {
        api_name: merged.api_name.clone().unwrap_or_else(|| name.clone()),
        name,
        ty,
        required,
        description,
        values,
        default,
        minimum: merged.minimum,
        maximum: merged.maximum,
        location,
        aliases,
        enum_type: None,
        items: Vec::new(),
        secret: merged.secret.unwrap_or(false),
    })
}

/// The fields of each object of an `[object]` parameter: scalars and lists of scalars,
/// sent in the body under their own names.
fn resolve_items(
    scope: &mut Scope<'_>,
    parent: &str,
    items: &IndexMap<String, ParamDef>,
) -> Vec<Param> {
    let mut fields = Vec::new();
    let mut seen_names = BTreeSet::new();
    for (name, def) in items {
        let key = format!("{parent}.items.{name}");
        if let Err(problem) = check_identifier(name) {
            scope.error(&key, problem);
            continue;
        }
        let written = def.ty.clone().unwrap_or_default();
        let ty = match ParamType::parse(&written) {
            Some(ParamType::ObjectList | ParamType::PathOrId | ParamType::StringMap) | None => {
                scope.error(
                    &format!("{key}.type"),
                    format!("`{written}`: an object's field is a string, integer, number, boolean, [string] or [integer]"),
                );
                continue;
            }
            Some(ty) => ty,
        };
        if def.location.is_some() || def.aliases.is_some() {
            scope.error(&key, "an object's field takes no `in` or `aliases`");
        }
        let required = def.required.unwrap_or(false);
        if let Some(field) = checked_param(
            scope,
            &key,
            name.clone(),
            def,
            ty,
            Location::Body,
            required,
            false,
            &mut seen_names,
        ) {
            fields.push(field);
        }
    }
    if fields.is_empty() {
        scope.error(&format!("{parent}.items"), "declares no valid field");
    }
    fields
}

/// A hint's `when` and `unless`: each names a field of the single entity the action
/// returns (one that the structured result carries) and the scalar values it tests for.
fn hint_conditions(
    scope: &mut Scope<'_>,
    index: usize,
    hint: &HintDef,
    output: &Output,
    types: &[EntityType],
) -> Vec<(String, Vec<String>, bool)> {
    let mut conditions = Vec::new();
    for (key, map, negated) in [("when", &hint.when, false), ("unless", &hint.unless, true)] {
        let key = format!("hints.{index}.{key}");
        if map.is_empty() {
            continue;
        }
        let Output::Single { ty } = output else {
            scope.error(&key, "only a single-entity result has fields to test");
            continue;
        };
        let entity = types.iter().find(|t| &t.name == ty);
        for (field, values) in map {
            match entity.and_then(|e| e.fields.iter().find(|f| &f.name == field)) {
                None => scope.error(&key, format!("`{field}` is not a field of `{ty}`")),
                Some(f) if f.content_only => scope.error(
                    &key,
                    format!("`{field}` is content-only: the structured result does not carry it"),
                ),
                Some(_) => {}
            }
            if values.is_empty() {
                scope.error(&key, format!("`{field}` lists no values"));
            }
            let values = values
                .iter()
                .filter_map(|value| match value {
                    serde_json::Value::String(text) => Some(text.clone()),
                    serde_json::Value::Number(_) | serde_json::Value::Bool(_) => {
                        Some(value.to_string())
                    }
                    _ => {
                        scope.error(&key, format!("`{field}`: values must be scalars"));
                        None
                    }
                })
                .collect();
            conditions.push((field.clone(), values, negated));
        }
    }
    conditions
}

fn resolve_output(scope: &mut Scope<'_>, def: &ActionDef, types: &[EntityType]) -> Output {
    let output = &def.output;
    let exists = |name: &str| types.iter().any(|t| t.name == name);
    match (&output.ty, &output.list, &output.message) {
        (Some(ty), list, None) => {
            if !exists(ty) {
                scope.error(
                    "output.type",
                    format!("no type named `{ty}` in shared.yaml"),
                );
            }
            match list {
                Some(key) => {
                    if !is_identifier(key) {
                        scope.error("output.list", "the list key is lower_snake_case");
                    }
                    let from_map = output.from.as_ref().map(|from| {
                        let entity = types.iter().find(|t| &t.name == ty);
                        for field in [&from.map.key, &from.map.value] {
                            if entity.is_some_and(|e| e.field(field).is_none()) {
                                scope.error(
                                    "output.from.map",
                                    format!("`{ty}` has no field `{field}`"),
                                );
                            }
                        }
                        (from.map.key.clone(), from.map.value.clone())
                    });
                    Output::List {
                        ty: ty.clone(),
                        key: key.clone(),
                        from_map,
                    }
                }
                None => {
                    if output.from.is_some() {
                        scope.error("output.from", "only a list result can be read from a map");
                    }
                    Output::Single { ty: ty.clone() }
                }
            }
        }
        (None, None, Some(text)) => Output::Message {
            text: normalize_space(text),
        },
        _ => {
            scope.error(
                "output",
                "give either `type` (with `list` for a collection) or `message`",
            );
            Output::Message {
                text: String::new(),
            }
        }
    }
}

fn resolve_view(
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

/// Gives every enumerated parameter its Rust type: one enum per name and set of values,
/// shared by every action that takes it. A name with several sets is qualified by the
/// domain (`MergeRequestOrderBy`), or by domain and action where one domain has several.
fn assign_enums(
    manifest: &Manifest,
    domains: &mut [Domain],
    types: &[EntityType],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<EnumType> {
    // (base name, values) → users (domain, action, param), in catalog order.
    type Users = Vec<(String, String, String)>;
    let mut sets: Vec<(String, Vec<String>, Users)> = Vec::new();
    for domain in domains.iter() {
        for action in &domain.actions {
            // An object's field is named `<param>.<field>`, its enum `<Param><Field>`.
            let enumerated = action.params.iter().flat_map(|param| {
                std::iter::once((param.name.clone(), param)).chain(
                    param
                        .items
                        .iter()
                        .map(move |field| (format!("{}.{}", param.name, field.name), field)),
                )
            });
            for (qualified, param) in enumerated.filter(|(_, p)| !p.values.is_empty()) {
                let base = camel_case(&qualified.replace('.', "_"));
                let user = (domain.name.clone(), action.name.clone(), qualified);
                match sets
                    .iter_mut()
                    .find(|(b, values, _)| *b == base && *values == param.values)
                {
                    Some((_, _, users)) => users.push(user),
                    None => sets.push((base, param.values.clone(), vec![user])),
                }
            }
        }
    }
    let mut names: Vec<String> = Vec::with_capacity(sets.len());
    for (base, _, users) in &sets {
        let (domain, action, _) = &users[0];
        let same_base: Vec<_> = sets.iter().filter(|(b, ..)| b == base).collect();
        let domains_of_base: Vec<&str> = same_base
            .iter()
            .map(|(_, _, users)| users[0].0.as_str())
            .collect();
        let name = if same_base.len() == 1 {
            base.clone()
        } else if domains_of_base.iter().filter(|d| *d == domain).count() == 1 {
            format!("{}{base}", camel_case(domain))
        } else {
            format!("{}{}{base}", camel_case(domain), camel_case(action))
        };
        names.push(name);
    }
    let file_of = |domain: &str| manifest.file_of(domain);
    let mut enums = Vec::new();
    for (index, ((_, values, users), name)) in sets.into_iter().zip(&names).enumerate() {
        let (domain, action, param) = &users[0];
        let clash = if RESERVED_TYPES.contains(&name.as_str()) {
            Some("a name generated code already uses".to_owned())
        } else if types.iter().any(|t| &t.name == name) {
            Some(format!("the entity type `{name}`"))
        } else if names[..index].contains(name) {
            Some("another enumerated parameter's type".to_owned())
        } else {
            None
        };
        if let Some(clash) = clash {
            diagnostics.push(Diagnostic::action(
                &file_of(domain),
                &format!("{domain}.{action}"),
                &format!("params.{param}"),
                format!(
                    "its values would be the Rust enum `{name}`, which collides with {clash}; rename the parameter (with `api_name` for GitLab's name)"
                ),
            ));
        }
        for (domain_name, action_name, param_name) in &users {
            let Some(param) = domains
                .iter_mut()
                .find(|d| &d.name == domain_name)
                .and_then(|d| d.actions.iter_mut().find(|a| &a.name == action_name))
                .and_then(|a| {
                    let (name, field) = match param_name.split_once('.') {
                        Some((name, field)) => (name, Some(field)),
                        None => (param_name.as_str(), None),
                    };
                    let param = a.params.iter_mut().find(|p| p.name == name)?;
                    match field {
                        Some(field) => param.items.iter_mut().find(|f| f.name == field),
                        None => Some(param),
                    }
                })
            else {
                continue;
            };
            param.enum_type = Some(name.clone());
        }
        enums.push(EnumType {
            name: name.clone(),
            variants: values
                .iter()
                .map(|value| (variant_name(value), value.clone()))
                .collect(),
            users: users
                .iter()
                .map(|(d, a, p)| format!("{d}.{a}.{p}"))
                .collect(),
        });
    }
    enums
}

/// Names inside `{...}` in a text.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        found.push(rest[start + 1..start + len].to_owned());
        rest = &rest[start + len + 1..];
    }
    found
}

fn check_placeholders(scope: &mut Scope<'_>, key: &str, text: &str, params: &BTreeSet<&str>) {
    for name in placeholders(text) {
        if !params.contains(name.as_str()) {
            scope.error(
                key,
                format!("`{{{name}}}` is not a required parameter of this action"),
            );
        }
    }
}

fn check_catalog_wide(manifest: &Manifest, domains: &[Domain], diagnostics: &mut Vec<Diagnostic>) {
    let mut owners: BTreeMap<String, String> = BTreeMap::new();
    let file_of = |domain: &str| manifest.file_of(domain);
    let mut domain_names = BTreeSet::new();
    for domain in domains {
        if !domain_names.insert(domain.name.clone()) {
            diagnostics.push(Diagnostic::file(
                &file_of(&domain.name),
                format!("domain `{}` is declared twice", domain.name),
            ));
        }
        for action in &domain.actions {
            let names = std::iter::once(action.id.clone()).chain(action.aliases.iter().cloned());
            for (index, name) in names.enumerate() {
                let key = if index == 0 {
                    String::new()
                } else {
                    "aliases".to_owned()
                };
                if let Some(owner) = owners.insert(name.clone(), action.id.clone()) {
                    diagnostics.push(Diagnostic::action(
                        &file_of(&domain.name),
                        &action.id,
                        &key,
                        format!("`{name}` is already the id or an alias of `{owner}`"),
                    ));
                }
                if index > 0 && !name.contains('.') {
                    diagnostics.push(Diagnostic::action(
                        &file_of(&domain.name),
                        &action.id,
                        &key,
                        format!("alias `{name}` is not of the form `domain.action`"),
                    ));
                }
            }
        }
    }
    // Every declared id, resolved or not, so one broken action does not make every hint
    // that names it an error too.
    let ids: BTreeSet<String> = manifest
        .domains
        .iter()
        .flat_map(|(_, file)| {
            file.actions
                .keys()
                .map(move |name| format!("{}.{name}", file.domain))
        })
        .collect();
    for domain in domains {
        for action in &domain.actions {
            for hint in &action.hints {
                let target = &hint.action;
                if !ids.contains(target) {
                    diagnostics.push(Diagnostic::action(
                        &file_of(&domain.name),
                        &action.id,
                        "hints",
                        format!("`{target}` is not an action id"),
                    ));
                }
            }
        }
    }
}

/// A manifest name used as a Rust identifier (a field, parameter, action or domain):
/// lower_snake_case, and a keyword only where a raw identifier can stand for it.
pub fn check_identifier(name: &str) -> Result<(), String> {
    if NOT_RAW.contains(&name) {
        return Err(format!(
            "`{name}` cannot be a Rust name; use another name (with `api_name` for GitLab's)"
        ));
    }
    if !is_identifier(name) {
        return Err(format!(
            "`{name}` is not lower_snake_case (a-z, 0-9 and `_`, starting with a letter)"
        ));
    }
    Ok(())
}

/// The Rust variant of an enum value: `created_by_me` → `CreatedByMe`, `2fa` → `V2fa`.
pub fn variant_name(value: &str) -> String {
    let name = camel_case(value);
    match name.as_str() {
        "" => "Empty".to_owned(),
        "Self" => "SelfValue".to_owned(),
        _ if name.starts_with(|c: char| c.is_ascii_digit()) => format!("V{name}"),
        _ => name,
    }
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn normalize_space(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

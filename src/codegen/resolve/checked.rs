//! The checked model: the manifest resolved, with every name it references known to
//! exist. `emit` reads only this.

use super::super::kinds::{CellKind, Location, Method, ParamType, Requires, ResourcePolicy};
use super::super::model::SafetyDef;
use super::super::vocabulary::{ActionVocabulary, DomainVocabulary, Vocabulary};

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
    /// A secret GitLab shows only in the answer that creates it (`secret: shown_once`).
    pub shown_once: bool,
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

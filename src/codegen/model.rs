//! The action manifest as it is written in `actions/*.yaml` (build time only).
//!
//! These structs mirror the YAML one to one and reject unknown keys, so a typo in a
//! manifest is a build error rather than a silently ignored setting. Nothing here
//! interprets the manifest: `resolve` turns it into the checked model that `emit` reads.
//! Every key is documented in `actions/README.md`; keep the two in step.

use indexmap::IndexMap;
use serde::Deserialize;

pub use super::kinds::{CellKind, Location, Method, ResourcePolicy, Role, Tier, TokenScope};
use super::suggest;

/// `actions/shared.yaml`: parameters and entity types every domain may use.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedFile {
    /// Parameter definitions an action inherits by naming the parameter with no `type`.
    pub params: IndexMap<String, ParamDef>,
    /// Entity types, referenced by name from fields and action outputs.
    pub types: IndexMap<String, TypeDef>,
    /// Search words every domain shares: the common operations and general synonyms.
    #[serde(default)]
    pub vocabulary: SharedVocabularyDef,
}

/// `vocabulary:` in `shared.yaml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedVocabularyDef {
    /// Operation → the words and phrases a request uses to ask for it (`delete: [remove, drop]`).
    #[serde(default)]
    pub operations: IndexMap<String, Vec<String>>,
    /// Catalog word → the words and phrases that also mean it, in any domain.
    #[serde(default)]
    pub synonyms: IndexMap<String, Vec<String>>,
}

/// `vocabulary:` in a domain file: how requests name the domain and its parts.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainVocabularyDef {
    /// Words and phrases that name the domain's things, singular (`merge request`, `mr`).
    #[serde(default)]
    pub nouns: Vec<String>,
    /// Catalog word → the words and phrases a request may use for it (`note: [comment]`).
    #[serde(default)]
    pub synonyms: IndexMap<String, Vec<String>>,
    /// A reference kind (`"!"`, `"#"`, `"@"`, `sha`, `file`) → the noun or object it names.
    #[serde(default)]
    pub references: IndexMap<String, String>,
}

/// `vocabulary:` in an action: how requests ask for it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionVocabularyDef {
    /// The operation, when it is not the one its method and result imply.
    #[serde(default)]
    pub operation: Option<String>,
    /// Words and phrases that ask for the action's operation (`land` for `merge`).
    #[serde(default)]
    pub verbs: Vec<String>,
    /// Words and phrases that name this action alone (`who am i`).
    #[serde(default)]
    pub phrases: Vec<String>,
    /// The parts of the domain it works on, when not the words of its name.
    #[serde(default)]
    pub objects: Option<Vec<String>>,
    /// It is about the caller's own things (`my merge requests`).
    #[serde(default)]
    pub caller: bool,
}

/// `actions/<domain>.yaml`: one GitLab domain and its actions.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainFile {
    pub domain: String,
    pub title: String,
    pub description: String,
    #[serde(default)]
    pub vocabulary: DomainVocabularyDef,
    pub actions: IndexMap<String, ActionDef>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionDef {
    pub title: String,
    pub description: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The REST method; absent for a GraphQL action.
    #[serde(default)]
    pub method: Option<Method>,
    /// The REST path; absent for a GraphQL action.
    #[serde(default)]
    pub path: Option<String>,
    /// A GraphQL operation instead of a REST request.
    #[serde(default)]
    pub graphql: Option<GraphqlDef>,
    #[serde(default)]
    pub handler: Option<String>,
    #[serde(default)]
    pub params: IndexMap<String, ParamDef>,
    #[serde(default)]
    pub pagination: Option<PaginationDef>,
    pub output: OutputDef,
    #[serde(default)]
    pub markdown: Option<MarkdownDef>,
    pub safety: SafetyDef,
    #[serde(default)]
    pub resource: Option<ResourceDef>,
    #[serde(default)]
    pub not_found: Option<String>,
    #[serde(default)]
    pub hints: Vec<HintDef>,
    /// What an instance and a token need to run the action; absent: any edition, and a
    /// token with `read_api` (reads) or `api` (writes).
    #[serde(default)]
    pub requires: Option<RequiresDef>,
    #[serde(default)]
    pub vocabulary: ActionVocabularyDef,
    pub example: IndexMap<String, serde_json::Value>,
}

impl ActionDef {
    /// The method the action behaves as: its own, or for a GraphQL action `GET` for a
    /// query and `POST` for a mutation (on the wire, every GraphQL request is a `POST`).
    pub fn method(&self) -> Method {
        match (&self.graphql, self.method) {
            (Some(graphql), _) if graphql.is_mutation() => Method::Post,
            (Some(_), _) => Method::Get,
            (None, method) => method.unwrap_or(Method::Get),
        }
    }
}

/// `graphql:`: the operation a GraphQL action sends to `POST /api/graphql`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphqlDef {
    /// The operation's name, as the document declares it (`query WorkItems(...)`).
    pub operation: String,
    /// The GraphQL document; parameters are its variables (by `api_name`).
    pub query: String,
    /// Where the result is under `data`, dotted (`namespace.workItems`).
    pub result: String,
}

impl GraphqlDef {
    pub fn is_mutation(&self) -> bool {
        self.query.trim_start().starts_with("mutation")
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamDef {
    #[serde(rename = "type", default)]
    pub ty: Option<String>,
    #[serde(default)]
    pub required: Option<bool>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(rename = "enum", default)]
    pub values: Option<Vec<String>>,
    #[serde(default)]
    pub default: Option<serde_json::Value>,
    #[serde(default)]
    pub minimum: Option<i64>,
    #[serde(default)]
    pub maximum: Option<i64>,
    #[serde(rename = "in", default)]
    pub location: Option<Location>,
    #[serde(default)]
    pub aliases: Option<Vec<String>>,
    #[serde(default)]
    pub api_name: Option<String>,
    /// For an `[object]` parameter: the fields of each object.
    #[serde(default)]
    pub items: Option<IndexMap<String, ParamDef>>,
    /// The value is a secret (a trigger token): masked in every result, preview and log.
    #[serde(default)]
    pub secret: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PaginationDef {
    Offset,
    /// GraphQL's connections: `first` and `after` a cursor.
    Cursor,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputDef {
    /// Entity type of the result (absent for a result that is only a message).
    #[serde(rename = "type", default)]
    pub ty: Option<String>,
    /// Key of the list in the structured result; present exactly when the result is a list.
    #[serde(default)]
    pub list: Option<String>,
    /// GitLab answers with a JSON object whose keys become the `key_field` of each item.
    #[serde(default)]
    pub from: Option<OutputFrom>,
    /// Sentence that confirms an action with no entity result; `{param}` placeholders allowed.
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputFrom {
    pub map: MapAdapter,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapAdapter {
    pub key: String,
    pub value: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkdownDef {
    /// Heading of a table or card; `{param}` placeholders allowed.
    #[serde(default)]
    pub heading: Option<String>,
    /// Past-tense verb for a mutation card: `## Merge Request !12 merged: Fix login`.
    #[serde(default)]
    pub verb: Option<String>,
    #[serde(default)]
    pub columns: Option<Vec<FieldViewDef>>,
    #[serde(default)]
    pub rows: Option<Vec<FieldViewDef>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SafetyDef {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    /// For a destructive action whose effect the user must approve in so many words
    /// (deleting or banning a user, revoking a token): what it does and what is lost, with
    /// `{param}` placeholders. Its confirmation quotes it: the strongest wording.
    /// `irreversible` is read as the same key (its name before bans, which can be lifted,
    /// needed the same wording).
    #[serde(default, alias = "irreversible")]
    pub consequence: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceDef {
    pub policy: ResourcePolicy,
    pub uri: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequiresDef {
    /// The lowest GitLab tier that has the operation.
    #[serde(default)]
    pub tier: Option<Tier>,
    /// The token scope it needs; by default `read_api` for a read, `api` for a write.
    #[serde(default)]
    pub scope: Option<TokenScope>,
    /// The lowest role in the project or group (informational: GitLab checks it).
    #[serde(default)]
    pub role: Option<Role>,
    /// Only an instance administrator may call it.
    #[serde(default)]
    pub admin: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HintDef {
    pub action: String,
    pub text: String,
    /// Only when each named field of the result has one of these values.
    #[serde(default)]
    pub when: IndexMap<String, Vec<serde_json::Value>>,
    /// Not when a named field of the result has one of these values.
    #[serde(default)]
    pub unless: IndexMap<String, Vec<serde_json::Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeDef {
    pub description: String,
    /// Copy field definitions from this type: a field written as `{}` inherits its definition.
    #[serde(default)]
    pub from: Option<String>,
    /// Display name in card headings and not-found messages ("Merge Request").
    #[serde(default)]
    pub kind: Option<String>,
    /// The short reference shown in headings and first table columns (`!12`, `#34`).
    #[serde(default)]
    pub reference: Option<ReferenceDef>,
    /// Field used as the card title.
    #[serde(default)]
    pub heading: Option<String>,
    /// Field holding the entity's web URL; the reference links to it.
    #[serde(default)]
    pub link: Option<String>,
    pub fields: IndexMap<String, FieldDef>,
    #[serde(default)]
    pub card: Vec<FieldViewDef>,
    #[serde(default)]
    pub table: Vec<FieldViewDef>,
    /// GitLab's own response schema for this type, under `public_api/v4/` in GitLab's
    /// `spec/fixtures/api/schemas/` (`pipeline/detail.json`); `shape-check` holds the
    /// fields to it.
    #[serde(default)]
    pub gitlab_schema: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceDef {
    pub field: String,
    #[serde(default)]
    pub prefix: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldDef {
    #[serde(rename = "type", default)]
    pub ty: Option<String>,
    #[serde(default)]
    pub required: Option<bool>,
    #[serde(default)]
    pub description: Option<String>,
    /// A large body (file content, log, diff) shown in the Markdown and never copied into
    /// the structured result.
    #[serde(default)]
    pub content_only: Option<bool>,
    /// `shown_once`: a secret GitLab shows only in the answer that creates it (a new
    /// token's value). The dispatcher adds a note to store it now and masks it in logs.
    #[serde(default)]
    pub secret: Option<FieldSecret>,
}

/// How a field's value is a secret (`secret:` on an entity field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldSecret {
    ShownOnce,
}

/// One card row or table column.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldViewDef {
    #[serde(default)]
    pub field: Option<String>,
    /// Two fields shown together, such as `source_branch → target_branch`.
    #[serde(default)]
    pub fields: Option<Vec<String>>,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub kind: Option<CellKind>,
    /// For `code_block`: the field whose file extension names the fence language.
    #[serde(default)]
    pub language_from: Option<String>,
    /// For `code_block`: the fence language itself (`diff`).
    #[serde(default)]
    pub language: Option<String>,
}

/// Reads a manifest name into its value in `kinds`, naming the nearest name when it is
/// misspelt (`kind: cod` → did you mean `code`?).
macro_rules! named_from_yaml {
    ($($kind:ident: $what:literal),+ $(,)?) => {$(
        impl<'de> Deserialize<'de> for $kind {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                $kind::parse(&text).ok_or_else(|| {
                    let names = $kind::ALL.iter().map(|(_, name)| *name);
                    serde::de::Error::custom(suggest::unknown($what, &text, names))
                })
            }
        }
    )+};
}

named_from_yaml!(
    CellKind: "kind",
    Method: "method",
    Location: "location",
    ResourcePolicy: "policy",
    Tier: "tier",
    TokenScope: "scope",
    Role: "role",
);

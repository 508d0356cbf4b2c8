//! The action catalog: the one list every surface, doc and test is derived from.
//!
//! `build.rs` generates the entries (`generated`) from `actions/*.yaml`; this module defines
//! the shape of an entry and the lookups over the list. An entry is data plus one function,
//! `plan`, which checks a call's arguments into the action's typed params and request. The
//! catalog knows nothing of MCP, Markdown or the network, and imports nothing from the
//! dispatcher: the dispatcher reads entries and runs them.

mod args;
mod conform;
mod entity;
mod template;
mod vocabulary;

pub use crate::kinds::{
    CellKind, Location, Method, ParamType, Requires, ResourcePolicy, Role, SHOWN_ONCE_KEY, Tier,
    TokenScope,
};
pub use args::{
    ActionParams, ArgReader, FromParam, JsonObject, ObjectParam, ParamEnum, ParamProblems, Plan,
    accepted, enum_from_param, object_from_param, plan,
};
pub use conform::{
    Misfit, UNREADABLE_KEY, Unreadable, conform, conform_item, conform_items, strip_content_only,
};
pub use entity::{Entity, FenceLanguage, Field, FieldType, FieldView, Reference};
pub use template::{arg_text, fill, fill_uri};
pub use vocabulary::{ActionVocabulary, DomainVocabulary, Vocabulary, WordList};

use crate::gitlab::{Request, WireValue};

pub mod generated {
    //! The code `build.rs` generates from `actions/*.yaml` (`cargo run -- codegen` prints it).
    include!(concat!(env!("OUT_DIR"), "/actions.rs"));
}

pub use generated::{ACTIONS, DOMAINS, ENTITIES, VOCABULARY};

// Requests people made, each with the actions that answer it (`actions/requests/*.tsv`,
// checked by build.rs): search learns how people say things from them.
include!(concat!(env!("OUT_DIR"), "/requests.rs"));

/// The arguments of one call, as the client sent them (after alias normalisation).
pub type Args = serde_json::Map<String, serde_json::Value>;

/// One GitLab operation, as declared in the manifest.
#[derive(Debug)]
pub struct Action {
    /// Canonical id, `domain.action`.
    pub id: &'static str,
    pub domain: &'static str,
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub tags: &'static [&'static str],
    /// Other ids that resolve to this action.
    pub aliases: &'static [&'static str],
    pub method: Method,
    /// REST path relative to `/api/v4`, with `{param}` placeholders.
    pub path: &'static str,
    /// The hand-written function in `src/handlers/` that runs this action, if any.
    pub handler: Option<&'static str>,
    /// For a GraphQL action: its document and where its result is (`path` is `/graphql`).
    pub graphql: Option<Graphql>,
    pub params: &'static [ParamSpec],
    pub result: ResultShape,
    pub view: View,
    pub safety: Safety,
    pub resource: Option<ResourceSpec>,
    /// For a single-entity read: what is missing when GitLab answers 404 (a template).
    pub not_found: Option<&'static str>,
    pub hints: &'static [Hint],
    /// Example arguments, as JSON text.
    pub example: &'static str,
    /// The input schema, as JSON text (generated at build time).
    pub input_schema_json: &'static str,
    /// For a destructive action, the input schema with the `confirm` flag, as JSON text
    /// (generated at build time); empty otherwise.
    pub confirmed_input_schema_json: &'static str,
    /// The output schema, as JSON text (generated at build time).
    pub output_schema_json: &'static str,
    /// Checks a call's arguments: `catalog::plan` with this action's `Params`.
    pub plan: fn(&'static Action, Args) -> Result<Plan, ParamProblems>,
    /// What an instance and a token need to run it.
    pub requires: Requires,
    /// How requests ask for it: its operation, objects, verbs and phrases.
    pub vocabulary: ActionVocabulary,
}

/// A GraphQL action's operation: sent as `POST /api/graphql` with the action's parameters
/// as variables (each under its `api_name`; a dotted name nests, `input.title`).
#[derive(Debug, Clone, Copy)]
pub struct Graphql {
    /// The operation name, as the document declares it (`query WorkItems(...)`).
    pub operation: &'static str,
    /// The GraphQL document, as written in the manifest.
    pub document: &'static str,
    /// Where the result is under `data`, dotted (`namespace.workItems`); for a list, a
    /// connection whose `nodes` are the items.
    pub result: &'static str,
    /// A mutation (a query may be sent again; a mutation may not).
    pub mutation: bool,
}

impl Graphql {
    pub const fn query(
        operation: &'static str,
        document: &'static str,
        result: &'static str,
    ) -> Self {
        Self {
            operation,
            document,
            result,
            mutation: false,
        }
    }

    pub const fn mutation(
        operation: &'static str,
        document: &'static str,
        result: &'static str,
    ) -> Self {
        Self {
            mutation: true,
            ..Self::query(operation, document, result)
        }
    }
}

#[derive(Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub ty: ParamType,
    pub required: bool,
    pub location: Location,
    pub description: &'static str,
    /// Allowed values, for an enumerated string.
    pub values: &'static [&'static str],
    /// Default value as JSON text.
    pub default: Option<&'static str>,
    pub minimum: Option<i64>,
    pub maximum: Option<i64>,
    /// Other names a caller may use for this parameter.
    pub aliases: &'static [&'static str],
    /// GitLab's name for the parameter, where it differs from ours.
    pub api_name: &'static str,
    /// For a list of objects: each object's fields.
    pub items: &'static [ParamSpec],
    /// A secret (a trigger token): masked in every result, preview and log of the call.
    pub secret: bool,
}

impl ParamSpec {
    /// A parameter with no extras: optional, any value of its type, sent under its name.
    pub const fn new(name: &'static str, ty: ParamType, location: Location) -> Self {
        Self {
            name,
            ty,
            required: false,
            location,
            description: "",
            values: &[],
            default: None,
            minimum: None,
            maximum: None,
            aliases: &[],
            api_name: name,
            items: &[],
            secret: false,
        }
    }

    pub const fn secret(mut self) -> Self {
        self.secret = true;
        self
    }

    pub const fn describe(mut self, description: &'static str) -> Self {
        self.description = description;
        self
    }

    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }

    pub const fn values(mut self, values: &'static [&'static str]) -> Self {
        self.values = values;
        self
    }

    /// The default, as JSON text.
    pub const fn default(mut self, json: &'static str) -> Self {
        self.default = Some(json);
        self
    }

    pub const fn minimum(mut self, minimum: i64) -> Self {
        self.minimum = Some(minimum);
        self
    }

    pub const fn maximum(mut self, maximum: i64) -> Self {
        self.maximum = Some(maximum);
        self
    }

    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    /// The fields of each object of an object list.
    pub const fn items(mut self, items: &'static [ParamSpec]) -> Self {
        self.items = items;
        self
    }

    pub const fn api_name(mut self, api_name: &'static str) -> Self {
        self.api_name = api_name;
        self
    }
}

impl ParamType {
    /// How the type reads in an error message.
    pub fn describe(self) -> &'static str {
        match self {
            Self::String => "a string",
            Self::Integer => "an integer",
            Self::Number => "a number",
            Self::Boolean => "true or false",
            Self::PathOrId => "a numeric id or a full path such as `group/project`",
            Self::StringList => "an array of strings",
            Self::IntegerList => "an array of integers",
            Self::ObjectList => "an array of objects",
            Self::StringMap => "an object of string values by key, such as {\"VERSION\": \"2\"}",
        }
    }

    /// The short JSON type name, for compact schemas and docs.
    pub fn json_name(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Boolean => "boolean",
            Self::PathOrId => "string|integer",
            Self::StringList => "string[]",
            Self::IntegerList => "integer[]",
            Self::ObjectList => "object[]",
            Self::StringMap => "{string}",
        }
    }
}

/// The shape of an action's structured result.
#[derive(Debug, Clone, Copy)]
pub enum ResultShape {
    /// One entity: its fields plus `next_steps`.
    Single { entity: &'static Entity },
    /// `{"<key>": [...], "pagination": {...}}`.
    List {
        entity: &'static Entity,
        key: &'static str,
        paginated: bool,
        /// GitLab answers with an object whose entries become items: `(key field, value field)`.
        from_map: Option<(&'static str, &'static str)>,
    },
    /// No entity, only a confirmation: `{"message": ...}` (a template).
    Message { text: &'static str },
}

impl ResultShape {
    pub const fn single(entity: &'static Entity) -> Self {
        Self::Single { entity }
    }

    /// A list GitLab pages with its `X-Page` headers.
    pub const fn paginated(entity: &'static Entity, key: &'static str) -> Self {
        Self::List {
            entity,
            key,
            paginated: true,
            from_map: None,
        }
    }

    /// A list GitLab sends whole.
    pub const fn list(entity: &'static Entity, key: &'static str) -> Self {
        Self::List {
            entity,
            key,
            paginated: false,
            from_map: None,
        }
    }

    /// A list read from an object's entries: `{"Rust": 78.4}` → `{key_field, value_field}`.
    pub const fn from_map(
        entity: &'static Entity,
        key: &'static str,
        key_field: &'static str,
        value_field: &'static str,
    ) -> Self {
        Self::List {
            entity,
            key,
            paginated: false,
            from_map: Some((key_field, value_field)),
        }
    }

    pub const fn message(text: &'static str) -> Self {
        Self::Message { text }
    }

    pub fn entity(&self) -> Option<&'static Entity> {
        match self {
            Self::Single { entity } | Self::List { entity, .. } => Some(entity),
            Self::Message { .. } => None,
        }
    }
}

/// How the Markdown of a result is laid out. Headings are templates in the action's
/// required parameters.
#[derive(Debug, Clone, Copy)]
pub enum View {
    Card {
        /// A heading of the action's own instead of `<Kind> <ref>: <title>`.
        heading: Option<&'static str>,
        /// For a mutation: `## Merge Request !12 merged: Fix login`.
        verb: Option<&'static str>,
        rows: &'static [FieldView],
    },
    Table {
        heading: &'static str,
        columns: &'static [FieldView],
    },
    Message {
        heading: &'static str,
    },
}

impl View {
    /// The entity's own card, under `<Kind> <ref>: <title>`.
    pub const fn card(rows: &'static [FieldView]) -> Self {
        Self::Card {
            heading: None,
            verb: None,
            rows,
        }
    }

    /// A mutation's card: `<Kind> <ref> <verb>: <title>`.
    pub const fn card_verb(verb: &'static str, rows: &'static [FieldView]) -> Self {
        Self::Card {
            heading: None,
            verb: Some(verb),
            rows,
        }
    }

    /// A card under a heading of the action's own (a template).
    pub const fn card_headed(heading: &'static str, rows: &'static [FieldView]) -> Self {
        Self::Card {
            heading: Some(heading),
            verb: None,
            rows,
        }
    }

    pub const fn table(heading: &'static str, columns: &'static [FieldView]) -> Self {
        Self::Table { heading, columns }
    }

    pub const fn message(heading: &'static str) -> Self {
        Self::Message { heading }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Safety {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    /// What running it does that the user must approve in so many words, for the
    /// strongest confirmation (`safety.consequence`), with `{param}` placeholders.
    pub consequence: Option<&'static str>,
}

impl Safety {
    /// Reads only.
    pub const READ_ONLY: Self = Self::new(true, false, true);
    /// Changes something; doing it twice does it twice (a comment, a pipeline).
    pub const WRITE: Self = Self::new(false, false, false);
    /// Changes something; doing it twice is the same as once (an update, a retry).
    pub const IDEMPOTENT_WRITE: Self = Self::new(false, false, true);
    /// Destroys or irreversibly changes something; needs confirmation.
    pub const DESTRUCTIVE: Self = Self::new(false, true, true);

    pub const fn new(read_only: bool, destructive: bool, idempotent: bool) -> Self {
        Self {
            read_only,
            destructive,
            idempotent,
            consequence: None,
        }
    }

    /// A destructive action whose confirmation says what it does and asks for explicit
    /// approval (deleting or banning a user, revoking a token).
    pub const fn consequence(self, what: &'static str) -> Self {
        Self {
            consequence: Some(what),
            ..self
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct ResourceSpec {
    pub policy: ResourcePolicy,
    /// `gitlab://` URI template in the action's own parameter names.
    pub uri: &'static str,
}

impl ResourceSpec {
    pub const fn new(policy: ResourcePolicy, uri: &'static str) -> Self {
        Self { policy, uri }
    }
}

/// A next step a result suggests: an action, why, and the result's state it fits (a
/// successful pipeline has no failed jobs to look at).
#[derive(Debug, Clone, Copy)]
pub struct Hint {
    pub action: &'static str,
    pub text: &'static str,
    /// All must hold for the hint to be offered.
    pub conditions: &'static [HintCondition],
}

/// A field of the result, tested against values: `status` is `failed` (or, negated, is not).
#[derive(Debug, Clone, Copy)]
pub struct HintCondition {
    pub field: &'static str,
    pub values: &'static [&'static str],
    pub negated: bool,
}

impl HintCondition {
    pub const fn new(field: &'static str, values: &'static [&'static str], negated: bool) -> Self {
        Self {
            field,
            values,
            negated,
        }
    }

    fn holds(&self, result: &serde_json::Map<String, serde_json::Value>) -> bool {
        let value = match result.get(self.field) {
            Some(serde_json::Value::String(text)) => text.clone(),
            Some(serde_json::Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        self.values.contains(&value.as_str()) != self.negated
    }
}

impl Hint {
    pub const fn new(action: &'static str, text: &'static str) -> Self {
        Self {
            action,
            text,
            conditions: &[],
        }
    }

    pub const fn when(self, conditions: &'static [HintCondition]) -> Self {
        Self { conditions, ..self }
    }

    /// Whether the hint fits this structured result.
    pub fn fits(&self, result: &serde_json::Map<String, serde_json::Value>) -> bool {
        self.conditions.iter().all(|c| c.holds(result))
    }
}

/// A domain of the catalog (`merge_request`, `pipeline`, ...).
#[derive(Debug)]
pub struct DomainInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// How requests name the domain and its parts.
    pub vocabulary: DomainVocabulary,
}

/// What kind of content an action returns, which sets its annotation priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentKind {
    List,
    Detail,
    Mutation,
}

impl Action {
    /// What a generated entry leaves out when it is the usual: no aliases, no handler, no
    /// resource, no not-found text. (Every other field is always written out.)
    pub const DEFAULTS: Self = Self {
        id: "",
        domain: "",
        name: "",
        title: "",
        description: "",
        tags: &[],
        aliases: &[],
        method: Method::Get,
        path: "",
        handler: None,
        graphql: None,
        params: &[],
        result: ResultShape::Message { text: "" },
        view: View::Message { heading: "" },
        safety: Safety::READ_ONLY,
        resource: None,
        not_found: None,
        hints: &[],
        example: "{}",
        input_schema_json: "{}",
        confirmed_input_schema_json: "",
        output_schema_json: "{}",
        plan: plan::<NoParams>,
        requires: Requires::ANYONE,
        vocabulary: ActionVocabulary::of(""),
    };

    /// This action's request: its method and path, each `{placeholder}` of the path filled
    /// by the next of `path_params`. A generated `Params::request` starts here, so method and
    /// path are written once, in the entry.
    pub fn request(&self, path_params: &[&dyn WireValue]) -> Request {
        Request::new(self.method).at(self.path, path_params)
    }

    /// The request a call sends: the generated one, or for a GraphQL action the same
    /// parameters as the variables of its operation.
    pub fn finish_request(&self, request: Request) -> Request {
        match self.graphql {
            Some(graphql) => {
                request.into_graphql(graphql.operation, graphql.document, !graphql.mutation)
            }
            None => request,
        }
    }

    pub fn content_kind(&self) -> ContentKind {
        match (self.safety.read_only, self.result) {
            (false, _) => ContentKind::Mutation,
            (true, ResultShape::List { .. }) => ContentKind::List,
            (true, _) => ContentKind::Detail,
        }
    }

    pub fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The individual surface's tool name: `merge_request.list` → `gitlab_merge_request_list`.
    pub fn tool_name(&self) -> String {
        format!("gitlab_{}_{}", self.domain, self.name)
    }

    pub fn required_params(&self) -> impl Iterator<Item = &'static ParamSpec> {
        self.params.iter().filter(|p| p.required)
    }

    pub fn example_args(&self) -> Args {
        serde_json::from_str(self.example).unwrap_or_default()
    }

    pub fn is_mutation(&self) -> bool {
        !self.safety.read_only
    }

    /// The token scope the action needs: declared, or what its safety implies.
    pub fn scope(&self) -> TokenScope {
        self.requires.scope.unwrap_or(if self.safety.read_only {
            TokenScope::ReadApi
        } else {
            TokenScope::Api
        })
    }

    /// The JSON Schema of the params (without the `confirm` flag surfaces add).
    pub fn input_schema(&self) -> serde_json::Value {
        serde_json::from_str(self.input_schema_json).unwrap_or_default()
    }

    /// The JSON Schema every structured result of this action validates against.
    pub fn output_schema(&self) -> serde_json::Value {
        serde_json::from_str(self.output_schema_json).unwrap_or_default()
    }
}

/// The params of `Action::DEFAULTS`: none.
#[derive(Debug)]
pub struct NoParams;

impl ActionParams for NoParams {
    fn check(_: &mut ArgReader) -> Self {
        Self
    }

    fn request(&self) -> crate::gitlab::Request {
        crate::gitlab::Request::new(Method::Get)
    }
}

/// The action with this canonical id.
pub fn find(id: &str) -> Option<&'static Action> {
    ACTIONS.iter().find(|a| a.id == id)
}

/// The action with this id or alias.
pub fn resolve(id_or_alias: &str) -> Option<&'static Action> {
    find(id_or_alias).or_else(|| ACTIONS.iter().find(|a| a.aliases.contains(&id_or_alias)))
}

pub fn domain(name: &str) -> Option<&'static DomainInfo> {
    DOMAINS.iter().find(|d| d.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = std::collections::BTreeSet::new();
        for action in ACTIONS {
            assert!(seen.insert(action.id), "duplicate id {}", action.id);
            assert_eq!(action.id, format!("{}.{}", action.domain, action.name));
            assert!(
                domain(action.domain).is_some(),
                "{} has no domain entry",
                action.id
            );
        }
    }

    #[test]
    fn every_example_is_valid_json_with_every_required_param() {
        for action in ACTIONS {
            let example = action.example_args();
            for param in action.required_params() {
                assert!(
                    example.contains_key(param.name),
                    "{}: example lacks {}",
                    action.id,
                    param.name
                );
            }
        }
    }
}

//! The action catalog: the one list every surface, doc and test is derived from.
//!
//! `build.rs` generates the entries (`generated`) from `actions/*.yaml`; this module defines
//! the shape of an entry and the lookups over the list. It knows nothing of MCP, HTTP or
//! Markdown: an entry points at its generated runner, and the dispatcher calls it.

use std::future::Future;
use std::pin::Pin;

use crate::dispatch::{ActionError, Rendered};
use crate::gitlab::{Method, Request};

pub mod generated {
    //! The code `build.rs` generates from `actions/*.yaml`.
    #![allow(
        clippy::all,
        reason = "generated code is formatted by prettyplease, not written for clippy"
    )]
    include!(concat!(env!("OUT_DIR"), "/actions.rs"));
}

pub use generated::{ACTIONS, DOMAINS};

/// The arguments of one call, as the client sent them (after alias normalisation).
pub type Args = serde_json::Map<String, serde_json::Value>;

/// What a generated runner returns.
pub type ActionFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Rendered, ActionError>> + Send + 'a>>;

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
    pub params: &'static [ParamSpec],
    pub result: ResultShape,
    pub safety: Safety,
    pub resource: Option<ResourceSpec>,
    pub hints: &'static [Hint],
    /// Example arguments, as JSON text.
    pub example: &'static str,
    pub input_schema: fn() -> serde_json::Value,
    pub output_schema: fn() -> serde_json::Value,
    pub run: for<'a> fn(&'a crate::dispatch::Context, Args) -> ActionFuture<'a>,
    pub preview: fn(Args) -> Result<Request, ActionError>,
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    String,
    Integer,
    Number,
    Boolean,
    /// A numeric id or a full path such as `group/sub/project`.
    PathOrId,
    StringList,
    IntegerList,
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
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Path,
    Query,
    Body,
    /// Read by the action's handler only, never sent to GitLab.
    Local,
}

/// The shape of an action's structured result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultShape {
    Single {
        entity: &'static str,
    },
    List {
        entity: &'static str,
        key: &'static str,
        paginated: bool,
    },
    Message,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Safety {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
}

#[derive(Debug, Clone, Copy)]
pub struct ResourceSpec {
    pub policy: ResourcePolicy,
    /// `gitlab://` URI template in the action's own parameter names.
    pub uri: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourcePolicy {
    None,
    Optional,
    Always,
}

/// A next step a result suggests: an action and why.
#[derive(Debug, Clone, Copy)]
pub struct Hint {
    pub action: &'static str,
    pub text: &'static str,
}

/// A domain of the catalog (`merge_request`, `pipeline`, ...).
#[derive(Debug)]
pub struct DomainInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
}

/// What kind of content an action returns, which sets its annotation priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentKind {
    List,
    Detail,
    Mutation,
}

impl Action {
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

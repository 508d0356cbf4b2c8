//! The three tool surfaces over the one catalog.
//!
//! A surface decides what `tools/list` shows and how a `tools/call` names an action; it
//! never runs anything itself. Every call becomes a `Route`, which the server hands to the
//! same `Dispatcher`, so the same action gives the same result on every surface.
//!
//! - `individual`: one tool per action (`gitlab_merge_request_list`).
//! - `meta`: one tool per domain (`gitlab_merge_request`) taking `{action, params}`.
//! - `dynamic`: `gitlab_find_action` and `gitlab_execute_action` (the default).

mod dynamic;
mod individual;
mod meta;

use std::sync::OnceLock;

use rmcp::model::{Icon, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use crate::catalog::{Action, Args};
use crate::policy::Policy;
use crate::search::FindRequest;

pub use dynamic::{EXECUTE_TOOL, FIND_TOOL, find};
pub use individual::{warm as warm_individual, warm_listing as warm_individual_listing};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SurfaceKind {
    /// `gitlab_find_action` + `gitlab_execute_action` (smallest tools/list).
    #[default]
    Dynamic,
    /// One `gitlab_<domain>` tool per domain.
    Meta,
    /// One tool per action.
    Individual,
}

impl SurfaceKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::Dynamic => "dynamic",
            Self::Meta => "meta",
            Self::Individual => "individual",
        }
    }

    /// The tool and arguments that run `action` with `params` on this surface.
    pub fn call(self, action: &Action, params: Value) -> (String, Value) {
        match self {
            Self::Individual => (action.tool_name(), params),
            Self::Meta => (
                format!("gitlab_{}", action.domain),
                json!({"action": action.name, "params": params}),
            ),
            Self::Dynamic => (
                EXECUTE_TOOL.to_owned(),
                json!({"action": action.id, "params": params}),
            ),
        }
    }
}

/// How much of each action's parameters a meta tool's input schema spells out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum MetaSchema {
    /// `action` enum and a free `params` object (smallest).
    #[default]
    Opaque,
    /// One branch per action with parameter names and types.
    Compact,
    /// Each action's full input schema.
    Full,
}

/// What a tool call asks for.
#[derive(Debug)]
pub enum Route {
    /// Run an action (by any name the dispatcher resolves) with these arguments.
    Execute {
        action: String,
        args: Args,
        confirm: bool,
    },
    /// Search the catalog.
    Find(FindRequest),
    /// The call cannot be understood; the text says how to repair it.
    Repair(String),
}

/// A surface with its tools built once, held in the one shape `tools/list` sends.
pub struct Surface {
    pub kind: SurfaceKind,
    pub meta_schema: MetaSchema,
    policy: std::sync::Arc<Policy>,
    tools: OnceLock<Vec<Tool>>,
    listing: OnceLock<String>,
}

impl Surface {
    pub fn new(kind: SurfaceKind, meta_schema: MetaSchema, policy: std::sync::Arc<Policy>) -> Self {
        Self {
            kind,
            meta_schema,
            policy,
            tools: OnceLock::new(),
            listing: OnceLock::new(),
        }
    }

    /// The policy whose visible actions this surface lists.
    pub fn policy(&self) -> &std::sync::Arc<Policy> {
        &self.policy
    }

    /// The tools (`name`, `title`, `description`, `inputSchema`, `outputSchema`,
    /// `annotations`), ordered as the catalog is, built on first use and held as the
    /// `Tool`s rmcp sends: a server holds one copy. The individual surface builds its
    /// thousand straight from the generated schemas; the meta and dynamic ones write their
    /// few as JSON.
    pub fn tools(&self) -> &[Tool] {
        self.tools.get_or_init(|| self.build_tools())
    }

    fn build_tools(&self) -> Vec<Tool> {
        match self.kind {
            SurfaceKind::Individual => individual::tools(&self.policy),
            SurfaceKind::Meta => from_json(meta::tools(&self.policy, self.meta_schema)),
            SurfaceKind::Dynamic => from_json(dynamic::tools(&self.policy)),
        }
    }

    /// The tools as the JSON text of an array: byte for byte `tools` serialized, and for
    /// the individual surface written without parsing a schema (what the stdio wire sends).
    pub fn listing(&self) -> &str {
        self.listing.get_or_init(|| match self.kind {
            SurfaceKind::Individual => individual::listing(&self.policy),
            SurfaceKind::Meta | SurfaceKind::Dynamic => {
                serde_json::to_string(self.tools()).unwrap_or_default()
            }
        })
    }

    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools().iter().find(|t| t.name == name)
    }

    /// The names of the tools, in order; the individual surface's without building its tools.
    pub fn tool_names(&self) -> Vec<String> {
        match self.kind {
            SurfaceKind::Individual => self.policy.visible().map(Action::tool_name).collect(),
            SurfaceKind::Meta | SurfaceKind::Dynamic => {
                self.tools().iter().map(|t| t.name.to_string()).collect()
            }
        }
    }

    /// Whether a tool has this name.
    fn offers(&self, name: &str) -> bool {
        match self.kind {
            SurfaceKind::Individual => individual::action_named(&self.policy, name).is_some(),
            SurfaceKind::Meta | SurfaceKind::Dynamic => self.tool(name).is_some(),
        }
    }

    /// Maps a call to what it asks for; `None` when no tool has this name.
    pub fn route(&self, tool: &str, arguments: Map<String, Value>) -> Option<Route> {
        if !self.offers(tool) {
            return None;
        }
        Some(match self.kind {
            SurfaceKind::Individual => individual::route(tool, arguments),
            SurfaceKind::Meta => meta::route(tool, arguments),
            SurfaceKind::Dynamic => dynamic::route(tool, arguments),
        })
    }

    /// The name a caller uses to reach an action on this surface, for docs and resources.
    pub fn call_shape(&self, action: &Action) -> Value {
        let (tool, arguments) = self.kind.call(action, json!("params"));
        json!({"tool": tool, "arguments": arguments})
    }
}

/// Tools written as JSON (the few of the meta and dynamic surfaces), each with the icon.
fn from_json(tools: Vec<Value>) -> Vec<Tool> {
    tools
        .into_iter()
        .map(|mut tool| {
            tool["icons"] = icons();
            serde_json::from_value(tool).expect("surface tools are MCP tools")
        })
        .collect()
}

/// MCP tool annotations from an action's (or a group's) safety flags: all four hints,
/// always, so no client has to know the spec's defaults (a write is destructive and not
/// idempotent unless it says otherwise); every action reaches GitLab, an open world.
fn tool_annotations(read_only: bool, destructive: bool, idempotent: bool) -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(true)
}

/// The same annotations as JSON, for the tools the meta and dynamic surfaces write as JSON.
fn annotations(read_only: bool, destructive: bool, idempotent: bool) -> Value {
    serde_json::to_value(tool_annotations(read_only, destructive, idempotent)).unwrap_or_default()
}

/// The server's and every tool's icon: a trunk and a branch leaving it, in a grey that reads on
/// light and dark themes alike (inline SVG, no request to fetch it).
pub const ICON: &str = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 8 8'%3E%3Cpath d='M2 1v6M2 5l4-4' stroke='gray'/%3E%3C/svg%3E";

/// The icons of every tool (and of the server's info). The data URI names its type, and an
/// SVG scales to any size, so the optional `mimeType` and `sizes` would only add bytes to
/// every tool of every tools/list.
fn tool_icons() -> Vec<Icon> {
    vec![Icon::new(ICON)]
}

/// The same icons as JSON.
pub fn icons() -> Value {
    serde_json::to_value(tool_icons()).unwrap_or_default()
}

/// Takes `confirm: true` out of the arguments, wherever a surface puts it.
fn take_confirm(arguments: &mut Map<String, Value>) -> bool {
    matches!(arguments.remove("confirm"), Some(Value::Bool(true)))
}

/// The `params` object of a meta or execute call. Parameters sent beside `action` instead
/// of inside `params` are moved in (and then checked like the rest), never dropped.
fn params_of(mut arguments: Map<String, Value>) -> Result<Map<String, Value>, String> {
    let mut params = object_arg(&mut arguments, "params")?;
    for (key, value) in arguments {
        if params.contains_key(&key) {
            return Err(format!(
                "`{key}` is given both inside and outside `params`; send it once, inside `params`."
            ));
        }
        params.insert(key, value);
    }
    Ok(params)
}

/// The object under `key`, or a repair message when it is something else.
fn object_arg(arguments: &mut Map<String, Value>, key: &str) -> Result<Map<String, Value>, String> {
    match arguments.remove(key) {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(&text) {
            // Some clients send nested objects as JSON text.
            Ok(Value::Object(map)) => Ok(map),
            _ => Err(format!(
                "`{key}` must be an object of parameters, such as {{\"project_id\": \"group/project\"}}"
            )),
        },
        Some(_) => Err(format!(
            "`{key}` must be an object of parameters, such as {{\"project_id\": \"group/project\"}}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text the stdio wire sends is what rmcp would have written, byte for byte, on
    /// every surface and under the policies that change a tool (confirmation, read-only).
    #[test]
    fn the_listing_is_the_tools_serialized() {
        let policies = [
            Policy::default(),
            Policy {
                yolo: true,
                ..Policy::default()
            },
            Policy {
                read_only: true,
                ..Policy::default()
            },
            Policy {
                exclude: vec!["merge_request.*".into()],
                ..Policy::default()
            },
        ];
        for policy in policies {
            for kind in [
                SurfaceKind::Individual,
                SurfaceKind::Meta,
                SurfaceKind::Dynamic,
            ] {
                for meta_schema in [MetaSchema::Opaque, MetaSchema::Full] {
                    let surface = Surface::new(kind, meta_schema, policy.clone().into());
                    let expected = serde_json::to_string(surface.tools()).unwrap();
                    assert!(
                        surface.listing() == expected,
                        "{} surface, {policy:?}: the listing differs from the tools",
                        kind.name()
                    );
                    let names: Vec<String> =
                        surface.tools().iter().map(|t| t.name.to_string()).collect();
                    assert_eq!(surface.tool_names(), names);
                    for name in &names {
                        assert!(surface.offers(name), "{name}");
                    }
                    assert!(!surface.offers("gitlab_merge_request_nope"));
                }
            }
        }
    }

    /// rmcp drops an output schema whose root is not an object for a client of an older
    /// protocol version; the listing is written past rmcp, so none may be other than one.
    #[test]
    fn every_output_schema_is_an_object() {
        for action in crate::catalog::ACTIONS {
            let schema = action.output_schema();
            assert_eq!(schema["type"], "object", "{}", action.id);
        }
    }

    /// A destructive action offers `confirm`, even one without parameters of its own.
    #[test]
    fn destructive_actions_offer_confirm() {
        for action in crate::catalog::ACTIONS {
            let confirmed: Value =
                serde_json::from_str(action.confirmed_input_schema_json).unwrap_or_default();
            if action.safety.destructive {
                assert_eq!(
                    confirmed["properties"]["confirm"]["type"], "boolean",
                    "{}",
                    action.id
                );
                let mut without = confirmed.clone();
                without["properties"]
                    .as_object_mut()
                    .unwrap()
                    .remove("confirm");
                let plain = action.input_schema();
                if plain.get("properties").is_some() {
                    assert_eq!(without, plain, "{}", action.id);
                }
            } else {
                assert!(
                    action.confirmed_input_schema_json.is_empty(),
                    "{}",
                    action.id
                );
            }
        }
    }
}

//! The one execution path: every surface, the CLI and resource reads call `Dispatcher`.
//!
//! For a call it resolves the action, checks the parameters, applies the policy (hidden,
//! safe-mode preview, destructive confirmation), runs the generated runner, and finishes
//! the result the same way for everyone: next steps in Markdown and in `next_steps`, the
//! resource link, repairable `isError` results for every failure, and a last check that
//! the token appears nowhere in what goes back.

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::catalog::{self, Action, Args, ContentKind, ResourcePolicy, ResultShape};
use crate::gitlab::{GitlabClient, GitlabError, Request, Response, encode_component};
use crate::output::{Markdown, json};
use crate::params;
use crate::policy::{EmbeddedResources, Hidden, Policy};

/// What a runner needs to talk to GitLab.
#[derive(Clone)]
pub struct Context {
    gitlab: GitlabClient,
}

impl Context {
    pub fn new(gitlab: GitlabClient) -> Self {
        Self { gitlab }
    }

    pub async fn send(&self, request: Request) -> Result<Response, GitlabError> {
        self.gitlab.send(request).await
    }

    pub fn gitlab(&self) -> &GitlabClient {
        &self.gitlab
    }
}

/// Why a runner failed.
#[derive(Debug)]
pub enum ActionError {
    /// The arguments do not fit the action (caught by `params::check` or by a handler).
    InvalidParams(String),
    /// A get found nothing: reported as an informational not-found result.
    NotFound {
        kind: &'static str,
        what: String,
    },
    Gitlab(GitlabError),
}

impl From<GitlabError> for ActionError {
    fn from(error: GitlabError) -> Self {
        Self::Gitlab(error)
    }
}

impl ActionError {
    /// Turns a GitLab 404 into a not-found result about `kind` ("Merge Request").
    pub fn or_not_found(self, kind: &'static str, what: impl FnOnce() -> String) -> Self {
        match self {
            Self::Gitlab(error) if error.is_not_found() => Self::NotFound { kind, what: what() },
            other => other,
        }
    }
}

/// Decodes checked arguments into an action's typed parameters.
pub fn decode<T: DeserializeOwned>(args: Args) -> Result<T, ActionError> {
    serde_json::from_value(Value::Object(args))
        .map_err(|error| ActionError::InvalidParams(error.to_string()))
}

/// A runner's successful result: its Markdown and its structured value.
pub struct Rendered {
    pub markdown: Markdown,
    pub structured: Map<String, Value>,
}

impl Rendered {
    pub fn new(output: &impl Serialize, markdown: Markdown) -> Result<Self, ActionError> {
        match serde_json::to_value(output) {
            Ok(Value::Object(structured)) => Ok(Self {
                markdown,
                structured,
            }),
            _ => Err(ActionError::InvalidParams(
                "the result is not a JSON object".into(),
            )),
        }
    }
}

/// The finished answer to one call, independent of the surface that asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Markdown for the model, next steps included.
    pub text: String,
    /// The structured result; `None` on every failure.
    pub structured: Option<Map<String, Value>>,
    pub is_error: bool,
    /// Sets the annotation priority; `None` for errors.
    pub kind: Option<ContentKind>,
    pub resource: Option<ResourceRef>,
}

/// The `gitlab://` resource a get result points at.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceRef {
    pub uri: String,
    pub name: String,
    /// The entity JSON, when the policy embeds it instead of linking.
    pub embedded: Option<String>,
}

impl Outcome {
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            structured: None,
            is_error: true,
            kind: None,
            resource: None,
        }
    }
}

/// How a caller names an action.
pub enum Lookup {
    Found(&'static Action),
    /// A bare name shared by several domains (`list`): the caller must choose.
    Ambiguous(Vec<&'static str>),
    /// Nothing by that name; the closest ids, best first.
    Unknown(Vec<&'static str>),
    /// It exists, but this instance does not offer it.
    Hidden(&'static Action, Hidden),
}

#[derive(Clone)]
pub struct Dispatcher {
    context: Context,
    policy: Arc<Policy>,
}

impl Dispatcher {
    pub fn new(context: Context, policy: Arc<Policy>) -> Self {
        Self { context, policy }
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Resolves an id, an alias, a tool name (`gitlab_merge_request_list`) or an unambiguous
    /// bare action name among the actions this instance offers.
    pub fn lookup(&self, name: &str) -> Lookup {
        let name = name.trim();
        let found = catalog::resolve(name).or_else(|| {
            let bare = name.strip_prefix("gitlab_").unwrap_or(name);
            catalog::ACTIONS
                .iter()
                .find(|a| format!("{}_{}", a.domain, a.name) == bare)
        });
        if let Some(action) = found {
            return match self.policy.hidden(action) {
                Some(reason) => Lookup::Hidden(action, reason),
                None => Lookup::Found(action),
            };
        }
        let same_name: Vec<&'static Action> =
            self.policy.visible().filter(|a| a.name == name).collect();
        match same_name.as_slice() {
            [only] => return Lookup::Found(only),
            [] => {}
            many => return Lookup::Ambiguous(many.iter().map(|a| a.id).collect()),
        }
        let mut scored: Vec<(usize, &'static str)> = self
            .policy
            .visible()
            .map(|a| (crate::text::edit_distance(name, a.id), a.id))
            .filter(|(distance, id)| *distance <= 3 || id.contains(name))
            .collect();
        scored.sort();
        Lookup::Unknown(scored.into_iter().take(5).map(|(_, id)| id).collect())
    }

    /// Runs an action by any name `lookup` accepts.
    pub async fn call(&self, name: &str, args: Args, confirm: bool) -> Outcome {
        match self.lookup(name) {
            Lookup::Found(action) => self.run(action, args, confirm).await,
            other => self.finish(Outcome::error(lookup_failure(name, &other))),
        }
    }

    /// Runs one action: check, policy, GitLab, format.
    pub async fn run(&self, action: &'static Action, mut args: Args, confirm: bool) -> Outcome {
        if let Some(reason) = self.policy.hidden(action) {
            return self.finish(Outcome::error(lookup_failure(
                action.id,
                &Lookup::Hidden(action, reason),
            )));
        }
        // `confirm` is a control flag, accepted among the params on every surface.
        let confirm = confirm | matches!(args.remove("confirm"), Some(Value::Bool(true)));
        let args = match params::check(action, args) {
            Ok(args) => args,
            Err(problems) => return self.finish(Outcome::error(problems.message())),
        };
        if action.is_mutation() && self.policy.safe_mode {
            return self.finish(Outcome::error(safe_mode_preview(action, &args)));
        }
        if self.policy.needs_confirmation(action) && !confirm {
            return self.finish(Outcome::error(format!(
                "`{}` is destructive ({}) and needs confirmation. Ask the user to approve it, then call again with `confirm: true`.",
                action.id,
                action.title.to_lowercase()
            )));
        }

        let outcome = match (action.run)(&self.context, args.clone()).await {
            Ok(rendered) => self.success(action, &args, rendered),
            Err(ActionError::NotFound { kind, what }) => {
                let mut markdown = Markdown::new();
                markdown.not_found(kind, &what);
                markdown.next_steps(&self.not_found_steps(action));
                Outcome::error(markdown.into_string())
            }
            Err(ActionError::InvalidParams(message)) => {
                Outcome::error(format!("Invalid parameters for `{}`: {message}", action.id))
            }
            Err(ActionError::Gitlab(error)) => {
                Outcome::error(format!("`{}` failed. {}", action.id, error.explain()))
            }
        };
        self.finish(outcome)
    }

    fn success(&self, action: &'static Action, args: &Args, rendered: Rendered) -> Outcome {
        let Rendered {
            mut markdown,
            mut structured,
        } = rendered;
        let pagination = structured.get("pagination").cloned();
        let steps = self.next_steps(action, args, pagination.as_ref());
        markdown.next_steps(&steps);
        let resource = self.resource(action, args, &structured);
        if !steps.is_empty() {
            structured.insert("next_steps".into(), Value::from(steps));
        }
        Outcome {
            text: markdown.into_string(),
            structured: Some(structured),
            is_error: false,
            kind: Some(action.content_kind()),
            resource,
        }
    }

    /// The pagination step (when there is a next page), then the action's hints whose
    /// target this instance offers, with `{param}` placeholders filled in.
    fn next_steps(&self, action: &Action, args: &Args, pagination: Option<&Value>) -> Vec<String> {
        let mut steps = Vec::new();
        if let Some(next) = pagination
            .and_then(|p| p.get("next_page"))
            .and_then(Value::as_i64)
        {
            steps.push(format!(
                "More results: call `{}` again with `page: {next}`",
                action.id
            ));
        }
        for hint in action.hints {
            let Some(target) = catalog::find(hint.action) else {
                continue;
            };
            if !self.policy.allows(target) {
                continue;
            }
            steps.push(format!(
                "{}: `{}`",
                fill(hint.text, args, false),
                hint.action
            ));
        }
        steps
    }

    /// What to do when a get finds nothing: list the domain to find the right name, and
    /// check the spelling. The action's own hints are about an entity that exists.
    fn not_found_steps(&self, action: &Action) -> Vec<String> {
        let mut steps = Vec::new();
        let list = catalog::find(&format!("{}.list", action.domain))
            .filter(|list| self.policy.allows(list));
        if let Some(list) = list {
            steps.push(format!("Find the right one with `{}`", list.id));
        }
        steps.push(
            "Check the ids and names: paths, branches and files are case-sensitive".to_owned(),
        );
        steps
    }

    fn resource(
        &self,
        action: &Action,
        args: &Args,
        structured: &Map<String, Value>,
    ) -> Option<ResourceRef> {
        let spec = action.resource?;
        let mode = match (spec.policy, self.policy.embedded_resources) {
            (ResourcePolicy::None, _) => return None,
            (ResourcePolicy::Optional, EmbeddedResources::Off) => return None,
            (ResourcePolicy::Always, EmbeddedResources::Off) => EmbeddedResources::Link,
            (_, mode) => mode,
        };
        let uri = fill(spec.uri, args, true);
        let kind = match action.result {
            ResultShape::Single { entity } => entity,
            _ => action.domain,
        };
        let embedded = (mode == EmbeddedResources::Embed).then(|| json::to_text(structured));
        Some(ResourceRef {
            name: format!("{kind} {}", uri.trim_start_matches("gitlab://")),
            uri,
            embedded,
        })
    }

    /// The last step for every outcome: the token must not appear anywhere in it.
    fn finish(&self, mut outcome: Outcome) -> Outcome {
        let Some(token) = self.context.gitlab.token().map(|t| t.expose().to_owned()) else {
            return outcome;
        };
        if token.len() < 4 {
            return outcome;
        }
        if outcome.text.contains(&token) {
            outcome.text = outcome.text.replace(&token, "[redacted]");
        }
        if let Some(structured) = &mut outcome.structured
            && json::to_text(structured).contains(&token)
        {
            redact(structured, &token);
        }
        outcome
    }
}

fn redact(map: &mut Map<String, Value>, token: &str) {
    for value in map.values_mut() {
        redact_value(value, token);
    }
}

fn redact_value(value: &mut Value, token: &str) {
    match value {
        Value::String(text) if text.contains(token) => *text = text.replace(token, "[redacted]"),
        Value::Array(items) => items.iter_mut().for_each(|item| redact_value(item, token)),
        Value::Object(map) => redact(map, token),
        _ => {}
    }
}

/// Fills `{param}` placeholders from checked arguments; `encode` applies RFC 6570 simple
/// expansion (every character outside `A-Z a-z 0-9 - . _ ~` percent-encoded).
fn fill(template: &str, args: &Args, encode: bool) -> String {
    crate::text::fill_placeholders(template, |name| {
        let value = match args.get(name)? {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        Some(if encode {
            encode_component(&value)
        } else {
            value
        })
    })
}

fn lookup_failure(name: &str, lookup: &Lookup) -> String {
    match lookup {
        Lookup::Found(_) => String::new(),
        Lookup::Ambiguous(candidates) => format!(
            "`{name}` is ambiguous: it could be {}. Call again with one of these ids.",
            candidates
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Lookup::Unknown(suggestions) if !suggestions.is_empty() => format!(
            "Unknown action `{name}`. Did you mean {}? Action ids are `domain.action`; search with `gitlab_find_action` to find one.",
            suggestions
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Lookup::Unknown(_) => format!(
            "Unknown action `{name}`. Action ids are `domain.action` (such as `merge_request.list`); search with `gitlab_find_action` to find one."
        ),
        Lookup::Hidden(action, Hidden::ReadOnly) => format!(
            "`{}` changes data, and this server runs in read-only mode (GITLAB_READ_ONLY=true). Only read actions are available.",
            action.id
        ),
        Lookup::Hidden(action, Hidden::Excluded) => {
            format!(
                "`{}` is disabled on this server (GITLAB_EXCLUDE_ACTIONS).",
                action.id
            )
        }
    }
}

fn safe_mode_preview(action: &Action, args: &Args) -> String {
    let request = match (action.preview)(args.clone()) {
        Ok(request) => request,
        Err(ActionError::InvalidParams(message)) => {
            return format!("Invalid parameters for `{}`: {message}", action.id);
        }
        Err(_) => return format!("Safe mode is on: `{}` was not executed.", action.id),
    };
    let target = request.target().unwrap_or_else(|_| action.path.to_owned());
    let mut markdown = Markdown::new();
    markdown.note(&format!(
        "Safe mode is on (GITLAB_SAFE_MODE=true): `{}` was not executed. It would send `{} /api/v4{target}`",
        action.id, request.method
    ));
    if let Some(body) = request.json_body().filter(|b| !b.is_empty()) {
        markdown.code_block("json", &json::to_pretty(body));
    }
    markdown.paragraph("Turn safe mode off to make the change.");
    markdown.into_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fill_expands_rfc6570_simple() {
        let args = json!({"project_id": "group/project", "label_id": "priority::high", "merge_request_iid": 12});
        let args = args.as_object().unwrap();
        assert_eq!(
            fill(
                "gitlab://project/{project_id}/mr/{merge_request_iid}",
                args,
                true
            ),
            "gitlab://project/group%2Fproject/mr/12"
        );
        assert_eq!(fill("{label_id}", args, true), "priority%3A%3Ahigh");
        assert_eq!(fill("in {project_id}", args, false), "in group/project");
    }
}

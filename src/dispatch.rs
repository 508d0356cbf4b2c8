//! The one execution path: every surface, the CLI and resource reads call `Dispatcher`.
//!
//! For a call it resolves the action, checks the parameters, applies the policy (hidden,
//! safe-mode preview, destructive confirmation), runs the generated runner, and finishes
//! the result the same way for everyone: next steps in Markdown and in `next_steps`, the
//! resource link, repairable `isError` results for every failure, and a last check that
//! the token appears nowhere in what goes back.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::catalog::{
    self, Action, Args, ContentKind, Plan, ResourcePolicy, ResultShape, SHOWN_ONCE_KEY,
    UNREADABLE_KEY,
};

use crate::approval::{Answer, Approval};
use crate::call::{decode, graphql_decode, graphql_result, read_list};
use crate::gitlab::{ErrorKind, Pagination};
use crate::handlers;
use crate::output::{Markdown, budget, json, view};
use crate::policy::{EmbeddedResources, Hidden, Policy};
use crate::vocabulary::Vocabulary;

pub use crate::call::{ActionError, Context};

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
    /// What the person must approve before the call runs, when their client asks them and
    /// calls again with the answer (`Approval::Defer`); nothing has been done.
    pub question: Option<String>,
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
    /// What a model reads of it: the Markdown's bytes and the structured result's JSON.
    pub fn bytes(&self) -> usize {
        let structured = self
            .structured
            .as_ref()
            .map_or(0, |s| serde_json::to_string(s).map_or(0, |json| json.len()));
        self.text.len() + structured
    }

    pub fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            structured: None,
            is_error: true,
            kind: None,
            resource: None,
            question: None,
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
    /// Fits the catalog to the instance and token, in the background (`crate::fit`).
    fitting: Option<crate::fit::Fitting>,
    vocabulary: Vocabulary,
    /// How a destructive call without `confirm` can be approved for this request.
    approval: Approval,
}

impl Dispatcher {
    pub fn new(context: Context, policy: Arc<Policy>) -> Self {
        Self {
            context,
            policy,
            fitting: None,
            vocabulary: Vocabulary::default(),
            approval: Approval::Flag,
        }
    }

    /// Fit the catalog to what the instance and the token can run (`crate::fit`).
    pub fn with_fitting(mut self) -> Self {
        self.fitting = Some(crate::fit::Fitting::default());
        self
    }

    /// Whether the catalog is final: fitting is off, or done.
    pub fn is_fitted(&self) -> bool {
        self.fitting
            .as_ref()
            .is_none_or(crate::fit::Fitting::is_done)
    }

    /// Starts fitting in the background (once); returns at once.
    pub fn start_fitting(&self) {
        if let Some(fitting) = &self.fitting {
            fitting.start(self.context.gitlab(), &self.policy.fit);
        }
    }

    /// Waits until fitting has finished, however long GitLab takes (a failed detection
    /// keeps the full catalog and is logged once).
    pub async fn fitted(&self) {
        self.start_fitting();
        if let Some(fitting) = &self.fitting {
            fitting.done().await;
        }
    }

    /// Waits for fitting at most `grace`; whether the catalog is final. After that a
    /// caller goes on with what is known, and GitLab refuses what the token cannot do.
    pub async fn fitted_within(&self, grace: std::time::Duration) -> bool {
        self.start_fitting();
        match &self.fitting {
            Some(fitting) => fitting.within(grace).await,
            None => true,
        }
    }

    /// The same dispatcher, answering in the words of another front end.
    pub fn speaking(mut self, vocabulary: Vocabulary) -> Self {
        self.vocabulary = vocabulary;
        self
    }

    /// The same dispatcher, for a request whose client can ask the person to approve a
    /// destructive call (`approval.rs`).
    pub fn with_approval(mut self, approval: Approval) -> Self {
        self.approval = approval;
        self
    }

    /// The same dispatcher, for a request whose caller wants to hear how far a long call
    /// is (a wait): its handler reports through the context.
    pub fn with_progress(mut self, progress: Arc<dyn crate::call::Progress>) -> Self {
        self.context = self.context.with_progress(progress);
        self
    }

    pub fn vocabulary(&self) -> Vocabulary {
        self.vocabulary
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The policy itself, for a surface that must list exactly what this dispatcher runs.
    pub fn shared_policy(&self) -> Arc<Policy> {
        self.policy.clone()
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
        let mut suggestions: Vec<&'static str> = self.same_meaning(name);
        for (_, id) in scored {
            if !suggestions.contains(&id) {
                suggestions.push(id);
            }
        }
        suggestions.truncate(5);
        Lookup::Unknown(suggestions)
    }

    /// Actions a near-miss id most likely means: the same (or a nearly spelled) domain,
    /// and an action part that is another word for an action's (`issue.show` is
    /// `issue.get`, `branch.remove` is `branch.delete`) or one or two edits from it.
    fn same_meaning(&self, name: &str) -> Vec<&'static str> {
        let Some((domain, wanted)) = name.split_once('.') else {
            return Vec::new();
        };
        let wanted: Vec<&str> = wanted
            .split('_')
            .map(|word| crate::text::action_word(word).unwrap_or(word))
            .collect();
        let wanted = wanted.join("_");
        let mut found: Vec<(usize, &'static str)> = self
            .policy
            .visible()
            .filter(|a| {
                a.domain == domain
                    || crate::text::edit_distance(domain, a.domain) <= 2
                    || crate::text::initials(a.domain) == domain
            })
            .map(|a| (crate::text::edit_distance(&wanted, a.name), a.id))
            .filter(|(distance, _)| *distance <= 2)
            .collect();
        found.sort();
        found.into_iter().map(|(_, id)| id).collect()
    }

    /// Runs an action by any name `lookup` accepts.
    pub async fn call(&self, name: &str, args: Args, confirm: bool) -> Outcome {
        self.fitted_within(crate::fit::GRACE).await;
        match self.lookup(name) {
            Lookup::Found(action) => self.run_as_known(action, args, confirm).await,
            other => self.finish(Outcome::error(lookup_failure(
                name,
                &other,
                &self.vocabulary,
            ))),
        }
    }

    /// Runs one action: check, policy, GitLab, format.
    pub async fn run(&self, action: &'static Action, args: Args, confirm: bool) -> Outcome {
        self.fitted_within(crate::fit::GRACE).await;
        self.run_as_known(action, args, confirm).await
    }

    /// Runs one action under the policy as it is now (fitted, or not yet).
    async fn run_as_known(
        &self,
        action: &'static Action,
        mut args: Args,
        confirm: bool,
    ) -> Outcome {
        if let Some(reason) = self.policy.hidden(action) {
            return self.finish(Outcome::error(lookup_failure(
                action.id,
                &Lookup::Hidden(action, reason),
                &self.vocabulary,
            )));
        }
        // `confirm` is a control flag, accepted among the params on every surface.
        let confirm = confirm | matches!(args.remove("confirm"), Some(Value::Bool(true)));
        // Secret arguments (a trigger token) are masked in whatever this call writes out,
        // and in every log line from now on.
        let secrets = secret_values(action, &args);
        if !secrets.is_empty() {
            crate::redact::register_for_logs(secrets.iter().map(String::as_str));
            let outcome = Box::pin(self.run_checked(action, args, confirm)).await;
            return scrub(
                outcome,
                &crate::redact::Redactor::new(secrets.iter().map(String::as_str)),
            );
        }
        self.run_checked(action, args, confirm).await
    }

    /// `run` after the arguments' secrets are known.
    async fn run_checked(&self, action: &'static Action, args: Args, confirm: bool) -> Outcome {
        let plan = match (action.plan)(action, args) {
            Ok(plan) => plan,
            Err(problems) => return self.finish(Outcome::error(problems.message())),
        };
        if action.is_mutation() && self.policy.safe_mode {
            return self.finish(Outcome::error(safe_mode_preview(action, &plan)));
        }
        if self.policy.needs_confirmation(action)
            && !confirm
            && let Some(refused) = self.approve(action, &plan.args).await
        {
            return self.finish(refused);
        }

        let context = self.context.for_call();
        let outcome = match self.execute(&context, action, &plan).await {
            Ok(value) => self.success(action, &plan.args, value),
            Err(error) => self.failure(action, &plan.args, error),
        };
        let mut outcome = self.finish(outcome);
        budget::fit(&mut outcome, self.context.result_budget(), action);
        outcome
    }

    /// Whether a destructive call without `confirm` may run: `None` when the person
    /// approved it through their client; otherwise what to answer instead (the refusal
    /// that asks for `confirm: true`, the question for the client to put, or that the
    /// person said no and nothing was done).
    async fn approve(&self, action: &'static Action, args: &Args) -> Option<Outcome> {
        let answer = match &self.approval {
            Approval::Flag => None,
            Approval::Ask(asker) => asker.ask(approval_question(action, args)).await,
            Approval::Defer => {
                return Some(Outcome {
                    question: Some(approval_question(action, args)),
                    ..Outcome::error(format!(
                        "`{}` waits for the user's approval; nothing was done.",
                        action.id
                    ))
                });
            }
            Approval::Answered(answer) => Some(*answer),
        };
        match answer {
            Some(Answer::Approved) => None,
            Some(answer) => Some(not_approved(action, args, answer)),
            None => Some(Outcome::error(self.refusal(action, args))),
        }
    }

    /// Why a destructive call without `confirm` was refused, and how to approve it.
    fn refusal(&self, action: &Action, args: &Args) -> String {
        if let Some(consequence) = action.safety.consequence {
            return format!(
                "`{}` needs the user's explicit approval of exactly this: {} {}",
                action.id,
                crate::catalog::fill(consequence, args),
                self.vocabulary.confirm_strong
            );
        }
        format!(
            "`{}` is destructive ({}) and needs confirmation. {}",
            action.id,
            action.title.to_lowercase(),
            self.vocabulary.confirm
        )
    }

    /// Calls GitLab (or the action's handler) and returns the result's full structure.
    async fn execute(
        &self,
        context: &Context,
        action: &'static Action,
        plan: &Plan,
    ) -> Result<Value, ActionError> {
        if let Some(name) = action.handler {
            let run = handlers::find(name).ok_or_else(|| {
                ActionError::InvalidParams(format!("no handler named `{name}` is built in"))
            })?;
            return run(context, action, plan).await;
        }
        if action.graphql.is_some() {
            let result = graphql_result(context, action, &plan.request).await?;
            return graphql_decode(action, &plan.args, &plan.request, result);
        }
        if let ResultShape::List {
            entity,
            key,
            paginated,
            from_map: None,
        } = action.result
        {
            return read_list(context, &plan.request, entity, key, paginated).await;
        }
        let response = match context.send(plan.request.clone()).await {
            // 304: GitLab changed nothing because it is already so (subscribing twice).
            // What the change acts on, read as it is, is the answer: the state asked for.
            Err(error) if error.kind == ErrorKind::Unchanged => match plan.request.subject() {
                Some(subject) => context.send(subject).await?,
                None => return Err(error.into()),
            },
            sent => sent?,
        };
        Ok(decode(action, &plan.args, &response)?)
    }

    fn failure(&self, action: &'static Action, args: &Args, error: ActionError) -> Outcome {
        let not_found = |kind: &str, what: &str| {
            let mut markdown = Markdown::new();
            markdown.not_found(kind, what);
            markdown.next_steps(&self.not_found_steps(action));
            Outcome::error(markdown.into_string())
        };
        match error {
            ActionError::NotFound { kind, what } => not_found(kind, &what),
            ActionError::Gitlab(error) if error.is_not_found() && action.not_found.is_some() => {
                let kind = action.result.entity().map_or("", |entity| entity.kind);
                not_found(
                    kind,
                    &catalog::fill(action.not_found.unwrap_or_default(), args),
                )
            }
            ActionError::InvalidParams(message) => {
                Outcome::error(format!("Invalid parameters for `{}`: {message}", action.id))
            }
            // Fitting hides admin actions from users GitLab says are not administrators;
            // this is the answer when fitting is off or could not tell. GitLab's refusal of
            // a non-administrator says nothing more than `403 Forbidden`; a 403 that says
            // more (`You cannot ban blocked users.`) is about the target, and is quoted.
            ActionError::Gitlab(error)
                if error.kind == ErrorKind::Forbidden
                    && action.requires.admin
                    && matches!(error.detail.as_str(), "" | "403 Forbidden") =>
            {
                Outcome::error(format!(
                    "`{}` failed: only GitLab administrators may call it, and GitLab refused this token's user (403). Use an administrator's token.",
                    action.id
                ))
            }
            ActionError::Gitlab(error) => {
                let mut text = format!("`{}` failed. {}", action.id, error.explain());
                if error.fate_unknown()
                    && let Some(check) = self.fate_check(action)
                {
                    text.push_str(&format!(" Check with `{check}` first."));
                }
                Outcome::error(text)
            }
        }
    }

    /// The read that shows whether a write happened: a sibling whose name shares a word
    /// (`note_create` → `note_list`), else the domain's `list`, else its `get`.
    fn fate_check(&self, action: &Action) -> Option<&'static str> {
        let reads: Vec<&'static Action> = self
            .policy
            .visible()
            .filter(|a| a.domain == action.domain && a.safety.read_only)
            .collect();
        let words: Vec<&str> = action.name.split('_').collect();
        let sibling = reads.iter().find(|read| {
            read.name
                .split('_')
                .any(|w| words.contains(&w) && !["create", "update", "delete"].contains(&w))
                && (read.name.ends_with("list") || read.name.ends_with("get"))
        });
        sibling
            .or_else(|| reads.iter().find(|a| a.name == "list"))
            .or_else(|| reads.iter().find(|a| a.name == "get"))
            .map(|a| a.id)
    }

    fn success(&self, action: &'static Action, args: &Args, mut value: Value) -> Outcome {
        let ResultShape::List { key, .. } = action.result else {
            announce_shown_once(&action.result, &mut value);
            return self.render(action, args, value, None);
        };
        let count = value.get(key).and_then(Value::as_array).map_or(0, Vec::len);
        let budget = self.context.result_budget().max(budget::MIN_RESULT_BYTES);
        let full = self.render(action, args, value.clone(), None);
        if count == 0 || budget::measure(&full) <= budget {
            return full;
        }
        // Cut in the Markdown and the structure alike: long texts to a fair share per
        // item first, then the items that still do not fit.
        let pagination = value
            .get("pagination")
            .and_then(|p| serde_json::from_value::<Pagination>(p.clone()).ok());
        let shortened = budget::shorten_items(&mut value, key, budget);
        let render = |fits: usize| {
            let cut = budget::ListCut::new(fits, count, pagination.as_ref(), shortened);
            self.render(action, args, cut.apply(value.clone(), key), Some(&cut))
        };
        let every = render(count);
        if count == 1 || budget::measure(&every) <= budget {
            return every;
        }
        let (mut low, mut high) = (1, count - 1);
        while low < high {
            let mid = (low + high).div_ceil(2);
            if budget::measure(&render(mid)) <= budget {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        render(low)
    }

    /// A result's Markdown and structure: the view, a note of what could not be read (and
    /// of a list cut to fit), next steps and the resource link.
    fn render(
        &self,
        action: &'static Action,
        args: &Args,
        mut value: Value,
        cut: Option<&budget::ListCut>,
    ) -> Outcome {
        let mut markdown = Markdown::new();
        view::render(&action.view, &action.result, args, &value, &mut markdown);
        if let Some(note) = unreadable_note(&action.result, &value) {
            markdown.note(&note);
        }
        if let Some(cut) = cut {
            let budget = self.context.result_budget().max(budget::MIN_RESULT_BYTES);
            markdown.note(&cut.note(budget, action));
        }
        strip_content_only(&action.result, &mut value);
        let Value::Object(mut structured) = value else {
            return Outcome::error(format!(
                "`{}` failed: the result is not a JSON object.",
                action.id
            ));
        };
        let pagination = structured.get("pagination").cloned();
        let steps = self.next_steps(action, args, pagination.as_ref(), &structured, cut);
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
            question: None,
        }
    }

    /// The pagination step (when there is a next page), then the action's hints whose
    /// target this instance offers, with `{param}` placeholders filled in.
    fn next_steps(
        &self,
        action: &Action,
        args: &Args,
        pagination: Option<&Value>,
        result: &Map<String, Value>,
        cut: Option<&budget::ListCut>,
    ) -> Vec<String> {
        let mut steps = Vec::new();
        let next_page = pagination
            .and_then(|p| p.get("next_page"))
            .and_then(Value::as_i64);
        match (next_page, cut.filter(|cut| cut.dropped_items())) {
            // A list cut to fit continues in pages of the size shown.
            (Some(next), Some(cut)) => steps.push(format!(
                "More results: call `{}` again with {} and {}",
                action.id,
                self.vocabulary.param("per_page", cut.shown),
                self.vocabulary.param("page", next)
            )),
            (Some(next), None) => steps.push(format!(
                "More results: call `{}` again with {}",
                action.id,
                self.vocabulary.param("page", next)
            )),
            (None, Some(cut)) if cut.pagination.is_some() => steps.push(format!(
                "Fewer at once, to page through the rest: call `{}` again with {}",
                action.id,
                self.vocabulary.param("per_page", cut.shown)
            )),
            (None, _) => {}
        }
        if let Some(cursor) = pagination
            .and_then(|p| p.get("next_cursor"))
            .and_then(Value::as_str)
        {
            steps.push(format!(
                "More results: call `{}` again with {}",
                action.id,
                self.vocabulary.param("cursor", format!("\"{cursor}\""))
            ));
        }
        for hint in action.hints {
            let Some(target) = catalog::find(hint.action) else {
                continue;
            };
            if !self.policy.allows(target) || !hint.fits(result) {
                continue;
            }
            steps.push(format!(
                "{}: `{}`",
                catalog::fill(hint.text, args),
                hint.action
            ));
        }
        steps
    }

    /// What to do when a get finds nothing: list the collection the get reads from (the
    /// list at its path without the last parameter: `webhook.system_list` for
    /// `webhook.system_get`), else the domain's list, to find the right name, and check the
    /// spelling. The action's own hints are about an entity that exists.
    fn not_found_steps(&self, action: &Action) -> Vec<String> {
        let mut steps = Vec::new();
        let collection = action
            .path
            .rsplit_once('/')
            .map(|(collection, _)| collection);
        let list = catalog::ACTIONS
            .iter()
            .find(|list| {
                list.method == crate::gitlab::Method::Get
                    && Some(list.path) == collection
                    && matches!(list.result, ResultShape::List { .. })
            })
            .or_else(|| catalog::find(&format!("{}.list", action.domain)))
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
        let uri = catalog::fill_uri(spec.uri, args);
        let kind = match action.result {
            ResultShape::Single { entity } => entity.name,
            _ => action.domain,
        };
        let embedded = (mode == EmbeddedResources::Embed).then(|| json::to_text(structured));
        Some(ResourceRef {
            name: format!("{kind} {}", uri.trim_start_matches("gitlab://")),
            uri,
            embedded,
        })
    }

    /// The last step for every outcome: the token must not appear anywhere in it, in any
    /// encoding (`redact.rs`).
    fn finish(&self, outcome: Outcome) -> Outcome {
        scrub(outcome, self.context.gitlab().redactor())
    }
}

/// What the person is asked to approve: the refusal's words (the consequence in so many
/// words where the action states one), and what it acts on.
fn approval_question(action: &Action, args: &Args) -> String {
    match action.safety.consequence {
        Some(consequence) => format!(
            "`{}` needs your explicit approval of exactly this: {} (on {}). Approve only if you mean this action on this target.",
            action.id,
            crate::catalog::fill(consequence, args),
            target(action, args)
        ),
        None => format!(
            "`{}` is destructive ({}) on {}, and may not be possible to undo. Approve it?",
            action.id,
            action.title.to_lowercase(),
            target(action, args)
        ),
    }
}

/// What a call acts on: its required arguments (secrets left out), as `name value`.
fn target(action: &Action, args: &Args) -> String {
    let named: Vec<String> = action
        .required_params()
        .filter(|spec| !spec.secret)
        .filter_map(|spec| {
            crate::catalog::arg_text(args, spec.name)
                .map(|value| format!("{} `{value}`", spec.name))
        })
        .collect();
    if named.is_empty() {
        "no target named".to_owned()
    } else {
        named.join(", ")
    }
}

/// The answer to a destructive call the person did not approve: nothing was done, which
/// is not a failure. Its structure is the action's message where its result is one; an
/// action that returns an entity has none to give, so the answer is marked an error
/// rather than break the tool's output schema.
fn not_approved(action: &Action, args: &Args, answer: Answer) -> Outcome {
    let how = match answer {
        Answer::Dismissed => "dismissed the approval of",
        Answer::Declined | Answer::Approved => "declined",
    };
    let text = format!(
        "Nothing was done: the user {how} `{}` ({}: {}). Do not call it again unless they ask for it.",
        action.id,
        action.title.to_lowercase(),
        target(action, args)
    );
    if !matches!(action.result, ResultShape::Message { .. }) {
        return Outcome::error(text);
    }
    let mut structured = Map::new();
    structured.insert("message".into(), Value::String(text.clone()));
    Outcome {
        text,
        structured: Some(structured),
        is_error: false,
        kind: Some(ContentKind::Mutation),
        resource: None,
        question: None,
    }
}

/// The string values of the action's secret parameters among `args`, by name or alias;
/// a secret map (an integration's `credentials`) gives each of its values.
fn secret_values(action: &Action, args: &Args) -> Vec<String> {
    action
        .params
        .iter()
        .filter(|spec| spec.secret)
        .flat_map(|spec| std::iter::once(spec.name).chain(spec.aliases.iter().copied()))
        .filter_map(|name| args.get(name))
        .flat_map(|value| match value {
            Value::String(text) => vec![text.clone()],
            Value::Object(entries) => entries
                .values()
                .map(|value| match value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
                .collect(),
            other => vec![other.to_string()],
        })
        .collect()
}

/// `outcome` with every form of `redactor`'s secrets masked: text, structure, resource.
fn scrub(mut outcome: Outcome, redactor: &crate::redact::Redactor) -> Outcome {
    if redactor.is_empty() {
        return outcome;
    }
    if let std::borrow::Cow::Owned(clean) = redactor.text(&outcome.text) {
        outcome.text = clean;
    }
    if let Some(question) = &mut outcome.question
        && let std::borrow::Cow::Owned(clean) = redactor.text(question)
    {
        *question = clean;
    }
    if let Some(structured) = outcome.structured.take() {
        let mut value = Value::Object(structured);
        redactor.json(&mut value);
        if let Value::Object(map) = value {
            outcome.structured = Some(map);
        }
    }
    if let Some(resource) = &mut outcome.resource
        && let Some(embedded) = &mut resource.embedded
        && let std::borrow::Cow::Owned(clean) = redactor.text(embedded)
    {
        *embedded = clean;
    }
    outcome
}

/// The structure without its content-only fields: those bodies are in the Markdown.
fn strip_content_only(shape: &ResultShape, value: &mut Value) {
    match shape {
        ResultShape::Single { entity } => catalog::strip_content_only(value, entity),
        ResultShape::List { entity, key, .. } => {
            if let Some(Value::Array(items)) = value.get_mut(*key) {
                for item in items {
                    catalog::strip_content_only(item, entity);
                }
            }
        }
        ResultShape::Message { .. } => {}
    }
}

/// A secret GitLab shows only in this answer (a field marked `secret: shown_once`, such as
/// a new token's value): masked in every log line from now on, and the result says, beside
/// it, to store it now (`SHOWN_ONCE_KEY`, which the card shows first).
fn announce_shown_once(shape: &ResultShape, value: &mut Value) {
    let (ResultShape::Single { entity }, Value::Object(result)) = (shape, value) else {
        return;
    };
    let shown: Vec<(&str, &str)> = entity
        .shown_once()
        .filter_map(|field| {
            let secret = result.get(field.name).and_then(Value::as_str)?;
            (!secret.is_empty()).then_some((field.name, secret))
        })
        .collect();
    if shown.is_empty() {
        return;
    }
    crate::redact::register_for_logs(shown.iter().map(|(_, secret)| *secret));
    let names: Vec<String> = shown
        .iter()
        .map(|(name, _)| name.replace('_', " "))
        .collect();
    let note = format!(
        "Store this {} now: GitLab shows it only in this answer and never again.",
        names.join(" and ")
    );
    result.insert(SHOWN_ONCE_KEY.into(), Value::from(note));
}

/// What a result says about the fields GitLab sent that could not be read (listed in the
/// structure under `unreadable_fields`): fields left out, and list items left out whole
/// for want of a field they cannot do without.
fn unreadable_note(shape: &ResultShape, value: &Value) -> Option<String> {
    let paths = value.get(UNREADABLE_KEY)?.as_array()?;
    let required = |path: &str| match shape {
        ResultShape::List { entity, .. } => entity.field(path).is_some_and(|f| f.required),
        _ => false,
    };
    let spans = |paths: Vec<&str>| {
        paths
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (items, fields): (Vec<&str>, Vec<&str>) = paths
        .iter()
        .filter_map(Value::as_str)
        .partition(|path| required(path));
    let mut parts = Vec::new();
    if !fields.is_empty() {
        parts.push(format!(
            "GitLab sent {} in a form this server does not read, so {} left out",
            spans(fields.clone()),
            if fields.len() == 1 {
                "it is"
            } else {
                "they are"
            }
        ));
    }
    if !items.is_empty() {
        parts.push(format!(
            "items without a readable {} are left out",
            spans(items)
        ));
    }
    Some(format!("⚠️ {}.", parts.join("; ")))
}

fn lookup_failure(name: &str, lookup: &Lookup, vocabulary: &Vocabulary) -> String {
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
            "Unknown action `{name}`. Did you mean {}? Action ids are `domain.action`; {} to find one.",
            suggestions
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", "),
            vocabulary.search
        ),
        Lookup::Unknown(_) => format!(
            "Unknown action `{name}`. Action ids are `domain.action` (such as `merge_request.list`); {} to find one.",
            vocabulary.search
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
        Lookup::Hidden(action, Hidden::Unfit(unfit)) => unfit.explain(action),
    }
}

fn safe_mode_preview(action: &Action, plan: &Plan) -> String {
    let request = &plan.request;
    let mut markdown = Markdown::new();
    // A GraphQL request is its operation and variables; the document is the manifest's.
    if let Some(graphql) = action.graphql {
        markdown.note(&format!(
            "Safe mode is on (GITLAB_SAFE_MODE=true): `{}` was not executed. It would send the GraphQL {} `{}` (`POST /api/graphql`) with these variables",
            action.id,
            if graphql.mutation { "mutation" } else { "query" },
            graphql.operation
        ));
        let variables = request.variable("").cloned().unwrap_or_default();
        markdown.code_block("json", &json::to_pretty(&variables));
        if let Some(handler) = action.handler {
            markdown.paragraph(&format!(
                "Its handler, {handler}, would first look up the global IDs GitLab wants and add them to the variables."
            ));
        }
        markdown.paragraph("Turn safe mode off to make the change.");
        return markdown.into_string();
    }
    let target = request.target().unwrap_or_else(|_| action.path.to_owned());
    markdown.note(&format!(
        "Safe mode is on (GITLAB_SAFE_MODE=true): `{}` was not executed. It would send `{} /api/v4{target}`",
        action.id, request.method
    ));
    if let Some(body) = request.json_body().filter(|b| !b.is_empty()) {
        markdown.code_block("json", &json::to_pretty(body));
    }
    if let Some(added) = handlers::preview(action, &plan.args) {
        markdown.paragraph(&added);
    }
    markdown.paragraph("Turn safe mode off to make the change.");
    markdown.into_string()
}

//! What the sandbox does for each action, as data: `seed/behaviour/<domain>.json`.
//!
//! An action with no entry gets the generic behaviour its path's shape implies (list, get,
//! create, update or delete in the path's collection). An entry adjusts that behaviour in
//! data: lookups and their refusals, preconditions with GitLab's status codes, fields to
//! set, changes to other records, the answer. Only an entry with `route` runs hand-written
//! Rust (`routes::ROUTES`, each with its reason). `seed/README.md` documents every key.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::{Map, Value};

// `BEHAVIOURS`: every `seed/behaviour/*.json`, listed by build.rs.
include!(concat!(env!("OUT_DIR"), "/seed_behaviours.rs"));

/// One domain's file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    domain: String,
    /// Named answer templates, used with `{"$view": "name"}` from any file.
    #[serde(default)]
    views: BTreeMap<String, Value>,
    #[serde(default)]
    actions: BTreeMap<String, Behaviour>,
    /// Named timelines of simulated time, used with `afterwards` from any file.
    #[serde(default)]
    timelines: BTreeMap<String, Timeline>,
}

/// Simulated time: what happens to records in the minute after a read (`afterwards`).
/// The `let` names what it acts on; the first step whose `when` holds applies its
/// effects, and the clock moves a minute. A step with no effects is a state in which
/// nothing happens any more.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timeline {
    /// Why, for the reader.
    #[serde(default)]
    #[allow(dead_code, reason = "documentation in the data, read by people")]
    pub note: Option<String>,
    #[serde(default, rename = "let")]
    pub bindings: Vec<Binding>,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Why, for the reader.
    #[serde(default)]
    #[allow(dead_code, reason = "documentation in the data, read by people")]
    pub note: Option<String>,
    #[serde(default)]
    pub when: Option<Value>,
    #[serde(default)]
    pub effects: Vec<Effect>,
}

/// The operation an action performs on its collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Filter, sort and page records.
    List,
    /// Answer the record the path names.
    Get,
    /// Add a record from the request body.
    Create,
    /// Apply the request body to the record the path names.
    Update,
    /// Remove the record the path names.
    Delete,
    /// Apply `set` (not the body) to the record the path names: a state transition.
    Change,
    /// Change nothing on the path's record (effects and the answer may still act).
    None,
}

/// How the answer is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    #[default]
    Json,
    /// Plain text; a list of lines is joined with newlines.
    Text,
    /// A page of a list, with GitLab's pagination headers.
    Page,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Behaviour {
    /// Why the action behaves so (GitLab's documented behaviour), for the reader.
    #[serde(default)]
    #[allow(dead_code, reason = "documentation in the data, read by people")]
    pub note: Option<String>,
    /// Request parameters that pick this action among those sharing its method and path
    /// (`{"scope": "blobs"}`): `param: matcher`.
    #[serde(default, rename = "match")]
    pub discriminator: Map<String, Value>,
    /// The path's last parameter takes the rest of the path, slashes included (GitLab's
    /// `*artifact_path`).
    #[serde(default)]
    pub wildcard: bool,
    /// A hand-written route in `routes.rs`, instead of everything below.
    #[serde(default)]
    pub route: Option<String>,
    /// The operation; by default the path's shape decides.
    #[serde(default)]
    pub op: Option<Op>,
    /// The collection the operation works on, when not the path's.
    #[serde(default, rename = "in")]
    pub collection: Option<String>,
    /// For `list`: only records passing `field: matcher`.
    #[serde(default, rename = "where")]
    pub filter: Map<String, Value>,
    /// For `list`: query parameters assumed when the request sends none (templates).
    #[serde(default)]
    pub query_defaults: Map<String, Value>,
    /// Named values, in order: lookups and computed values.
    #[serde(default, rename = "let")]
    pub bindings: Vec<Binding>,
    /// Preconditions, in order: the first that fails answers.
    #[serde(default)]
    pub require: Vec<Requirement>,
    /// Parameters that are instructions, not fields of the record: body parameters not
    /// stored, and query parameters that do not filter a computed list (`tags_count`).
    #[serde(default)]
    pub ignore: Vec<String>,
    /// Fields of the created or changed record (templates; `$inc`, `$push`, `$pull`,
    /// `$unset` work on the current value).
    #[serde(default)]
    pub set: Map<String, Value>,
    /// Changes to other records, in order.
    #[serde(default)]
    pub effects: Vec<Effect>,
    /// The answer's body (a template); by default the record the operation produced.
    #[serde(default)]
    pub respond: Option<Value>,
    #[serde(default, rename = "as")]
    pub shape: Shape,
    /// The answer's status; by default 201 for a create or a POST, 204 for a delete, 200.
    #[serde(default)]
    pub status: Option<u16>,
    /// After a successful answer, the timeline of this name (`timelines`) moves the
    /// records this request names on by a minute of simulated time.
    #[serde(default)]
    pub afterwards: Option<String>,
}

/// A named value: a record looked up (`in` with `key` or `where`) or a computed `value`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    /// Why, for the reader.
    #[serde(default)]
    #[allow(dead_code, reason = "documentation in the data, read by people")]
    pub note: Option<String>,
    pub name: String,
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(default, rename = "in")]
    pub collection: Option<String>,
    /// Finds by the collection's keys (and commit references, where the collection allows).
    #[serde(default)]
    pub key: Option<Value>,
    #[serde(default, rename = "where")]
    pub filter: Map<String, Value>,
    /// Sort before taking the first (`-id`: the highest id).
    #[serde(default)]
    pub order: Option<String>,
    /// Bind every match (a list) instead of the first.
    #[serde(default)]
    pub all: bool,
    /// Look in the whole collection, not only under the path's records (a group's
    /// milestone named from a project).
    #[serde(default)]
    pub anywhere: bool,
    /// Only look when this condition holds; otherwise the name is null.
    #[serde(default)]
    pub when: Option<Value>,
    /// The answer when nothing is found.
    #[serde(default)]
    pub missing: Option<Reply>,
    /// The answer when something is found (a duplicate).
    #[serde(default)]
    pub found: Option<Reply>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    /// Why, for the reader.
    #[serde(default)]
    #[allow(dead_code, reason = "documentation in the data, read by people")]
    pub note: Option<String>,
    /// A condition.
    pub that: Value,
    #[serde(rename = "else")]
    pub otherwise: Reply,
}

/// An answer given instead of the operation: GitLab's refusal (or a no-op success).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    pub status: u16,
    /// `{"message": ...}`, GitLab's usual shape.
    #[serde(default)]
    pub message: Option<Value>,
    /// `{"error": ...}`, GitLab's shape for parameter problems.
    #[serde(default)]
    pub error: Option<Value>,
    /// Any other body (a template).
    #[serde(default)]
    pub body: Option<Value>,
}

/// A change to other records. Exactly one of `update`, `update_all`, `create`, `clone`,
/// `delete`, `delete_all` names what it changes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Effect {
    /// Why, for the reader.
    #[serde(default)]
    #[allow(dead_code, reason = "documentation in the data, read by people")]
    pub note: Option<String>,
    #[serde(default)]
    pub when: Option<Value>,
    /// A named record (a path record, a lookup, `created`).
    #[serde(default)]
    pub update: Option<String>,
    /// Every record of a collection passing `where` (under the path's records).
    #[serde(default)]
    pub update_all: Option<String>,
    /// New records in a collection, from `records` (a template giving a list).
    #[serde(default)]
    pub create: Option<String>,
    /// A copy of every record passing `where`, with `set` applied; the original gets `mark`.
    #[serde(default)]
    pub clone: Option<String>,
    /// A named record.
    #[serde(default)]
    pub delete: Option<String>,
    #[serde(default)]
    pub delete_all: Option<String>,
    #[serde(default, rename = "where")]
    pub filter: Map<String, Value>,
    #[serde(default)]
    pub set: Map<String, Value>,
    #[serde(default)]
    pub records: Option<Value>,
    #[serde(default)]
    pub mark: Map<String, Value>,
    /// A name for the records created or cloned (a list).
    #[serde(default, rename = "as")]
    pub bind: Option<String>,
}

struct Loaded {
    actions: BTreeMap<String, Behaviour>,
    views: BTreeMap<String, Value>,
    timelines: BTreeMap<String, Timeline>,
}

static LOADED: LazyLock<Loaded> = LazyLock::new(|| {
    let mut loaded = Loaded {
        actions: BTreeMap::new(),
        views: BTreeMap::new(),
        timelines: BTreeMap::new(),
    };
    for (name, text) in BEHAVIOURS {
        let file: File = serde_json::from_str(text)
            .unwrap_or_else(|error| panic!("seed/behaviour/{name}.json is invalid: {error}"));
        assert_eq!(
            file.domain, *name,
            "seed/behaviour/{name}.json must say `\"domain\": \"{name}\"`"
        );
        for (action, behaviour) in file.actions {
            loaded
                .actions
                .insert(format!("{}.{action}", file.domain), behaviour);
        }
        for (view, template) in file.views {
            let previous = loaded.views.insert(view.clone(), template);
            assert!(previous.is_none(), "the view `{view}` is declared twice");
        }
        for (name, timeline) in file.timelines {
            let previous = loaded.timelines.insert(name.clone(), timeline);
            assert!(
                previous.is_none(),
                "the timeline `{name}` is declared twice"
            );
        }
    }
    loaded
});

static GENERIC: LazyLock<Behaviour> = LazyLock::new(Behaviour::default);

/// The behaviour declared for an action, or the generic one.
pub fn of(action: &str) -> &'static Behaviour {
    LOADED.actions.get(action).unwrap_or(&GENERIC)
}

/// Every declared behaviour, by action id.
pub fn all() -> impl Iterator<Item = (&'static str, &'static Behaviour)> {
    LOADED.actions.iter().map(|(id, b)| (id.as_str(), b))
}

pub fn view(name: &str) -> Option<&'static Value> {
    LOADED.views.get(name)
}

pub fn timeline(name: &str) -> Option<&'static Timeline> {
    LOADED.timelines.get(name)
}

pub fn views() -> impl Iterator<Item = (&'static str, &'static Value)> {
    LOADED.views.iter().map(|(name, v)| (name.as_str(), v))
}

/// Views no `{"$view": ...}` of any file uses: most often an action's behaviour written
/// under `views` instead of `actions`, which would otherwise show only as the action's 501.
fn unused_views() -> Vec<String> {
    let files: Vec<(&str, Value)> = BEHAVIOURS
        .iter()
        .filter_map(|(name, text)| Some((*name, serde_json::from_str(text).ok()?)))
        .collect();
    unused_views_in(&files)
}

fn unused_views_in(files: &[(&str, Value)]) -> Vec<String> {
    fn used(value: &Value, names: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(name)) = map.get("$view") {
                    names.push(name.clone());
                }
                map.values().for_each(|v| used(v, names));
            }
            Value::Array(items) => items.iter().for_each(|v| used(v, names)),
            _ => {}
        }
    }
    let mut names = Vec::new();
    for (_, file) in files {
        used(file, &mut names);
    }
    let mut problems = Vec::new();
    for (domain, file) in files {
        for view in file["views"].as_object().into_iter().flat_map(|v| v.keys()) {
            if !names.contains(view) {
                let hint = if crate::catalog::find(&format!("{domain}.{view}")).is_some() {
                    format!(": `{domain}.{view}` is an action; its behaviour goes under `actions`")
                } else {
                    String::new()
                };
                problems.push(format!(
                    "seed/behaviour/{domain}.json: view `{view}` is used by no `{{\"$view\": \"{view}\"}}`{hint}"
                ));
            }
        }
    }
    problems
}

/// Problems in the behaviour data, each naming its file, action and key: actions the
/// catalog lacks, unknown routes, collections, filters, operators and tests.
pub fn problems(store: &super::store::Store) -> Vec<String> {
    use super::expr::{check_condition, check_matcher, check_set, check_template};
    let mut problems = Vec::new();
    for (view, template) in views() {
        check_template(template, &format!("view `{view}`"), &mut problems);
    }
    problems.extend(unused_views());
    for (name, timeline) in &LOADED.timelines {
        check_timeline(name, timeline, store, &mut problems);
    }
    for (id, behaviour) in all() {
        let domain = id.split('.').next().unwrap_or_default();
        let at = |key: &str| format!("seed/behaviour/{domain}.json: action `{id}`: key `{key}`");
        if crate::catalog::find(id).is_none() {
            problems.push(format!("{}: no such action in the catalog", at("actions")));
        }
        if let Some(route) = &behaviour.route
            && !super::routes::ROUTES.iter().any(|r| r.name == route)
        {
            problems.push(format!("{}: no route `{route}` in routes.rs", at("route")));
        }
        let mut collection = |name: &Option<String>, key: &str| {
            if let Some(name) = name
                && !store.has(name)
            {
                problems.push(format!("{}: no collection `{name}`", at(key)));
            }
        };
        collection(&behaviour.collection, "in");
        for binding in &behaviour.bindings {
            collection(&binding.collection, "let");
        }
        for effect in &behaviour.effects {
            for target in [
                &effect.update_all,
                &effect.create,
                &effect.clone,
                &effect.delete_all,
            ] {
                collection(target, "effects");
            }
        }
        for (field, matcher) in &behaviour.filter {
            check_matcher(matcher, &at(&format!("where.{field}")), &mut problems);
        }
        for template in behaviour.query_defaults.values() {
            check_template(template, &at("query_defaults"), &mut problems);
        }
        for binding in &behaviour.bindings {
            let at = at(&format!("let.{}", binding.name));
            for template in [&binding.value, &binding.key].into_iter().flatten() {
                check_template(template, &at, &mut problems);
            }
            for matcher in binding.filter.values() {
                check_matcher(matcher, &at, &mut problems);
            }
            if let Some(condition) = &binding.when {
                check_condition(condition, &at, &mut problems);
            }
            for reply in [&binding.missing, &binding.found].into_iter().flatten() {
                check_reply(reply, &at, &mut problems);
            }
        }
        for (index, requirement) in behaviour.require.iter().enumerate() {
            let at = at(&format!("require[{index}]"));
            check_condition(&requirement.that, &at, &mut problems);
            check_reply(&requirement.otherwise, &at, &mut problems);
        }
        check_set(&behaviour.set, &at("set"), &mut problems);
        check_effects(&behaviour.effects, &at("effects"), &mut problems);
        if let Some(name) = &behaviour.afterwards
            && timeline(name).is_none()
        {
            problems.push(format!("{}: no timeline `{name}`", at("afterwards")));
        }
        if let Some(template) = &behaviour.respond {
            check_template(template, &at("respond"), &mut problems);
        }
    }
    problems
}

/// Problems in a timeline: its lookups, its steps' conditions and effects.
fn check_timeline(
    name: &str,
    timeline: &Timeline,
    store: &super::store::Store,
    problems: &mut Vec<String>,
) {
    use super::expr::{check_condition, check_matcher, check_template};
    let at = format!("timeline `{name}`");
    for binding in &timeline.bindings {
        let at = format!("{at}: let.{}", binding.name);
        if let Some(collection) = &binding.collection
            && !store.has(collection)
        {
            problems.push(format!("{at}: no collection `{collection}`"));
        }
        for template in [&binding.value, &binding.key].into_iter().flatten() {
            check_template(template, &at, problems);
        }
        for matcher in binding.filter.values() {
            check_matcher(matcher, &at, problems);
        }
    }
    for (index, step) in timeline.steps.iter().enumerate() {
        let at = format!("{at}: steps[{index}]");
        if let Some(condition) = &step.when {
            check_condition(condition, &at, problems);
        }
        for effect in &step.effects {
            if let Some(collection) = &effect.update_all
                && !store.has(collection)
            {
                problems.push(format!("{at}: no collection `{collection}`"));
            }
        }
        check_effects(&step.effects, &at, problems);
    }
}

/// Problems in a list of effects: each names exactly one target, and its conditions,
/// matchers, sets and templates are sound.
fn check_effects(effects: &[Effect], at: &str, problems: &mut Vec<String>) {
    use super::expr::{check_condition, check_matcher, check_set, check_template};
    for (index, effect) in effects.iter().enumerate() {
        let at = format!("{at}[{index}]");
        let targets = [
            &effect.update,
            &effect.update_all,
            &effect.create,
            &effect.clone,
            &effect.delete,
            &effect.delete_all,
        ];
        if targets.iter().filter(|t| t.is_some()).count() != 1 {
            problems.push(format!(
                "{at}: name exactly one of update, update_all, create, clone, delete, delete_all"
            ));
        }
        if let Some(condition) = &effect.when {
            check_condition(condition, &at, problems);
        }
        for matcher in effect.filter.values() {
            check_matcher(matcher, &at, problems);
        }
        check_set(&effect.set, &at, problems);
        check_set(&effect.mark, &at, problems);
        if let Some(records) = &effect.records {
            check_template(records, &at, problems);
        }
    }
}

fn check_reply(reply: &Reply, at: &str, problems: &mut Vec<String>) {
    for template in [&reply.message, &reply.error, &reply.body]
        .into_iter()
        .flatten()
    {
        super::expr::check_template(template, at, problems);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_view_nothing_uses_is_a_problem_that_names_its_action() {
        let files = [
            (
                "repository",
                json!({"views": {"compare": {"id": "{sha}"}, "commit": {"id": "{sha}"}}}),
            ),
            (
                "tag",
                json!({"actions": {"get": {"answer": {"$view": "commit"}}}}),
            ),
        ];
        let problems = unused_views_in(&files);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("seed/behaviour/repository.json: view `compare`")
                && problems[0].contains("`repository.compare` is an action"),
            "{}",
            problems[0]
        );
    }
}

//! Answers one sandbox request: auth, the action it is, the records its path names, then
//! that action's behaviour (`behaviour`, data) or, for the few listed in `routes::ROUTES`,
//! a hand-written route.
//!
//! Routes are the catalog's own method and path templates, so a new ordinary action is
//! served as soon as its collection has a spec and seed records: a template that ends in
//! a parameter reads (GET), updates (PUT) or deletes (DELETE) that record; one that ends in
//! a collection lists (GET) or creates in (POST) it; one that ends in another word (`/merge`,
//! `/retry`) changes the record before it. Behaviour data adjusts any of that.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::behaviour::{self, Behaviour, Binding, Effect, Op, Reply, Shape, Timeline};
use super::expr::{Scope, same};
use super::instance;
use super::routes;
use super::store::{Ancestor, Failure, Outcome, Page, Query, Store, public, text};
use crate::catalog::{ACTIONS, Action};
use crate::gitlab::Method;

/// A request as the sandbox sees it: decoded path segments, query, JSON body, token.
#[derive(Debug)]
pub struct Incoming {
    pub method: Method,
    /// Path segments after `/api/v4`, percent-decoded one by one.
    pub segments: Vec<String>,
    pub query: Query,
    pub body: Map<String, Value>,
    pub token: Option<String>,
    /// A `POST /api/graphql`: only the catalog's GraphQL actions answer it.
    pub graphql: bool,
}

/// What the sandbox answers.
#[derive(Debug)]
pub enum Answer {
    Json {
        status: u16,
        body: Value,
    },
    Page(Page),
    Text(Vec<u8>),
    /// A file download (an artifacts archive): sent with its content type, honouring
    /// `Range` as GitLab's file server does.
    Bytes {
        bytes: Vec<u8>,
        content_type: &'static str,
    },
    Empty(u16),
}

impl Answer {
    pub fn ok(body: Value) -> Self {
        Self::Json {
            status: 200,
            body: public(&body),
        }
    }
}

impl From<Failure> for Answer {
    fn from(failure: Failure) -> Self {
        Self::Json {
            status: failure.status,
            body: failure.body,
        }
    }
}

/// Everything a route needs about the request.
pub struct Call<'a> {
    pub action: &'static Action,
    pub user: Value,
    /// The records the path passed through, outermost first.
    pub ancestors: Vec<Ancestor>,
    /// The path's collection (`projects/merge_requests`), for generic routes.
    pub collection: String,
    /// The path's parameters as sent (`{"file_path": "src/main.rs"}`), decoded.
    pub path: Map<String, Value>,
    pub query: &'a Query,
    pub body: &'a Map<String, Value>,
}

impl Call<'_> {
    pub fn project(&self) -> Option<&Value> {
        self.ancestors
            .iter()
            .find(|a| a.collection == "projects")
            .map(|a| &a.record)
    }

    /// The record a path ending in a parameter names.
    pub fn target(&self) -> Option<&Ancestor> {
        self.ancestors.last()
    }
}

pub fn handle(store: &mut Store, incoming: &Incoming) -> Answer {
    match answer(store, incoming) {
        Ok(answer) => answer,
        Err(failure) => failure.into(),
    }
}

fn answer(store: &mut Store, incoming: &Incoming) -> Outcome<Answer> {
    let user = match incoming
        .token
        .as_deref()
        .and_then(|t| store.user_by_token(t))
    {
        Some(user) => user,
        None => return Err(Failure::new(401, "401 Unauthorized")),
    };
    if let Some(answer) = instance::answer(store, incoming, &user) {
        return Ok(answer);
    }
    let (action, params) = route(incoming).ok_or_else(|| Failure {
        status: 404,
        body: json!({"error": "404 Not Found"}),
    })?;
    let token = incoming.token.as_deref().unwrap_or_default();
    if let Some(refusal) = instance::refusal(store, action, &user, token) {
        return Err(refusal);
    }
    let behaviour = behaviour::of(action.id);
    if let Some(missing) = missing_data(store, action, behaviour) {
        return Err(Failure::new(501, missing));
    }
    // A hand-written route finds what its path names itself: a file about to be created
    // has no record yet.
    let lenient = behaviour.route.is_some();
    let (collection, ancestors) = walk(store, action, &params, &user, lenient)?;
    let call = Call {
        action,
        user,
        ancestors,
        collection,
        path: params,
        query: &incoming.query,
        body: &incoming.body,
    };
    if let Some(name) = &behaviour.route {
        let route = routes::ROUTES
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("`{}` names the unknown route `{name}`", action.id));
        return (route.run)(store, &call);
    }
    let answered = Run::new(store, &call).perform(store, &call, behaviour)?;
    if let Some(timeline) = behaviour
        .afterwards
        .as_deref()
        .and_then(behaviour::timeline)
    {
        Run::new(store, &call).advance(store, &call, timeline);
    }
    Ok(answered)
}

/// What the sandbox lacks to serve `action` as its path implies, in a maintainer's words:
/// the collection its path reads or names a record of has no spec and records, and its
/// behaviour says nothing else to do. Without this, the generic behaviour would answer the
/// path's last known record (the project) and the client would report an unexpected shape.
pub fn missing_data(store: &Store, action: &Action, behaviour: &Behaviour) -> Option<String> {
    let generic = behaviour.route.is_none()
        && behaviour.op.is_none()
        && behaviour.collection.is_none()
        && behaviour.respond.is_none()
        && action.graphql.is_none();
    if !generic {
        return None;
    }
    let path = action.path.trim_start_matches('/');
    // A path ending in a parameter names a record of the collection before it; a read
    // ending in a word lists that collection.
    let collection_path = match path.rsplit_once('/') {
        Some((before, last)) if last.starts_with('{') => before,
        _ if action.method == Method::Get => path,
        _ => return None,
    };
    let collection: Vec<&str> = collection_path
        .split('/')
        .filter(|part| !part.starts_with('{'))
        .collect();
    let collection = collection.join("/");
    if store.has(&collection) {
        return None;
    }
    let file = collection.rsplit('/').next().unwrap_or_default();
    Some(format!(
        "the sandbox has no data for {} {}: add records of `{collection}` (with its `spec`) in \
         src/sandbox/seed/records/{file}.json or behaviour in src/sandbox/seed/behaviour/{}.json \
         (see src/sandbox/seed/README.md)",
        action.method,
        action.path,
        action.id.split('.').next().unwrap_or_default()
    ))
}

/// The catalog action a request is: the method and path template that match, preferring
/// literal segments (`pipelines/latest` over `pipelines/{pipeline_id}`), then an action whose
/// `match` the request's parameters pass over one without (search scopes sharing a path).
fn route(incoming: &Incoming) -> Option<(&'static Action, Map<String, Value>)> {
    /// Literal segments, then 2 for a `match` passed, 1 for none.
    type Rank = (usize, u8);
    let mut best: Option<(Rank, &'static Action, Map<String, Value>)> = None;
    let params = parameters(incoming);
    let candidates = ACTIONS.iter().filter(|a| match incoming.graphql {
        // Every GraphQL request is a POST; the action says what it does (a query reads).
        true => a.graphql.is_some() && incoming.method == Method::Post,
        false => a.graphql.is_none() && a.method == incoming.method,
    });
    for action in candidates {
        let template: Vec<&str> = action.path.trim_start_matches('/').split('/').collect();
        let behaviour = behaviour::of(action.id);
        let segments = match incoming.segments.len() {
            n if n == template.len() => incoming.segments.clone(),
            // GitLab's `*artifact_path`: the last parameter takes the rest, slashes and all.
            n if n > template.len() && behaviour.wildcard => {
                let mut segments = incoming.segments[..template.len() - 1].to_vec();
                segments.push(incoming.segments[template.len() - 1..].join("/"));
                segments
            }
            _ => continue,
        };
        let mut path_params = Map::new();
        let mut literals = 0;
        let matched = template.iter().zip(&segments).all(|(part, segment)| {
            match part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                Some(name) => {
                    path_params.insert(name.to_owned(), Value::String(segment.clone()));
                    true
                }
                None => {
                    literals += 1;
                    part == segment
                }
            }
        });
        if !matched {
            continue;
        }
        let discriminator = &behaviour.discriminator;
        let picked = match discriminator.is_empty() {
            true => 1,
            false if discriminates(discriminator, &params) => 2,
            false => continue,
        };
        let rank = (literals, picked);
        if best.as_ref().is_none_or(|(best, ..)| rank > *best) {
            best = Some((rank, action, path_params));
        }
    }
    best.map(|(_, action, params)| (action, params))
}

/// The request's parameters: the query, then the body over it.
fn parameters(incoming: &Incoming) -> Map<String, Value> {
    let mut params: Map<String, Value> = incoming
        .query
        .pairs
        .iter()
        .map(|(k, v)| (k.trim_end_matches("[]").to_owned(), json!(v)))
        .collect();
    params.extend(incoming.body.clone());
    params
}

/// Whether the request's parameters have the values a `match` lists: one value, or any
/// of a list.
fn discriminates(discriminator: &Map<String, Value>, params: &Map<String, Value>) -> bool {
    discriminator.iter().all(|(name, wanted)| {
        let value = params.get(name).cloned().unwrap_or(Value::Null);
        match wanted {
            Value::Array(any) => any.iter().any(|w| same(&value, w)),
            one => same(&value, one),
        }
    })
}

/// Resolves every path parameter to its record, outermost first, and names the path's
/// collection. A missing or invisible record answers 404 as GitLab does, unless `lenient`
/// (a route): then a missing innermost record is left out for the route to judge.
fn walk(
    store: &Store,
    action: &Action,
    params: &Map<String, Value>,
    user: &Value,
    lenient: bool,
) -> Outcome<(String, Vec<Ancestor>)> {
    let mut literals: Vec<&str> = Vec::new();
    let mut ancestors = Vec::new();
    let innermost = action
        .path
        .rsplit_once('{')
        .and_then(|(_, rest)| rest.split_once('}'))
        .map(|(name, _)| name);
    for part in action.path.trim_start_matches('/').split('/') {
        let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) else {
            literals.push(part);
            continue;
        };
        let collection = literals.join("/");
        if !store.has(&collection) {
            continue;
        }
        let value = params.get(name).and_then(Value::as_str).unwrap_or_default();
        let record = match store.find(&collection, &ancestors, value) {
            Some(record) => record,
            None if lenient && innermost == Some(name) => continue,
            None => return Err(Failure::new(404, store.spec(&collection).not_found)),
        };
        if collection == "projects" && !store.visible_project(&record, user) {
            return Err(Failure::new(404, store.spec(&collection).not_found));
        }
        ancestors.push(Ancestor { collection, record });
    }
    Ok((literals.join("/"), ancestors))
}

/// One behaviour being carried out: the named values and where each named record lives.
struct Run {
    scope: Scope,
    /// Named record → its collection, for effects that change or delete it.
    origins: BTreeMap<String, String>,
}

impl Run {
    fn new(store: &Store, call: &Call<'_>) -> Self {
        let mut run = Self {
            scope: Scope::default(),
            origins: BTreeMap::new(),
        };
        let query: Map<String, Value> = call
            .query
            .pairs
            .iter()
            .rev()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        // GitLab reads a parameter from the query or the body alike.
        let mut params = query.clone();
        params.extend(call.body.clone());
        let host = store
            .external_url
            .trim_start_matches("https://")
            .trim_start_matches("http://")
            .to_owned();
        for (name, value) in [
            ("current_user", call.user.clone()),
            ("params", Value::Object(params)),
            ("query", Value::Object(query)),
            ("now", json!(store.now())),
            ("path", Value::Object(call.path.clone())),
            ("external_url", json!(store.external_url)),
            ("external_host", json!(host)),
        ] {
            run.scope.bind(name, value);
        }
        for ancestor in &call.ancestors {
            let name = store.record_name(&ancestor.collection);
            run.name(&name, ancestor.record.clone(), &ancestor.collection);
        }
        if let Some(target) = call.target() {
            run.name("target", target.record.clone(), &target.collection);
        }
        run
    }

    fn name(&mut self, name: &str, record: Value, collection: &str) {
        self.scope.bind(name, record);
        self.origins.insert(name.to_owned(), collection.to_owned());
    }

    fn perform(
        mut self,
        store: &mut Store,
        call: &Call<'_>,
        behaviour: &Behaviour,
    ) -> Outcome<Answer> {
        let op = behaviour.op.unwrap_or_else(|| default_op(store, call));
        let collection = behaviour
            .collection
            .clone()
            .unwrap_or_else(|| call.collection.clone());
        // A missing required field is GitLab's first answer, before any lookup.
        let params = self.scope.get("params").and_then(Value::as_object).cloned();
        if op == Op::Create
            && let Some(field) = store.missing_field(&collection, &params.unwrap_or_default())
        {
            return Err(Failure::missing(&field));
        }
        for binding in &behaviour.bindings {
            if let Some(answer) = self.bind(store, call, binding) {
                return answer;
            }
        }
        for requirement in &behaviour.require {
            if !self.scope.holds(store, &requirement.that) {
                return self.reply(store, &requirement.otherwise);
            }
        }
        let writes = matches!(op, Op::Create | Op::Update | Op::Delete | Op::Change)
            || !behaviour.effects.is_empty();
        let now = if writes { store.tick() } else { store.now() };
        self.scope.bind("now", json!(now));
        let mut body = call.body.clone();
        body.retain(|key, _| !behaviour.ignore.contains(key));

        let default = match op {
            Op::List => {
                let mut query = call.query.clone();
                // Parameters the entry ignores filter nothing here either (`scope` of
                // feature flags is their `active`, not a job status).
                query
                    .pairs
                    .retain(|(key, _)| !behaviour.ignore.contains(key));
                for (key, value) in self.scope.eval_map(store, &behaviour.query_defaults) {
                    if query.get(&key).is_none() && !value.is_null() {
                        query.pairs.push((key, text(&value)));
                    }
                }
                let records: Vec<&Value> = store
                    .scoped(&collection, &call.ancestors)
                    .into_iter()
                    .filter(|r| self.scope.selects(store, r, &behaviour.filter))
                    .collect();
                Some(Answer::Page(store.page(
                    &collection,
                    records,
                    &query,
                    &call.user,
                )))
            }
            Op::Get => None,
            Op::Create => {
                let mut record = store.build(&collection, &call.ancestors, &body, &call.user, &now);
                self.scope.bind("created", record.clone());
                self.scope.apply_set(store, &mut record, &behaviour.set);
                let record = store.insert(&collection, &call.ancestors, record);
                self.name("created", record, &collection);
                None
            }
            Op::Update | Op::Change => {
                let target = self.target(call)?;
                let mut record = match op {
                    Op::Update => {
                        store.update(&target.collection, &target.record, &body, &call.user, &now)
                    }
                    _ => target.record.clone(),
                };
                let before = record.clone();
                self.scope.apply_set(store, &mut record, &behaviour.set);
                store.replace(&target.collection, &before, record.clone());
                self.scope.replace(&target.record, &record);
                None
            }
            Op::Delete => {
                let target = self.target(call)?;
                store.remove(&target.collection, &target.record);
                Some(Answer::Empty(204))
            }
            Op::None => None,
        };
        for effect in &behaviour.effects {
            self.effect(store, call, effect);
        }
        let status = behaviour.status.unwrap_or(match op {
            Op::Create => 201,
            Op::Change | Op::None if call.action.method == Method::Post => 201,
            Op::Delete => 204,
            _ => 200,
        });
        let body = match &behaviour.respond {
            Some(template) => self.scope.eval(store, template),
            None => match default {
                Some(answer) => return Ok(answer),
                // A 204 answers nothing (marking every to-do done).
                None if status == 204 => return Ok(Answer::Empty(204)),
                None => {
                    let name = if op == Op::Create {
                        "created"
                    } else {
                        "target"
                    };
                    self.scope.get(name).cloned().ok_or_else(not_found)?
                }
            },
        };
        Ok(match behaviour.shape {
            Shape::Json => Answer::Json {
                status,
                body: public(&body),
            },
            Shape::Text => Answer::Text(
                match body {
                    Value::Array(lines) => lines.iter().map(text).collect::<Vec<_>>().join("\n"),
                    Value::Null => String::new(),
                    other => text(&other),
                }
                .into_bytes(),
            ),
            // A computed list is filtered by the query as any list is, then paged.
            // Parameters the entry ignores shape the answer and filter nothing.
            Shape::Page => {
                let items = body.as_array().cloned().unwrap_or_default();
                let mut query = call.query.clone();
                query
                    .pairs
                    .retain(|(key, _)| !behaviour.ignore.contains(key));
                Answer::Page(store.page(&collection, items.iter().collect(), &query, &call.user))
            }
        })
    }

    /// A minute of simulated time after a read: the first step of `timeline` whose
    /// condition holds changes the records it names (nothing when its lookups answer).
    fn advance(mut self, store: &mut Store, call: &Call<'_>, timeline: &Timeline) {
        for binding in &timeline.bindings {
            if self.bind(store, call, binding).is_some() {
                return;
            }
        }
        let step = timeline.steps.iter().find(|step| {
            step.when
                .as_ref()
                .is_none_or(|condition| self.scope.holds(store, condition))
        });
        let Some(step) = step.filter(|step| !step.effects.is_empty()) else {
            return;
        };
        self.scope.bind("now", json!(store.tick()));
        for effect in &step.effects {
            self.effect(store, call, effect);
        }
    }

    fn target(&self, call: &Call<'_>) -> Outcome<Ancestor> {
        let target = call.target().ok_or_else(not_found)?;
        Ok(Ancestor {
            collection: target.collection.clone(),
            record: self.scope.get("target").cloned().ok_or_else(not_found)?,
        })
    }

    /// Binds one `let` value; `Some` is an answer that ends the request.
    fn bind(
        &mut self,
        store: &Store,
        call: &Call<'_>,
        binding: &Binding,
    ) -> Option<Outcome<Answer>> {
        let skip = binding
            .when
            .as_ref()
            .is_some_and(|c| !self.scope.holds(store, c));
        let value = match (&binding.collection, &binding.value) {
            _ if skip => Value::Null,
            (None, Some(template)) => self.scope.eval(store, template),
            (Some(collection), _) => {
                let value = self.look_up(store, call, collection, binding);
                if value.is_object() {
                    self.origins
                        .insert(binding.name.clone(), collection.clone());
                }
                value
            }
            (None, None) => Value::Null,
        };
        let empty = value.is_null() || value.as_array().is_some_and(Vec::is_empty);
        self.scope.bind(&binding.name, value);
        if skip {
            return None;
        }
        match (&binding.missing, &binding.found) {
            (Some(reply), _) if empty => Some(self.reply(store, reply)),
            (_, Some(reply)) if !empty => Some(self.reply(store, reply)),
            _ => None,
        }
    }

    fn look_up(
        &self,
        store: &Store,
        call: &Call<'_>,
        collection: &str,
        binding: &Binding,
    ) -> Value {
        if let Some(key) = &binding.key {
            let key = self.scope.eval(store, key);
            if key.is_null() {
                return Value::Null;
            }
            return store
                .find(collection, &call.ancestors, &text(&key))
                .unwrap_or(Value::Null);
        }
        let ancestors: &[Ancestor] = if binding.anywhere {
            &[]
        } else {
            &call.ancestors
        };
        let mut found = self.chosen(store, ancestors, collection, &binding.filter);
        if let Some(order) = &binding.order {
            let field = order.trim_start_matches('-');
            found.sort_by(|a, b| super::store::compare(a.get(field), b.get(field)));
            if order.starts_with('-') {
                found.reverse();
            }
        }
        if binding.all {
            Value::Array(found)
        } else {
            found.into_iter().next().unwrap_or(Value::Null)
        }
    }

    fn reply(&self, store: &Store, reply: &Reply) -> Outcome<Answer> {
        let body = if let Some(message) = &reply.message {
            json!({"message": self.scope.eval(store, message)})
        } else if let Some(error) = &reply.error {
            json!({"error": self.scope.eval(store, error)})
        } else {
            public(
                &self
                    .scope
                    .eval(store, reply.body.as_ref().unwrap_or(&Value::Null)),
            )
        };
        let answer = Answer::Json {
            status: reply.status,
            body,
        };
        if reply.status >= 400 {
            Err(Failure {
                status: reply.status,
                body: match answer {
                    Answer::Json { body, .. } => body,
                    _ => Value::Null,
                },
            })
        } else {
            Ok(answer)
        }
    }

    fn effect(&mut self, store: &mut Store, call: &Call<'_>, effect: &Effect) {
        if effect
            .when
            .as_ref()
            .is_some_and(|c| !self.scope.holds(store, c))
        {
            return;
        }
        if let Some(name) = &effect.update {
            let (Some(current), Some(collection)) = (
                self.scope.get(name).cloned(),
                self.origins.get(name).cloned(),
            ) else {
                return;
            };
            let mut record = current.clone();
            self.scope.apply_set(store, &mut record, &effect.set);
            store.replace(&collection, &current, record.clone());
            self.scope.replace(&current, &record);
        }
        if let Some(name) = &effect.delete
            && let (Some(current), Some(collection)) = (
                self.scope.get(name).cloned(),
                self.origins.get(name).cloned(),
            )
        {
            store.remove(&collection, &current);
        }
        for (collection, cloning) in [(&effect.update_all, false), (&effect.clone, true)] {
            let Some(collection) = collection else {
                continue;
            };
            let chosen = self.chosen(store, &call.ancestors, collection, &effect.filter);
            let mut made = Vec::new();
            for current in chosen {
                let mut inner = self.scope.clone();
                inner.bind("item", current.clone());
                if cloning {
                    let mut marked = current.clone();
                    inner.apply_set(store, &mut marked, &effect.mark);
                    store.replace(collection, &current, marked);
                    let mut fresh = current.clone();
                    if let Some(map) = fresh.as_object_mut() {
                        map.remove("id");
                        map.remove("web_url");
                    }
                    inner.apply_set(store, &mut fresh, &effect.set);
                    let now = text(&self.scope.path("now"));
                    store.stamp(collection, &call.ancestors, &mut fresh, &now);
                    made.push(store.insert(collection, &call.ancestors, fresh));
                } else {
                    let mut record = current.clone();
                    inner.apply_set(store, &mut record, &effect.set);
                    store.replace(collection, &current, record);
                }
            }
            if let Some(name) = &effect.bind {
                self.scope.bind(name, Value::Array(made));
            }
        }
        if let Some(collection) = &effect.create {
            let records = effect
                .records
                .as_ref()
                .map(|t| self.scope.eval(store, t))
                .unwrap_or(Value::Null);
            let now = text(&self.scope.path("now"));
            let mut made = Vec::new();
            for mut record in records.as_array().cloned().unwrap_or_default() {
                store.stamp(collection, &call.ancestors, &mut record, &now);
                made.push(store.insert(collection, &call.ancestors, record));
            }
            if let Some(name) = &effect.bind {
                self.scope.bind(name, Value::Array(made));
            }
        }
        if let Some(collection) = &effect.delete_all {
            let chosen = self.chosen(store, &call.ancestors, collection, &effect.filter);
            for record in chosen {
                store.remove(collection, &record);
            }
        }
    }
}

impl Run {
    /// The records of a collection, under `ancestors` (the path's records, or none for the
    /// whole collection), passing `filter`.
    fn chosen(
        &self,
        store: &Store,
        ancestors: &[Ancestor],
        collection: &str,
        filter: &Map<String, Value>,
    ) -> Vec<Value> {
        store
            .scoped(collection, ancestors)
            .into_iter()
            .filter(|r| self.scope.selects(store, r, filter))
            .cloned()
            .collect()
    }
}

fn not_found() -> Failure {
    Failure::new(404, "404 Not found")
}

/// The operation a path's shape implies.
fn default_op(store: &Store, call: &Call<'_>) -> Op {
    let ends_in_param = call.action.path.ends_with('}');
    let known = store.has(&call.collection);
    match (call.action.method, ends_in_param, known) {
        (Method::Get, true, _) => Op::Get,
        (Method::Get, false, true) => Op::List,
        (Method::Get, false, false) => Op::Get,
        (Method::Post, false, true) => Op::Create,
        (Method::Put | Method::Patch, true, _) => Op::Update,
        (Method::Delete, true, _) => Op::Delete,
        _ => Op::Change,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An action whose collection has no records yet is answered with what to add and
    /// where, not with the project its path passes through.
    #[test]
    fn a_collection_without_data_is_named_with_where_its_records_go() {
        let mut store = super::super::seed::store();
        store.forget("projects/repository/tags");
        let get = |segments: &[&str]| Incoming {
            method: Method::Get,
            segments: segments.iter().map(|s| (*s).to_owned()).collect(),
            query: Query { pairs: Vec::new() },
            body: Map::new(),
            token: Some(super::super::TOKEN.to_owned()),
            graphql: false,
        };
        for (segments, path) in [
            (
                &["projects", "101", "repository", "tags"][..],
                "/projects/{project_id}/repository/tags",
            ),
            (
                &["projects", "101", "repository", "tags", "v1.0.0"][..],
                "/projects/{project_id}/repository/tags/{tag_name}",
            ),
        ] {
            let Answer::Json { status, body } = handle(&mut store, &get(segments)) else {
                panic!("a JSON answer");
            };
            let expected = format!(
                "the sandbox has no data for GET {path}: add records of `projects/repository/tags` (with its `spec`) in src/sandbox/seed/records/tags.json or behaviour in src/sandbox/seed/behaviour/tag.json (see src/sandbox/seed/README.md)"
            );
            assert_eq!((status, &body["message"]), (501, &json!(expected)));
            // What the model reads: the sandbox's words, and no advice to retry.
            let bytes = serde_json::to_vec(&body).unwrap();
            let error =
                crate::gitlab::GitlabError::from_status(status, &bytes, None).for_write(true);
            assert_eq!(
                error.explain(),
                format!(
                    "GitLab does not serve this (501). GitLab said: \"{expected}\". Nothing was changed."
                )
            );
            assert!(!error.fate_unknown());
        }
        // With its data, the same request is served.
        let mut store = super::super::seed::store();
        assert!(matches!(
            handle(&mut store, &get(&["projects", "101", "repository", "tags"])),
            Answer::Page(_)
        ));
    }
}

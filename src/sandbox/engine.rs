//! Answers one sandbox request: auth, route, the records the path names, then either a
//! hand-written route or the generic behaviour the path's shape implies.
//!
//! Routes are the catalog's own method and path templates, so a new ordinary action is
//! served as soon as its collection has a spec and seed records: a template that ends in
//! a parameter reads (GET), updates (PUT) or deletes (DELETE) that record; one that ends in
//! a literal lists (GET) or creates in (POST) that collection.

use serde_json::{Map, Value, json};

use super::routes;
use super::store::{Ancestor, Failure, Outcome, Page, Query, Store, public};
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
}

/// What the sandbox answers.
#[derive(Debug)]
pub enum Answer {
    Json { status: u16, body: Value },
    Page(Page),
    Text(Vec<u8>),
    Empty(u16),
}

impl Answer {
    pub fn ok(body: Value) -> Self {
        Self::Json {
            status: 200,
            body: public(&body),
        }
    }

    pub fn created(body: Value) -> Self {
        Self::Json {
            status: 201,
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

    /// A copy of that record, or GitLab's 404 with `not_found` as its message.
    pub fn target_record(&self, not_found: &str) -> Outcome<Value> {
        self.target()
            .map(|a| a.record.clone())
            .ok_or_else(|| Failure::new(404, not_found.to_owned()))
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
    let (action, params) = route(incoming).ok_or_else(|| Failure {
        status: 404,
        body: json!({"error": "404 Not Found"}),
    })?;
    let (collection, ancestors) = walk(store, action, &params, &user)?;
    let call = Call {
        action,
        user,
        ancestors,
        collection,
        query: &incoming.query,
        body: &incoming.body,
    };
    if let Some(answer) = routes::custom(store, &call) {
        return answer;
    }
    generic(store, &call)
}

/// The catalog action whose method and path template match, preferring literal segments
/// (`pipelines/latest` over `pipelines/{pipeline_id}`).
fn route(incoming: &Incoming) -> Option<(&'static Action, Map<String, Value>)> {
    let mut best: Option<(usize, &'static Action, Map<String, Value>)> = None;
    for action in ACTIONS.iter().filter(|a| a.method == incoming.method) {
        let template: Vec<&str> = action.path.trim_start_matches('/').split('/').collect();
        if template.len() != incoming.segments.len() {
            continue;
        }
        let mut params = Map::new();
        let mut literals = 0;
        let matched = template
            .iter()
            .zip(&incoming.segments)
            .all(|(part, segment)| {
                match part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                    Some(name) => {
                        params.insert(name.to_owned(), Value::String(segment.clone()));
                        true
                    }
                    None => {
                        literals += 1;
                        part == segment
                    }
                }
            });
        if matched && best.as_ref().is_none_or(|(count, ..)| literals > *count) {
            best = Some((literals, action, params));
        }
    }
    best.map(|(_, action, params)| (action, params))
}

/// Resolves every path parameter to its record, outermost first, and names the path's
/// collection. A missing or invisible record answers 404 as GitLab does.
fn walk(
    store: &Store,
    action: &Action,
    params: &Map<String, Value>,
    user: &Value,
) -> Outcome<(String, Vec<Ancestor>)> {
    let mut literals: Vec<&str> = Vec::new();
    let mut ancestors = Vec::new();
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
        let record = routes::find(store, &collection, &ancestors, value)
            .ok_or_else(|| Failure::new(404, store.spec(&collection).not_found))?;
        if collection == "projects" && !store.visible_project(&record, user) {
            return Err(Failure::new(404, store.spec(&collection).not_found));
        }
        ancestors.push(Ancestor { collection, record });
    }
    Ok((literals.join("/"), ancestors))
}

fn generic(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let ends_in_param = call.action.path.ends_with('}');
    match (call.action.method, ends_in_param) {
        (Method::Get, true) => Ok(Answer::ok(
            call.target()
                .map(|a| a.record.clone())
                .unwrap_or(Value::Null),
        )),
        (Method::Get, false) => Ok(Answer::Page(store.list(
            &call.collection,
            &call.ancestors,
            call.query,
            &call.user,
        ))),
        (Method::Post, false) => {
            let created = store.create(&call.collection, &call.ancestors, call.body, &call.user)?;
            Ok(Answer::created(created))
        }
        (Method::Put | Method::Patch, true) => {
            let target = call
                .target()
                .ok_or_else(|| Failure::new(404, "404 Not found"))?;
            Ok(Answer::ok(store.update(
                &target.collection,
                &target.record,
                call.body,
                &call.user,
            )))
        }
        (Method::Delete, true) => {
            let target = call
                .target()
                .ok_or_else(|| Failure::new(404, "404 Not found"))?;
            store.remove(&target.collection, &target.record);
            Ok(Answer::Empty(204))
        }
        _ => Err(Failure::new(405, "405 Method Not Allowed")),
    }
}

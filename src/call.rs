//! What one call runs with, shared by the dispatcher and the handlers: the `Context`
//! (GitLab client, the call's deadline, the result budget), `ActionError` (why a run
//! failed), and the fitting of GitLab's answer to the action's result shape (`decode`,
//! `read_list` for a REST list read item by item, and for GraphQL `graphql_result` and
//! `graphql_decode`).
//!
//! It sits below both: `dispatch` runs a handler it finds in `handlers`, and a handler
//! needs only this module, so neither imports the other's internals.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::catalog::{self, Action, Args, ResultShape, Unreadable};
use crate::gitlab::{
    BodyStream, ErrorKind, GitlabClient, GitlabError, ListBody, Request, Response,
};
use crate::output::{budget, json};

/// What a runner needs to talk to GitLab: the client, and the deadline of this call.
#[derive(Clone)]
pub struct Context {
    gitlab: GitlabClient,
    /// Set per call by the dispatcher; every request of the call shares it.
    deadline: Option<Instant>,
    result_budget: usize,
    /// Where a long call says how far it is, when the caller asked to be told.
    progress: Option<Arc<dyn Progress>>,
}

/// Where a long call (a wait) reports how far it is: MCP `notifications/progress` for
/// a request that carried a progress token.
pub trait Progress: Send + Sync {
    /// `progress` grows with every report; `total` is where it would end, when known.
    fn report(
        &self,
        progress: f64,
        total: Option<f64>,
        message: String,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

impl Context {
    pub fn new(gitlab: GitlabClient) -> Self {
        Self {
            gitlab,
            deadline: None,
            result_budget: budget::DEFAULT_RESULT_BYTES,
            progress: None,
        }
    }

    /// The same context, reporting a long call's progress to `progress`.
    pub fn with_progress(mut self, progress: Arc<dyn Progress>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Tells the caller how far a long call is, if they asked to be told.
    pub async fn report(&self, progress: f64, total: Option<f64>, message: String) {
        if let Some(sink) = &self.progress {
            sink.report(progress, total, message).await;
        }
    }

    /// The most bytes one tool result may take (`GITLAB_MCP_MAX_RESULT_BYTES`).
    pub fn with_result_budget(mut self, bytes: usize) -> Self {
        self.result_budget = bytes;
        self
    }

    pub fn result_budget(&self) -> usize {
        self.result_budget
    }

    /// A copy for one call, whose requests all end by one deadline.
    pub(crate) fn for_call(&self) -> Self {
        Self {
            deadline: Some(self.gitlab.deadline_from_now()),
            ..self.clone()
        }
    }

    pub fn deadline(&self) -> Instant {
        self.deadline
            .unwrap_or_else(|| self.gitlab.deadline_from_now())
    }

    pub async fn send(&self, request: Request) -> Result<Response, GitlabError> {
        self.gitlab.send_by(request, self.deadline()).await
    }

    /// Sends a read and streams its body (raw files, logs), with extra headers such as
    /// `Range`.
    pub async fn open(
        &self,
        request: Request,
        headers: &[(&str, String)],
    ) -> Result<BodyStream, GitlabError> {
        self.gitlab.open_by(request, self.deadline(), headers).await
    }

    pub fn gitlab(&self) -> &GitlabClient {
        &self.gitlab
    }
}

/// Why a runner failed.
#[derive(Debug)]
pub enum ActionError {
    /// The arguments do not fit the action (caught by a handler).
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

/// An answer that does not fit the type the action declares.
fn misfit(misfit: catalog::Misfit) -> GitlabError {
    GitlabError::new(
        ErrorKind::BadResponse,
        format!("a field is missing or has the wrong type ({misfit})"),
    )
}

/// GitLab's answer fitted to one entity, with what could not be read noted in it.
fn conformed_single(value: Value, entity: &'static catalog::Entity) -> Result<Value, GitlabError> {
    let mut unreadable = Unreadable::default();
    let mut value = catalog::conform(value, entity, &mut unreadable).map_err(misfit)?;
    if let Value::Object(structured) = &mut value {
        unreadable.record(structured);
    }
    Ok(value)
}

/// GitLab's items, each fitted to the entity, as the list under the action's key; an item
/// without a field it cannot do without is left out and noted.
fn conformed_list(items: Value, entity: &'static catalog::Entity, key: &str) -> Map<String, Value> {
    let mut unreadable = Unreadable::default();
    let items = catalog::conform_items(items, entity, &mut unreadable);
    let mut structured = Map::new();
    structured.insert(key.to_owned(), Value::Array(items));
    unreadable.record(&mut structured);
    structured
}

/// A REST list read item by item: each item is fitted to the entity as it arrives, and
/// the read stops once a page's worth of items is kept and they pass the result budget,
/// since no answer can hold more (a GitLab that ignores `per_page` may send megabytes);
/// the body cap bounds the whole read. Stopping early means more items follow:
/// `has_more`.
pub async fn read_list(
    context: &Context,
    request: &Request,
    entity: &'static catalog::Entity,
    key: &str,
    paginated: bool,
) -> Result<Value, ActionError> {
    let stream = context.open(request.clone(), &[]).await?;
    let (status, mut pagination) = (stream.status, stream.pagination.clone());
    // A page is read whole (its long texts are shortened to a share each later); past
    // it, as for a GitLab that does not page, only what one answer can hold.
    let page = usize::try_from(pagination.per_page).unwrap_or(0);
    let cap = context.gitlab().settings().max_body_bytes;
    let budget = context.result_budget().max(budget::MIN_RESULT_BYTES);
    let mut unreadable = Unreadable::default();
    let mut items = Vec::new();
    let mut kept = 0;
    let read = stream
        .read_list(cap, &declared(entity), |item| {
            if let Some(item) = catalog::conform_item(item, entity, &mut unreadable) {
                kept += json::to_text(&item).len();
                items.push(item);
            }
            kept <= budget || items.len() < page
        })
        .await?;
    match read {
        ListBody::Complete => {}
        ListBody::Stopped => pagination.has_more = true,
        ListBody::Other(body) => {
            let value = Response {
                status,
                pagination: pagination.clone(),
                body,
            }
            .value()?;
            items = catalog::conform_items(value, entity, &mut unreadable);
        }
    }
    let mut structured = Map::new();
    structured.insert(key.to_owned(), Value::Array(items));
    if paginated {
        let pagination = serde_json::to_value(pagination).unwrap_or_default();
        structured.insert("pagination".into(), pagination);
    }
    unreadable.record(&mut structured);
    Ok(Value::Object(structured))
}

/// Whether an answer's field is one `entity` declares: `conform` reads no other, so the
/// others are not even built.
fn declared(entity: &catalog::Entity) -> impl Fn(&str) -> bool + Sync + '_ {
    |key| entity.fields.iter().any(|field| field.name == key)
}

/// The structure of a GitLab answer, fitted to the action's result shape.
pub fn decode(action: &Action, args: &Args, response: &Response) -> Result<Value, GitlabError> {
    match action.result {
        // GitLab answers `null` for a singleton that is not set (a project's push rules):
        // not found, like a 404.
        ResultShape::Single { entity } => match response.value_keeping(&declared(entity))? {
            Value::Null => Err(GitlabError::new(
                ErrorKind::NotFound,
                "GitLab answered null",
            )),
            value => conformed_single(value, entity),
        },
        ResultShape::List {
            entity,
            key,
            paginated,
            from_map,
        } => {
            let items = match from_map {
                Some((key_field, value_field)) => response.map_entries(key_field, value_field),
                None => response.list(),
            }?;
            let mut structured = conformed_list(Value::Array(items), entity, key);
            if paginated {
                let pagination = serde_json::to_value(response.pagination()).unwrap_or_default();
                structured.insert("pagination".into(), pagination);
            }
            Ok(Value::Object(structured))
        }
        ResultShape::Message { text } => {
            Ok(serde_json::json!({"message": catalog::fill(text, args)}))
        }
    }
}

/// Sends a GraphQL action's request and returns what its answer holds at the action's
/// `result` path (`None`: GitLab answered `null` there). GraphQL's `errors` are failures
/// here, never results (`gitlab::graphql`).
pub async fn graphql_result(
    context: &Context,
    action: &Action,
    request: &Request,
) -> Result<Option<Value>, ActionError> {
    let result = action.graphql.map_or("", |graphql| graphql.result);
    let response = context.send(request.clone()).await?;
    Ok(crate::gitlab::graphql::result(&response, result)?)
}

/// A GraphQL result fitted to the action's result shape: one entity (`null` is not
/// found), or a connection's `nodes` with the page its `pageInfo` and `count` describe.
pub fn graphql_decode(
    action: &Action,
    args: &Args,
    request: &Request,
    result: Option<Value>,
) -> Result<Value, ActionError> {
    match action.result {
        ResultShape::Single { entity } => {
            let Some(value) = result else {
                return Err(ActionError::Gitlab(GitlabError::new(
                    ErrorKind::NotFound,
                    "GitLab answered null",
                )));
            };
            Ok(conformed_single(value, entity)?)
        }
        ResultShape::List {
            entity,
            key,
            paginated,
            ..
        } => {
            let connection = result.unwrap_or_else(|| Value::Object(Map::new()));
            let nodes = connection.get("nodes").cloned().unwrap_or_default();
            let mut structured = conformed_list(nodes, entity, key);
            if paginated {
                let info = connection.get("pageInfo");
                let next_cursor = info
                    .filter(|info| info.get("hasNextPage") == Some(&Value::Bool(true)))
                    .and_then(|info| info.get("endCursor"))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let pagination = crate::gitlab::Pagination {
                    page: None,
                    per_page: request
                        .variable("first")
                        .and_then(Value::as_i64)
                        .unwrap_or(20),
                    total_items: connection.get("count").and_then(Value::as_i64),
                    total_pages: None,
                    next_page: None,
                    has_more: next_cursor.is_some(),
                    next_cursor,
                };
                let pagination = serde_json::to_value(pagination).unwrap_or_default();
                structured.insert("pagination".into(), pagination);
            }
            Ok(Value::Object(structured))
        }
        ResultShape::Message { text } => {
            Ok(serde_json::json!({"message": catalog::fill(text, args)}))
        }
    }
}

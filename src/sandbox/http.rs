//! The sandbox's HTTP side: GitLab's REST v4 under `/api/v4` and GraphQL at `/api/graphql`,
//! the description of an OAuth token (`/oauth/token/info`), sign-in with OAuth (`oauth`), plus a few `/-/sandbox/`
//! endpoints for tests (the request log, fault switches).
//!
//! Paths are split on `/` before each segment is percent-decoded, exactly as GitLab reads
//! an encoded `group%2Fproject`. Every API request is logged with its raw path and query
//! (the latest `LOG_CAPACITY`), so tests can assert what reached "GitLab".

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use percent_encoding::percent_decode_str;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::engine::{self, Answer, Incoming};
use super::store::{Page, Query, Store};
use crate::gitlab::Method;

/// One request as it reached the sandbox.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Logged {
    pub method: String,
    /// The raw path, still percent-encoded, as sent.
    pub path: String,
    /// The raw query string, empty when there is none.
    pub query: String,
    /// The username the token belongs to, if any.
    pub user: Option<String>,
    pub status: u16,
}

/// Failures to inject, set by environment or by `POST /-/sandbox/faults`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Faults {
    /// Delay before every answer.
    pub latency_ms: u64,
    /// Every Nth API request answers 429 with `Retry-After: 1`.
    pub rate_limit_every: u64,
    /// Every Nth API request answers 500.
    pub error_every: u64,
    /// Every Nth API request has its connection dropped mid-answer.
    pub drop_every: u64,
    /// The next API requests answer with these, in order: a status code or `"drop"`.
    pub next: Vec<Value>,
}

impl Faults {
    /// Reads `latency_ms=20,rate_limit_every=5,error_every=7,drop_every=11`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut faults = Self::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("expected key=value, got `{part}`"))?;
            let value: u64 = value
                .trim_end_matches("ms")
                .parse()
                .map_err(|_| format!("`{key}` takes a number"))?;
            match key {
                "latency_ms" | "latency" => faults.latency_ms = value,
                "rate_limit_every" => faults.rate_limit_every = value,
                "error_every" => faults.error_every = value,
                "drop_every" => faults.drop_every = value,
                other => return Err(format!("unknown fault `{other}`")),
            }
        }
        Ok(faults)
    }
}

/// The request log keeps the most recent requests only, so a long-running sandbox (a demo,
/// a benchmark) does not grow without bound.
pub const LOG_CAPACITY: usize = 10_000;

pub struct Shared {
    pub(super) store: Mutex<Store>,
    log: Mutex<VecDeque<Logged>>,
    faults: Mutex<Faults>,
    counter: Mutex<u64>,
    oauth: Mutex<super::oauth::Grants>,
}

impl Shared {
    pub fn new(store: Store, faults: Faults) -> Self {
        Self {
            store: Mutex::new(store),
            log: Mutex::new(VecDeque::new()),
            faults: Mutex::new(faults),
            counter: Mutex::new(0),
            oauth: Mutex::new(super::oauth::Grants::default()),
        }
    }

    /// The OAuth codes and refresh tokens the sandbox issued and that are still unused.
    pub(super) fn oauth_grants<R>(
        &self,
        use_them: impl FnOnce(&mut super::oauth::Grants) -> R,
    ) -> R {
        use_them(&mut lock(&self.oauth))
    }

    pub fn edit_store(&self, edit: impl FnOnce(&mut Store)) {
        edit(&mut lock(&self.store));
    }

    /// The logged requests, oldest first (at most `LOG_CAPACITY`).
    pub fn requests(&self) -> Vec<Logged> {
        lock(&self.log).iter().cloned().collect()
    }

    pub(super) fn log(&self, entry: Logged) {
        let mut log = lock(&self.log);
        if log.len() == LOG_CAPACITY {
            log.pop_front();
        }
        log.push_back(entry);
    }
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/-/sandbox/requests", get(requests).delete(clear_requests))
        .route("/-/sandbox/faults", post(set_faults))
        .route("/-/sandbox/health", get(|| async { "ok" }))
        .route("/oauth/token/info", get(oauth_token_info))
        .route(
            "/.well-known/oauth-authorization-server",
            get(super::oauth::metadata),
        )
        .route("/oauth/authorize", get(super::oauth::authorize))
        .route("/oauth/token", post(super::oauth::token))
        .fallback(api)
        .with_state(shared)
}

async fn requests(State(shared): State<Arc<Shared>>) -> Response {
    json_response(
        200,
        &serde_json::to_value(shared.requests()).unwrap_or_default(),
    )
}

async fn clear_requests(State(shared): State<Arc<Shared>>) -> StatusCode {
    lock(&shared.log).clear();
    StatusCode::NO_CONTENT
}

async fn set_faults(State(shared): State<Arc<Shared>>, body: axum::body::Bytes) -> Response {
    match serde_json::from_slice::<Faults>(&body) {
        Ok(faults) => {
            *lock(&shared.faults) = faults;
            StatusCode::NO_CONTENT.into_response()
        }
        Err(error) => json_response(400, &json!({"error": error.to_string()})),
    }
}

/// GitLab's description of an OAuth token (`GET /oauth/token/info`, beside the API): a
/// seed user's `_oauth_tokens` entry for the Bearer token (its application's client id
/// and lifetime; its scopes are the token's `_token_scopes`), else GitLab's 401 for a
/// token it does not know. Logged like an API request.
async fn oauth_token_info(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    let described = {
        let store = lock(&shared.store);
        store.user_by_token(token).and_then(|user| {
            let entry = user.get("_oauth_tokens")?.get(token)?;
            let scopes = super::instance::scopes(&user, token);
            Some((
                user["username"].as_str().map(str::to_owned),
                json!({
                    "resource_owner_id": user["id"],
                    "scope": scopes,
                    "scopes": scopes,
                    "expires_in": entry["expires_in"],
                    "expires_in_seconds": entry["expires_in"],
                    "application": {"uid": entry["application"]},
                    "created_at": 1_748_860_000,
                }),
            ))
        })
    };
    let (user, response) = match described {
        Some((user, info)) => (user, json_response(200, &info)),
        None => (
            None,
            json_response(
                401,
                &json!({"error": "invalid_token", "error_description": "The access token is invalid", "state": "unauthorized"}),
            ),
        ),
    };
    shared.log(Logged {
        method: "GET".into(),
        path: "/oauth/token/info".into(),
        query: String::new(),
        user,
        status: response.status().as_u16(),
    });
    response
}

/// What the fault switches say about the request about to be answered.
enum Fault {
    Status(u16),
    Drop,
}

fn next_fault(shared: &Shared) -> (Option<Fault>, u64) {
    let mut faults = lock(&shared.faults);
    let mut counter = lock(&shared.counter);
    *counter += 1;
    let n = *counter;
    let latency = faults.latency_ms;
    if !faults.next.is_empty() {
        let next = faults.next.remove(0);
        let fault = match next.as_u64() {
            Some(status) => Fault::Status(status as u16),
            None => Fault::Drop,
        };
        return (Some(fault), latency);
    }
    let every = |period: u64| period > 0 && n.is_multiple_of(period);
    let fault = if every(faults.drop_every) {
        Some(Fault::Drop)
    } else if every(faults.rate_limit_every) {
        Some(Fault::Status(429))
    } else if every(faults.error_every) {
        Some(Fault::Status(500))
    } else {
        None
    };
    (fault, latency)
}

async fn api(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let raw_path = parts.uri.path().to_owned();
    let raw_query = parts.uri.query().unwrap_or_default().to_owned();
    let method = match parts.method.as_str() {
        "GET" | "HEAD" => Method::Get,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "PATCH" => Method::Patch,
        "DELETE" => Method::Delete,
        _ => return json_response(405, &json!({"message": "405 Method Not Allowed"})),
    };
    let token = token(&parts.headers);
    let bytes = to_bytes(body, 16 * 1024 * 1024).await.unwrap_or_default();

    let (fault, latency) = next_fault(&shared);
    if latency > 0 {
        tokio::time::sleep(Duration::from_millis(latency)).await;
    }

    let user = token
        .as_deref()
        .and_then(|t| lock(&shared.store).user_by_token(t))
        .and_then(|u| u["username"].as_str().map(str::to_owned));
    let response = match fault {
        Some(Fault::Drop) => dropped(),
        Some(Fault::Status(429)) => {
            let mut response = json_response(429, &json!({"message": "Retry later"}));
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            response
        }
        Some(Fault::Status(status)) => json_response(
            status,
            &json!({"message": format!("{status} Internal Server Error")}),
        ),
        None => match graphql_or_rest(&raw_path) {
            Some((graphql, rest)) => {
                let incoming = Incoming {
                    method,
                    segments: rest.split('/').map(decode).collect(),
                    query: parse_query(&raw_query),
                    body: parse_body(&bytes, &parts.headers, &raw_query, method),
                    token,
                    graphql,
                };
                let answer = engine::handle(&mut lock(&shared.store), &incoming);
                respond(answer, &parts.headers, &raw_path, &raw_query)
            }
            None => json_response(404, &json!({"error": "404 Not Found"})),
        },
    };
    shared.log(Logged {
        method: parts.method.to_string(),
        path: raw_path,
        query: raw_query,
        user,
        status: response.status().as_u16(),
    });
    response
}

/// Whether the path is GraphQL's (`/api/graphql`) and the rest of the path: for REST,
/// after `/api/v4/`; GraphQL's one endpoint is the catalog's `/graphql`.
fn graphql_or_rest(raw_path: &str) -> Option<(bool, &str)> {
    if raw_path == "/api/graphql" {
        return Some((true, "graphql"));
    }
    raw_path.strip_prefix("/api/v4/").map(|rest| (false, rest))
}

fn token(headers: &HeaderMap) -> Option<String> {
    if let Some(value) = headers.get("private-token").and_then(|v| v.to_str().ok()) {
        return Some(value.to_owned());
    }
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned)
}

fn decode(segment: &str) -> String {
    percent_decode_str(segment).decode_utf8_lossy().into_owned()
}

fn decode_form(text: &str) -> String {
    decode(&text.replace('+', " "))
}

pub(super) fn parse_query(raw: &str) -> Query {
    let pairs = raw
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode_form(key), decode_form(value))
        })
        .collect();
    Query { pairs }
}

/// A JSON, form or multipart body; for writes without a body, GitLab also reads the query string.
fn parse_body(
    bytes: &[u8],
    headers: &HeaderMap,
    raw_query: &str,
    method: Method,
) -> Map<String, Value> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !bytes.is_empty() {
        if content_type.starts_with("multipart/form-data")
            && let Some(fields) = super::multipart::parse(content_type, bytes)
        {
            return fields;
        }
        if content_type.starts_with("application/x-www-form-urlencoded") {
            let text = String::from_utf8_lossy(bytes);
            return parse_query(&text)
                .pairs
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect();
        }
        if let Ok(Value::Object(map)) = serde_json::from_slice(bytes) {
            return map;
        }
    }
    if method != Method::Get {
        return parse_query(raw_query)
            .pairs
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
    }
    Map::new()
}

pub(super) fn json_response(status: u16, body: &Value) -> Response {
    let mut response = Response::new(Body::from(serde_json::to_vec(body).unwrap_or_default()));
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A response that promises more bytes than it sends, so the connection ends mid-answer.
fn dropped() -> Response {
    let mut response = Response::new(Body::from("{\"mess"));
    response
        .headers_mut()
        .insert(header::CONTENT_LENGTH, HeaderValue::from_static("4096"));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn respond(answer: Answer, headers: &HeaderMap, raw_path: &str, raw_query: &str) -> Response {
    match answer {
        Answer::Json { status, body } => json_response(status, &body),
        Answer::Empty(status) => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::NO_CONTENT);
            response
        }
        Answer::Text(bytes)
            if raw_path.ends_with("/raw") && headers.contains_key(header::RANGE) =>
        {
            byte_range(
                bytes,
                headers.get(header::RANGE),
                "text/plain; charset=utf-8",
            )
        }
        Answer::Bytes {
            bytes,
            content_type,
        } => match headers.get(header::RANGE) {
            Some(range) => byte_range(bytes, Some(range), content_type),
            None => {
                let mut response = Response::new(Body::from(bytes));
                response
                    .headers_mut()
                    .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
                response
            }
        },
        Answer::Text(bytes) => {
            let mut response = Response::new(Body::from(bytes));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            response
        }
        Answer::Page(page) => {
            let mut response = json_response(200, &Value::Array(page.items.clone()));
            let host = headers
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("localhost");
            for (name, value) in pagination_headers(&page, host, raw_path, raw_query) {
                if let Ok(value) = HeaderValue::from_str(&value) {
                    response.headers_mut().insert(name, value);
                }
            }
            response
        }
    }
}

/// A `Range: bytes=a-b` (or `bytes=-n`, the last n bytes) answer for raw files and
/// downloads (206 with `Content-Range`, or 416), as a server that honours ranges gives it.
/// Job logs ignore `Range`, as GitLab's do.
fn byte_range(bytes: Vec<u8>, range: Option<&HeaderValue>, content_type: &'static str) -> Response {
    let spec = range
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("bytes="))
        .and_then(|v| v.split_once('-'));
    let len = bytes.len();
    let (start, end) = match spec {
        Some(("", last)) => {
            let last = last.trim().parse::<usize>().unwrap_or(0);
            (len.saturating_sub(last), usize::MAX)
        }
        Some((start, end)) => (
            start.trim().parse::<usize>().unwrap_or(0),
            end.trim().parse::<usize>().unwrap_or(usize::MAX),
        ),
        None => (0, usize::MAX),
    };
    if start >= len {
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::RANGE_NOT_SATISFIABLE;
        return response;
    }
    let end = end.min(len - 1);
    let mut response = Response::new(Body::from(bytes[start..=end].to_vec()));
    *response.status_mut() = StatusCode::PARTIAL_CONTENT;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(value) = HeaderValue::from_str(&format!("bytes {start}-{end}/{len}")) {
        headers.insert(header::CONTENT_RANGE, value);
    }
    response
}

/// `X-Page`, `X-Per-Page`, `X-Total`, `X-Total-Pages`, `X-Next-Page`, `X-Prev-Page`, `Link`.
fn pagination_headers(
    page: &Page,
    host: &str,
    raw_path: &str,
    raw_query: &str,
) -> Vec<(&'static str, String)> {
    let pages = page.total.div_ceil(page.per_page).max(1);
    let next = (page.page < pages).then_some(page.page + 1);
    let prev = (page.page > 1).then(|| page.page - 1);
    let link_to = |target: usize| {
        let mut pairs: Vec<String> = raw_query
            .split('&')
            .filter(|p| !p.is_empty() && !p.starts_with("page=") && !p.starts_with("per_page="))
            .map(str::to_owned)
            .collect();
        pairs.push(format!("page={target}"));
        pairs.push(format!("per_page={}", page.per_page));
        format!("<http://{host}{raw_path}?{}>", pairs.join("&"))
    };
    let mut links = Vec::new();
    if let Some(prev) = prev {
        links.push(format!("{}; rel=\"prev\"", link_to(prev)));
    }
    if let Some(next) = next {
        links.push(format!("{}; rel=\"next\"", link_to(next)));
    }
    links.push(format!("{}; rel=\"first\"", link_to(1)));
    links.push(format!("{}; rel=\"last\"", link_to(pages)));
    vec![
        ("x-page", page.page.to_string()),
        ("x-per-page", page.per_page.to_string()),
        ("x-total", page.total.to_string()),
        ("x-total-pages", pages.to_string()),
        (
            "x-next-page",
            next.map(|n| n.to_string()).unwrap_or_default(),
        ),
        (
            "x-prev-page",
            prev.map(|n| n.to_string()).unwrap_or_default(),
        ),
        ("link", links.join(", ")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_log_keeps_the_latest_requests() {
        let shared = Shared::new(crate::sandbox::seed::store(), Faults::default());
        for n in 0..LOG_CAPACITY + 5 {
            shared.log(Logged {
                method: "GET".into(),
                path: format!("/api/v4/projects/{n}"),
                query: String::new(),
                user: None,
                status: 200,
            });
        }
        let requests = shared.requests();
        assert_eq!(requests.len(), LOG_CAPACITY);
        assert_eq!(requests[0].path, "/api/v4/projects/5");
    }
}

//! The GitLab HTTP client: auth, retries, pagination headers and error mapping.
//!
//! It sends `Request`s built by generated code to `<GITLAB_URL>/api/v4` with the
//! `PRIVATE-TOKEN` header. The token lives only in `Token`, whose `Debug` is redacted; it is
//! never logged or put in an error. Idempotent requests are retried on 429 and 502–504.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::{ErrorKind, GitlabError};
use super::pagination::Pagination;
use super::request::{Method, Request};

/// A GitLab access token. Its `Debug` and `Display` never show the value.
#[derive(Clone)]
pub struct Token(Arc<str>);

impl Token {
    pub fn new(value: impl Into<Arc<str>>) -> Self {
        Self(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(***)")
    }
}

#[derive(Clone)]
pub struct GitlabClient {
    inner: Arc<Inner>,
}

struct Inner {
    /// `https://gitlab.example.com/api/v4`, without a trailing slash.
    api: String,
    token: Option<Token>,
    /// Built on first use, so starting the server costs no TLS setup.
    http: OnceLock<Result<reqwest::Client, String>>,
    max_retries: u32,
}

const USER_AGENT: &str = concat!("gitlab-mcp/", env!("CARGO_PKG_VERSION"));
/// The longest `Retry-After` we wait out ourselves; longer waits go back to the caller.
const MAX_RETRY_WAIT: u64 = 10;

impl GitlabClient {
    pub fn new(base_url: &str, token: Option<Token>) -> Self {
        let base = base_url.trim_end_matches('/');
        let api = if base.ends_with("/api/v4") {
            base.to_owned()
        } else {
            format!("{base}/api/v4")
        };
        Self {
            inner: Arc::new(Inner {
                api,
                token,
                http: OnceLock::new(),
                max_retries: 2,
            }),
        }
    }

    /// The API root this client talks to.
    pub fn api_url(&self) -> &str {
        &self.inner.api
    }

    pub fn token(&self) -> Option<&Token> {
        self.inner.token.as_ref()
    }

    fn http(&self) -> Result<&reqwest::Client, GitlabError> {
        self.inner
            .http
            .get_or_init(|| {
                crate::tls::install_crypto_provider();
                reqwest::Client::builder()
                    .user_agent(USER_AGENT)
                    .connect_timeout(Duration::from_secs(10))
                    .timeout(Duration::from_secs(60))
                    .build()
                    .map_err(|error| format!("cannot set up HTTPS: {error}"))
            })
            .as_ref()
            .map_err(|error| GitlabError::new(ErrorKind::Network, error.clone()))
    }

    /// Sends a request; retries idempotent ones on transient failures.
    pub async fn send(&self, request: Request) -> Result<Response, GitlabError> {
        let target = request.target().map_err(|unsafe_path| {
            GitlabError::new(ErrorKind::UnsafePath, format!("{:?}", unsafe_path.value))
        })?;
        let url = format!("{}{target}", self.inner.api);
        let mut attempt = 0;
        loop {
            let result = self.attempt(&request, &url).await;
            match result {
                Err(error)
                    if request.method.is_idempotent()
                        && error.is_transient()
                        && attempt < self.inner.max_retries =>
                {
                    let wait = match error.retry_after {
                        Some(seconds) if seconds > MAX_RETRY_WAIT => return Err(error),
                        Some(seconds) => Duration::from_secs(seconds),
                        None => Duration::from_millis(200 * 4_u64.pow(attempt)),
                    };
                    tracing::debug!(method = %request.method, %target, ?wait, "retrying after a transient failure");
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    async fn attempt(&self, request: &Request, url: &str) -> Result<Response, GitlabError> {
        let http = self.http()?;
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
            Method::Delete => reqwest::Method::DELETE,
        };
        let mut builder = http.request(method, url);
        if let Some(token) = &self.inner.token {
            builder = builder.header("PRIVATE-TOKEN", token.expose());
        }
        if let Some(body) = request.json_body() {
            let bytes = serde_json::to_vec(body).unwrap_or_default();
            builder = builder
                .header("content-type", "application/json")
                .body(bytes);
        }
        tracing::debug!(method = %request.method, url = %url, "GitLab request");
        let response = builder.send().await.map_err(network_error)?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.bytes().await.map_err(network_error)?.to_vec();
        if status >= 400 {
            let retry_after = header(&headers, "retry-after").and_then(|v| v.parse().ok());
            return Err(GitlabError::from_status(status, &body, retry_after));
        }
        Ok(Response {
            status,
            pagination: Pagination::from_headers(|name| header(&headers, name)),
            body,
        })
    }
}

fn header<'h>(headers: &'h reqwest::header::HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// Describes a transport failure without the URL (which is the user's GitLab, not a secret,
/// but is noise in a model's context) and without any header.
fn network_error(error: reqwest::Error) -> GitlabError {
    let what = if error.is_timeout() {
        "the request timed out"
    } else if error.is_connect() {
        "the connection failed"
    } else if error.is_body() || error.is_decode() {
        "the response was cut off"
    } else {
        "the request failed"
    };
    GitlabError::new(ErrorKind::Network, what)
}

/// A successful GitLab answer.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub pagination: Pagination,
    pub body: Vec<u8>,
}

impl Response {
    /// The body as JSON with `null`s and empty values removed, so that typed results never
    /// carry placeholders.
    pub fn value(&self) -> Result<Value, GitlabError> {
        let mut value: Value = serde_json::from_slice(&self.body).map_err(|error| {
            GitlabError::new(ErrorKind::BadResponse, format!("not JSON ({error})"))
        })?;
        prune(&mut value);
        Ok(value)
    }

    pub fn json<T: DeserializeOwned>(&self) -> Result<T, GitlabError> {
        from_value(self.value()?)
    }

    /// A list response: GitLab answers with a JSON array.
    pub fn list(&self) -> Result<Vec<Value>, GitlabError> {
        match self.value()? {
            Value::Array(items) => Ok(items),
            Value::Null => Ok(Vec::new()),
            _ => Err(GitlabError::new(ErrorKind::BadResponse, "expected a list")),
        }
    }

    /// A list response decoded into `T`s.
    pub fn items<T: DeserializeOwned>(&self) -> Result<Vec<T>, GitlabError> {
        self.list()?.into_iter().map(from_value).collect()
    }

    /// A JSON object read as a list of `{key_field: key, value_field: value}` items, as for
    /// `{"Ruby": 66.7, "Go": 33.3}`; numeric values sort largest first, as GitLab shows them.
    pub fn map_entries(
        &self,
        key_field: &str,
        value_field: &str,
    ) -> Result<Vec<Value>, GitlabError> {
        match self.value()? {
            Value::Object(entries) => {
                let mut entries: Vec<(String, Value)> = entries.into_iter().collect();
                entries.sort_by(|a, b| {
                    let (x, y) = (
                        a.1.as_f64().unwrap_or(f64::MIN),
                        b.1.as_f64().unwrap_or(f64::MIN),
                    );
                    y.total_cmp(&x).then_with(|| a.0.cmp(&b.0))
                });
                Ok(entries
                    .into_iter()
                    .map(|(key, value)| {
                        let mut item = serde_json::Map::new();
                        item.insert(key_field.to_owned(), Value::String(key));
                        item.insert(value_field.to_owned(), value);
                        Value::Object(item)
                    })
                    .collect())
            }
            Value::Null => Ok(Vec::new()),
            _ => Err(GitlabError::new(
                ErrorKind::BadResponse,
                "expected an object",
            )),
        }
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn pagination(&self) -> Pagination {
        self.pagination.clone()
    }
}

fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, GitlabError> {
    serde_json::from_value(value).map_err(|error| {
        GitlabError::new(
            ErrorKind::BadResponse,
            format!("a field is missing or has the wrong type ({error})"),
        )
    })
}

/// Removes `null`, `""`, `[]` and `{}` everywhere in a JSON value.
pub fn prune(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            fields.values_mut().for_each(prune);
            fields.retain(|_, v| !is_empty(v));
        }
        Value::Array(items) => {
            items.iter_mut().for_each(prune);
            items.retain(|v| !v.is_null());
        }
        _ => {}
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(fields) => fields.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prune_drops_placeholders_but_keeps_false_and_zero() {
        let mut value = json!({"a": null, "b": "", "c": [], "d": {}, "e": false, "f": 0, "g": {"h": null}, "i": [null, 1]});
        prune(&mut value);
        assert_eq!(value, json!({"e": false, "f": 0, "i": [1]}));
    }

    #[test]
    fn token_debug_is_redacted() {
        let token = Token::new("glpat-secret");
        assert_eq!(format!("{token:?}"), "Token(***)");
    }
}

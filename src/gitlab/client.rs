//! The GitLab HTTP client: auth, TLS, redirects, deadline, retries and error mapping.
//!
//! It sends `Request`s built by generated code to `<GITLAB_URL>/api/v4` with the token in
//! the header its kind calls for. The token lives only in `Token`, whose `Debug` is
//! redacted; it is never logged or put in an error, and GitLab's bodies are scrubbed of it
//! as they arrive. Each call has one deadline covering every attempt and wait; requests
//! that are safe to repeat are retried with jittered backoff (`retry.rs`); redirects stay
//! on GITLAB_URL's origin (`redirect.rs`); bodies are read with a byte cap (`body.rs`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::time::Instant;

use super::body::BodyStream;
use super::error::{ErrorKind, GitlabError};
use super::pagination::Pagination;
use super::redirect;
use super::request::{Api, MAX_TARGET_BYTES, Method, Request};
use super::retry;
use super::settings::{AuthKind, ClientSettings};
use crate::redact::Redactor;

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
    settings: ClientSettings,
    /// A password in the base URL (checked once, not per request).
    url_secrets: Redactor,
    redactor: Arc<Redactor>,
    /// Built on first use, so starting the server costs no TLS setup; shared by every
    /// client made `with_credentials` from this one (one connection pool per process).
    http: Arc<OnceLock<Result<reqwest::Client, String>>>,
    /// GitLab answered 401 to one of this client's requests (the token is not accepted).
    rejected: AtomicBool,
    /// GitLab answered one of this client's requests with neither 401 nor a server error.
    accepted: AtomicBool,
}

const USER_AGENT: &str = concat!("gitlab-mcp/", env!("CARGO_PKG_VERSION"));

impl GitlabClient {
    pub fn new(base_url: &str, token: Option<Token>) -> Self {
        Self::with_settings(ClientSettings::new(base_url, token))
    }

    pub fn with_settings(settings: ClientSettings) -> Self {
        Self::sharing(settings, Arc::new(OnceLock::new()))
    }

    fn sharing(
        settings: ClientSettings,
        http: Arc<OnceLock<Result<reqwest::Client, String>>>,
    ) -> Self {
        let base = settings.base_url.trim_end_matches('/');
        let api = if base.ends_with("/api/v4") {
            base.to_owned()
        } else {
            format!("{base}/api/v4")
        };
        let mut url_secrets = Redactor::default();
        if let Ok(checked) = super::base_url::check(base)
            && let Some(password) = &checked.password
        {
            url_secrets.add(password);
        }
        let mut redactor = url_secrets.clone();
        if let Some(token) = &settings.token {
            redactor.add(token.expose());
        }
        Self {
            inner: Arc::new(Inner {
                api,
                settings,
                url_secrets,
                redactor: Arc::new(redactor),
                http,
                rejected: AtomicBool::new(false),
                accepted: AtomicBool::new(false),
            }),
        }
    }

    /// The same GitLab, settings and connection pool with another caller's token, sent in
    /// the header `auth` names: the Streamable HTTP server makes one per request, so a
    /// token is used for its own request only and nothing of it outlives the request.
    pub fn with_credentials(&self, token: Token, auth: AuthKind) -> Self {
        let mut redactor = self.inner.url_secrets.clone();
        redactor.add(token.expose());
        let settings = ClientSettings {
            token: Some(token),
            auth,
            token_from_request: true,
            ..self.inner.settings.clone()
        };
        Self {
            inner: Arc::new(Inner {
                api: self.inner.api.clone(),
                settings,
                url_secrets: self.inner.url_secrets.clone(),
                redactor: Arc::new(redactor),
                http: self.inner.http.clone(),
                rejected: AtomicBool::new(false),
                accepted: AtomicBool::new(false),
            }),
        }
    }

    /// The same settings and connection pool, without a token.
    pub fn without_token(&self) -> Self {
        let settings = ClientSettings {
            token: None,
            ..self.inner.settings.clone()
        };
        Self::sharing(settings, self.inner.http.clone())
    }

    /// The same settings and connection pool for another GitLab (already checked by
    /// `base_url::check`), without a token.
    pub fn for_instance(&self, base_url: &str) -> Self {
        let settings = ClientSettings {
            base_url: base_url.to_owned(),
            token: None,
            ..self.inner.settings.clone()
        };
        Self::sharing(settings, self.inner.http.clone())
    }

    /// Whether both are the same client (clones of one another).
    pub fn same_as(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The base URL as configured (`https://gitlab.example.com`).
    pub fn base_url(&self) -> &str {
        &self.inner.settings.base_url
    }

    /// Whether GitLab answered 401 to a request of this client: its token is missing,
    /// expired or revoked.
    pub fn token_rejected(&self) -> bool {
        self.inner.rejected.load(Ordering::Relaxed)
    }

    /// Whether GitLab answered a request of this client with neither 401 nor a server
    /// error: it knows the token (a 403 or a 404 still says the token is valid).
    pub fn token_accepted(&self) -> bool {
        self.inner.accepted.load(Ordering::Relaxed)
    }

    /// The API root this client talks to.
    pub fn api_url(&self) -> &str {
        &self.inner.api
    }

    pub fn token(&self) -> Option<&Token> {
        self.inner.settings.token.as_ref()
    }

    pub fn settings(&self) -> &ClientSettings {
        &self.inner.settings
    }

    /// Masks the token (and a password in GITLAB_URL) in every encoding.
    pub fn redactor(&self) -> &Redactor {
        &self.inner.redactor
    }

    pub fn shared_redactor(&self) -> Arc<Redactor> {
        self.inner.redactor.clone()
    }

    /// The deadline of a call that starts now.
    pub fn deadline_from_now(&self) -> Instant {
        Instant::now() + self.inner.settings.deadline
    }

    fn http(&self) -> Result<&reqwest::Client, GitlabError> {
        self.inner
            .http
            .get_or_init(|| build_http(&self.inner.settings))
            .as_ref()
            .map_err(|error| GitlabError::new(ErrorKind::Tls, error.clone()))
    }

    /// Sends a request and reads its answer whole, within one call's default deadline.
    pub async fn send(&self, request: Request) -> Result<Response, GitlabError> {
        self.send_by(request, self.deadline_from_now()).await
    }

    /// Sends a request and reads its answer whole (up to the body cap) by `deadline`;
    /// retries what is safe to repeat.
    pub async fn send_by(
        &self,
        request: Request,
        deadline: Instant,
    ) -> Result<Response, GitlabError> {
        let cap = self.inner.settings.max_body_bytes;
        self.with_retries(&request, deadline, &[], |stream| async move {
            let status = stream.status;
            let pagination = stream.body.pagination.clone();
            let body = stream.body.read_capped(cap).await?;
            Ok(Response {
                status,
                pagination,
                body,
            })
        })
        .await
    }

    /// Sends a request and returns its body as a stream, for reads that take only part of
    /// a large answer. `headers` are added as they are (such as `Range`).
    pub async fn open_by(
        &self,
        request: Request,
        deadline: Instant,
        headers: &[(&str, String)],
    ) -> Result<BodyStream, GitlabError> {
        self.with_retries(&request, deadline, headers, |stream| async move {
            Ok(stream.body)
        })
        .await
    }

    async fn with_retries<T, F, Fut>(
        &self,
        request: &Request,
        deadline: Instant,
        headers: &[(&str, String)],
        finish: F,
    ) -> Result<T, GitlabError>
    where
        F: Fn(Opened) -> Fut,
        Fut: Future<Output = Result<T, GitlabError>>,
    {
        let target = request.target().map_err(|unsafe_path| {
            GitlabError::new(ErrorKind::UnsafePath, format!("{:?}", unsafe_path.value))
        })?;
        let url = match request.api {
            Api::Rest => format!("{}{target}", self.inner.api),
            // GraphQL sits beside REST: `<GITLAB_URL>/api/graphql`.
            Api::Graphql { .. } => format!(
                "{}{target}",
                self.inner
                    .api
                    .strip_suffix("/v4")
                    .unwrap_or(&self.inner.api)
            ),
            // The OAuth provider sits at the instance's root: `<GITLAB_URL>/oauth/...`.
            Api::Oauth => format!(
                "{}{target}",
                self.inner
                    .api
                    .strip_suffix("/api/v4")
                    .unwrap_or(&self.inner.api)
            ),
        };
        // What nginx or Puma in front of GitLab would refuse (or drop) is not sent.
        let origin = url.find("://").map_or(0, |scheme| {
            url[scheme + 3..]
                .find('/')
                .map_or(url.len(), |path| scheme + 3 + path)
        });
        let sent = url.len() - origin;
        if sent > MAX_TARGET_BYTES {
            let (name, bytes) = request.largest_part();
            let name = name.map_or_else(|| "a path value".to_owned(), |name| format!("`{name}`"));
            return Err(GitlabError::new(
                ErrorKind::UrlTooLong,
                format!("{name} takes {bytes} bytes of the {sent}-byte address"),
            ));
        }
        let write = !request.is_idempotent();
        let mut attempt = 0;
        loop {
            let result = match self.attempt(request, &url, deadline, headers).await {
                Ok(opened) => finish(opened).await,
                Err(error) => Err(error),
            };
            let error = match result {
                Ok(value) => return Ok(value),
                Err(error) => error.for_write(write),
            };
            if attempt >= self.inner.settings.retries
                || !retry::worth_retrying(&error, request.is_idempotent())
            {
                return Err(error);
            }
            let wait = retry::wait(&error, attempt);
            let fits = Instant::now() + wait < deadline;
            if wait > retry::MAX_WAIT || !fits {
                return Err(error);
            }
            tracing::debug!(method = %request.method, %target, ?wait, kind = ?error.kind, "retrying");
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    /// One exchange: headers back, body not yet read.
    async fn attempt(
        &self,
        request: &Request,
        url: &str,
        deadline: Instant,
        headers: &[(&str, String)],
    ) -> Result<Opened, GitlabError> {
        let http = self.http()?;
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
            Method::Delete => reqwest::Method::DELETE,
        };
        let mut builder = http.request(method, url);
        if let Some(token) = &self.inner.settings.token {
            let (name, value) = self.inner.settings.auth.header(token);
            builder = builder.header(name, value);
        }
        for (name, value) in headers {
            builder = builder.header(*name, value);
        }
        if let Some((fields, upload)) = request.form() {
            // Built again for each attempt: a form is consumed when sent. The file name is
            // written as given (the handler refuses quotes, slashes and control characters);
            // GitLab reads `filename="..."` verbatim, not percent-decoded.
            let mut form = reqwest::multipart::Form::new().percent_encode_noop();
            for (name, value) in fields {
                form = form.text(name, value);
            }
            let file = reqwest::multipart::Part::bytes(upload.bytes.clone())
                .file_name(upload.file_name.clone());
            builder = builder.multipart(form.part(upload.field, file));
        } else if let Some(body) = request.json_body() {
            let bytes = serde_json::to_vec(body).unwrap_or_default();
            builder = builder
                .header("content-type", "application/json")
                .body(bytes);
        }
        tracing::debug!(method = %request.method, path = %request.target().unwrap_or_default(), "GitLab request");
        let deadline_text = self.deadline_text();
        let response = match tokio::time::timeout_at(deadline, builder.send()).await {
            Err(_) => return Err(GitlabError::new(ErrorKind::Timeout, deadline_text)),
            Ok(Err(error)) => return Err(classify(&error)),
            Ok(Ok(response)) => response,
        };
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let retry_after = retry::asked_wait(header, SystemTime::now());
        let stream = BodyStream::new(
            response,
            deadline,
            deadline_text,
            self.inner.redactor.clone(),
        );
        if status == 401 {
            self.inner.rejected.store(true, Ordering::Relaxed);
        } else if status < 500 {
            self.inner.accepted.store(true, Ordering::Relaxed);
        }
        if status >= 400 || status == 304 {
            // Enough of an error body to quote GitLab's message.
            let body = stream.read_capped(64 * 1024).await.unwrap_or_default();
            let mut error = GitlabError::from_status(status, &body, retry_after);
            error.token_from_request = self.inner.settings.token_from_request;
            return Err(error);
        }
        if (300..400).contains(&status) {
            return Err(GitlabError::new(
                ErrorKind::BadResponse,
                format!("a redirect ({status}) without a usable Location"),
            ));
        }
        Ok(Opened {
            status,
            body: stream,
        })
    }

    fn deadline_text(&self) -> String {
        let deadline = self.inner.settings.deadline;
        if deadline < Duration::from_secs(10) {
            format!("{:.1} s", deadline.as_secs_f64())
        } else {
            format!("{} s", deadline.as_secs())
        }
    }
}

/// An answer whose headers have arrived.
struct Opened {
    status: u16,
    body: BodyStream,
}

fn build_http(settings: &ClientSettings) -> Result<reqwest::Client, String> {
    crate::tls::install_crypto_provider();
    let builder = reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .connect_timeout(Duration::from_secs(10))
        .redirect(redirect::policy())
        .referer(false);
    let builder = if settings.skip_tls_verify {
        builder.tls_danger_accept_invalid_certs(true)
    } else {
        let extra = match &settings.ca_file {
            Some(path) => read_ca_file(path)?,
            None => Vec::new(),
        };
        // Redirects stay on GitLab's origin, so a plain-http GitLab never needs the roots.
        let https = settings
            .base_url
            .get(..6)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https:"));
        builder.tls_backend_preconfigured(crate::tls::client_config(extra, https))
    };
    builder
        .build()
        .map_err(|error| format!("cannot set up HTTPS: {}", describe(&error)))
}

/// The certificates of GITLAB_CA_FILE, trusted beside the system's.
fn read_ca_file(path: &std::path::Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = std::fs::read(path)
        .map_err(|error| format!("cannot read GITLAB_CA_FILE {}: {error}", path.display()))?;
    let certificates = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| {
            format!(
                "GITLAB_CA_FILE {} is not a PEM certificate bundle: {error}",
                path.display()
            )
        })?;
    if certificates.is_empty() {
        return Err(format!(
            "GITLAB_CA_FILE {} holds no certificate",
            path.display()
        ));
    }
    Ok(certificates)
}

/// Turns a transport failure into an error kind: permanent ones (TLS, a refused redirect)
/// are named; a failure to connect means nothing was sent; anything later may have been.
fn classify(error: &reqwest::Error) -> GitlabError {
    if let Some(refused) = find_cause::<redirect::Refused>(error) {
        return GitlabError::new(ErrorKind::Redirect, refused.to_string());
    }
    if let Some(tls) = find_cause::<rustls::Error>(error) {
        return GitlabError::new(ErrorKind::Tls, tls_reason(tls));
    }
    let text = describe(error);
    if text.contains("certificate") || text.contains("TLS") || text.contains("handshake") {
        return GitlabError::new(ErrorKind::Tls, text);
    }
    if error.is_connect() {
        return GitlabError::new(ErrorKind::Network, describe(error));
    }
    GitlabError::new(ErrorKind::Interrupted, describe(error))
}

fn tls_reason(error: &rustls::Error) -> String {
    use rustls::{CertificateError, Error};
    match error {
        Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
            "issued by an unknown certificate authority".into()
        }
        Error::InvalidCertificate(CertificateError::Expired) => {
            "the certificate has expired".into()
        }
        Error::InvalidCertificate(CertificateError::NotValidForName)
        | Error::InvalidCertificate(CertificateError::NotValidForNameContext { .. }) => {
            "the certificate is for another host name".into()
        }
        Error::InvalidCertificate(other) => format!("invalid certificate: {other:?}"),
        other => format!("TLS failed: {other}"),
    }
}

/// The first cause of type `T` in an error's chain, looking inside `io::Error`s too.
fn find_cause<T: std::error::Error + 'static>(error: &reqwest::Error) -> Option<&T> {
    let mut pending: Vec<&(dyn std::error::Error + 'static)> = vec![error];
    while let Some(cause) = pending.pop() {
        if let Some(found) = cause.downcast_ref::<T>() {
            return Some(found);
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && let Some(inner) = io.get_ref()
        {
            pending.push(inner);
        }
        if let Some(next) = cause.source() {
            pending.push(next);
        }
    }
    None
}

/// A short description of a transport failure without the URL (the user's GitLab is no
/// secret, but it is noise in a model's context) and without any header.
pub(super) fn describe(error: &reqwest::Error) -> String {
    let root = {
        let mut current: &(dyn std::error::Error + 'static) = error;
        while let Some(next) = current.source() {
            current = next;
        }
        current.to_string()
    };
    let what = if error.is_timeout() {
        "the request timed out"
    } else if error.is_connect() {
        "the connection failed"
    } else if error.is_body() || error.is_decode() {
        "the answer was cut off"
    } else {
        "the connection was lost"
    };
    let root = root.replace(&error.url().map(|u| u.to_string()).unwrap_or_default(), "");
    if root.is_empty() || root.len() > 120 || root.contains("://") {
        what.to_owned()
    } else {
        format!("{what}: {root}")
    }
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
        self.value_keeping(&|_| true)
    }

    /// The same, an object keeping only the fields `keep` accepts (`pick`): the others
    /// are skipped as they are read, never built.
    pub fn value_keeping(&self, keep: &dyn Fn(&str) -> bool) -> Result<Value, GitlabError> {
        let mut value = super::pick::parse_keeping(&self.body, keep).map_err(|error| {
            if looks_like_html(&self.body) {
                GitlabError::new(ErrorKind::BadResponse, HTML_INSTEAD)
            } else {
                GitlabError::new(ErrorKind::BadResponse, format!("not JSON ({error})"))
            }
        })?;
        prune(&mut value);
        Ok(value)
    }

    pub fn json<T: DeserializeOwned>(&self) -> Result<T, GitlabError> {
        from_value(self.value()?)
    }

    /// A list response: GitLab answers with a JSON array (one object where a list was
    /// expected is a list of one).
    pub fn list(&self) -> Result<Vec<Value>, GitlabError> {
        match self.value()? {
            Value::Array(items) => Ok(items),
            Value::Null => Ok(Vec::new()),
            one @ Value::Object(_) => Ok(vec![one]),
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

/// Why a web page is not an API answer, and what to check.
pub const HTML_INSTEAD: &str = "a web page instead of an API answer (a sign-in page, or a proxy in front of GitLab?); check that GITLAB_URL is GitLab's own address and the token is accepted";

/// Whether a body is an HTML page (a login page or a proxy's error page).
pub fn looks_like_html(body: &[u8]) -> bool {
    let start: Vec<u8> = body
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take(15)
        .map(u8::to_ascii_lowercase)
        .collect();
    start.starts_with(b"<!doctype html")
        || start.starts_with(b"<html")
        || start.starts_with(b"<head")
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

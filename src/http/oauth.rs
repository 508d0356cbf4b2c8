//! HTTP mode as an OAuth 2.1 resource server (MCP authorization, RFC 9728), on when the
//! operator lists the GitLab OAuth applications whose tokens are accepted
//! (`--oauth-apps`). The authorization server is GITLAB_URL itself: a client reads this
//! server's protected-resource metadata, signs its user in with GitLab, and comes back
//! with a GitLab OAuth token.
//!
//! - `GET /.well-known/oauth-protected-resource` (and the same path followed by the
//!   resource's own path, `/mcp`, as RFC 9728 §3.1 places it) is the metadata: the
//!   resource (`--public-url` and `/mcp`), GITLAB_URL as authorization server, the scopes
//!   a token may carry, the header it goes in.
//! - A request to `/mcp` without credentials is answered 401 with
//!   `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`, which starts the sign-in.
//! - `GET /` says in a few lines how to connect (the metadata's `resource_documentation`).
//! - A Bearer token is described by GitLab (`/oauth/token/info`: its application, scopes
//!   and remaining lifetime) before anything else is done with it, once per token: the
//!   description is kept (by a keyed hash of the token, at most `CAPACITY` of them) until
//!   shortly before the token expires; a failure to describe it is not kept. A token
//!   GitLab does not describe (expired, revoked, or not an OAuth token) or of an
//!   application not listed is refused 401 `invalid_token`; one without the scope
//!   (`api`, or `read_api` in read-only mode) 403 `insufficient_scope`. None of them
//!   reaches the API. A personal access token goes in `PRIVATE-TOKEN`, unless
//!   `--oauth-only` refuses those too.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{HeaderValue, Response, StatusCode, header};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::OnceCell;

use super::gate::{UNAUTHORIZED, json_response, refuse};
use super::settings::instance_key;
use crate::gitlab::{GitlabClient, Request};

/// Descriptions kept at most (the oldest goes first).
const CAPACITY: usize = 4096;

/// A description is used until this long before its token expires.
const MARGIN: Duration = Duration::from_secs(60);

/// How long GitLab's refusal to describe a token is kept (a token does not come back to
/// life; this spares GitLab a client that retries with it).
const UNKNOWN_KEPT: Duration = Duration::from_secs(60);

/// How long the description of a token that does not expire is kept.
const NO_EXPIRY_KEPT: Duration = Duration::from_secs(3600);

/// The metadata's well-known path (RFC 9728 §3).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// This server as an OAuth protected resource.
pub struct Resource {
    /// The resource identifier: the public URL of `/mcp`.
    resource: String,
    /// The resource's path (`/mcp` behind the public URL's own path).
    resource_path: String,
    /// Where the metadata is (the well-known path on the public URL's origin, followed
    /// by the resource's path).
    metadata_url: String,
    /// GITLAB_URL: the authorization server.
    authorization_server: String,
    /// The public URL (`--public-url`), where `GET /` says how to connect.
    public_url: String,
    /// The scope a token must have: `api`, or `read_api` in read-only mode.
    scope: &'static str,
    /// The GitLab OAuth application ids (client ids) whose tokens are accepted.
    apps: Vec<String>,
    /// Personal access tokens are refused (`--oauth-only`).
    only: bool,
    /// What GitLab said of each token lately.
    described: Described,
}

/// What a request's Bearer token is, for this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Accepted,
    /// GitLab does not describe it: expired, revoked, or not an OAuth token.
    Unknown,
    OtherApplication,
    MissingScope,
}

/// GitLab's description of an OAuth token (`GET /oauth/token/info`).
#[derive(Deserialize)]
struct TokenInfo {
    #[serde(default)]
    scope: Option<Vec<String>>,
    #[serde(default)]
    scopes: Option<Vec<String>>,
    #[serde(default)]
    expires_in: Option<i64>,
    #[serde(default)]
    expires_in_seconds: Option<i64>,
    #[serde(default)]
    application: Option<Application>,
}

#[derive(Deserialize)]
struct Application {
    #[serde(default)]
    uid: Option<String>,
}

/// A verdict, and until when it holds.
#[derive(Clone, Copy)]
struct Judged {
    verdict: Verdict,
    until: Instant,
}

/// Descriptions by keyed hash of the token: one request describes a token while the
/// others with it wait for that answer.
struct Described {
    keys: (RandomState, RandomState),
    entries: Mutex<HashMap<(u64, u64), Entry>>,
}

struct Entry {
    judged: Arc<OnceCell<Judged>>,
    made: Instant,
}

impl Resource {
    /// `public_url` is checked (`settings::public_url`); `gitlab` is GITLAB_URL.
    pub fn new(
        public_url: &str,
        gitlab: &str,
        read_only: bool,
        apps: Vec<String>,
        only: bool,
    ) -> Self {
        let public_url = public_url.trim_end_matches('/').to_owned();
        let resource = format!("{public_url}/mcp");
        let (origin, resource_path) = split_origin(&resource);
        Self {
            metadata_url: format!("{origin}{METADATA_PATH}{resource_path}"),
            resource_path: resource_path.to_owned(),
            resource,
            authorization_server: instance_key(gitlab),
            public_url,
            scope: if read_only { "read_api" } else { "api" },
            apps,
            only,
            described: Described {
                keys: (RandomState::new(), RandomState::new()),
                entries: Mutex::new(HashMap::new()),
            },
        }
    }

    /// Whether personal access tokens are refused (`--oauth-only`).
    pub fn only(&self) -> bool {
        self.only
    }

    /// Checks a request's Bearer token (`client` carries it) before anything else is done
    /// with it: `Err` is the refusal to send, and whether the token counts as rejected
    /// (for the lock-outs).
    pub async fn check(&self, client: &GitlabClient) -> Result<(), (Box<Response<Body>>, bool)> {
        let token = client.token().map_or("", |token| token.expose());
        let verdict = match self.described.judged(token, || self.describe(client)).await {
            Ok(judged) => judged.verdict,
            Err(reason) => {
                return Err((
                    refuse(
                        StatusCode::SERVICE_UNAVAILABLE,
                        UNAUTHORIZED,
                        format!(
                            "GitLab did not say what this token is ({reason}). Retry after the wait."
                        ),
                        Some(Duration::from_secs(5)),
                    ),
                    false,
                ));
            }
        };
        let (status, error, message) = match verdict {
            Verdict::Accepted => return Ok(()),
            Verdict::Unknown => (
                StatusCode::UNAUTHORIZED,
                "invalid_token",
                if self.only {
                    "GitLab does not know this token as a live OAuth token: it expired or was revoked. Sign in with GitLab again."
                } else {
                    "GitLab does not know this token as a live OAuth token: it expired or was revoked (sign in with GitLab again), or it is not an OAuth token (a personal access token goes in PRIVATE-TOKEN)."
                },
            ),
            Verdict::OtherApplication => (
                StatusCode::UNAUTHORIZED,
                "invalid_token",
                "This token was issued to a GitLab OAuth application this server does not accept. Sign in with GitLab through this server (its operator lists the accepted applications in GITLAB_MCP_OAUTH_APPS).",
            ),
            Verdict::MissingScope => (
                StatusCode::FORBIDDEN,
                "insufficient_scope",
                if self.scope == "api" {
                    "This token lacks the `api` scope (or `read_api`, to read only) that this server needs. Sign in with GitLab again and grant it."
                } else {
                    "This token lacks the `read_api` scope that this server needs. Sign in with GitLab again and grant it."
                },
            ),
        };
        let mut response = refuse(status, UNAUTHORIZED, message.to_owned(), None);
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, self.challenge(Some(error)));
        Err((response, verdict == Verdict::Unknown))
    }

    /// Asks GitLab what the token is; `Err` when GitLab did not say (not kept).
    async fn describe(&self, client: &GitlabClient) -> Result<Judged, String> {
        let now = Instant::now();
        let info: TokenInfo = match client.send(Request::oauth_token_info()).await {
            Ok(response) => response.json().map_err(|error| error.to_string())?,
            // GitLab answers 401 for a token it does not know (or no longer).
            Err(error) if error.status == Some(401) => {
                return Ok(Judged {
                    verdict: Verdict::Unknown,
                    until: now + UNKNOWN_KEPT,
                });
            }
            Err(error) => return Err(error.to_string()),
        };
        let remaining = info.expires_in_seconds.or(info.expires_in);
        let until = match remaining {
            Some(seconds) => {
                now + Duration::from_secs(seconds.max(0).unsigned_abs()).saturating_sub(MARGIN)
            }
            None => now + NO_EXPIRY_KEPT,
        };
        let application = info.application.and_then(|application| application.uid);
        let scopes = info.scopes.or(info.scope).unwrap_or_default();
        let has = |scope: &str| scopes.iter().any(|s| s == scope);
        let verdict = if remaining.is_some_and(|seconds| seconds <= 0) {
            Verdict::Unknown
        } else if !application.is_some_and(|uid| self.apps.contains(&uid)) {
            Verdict::OtherApplication
        } else if !(has("api") || has(self.scope)) {
            Verdict::MissingScope
        } else {
            Verdict::Accepted
        };
        Ok(Judged { verdict, until })
    }

    /// Whether `path` is where the metadata is served: the well-known path alone, or
    /// followed by the resource's path.
    pub fn is_metadata_path(&self, path: &str) -> bool {
        path.strip_prefix(METADATA_PATH)
            .is_some_and(|rest| rest.is_empty() || rest == self.resource_path)
    }

    /// The protected-resource metadata (RFC 9728 §2).
    pub fn metadata(&self) -> Response<Body> {
        let scopes = if self.scope == "api" {
            vec!["api", "read_api"]
        } else {
            vec!["read_api"]
        };
        let mut response = json_response(
            StatusCode::OK,
            &json!({
                "resource": self.resource,
                "authorization_servers": [self.authorization_server],
                "scopes_supported": scopes,
                "bearer_methods_supported": ["header"],
                "resource_name": "gitlab-mcp",
                "resource_documentation": format!("{}/", self.public_url),
            }),
        );
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=3600"),
        );
        response
    }

    /// The `WWW-Authenticate` value of a 401: where the metadata is and the scope to ask
    /// for, with RFC 6750's `error` when a token was sent and is not accepted.
    pub fn challenge(&self, error: Option<&str>) -> HeaderValue {
        let mut value = format!(
            "Bearer resource_metadata=\"{}\", scope=\"{}\"",
            self.metadata_url, self.scope
        );
        if let Some(error) = error {
            value.push_str(&format!(", error=\"{error}\""));
        }
        // Built from a checked URL (no quotes, no control characters) and fixed words.
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
    }

    /// `GET /`: how to connect, for a person who opens the server's address.
    pub fn documentation(&self) -> Response<Body> {
        let text = format!(
            "gitlab-mcp: a Model Context Protocol server for GitLab.\n\n\
             MCP endpoint (Streamable HTTP): {resource}\n\
             Add it to your MCP client as a remote (HTTP) server. The client signs you in with \
             GitLab ({gitlab}): this server accepts GitLab OAuth tokens of the applications \
             its operator registered, with the `{scope}` scope (discovery: {metadata}).\n",
            resource = self.resource,
            gitlab = self.authorization_server,
            scope = self.scope,
            metadata = self.metadata_url,
        );
        let mut response = Response::new(Body::from(text));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        response
    }
}

impl Described {
    /// The verdict on `token`: kept, or learned by `describe` (one at a time per token).
    async fn judged<F, Fut>(&self, token: &str, describe: F) -> Result<Judged, String>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Judged, String>>,
    {
        let key = (self.keys.0.hash_one(token), self.keys.1.hash_one(token));
        let cell = self.cell(key);
        let judged = *cell.get_or_try_init(describe).await?;
        Ok(judged)
    }

    /// The cell of `key`: the live one, or a new one (dropping expired entries, and the
    /// oldest when full).
    fn cell(&self, key: (u64, u64)) -> Arc<OnceCell<Judged>> {
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let live = |entry: &Entry| entry.judged.get().is_none_or(|judged| judged.until > now);
        if let Some(entry) = entries.get(&key)
            && live(entry)
        {
            return entry.judged.clone();
        }
        if entries.len() >= CAPACITY {
            entries.retain(|_, entry| live(entry));
            if entries.len() >= CAPACITY
                && let Some(oldest) = entries
                    .iter()
                    .min_by_key(|(_, entry)| entry.made)
                    .map(|(key, _)| *key)
            {
                entries.remove(&oldest);
            }
        }
        let judged = Arc::new(OnceCell::new());
        entries.insert(
            key,
            Entry {
                judged: judged.clone(),
                made: now,
            },
        );
        judged
    }
}

/// `https://host:port/path` as its origin and its path (`/` at least).
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    match url[after_scheme..].find('/') {
        Some(at) => url.split_at(after_scheme + at),
        None => (url, "/"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_is_at_the_well_known_path_followed_by_the_resource_path() {
        let resource = Resource::new(
            "https://mcp.example.com/",
            "https://gitlab.example.com/",
            false,
            vec!["app".into()],
            false,
        );
        assert_eq!(resource.resource, "https://mcp.example.com/mcp");
        assert_eq!(
            resource.metadata_url,
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert!(resource.is_metadata_path(METADATA_PATH));
        assert!(resource.is_metadata_path("/.well-known/oauth-protected-resource/mcp"));
        assert!(!resource.is_metadata_path("/.well-known/oauth-protected-resource/other"));

        let behind = Resource::new(
            "https://example.com/tools/gitlab",
            "https://gitlab.example.com",
            true,
            vec![],
            false,
        );
        assert_eq!(
            behind.metadata_url,
            "https://example.com/.well-known/oauth-protected-resource/tools/gitlab/mcp"
        );
        assert_eq!(
            behind.challenge(Some("invalid_token")).to_str().unwrap(),
            "Bearer resource_metadata=\"https://example.com/.well-known/oauth-protected-resource/tools/gitlab/mcp\", scope=\"read_api\", error=\"invalid_token\""
        );
    }
}

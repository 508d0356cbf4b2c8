//! What every request to `/mcp` passes before rmcp sees it, in this order:
//!
//! 1. `Host` and `Origin` against the allow-lists (403): DNS-rebinding and cross-site
//!    protection.
//! 2. The caller's credentials: `PRIVATE-TOKEN` or `Authorization: Bearer`, else the
//!    operator's shared token when there is one (401 for none or a malformed one, which
//!    counts as a failure of the address), and the GitLab instance (`X-GitLab-URL`, only
//!    from the operator's list; 403 otherwise).
//! 3. Lock-outs (429), keyed so that one client cannot lock out another behind the same
//!    proxy or NAT: a token GitLab rejected `auth_failure_limit` times waits, whoever
//!    sends it; an address with three times as many failures waits too, but only for
//!    tokens GitLab has not accepted lately (`Recent`): a valid token is always served.
//! 4. The token's rate limit (429).
//! 5. The body, read within the read timeout (408): at most the size limit (413),
//!    JSON-RPC judged as on stdio (`wire::judge`: 400 with -32700, -32600 or -32602 and
//!    the request's id, `null` when it cannot be read).
//!
//! A request that passes carries a `Caller` (a GitLab client with its own token) into the
//! MCP handler. Every refusal is an HTTP status with a JSON-RPC error body that says what
//! to change, and `Retry-After` when waiting helps; the body of a refused request is read
//! and dropped first (within the size limit and the read timeout), so the connection
//! stays usable and the client reads the answer instead of a reset. Headers are never
//! logged, so no token reaches a log line.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Request, Response, StatusCode, header};
use serde_json::json;

use super::limit::{Limiter, Recent};
use super::oauth::Resource;
use super::settings::{
    Allowed, HttpSettings, OriginRule, default_port, instance_key, split_host_port,
};
use crate::gitlab::{AuthKind, GitlabClient, Token};
use crate::server::Caller;
use crate::wire::{Verdict, error_reply, judge};

/// The header naming another GitLab instance for one request.
pub const GITLAB_URL_HEADER: &str = "x-gitlab-url";

/// The window of the authentication failure limits.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(300);

/// An address may have this many times a token's failure limit.
const ADDRESS_FAILURE_FACTOR: u32 = 3;

/// Tokens longer than this are refused unread (GitLab's are under 100 characters).
const MAX_TOKEN_BYTES: usize = 1024;

/// JSON-RPC codes of the refusals (-32000 to -32099 are the server's own).
pub(super) const UNAUTHORIZED: i64 = -32001;
const FORBIDDEN: i64 = -32003;
const RATE_LIMITED: i64 = -32029;
const TOO_LARGE: i64 = -32600;

pub struct Gate {
    settings: HttpSettings,
    /// GITLAB_URL's client without a token, and with the shared token when the operator
    /// allows one.
    default: GitlabClient,
    shared: Option<GitlabClient>,
    /// The other allowed instances, sharing the default's connection pool.
    instances: Vec<(String, GitlabClient)>,
    rate: Option<Limiter>,
    /// GitLab's rejections of each token.
    rejected: Option<Limiter>,
    /// Authentication failures of each client address.
    failures: Option<Limiter>,
    /// Tokens GitLab accepted within `FAILURE_WINDOW`: never held back by their address.
    accepted: Recent,
    /// Sign-in with GitLab, when the operator lists OAuth applications.
    oauth: Option<Resource>,
}

/// A request that may go on to rmcp, and what to check when its answer is ready.
pub struct Admitted {
    pub request: Request<Body>,
    /// `None` for a method rmcp refuses anyway (anything but POST).
    pub caller: Option<Caller>,
    pub address: IpAddr,
    /// The caller sent their own token (a rejection of the shared one is the operator's
    /// problem, not this address's).
    pub own_token: bool,
}

/// What a request's GitLab said of its token, for the limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenVerdict {
    Accepted,
    Rejected,
    /// GitLab was not asked (or did not answer).
    Unknown,
}

impl Gate {
    /// `gitlab` is GITLAB_URL's client with the server's token, if any.
    pub fn new(settings: HttpSettings, gitlab: &GitlabClient) -> Self {
        let default = gitlab.without_token();
        let shared = (settings.shared_token && gitlab.token().is_some()).then(|| gitlab.clone());
        let instances = settings
            .gitlab_urls
            .iter()
            .map(|url| (url.clone(), default.for_instance(url)))
            .collect();
        let rate = Limiter::new(settings.rate_limit / 6, Duration::from_secs(10));
        let rejected = Limiter::new(settings.auth_failure_limit, FAILURE_WINDOW);
        let failures = Limiter::new(
            settings
                .auth_failure_limit
                .saturating_mul(ADDRESS_FAILURE_FACTOR),
            FAILURE_WINDOW,
        );
        let oauth = settings.oauth.as_ref().map(|oauth| {
            Resource::new(
                &oauth.public_url,
                gitlab.base_url(),
                settings.read_only,
                oauth.apps.clone(),
                oauth.only,
            )
        });
        Self {
            settings,
            default,
            shared,
            instances,
            rate,
            rejected,
            failures,
            accepted: Recent::new(FAILURE_WINDOW),
            oauth,
        }
    }

    /// This server as an OAuth protected resource, when sign-in with GitLab is on.
    pub fn oauth(&self) -> Option<&Resource> {
        self.oauth.as_ref()
    }

    /// Runs every check; the refusal is the response to send (the refused request's body
    /// read and dropped first).
    pub async fn admit(
        &self,
        request: Request<Body>,
        peer: SocketAddr,
    ) -> Result<Admitted, Box<Response<Body>>> {
        let (parts, body) = request.into_parts();
        let address = self.client_address(&parts.headers, peer);
        let checked = self.check(&parts, address);
        let request = Request::from_parts(parts, body);
        match checked {
            Ok(None) => Ok(Admitted {
                request,
                caller: None,
                address,
                own_token: false,
            }),
            Ok(Some(client)) => {
                let own_token = !self
                    .shared
                    .as_ref()
                    .is_some_and(|shared| shared.same_as(&client));
                // Sign-in with GitLab: a Bearer token is an OAuth token of an accepted
                // application, with the scope, before anything else is done with it.
                if let Some(oauth) = &self.oauth
                    && own_token
                    && client.settings().auth == AuthKind::Oauth
                    && let Err((refusal, rejected)) = oauth.check(&client).await
                {
                    if rejected {
                        self.judged(address, &client, TokenVerdict::Rejected);
                    }
                    return Err(self.refusing(request, refusal).await);
                }
                let request = self.read_body(request).await?;
                Ok(Admitted {
                    request,
                    caller: Some(Caller { gitlab: client }),
                    address,
                    own_token,
                })
            }
            Err(refusal) => Err(self.refusing(request, refusal).await),
        }
    }

    /// A refusal, sent after the refused request's body was read and dropped.
    async fn refusing(
        &self,
        request: Request<Body>,
        mut refusal: Box<Response<Body>>,
    ) -> Box<Response<Body>> {
        if !self.drain(request).await {
            // Unread bytes would reset the connection under the answer.
            refusal
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        refusal
    }

    /// The checks on the head: the caller's client, `None` for a method rmcp refuses anyway.
    fn check(
        &self,
        parts: &axum::http::request::Parts,
        address: IpAddr,
    ) -> Result<Option<GitlabClient>, Box<Response<Body>>> {
        let headers = &parts.headers;
        self.check_host(headers)?;
        self.check_origin(headers)?;
        if parts.method != axum::http::Method::POST {
            // rmcp answers 405 with the methods it allows; nothing to authenticate.
            return Ok(None);
        }
        let client = match self.credentials(headers) {
            Ok(found) => found,
            Err(refusal) => {
                if refusal.status() == StatusCode::UNAUTHORIZED {
                    if let Some(wait) = self.address_wait(address) {
                        return Err(address_locked(wait));
                    }
                    self.address_failed(address);
                }
                return Err(refusal);
            }
        };
        let token = client.token().map_or("", Token::expose);
        if let Some(rejected) = &self.rejected
            && let Some(wait) = rejected.wait(token)
        {
            return Err(refuse(
                StatusCode::TOO_MANY_REQUESTS,
                UNAUTHORIZED,
                "GitLab rejected this token too many times: it is expired, revoked or mistyped. Send a valid GitLab token (this one is refused for a while).".to_owned(),
                Some(wait),
            ));
        }
        if !self.accepted.contains(token)
            && let Some(wait) = self.address_wait(address)
        {
            return Err(address_locked(wait));
        }
        if let Some(rate) = &self.rate
            && let Err(wait) = rate.take(token)
        {
            return Err(refuse(
                StatusCode::TOO_MANY_REQUESTS,
                RATE_LIMITED,
                format!(
                    "Rate limit: this token may make {} requests a minute to this server. Retry after the wait.",
                    self.settings.rate_limit
                ),
                Some(wait),
            ));
        }
        Ok(Some(client))
    }

    /// What GitLab said of a request's own token: a rejection counts against the token
    /// and its address; an acceptance frees the token from its address's limit.
    pub fn judged(&self, address: IpAddr, gitlab: &GitlabClient, verdict: TokenVerdict) {
        let token = gitlab.token().map_or("", Token::expose);
        match verdict {
            TokenVerdict::Accepted => self.accepted.insert(token),
            TokenVerdict::Rejected => {
                self.accepted.remove(token);
                if let Some(rejected) = &self.rejected {
                    // An empty bucket means the token is already locked out.
                    let _ = rejected.take(token);
                }
                self.address_failed(address);
            }
            TokenVerdict::Unknown => {}
        }
    }

    fn address_wait(&self, address: IpAddr) -> Option<Duration> {
        self.failures.as_ref()?.wait(address)
    }

    fn address_failed(&self, address: IpAddr) {
        if let Some(failures) = &self.failures {
            let _ = failures.take(address);
        }
    }

    /// Reads and drops a refused request's body, within the size limit and the read
    /// timeout; whether the connection may carry another request.
    async fn drain(&self, request: Request<Body>) -> bool {
        use http_body_util::BodyExt as _;
        let limit = self.settings.max_body_bytes as u64;
        if declared_length(&request).is_some_and(|length| length > limit) {
            return false;
        }
        let mut body = request.into_body();
        let reading = async {
            let mut read = 0_u64;
            while let Some(frame) = body.frame().await {
                let Ok(frame) = frame else { return false };
                if let Some(data) = frame.data_ref() {
                    read += data.len() as u64;
                    if read > limit {
                        return false;
                    }
                }
            }
            true
        };
        tokio::time::timeout(self.settings.read_timeout, reading)
            .await
            .unwrap_or(false)
    }

    fn check_host(&self, headers: &HeaderMap) -> Result<(), Box<Response<Body>>> {
        let Allowed::Only(rules) = &self.settings.hosts else {
            return Ok(());
        };
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .and_then(split_host_port);
        let allowed = host.as_ref().is_some_and(|(host, port)| {
            rules
                .iter()
                .any(|rule| rule.host == *host && rule.port.is_none_or(|p| Some(p) == *port))
        });
        if allowed {
            return Ok(());
        }
        Err(refuse(
            StatusCode::FORBIDDEN,
            FORBIDDEN,
            "This server does not answer to that Host name (DNS-rebinding protection). The operator can allow it with GITLAB_MCP_ALLOWED_HOSTS.".to_owned(),
            None,
        ))
    }

    fn check_origin(&self, headers: &HeaderMap) -> Result<(), Box<Response<Body>>> {
        let Allowed::Only(rules) = &self.settings.origins else {
            return Ok(());
        };
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let allowed = origin
            .to_str()
            .ok()
            .is_some_and(|origin| origin_allowed(origin, rules));
        if allowed {
            return Ok(());
        }
        Err(refuse(
            StatusCode::FORBIDDEN,
            FORBIDDEN,
            "Requests from this web origin are not allowed. The operator can allow it with GITLAB_MCP_ALLOWED_ORIGINS.".to_owned(),
            None,
        ))
    }

    /// The peer's address, or behind a proxy the last entry of the header the operator
    /// named (the one their proxy added).
    fn client_address(&self, headers: &HeaderMap, peer: SocketAddr) -> IpAddr {
        self.settings
            .client_address_header
            .as_ref()
            .and_then(|name| headers.get_all(name).iter().next_back())
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.rsplit(',').next())
            .and_then(|last| last.trim().parse::<IpAddr>().ok())
            .unwrap_or(peer.ip())
    }

    /// The client for this request's caller, and the key of its rate limit.
    fn credentials(&self, headers: &HeaderMap) -> Result<GitlabClient, Box<Response<Body>>> {
        // RFC 6750 §3.1: no error code when no credentials were sent.
        let challenge = |error: Option<&str>| match &self.oauth {
            Some(oauth) => oauth.challenge(error),
            None => HeaderValue::from_static("Bearer realm=\"gitlab-mcp\""),
        };
        let refused = |message: &str, error: Option<&str>| {
            let mut response = refuse(
                StatusCode::UNAUTHORIZED,
                UNAUTHORIZED,
                message.to_owned(),
                None,
            );
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, challenge(error));
            response
        };
        let unauthorized = |message: &str| refused(message, Some("invalid_request"));
        let instance = match headers.get(GITLAB_URL_HEADER) {
            None => None,
            Some(value) => Some(self.instance(value)?),
        };
        let private = headers.get("private-token");
        let bearer = headers.get(header::AUTHORIZATION);
        let (value, auth) = match (private, bearer) {
            (Some(_), Some(_)) => {
                return Err(unauthorized(
                    "Send one credential: PRIVATE-TOKEN or Authorization: Bearer, not both.",
                ));
            }
            (Some(_), None) if self.oauth.as_ref().is_some_and(Resource::only) => {
                return Err(refused(
                    "This server accepts only sign-in with GitLab (OAuth), not personal access tokens: your MCP client signs you in from this answer's WWW-Authenticate header.",
                    None,
                ));
            }
            (Some(value), None) => (value, AuthKind::PrivateToken),
            (None, Some(value)) => {
                let Some(token) = value
                    .to_str()
                    .ok()
                    .and_then(|v| v.strip_prefix("Bearer ").or(v.strip_prefix("bearer ")))
                else {
                    return Err(unauthorized(
                        "The Authorization header must be `Bearer <GitLab token>`.",
                    ));
                };
                if self.oauth.is_some() && instance.is_some_and(|i| !i.same_as(&self.default)) {
                    return Err(refuse(
                        StatusCode::FORBIDDEN,
                        FORBIDDEN,
                        "An OAuth token of this server is for GITLAB_URL only: X-GitLab-URL may name another GitLab with a PRIVATE-TOKEN.".to_owned(),
                        None,
                    ));
                }
                return self.caller(instance, token.trim(), AuthKind::Oauth, &unauthorized);
            }
            (None, None) => {
                return match (&self.shared, instance) {
                    (Some(shared), None) => Ok(shared.clone()),
                    _ => Err(refused(
                        if self.oauth.is_some() {
                            "This server needs your GitLab token on every request: sign in with GitLab (your MCP client does it from this answer's WWW-Authenticate header), or send `PRIVATE-TOKEN: <token>`."
                        } else {
                            "This server needs your GitLab token on every request: send `PRIVATE-TOKEN: <token>` or `Authorization: Bearer <token>`."
                        },
                        None,
                    )),
                };
            }
        };
        let token = value.to_str().unwrap_or_default().trim();
        self.caller(instance, token, auth, &unauthorized)
    }

    fn caller(
        &self,
        instance: Option<&GitlabClient>,
        token: &str,
        auth: AuthKind,
        unauthorized: &dyn Fn(&str) -> Box<Response<Body>>,
    ) -> Result<GitlabClient, Box<Response<Body>>> {
        let well_formed = !token.is_empty()
            && token.len() <= MAX_TOKEN_BYTES
            && token.bytes().all(|b| b.is_ascii_graphic());
        if !well_formed {
            return Err(unauthorized(
                "The GitLab token is malformed: it must be one word of printable ASCII characters.",
            ));
        }
        let base = instance.unwrap_or(&self.default);
        Ok(base.with_credentials(Token::new(token), auth))
    }

    fn instance(&self, value: &HeaderValue) -> Result<&GitlabClient, Box<Response<Body>>> {
        let key = value.to_str().map(instance_key).unwrap_or_default();
        if key == instance_key(self.default.base_url()) {
            return Ok(&self.default);
        }
        self.instances
            .iter()
            .find(|(url, _)| *url == key)
            .map(|(_, client)| client)
            .ok_or_else(|| {
                refuse(
                    StatusCode::FORBIDDEN,
                    FORBIDDEN,
                    "X-GitLab-URL names a GitLab this server may not reach. The operator lists the allowed ones in GITLAB_MCP_ALLOWED_GITLAB_URLS.".to_owned(),
                    None,
                )
            })
    }

    /// Reads the body (at most the size limit) and judges it as the stdio wire does.
    async fn read_body(
        &self,
        request: Request<Body>,
    ) -> Result<Request<Body>, Box<Response<Body>>> {
        let limit = self.settings.max_body_bytes;
        let too_large = || {
            refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                TOO_LARGE,
                format!(
                    "The request body is larger than this server accepts ({limit} bytes, GITLAB_MCP_MAX_MESSAGE_BYTES)."
                ),
                None,
            )
        };
        if declared_length(&request).is_some_and(|length| length > limit as u64) {
            return Err(closing(too_large()));
        }
        let (parts, body) = request.into_parts();
        let reading = axum::body::to_bytes(body, limit);
        let bytes = match tokio::time::timeout(self.settings.read_timeout, reading).await {
            Ok(Ok(bytes)) => bytes,
            Err(_) => {
                return Err(closing(refuse(
                    StatusCode::REQUEST_TIMEOUT,
                    TOO_LARGE,
                    format!(
                        "The request body did not arrive within {} s (GITLAB_MCP_READ_TIMEOUT).",
                        self.settings.read_timeout.as_secs_f64()
                    ),
                    None,
                )));
            }
            Ok(Err(error)) => {
                let over = std::error::Error::source(&error)
                    .is_some_and(|cause| cause.is::<http_body_util::LengthLimitError>());
                return Err(closing(if over {
                    too_large()
                } else {
                    refuse(
                        StatusCode::BAD_REQUEST,
                        TOO_LARGE,
                        "The request body could not be read whole.".to_owned(),
                        None,
                    )
                }));
            }
        };
        let json_content = parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.trim_start()
                    .to_ascii_lowercase()
                    .starts_with("application/json")
            });
        // rmcp answers a wrong content type itself (415); judge only what it would parse.
        if json_content {
            match judge(&bytes) {
                Verdict::Deliver(_) => {}
                Verdict::Reply(error, id) => {
                    let body = error_reply(&error, id.as_ref());
                    return Err(Box::new(json_response(StatusCode::BAD_REQUEST, &body)));
                }
                Verdict::Skip => {
                    let mut response = Response::new(Body::empty());
                    *response.status_mut() = StatusCode::ACCEPTED;
                    return Err(Box::new(response));
                }
            }
        }
        Ok(Request::from_parts(parts, Body::from(bytes)))
    }
}

fn declared_length(request: &Request<Body>) -> Option<u64> {
    request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
}

/// The refusal of an address with too many authentication failures.
fn address_locked(wait: Duration) -> Box<Response<Body>> {
    refuse(
        StatusCode::TOO_MANY_REQUESTS,
        UNAUTHORIZED,
        "Too many authentication failures from this address: wait, then send a valid GitLab token (a token GitLab accepted lately is served at once).".to_owned(),
        Some(wait),
    )
}

/// A refusal after which the connection closes: part of the body is still unread.
fn closing(mut response: Box<Response<Body>>) -> Box<Response<Body>> {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

fn origin_allowed(origin: &str, rules: &[OriginRule]) -> bool {
    let origin = origin.trim();
    if origin.eq_ignore_ascii_case("null") {
        return rules.iter().any(|r| r.scheme.as_deref() == Some("null"));
    }
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    let scheme = scheme.to_ascii_lowercase();
    let Some((host, port)) = split_host_port(rest) else {
        return false;
    };
    let port = port.or_else(|| default_port(&scheme));
    rules.iter().any(|rule| {
        rule.host == host
            && rule.scheme.as_deref().is_none_or(|s| s == scheme)
            && rule.port.is_none_or(|p| Some(p) == port)
    })
}

/// A refusal: the status, and a JSON-RPC error without an id (the body was not read), plus
/// `Retry-After` when a wait will help.
pub(super) fn refuse(
    status: StatusCode,
    code: i64,
    message: String,
    retry_after: Option<Duration>,
) -> Box<Response<Body>> {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    let mut response = json_response(status, &body);
    if let Some(wait) = retry_after {
        let seconds = wait.as_secs_f64().ceil().max(1.0) as u64;
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    Box::new(response)
}

pub fn json_response(status: StatusCode, body: &serde_json::Value) -> Response<Body> {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::settings::parse_origin_rule;

    #[test]
    fn origins() {
        let rules: Vec<OriginRule> = ["https://app.example.com", "http://localhost:*", "127.0.0.1"]
            .iter()
            .map(|r| parse_origin_rule(r).unwrap())
            .collect();
        assert!(origin_allowed("https://app.example.com", &rules));
        assert!(origin_allowed("https://app.example.com:443", &rules));
        assert!(!origin_allowed("https://app.example.com:8443", &rules));
        assert!(!origin_allowed("http://app.example.com", &rules));
        assert!(origin_allowed("http://localhost:6274", &rules));
        assert!(origin_allowed("https://127.0.0.1:9", &rules));
        assert!(!origin_allowed("http://evil.example.com", &rules));
        assert!(!origin_allowed("null", &rules));
        assert!(!origin_allowed("localhost", &rules));
    }
}

//! The sandbox as GitLab's OAuth 2 authorization server, as much of it as an MCP client
//! needs to sign in with GitLab: the metadata (RFC 8414), the authorization endpoint, and
//! the token endpoint (authorization code with PKCE, refresh token).
//!
//! The applications are the records of `applications` (client id, redirect URIs, scopes,
//! and for a confidential one its secret). The browser step is the one thing left out:
//! `alice` is signed in and approves every request at once, so `/oauth/authorize` answers
//! with the redirect to the client's callback. A token issued here joins alice's tokens, so
//! the API and `/oauth/token/info` know it like a seeded one.
//!
//! What GitLab checks, this checks too: a registered redirect URI (exactly), scopes the
//! application has, a PKCE challenge (S256) and its verifier, a code used once, by the
//! client and for the redirect URI it was issued to.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use super::http::{Logged, Shared, json_response, lock, parse_query};
use super::store::{Query, Store};
use crate::gitlab::encode_component;

/// How long an issued access token lives, as GitLab's default (two hours).
const EXPIRES_IN: u64 = 7200;
/// The user who is signed in to the sandbox's GitLab and approves every authorization.
const SIGNED_IN: &str = "alice";

/// Codes issued and not yet exchanged, refresh tokens not yet used.
#[derive(Default)]
pub struct Grants {
    codes: HashMap<String, Grant>,
    refresh: HashMap<String, Grant>,
    issued: u64,
}

/// What a code or a refresh token stands for.
#[derive(Clone)]
struct Grant {
    client_id: String,
    redirect_uri: String,
    /// The PKCE challenge (S256) the code must be redeemed with; none for a refresh token.
    challenge: Option<String>,
    scopes: Vec<String>,
}

/// `GET /.well-known/oauth-authorization-server`: where to authorize and get tokens, at the
/// address the client reached the sandbox by.
pub async fn metadata(headers: HeaderMap) -> Response {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("127.0.0.1");
    let issuer = format!("http://{host}");
    json_response(
        200,
        &json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{issuer}/oauth/authorize"),
            "token_endpoint": format!("{issuer}/oauth/token"),
            "scopes_supported": ["api", "read_api", "read_user", "read_repository", "write_repository", "openid", "profile", "email"],
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            // GitLab also takes `plain`; an OAuth 2.1 client uses S256, the one kept here.
            "code_challenge_methods_supported": ["S256"],
        }),
    )
}

/// `GET /oauth/authorize`: alice approves, and the client's callback gets the code (or,
/// once the redirect URI is trusted, the error).
pub async fn authorize(State(shared): State<Arc<Shared>>, RawQuery(raw): RawQuery) -> Response {
    let query = parse_query(raw.as_deref().unwrap_or_default());
    let response = {
        let store = lock(&shared.store);
        match approve(&store, &query) {
            Ok((redirect_uri, grant)) => {
                let code = shared.oauth_grants(|grants| {
                    grants.issued += 1;
                    let code = format!("sandbox-code-{}", grants.issued);
                    grants.codes.insert(code.clone(), grant);
                    code
                });
                redirect(&redirect_uri, &[("code", &code)], query.get("state"))
            }
            Err(Refusal::Redirect(redirect_uri, error, description)) => redirect(
                &redirect_uri,
                &[("error", error), ("error_description", &description)],
                query.get("state"),
            ),
            Err(Refusal::Page(status, error, description)) => json_response(
                status,
                &json!({"error": error, "error_description": description}),
            ),
        }
    };
    log(&shared, "GET", "/oauth/authorize", &response);
    response
}

/// Why an authorization is refused: on the client's callback once its redirect URI is
/// registered, else on GitLab's own page (an untrusted URI gets nothing, RFC 6749 §4.1.2.1).
enum Refusal {
    Redirect(String, &'static str, String),
    Page(u16, &'static str, String),
}

fn approve(store: &Store, query: &Query) -> Result<(String, Grant), Refusal> {
    let client_id = query.get("client_id").unwrap_or_default();
    let application = application(store, client_id).ok_or_else(|| {
        Refusal::Page(
            401,
            "invalid_client",
            "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.".into(),
        )
    })?;
    let redirect_uri = query.get("redirect_uri").unwrap_or_default();
    if !redirect_uris(application).any(|uri| uri == redirect_uri) {
        return Err(Refusal::Page(
            400,
            "invalid_redirect_uri",
            "The redirect URI included is not valid.".into(),
        ));
    }
    let refuse = |error, description: &str| {
        Refusal::Redirect(redirect_uri.to_owned(), error, description.to_owned())
    };
    if query.get("response_type") != Some("code") {
        return Err(refuse(
            "unsupported_response_type",
            "The authorization server does not support this response type.",
        ));
    }
    let challenge = match (
        query.get("code_challenge"),
        query.get("code_challenge_method"),
    ) {
        (Some(challenge), Some("S256")) if !challenge.is_empty() => challenge.to_owned(),
        (Some(_), Some(method)) if method != "S256" => {
            return Err(refuse(
                "invalid_request",
                "The code challenge method must be S256.",
            ));
        }
        _ => {
            return Err(refuse(
                "invalid_request",
                "The request is missing a required parameter: code_challenge (PKCE, S256).",
            ));
        }
    };
    let allowed = scopes_of(application);
    let scopes: Vec<String> = match query.get("scope").map(str::trim) {
        Some(asked) if !asked.is_empty() => asked.split_whitespace().map(str::to_owned).collect(),
        _ => allowed.clone(),
    };
    if let Some(scope) = scopes.iter().find(|scope| !allowed.contains(scope)) {
        return Err(refuse(
            "invalid_scope",
            &format!("The requested scope `{scope}` is not one of the application's."),
        ));
    }
    Ok((
        redirect_uri.to_owned(),
        Grant {
            client_id: client_id.to_owned(),
            redirect_uri: redirect_uri.to_owned(),
            challenge: Some(challenge),
            scopes,
        },
    ))
}

/// `POST /oauth/token`: a code (with its PKCE verifier) or a refresh token for an access
/// token of alice's.
pub async fn token(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let form = parse_query(&String::from_utf8_lossy(&body));
    let response = match exchange(&shared, &headers, &form) {
        Ok(issued) => {
            let mut response = json_response(200, &issued);
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err((error, description)) => {
            let status = if error == "invalid_client" { 401 } else { 400 };
            json_response(
                status,
                &json!({"error": error, "error_description": description}),
            )
        }
    };
    log(&shared, "POST", "/oauth/token", &response);
    response
}

type TokenError = (&'static str, String);

fn exchange(shared: &Shared, headers: &HeaderMap, form: &Query) -> Result<Value, TokenError> {
    let (client_id, secret) = client_credentials(headers, form);
    {
        let store = lock(&shared.store);
        let application = application(&store, &client_id).ok_or_else(|| {
            (
                "invalid_client",
                "Client authentication failed: unknown client.".to_owned(),
            )
        })?;
        let confidential = application["confidential"].as_bool().unwrap_or(false);
        if confidential && secret.as_deref() != application["_secret"].as_str() {
            return Err((
                "invalid_client",
                "Client authentication failed: a confidential application needs its secret."
                    .to_owned(),
            ));
        }
    }
    let invalid = |why: &str| ("invalid_grant", why.to_owned());
    let grant = match form.get("grant_type") {
        Some("authorization_code") => {
            let code = form.get("code").unwrap_or_default();
            let grant = shared
                .oauth_grants(|grants| grants.codes.remove(code))
                .ok_or_else(|| {
                    invalid("The authorization code is invalid, expired or already used.")
                })?;
            if grant.client_id != client_id {
                return Err(invalid(
                    "The authorization code was issued to another client.",
                ));
            }
            if form.get("redirect_uri") != Some(grant.redirect_uri.as_str()) {
                return Err(invalid(
                    "The redirect URI does not match the one the code was issued for.",
                ));
            }
            let verifier = form.get("code_verifier").unwrap_or_default();
            if grant.challenge.as_deref() != Some(challenge_of(verifier).as_str()) {
                return Err(invalid(
                    "The code verifier does not match the code challenge.",
                ));
            }
            grant
        }
        Some("refresh_token") => {
            let refresh = form.get("refresh_token").unwrap_or_default();
            let grant = shared
                .oauth_grants(|grants| grants.refresh.remove(refresh))
                .ok_or_else(|| invalid("The refresh token is invalid or already used."))?;
            if grant.client_id != client_id {
                return Err(invalid("The refresh token was issued to another client."));
            }
            grant
        }
        Some(other) => {
            return Err((
                "unsupported_grant_type",
                format!("The grant type `{other}` is not supported here."),
            ));
        }
        None => {
            return Err((
                "invalid_request",
                "The request is missing a required parameter: grant_type.".to_owned(),
            ));
        }
    };
    Ok(issue(shared, grant))
}

/// The client's id and secret: HTTP Basic (client_secret_basic) or the form's own fields.
fn client_credentials(headers: &HeaderMap, form: &Query) -> (String, Option<String>) {
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|encoded| STANDARD.decode(encoded.trim()).ok())
        .and_then(|decoded| String::from_utf8(decoded).ok());
    if let Some((id, secret)) = basic.as_deref().and_then(|pair| pair.split_once(':')) {
        return (id.to_owned(), Some(secret.to_owned()));
    }
    (
        form.get("client_id").unwrap_or_default().to_owned(),
        form.get("client_secret").map(str::to_owned),
    )
}

/// A new access token (and refresh token) for alice with the grant's scopes.
fn issue(shared: &Shared, grant: Grant) -> Value {
    let (access, refresh) = shared.oauth_grants(|grants| {
        grants.issued += 1;
        let n = grants.issued;
        let refresh = format!("sandbox-oauth-refresh-{n}");
        grants.refresh.insert(
            refresh.clone(),
            Grant {
                challenge: None,
                ..grant.clone()
            },
        );
        (format!("sandbox-oauth-issued-{n}"), refresh)
    });
    shared.edit_store(|store| {
        if let Some(user) = store
            .all_mut("users")
            .iter_mut()
            .find(|user| user["username"] == SIGNED_IN)
        {
            remember(user, &access, &grant);
        }
    });
    json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": EXPIRES_IN,
        "refresh_token": refresh,
        "scope": grant.scopes.join(" "),
        "created_at": std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs()),
    })
}

/// The user's record learns the token: it authenticates (`_tokens`), with its scopes
/// (`_token_scopes`) and as an OAuth token of the client's (`_oauth_tokens`).
fn remember(user: &mut Value, token: &str, grant: &Grant) {
    let Some(user) = user.as_object_mut() else {
        return;
    };
    if let Some(tokens) = user
        .entry("_tokens")
        .or_insert_with(|| json!([]))
        .as_array_mut()
    {
        tokens.push(json!(token));
    }
    if let Some(scopes) = user
        .entry("_token_scopes")
        .or_insert_with(|| json!({}))
        .as_object_mut()
    {
        scopes.insert(token.to_owned(), json!(grant.scopes));
    }
    if let Some(oauth) = user
        .entry("_oauth_tokens")
        .or_insert_with(|| json!({}))
        .as_object_mut()
    {
        oauth.insert(
            token.to_owned(),
            json!({"application": grant.client_id, "expires_in": EXPIRES_IN}),
        );
    }
}

fn application<'s>(store: &'s Store, client_id: &str) -> Option<&'s Value> {
    store
        .all("applications")
        .iter()
        .find(|app| !client_id.is_empty() && app["application_id"] == client_id)
}

/// GitLab keeps an application's redirect URIs one per line in `callback_url`.
fn redirect_uris(application: &Value) -> impl Iterator<Item = &str> {
    application["callback_url"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|uri| !uri.is_empty())
}

fn scopes_of(application: &Value) -> Vec<String> {
    super::instance::strings(application.get("_scopes")).unwrap_or_default()
}

/// PKCE S256 (RFC 7636 §4.2): base64url, unpadded, of the verifier's SHA-256.
fn challenge_of(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// A 302 to the client's callback with `params` (and the client's `state`) in its query.
fn redirect(uri: &str, params: &[(&str, &str)], state: Option<&str>) -> Response {
    let mut location = uri.to_owned();
    let state = state.map(|state| ("state", state));
    for (i, (key, value)) in params.iter().copied().chain(state).enumerate() {
        let separator = if i == 0 && !uri.contains('?') {
            '?'
        } else {
            '&'
        };
        location.push(separator);
        location.push_str(key);
        location.push('=');
        location.push_str(&encode_component(value));
    }
    let mut response = StatusCode::FOUND.into_response();
    if let Ok(location) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

fn log(shared: &Shared, method: &str, path: &str, response: &Response) {
    shared.log(Logged {
        method: method.into(),
        path: path.into(),
        query: String::new(),
        user: Some(SIGNED_IN.into()),
        status: response.status().as_u16(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7636's own example (appendix B).
    #[test]
    fn the_challenge_is_rfc_7636s() {
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn the_callback_keeps_its_own_query() {
        let response = redirect(
            "http://127.0.0.1:33418/callback?from=vscode",
            &[("code", "c 1")],
            Some("s&t"),
        );
        assert_eq!(
            response.headers()[header::LOCATION],
            "http://127.0.0.1:33418/callback?from=vscode&code=c%201&state=s%26t"
        );
    }
}

//! What the sandbox says about itself as a GitLab instance: its version and edition, a
//! token's scopes, and what an edition or a scope refuses, as GitLab does.
//!
//! By default the sandbox plays an Enterprise Edition with every tier; it can play the
//! Community Edition (`Sandbox::play_community_edition`, or `GITLAB_SANDBOX_EDITION=ce`),
//! where actions of a paid tier do not exist. A token's scopes are the seed user's
//! `_token_scopes` for it (`api` when not listed), so `TOKEN_READ_API` can read and
//! cannot write. Only a user with `is_admin` (`root`, `TOKEN_ADMIN`, and alice with
//! `--sandbox-admin`) may call an action that requires an administrator; anyone else gets
//! GitLab's `403 Forbidden`.

use serde_json::{Value, json};

use super::engine::{Answer, Incoming};
use super::store::{Failure, Store};
use crate::catalog::{Action, Tier};
use crate::gitlab::Method;

/// The version the sandbox reports.
pub const VERSION: &str = "18.5.0";
const REVISION: &str = "4c1f2a9e0b7";

/// The paths `answer` serves in Rust (counted with the hand-written routes), and why.
pub const ANSWERED: &[&str] = &["/version", "/metadata", "/personal_access_tokens/self"];
pub const REASON: &str = "Facts of the instance and the token rather than of a collection: the version and edition the sandbox plays (CE or EE) and the scopes of the token the request carries; answered before routing, since instance fitting asks for them first.";

/// Answers `/version`, `/metadata` and `/personal_access_tokens/self`, which are facts of
/// the instance and the token rather than of any collection.
pub fn answer(store: &Store, incoming: &Incoming, user: &Value) -> Option<Answer> {
    if incoming.method != Method::Get {
        return None;
    }
    let segments: Vec<&str> = incoming.segments.iter().map(String::as_str).collect();
    let enterprise = !store.community_edition;
    Some(match segments.as_slice() {
        ["version"] => Answer::ok(json!({
            "version": if enterprise { format!("{VERSION}-ee") } else { VERSION.to_owned() },
            "revision": REVISION,
        })),
        ["metadata"] => Answer::ok(json!({
            "version": VERSION,
            "revision": REVISION,
            "kas": {"enabled": false, "externalUrl": null, "externalK8sProxyUrl": null, "version": null},
            "enterprise": enterprise,
        })),
        ["personal_access_tokens", "self"] => {
            let token = incoming.token.as_deref().unwrap_or_default();
            Answer::ok(json!({
                "id": 4000 + user.get("id").and_then(Value::as_i64).unwrap_or(0),
                "name": "gitlab-mcp",
                "revoked": false,
                "created_at": "2025-01-15T10:30:00.000Z",
                "description": "The token the sandbox gave this session.",
                "scopes": scopes(user, token),
                "user_id": user.get("id"),
                "last_used_at": store.now(),
                "active": true,
                "expires_at": "2026-01-15",
            }))
        }
        _ => return None,
    })
}

/// The scopes of `token`, as the seed user lists them.
pub fn scopes(user: &Value, token: &str) -> Vec<String> {
    strings(
        user.get("_token_scopes")
            .and_then(|scopes| scopes.get(token)),
    )
    .unwrap_or_else(|| vec!["api".to_owned()])
}

/// The strings of a JSON array (scopes, mostly); `None` when the value is absent or not an array.
pub fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    let items = value?.as_array()?;
    Some(
        items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

/// GitLab's refusal when the edition lacks the action's tier, the token its scope, or the
/// user the administrator flag an admin action needs.
pub fn refusal(store: &Store, action: &Action, user: &Value, token: &str) -> Option<Failure> {
    if store.community_edition && action.requires.tier > Tier::Free {
        return Some(Failure {
            status: 404,
            body: json!({"error": "404 Not Found"}),
        });
    }
    let scopes = scopes(user, token);
    let writes = !action.safety.read_only;
    let can = |scope: &str| scopes.iter().any(|s| s == scope);
    if (writes && !can("api")) || (!writes && !can("api") && !can("read_api")) {
        return Some(Failure {
            status: 403,
            body: json!({
                "error": "insufficient_scope",
                "error_description": "The request requires higher privileges than provided by the access token.",
                "scope": if writes { "api" } else { "api read_api" },
            }),
        });
    }
    // GitLab's `authenticated_as_admin!`: 403 with its plain message, after the scope check.
    if action.requires.admin && user.get("is_admin").and_then(Value::as_bool) != Some(true) {
        return Some(Failure::new(403, "403 Forbidden"));
    }
    None
}

//! Fits the catalog to the GitLab instance and the token: what the edition has, what the
//! token's scopes allow, what only an administrator may do.
//!
//! At startup (unless switched off) the server asks GitLab for its edition and version
//! (`/metadata`, or `/version` on older instances), the token's scopes
//! (`/personal_access_tokens/self`, or `/oauth/token/info` for an OAuth token) and whether the user is an administrator (`/user`).
//! Each action's `requires` is then held to what was learned, and the policy hides, from
//! every surface, from find and from the catalog resources, whatever would only fail. What
//! could not be learned hides nothing: a failed detection keeps the full catalog, and the
//! reason is logged once.
//!
//! Nothing waits for it longer than `GRACE`: detection runs in its own task (`Fitting`),
//! and whoever needs the fitted catalog waits for it at most that long, then goes on with
//! what is known (the catalog before fitting, which GitLab itself still guards).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;

use crate::catalog::{Action, Tier, TokenScope};
use crate::gitlab::{AuthKind, ErrorKind, GitlabClient, GitlabError, Method, Request};

/// What was learned about the instance and the token.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fit {
    pub edition: Option<Edition>,
    /// `18.5.0`, as GitLab reports it.
    pub version: Option<String>,
    /// The token's scopes, for a personal, project or group access token.
    pub scopes: Option<Vec<String>>,
    pub admin: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edition {
    /// GitLab Community Edition: the Free tier only.
    Community,
    /// GitLab Enterprise Edition: the tier depends on the license or the namespace's plan,
    /// which a token cannot see, so nothing is hidden by tier.
    Enterprise,
}

/// Why an action does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfit {
    /// The edition lacks the tier.
    Tier(Tier),
    /// The token lacks the scope.
    Scope(TokenScope),
    /// Only administrators may call it, and the user is not one.
    Admin,
}

impl Unfit {
    /// One sentence for a refused call or lookup.
    pub fn explain(self, action: &Action) -> String {
        match self {
            Self::Tier(tier) => format!(
                "`{}` needs GitLab {} or higher, and this instance is the Community Edition (Free tier).",
                action.id,
                capitalised(tier.name())
            ),
            Self::Scope(scope) => format!(
                "`{}` needs a token with the `{}` scope, and this token does not have it. Create a token with `{}` to use it.",
                action.id,
                scope.name(),
                scope.name()
            ),
            Self::Admin => format!(
                "`{}` is for GitLab administrators, and this token's user is not one.",
                action.id
            ),
        }
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

impl Fit {
    /// Why `action` cannot run here, if it cannot.
    pub fn unfit(&self, action: &Action) -> Option<Unfit> {
        if self.edition == Some(Edition::Community) && action.requires.tier > Tier::Free {
            return Some(Unfit::Tier(action.requires.tier));
        }
        if let Some(scopes) = &self.scopes {
            let has = |name: &str| scopes.iter().any(|s| s == name);
            let enough = match action.scope() {
                TokenScope::Api => has("api"),
                TokenScope::ReadApi => has("api") || has("read_api"),
            };
            if !enough {
                return Some(Unfit::Scope(action.scope()));
            }
        }
        if action.requires.admin && self.admin == Some(false) {
            return Some(Unfit::Admin);
        }
        None
    }

    /// One line for the log and the catalog resource: what was learned.
    pub fn summary(&self) -> String {
        let edition = match self.edition {
            Some(Edition::Community) => "Community Edition",
            Some(Edition::Enterprise) => "Enterprise Edition",
            None => "edition unknown",
        };
        let version = self.version.as_deref().unwrap_or("version unknown");
        let scopes = match &self.scopes {
            Some(scopes) => format!("token scopes {}", scopes.join(", ")),
            None => "token scopes unknown".to_owned(),
        };
        let admin = match self.admin {
            Some(true) => ", administrator",
            _ => "",
        };
        format!("GitLab {version} ({edition}), {scopes}{admin}")
    }
}

/// How long a request waits for fitting before it is answered with what is known: the
/// first `tools/list` of the meta and individual surfaces, a call, a find. A GitLab that
/// answers at once is fitted well within it (76-131 ms measured).
pub const GRACE: Duration = Duration::from_secs(1);

/// Fitting in the background: started once, it learns the instance and the token
/// (`detect`) and sets what it learned into the policy's `fit`; callers wait for it with
/// a bound. Clones share one fitting.
#[derive(Clone)]
pub struct Fitting {
    state: Arc<FittingState>,
}

struct FittingState {
    started: AtomicBool,
    /// `true` once detection has finished, learned or not.
    done: tokio::sync::watch::Sender<bool>,
}

impl Default for Fitting {
    fn default() -> Self {
        Self {
            state: Arc::new(FittingState {
                started: AtomicBool::new(false),
                done: tokio::sync::watch::Sender::new(false),
            }),
        }
    }
}

impl Fitting {
    /// Starts detection in a task of its own, once; returns at once. What is learned goes
    /// into `fit`; a failed detection sets nothing (which hides nothing) and is logged.
    pub fn start(&self, gitlab: &GitlabClient, fit: &Arc<OnceLock<Fit>>) {
        if self.state.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let (state, gitlab, fit) = (self.state.clone(), gitlab.clone(), fit.clone());
        tokio::spawn(async move {
            match detect(&gitlab).await {
                Ok(learned) => {
                    tracing::info!(fit = %learned.summary(), "catalog fitted to the instance and token");
                    let _ = fit.set(learned);
                }
                Err(reason) => tracing::warn!(
                    %reason,
                    "could not learn the instance's edition or the token's scopes; offering the full catalog"
                ),
            }
            state.done.send_replace(true);
        });
    }

    pub fn is_done(&self) -> bool {
        *self.state.done.borrow()
    }

    /// Resolves when detection has finished (it must have been started).
    pub async fn done(&self) {
        let mut done = self.state.done.subscribe();
        // The sender lives in `self`: the wait cannot fail.
        let _ = done.wait_for(|done| *done).await;
    }

    /// Waits for detection at most `grace`; whether it has finished.
    pub async fn within(&self, grace: Duration) -> bool {
        self.is_done() || tokio::time::timeout(grace, self.done()).await.is_ok()
    }
}

/// Asks the instance what it is and what the token may do. Each question is answered
/// independently; `Err` only when none could be (the reason, for the log).
pub async fn detect(client: &GitlabClient) -> Result<Fit, String> {
    // One call's deadline (GITLAB_TIMEOUT) for every question: nothing waits for them.
    let deadline = client.deadline_from_now();
    let get = |path: &'static str| {
        let request = Request::new(Method::Get).at(path, &[]);
        async move {
            client
                .send_by(request, deadline)
                .await
                .and_then(|response| response.value())
        }
    };
    // An OAuth token's scopes are in GitLab's description of it; other tokens' in `self`.
    let token = async {
        if client.settings().auth == AuthKind::Oauth {
            client
                .send_by(Request::oauth_token_info(), deadline)
                .await
                .and_then(|response| response.value())
        } else {
            get("/personal_access_tokens/self").await
        }
    };
    let (metadata, token, user) = tokio::join!(get("/metadata"), token, get("/user"));
    let mut fit = Fit::default();
    let mut failures = Vec::new();
    match metadata {
        Ok(metadata) => read_metadata(&metadata, &mut fit),
        // Instances older than 15.2 answer `/metadata` with 404 and still have `/version`.
        // When GitLab answered nothing at all, asking again only delays the first find by
        // another round of retries.
        Err(first) if first.status.is_some() => match get("/version").await {
            Ok(version) => read_metadata(&version, &mut fit),
            Err(_) => failures.push(format!("edition: {}", failure(&first))),
        },
        Err(first) => failures.push(format!("edition: {}", failure(&first))),
    }
    match token {
        Ok(token) => {
            // `scope` in an OAuth token's description (GitLab 15 and later send `scopes` too).
            let scopes = token.get("scopes").or_else(|| token.get("scope"));
            fit.scopes = scopes.and_then(Value::as_array).map(|scopes| {
                scopes
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            });
        }
        // Job tokens have neither: their scopes stay unknown.
        Err(error) => failures.push(format!("token scopes: {}", failure(&error))),
    }
    match user {
        Ok(user) => {
            fit.admin = Some(
                user.get("is_admin")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            )
        }
        Err(error) => failures.push(format!("user: {}", failure(&error))),
    }
    if fit == Fit::default() {
        return Err(failures.join("; "));
    }
    for failure in failures {
        tracing::info!(%failure, "part of the instance could not be learned; it hides nothing");
    }
    Ok(fit)
}

/// Why a question went unanswered, for the log (what a tool result would add about
/// retrying a read does not apply).
fn failure(error: &GitlabError) -> String {
    match error.kind {
        ErrorKind::Timeout => format!(
            "GitLab did not answer within {} (GITLAB_TIMEOUT)",
            error.detail
        ),
        _ => error.explain(),
    }
}

/// `/metadata` says `enterprise`; `/version` only has the `-ee` suffix.
fn read_metadata(value: &Value, fit: &mut Fit) {
    let version = value.get("version").and_then(Value::as_str);
    fit.version = version.map(|v| v.trim_end_matches("-ee").to_owned());
    fit.edition = match value.get("enterprise").and_then(Value::as_bool) {
        Some(true) => Some(Edition::Enterprise),
        Some(false) => Some(Edition::Community),
        None => version.map(|v| {
            if v.ends_with("-ee") {
                Edition::Enterprise
            } else {
                Edition::Community
            }
        }),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ACTIONS;
    use serde_json::json;

    #[test]
    fn metadata_and_version_name_the_edition() {
        let mut fit = Fit::default();
        read_metadata(&json!({"version": "18.5.0", "enterprise": false}), &mut fit);
        assert_eq!(
            (fit.edition, fit.version.as_deref()),
            (Some(Edition::Community), Some("18.5.0"))
        );
        read_metadata(&json!({"version": "16.1.2-ee"}), &mut fit);
        assert_eq!(
            (fit.edition, fit.version.as_deref()),
            (Some(Edition::Enterprise), Some("16.1.2"))
        );
    }

    #[test]
    fn a_read_api_token_keeps_reads_and_loses_writes() {
        let fit = Fit {
            scopes: Some(vec!["read_api".into()]),
            ..Fit::default()
        };
        for action in ACTIONS {
            let unfit = fit.unfit(action);
            if action.safety.read_only {
                assert_eq!(unfit, None, "{}", action.id);
            } else {
                assert_eq!(unfit, Some(Unfit::Scope(TokenScope::Api)), "{}", action.id);
            }
        }
        let nothing = Fit {
            scopes: Some(vec!["read_user".into()]),
            ..Fit::default()
        };
        assert!(ACTIONS.iter().all(|a| nothing.unfit(a).is_some()));
    }

    #[test]
    fn unknown_facts_hide_nothing() {
        assert!(ACTIONS.iter().all(|a| Fit::default().unfit(a).is_none()));
    }
}

//! An in-memory GitLab that speaks the REST v4 subset the catalog uses.
//!
//! `--sandbox` starts it in-process on a random loopback port and points the client at it
//! with `TOKEN`; `gitlab-mcp sandbox --listen` serves it alone. It is data-driven: a
//! request is routed to its catalog action (`engine`), records and collections are seed data
//! (`seed`, `store`), each action's behaviour is data in `seed/behaviour/` (`behaviour`,
//! written in the small language of `expr`), and only the few routes listed in
//! `routes::ROUTES` are hand-written. It never talks to the network beyond the loopback
//! address it was given.

mod behaviour;
mod ci_routes;
mod diff;
mod engine;
mod expr;
mod graphql_routes;
mod http;
mod instance;
mod multipart;
mod oauth;
mod repository;
mod routes;
mod search_routes;
mod seed;
mod store;

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub use http::{Faults, Logged};

/// The token of the sandbox's default user, `alice`.
pub const TOKEN: &str = "sandbox-token";
/// A second user's token (`bob`), for per-token visibility.
pub const TOKEN_BOB: &str = "sandbox-token-bob";
/// `alice` again, with a `read_api` token: it reads and cannot write.
pub const TOKEN_READ_API: &str = "sandbox-token-read";
/// The instance administrator, `root`: the only seed user who may call the actions that
/// require an administrator (`requires: {admin: true}`); the others get GitLab's 403.
pub const TOKEN_ADMIN: &str = "sandbox-token-admin";
/// The client id of the sandbox's OAuth application: alice's OAuth tokens below were
/// issued to it (`/oauth/token/info` says so), except `OAUTH_TOKEN_OTHER_APP`.
pub const OAUTH_APP: &str = "sandbox-oauth-app";
/// alice's OAuth token with `api`.
pub const OAUTH_TOKEN: &str = "sandbox-oauth-token";
/// alice's OAuth token with `read_api` only.
pub const OAUTH_TOKEN_READ_API: &str = "sandbox-oauth-token-read";
/// alice's OAuth token with `read_user` only: it cannot use the API.
pub const OAUTH_TOKEN_READ_USER: &str = "sandbox-oauth-token-read-user";
/// alice's OAuth token with `api`, issued to another application (`another-oauth-app`).
pub const OAUTH_TOKEN_OTHER_APP: &str = "sandbox-oauth-token-other-app";

/// Whether an action's example runs with `--sandbox-admin` (alice an administrator): an
/// action only administrators may call does, every other runs as the regular alice.
/// Tests and snapshots that run every example ask here, so no admin action is skipped or
/// refused silently and none runs with more rights than it needs.
pub fn example_needs_admin(action: &crate::catalog::Action) -> bool {
    action.requires.admin
}

/// A running sandbox; it stops when dropped.
pub struct Sandbox {
    url: String,
    address: SocketAddr,
    shared: Arc<http::Shared>,
    stop: Option<oneshot::Sender<()>>,
}

impl Sandbox {
    /// Starts a sandbox on `address` (use port 0 for a free port) with the given faults.
    pub async fn start(address: SocketAddr, faults: Faults) -> std::io::Result<Self> {
        let listener = TcpListener::bind(address).await?;
        let address = listener.local_addr()?;
        let shared = Arc::new(http::Shared::new(seed::store(), faults));
        let app = http::router(shared.clone());
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopped.await;
            };
            if let Err(error) = axum::serve(listener, app)
                .with_graceful_shutdown(shutdown)
                .await
            {
                tracing::error!(%error, "the sandbox server stopped");
            }
        });
        Ok(Self {
            url: format!("http://{address}"),
            address,
            shared,
            stop: Some(stop),
        })
    }

    /// Starts a sandbox on a free loopback port.
    pub async fn start_local() -> std::io::Result<Self> {
        Self::start(SocketAddr::from(([127, 0, 0, 1], 0)), Faults::default()).await
    }

    /// `http://127.0.0.1:PORT`, the value for `GITLAB_URL`.
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Plays GitLab's Community Edition from now on: paid-tier actions do not exist.
    pub fn play_community_edition(&self) {
        self.shared
            .edit_store(|store| store.community_edition = true);
    }

    /// Makes the user of the session's token, `TOKEN` (alice), an instance administrator
    /// (`--sandbox-admin`, `GITLAB_SANDBOX_ADMIN=true`): the actions that require one then
    /// run for her, and she sees every project, as an administrator does. Without it she
    /// is a regular user, so fitting and GitLab's refusals of non-administrators stay
    /// what a session meets.
    pub fn make_token_user_admin(&self) {
        self.shared.edit_store(|store| {
            for user in store.all_mut("users") {
                let owns_token = user
                    .get("_tokens")
                    .and_then(serde_json::Value::as_array)
                    .is_some_and(|tokens| tokens.iter().any(|t| t == TOKEN));
                if owns_token {
                    user["is_admin"] = serde_json::Value::Bool(true);
                }
            }
        });
    }

    /// Plays the edition `GITLAB_SANDBOX_EDITION` names (`ce` or `ee`, the default).
    pub fn edition_from_env(&self) -> anyhow::Result<()> {
        match std::env::var("GITLAB_SANDBOX_EDITION").as_deref() {
            Err(_) | Ok("ee") => Ok(()),
            Ok("ce") => {
                self.play_community_edition();
                Ok(())
            }
            Ok(other) => anyhow::bail!("GITLAB_SANDBOX_EDITION must be ce or ee, not {other:?}"),
        }
    }

    /// The API requests served so far (the most recent 10,000).
    pub fn requests(&self) -> Vec<Logged> {
        self.shared.requests()
    }

    /// Serves until the process is asked to stop (Ctrl-C or SIGTERM).
    pub async fn serve_until(self, mut stop: crate::server::Stop) {
        stop.requested().await;
        drop(self);
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Problems in the sandbox's behaviour data (`seed/behaviour/`), each naming its file,
/// action and key; a test keeps the list empty.
pub fn data_problems() -> Vec<String> {
    let store = seed::store();
    let mut problems = behaviour::problems(&store);
    let missing = crate::catalog::ACTIONS
        .iter()
        .filter(|a| !instance::ANSWERED.contains(&a.path))
        .filter_map(|a| {
            let missing = engine::missing_data(&store, a, behaviour::of(a.id))?;
            Some(format!("action `{}`: {missing}", a.id))
        });
    problems.extend(missing);
    problems
}

/// The actions whose sandbox behaviour is hand-written Rust, as (action id, route, reason);
/// every other action is served from data.
pub fn hand_written() -> Vec<(&'static str, &'static str, &'static str)> {
    let routed = behaviour::all().filter_map(|(id, behaviour)| {
        let name = behaviour.route.as_deref()?;
        let route = routes::ROUTES.iter().find(|r| r.name == name)?;
        Some((id, route.name, route.reason))
    });
    let instance = crate::catalog::ACTIONS
        .iter()
        .filter(|a| a.method == crate::gitlab::Method::Get && instance::ANSWERED.contains(&a.path))
        .map(|a| (a.id, "instance", instance::REASON));
    routed.chain(instance).collect()
}

//! MCP over Streamable HTTP (`gitlab-mcp serve --http`): one server for a team, each
//! request with its own user's GitLab token, any replica answering any request.
//!
//! `/mcp` is rmcp's Streamable HTTP transport in stateless mode with JSON answers: every
//! POST is complete in itself (no session lives in the process), so requests may go to any
//! replica behind any load balancer. `gate` checks each request first (Host, Origin,
//! credentials, limits, body) and attaches the caller's GitLab client; the handler
//! (`server.rs`) makes a dispatcher for that request alone. `/health` answers probes.
//! SIGTERM (or Ctrl-C) stops accepting connections and lets requests in flight finish,
//! for up to `SHUTDOWN_GRACE`.

mod gate;
mod limit;
pub mod settings;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{Response, StatusCode};
use axum::routing::{any, get};
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use serde_json::json;

pub use gate::{FAILURE_WINDOW, GITLAB_URL_HEADER};
pub use settings::{HttpOptions, HttpSettings};

use crate::gitlab::GitlabClient;
use crate::server::GitlabServer;
use gate::{Admitted, Gate, json_response};

/// How long requests in flight may take to finish after SIGTERM (Kubernetes waits 30 s
/// before it kills a pod).
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(25);

struct Shared {
    gate: Gate,
    mcp: StreamableHttpService<GitlabServer, NeverSessionManager>,
}

/// Serves `server` over HTTP until SIGTERM or Ctrl-C. `gitlab` is GITLAB_URL's client
/// (with the server's token only when the operator allows a shared token).
pub async fn serve(
    server: GitlabServer,
    gitlab: &GitlabClient,
    settings: HttpSettings,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(settings.listen)
        .await
        .with_context(|| format!("cannot listen on {}", settings.listen))?;
    let address = listener.local_addr()?;
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        // The gate checks Host and Origin (with JSON-RPC errors that name the setting).
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(settings.max_body_bytes);
    let stop_mcp = config.cancellation_token.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let shared = Arc::new(Shared {
        gate: Gate::new(settings, gitlab),
        mcp,
    });
    let app = Router::new()
        .route("/mcp", any(mcp_endpoint))
        .route("/health", get(health))
        .with_state(shared);

    eprintln!(
        "gitlab-mcp: MCP over Streamable HTTP at http://{address}/mcp (probes: /health). Ctrl-C or SIGTERM stops it."
    );
    let (signalled, mut on_signal) = tokio::sync::watch::channel(false);
    let shutdown = async move {
        crate::server::shutdown_signal().await;
        tracing::info!("stopping: no new connections, requests in flight finish");
        let _ = signalled.send(true);
    };
    let served = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown);
    let grace = async move {
        if on_signal.wait_for(|stopping| *stopping).await.is_ok() {
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        } else {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        result = served => result.context("the HTTP server failed")?,
        () = grace => tracing::warn!(
            "requests were still running {} s after the stop signal; stopping anyway",
            SHUTDOWN_GRACE.as_secs()
        ),
    }
    stop_mcp.cancel();
    eprintln!("gitlab-mcp: stopped");
    Ok(())
}

async fn health() -> Response<Body> {
    json_response(
        StatusCode::OK,
        &json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}),
    )
}

async fn mcp_endpoint(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response<Body> {
    let Admitted {
        mut request,
        caller,
        address,
        own_token,
    } = match shared.gate.admit(request, peer).await {
        Ok(admitted) => admitted,
        Err(refusal) => return *refusal,
    };
    let gitlab = caller.as_ref().map(|caller| caller.gitlab.clone());
    if let Some(caller) = caller {
        request.extensions_mut().insert(caller);
    }
    let response = shared.mcp.handle(request).await;
    // GitLab refused the caller's own token: one more failure for this address.
    if own_token && gitlab.is_some_and(|gitlab| gitlab.token_rejected()) {
        shared.gate.failed(address);
    }
    response.map(Body::new)
}

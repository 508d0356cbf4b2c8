//! MCP over Streamable HTTP (`gitlab-mcp serve --http`): one server for a team, each
//! request with its own user's GitLab token, any replica answering any request.
//!
//! `/mcp` is rmcp's Streamable HTTP transport in stateless mode with JSON answers: every
//! POST is complete in itself (no session lives in the process), so requests may go to any
//! replica behind any load balancer. `gate` checks each request first (Host, Origin,
//! credentials, limits, body) and attaches the caller's GitLab client; the handler
//! (`server.rs`) makes a dispatcher for that request alone. `/health` answers probes.
//! Connections are bounded in number and in the time they may take to send a request
//! (`serve`). SIGTERM (or Ctrl-C) stops accepting connections and lets requests in flight
//! finish, for up to `SHUTDOWN_GRACE`.

mod gate;
mod limit;
mod oauth;
pub mod settings;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, Response, StatusCode, header};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use serde_json::json;
use tokio::net::TcpStream;
use tokio::sync::{Semaphore, watch};

pub use gate::{FAILURE_WINDOW, GITLAB_URL_HEADER};
pub use settings::{HttpOptions, HttpSettings, OAuthSettings};

use crate::gitlab::GitlabClient;
use crate::server::GitlabServer;
use gate::{Admitted, Gate, TokenVerdict, json_response, refuse};

/// How long requests in flight may take to finish after SIGTERM (Kubernetes waits 30 s
/// before it kills a pod).
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(25);

/// How long a connection over the cap may take to send the request it is refused.
const REFUSAL_READ_TIMEOUT: Duration = Duration::from_secs(2);

struct Shared {
    gate: Gate,
    mcp: StreamableHttpService<GitlabServer, NeverSessionManager>,
}

/// Serves `server` over HTTP until SIGTERM or Ctrl-C. `gitlab` is GITLAB_URL's client
/// (with the server's token only when the operator allows a shared token).
///
/// Each connection is HTTP/1.1 through hyper with a header read timeout (a client that
/// sends half a header, or nothing, is disconnected after `read_timeout`; axum's own
/// server has none); at most `max_connections` are open at once, and each one beyond is
/// answered 503 with `Retry-After` (as many again at most; past that a connection is
/// closed unanswered).
pub async fn serve(
    server: GitlabServer,
    gitlab: &GitlabClient,
    settings: HttpSettings,
    mut signals: crate::server::Stop,
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
    let (read_timeout, max_connections) = (settings.read_timeout, settings.max_connections);
    let shared = Arc::new(Shared {
        gate: Gate::new(settings, gitlab),
        mcp,
    });

    eprintln!(
        "gitlab-mcp: MCP over Streamable HTTP at http://{address}/mcp (probes: /health). Ctrl-C or SIGTERM stops it."
    );
    let open = Arc::new(Semaphore::new(max_connections));
    let refusing = Arc::new(Semaphore::new(max_connections));
    let (stopping, stop) = watch::channel(false);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, most likely: let connections finish.
                    tracing::warn!(%error, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = signals.requested() => break,
        };
        let _ = stream.set_nodelay(true);
        if let Ok(permit) = open.clone().try_acquire_owned() {
            let (shared, stop) = (shared.clone(), stop.clone());
            tokio::spawn(async move {
                serve_connection(stream, peer, shared, read_timeout, stop).await;
                drop(permit);
            });
        } else if let Ok(permit) = refusing.clone().try_acquire_owned() {
            tokio::spawn(async move {
                refuse_connection(stream).await;
                drop(permit);
            });
        }
    }
    drop(listener);
    tracing::info!("stopping: no new connections, requests in flight finish");
    let _ = stopping.send(true);
    let all = u32::try_from(max_connections).unwrap_or(u32::MAX);
    if tokio::time::timeout(SHUTDOWN_GRACE, open.acquire_many(all))
        .await
        .is_err()
    {
        tracing::warn!(
            "requests were still running {} s after the stop signal; stopping anyway",
            SHUTDOWN_GRACE.as_secs()
        );
    }
    stop_mcp.cancel();
    eprintln!("gitlab-mcp: stopped");
    Ok(())
}

/// One client connection, until it closes, idles past the read timeout, or the server
/// stops (then the request in flight finishes first).
async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<Shared>,
    read_timeout: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let service = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(route(&shared, peer, request.map(Body::new)).await) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(read_timeout);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let stopped = async move {
        let _ = stop.wait_for(|stopping| *stopping).await;
    };
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(error) = result {
                tracing::debug!(%error, "connection ended");
            }
        }
        () = stopped => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

/// A connection over the cap: its request is answered 503 with `Retry-After`, then it
/// is closed.
async fn refuse_connection(stream: TcpStream) {
    let service = hyper::service::service_fn(
        |request: Request<hyper::body::Incoming>| async move {
            // Read a small body, so that the answer is not lost to a reset.
            let body = http_body_util::Limited::new(request.into_body(), 64 * 1024);
            let _ =
                tokio::time::timeout(REFUSAL_READ_TIMEOUT, http_body_util::BodyExt::collect(body))
                    .await;
            let mut response = *refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            -32000,
            "This server has as many connections open as it takes (GITLAB_MCP_MAX_CONNECTIONS). Retry after the wait.".to_owned(),
            Some(Duration::from_secs(1)),
        );
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            Ok::<_, Infallible>(response)
        },
    );
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(REFUSAL_READ_TIMEOUT)
        .keep_alive(false);
    let _ = builder
        .serve_connection(TokioIo::new(stream), service)
        .await;
}

async fn route(shared: &Shared, peer: SocketAddr, request: Request<Body>) -> Response<Body> {
    let path = request.uri().path();
    let readable = matches!(request.method(), &Method::GET | &Method::HEAD);
    // Sign-in with GitLab: the protected-resource metadata (read by browser-based clients
    // too), and how to connect.
    if let Some(oauth) = shared.gate.oauth()
        && readable
    {
        if oauth.is_metadata_path(path) {
            let mut response = oauth.metadata();
            response.headers_mut().insert(
                header::ACCESS_CONTROL_ALLOW_ORIGIN,
                HeaderValue::from_static("*"),
            );
            return response;
        }
        if path == "/" {
            return oauth.documentation();
        }
    }
    match path {
        "/mcp" => mcp_endpoint(shared, peer, request).await,
        "/health" if readable => health(),
        "/health" => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET,HEAD"));
            response
        }
        _ => not_found(),
    }
}

fn not_found() -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

fn health() -> Response<Body> {
    json_response(
        StatusCode::OK,
        &json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}),
    )
}

async fn mcp_endpoint(shared: &Shared, peer: SocketAddr, request: Request<Body>) -> Response<Body> {
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
    // What GitLab said of the caller's own token (a rejection of the shared one is the
    // operator's problem, not this address's).
    if own_token && let Some(gitlab) = gitlab {
        let verdict = if gitlab.token_rejected() {
            TokenVerdict::Rejected
        } else if gitlab.token_accepted() {
            TokenVerdict::Accepted
        } else {
            TokenVerdict::Unknown
        };
        shared.gate.judged(address, &gitlab, verdict);
    }
    response.map(Body::new)
}

//! How the client reaches GitLab: base URL, authentication, TLS, deadline and retries.
//!
//! `config.rs` fills this from flags and environment variables; tests build it directly.

use std::path::PathBuf;
use std::time::Duration;

use super::client::Token;

/// How the token is sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthKind {
    /// A personal, project or group access token in `PRIVATE-TOKEN`.
    #[default]
    PrivateToken,
    /// An OAuth 2 access token in `Authorization: Bearer`.
    Oauth,
    /// A CI/CD job token (`CI_JOB_TOKEN`) in `JOB-TOKEN`.
    JobToken,
}

impl AuthKind {
    /// The header that carries the token, and its value.
    pub fn header(self, token: &Token) -> (&'static str, String) {
        match self {
            Self::PrivateToken => ("PRIVATE-TOKEN", token.expose().to_owned()),
            Self::Oauth => ("Authorization", format!("Bearer {}", token.expose())),
            Self::JobToken => ("JOB-TOKEN", token.expose().to_owned()),
        }
    }
}

/// Everything the client needs besides the requests themselves.
#[derive(Debug, Clone)]
pub struct ClientSettings {
    /// GitLab's base URL (`https://gitlab.example.com`), with or without `/api/v4`.
    pub base_url: String,
    pub token: Option<Token>,
    pub auth: AuthKind,
    /// Extra trusted roots (PEM) for a GitLab behind a private CA.
    pub ca_file: Option<PathBuf>,
    /// Accept any certificate. Only for testing; warned about loudly at start.
    pub skip_tls_verify: bool,
    /// The most one tool call may take, all attempts and waits included.
    pub deadline: Duration,
    /// How many times a failed request that is safe to repeat is tried again.
    pub retries: u32,
    /// The largest GitLab body read into memory; a larger one is refused, not cut.
    pub max_body_bytes: usize,
    /// The token came with an HTTP request (`serve --http`), not from GITLAB_TOKEN, so a
    /// rejection names the request's header.
    pub token_from_request: bool,
}

/// The default deadline of one tool call: under the 60 s most MCP clients wait.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(50);
pub const DEFAULT_RETRIES: u32 = 2;
/// Large enough for a page of 100 long comments; memory stays bounded per call.
pub const DEFAULT_MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

impl ClientSettings {
    pub fn new(base_url: impl Into<String>, token: Option<Token>) -> Self {
        Self {
            base_url: base_url.into(),
            token,
            auth: AuthKind::default(),
            ca_file: None,
            skip_tls_verify: false,
            deadline: DEFAULT_DEADLINE,
            retries: DEFAULT_RETRIES,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            token_from_request: false,
        }
    }
}

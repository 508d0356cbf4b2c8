//! Configuration from flags and environment variables, resolved into what the server runs.
//!
//! Every setting is a flag with an environment variable (clap reads both; the flag wins).
//! The token is read from the environment only, never from a flag, so it does not show up
//! in process listings, and it is never printed.

use std::sync::Arc;
use std::time::Duration;

use clap::builder::{BoolishValueParser, PossibleValuesParser};

use crate::dispatch::{Context, Dispatcher};
use crate::gitlab::{AuthKind, ClientSettings, DEFAULT_RETRIES, GitlabClient, Token, base_url};
use crate::output::budget::{DEFAULT_RESULT_BYTES, MIN_RESULT_BYTES};
use crate::policy::{EmbeddedResources, Policy};
use crate::resources::CapabilitySurface;
use crate::sandbox::{self, Faults, Sandbox};
use crate::surfaces::{MetaSchema, SurfaceKind};

/// The help heading of each group of settings. A command shows and accepts the groups it
/// uses (`cli::GROUPS`); every field below names its group.
pub mod group {
    pub const GITLAB: &str = "GitLab";
    pub const OFFERED: &str = "Actions offered";
    pub const SAFETY: &str = "Safety";
    pub const RESULTS: &str = "Results";
    pub const SURFACE: &str = "MCP tools and resources";
    pub const LOGGING: &str = "Logging";
    pub const SERVER: &str = "MCP server";
    pub const SANDBOX: &str = "Sandbox";
}

#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// Base URL of your GitLab.
    #[arg(
        long,
        env = "GITLAB_URL",
        default_value = "https://gitlab.com",
        global = true,
        help_heading = group::GITLAB
    )]
    pub gitlab_url: String,

    /// Use the embedded sandbox GitLab instead (no token needed).
    #[arg(long, global = true, help_heading = group::SANDBOX)]
    pub sandbox: bool,

    /// Make the sandbox's token user (alice) an instance administrator.
    #[arg(long, env = "GITLAB_SANDBOX_ADMIN", value_parser = BoolishValueParser::new(), num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", global = true, help_heading = group::SANDBOX)]
    pub sandbox_admin: bool,

    /// Which tools to expose [default: dynamic; META_TOOLS=dynamic is also read].
    #[arg(
        long,
        env = "TOOL_SURFACE",
        value_enum,
        global = true,
        help_heading = group::SURFACE
    )]
    pub tool_surface: Option<SurfaceKind>,

    /// How much of each action's params a meta tool's schema spells out.
    #[arg(
        long,
        env = "META_PARAM_SCHEMA",
        value_enum,
        default_value_t,
        global = true,
        help_heading = group::SURFACE
    )]
    pub meta_param_schema: MetaSchema,

    /// Offer only actions that read.
    #[arg(long, env = "GITLAB_READ_ONLY", value_parser = BoolishValueParser::new(), num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", global = true, help_heading = group::OFFERED)]
    pub read_only: bool,

    /// Preview mutating actions instead of running them.
    #[arg(long, env = "GITLAB_SAFE_MODE", value_parser = BoolishValueParser::new(), num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", global = true, help_heading = group::SAFETY)]
    pub safe_mode: bool,

    /// Run destructive actions without `confirm: true`.
    #[arg(long, env = "GITLAB_YOLO_MODE", value_parser = BoolishValueParser::new(), num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", global = true, help_heading = group::SAFETY)]
    pub yolo_mode: bool,

    /// Hide what this GitLab's edition or this token cannot run (asks GitLab at startup).
    #[arg(long, env = "GITLAB_FIT_CATALOG", value_parser = BoolishValueParser::new(), num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "true", global = true, help_heading = group::GITLAB)]
    pub fit_catalog: bool,

    /// Action ids or globs not to offer, comma-separated (`project.delete,*.delete`).
    #[arg(
        long,
        env = "GITLAB_EXCLUDE_ACTIONS",
        default_value = "",
        hide_default_value = true,
        global = true,
        help_heading = group::OFFERED
    )]
    pub exclude_actions: String,

    /// How get results point at their gitlab:// resource.
    #[arg(
        long,
        env = "GITLAB_MCP_EMBEDDED_RESOURCES",
        value_enum,
        default_value_t,
        global = true,
        help_heading = group::RESULTS
    )]
    pub embedded_resources: EmbeddedResources,

    /// Which resources to offer: full, or minimal (only gitlab://tools).
    #[arg(
        long,
        env = "CAPABILITY_SURFACE",
        value_enum,
        default_value_t,
        global = true,
        help_heading = group::SURFACE
    )]
    pub capability_surface: CapabilitySurface,

    /// Log level on stderr.
    #[arg(
        long,
        env = "GITLAB_MCP_LOG",
        default_value = "warn",
        value_parser = PossibleValuesParser::new(["off", "error", "warn", "info", "debug", "trace"]),
        ignore_case = true,
        global = true,
        help_heading = group::LOGGING
    )]
    pub log: String,

    #[command(flatten)]
    pub connection: ConnectionOptions,

    /// The name the user gave each setting (`--read-only` or `GITLAB_READ_ONLY`), for
    /// messages about its value. Filled in by `cli::parse`.
    #[arg(skip)]
    pub names: SettingNames,
}

/// The flag or environment variable each setting came from, by clap id.
#[derive(Debug, Clone, Default)]
pub struct SettingNames(pub std::collections::BTreeMap<String, String>);

impl SettingNames {
    /// `--exclude-actions` or `GITLAB_EXCLUDE_ACTIONS`, as the user wrote it (the flag when
    /// the setting was not given at all).
    pub fn of(&self, id: &str) -> String {
        self.0
            .get(id)
            .cloned()
            .unwrap_or_else(|| format!("--{}", id.replace('_', "-")))
    }
}

/// How to reach GitLab and how long to wait: TLS, auth kind, deadline, retries, sizes.
#[derive(Debug, Clone, clap::Args)]
pub struct ConnectionOptions {
    /// How the token is sent: private-token (PRIVATE-TOKEN), oauth (Authorization: Bearer)
    /// or job-token (JOB-TOKEN; CI_JOB_TOKEN is read when GITLAB_TOKEN is unset).
    #[arg(
        long = "auth",
        env = "GITLAB_AUTH",
        value_enum,
        default_value_t,
        global = true,
        help_heading = group::GITLAB
    )]
    pub auth: AuthKind,

    /// A PEM file of extra trusted certificate authorities, for a GitLab behind a private CA.
    #[arg(long, env = "GITLAB_CA_FILE", global = true, help_heading = group::GITLAB)]
    pub ca_file: Option<std::path::PathBuf>,

    /// Accept any TLS certificate (unsafe: only to try things out).
    #[arg(long, env = "GITLAB_SKIP_TLS_VERIFY", value_parser = BoolishValueParser::new(), num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", global = true, help_heading = group::GITLAB)]
    pub skip_tls_verify: bool,

    /// Seconds one tool call may take, every retry included (such as 50 or 2.5).
    #[arg(long, env = "GITLAB_TIMEOUT", default_value = "50", value_parser = seconds, global = true, help_heading = group::GITLAB)]
    pub timeout: Duration,

    /// How many times a failed read (or a write GitLab never received) is tried again.
    #[arg(long, env = "GITLAB_RETRIES", default_value_t = DEFAULT_RETRIES, value_parser = clap::value_parser!(u32).range(0..=10), global = true, help_heading = group::GITLAB)]
    pub retries: u32,

    /// The most bytes one tool result may take.
    #[arg(long, env = "GITLAB_MCP_MAX_RESULT_BYTES", default_value_t = DEFAULT_RESULT_BYTES as u64, value_parser = clap::value_parser!(u64).range(MIN_RESULT_BYTES as u64..), global = true, help_heading = group::RESULTS)]
    pub max_result_bytes: u64,

    /// The largest JSON-RPC message accepted from the client.
    #[arg(long, env = "GITLAB_MCP_MAX_MESSAGE_BYTES", default_value_t = crate::server::DEFAULT_MAX_MESSAGE_BYTES, global = true, help_heading = group::SERVER)]
    pub max_message_bytes: usize,
}

fn seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .trim()
        .trim_end_matches('s')
        .parse()
        .map_err(|_| format!("expected seconds, such as 50 or 2.5, not {text:?}"))?;
    if !(0.1..=3600.0).contains(&value) {
        return Err("expected between 0.1 and 3600 seconds".into());
    }
    Ok(Duration::from_secs_f64(value))
}

impl ConnectionOptions {
    /// The client settings for `url` and `token`; warns on stderr about risky choices.
    pub fn client(&self, url: &str, token: Option<Token>) -> anyhow::Result<GitlabClient> {
        let checked = base_url::check(url).map_err(|e| anyhow::anyhow!(e))?;
        if let Some(warning) = &checked.warning {
            tracing::warn!("{warning}");
        }
        if self.skip_tls_verify {
            tracing::warn!(
                "GITLAB_SKIP_TLS_VERIFY is on: any certificate is accepted, so anyone on the network path can read the token. Use GITLAB_CA_FILE instead."
            );
        }
        let secrets = token
            .iter()
            .map(|t| t.expose())
            .chain(checked.password.as_deref());
        crate::redact::register_for_logs(secrets);
        let settings = ClientSettings {
            auth: self.auth,
            ca_file: self.ca_file.clone(),
            skip_tls_verify: self.skip_tls_verify,
            deadline: self.timeout,
            retries: self.retries,
            ..ClientSettings::new(checked.url, token)
        };
        Ok(GitlabClient::with_settings(settings))
    }

    pub fn context(&self, client: GitlabClient) -> Context {
        Context::new(client).with_result_budget(self.max_result_bytes as usize)
    }
}

/// What to tell someone who started the server with nothing to talk to.
pub const GETTING_STARTED: &str = "\
gitlab-mcp needs a GitLab to talk to.

  Try it now, with the embedded sandbox GitLab (no account needed):
    gitlab-mcp demo
    gitlab-mcp --sandbox call merge_request.list project_id=acme/platform/api

  Use your GitLab: create a personal access token with the `api` scope
  (GitLab > Preferences > Access tokens), then
    GITLAB_TOKEN=glpat-... gitlab-mcp                  # MCP over stdio
    GITLAB_URL=https://gitlab.example.com GITLAB_TOKEN=... gitlab-mcp

  MCP client snippets and every setting: see README.md.";

impl Options {
    /// The surface: `TOOL_SURFACE` wins, then the legacy `META_TOOLS`, then dynamic.
    pub fn surface(&self) -> anyhow::Result<SurfaceKind> {
        if let Some(kind) = self.tool_surface {
            return Ok(kind);
        }
        let Ok(value) = std::env::var("META_TOOLS") else {
            return Ok(SurfaceKind::Dynamic);
        };
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "dynamic" => Ok(SurfaceKind::Dynamic),
            "true" | "1" | "meta" | "yes" => Ok(SurfaceKind::Meta),
            "false" | "0" | "no" | "individual" => Ok(SurfaceKind::Individual),
            _ => anyhow::bail!(
                "invalid value '{value}' for META_TOOLS: expected true (meta tools), false (one tool per action) or dynamic; TOOL_SURFACE=dynamic|meta|individual is the current name"
            ),
        }
    }

    /// The policy; an exclusion pattern that matches no action is an error, since it
    /// almost always means a typo that would leave the action offered.
    pub fn policy(&self) -> anyhow::Result<Policy> {
        let exclude = Policy::parse_exclude(&self.exclude_actions);
        for pattern in &exclude {
            if let Some(problem) = Policy::unmatched_exclusion(pattern) {
                anyhow::bail!("{}: {problem}", self.names.of("exclude_actions"));
            }
        }
        Ok(Policy {
            read_only: self.read_only,
            safe_mode: self.safe_mode,
            yolo: self.yolo_mode,
            exclude,
            embedded_resources: self.embedded_resources,
            ..Policy::default()
        })
    }

    /// The dispatcher, fitted to the instance and token unless `GITLAB_FIT_CATALOG=false`.
    fn fitting(&self, dispatcher: Dispatcher) -> Dispatcher {
        if self.fit_catalog {
            dispatcher.with_fitting()
        } else {
            dispatcher
        }
    }

    /// Connects to GitLab, or starts the sandbox; `None` when there is no token and no
    /// sandbox, so the caller can print `GETTING_STARTED`.
    pub async fn connect(&self) -> anyhow::Result<Option<Connection>> {
        let policy = Arc::new(self.policy()?);
        if self.sandbox {
            let sandbox = self.start_sandbox().await?;
            // Which seed token the session uses: alice's (`sandbox-token`), bob's, alice's
            // `read_api` one (`sandbox-token-read`), or the administrator root's
            // (`sandbox-token-admin`).
            let token = std::env::var("GITLAB_SANDBOX_TOKEN")
                .ok()
                .filter(|t| !t.trim().is_empty())
                .unwrap_or_else(|| sandbox::TOKEN.to_owned());
            let client = self
                .connection
                .client(sandbox.url(), Some(Token::new(token)))?;
            let dispatcher = self.fitting(Dispatcher::new(self.connection.context(client), policy));
            return Ok(Some(Connection {
                dispatcher,
                sandbox: Some(sandbox),
            }));
        }
        let Some(token) = self.env_token() else {
            return Ok(None);
        };
        let client = self
            .connection
            .client(&self.gitlab_url, Some(Token::new(token.trim())))?;
        Ok(Some(Connection {
            dispatcher: self.fitting(Dispatcher::new(self.connection.context(client), policy)),
            sandbox: None,
        }))
    }
}

impl Options {
    /// The token from the environment: GITLAB_TOKEN, GITLAB_PERSONAL_ACCESS_TOKEN, or for
    /// job tokens CI_JOB_TOKEN.
    fn env_token(&self) -> Option<String> {
        let mut names = vec!["GITLAB_TOKEN", "GITLAB_PERSONAL_ACCESS_TOKEN"];
        if self.connection.auth == AuthKind::JobToken {
            names.push("CI_JOB_TOKEN");
        }
        names.iter().find_map(|name| {
            std::env::var(name)
                .ok()
                .map(|t| t.trim().to_owned())
                .filter(|t| !t.is_empty())
        })
    }

    /// GITLAB_URL's client for the HTTP server (or the sandbox's). It carries the server's
    /// own token only when `shared_token` says requests without one may use it; otherwise
    /// a token in the environment is left unread, with a warning.
    pub async fn upstream(&self, shared_token: bool) -> anyhow::Result<Upstream> {
        let (url, token, sandbox) = if self.sandbox {
            let sandbox = self.start_sandbox().await?;
            (
                sandbox.url().to_owned(),
                Some(sandbox::TOKEN.to_owned()),
                Some(sandbox),
            )
        } else {
            (self.gitlab_url.clone(), self.env_token(), None)
        };
        let token = match (shared_token, token) {
            (true, Some(token)) => Some(Token::new(token)),
            (true, None) => anyhow::bail!(
                "GITLAB_MCP_SHARED_TOKEN is on, but there is no GITLAB_TOKEN to share"
            ),
            (false, Some(_)) if !self.sandbox => {
                tracing::warn!(
                    "GITLAB_TOKEN is set but not used: over HTTP each request sends its own token (GITLAB_MCP_SHARED_TOKEN=true lets requests without one use it)"
                );
                None
            }
            (false, _) => None,
        };
        Ok(Upstream {
            gitlab: self.connection.client(&url, token)?,
            sandbox,
        })
    }
}

impl Options {
    /// The embedded sandbox on a loopback port, with the faults and edition the environment
    /// asks for (GITLAB_SANDBOX_FAULTS, GITLAB_SANDBOX_EDITION) and, with `--sandbox-admin`,
    /// its token user an administrator.
    async fn start_sandbox(&self) -> anyhow::Result<Sandbox> {
        self.sandbox_at(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
    }

    /// The sandbox on `address`, as `start_sandbox` sets it up (`gitlab-mcp sandbox --listen`).
    pub async fn sandbox_at(&self, address: std::net::SocketAddr) -> anyhow::Result<Sandbox> {
        let faults = match std::env::var("GITLAB_SANDBOX_FAULTS") {
            Ok(text) => {
                Faults::parse(&text).map_err(|e| anyhow::anyhow!("GITLAB_SANDBOX_FAULTS: {e}"))?
            }
            Err(_) => Faults::default(),
        };
        let sandbox = Sandbox::start(address, faults)
            .await
            .map_err(|error| anyhow::anyhow!("cannot listen on {address}: {error}"))?;
        sandbox.edition_from_env()?;
        if self.sandbox_admin {
            sandbox.make_token_user_admin();
        }
        Ok(sandbox)
    }
}

/// GITLAB_URL's client, and the sandbox it talks to, if any (kept alive here).
pub struct Upstream {
    pub gitlab: GitlabClient,
    pub sandbox: Option<Sandbox>,
}

/// A dispatcher talking to GitLab, and the sandbox it talks to, if any (kept alive here).
pub struct Connection {
    pub dispatcher: Dispatcher,
    pub sandbox: Option<Sandbox>,
}

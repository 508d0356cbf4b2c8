//! Configuration from flags and environment variables, resolved into what the server runs.
//!
//! Every setting is a flag with an environment variable (clap reads both; the flag wins).
//! The token is read from the environment only, never from a flag, so it does not show up
//! in process listings, and it is never printed.

use std::sync::Arc;

use clap::builder::BoolishValueParser;

use crate::dispatch::{Context, Dispatcher};
use crate::gitlab::{GitlabClient, Token};
use crate::policy::{EmbeddedResources, Policy};
use crate::resources::CapabilitySurface;
use crate::sandbox::{self, Faults, Sandbox};
use crate::surfaces::{MetaSchema, SurfaceKind};

#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// Base URL of your GitLab.
    #[arg(
        long,
        env = "GITLAB_URL",
        default_value = "https://gitlab.com",
        global = true
    )]
    pub gitlab_url: String,

    /// Use the embedded sandbox GitLab instead (no token needed).
    #[arg(long, global = true)]
    pub sandbox: bool,

    /// Which tools to expose [default: dynamic; META_TOOLS=dynamic is also read].
    #[arg(long, env = "TOOL_SURFACE", value_enum, global = true)]
    pub tool_surface: Option<SurfaceKind>,

    /// How much of each action's params a meta tool's schema spells out.
    #[arg(
        long,
        env = "META_PARAM_SCHEMA",
        value_enum,
        default_value_t,
        global = true
    )]
    pub meta_param_schema: MetaSchema,

    /// Offer only actions that read.
    #[arg(long, env = "GITLAB_READ_ONLY", value_parser = BoolishValueParser::new(), num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", global = true)]
    pub read_only: bool,

    /// Preview mutating actions instead of running them.
    #[arg(long, env = "GITLAB_SAFE_MODE", value_parser = BoolishValueParser::new(), num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", global = true)]
    pub safe_mode: bool,

    /// Run destructive actions without `confirm: true`.
    #[arg(long, env = "GITLAB_YOLO_MODE", value_parser = BoolishValueParser::new(), num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", global = true)]
    pub yolo_mode: bool,

    /// Action ids or globs not to offer, comma-separated (`project.delete,*.delete`).
    #[arg(
        long,
        env = "GITLAB_EXCLUDE_ACTIONS",
        default_value = "",
        global = true
    )]
    pub exclude_actions: String,

    /// How get results point at their gitlab:// resource: link, embed or off.
    #[arg(
        long,
        env = "GITLAB_MCP_EMBEDDED_RESOURCES",
        default_value = "link",
        global = true
    )]
    pub embedded_resources: String,

    /// Which resources to offer: full, or minimal (only gitlab://tools).
    #[arg(
        long,
        env = "CAPABILITY_SURFACE",
        value_enum,
        default_value_t,
        global = true
    )]
    pub capability_surface: CapabilitySurface,

    /// Log level on stderr: error, warn, info, debug or trace.
    #[arg(long, env = "GITLAB_MCP_LOG", default_value = "warn", global = true)]
    pub log: String,
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
    pub fn surface(&self) -> SurfaceKind {
        if let Some(kind) = self.tool_surface {
            return kind;
        }
        match std::env::var("META_TOOLS").map(|v| v.trim().to_ascii_lowercase()) {
            Ok(value) if value == "dynamic" => SurfaceKind::Dynamic,
            Ok(value) if ["true", "1", "meta", "yes"].contains(&value.as_str()) => {
                SurfaceKind::Meta
            }
            Ok(value) if ["false", "0", "no", "individual"].contains(&value.as_str()) => {
                SurfaceKind::Individual
            }
            _ => SurfaceKind::Dynamic,
        }
    }

    pub fn policy(&self) -> anyhow::Result<Policy> {
        let embedded_resources =
            EmbeddedResources::parse(&self.embedded_resources).ok_or_else(|| {
                anyhow::anyhow!(
                    "GITLAB_MCP_EMBEDDED_RESOURCES must be link, embed or off, not {:?}",
                    self.embedded_resources
                )
            })?;
        Ok(Policy {
            read_only: self.read_only,
            safe_mode: self.safe_mode,
            yolo: self.yolo_mode,
            exclude: Policy::parse_exclude(&self.exclude_actions),
            embedded_resources,
        })
    }

    /// Connects to GitLab, or starts the sandbox; `None` when there is no token and no
    /// sandbox, so the caller can print `GETTING_STARTED`.
    pub async fn connect(&self) -> anyhow::Result<Option<Connection>> {
        let policy = Arc::new(self.policy()?);
        if self.sandbox {
            let faults = match std::env::var("GITLAB_SANDBOX_FAULTS") {
                Ok(text) => Faults::parse(&text)
                    .map_err(|e| anyhow::anyhow!("GITLAB_SANDBOX_FAULTS: {e}"))?,
                Err(_) => Faults::default(),
            };
            let sandbox =
                Sandbox::start(std::net::SocketAddr::from(([127, 0, 0, 1], 0)), faults).await?;
            let client = GitlabClient::new(sandbox.url(), Some(Token::new(sandbox::TOKEN)));
            let dispatcher = Dispatcher::new(Context::new(client), policy);
            return Ok(Some(Connection {
                dispatcher,
                sandbox: Some(sandbox),
            }));
        }
        let token = ["GITLAB_TOKEN", "GITLAB_PERSONAL_ACCESS_TOKEN"]
            .iter()
            .find_map(|name| std::env::var(name).ok().filter(|t| !t.trim().is_empty()));
        let Some(token) = token else { return Ok(None) };
        let client = GitlabClient::new(&self.gitlab_url, Some(Token::new(token.trim())));
        Ok(Some(Connection {
            dispatcher: Dispatcher::new(Context::new(client), policy),
            sandbox: None,
        }))
    }
}

/// A dispatcher talking to GitLab, and the sandbox it talks to, if any (kept alive here).
pub struct Connection {
    pub dispatcher: Dispatcher,
    pub sandbox: Option<Sandbox>,
}

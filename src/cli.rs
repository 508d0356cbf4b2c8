//! The command line: `serve` (the default), `call`, `catalog`, `demo`, `sandbox`, `docs`
//! and `codegen`. Every command runs through the same dispatcher as the MCP server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::{Map, Value};

use crate::config::{GETTING_STARTED, Options};
use crate::output::json::to_pretty;
use crate::server::{GitlabServer, call_result, serve_stdio};
use crate::surfaces::Surface;

#[derive(Debug, Parser)]
#[command(name = "gitlab-mcp", version, about = "A Model Context Protocol server for GitLab.", long_about = None)]
pub struct Cli {
    #[command(flatten)]
    pub options: Options,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the MCP server: over stdio (the default), or over Streamable HTTP with --http.
    Serve(ServeArgs),
    /// Run one action and print its Markdown (or, with --json, the whole tool result).
    Call {
        /// Action id, such as merge_request.list.
        action: String,
        /// Parameters; values that parse as JSON (numbers, true, [1,2]) are read as JSON.
        #[arg(value_name = "KEY=VALUE")]
        params: Vec<String>,
        /// Print the whole MCP tool result as JSON.
        #[arg(long)]
        json: bool,
        /// Print the structured result after the Markdown.
        #[arg(long)]
        structured: bool,
        /// Confirm a destructive action.
        #[arg(long)]
        confirm: bool,
    },
    /// Search the catalog as `gitlab_find_action` does (for tuning and debugging).
    Find {
        /// The request, in plain words.
        query: String,
        /// How many actions to show.
        #[arg(long, default_value_t = 5)]
        limit: usize,
        /// Show why each action scored as it did.
        #[arg(long)]
        explain: bool,
    },
    /// List every action.
    Catalog {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// A short MCP session against the sandbox, printed for a person to read.
    Demo,
    /// Serve the sandbox GitLab alone over HTTP (for benchmarks, other servers, curl).
    Sandbox {
        /// Address to listen on; port 0 picks a free port.
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: SocketAddr,
    },
    /// Rewrite the files in generated/ from the catalog and templates.
    Docs {
        /// Folder to write into.
        #[arg(long, default_value = "generated")]
        out: PathBuf,
        /// Only check that the folder is up to date.
        #[arg(long)]
        check: bool,
    },
    /// Print the Rust that build.rs generated from actions/.
    Codegen,
    /// Compare every action's method and path with GitLab's OpenAPI v2 spec (maintainers).
    SpecCheck {
        /// GitLab's OpenAPI v2 document (openapi_v2.yaml).
        spec: PathBuf,
    },
    /// Check the entity types against GitLab's response schemas and keep the decoding
    /// fixtures derived from them fresh (maintainers).
    ShapeCheck {
        /// GitLab's `spec/fixtures/api/schemas` folder.
        schemas: PathBuf,
        /// Where the derived fixtures live.
        #[arg(long, default_value = "tests/fixtures/shapes")]
        fixtures: PathBuf,
        /// Rewrite the fixtures instead of checking them.
        #[arg(long)]
        write: bool,
    },
    /// Draft an action's YAML from one operation of GitLab's OpenAPI v2 spec (maintainers).
    Scaffold {
        /// GitLab's OpenAPI v2 document (openapi_v2.yaml).
        #[arg(long)]
        spec: PathBuf,
        /// The operation, such as "GET /projects/:id/merge_requests".
        #[arg(value_name = "METHOD /path")]
        operation: String,
    },
}

/// `serve`'s own settings: the HTTP transport and its protections.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub http: crate::http::HttpOptions,
}

pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let options = cli.options;
    let command = match cli.command {
        Some(command) => command,
        None => Command::Serve(ServeArgs::from_environment()?),
    };
    match command {
        Command::Serve(serve) => {
            if let Some(settings) = serve.http.settings(options.connection.max_message_bytes)? {
                serve_http(&options, settings).await?;
                return Ok(ExitCode::SUCCESS);
            }
            let Some(connection) = options.connect().await? else {
                eprintln!("{GETTING_STARTED}");
                return Ok(ExitCode::from(2));
            };
            let policy = std::sync::Arc::new(options.policy()?);
            let surface = Surface::new(options.surface(), options.meta_param_schema, policy);
            let server =
                GitlabServer::new(connection.dispatcher, surface, options.capability_surface);
            // The sandbox, if any, lives as long as the server.
            let _sandbox = connection.sandbox;
            serve_stdio(server, options.connection.max_message_bytes).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Call {
            action,
            params,
            json,
            structured,
            confirm,
        } => {
            let args = parse_params(&params)?;
            let Some(connection) = options.connect().await? else {
                eprintln!("{GETTING_STARTED}");
                return Ok(ExitCode::from(2));
            };
            let outcome = connection.dispatcher.call(&action, args, confirm).await;
            if json {
                let result = serde_json::to_value(call_result(&outcome))?;
                say!("{}", to_pretty(&result))?;
            } else {
                say!("{}", outcome.text)?;
                if structured && let Some(value) = &outcome.structured {
                    say!("\n---- structuredContent ----\n{}", to_pretty(value))?;
                }
            }
            Ok(if outcome.is_error {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Find {
            query,
            limit,
            explain,
        } => {
            let index = crate::search::Index::new(&options.policy()?);
            let found = index.find(&crate::search::FindRequest {
                query,
                limit,
                explain,
            });
            for hit in &found.hits {
                say!(
                    "{:>5}  {:<28} {}",
                    hit.score,
                    hit.action.id,
                    hit.reasons.join("; ")
                )?;
            }
            if !found.ambiguous.is_empty() {
                say!("ambiguous: {}", found.ambiguous.join(", "))?;
            }
            if let Some(missing) = &found.missing {
                say!("{missing}")?;
            }
            if found.hits.is_empty() && !found.suggestions.is_empty() {
                say!(
                    "nothing matched; try words such as {}",
                    found.suggestions.join(", ")
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Catalog { json } => {
            let policy = options.policy()?;
            let actions: Vec<_> = policy.visible().collect();
            if json {
                let entries: Vec<Value> = actions
                    .iter()
                    .map(|a| crate::docs::catalog_entry(a))
                    .collect();
                say!("{}", to_pretty(&Value::Array(entries)))?;
            } else {
                for action in actions {
                    let flag = if action.safety.destructive {
                        "destructive"
                    } else if action.safety.read_only {
                        "read"
                    } else {
                        "write"
                    };
                    say!(
                        "{:<28} {:<6} {:<62} {}",
                        action.id,
                        action.method.as_str(),
                        action.path,
                        flag
                    )?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Demo => crate::demo::run(&options).await,
        Command::Sandbox { listen } => {
            let faults = match std::env::var("GITLAB_SANDBOX_FAULTS") {
                Ok(text) => crate::sandbox::Faults::parse(&text)
                    .map_err(|e| anyhow::anyhow!("GITLAB_SANDBOX_FAULTS: {e}"))?,
                Err(_) => crate::sandbox::Faults::default(),
            };
            let sandbox = crate::sandbox::Sandbox::start(listen, faults).await?;
            say!("{}", sandbox.url())?;
            eprintln!(
                "Sandbox GitLab on {} (API at /api/v4; token `{}` is alice, `{}` is bob). Ctrl-C stops it.",
                sandbox.url(),
                crate::sandbox::TOKEN,
                crate::sandbox::TOKEN_BOB
            );
            use std::io::Write as _;
            std::io::stdout().flush()?;
            sandbox.serve_until_signal().await;
            Ok(ExitCode::SUCCESS)
        }
        Command::Docs { out, check } => {
            let stale = crate::docs::write_all(&out, check)?;
            for file in &stale {
                if check {
                    eprintln!("{} is out of date", file.display());
                } else {
                    eprintln!("rewrote {}", file.display());
                }
            }
            if check && !stale.is_empty() {
                eprintln!("Run `cargo run -- docs` to regenerate it.");
                return Ok(ExitCode::FAILURE);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Codegen => {
            use std::io::Write as _;
            std::io::stdout().write_all(include_bytes!(concat!(env!("OUT_DIR"), "/actions.rs")))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::SpecCheck { spec } => {
            let report = crate::spec::check(&crate::spec::Spec::read(&spec)?);
            say!("{}", report.text().trim_end())?;
            Ok(if report.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::ShapeCheck {
            schemas,
            fixtures,
            write,
        } => {
            let schemas = crate::spec::Schemas::new(&schemas);
            let report = crate::spec::check_shapes(&schemas);
            say!("{}", report.text().trim_end())?;
            let stale = crate::spec::write_fixtures(&schemas, &fixtures, !write)?;
            for path in &stale {
                let verb = if write { "rewrote" } else { "stale:" };
                eprintln!("{verb} {}", path.display());
            }
            if !write && !stale.is_empty() {
                eprintln!(
                    "Run `cargo run -- shape-check <schemas> --write` and review the fixtures."
                );
                return Ok(ExitCode::FAILURE);
            }
            Ok(if report.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Scaffold { spec, operation } => {
            let draft = crate::spec::scaffold(&crate::spec::Spec::read(&spec)?, &operation)?;
            say!("{}", draft.trim_end())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

impl ServeArgs {
    /// `serve`'s settings when no command is given: from the environment (so
    /// `GITLAB_MCP_HTTP=0.0.0.0:8080 gitlab-mcp` serves HTTP), else the defaults.
    fn from_environment() -> anyhow::Result<Self> {
        use clap::{Args as _, FromArgMatches as _};
        let matches =
            Self::augment_args(clap::Command::new("serve")).try_get_matches_from(["serve"])?;
        Ok(Self::from_arg_matches(&matches)?)
    }
}

/// `serve --http`: one server for many users, each request with its own token.
async fn serve_http(options: &Options, settings: crate::http::HttpSettings) -> anyhow::Result<()> {
    let upstream = options.upstream(settings.shared_token).await?;
    let policy = std::sync::Arc::new(options.policy()?);
    let surface = Surface::new(options.surface(), options.meta_param_schema, policy.clone());
    let server = GitlabServer::per_request(
        policy,
        options.connection.max_result_bytes as usize,
        surface,
        options.capability_surface,
    );
    crate::http::serve(server, &upstream.gitlab, settings).await
}

/// `key=value` pairs; a value that parses as JSON is taken as JSON, otherwise as text.
pub fn parse_params(pairs: &[String]) -> anyhow::Result<Map<String, Value>> {
    let mut args = Map::new();
    for pair in pairs {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("expected KEY=VALUE, got `{pair}`"))?;
        let value = match serde_json::from_str::<Value>(value) {
            Ok(
                parsed @ (Value::Number(_)
                | Value::Bool(_)
                | Value::Array(_)
                | Value::Object(_)
                | Value::Null),
            ) => parsed,
            _ => Value::String(value.to_owned()),
        };
        args.insert(key.trim().to_owned(), value);
    }
    Ok(args)
}

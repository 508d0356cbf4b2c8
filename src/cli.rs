//! The command line: `serve` (the default), `call`, `find`, `catalog`, `demo`, `sandbox`,
//! `docs`, `codegen`, `spec-check`, `shape-check` and `scaffold`. Every command runs
//! through the same dispatcher as the MCP server.
//!
//! Settings are global flags (each with an environment variable), so `gitlab-mcp --sandbox
//! call ...` and `gitlab-mcp call ... --sandbox` both work; each command shows and accepts
//! only the groups of settings it uses (`GROUPS`). `parse` checks what clap cannot: that an
//! environment variable's value is valid (naming the variable, not the flag), and that no
//! flag is given to a command it does nothing for.

use std::ffi::OsString;
use std::io::IsTerminal as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::{Map, Value};

use crate::config::{GETTING_STARTED, Options, group};
use crate::dispatch::Dispatcher;
use crate::output::json::to_pretty;
use crate::sandbox::Sandbox;
use crate::server::{GitlabServer, Stop, call_result, serve_stdio};
use crate::surfaces::Surface;
use crate::vocabulary::Vocabulary;

const EXAMPLES: &str = "\
Environment:
  GITLAB_TOKEN  Your GitLab personal access token (scope `api`, or `read_api` for
                --read-only). Read from the environment only, never a flag;
                GITLAB_PERSONAL_ACCESS_TOKEN works too.
  GITLAB_URL    Your GitLab, such as https://gitlab.example.com [default: https://gitlab.com]
  Every setting above has a variable too, shown as [env: ...].

Examples:
  gitlab-mcp demo        # an MCP session on the embedded sandbox GitLab, no token needed
  GITLAB_URL=https://gitlab.example.com GITLAB_TOKEN=glpat-... gitlab-mcp call user.current";

#[derive(Debug, Parser)]
#[command(
    name = "gitlab-mcp",
    version,
    about = "A Model Context Protocol server for GitLab. With no command, it serves MCP over stdio.",
    long_about = None,
    after_help = EXAMPLES
)]
pub struct Cli {
    #[command(flatten)]
    pub options: Options,

    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// Whether this run serves MCP over HTTP: `serve --http`, or no command and
    /// `GITLAB_MCP_HTTP` set.
    pub fn serves_http(&self) -> bool {
        match &self.command {
            Some(Command::Serve(serve)) => serve.http.http.is_some(),
            None => ServeArgs::from_environment().is_ok_and(|serve| serve.http.http.is_some()),
            Some(_) => false,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the MCP server: over stdio (the default), or over Streamable HTTP with --http.
    Serve(ServeArgs),
    /// Run one action and print its Markdown (or, with --json, the whole tool result).
    #[command(
        after_help = "Example:\n  gitlab-mcp --sandbox call merge_request.list project_id=acme/platform/api state=opened"
    )]
    Call {
        /// Action id, such as merge_request.list.
        action: String,
        /// Parameters; values that parse as JSON (numbers, true, [1,2]) are read as JSON, except
        /// for a parameter the action declares as text, which gets the text typed.
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
    /// Render a workflow prompt as `prompts/get` does; with no name, list the prompts.
    #[command(
        after_help = "Example:\n  gitlab-mcp --sandbox prompt review_merge_request project_id=acme/platform/api merge_request_iid=42"
    )]
    Prompt {
        /// The prompt's name, such as review_merge_request.
        name: Option<String>,
        /// The prompt's arguments.
        #[arg(value_name = "KEY=VALUE")]
        arguments: Vec<String>,
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
        /// Also list the spec's operations no action covers, one per line as `scaffold`
        /// takes them: where a new action can come from.
        #[arg(long)]
        uncovered: bool,
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
    /// Draft every file of a new action from one operation of GitLab's OpenAPI v2 spec (maintainers)
    ///
    /// The YAML in its domain's file, its entity type, sandbox records, request lines and the
    /// snapshot case; printed, or written into the repository with --write.
    Scaffold {
        /// GitLab's OpenAPI v2 document (openapi_v2.yaml).
        #[arg(long)]
        spec: PathBuf,
        /// GitLab's response schemas (`spec/fixtures/api/schemas/`), for the entity type;
        /// without it, the spec's response model.
        #[arg(long)]
        schemas: Option<PathBuf>,
        /// The repository the drafts are for (its manifest's conventions and data).
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Write the drafts into the repository instead of printing them.
        #[arg(long)]
        write: bool,
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

/// The groups of settings (help headings in `config::Options`) each command uses; the
/// others are left out of its help and refused on its command line. Running with no
/// command serves, so the top level shows every group.
pub const GROUPS: &[(&str, &[&str])] = &[
    (
        "serve",
        &[
            group::GITLAB,
            group::SANDBOX,
            group::OFFERED,
            group::SAFETY,
            group::RESULTS,
            group::SURFACE,
            group::SERVER,
            group::LOGGING,
        ],
    ),
    (
        "call",
        &[
            group::GITLAB,
            group::SANDBOX,
            group::OFFERED,
            group::SAFETY,
            group::RESULTS,
            group::LOGGING,
        ],
    ),
    (
        "prompt",
        &[
            group::GITLAB,
            group::SANDBOX,
            group::OFFERED,
            group::SAFETY,
            group::RESULTS,
            group::LOGGING,
        ],
    ),
    ("find", &[group::OFFERED]),
    ("catalog", &[group::OFFERED]),
    ("demo", &[group::SURFACE]),
    ("sandbox", &[group::SANDBOX, group::LOGGING]),
    ("docs", &[]),
    ("codegen", &[]),
    ("spec-check", &[]),
    ("shape-check", &[]),
    ("scaffold", &[]),
];

/// The command line's definition, with each command showing only its own settings.
pub fn command() -> clap::Command {
    let mut command = Cli::command();
    let settings: Vec<clap::Arg> = command
        .get_arguments()
        .filter(|arg| arg.is_global_set())
        .cloned()
        .collect();
    for (name, groups) in GROUPS {
        command = command.mut_subcommand(name, |mut sub| {
            // clap does not hand a global setting to a command that has its own of that
            // name: a hidden copy keeps the setting out of this command's help, and
            // `refuse_unused_flags` refuses it when it is given anyway.
            for arg in &settings {
                if arg
                    .get_help_heading()
                    .is_some_and(|heading| !groups.contains(&heading))
                {
                    sub = sub.arg(arg.clone().global(false).hide(true));
                }
            }
            sub
        });
    }
    command
}

/// Ids of the settings in `command` whose group is not in `groups`.
fn unused_settings(command: &clap::Command, groups: &[&str]) -> Vec<clap::Id> {
    command
        .get_arguments()
        .filter(|arg| {
            arg.get_help_heading()
                .is_some_and(|heading| !groups.contains(&heading))
        })
        .map(|arg| arg.get_id().clone())
        .collect()
}

/// A command line that cannot run, with what to say about it.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Parses the process's arguments; prints help, the version or the problem and exits
/// when there is nothing to run.
pub fn parse() -> Cli {
    match try_parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(ParseError::Clap(error)) => error.exit(),
        Err(ParseError::Usage(error)) => {
            eprintln!("error: {error}\n\nFor more information, try '--help'.");
            std::process::exit(2);
        }
    }
}

pub enum ParseError {
    /// clap's own answer (help, version, or a flag it refused).
    Clap(clap::Error),
    Usage(UsageError),
}

pub fn try_parse_from(
    args: impl IntoIterator<Item = impl Into<OsString>>,
) -> Result<Cli, ParseError> {
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let mut command = command();
    check_environment(&command, &args).map_err(ParseError::Usage)?;
    let matches = command
        .try_get_matches_from_mut(&args)
        .map_err(ParseError::Clap)?;
    if let Some((name, sub)) = matches.subcommand() {
        refuse_unused_flags(&command, name, &matches, sub).map_err(ParseError::Usage)?;
    }
    let mut cli = Cli::from_arg_matches(&matches).map_err(ParseError::Clap)?;
    for arg in command.get_arguments() {
        let id = arg.get_id().as_str();
        let name = match (matches.value_source(id), arg.get_env(), arg.get_long()) {
            (Some(ValueSource::EnvVariable), Some(env), _) => env.to_string_lossy().into_owned(),
            (_, _, Some(long)) => format!("--{long}"),
            _ => continue,
        };
        cli.options.names.0.insert(id.to_owned(), name);
    }
    Ok(cli)
}

/// clap names the flag when an environment variable holds a bad value; check each
/// variable first, with the flag's own parser, and name the variable.
fn check_environment(command: &clap::Command, args: &[OsString]) -> Result<(), UsageError> {
    for arg in command.get_arguments() {
        let (Some(env), Some(long)) = (arg.get_env(), arg.get_long()) else {
            continue;
        };
        let Some(value) = std::env::var_os(env).filter(|v| !v.is_empty()) else {
            continue;
        };
        let flag = format!("--{long}");
        let given = args.iter().skip(1).any(|a| {
            a.to_str()
                .is_some_and(|a| a == flag || a.starts_with(&format!("{flag}=")))
        });
        if given {
            continue; // The flag wins; the variable is not read.
        }
        let probe = clap::Command::new("gitlab-mcp")
            .no_binary_name(true)
            .arg(arg.clone().env(None).global(false).required(false));
        let mut setting = OsString::from(format!("{flag}="));
        setting.push(&value);
        if let Err(error) = probe.try_get_matches_from([setting]) {
            let valid = match error.get(clap::error::ContextKind::ValidValue) {
                Some(clap::error::ContextValue::Strings(values)) => {
                    format!("\n  [possible values: {}]", values.join(", "))
                }
                _ => String::new(),
            };
            return Err(UsageError(format!(
                "invalid value '{}' in the environment variable {} (the setting of {flag}){valid}",
                value.to_string_lossy(),
                env.to_string_lossy()
            )));
        }
    }
    Ok(())
}

/// A setting given on the command line to a command that does not use it is a mistake
/// (`gitlab-mcp codegen --gitlab-url ...`), not something to ignore.
fn refuse_unused_flags(
    command: &clap::Command,
    name: &str,
    top: &clap::ArgMatches,
    sub: &clap::ArgMatches,
) -> Result<(), UsageError> {
    let Some((_, groups)) = GROUPS.iter().find(|(command, _)| *command == name) else {
        return Ok(());
    };
    let Some(subcommand) = command.find_subcommand(name) else {
        return Ok(());
    };
    for id in unused_settings(subcommand, groups) {
        let given = [top, sub]
            .iter()
            .any(|m| m.value_source(id.as_str()) == Some(ValueSource::CommandLine));
        if !given {
            continue;
        }
        let flag = subcommand
            .get_arguments()
            .find(|arg| *arg.get_id() == id)
            .and_then(|arg| arg.get_long())
            .map_or_else(|| id.to_string(), |long| format!("--{long}"));
        let users: Vec<&str> = GROUPS
            .iter()
            .filter(|(_, groups)| {
                subcommand
                    .get_arguments()
                    .find(|arg| *arg.get_id() == id)
                    .and_then(|arg| arg.get_help_heading())
                    .is_some_and(|heading| groups.contains(&heading))
            })
            .map(|(command, _)| *command)
            .collect();
        return Err(UsageError(format!(
            "`{flag}` does nothing for `gitlab-mcp {name}`; it applies to {}",
            users
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(())
}

/// What `gitlab-mcp` says, once, when a person starts it in a terminal.
pub const TERMINAL_HELLO: &str = "\
gitlab-mcp is an MCP server: it talks JSON-RPC over stdin and stdout with an MCP client
(Claude, Cursor, VS Code, ...), and it is now waiting for one. Ctrl-C stops it.
To try it yourself:
  gitlab-mcp demo          an MCP session on the embedded sandbox GitLab
  gitlab-mcp --sandbox call merge_request.list project_id=acme/platform/api
  gitlab-mcp --help        every command and setting";

pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let options = cli.options;
    let command = match cli.command {
        Some(command) => command,
        None => Command::Serve(ServeArgs::from_environment()?),
    };
    match command {
        Command::Serve(serve) => {
            // Before anything that takes time: a signal during start-up stops the server.
            let stop = Stop::listen();
            if let Some(settings) = serve
                .http
                .settings(options.connection.max_message_bytes, options.read_only)?
            {
                serve_http(&options, settings, stop).await?;
                return Ok(ExitCode::SUCCESS);
            }
            let Some(connection) = options.connect().await? else {
                eprintln!("{GETTING_STARTED}");
                return Ok(ExitCode::from(2));
            };
            // The surface lists what the dispatcher runs: one policy, fitted once.
            let policy = connection.dispatcher.shared_policy();
            let surface = Surface::new(options.surface()?, options.meta_param_schema, policy);
            if std::io::stdin().is_terminal() {
                eprintln!("{TERMINAL_HELLO}");
            }
            let server =
                GitlabServer::new(connection.dispatcher, surface, options.capability_surface);
            // The sandbox, if any, lives as long as the server.
            let _sandbox = connection.sandbox;
            serve_stdio(server, options.connection.max_message_bytes, stop).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Call {
            action,
            params,
            json,
            structured,
            confirm,
        } => {
            let text = |key: &str| declared_text(&action, key);
            let (args, dispatcher, _sandbox) = match one_shot(&options, &params, &text).await? {
                Ok(ready) => ready,
                Err(code) => return Ok(code),
            };
            let outcome = dispatcher.call(&action, args, confirm).await;
            if json {
                // Straight from the result's own types: a detour through `Value` would
                // print the f32 priority 0.6 as 0.6000000238418579.
                say!("{}", to_pretty(&call_result(&outcome)))?;
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
        Command::Prompt { name, arguments } => {
            let Some(name) = name else {
                let policy = options.policy()?;
                for prompt in crate::prompts::all() {
                    if crate::prompts::offered(prompt, &policy) {
                        say!("{:<24}  {}", prompt.name, prompt.title)?;
                    }
                }
                return Ok(ExitCode::SUCCESS);
            };
            let Some(prompt) = crate::prompts::find(&name) else {
                let names: Vec<&str> = crate::prompts::all()
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect();
                eprintln!(
                    "error: no prompt `{name}`; the prompts are {}",
                    names.join(", ")
                );
                return Ok(ExitCode::from(2));
            };
            let (arguments, dispatcher, _sandbox) =
                match one_shot(&options, &arguments, &|_| false).await? {
                    Ok(ready) => ready,
                    Err(code) => return Ok(code),
                };
            match crate::prompts::render(&dispatcher, prompt, &arguments).await {
                Ok(rendered) => {
                    say!("{}", rendered.text.trim_end())?;
                    Ok(ExitCode::SUCCESS)
                }
                Err(error) => {
                    eprintln!("error: {error}");
                    Ok(ExitCode::from(2))
                }
            }
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
            let width = found
                .hits
                .iter()
                .map(|hit| hit.action.id.len())
                .max()
                .unwrap_or(0);
            for hit in &found.hits {
                let line = format!(
                    "{:>5}  {:<width$}  {}",
                    hit.score,
                    hit.action.id,
                    if explain {
                        hit.reasons.join("; ")
                    } else {
                        hit.action.title.to_owned()
                    }
                );
                say!("{}", line.trim_end())?;
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
                say!("{}", catalog_table(&actions))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Demo => crate::demo::run(&options).await,
        Command::Sandbox { listen } => {
            let stop = Stop::listen();
            let sandbox = options.sandbox_at(listen).await?;
            say!("{}", sandbox.url())?;
            eprintln!(
                "Sandbox GitLab on {} (API at /api/v4; token `{}` is alice{}, `{}` is bob, `{}` is root, an administrator). Ctrl-C stops it.",
                sandbox.url(),
                crate::sandbox::TOKEN,
                if options.sandbox_admin {
                    ", an administrator"
                } else {
                    ""
                },
                crate::sandbox::TOKEN_BOB,
                crate::sandbox::TOKEN_ADMIN
            );
            use std::io::Write as _;
            std::io::stdout().flush()?;
            sandbox.serve_until(stop).await;
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
            // Read from the build directory rather than embedded: at 1,000 actions the
            // source would be megabytes of every binary.
            let path = concat!(env!("OUT_DIR"), "/actions.rs");
            let source = std::fs::read(path).map_err(|error| {
                anyhow::anyhow!(
                    "the generated source is in the build directory of this binary ({path}), which is not here ({error}); run `cargo run -- codegen` in the project"
                )
            })?;
            use std::io::Write as _;
            std::io::stdout().write_all(&source)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::SpecCheck { spec, uncovered } => {
            let report = crate::spec::check(&crate::spec::Spec::read(&spec)?);
            say!("{}", report.text().trim_end())?;
            if uncovered {
                say!(
                    "\nNo action covers these {} operations yet:",
                    report.uncovered.len()
                )?;
                for operation in &report.uncovered {
                    say!("  {operation}")?;
                }
            }
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
        Command::Scaffold {
            spec,
            schemas,
            root,
            write,
            operation,
        } => {
            let schemas = schemas.as_deref().map(crate::spec::Schemas::new);
            let options = crate::spec::ScaffoldOptions {
                root: &root,
                schemas: schemas.as_ref(),
            };
            let drafts =
                crate::spec::scaffold(&crate::spec::Spec::read(&spec)?, &operation, &options)?;
            if write {
                for path in drafts.write(&root)? {
                    say!("wrote {}", path.display())?;
                }
                say!("{}", drafts.review_text().trim_end())?;
            } else {
                say!("{}", drafts.text().trim_end())?;
            }
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

/// `serve --http`: one server for many users, each request with its own token, and the
/// catalog fitted per token unless `GITLAB_FIT_CATALOG=false`.
async fn serve_http(
    options: &Options,
    settings: crate::http::HttpSettings,
    stop: Stop,
) -> anyhow::Result<()> {
    let upstream = options.upstream(settings.shared_token).await?;
    let kind = options.surface()?;
    let views = crate::views::Views::new(
        options.policy()?,
        kind,
        options.meta_param_schema,
        options.fit_catalog,
    );
    let server = GitlabServer::per_request(
        views,
        options.connection.max_result_bytes as usize,
        kind,
        options.capability_surface,
    );
    // Each token's view builds its own search index on its first find; what they share
    // (the catalog's texts, read for search) is read once, now, as over stdio.
    let early = server.clone();
    tokio::spawn(async move { early.prepare().await });
    crate::http::serve(server, &upstream.gitlab, settings, stop).await
}

/// The catalog for a person: a header, aligned columns, one line per action, no trailing
/// spaces. (`--json` has the parameters, paths and schemas.)
fn catalog_table(actions: &[&crate::catalog::Action]) -> String {
    let rows: Vec<[&str; 3]> = actions
        .iter()
        .map(|action| {
            let safety = if action.safety.destructive {
                "destructive"
            } else if action.safety.read_only {
                "read"
            } else {
                "write"
            };
            [action.id, safety, action.title]
        })
        .collect();
    let header = ["ACTION", "SAFETY", "DESCRIPTION"];
    let width = |column: usize| {
        rows.iter()
            .map(|row| row[column].len())
            .chain([header[column].len()])
            .max()
            .unwrap_or(0)
    };
    let (id, safety) = (width(0), width(1));
    std::iter::once(header)
        .chain(rows)
        .map(|[a, b, c]| format!("{a:<id$}  {b:<safety$}  {c}").trim_end().to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// What `call` and `prompt` need before they run: the `key=value` arguments (`text` says
/// which keys are read as text whatever they look like), and a dispatcher that speaks the
/// command line's vocabulary, with the sandbox it may talk to (kept alive by the caller). A
/// usage problem was already reported: its exit code.
async fn one_shot(
    options: &Options,
    pairs: &[String],
    text: &dyn Fn(&str) -> bool,
) -> anyhow::Result<Result<(Map<String, Value>, Dispatcher, Option<Sandbox>), ExitCode>> {
    let arguments = match parse_params(pairs, text) {
        Ok(arguments) => arguments,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(Err(ExitCode::from(2)));
        }
    };
    let Some(connection) = options.connect().await? else {
        eprintln!("{GETTING_STARTED}");
        return Ok(Err(ExitCode::from(2)));
    };
    let dispatcher = connection.dispatcher.speaking(Vocabulary::CLI);
    Ok(Ok((arguments, dispatcher, connection.sandbox)))
}

/// Whether `action` declares `key` (or a parameter `key` is an alias of) as a string: its
/// value is the text typed, so `value=true` sends the string "true" a feature gate expects.
fn declared_text(action: &str, key: &str) -> bool {
    crate::catalog::find(action)
        .and_then(|action| {
            action
                .params
                .iter()
                .find(|p| p.name == key || p.aliases.contains(&key))
        })
        .is_some_and(|param| param.ty == crate::catalog::ParamType::String)
}

/// `key=value` pairs; a value that parses as JSON is taken as JSON, otherwise as text, and
/// a key `text` names is always text. An empty key or a key given twice is refused: neither
/// has one obvious meaning.
pub fn parse_params(
    pairs: &[String],
    text: &dyn Fn(&str) -> bool,
) -> Result<Map<String, Value>, UsageError> {
    let mut args = Map::new();
    for pair in pairs {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(UsageError(format!(
                "expected KEY=VALUE, got `{pair}` (such as `project_id=group/project`)"
            )));
        };
        let key = key.trim();
        if key.is_empty() {
            return Err(UsageError(format!(
                "`{pair}` has no parameter name before `=` (such as `issue_iid=17`)"
            )));
        }
        let value = match serde_json::from_str::<Value>(value) {
            _ if text(key) => Value::String(value.to_owned()),
            Ok(
                parsed @ (Value::Number(_)
                | Value::Bool(_)
                | Value::Array(_)
                | Value::Object(_)
                | Value::Null),
            ) => parsed,
            _ => Value::String(value.to_owned()),
        };
        if let Some(first) = args.get(key) {
            return Err(UsageError(format!(
                "`{key}` is given twice ({} and {}); give it once, or a list as JSON: `{key}=[\"a\",\"b\"]`",
                crate::output::json::to_text(first),
                crate::output::json::to_text(&value)
            )));
        }
        args.insert(key.to_owned(), value);
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_refuse_empty_and_repeated_keys() {
        let pairs = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let args = parse_params(
            &pairs(&["issue_iid=17", "labels=[\"a\"]", "title=x=y"]),
            &|_| false,
        )
        .unwrap();
        assert_eq!(args["issue_iid"], 17);
        assert_eq!(args["title"], "x=y");
        let empty = parse_params(&pairs(&["=17"]), &|_| false).unwrap_err().0;
        assert!(empty.contains("no parameter name"), "{empty}");
        let twice = parse_params(&pairs(&["issue_iid=17", "issue_iid=18"]), &|_| false)
            .unwrap_err()
            .0;
        assert!(
            twice.contains("`issue_iid` is given twice (17 and 18)"),
            "{twice}"
        );
    }

    #[test]
    fn a_string_parameter_keeps_the_text_typed() {
        let pairs = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let text = |key: &str| declared_text("instance.feature_set", key);
        let args = parse_params(&pairs(&["value=true", "force=true", "name=1e5"]), &text).unwrap();
        assert_eq!(args["value"], "true");
        assert_eq!(args["name"], "1e5");
        assert_eq!(args["force"], true);
        // An alias names the same string parameter.
        assert!(declared_text("merge_request.list", "author"));
        assert!(!declared_text("no.such_action", "value"));
    }

    #[test]
    fn each_command_shows_only_its_own_settings() {
        let mut command = command();
        command.build(); // hands the global settings to each command, as parsing does
        let help = |command: &mut clap::Command, name: &str| {
            command
                .find_subcommand_mut(name)
                .unwrap()
                .render_help()
                .to_string()
        };
        let codegen = help(&mut command, "codegen");
        assert!(!codegen.contains("--gitlab-url"), "{codegen}");
        let call = help(&mut command, "call");
        assert!(
            call.contains("--confirm") && call.contains("--gitlab-url"),
            "{call}"
        );
        assert!(!call.contains("--tool-surface"), "{call}");
        assert!(
            call.find("--confirm") < call.find("--gitlab-url"),
            "the command's own options come first: {call}"
        );
        for (name, _) in GROUPS {
            assert!(command.find_subcommand(name).is_some(), "{name}");
        }
        for arg in command.get_arguments().filter(|a| a.is_global_set()) {
            assert!(
                arg.get_help_heading().is_some(),
                "`{}` has no group (help_heading): say which commands use it",
                arg.get_id()
            );
        }
        for sub in command.get_subcommands() {
            let name = sub.get_name();
            assert!(
                name == "help" || GROUPS.iter().any(|(g, _)| *g == name),
                "`{name}` has no entry in GROUPS: say which settings it uses"
            );
        }
    }

    #[test]
    fn a_setting_a_command_does_not_use_is_refused() {
        let error = match try_parse_from(["gitlab-mcp", "codegen", "--gitlab-url", "https://x"]) {
            Err(ParseError::Usage(error)) => error.0,
            _ => panic!("accepted"),
        };
        assert!(
            error.contains("`--gitlab-url` does nothing for `gitlab-mcp codegen`"),
            "{error}"
        );
        assert!(try_parse_from(["gitlab-mcp", "--sandbox", "call", "user.current"]).is_ok());
        assert!(try_parse_from(["gitlab-mcp", "call", "user.current", "--sandbox"]).is_ok());
    }
}

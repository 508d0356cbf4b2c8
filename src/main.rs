//! The `gitlab-mcp` binary: parse the command line, set up logging on stderr, run.

use std::process::ExitCode;

use clap::Parser;
use gitlab_mcp::cli::{Cli, run};

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(&cli.options.log);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("gitlab-mcp: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        // The reader went away (`gitlab-mcp catalog | head`): nothing is wrong.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("gitlab-mcp: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|cause| cause.downcast_ref::<std::io::Error>())
        .any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Logs go to stderr only: in stdio mode stdout carries JSON-RPC and nothing else. Every
/// line is scrubbed of the token and URL credentials (`redact::LogWriter`), and rmcp is
/// held at `info`, because at `debug` it logs whole requests and results; below `debug`
/// it is held at `warn`, because over HTTP it logs three `info` lines per request.
fn init_logging(level: &str) {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let level = level
        .parse::<tracing::Level>()
        .unwrap_or(tracing::Level::WARN);
    let filter = tracing_subscriber::filter::Targets::new()
        .with_default(level)
        .with_target(
            "rmcp",
            if level >= tracing::Level::DEBUG {
                tracing::Level::INFO
            } else {
                level.min(tracing::Level::WARN)
            },
        );
    tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(gitlab_mcp::redact::LogWriter)
        .with_ansi(false)
        .with_target(false)
        .finish()
        .with(filter)
        .init();
}

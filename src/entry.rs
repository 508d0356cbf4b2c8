//! The binary's entry point: parse the command line, set up logging on stderr, run.
//!
//! It lives in the library, not in `main.rs`, for the release build's sake. What `main`
//! runs is compiled where it is used: `block_on` over `cli::run` (an async function's
//! future, and every future it awaits, is compiled where it is polled: the async code of
//! every command) and the tracing subscriber's generic layers. In the binary crate all of
//! that was one codegen unit, compiled alone after the library; here it shares the
//! library's units.

use std::process::ExitCode;

use crate::cli::run;

/// What the binary does: everything `main` would, here so that it is compiled as part of
/// the library (see the module comment).
pub fn main() -> ExitCode {
    let cli = crate::cli::parse();
    init_logging(&cli.options.log);
    // Over HTTP one thread serves every connection: a call spends nearly all its time
    // waiting for GitLab, so one core answers thousands of calls a second, and without
    // work passed between threads each costs less. Measured at 32 clients on 2 cores
    // (`cargo bench --bench load`, alternating): server CPU per call 149-191 µs against
    // 189-221 µs on two threads, with as many calls a second or more. Over stdio, with
    // one client, the runtime keeps its two threads (not measured against one).
    let mut builder = if cli.serves_http() {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("gitlab-mcp: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(cli));
    // Work started in the background and not awaited (fitting waiting for GitLab, the
    // search index being built in `spawn_blocking`) is not waited for: dropping the
    // runtime would wait for blocking tasks to finish.
    runtime.shutdown_background();
    match result {
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
    use tracing::level_filters::LevelFilter;
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;

    // `cli::parse` has checked the level against the ones this parses.
    let level = level.parse::<LevelFilter>().unwrap_or(LevelFilter::WARN);
    let detailed = level >= LevelFilter::DEBUG;
    let targets = tracing_subscriber::filter::Targets::new()
        .with_default(level)
        .with_target(
            "rmcp",
            if detailed {
                LevelFilter::INFO
            } else {
                level.min(LevelFilter::WARN)
            },
        );
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(crate::redact::LogWriter)
        .with_ansi(false)
        .with_target(false)
        .with_filter(targets)
        .with_filter(tracing_subscriber::filter::filter_fn(move |meta| {
            detailed || !is_error_response(meta)
        }));
    tracing_subscriber::registry().with(layer).init();
}

/// rmcp logs every JSON-RPC error response as a warning, the spec's "method not found" for
/// a client's ordinary `logging/setLevel` included. Those answers are the client's business
/// (GitLab failures are tool results, never JSON-RPC errors), so they show at debug level.
fn is_error_response(meta: &tracing::Metadata<'_>) -> bool {
    meta.is_event()
        && meta.target() == "rmcp::service"
        && meta.fields().field("error").is_some()
        && meta.fields().field("id").is_some()
}

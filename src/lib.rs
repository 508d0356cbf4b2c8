//! gitlab-mcp: a Model Context Protocol server for the GitLab REST v4 API.
//!
//! Every GitLab action is declared in `actions/*.yaml`; `build.rs` turns the manifest into
//! typed params, outputs, request builders and Markdown formatters (`catalog::generated`).
//! ARCHITECTURE.md maps the modules; the short version:
//!
//! `catalog` (the one list) → `dispatch` (the one execution path: `params`, `policy`,
//! `gitlab`, `output`) → `server` (MCP over rmcp) and `cli`; `sandbox` is an in-memory
//! GitLab for demos, tests and benchmarks.

/// `println!` that returns the write error instead of panicking, so `gitlab-mcp find … | head`
/// ends quietly when the reader closes the pipe (`main` treats a broken pipe as success).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*)
    }};
}

pub mod approval;
pub mod background;
pub mod call;
pub mod catalog;
pub mod cli;
pub mod complete;
pub mod config;
pub mod demo;
pub mod dispatch;
pub mod docs;
pub mod entry;
pub mod fit;
pub mod gitlab;
pub mod handlers;
pub mod http;
pub mod kinds;
pub mod memory;
pub mod output;
pub mod policy;
pub mod prelude;
pub mod prompts;
pub mod redact;
pub mod resources;
pub mod sandbox;
pub mod search;
pub mod server;
pub mod spec;
pub mod surfaces;
pub mod tasks;
pub mod text;
pub mod tls;
pub mod views;
pub mod vocabulary;
pub mod wire;
pub mod yaml;

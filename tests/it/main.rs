//! Integration tests: one binary, one module per area. Most drive the real `gitlab-mcp`
//! binary as an MCP client would; the rest call the library against an in-process sandbox
//! whose request log shows exactly what reached "GitLab".

mod support;

mod completions;
mod deploy;
mod elicitation;
mod errors;
mod faults;
mod first_hour;
mod fit;
mod generated;
mod golden;
mod graphql;
mod http;
mod jsonrpc;
mod mcp;
mod paths;
mod policy;
mod process;
mod prompts;
mod properties;
mod protocol;
mod reads;
mod resources;
mod review;
mod sandbox;
mod search;
mod shapes;
mod snapshots;
mod startup;
mod surfaces;
mod tolerance;

/// What the fixture's generated code (`golden::fixture`) imports as `crate::prelude`: the
/// runtime's part of the real prelude, and the fixture's own types.
mod prelude {
    pub use crate::golden::fixture::enums::*;
    pub use crate::golden::fixture::types::*;
    pub use gitlab_mcp::prelude::runtime::*;
}
mod upstream;
mod waits;

//! Integration tests: one binary, one module per area. Most drive the real `gitlab-mcp`
//! binary as an MCP client would; the rest call the library against an in-process sandbox
//! whose request log shows exactly what reached "GitLab".

mod support;

mod codegen;
mod errors;
mod generated;
mod mcp;
mod paths;
mod policy;
mod process;
mod protocol;
mod resources;
mod sandbox;
mod search;
mod snapshots;
mod surfaces;

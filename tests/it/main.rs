//! Integration tests: one binary, one module per area. Most drive the real `gitlab-mcp`
//! binary as an MCP client would; the rest call the library against an in-process sandbox
//! whose request log shows exactly what reached "GitLab".

mod support;

mod codegen;
mod errors;
mod faults;
mod generated;
mod jsonrpc;
mod mcp;
mod paths;
mod policy;
mod process;
mod properties;
mod protocol;
mod reads;
mod resources;
mod search;
mod snapshots;
mod surfaces;
mod upstream;

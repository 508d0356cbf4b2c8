//! Talking to GitLab: requests, the HTTP client, pagination and errors.
//!
//! Nothing here knows about MCP, Markdown or the catalog; generated code builds `Request`s
//! and the dispatcher sends them through `GitlabClient`.

mod client;
mod error;
mod pagination;
mod request;

pub use client::{GitlabClient, Response, Token, prune};
pub use error::{ErrorKind, GitlabError};
pub use pagination::Pagination;
pub use request::{Method, PathOrId, Request, UnsafePath, WireText, WireValue, encode_component};

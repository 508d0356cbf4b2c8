//! Talking to GitLab: requests, the HTTP client (with its settings, redirect policy,
//! retries and bounded bodies), pagination and errors.
//!
//! Nothing here knows about MCP, Markdown or the catalog; generated code builds `Request`s
//! and the dispatcher sends them through `GitlabClient`.

pub mod base_url;
mod body;
mod client;
mod error;
pub mod graphql;
mod pagination;
mod pick;
pub mod redirect;
mod request;
pub mod retry;
mod settings;

pub use body::{BodyStream, ListBody};
pub use client::{GitlabClient, HTML_INSTEAD, Response, Token, looks_like_html, prune};
pub use error::{ErrorKind, GitlabError};
pub use pagination::Pagination;
pub use request::{
    Api, Method, PathOrId, Request, StringMap, UnsafePath, WireText, WireValue, encode_component,
    put,
};
pub use settings::{
    AuthKind, ClientSettings, DEFAULT_DEADLINE, DEFAULT_MAX_BODY_BYTES, DEFAULT_RETRIES,
};

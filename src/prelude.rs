//! Everything generated code may use, and nothing more.
//!
//! The generated catalog (`catalog::generated`) imports only this module, so the surface
//! between generated and hand-written code is visible in one place. Adding a name here is
//! an API decision: generated code will come to depend on it.

pub use crate::catalog::generated::types::*;
pub use crate::catalog::{
    Action, ActionFuture, Args, DomainInfo, Hint, Location, ParamSpec, ParamType, ResourcePolicy,
    ResourceSpec, ResultShape, Safety,
};
pub use crate::dispatch::{ActionError, Context, Rendered, decode};
pub use crate::gitlab::{Method, Pagination, PathOrId, Request, WireText, WireValue};
pub use crate::output::{Done, Markdown, cell, format};
pub use crate::schema;

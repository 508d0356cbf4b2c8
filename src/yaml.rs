//! The one module that names `serde_yaml`.
//!
//! Its author has marked the crate deprecated; every YAML read in the project (the action
//! manifest at build time, GitLab's OpenAPI spec in `spec-check` and `scaffold`) goes
//! through these names, so a maintained fork replaces it in the line below.

pub use serde_yaml::{Deserializer, Error, Value, from_str};

//! The output side of the contract: Markdown for the model, JSON for programs.
//!
//! `markdown` is the one writer of cards, tables and hint blocks and owns all escaping;
//! `cell` describes values by kind; `format` renders dates, sizes and statuses as plain
//! text; `json` writes JSON text without HTML escaping.

pub mod budget;
pub mod cell;
pub mod format;
pub mod json;
mod markdown;
pub mod view;

pub use markdown::{Card, CardHeading, Markdown, Table};

use serde::Serialize;

/// The structured result of an action that returns no entity: a confirmation.
#[derive(Debug, Clone, Serialize)]
pub struct Done {
    pub message: String,
}

impl Done {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

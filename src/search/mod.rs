//! Ranks the catalog for a natural-language request: the engine behind `gitlab_find_action`.
//!
//! What words mean comes from the manifest (`vocabulary:` in `actions/*.yaml`, read into the
//! `lexicon`); nothing here names a domain or an action. Each action is indexed by field
//! class, strongest first: its exact id, its aliases, its tags, its domain and action words,
//! its title, its parameter and enum names, then its description (`index`). A query term
//! scores the best class it matches in an action (a synonym a little less than the word
//! itself, a phrase of the action's vocabulary most), the request's intent (operation,
//! domain, object, references) is weighed against the action's profile, and the total is
//! scaled by how much of the query it covers (`rank`). Misspelt words (three letters or
//! more) are read as the known word within one or two edits, never to recommend a
//! destructive action on a guess. Long prompts are also scored clause by clause, so one
//! intent among several still surfaces. Ties keep catalog order, so the ranking is
//! deterministic.

mod examples;
mod index;
mod intent;
mod known;
mod lexicon;
mod rank;
mod tokens;
mod words;

use crate::catalog::Action;

/// A word the index keeps for the process's life: a search index holds some hundred
/// thousand of them, nearly all short enough to be kept inline, without an allocation each.
type Word = smol_str::SmolStr;

pub use index::{Index, Prepared};
pub use known::{KnownRequest, parse as parse_requests};
pub use words::stem;

/// A search as `gitlab_find_action` receives it.
#[derive(Debug, Clone)]
pub struct FindRequest {
    pub query: String,
    pub limit: usize,
    pub explain: bool,
}

/// Hits in a find answer by default, and at most: each one is context the model pays for.
pub const DEFAULT_LIMIT: usize = 8;
pub const MAX_LIMIT: usize = 20;

/// One ranked action.
#[derive(Debug, Clone)]
pub struct Hit {
    pub action: &'static Action,
    pub score: i64,
    pub reasons: Vec<String>,
}

/// The ranked answer to a search.
#[derive(Debug, Clone)]
pub struct Found {
    pub hits: Vec<Hit>,
    /// Ids of top hits too close to call, when there is no clear winner.
    pub ambiguous: Vec<&'static str>,
    /// Catalog words close to the query, when nothing matched.
    pub suggestions: Vec<String>,
    /// A sentence saying what the catalog lacks, when the request asks for it ("No action
    /// can delete tags: ..."), with the nearest domains.
    pub missing: Option<String>,
}

//! A workflow prompt as `prompts/<name>.yaml` declares it, shared by build time and run time.
//!
//! `build.rs` reads the YAML into these types (unknown keys refused), checks them against
//! the action catalog (`src/codegen/prompts.rs`) and writes them as JSON into `OUT_DIR`;
//! the runtime reads that JSON back into the same types (`src/prompts/mod.rs`). This file
//! names nothing else in the crate.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One prompt: what it asks the model to do, the arguments a person gives it, the actions
/// it runs through the dispatcher to gather what the model needs, and the template that
/// puts them together within `budget` bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptDef {
    /// The prompt's name (`prompts/list`), the same as its file's name.
    pub name: String,
    /// A short title, shown by clients as the slash command's label.
    pub title: String,
    /// What the prompt does, for the person choosing it.
    pub description: String,
    /// The most bytes the rendered prompt may take; what does not fit is cut and listed.
    pub budget: usize,
    #[serde(default)]
    pub arguments: Vec<ArgumentDef>,
    /// The actions that gather the prompt's material, run in order.
    pub steps: Vec<StepDef>,
    /// The prompt's text: minijinja over `args` (the arguments, as given) and `steps`
    /// (each step by id: `text`, `data`, `ok`, `items`).
    pub template: String,
}

/// One argument of a prompt.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgumentDef {
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub required: bool,
    /// What `completion/complete` offers for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete: Option<Completion>,
}

/// What a value is, for completion: each kind is one GitLab search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Completion {
    /// Project paths the token can see, searched as typed.
    Project,
    /// Group paths.
    Group,
    /// Branch names of the project already chosen.
    Branch,
    /// Tag names of the project already chosen.
    Tag,
    /// Branch or tag names of the project already chosen.
    Ref,
    /// Merge request IIDs of the project already chosen, with their titles.
    MergeRequest,
    /// Issue IIDs of the project already chosen, with their titles.
    Issue,
    /// Pipeline ids of the project already chosen.
    Pipeline,
    /// Usernames.
    User,
    /// Label names of the project already chosen.
    Label,
    /// Milestone titles of the project already chosen.
    Milestone,
}

/// One action a prompt runs (through the dispatcher, as any call), or one per item of a
/// list an earlier step returned.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepDef {
    /// How the template names the step (`steps.<id>`).
    pub id: String,
    /// What the step gathers, in the words of the "left out" note.
    pub title: String,
    /// A read-only action id.
    pub action: String,
    /// The action's parameters: a text is a minijinja template over `args`, `steps` (and
    /// `item` with `for_each`), left out when it renders empty; other values are sent as
    /// they are.
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    /// A minijinja expression: the step runs only when it is true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// A minijinja expression giving a list: the action runs once per item (as `item`),
    /// for the first `limit` items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub for_each: Option<String>,
    /// With `for_each`: how many items at most (the rest are listed as left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// The step reads a first page on purpose (the latest one of something): further
    /// pages are not listed as left out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first_page: bool,
    /// With `for_each`: a template naming each item's section (`{{ item.name }}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

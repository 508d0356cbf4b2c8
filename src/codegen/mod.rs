//! The build-time code generator: `actions/*.yaml` → checked model → Rust (build time only).
//!
//! `build.rs` pulls this folder in with `#[path]`; the runtime never compiles it. The stages
//! follow progenitor's shape, a plain model in the middle that `quote!` only ever reads:
//! `load` (reads the YAML through `src/yaml.rs`) → `resolve` (every rule, all diagnostics at once) →
//! `emit` (tokens) → `write` (prettyplease and the do-not-edit preamble).

pub mod emit;
pub mod ident;
#[path = "../kinds.rs"]
#[allow(dead_code, reason = "the runtime uses the rest")]
pub mod kinds;
#[path = "../search/known/mod.rs"]
#[allow(
    dead_code,
    reason = "the generator only writes the table the runtime reads"
)]
pub mod known;
pub mod load;
pub mod model;
pub mod prompts;
pub mod requests;
pub mod resolve;
pub mod suggest;
#[path = "../text.rs"]
#[allow(dead_code, reason = "the generator needs only the edit distance")]
pub mod text;
pub mod vocabulary;
pub mod write;
#[path = "../yaml.rs"]
#[allow(unused_imports, reason = "the manifest loader needs only part of it")]
pub mod yaml;

use std::fmt;
use std::path::{Path, PathBuf};

/// One problem in the manifest, printed as `file: action: key: message`.
pub struct Diagnostic {
    pub file: PathBuf,
    pub action: Option<String>,
    pub key: Option<String>,
    pub message: String,
    /// What `action` names: an action, or a prompt (`prompts/`).
    pub noun: &'static str,
}

impl Diagnostic {
    pub fn file(file: &Path, message: String) -> Self {
        Self {
            file: file.to_owned(),
            action: None,
            key: None,
            message,
            noun: "action",
        }
    }

    pub fn action(file: &Path, action: &str, key: &str, message: String) -> Self {
        Self {
            file: file.to_owned(),
            action: Some(action.to_owned()),
            key: (!key.is_empty()).then(|| key.to_owned()),
            message,
            noun: "action",
        }
    }

    /// A problem in a prompt of `prompts/`, naming the prompt and the key.
    pub fn prompt(file: &Path, prompt: &str, key: &str, message: String) -> Self {
        Self {
            noun: "prompt",
            ..Self::action(file, prompt, key, message)
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self
            .file
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        // Request files sit in their own folder.
        let folder = self
            .file
            .parent()
            .and_then(Path::file_name)
            .filter(|name| *name == requests::FOLDER)
            .map(|_| format!("{}/", requests::FOLDER))
            .unwrap_or_default();
        // Prompts sit beside the actions, in `prompts/`.
        let top = if self.file.parent().and_then(Path::file_name) == Some(prompts::FOLDER.as_ref())
        {
            prompts::FOLDER
        } else {
            "actions"
        };
        write!(f, "{top}/{folder}{file}")?;
        if let Some(action) = &self.action {
            write!(f, ": {} `{action}`", self.noun)?;
        }
        if let Some(key) = &self.key {
            write!(f, ": key `{key}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Reads, checks and generates the catalog in `actions_dir`: the formatted Rust source, or
/// every problem of every file (what could not be read, then what is wrong in the rest).
#[allow(
    dead_code,
    reason = "tests/codegen runs it on manifests without prompts"
)]
pub fn generate(actions_dir: &Path) -> Result<String, Vec<Diagnostic>> {
    generate_checked(actions_dir, None).map(|(source, _)| source)
}

/// `generate`, and the prompts of `prompts_dir` checked against the same catalog: the
/// Rust source and the prompts as JSON (`src/prompts/model.rs`).
pub fn generate_with_prompts(
    actions_dir: &Path,
    prompts_dir: &Path,
) -> Result<(String, String), Vec<Diagnostic>> {
    generate_checked(actions_dir, Some(prompts_dir))
        .map(|(source, prompts)| (source, prompts.unwrap_or_default()))
}

fn generate_checked(
    actions_dir: &Path,
    prompts_dir: Option<&Path>,
) -> Result<(String, Option<String>), Vec<Diagnostic>> {
    let (manifest, mut diagnostics) = load::manifest(actions_dir);
    let Some(manifest) = manifest else {
        return Err(diagnostics);
    };
    let catalog = match resolve::catalog(manifest) {
        Ok(catalog) => catalog,
        Err(mut problems) => {
            diagnostics.append(&mut problems);
            return Err(diagnostics);
        }
    };
    let mut prompts = None;
    if diagnostics.is_empty() {
        // Requests and prompts name actions; with some unreadable, they would be reported twice.
        diagnostics = requests::check(actions_dir, &catalog);
        match prompts_dir.map(|dir| prompts::check(dir, &catalog)) {
            Some(Ok(json)) => prompts = Some(json),
            Some(Err(mut found)) => diagnostics.append(&mut found),
            None => {}
        }
    }
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    let tokens = emit::catalog(&catalog);
    let source =
        write::format(tokens).map_err(|message| vec![Diagnostic::file(actions_dir, message)])?;
    Ok((source, prompts))
}

/// The build's report of `diagnostics`: one line per problem, grouped by file (in the order
/// found within a file), and last the summary (how many, in which files) with what to do.
pub fn report(diagnostics: &[Diagnostic]) -> String {
    let mut sorted: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
    sorted.sort_by(|a, b| a.split(':').next().cmp(&b.split(':').next()));
    let mut files: Vec<String> = Vec::new();
    let mut lines = String::new();
    for line in sorted {
        let file = line.split(':').next().unwrap_or_default().to_owned();
        if !files.contains(&file) {
            files.push(file);
        }
        lines.push_str(&format!("  {line}\n"));
    }
    let count = match diagnostics.len() {
        1 => "1 problem".to_owned(),
        n => format!("{n} problems"),
    };
    format!(
        "{lines}error: the action manifest has {count} in {}; fix them and build again \
         (actions/README.md lists every key)\n",
        files.join(", ")
    )
}

//! Checks `actions/requests/*.tsv`, the requests people made with the actions that answer
//! them (build time only): search learns from every line, so a line naming an action that
//! does not exist, or a malformed one, is a build error naming the file and the line. Then
//! turns them into the table search reads in place (`table`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::Diagnostic;
use super::resolve::Catalog;

/// The folder of request files inside `actions/`.
pub const FOLDER: &str = "requests";

/// What a request's words are like: the kinds the search reports precision by.
const KINDS: &[&str] = &["plain", "synonym", "typo", "multi"];

const HEADER: &str = "request\tactions\tkind";

/// Every problem in the request files under `actions_dir` (none when there are none).
pub fn check(actions_dir: &Path, catalog: &Catalog) -> Vec<Diagnostic> {
    let ids: HashSet<&str> = catalog
        .domains
        .iter()
        .flat_map(|d| d.actions.iter().map(|a| a.id.as_str()))
        .collect();
    let mut diagnostics = Vec::new();
    for path in files(actions_dir) {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) => {
                diagnostics.push(Diagnostic::file(&path, format!("cannot read: {error}")));
                continue;
            }
        };
        let mut problem = |line: usize, message: String| {
            diagnostics.push(Diagnostic::file(&path, format!("line {line}: {message}")));
        };
        if text.lines().next() != Some(HEADER) {
            problem(1, format!("the first line must be the header `{HEADER}`"));
        }
        for (number, line) in text.lines().enumerate().skip(1) {
            let number = number + 1;
            // `# ` starts a comment; a request may itself start with `#42`.
            if line.trim().is_empty() || line.starts_with("# ") {
                continue;
            }
            let columns: Vec<&str> = line.split('\t').collect();
            let [request, actions, kind] = columns[..] else {
                problem(
                    number,
                    format!(
                        "{} tab-separated columns, expected 3 (request, actions, kind)",
                        columns.len()
                    ),
                );
                continue;
            };
            if request.trim().is_empty() {
                problem(number, "the request is empty".to_owned());
            }
            for id in actions.split('|') {
                if !ids.contains(id) {
                    problem(number, format!("no action `{id}` in the catalog"));
                }
            }
            if !KINDS.contains(&kind) {
                problem(
                    number,
                    format!("kind `{kind}` is not one of {}", KINDS.join(", ")),
                );
            }
        }
    }
    diagnostics
}

/// The request files, in path order (the order build.rs embeds them in).
fn files(actions_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(actions_dir.join(FOLDER))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "tsv"))
        .collect();
    files.sort();
    files
}

/// The table of every request (`search::known::table`) for the binary to read in place:
/// postings, weights and profiles computed here, once, instead of at every start. `check`
/// has passed, so every action a line names is in the catalog.
pub fn table(actions_dir: &Path) -> Vec<u8> {
    let texts: Vec<String> = files(actions_dir)
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    super::known::table::build(&texts, |_| true)
}

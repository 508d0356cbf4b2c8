//! The tree a draft is for, and the drafted files: read what the manifest and the sandbox
//! already have (so nothing is drafted twice), then print the drafts or write them in.
//!
//! Writing never replaces a file: an action goes under `actions:` of its domain's file (a
//! type under `types:`), request lines are appended, and a new file is refused when one is
//! already there.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::naming::{Known, capitalised, plural_of};
use crate::yaml;

/// The values a parameter of a manifest action is limited to (`enum:`), if any.
fn enum_values(action: &yaml::Value, name: &str) -> Vec<String> {
    action
        .get("params")
        .and_then(|params| params.get(name))
        .and_then(|param| param.get("enum"))
        .and_then(yaml::Value::as_sequence)
        .map(|values| {
            values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// What the tree under `root` already declares.
pub struct Tree {
    pub known: Vec<Known>,
    pub types: BTreeSet<String>,
    pub shared_params: BTreeSet<String>,
    domains: BTreeSet<String>,
    collections: BTreeSet<String>,
    projects: BTreeMap<String, i64>,
}

impl Tree {
    pub fn read(root: &Path) -> anyhow::Result<Self> {
        let actions = root.join("actions");
        let mut tree = Tree {
            known: Vec::new(),
            types: BTreeSet::new(),
            shared_params: BTreeSet::new(),
            domains: BTreeSet::new(),
            collections: BTreeSet::new(),
            projects: BTreeMap::new(),
        };
        let entries = std::fs::read_dir(&actions).map_err(|error| {
            anyhow::anyhow!(
                "cannot read {}: {error} (run scaffold in the repository, or pass --root)",
                actions.display()
            )
        })?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|ext| ext != "yaml") {
                continue;
            }
            let text = std::fs::read_to_string(&path)?;
            let Ok(file) = yaml::from_str::<yaml::Value>(&text) else {
                continue;
            };
            let keys = |key: &str| -> Vec<String> {
                file.get(key)
                    .and_then(yaml::Value::as_mapping)
                    .map(|map| {
                        map.keys()
                            .filter_map(|k| k.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            tree.types.extend(keys("types"));
            let Some(domain) = file.get("domain").and_then(yaml::Value::as_str) else {
                tree.shared_params.extend(keys("params"));
                continue;
            };
            tree.domains.insert(domain.to_owned());
            let Some(actions) = file.get("actions").and_then(yaml::Value::as_mapping) else {
                continue;
            };
            for (name, action) in actions {
                let (Some(name), Some(path)) = (
                    name.as_str(),
                    action.get("path").and_then(yaml::Value::as_str),
                ) else {
                    continue;
                };
                tree.known.push(Known {
                    domain: domain.to_owned(),
                    name: name.to_owned(),
                    method: action
                        .get("method")
                        .and_then(yaml::Value::as_str)
                        .unwrap_or("GET")
                        .to_uppercase(),
                    shape: super::super::shape(path)
                        .split('/')
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect(),
                    serves: super::super::served_shapes(path, |name| enum_values(action, name)),
                });
            }
        }
        let seed = root.join("src/sandbox/seed");
        if let Ok(text) = std::fs::read_to_string(seed.join("collections.json"))
            && let Ok(value) = serde_json::from_str::<Value>(&text)
            && let Some(collections) = value["collections"].as_object()
        {
            tree.collections.extend(collections.keys().cloned());
        }
        for entry in std::fs::read_dir(seed.join("records"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            let Ok(value) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            if let Some(collection) = value["collection"].as_str() {
                tree.collections.insert(collection.to_owned());
            }
            if value["collection"] == "projects" {
                for project in value["records"].as_array().into_iter().flatten() {
                    if let (Some(path), Some(id)) = (
                        project["path_with_namespace"].as_str(),
                        project["id"].as_i64(),
                    ) {
                        tree.projects.insert(path.to_owned(), id);
                    }
                }
            }
        }
        Ok(tree)
    }

    pub fn has_domain(&self, domain: &str) -> bool {
        self.domains.contains(domain)
    }

    pub fn has_collection(&self, collection: &str) -> bool {
        self.collections.contains(collection)
    }

    /// The seed id of the project at `path` (`acme/platform/api`).
    pub fn project_id(&self, path: &str) -> Option<i64> {
        self.projects.get(path).copied()
    }
}

/// How a drafted file goes into the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// A new file.
    Create,
    /// Added at the end of the file's `actions:`.
    AddAction,
    /// Added at the end of the file's `types:` (which is made when missing).
    AddType,
    /// Lines added at the end.
    Append,
}

/// One drafted file: where, how, and its text.
#[derive(Debug, Clone)]
pub struct File {
    /// Relative to the repository.
    pub path: PathBuf,
    pub edit: Edit,
    pub text: String,
}

/// Every file drafted for one action, and what the maintainer must review.
#[derive(Debug, Clone)]
pub struct Drafts {
    /// The action's id (`project.unarchive`).
    pub id: String,
    pub files: Vec<File>,
    pub review: Vec<String>,
}

impl Drafts {
    pub fn new(id: String) -> Self {
        Self {
            id,
            files: Vec::new(),
            review: Vec::new(),
        }
    }

    fn add(&mut self, path: impl Into<PathBuf>, edit: Edit, text: String) {
        self.files.push(File {
            path: path.into(),
            edit,
            text,
        });
    }

    /// The action (and its new type) in the domain's file, or a new domain file whose
    /// description says whose things they are (`of a project`, `of the instance`).
    pub fn action(
        &mut self,
        domain: &str,
        owner: &str,
        exists: bool,
        action: String,
        ty: Option<String>,
    ) {
        let path = format!("actions/{domain}.yaml");
        if exists {
            self.add(&path, Edit::AddAction, action);
            if let Some(ty) = ty {
                self.add(&path, Edit::AddType, ty);
            }
            return;
        }
        let words = plural_of(&domain.replace('_', " "));
        let mut text = format!(
            "domain: {domain}\ntitle: {}\ndescription: >\n  {} {owner}: what they are and what can be done with them.\n\nactions:\n{action}",
            capitalised(&words),
            capitalised(&words),
        );
        if let Some(ty) = ty {
            let _ = write!(text, "\ntypes:\n{ty}");
        }
        self.add(&path, Edit::Create, text);
        self.review.push(format!(
            "actions/{domain}.yaml is a new domain: its title and description (the meta tool's), and `vocabulary: {{nouns: [...]}}` for the words people use for a {}",
            domain.replace('_', " ")
        ));
    }

    /// The sandbox collection with its spec and records.
    pub fn records(&mut self, file: &str, collection: &str, spec: Value, records: Vec<Value>) {
        let body = serde_json::json!({
            "collection": collection,
            "spec": spec,
            "records": records,
        });
        let text = serde_json::to_string_pretty(&body).unwrap_or_default() + "\n";
        self.add(
            format!("src/sandbox/seed/records/{file}.json"),
            Edit::Create,
            text,
        );
    }

    /// Three request lines, commented (`# `) until the maintainer writes real ones.
    pub fn requests(&mut self, id: &str, phrasings: &[String]) {
        let mut text =
            format!("# {id}: three requests in everyday words; edit, then remove the `# `\n");
        for phrasing in phrasings {
            let _ = writeln!(text, "# {phrasing}\t{id}\tplain");
        }
        self.add("actions/requests/team.tsv", Edit::Append, text);
    }

    /// The snapshot case: the example call, with empty expected output to fill in; an
    /// administrators' action runs with `--sandbox-admin`, as its example does.
    pub fn snapshot(&mut self, id: &str, title: &str, args: &[String], admin: bool) {
        let mut list = vec!["\"--sandbox\"".to_owned()];
        if admin {
            list.push("\"--sandbox-admin\"".to_owned());
        }
        list.extend(["\"call\"".to_owned(), format!("{id:?}")]);
        list.extend(args.iter().map(|arg| format!("{arg:?}")));
        list.push("\"--structured\"".to_owned());
        let who = match admin {
            true => {
                "# Administrators only: it runs with `--sandbox-admin`, alice an administrator.\n"
            }
            false => "",
        };
        let toml = format!(
            "# {id}: {title}. The example call on a fresh sandbox: Markdown, then structure.\n{who}bin.name = \"gitlab-mcp\"\n# Exact bytes: no path normalisation, which would turn `\\n` in JSON into `/n`.\nbinary = true\nargs = [{}]\n",
            list.join(", ")
        );
        self.add(format!("tests/cmd/{id}.toml"), Edit::Create, toml);
        self.add(
            format!("tests/cmd/{id}.stdout"),
            Edit::Create,
            String::new(),
        );
        self.add(
            format!("tests/cmd/{id}.stderr"),
            Edit::Create,
            String::new(),
        );
    }

    /// The drafts as text: each file with where it goes, then what to review.
    pub fn text(&self) -> String {
        let mut out = format!("Drafts for `{}`:\n", self.id);
        for file in &self.files {
            let how = match file.edit {
                Edit::Create if file.text.is_empty() => "new, empty",
                Edit::Create => "new file",
                Edit::AddAction => "add under `actions:`",
                Edit::AddType => "add under `types:`",
                Edit::Append => "add at the end",
            };
            let _ = writeln!(out, "\n==> {} ({how})", file.path.display());
            out.push_str(&file.text);
        }
        out.push_str(&self.review_text());
        out
    }

    /// What the maintainer must review, numbered, and the loop to check it.
    pub fn review_text(&self) -> String {
        let mut out = String::from("\nReview before landing:\n");
        for (index, item) in self.review.iter().enumerate() {
            let _ = writeln!(out, "  {}. {item}", index + 1);
        }
        let _ = writeln!(
            out,
            "Then the loop of actions/README.md (\"Adding an action\"): cargo check, spec-check, cargo run -- --sandbox call {} ..., the snapshot, cargo run -- docs, and the focused tests it lists.",
            self.id
        );
        out
    }

    /// Writes the drafts into the tree at `root`; the paths written.
    pub fn write(&self, root: &Path) -> anyhow::Result<Vec<PathBuf>> {
        for file in self.files.iter().filter(|f| f.edit == Edit::Create) {
            let path = root.join(&file.path);
            anyhow::ensure!(
                !path.exists(),
                "{} already exists; nothing was written",
                file.path.display()
            );
        }
        let mut written = Vec::new();
        for file in &self.files {
            let path = root.join(&file.path);
            let text = match file.edit {
                Edit::Create => file.text.clone(),
                edit => {
                    let current = std::fs::read_to_string(&path).or_else(|error| match edit {
                        // A tree without the team's request file starts one.
                        Edit::Append if error.kind() == std::io::ErrorKind::NotFound => {
                            Ok("request\tactions\tkind\n".to_owned())
                        }
                        _ => Err(error),
                    })?;
                    match edit {
                        Edit::AddAction => insert_in_section(&current, "actions", &file.text),
                        Edit::AddType => insert_in_section(&current, "types", &file.text),
                        _ => format!("{}\n{}", current.trim_end_matches('\n'), file.text),
                    }
                }
            };
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, text)?;
            if !written.contains(&file.path) {
                written.push(file.path.clone());
            }
        }
        Ok(written)
    }
}

/// `text` with `block` added at the end of its top-level `section:` (a blank line before
/// it), or the section made at the end.
fn insert_in_section(text: &str, section: &str, block: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let header = format!("{section}:");
    let Some(start) = lines.iter().position(|line| line.trim_end() == header) else {
        return format!("{}\n\n{header}\n{block}", text.trim_end());
    };
    let end = lines[start + 1..]
        .iter()
        .position(|line| line.starts_with(|c: char| !c.is_whitespace() && c != '#'))
        .map_or(lines.len(), |offset| start + 1 + offset);
    let mut last = end;
    while last > start + 1 && lines[last - 1].trim().is_empty() {
        last -= 1;
    }
    let mut out: Vec<String> = lines[..last].iter().map(|l| (*l).to_owned()).collect();
    out.push(String::new());
    out.extend(block.lines().map(str::to_owned));
    if end < lines.len() {
        out.push(String::new());
        out.extend(lines[end..].iter().map(|l| (*l).to_owned()));
    }
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_block_goes_at_the_end_of_its_section() {
        let text = "domain: x\nactions:\n  a:\n    title: A\n\ntypes:\n  T:\n    description: t\n";
        assert_eq!(
            super::insert_in_section(text, "actions", "  b:\n    title: B\n"),
            "domain: x\nactions:\n  a:\n    title: A\n\n  b:\n    title: B\n\ntypes:\n  T:\n    description: t\n"
        );
        assert_eq!(
            super::insert_in_section("domain: x\nactions:\n  a: {}\n", "types", "  T: {}\n"),
            "domain: x\nactions:\n  a: {}\n\ntypes:\n  T: {}\n"
        );
    }
}

//! Reads `actions/*.yaml` from disk (build time only).
//!
//! YAML is read through `src/yaml.rs`, the one module that names the YAML crate. Parse
//! errors come back as diagnostics naming the file, the action and the key (via
//! `serde_path_to_error`), with the key a misspelt one was meant to be. Every file is read
//! and each action and type of a domain file on its own, so one unreadable part hides
//! nothing: what could be read is checked too, and names of the unreadable parts are kept
//! (`Unreadable`) so that what refers to them is not reported a second time.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::de::DeserializeOwned;

use super::Diagnostic;
use super::model::{ActionDef, DomainFile, DomainVocabularyDef, SharedFile, TypeDef};
use super::suggest;
use super::yaml;

/// The parsed manifest: the shared file and every domain file, domains sorted by file name.
///
/// Entity types may sit in `shared.yaml` or in the domain file that owns them; after loading,
/// `shared.types` holds them all and `type_files` says which file declared each one, so that
/// a diagnostic names the right file.
pub struct Manifest {
    pub shared: SharedFile,
    pub shared_path: PathBuf,
    pub domains: Vec<(PathBuf, DomainFile)>,
    pub type_files: IndexMap<String, PathBuf>,
    pub unreadable: Unreadable,
}

impl Manifest {
    /// The file that declares `domain`, for diagnostics.
    pub fn file_of(&self, domain: &str) -> PathBuf {
        self.domains
            .iter()
            .find(|(_, file)| file.domain == domain)
            .map(|(path, _)| path.clone())
            .unwrap_or_default()
    }
}

/// What could not be read, already reported: a reference to it is not a second problem.
#[derive(Default)]
pub struct Unreadable {
    /// Domain files that could not be read at all, by file stem.
    pub domains: BTreeSet<String>,
    /// Actions that could not be read, by id.
    pub actions: BTreeSet<String>,
    /// Entity types that could not be read, by name.
    pub types: BTreeSet<String>,
}

impl Unreadable {
    /// Whether `id` may name an action that exists but could not be read.
    pub fn action(&self, id: &str) -> bool {
        self.actions.contains(id)
            || id
                .split_once('.')
                .is_some_and(|(domain, _)| self.domains.contains(domain))
    }
}

/// The shared file's name inside `actions/`.
pub const SHARED_FILE: &str = "shared.yaml";

/// Reads every file in `actions_dir`: the manifest (none when `shared.yaml`, which every
/// domain builds on, cannot be read) and every problem found while reading, in every file.
/// The manifest then holds what could be read; resolve it to find the rest.
pub fn manifest(actions_dir: &Path) -> (Option<Manifest>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(actions_dir) {
        Ok(entries) => entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
            .collect(),
        Err(error) => {
            let problem =
                Diagnostic::file(actions_dir, format!("cannot read the directory: {error}"));
            return (None, vec![problem]);
        }
    };
    files.sort();

    let shared_path = actions_dir.join(SHARED_FILE);
    let shared =
        match read(&shared_path).and_then(|text| parse_whole::<SharedFile>(&shared_path, &text)) {
            Ok(shared) => Some(shared),
            Err(diagnostic) => {
                diagnostics.push(diagnostic);
                None
            }
        };

    let mut unreadable = Unreadable::default();
    let mut domains = Vec::new();
    let mut domain_types = Vec::new();
    for path in files.into_iter().filter(|path| *path != shared_path) {
        match parse_domain(&path, &mut unreadable, &mut diagnostics) {
            Some((domain, types)) => {
                domain_types.push((path.clone(), types));
                domains.push((path, domain));
            }
            None => {
                let stem = path.file_stem().unwrap_or_default().to_string_lossy();
                unreadable.domains.insert(stem.into_owned());
            }
        }
    }

    let Some(mut shared) = shared else {
        return (None, diagnostics);
    };
    let mut type_files: IndexMap<String, PathBuf> = shared
        .types
        .keys()
        .map(|name| (name.clone(), shared_path.clone()))
        .collect();
    for (path, types) in domain_types {
        for (name, def) in types {
            if let Some(first) = type_files.get(&name) {
                diagnostics.push(Diagnostic::file(
                    &path,
                    format!(
                        "type `{name}`: already declared in actions/{}; a type is declared once",
                        first.file_name().unwrap_or_default().to_string_lossy()
                    ),
                ));
                continue;
            }
            type_files.insert(name.clone(), path.clone());
            shared.types.insert(name, def);
        }
    }

    let manifest = Manifest {
        shared,
        shared_path,
        domains,
        type_files,
        unreadable,
    };
    (Some(manifest), diagnostics)
}

fn read(path: &Path) -> Result<String, Diagnostic> {
    std::fs::read_to_string(path)
        .map_err(|error| Diagnostic::file(path, format!("cannot read: {error}")))
}

/// A whole file; a problem names the key it is under and the line.
fn parse_whole<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, Diagnostic> {
    deserialize_yaml(text).map_err(|(key, message)| {
        let message = explain(&message, text);
        if key == "." {
            Diagnostic::file(path, message)
        } else {
            Diagnostic::file(path, format!("key `{key}`: {message}"))
        }
    })
}

/// Reads a whole YAML file as `T`; an error is the key it is at (`.` for the top) and the
/// parser's message without the key the parser already put in front of it.
pub(crate) fn deserialize_yaml<T: DeserializeOwned>(text: &str) -> Result<T, (String, String)> {
    let deserializer = yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(deserializer).map_err(|error| {
        let key = error.path().to_string();
        let message = error.inner().to_string();
        let message = message
            .strip_prefix(&format!("{key}: "))
            .map(str::to_owned)
            .unwrap_or(message);
        (key, message)
    })
}

/// One part of a file (an action, a type) already read as YAML: the key within it, and the
/// message.
fn parse_part<T: DeserializeOwned>(value: yaml::Value, text: &str) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|error| {
        let key = error.path().to_string();
        let key = if key == "." { String::new() } else { key };
        (key, explain(&error.inner().to_string(), text))
    })
}

/// Parses a domain file action by action and type by type, so that an error names the action
/// or type it is in and one bad part does not hide the others (its name goes to
/// `unreadable`). Returns the domain and the entity types it declares, or nothing when the
/// file itself cannot be read.
fn parse_domain(
    path: &Path,
    unreadable: &mut Unreadable,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(DomainFile, IndexMap<String, TypeDef>)> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RawDomain {
        domain: String,
        title: String,
        description: String,
        #[serde(default)]
        vocabulary: Option<yaml::Value>,
        actions: IndexMap<String, yaml::Value>,
        #[serde(default)]
        types: IndexMap<String, yaml::Value>,
    }

    let text = match read(path) {
        Ok(text) => text,
        Err(diagnostic) => {
            diagnostics.push(diagnostic);
            return None;
        }
    };
    let raw: RawDomain = match parse_whole(path, &text) {
        Ok(raw) => raw,
        Err(diagnostic) => {
            diagnostics.push(diagnostic);
            return None;
        }
    };
    let vocabulary = match raw
        .vocabulary
        .map(|value| parse_part::<DomainVocabularyDef>(value, &text))
    {
        None => DomainVocabularyDef::default(),
        Some(Ok(vocabulary)) => vocabulary,
        Some(Err((key, message))) => {
            let key = [String::from("vocabulary"), key].join(".");
            let key = key.trim_end_matches('.');
            diagnostics.push(Diagnostic::file(path, format!("key `{key}`: {message}")));
            DomainVocabularyDef::default()
        }
    };
    let mut actions = IndexMap::new();
    for (name, value) in raw.actions {
        let id = format!("{}.{name}", raw.domain);
        match parse_part::<ActionDef>(value, &text) {
            Ok(action) => {
                actions.insert(name, action);
            }
            Err((key, message)) => {
                diagnostics.push(Diagnostic::action(path, &id, &key, message));
                unreadable.actions.insert(id);
            }
        }
    }
    let mut types = IndexMap::new();
    for (name, value) in raw.types {
        match parse_part::<TypeDef>(value, &text) {
            Ok(def) => {
                types.insert(name, def);
            }
            Err((key, message)) => {
                let key = if key.is_empty() {
                    String::new()
                } else {
                    format!("key `{key}`: ")
                };
                diagnostics.push(Diagnostic::file(
                    path,
                    format!("type `{name}`: {key}{message}"),
                ));
                unreadable.types.insert(name);
            }
        }
    }
    let domain = DomainFile {
        domain: raw.domain,
        title: raw.title,
        description: raw.description,
        vocabulary,
        actions,
    };
    Some((domain, types))
}

/// Serde's messages in a maintainer's words: an unknown key names the key it was meant to
/// be, and a text cut by a comma inside a flow mapping (`{text: Open it, then close it}`,
/// which YAML reads as a second key `then close it`) says to quote the text.
fn explain(message: &str, text: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_owned();
    };
    let Some((field, rest)) = rest.split_once('`') else {
        return message.to_owned();
    };
    // serde_yaml appends the position: " at line 12 column 5".
    let position = rest
        .find(" at line ")
        .map(|at| rest[at..].to_owned())
        .unwrap_or_default();
    let expected: Vec<&str> = rest
        .trim_end_matches(&position)
        .split('`')
        .skip(1)
        .step_by(2)
        .collect();
    let keys = if expected.is_empty() {
        "it takes no keys".to_owned()
    } else {
        format!("its keys are {}", expected.join(", "))
    };
    let is_key = |word: &str| {
        word.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    let after_comma = text.lines().any(|line| {
        line.split_once('{')
            .is_some_and(|(_, inside)| inside.contains(&format!(", {field}")))
    });
    if let Some(nearest) = suggest::nearest(field, expected.iter().copied()) {
        format!("unknown key `{field}`; did you mean `{nearest}`? ({keys}){position}")
    } else if !is_key(field) || after_comma {
        format!(
            "`{field}` is read as a key: inside `{{...}}` a comma ends a value, so a text \
             with a comma was cut there. Quote the text (`text: \"..., {field}\"`) or write \
             the mapping as indented lines{position}"
        )
    } else {
        format!("unknown key `{field}` ({keys}){position}")
    }
}

//! Reads `actions/*.yaml` from disk (build time only).
//!
//! YAML is read through `src/yaml.rs`, the one module that names the YAML crate. Parse
//! errors come back as diagnostics naming the file, the action and the key (via
//! `serde_path_to_error`).

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::de::DeserializeOwned;

use super::Diagnostic;
use super::model::{ActionDef, DomainFile, DomainVocabularyDef, SharedFile, TypeDef};
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

/// The shared file's name inside `actions/`.
pub const SHARED_FILE: &str = "shared.yaml";

pub fn manifest(actions_dir: &Path) -> Result<Manifest, Vec<Diagnostic>> {
    let mut diagnostics = Vec::new();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(actions_dir) {
        Ok(entries) => entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
            .collect(),
        Err(error) => {
            return Err(vec![Diagnostic::file(
                actions_dir,
                format!("cannot read the directory: {error}"),
            )]);
        }
    };
    files.sort();

    let shared_path = actions_dir.join(SHARED_FILE);
    let shared = match parse_whole::<SharedFile>(&shared_path) {
        Ok(shared) => Some(shared),
        Err(diagnostic) => {
            diagnostics.push(diagnostic);
            None
        }
    };

    let mut domains = Vec::new();
    let mut domain_types = Vec::new();
    for path in files.into_iter().filter(|path| *path != shared_path) {
        match parse_domain(&path) {
            Ok((domain, types)) => {
                domain_types.push((path.clone(), types));
                domains.push((path, domain));
            }
            Err(mut found) => diagnostics.append(&mut found),
        }
    }

    let Some(mut shared) = shared else {
        return Err(diagnostics);
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

    if diagnostics.is_empty() {
        Ok(Manifest {
            shared,
            shared_path,
            domains,
            type_files,
        })
    } else {
        Err(diagnostics)
    }
}

fn read(path: &Path) -> Result<String, Diagnostic> {
    std::fs::read_to_string(path)
        .map_err(|error| Diagnostic::file(path, format!("cannot read: {error}")))
}

fn parse_whole<T: DeserializeOwned>(path: &Path) -> Result<T, Diagnostic> {
    let text = read(path)?;
    let deserializer = yaml::Deserializer::from_str(&text);
    serde_path_to_error::deserialize(deserializer).map_err(|error| {
        let key = error.path().to_string();
        let message = error.inner().to_string();
        // The YAML parser already names the key (and the line) in its own messages.
        let message = message
            .strip_prefix(&format!("{key}: "))
            .map(str::to_owned)
            .unwrap_or(message);
        Diagnostic::file(path, format!("key `{key}`: {message}"))
    })
}

/// Parses a domain file action by action, so that an error names the action it is in and
/// one bad action does not hide the errors of the others. Returns the domain and the entity
/// types it declares.
fn parse_domain(path: &Path) -> Result<(DomainFile, IndexMap<String, TypeDef>), Vec<Diagnostic>> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RawDomain {
        domain: String,
        title: String,
        description: String,
        #[serde(default)]
        vocabulary: DomainVocabularyDef,
        actions: IndexMap<String, yaml::Value>,
        #[serde(default)]
        types: IndexMap<String, TypeDef>,
    }

    let raw: RawDomain = parse_whole(path).map_err(|diagnostic| vec![diagnostic])?;
    let mut diagnostics = Vec::new();
    let mut actions = IndexMap::new();
    for (name, value) in raw.actions {
        let id = format!("{}.{name}", raw.domain);
        match serde_path_to_error::deserialize::<_, ActionDef>(value) {
            Ok(action) => {
                actions.insert(name, action);
            }
            Err(error) => {
                let key = error.path().to_string();
                diagnostics.push(Diagnostic::action(
                    path,
                    &id,
                    &key,
                    error.inner().to_string(),
                ));
            }
        }
    }
    if diagnostics.is_empty() {
        let domain = DomainFile {
            domain: raw.domain,
            title: raw.title,
            description: raw.description,
            vocabulary: raw.vocabulary,
            actions,
        };
        Ok((domain, raw.types))
    } else {
        Err(diagnostics)
    }
}

//! The search vocabulary of the manifest, checked and completed (build time only).
//!
//! `vocabulary:` keys in `shared.yaml` (the common operations and general synonyms), in a
//! domain file (nouns, synonyms, references) and in an action (operation, verbs, phrases,
//! objects, caller). What an action leaves out is derived here, so the runtime reads plain
//! data: its operation from its method and result (`GET` of a list is `list`, `POST` is
//! `create`, ...), its objects from the words of its name that do not name its operation
//! (`note_list` works on `note`). Every word must be one a request could type, every
//! operation must have words, and every synonym must mean a word the catalog uses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::Diagnostic;
use super::load::Manifest;
use super::model::{ActionDef, DomainFile, Method, SharedVocabularyDef};

/// `shared.yaml`'s vocabulary.
#[derive(Default)]
pub struct Vocabulary {
    pub operations: Vec<(String, Vec<String>)>,
    pub synonyms: Vec<(String, Vec<String>)>,
}

pub struct DomainVocabulary {
    pub nouns: Vec<String>,
    pub synonyms: Vec<(String, Vec<String>)>,
    pub references: Vec<(String, String)>,
}

pub struct ActionVocabulary {
    pub operation: String,
    pub verbs: Vec<String>,
    pub phrases: Vec<String>,
    pub objects: Vec<String>,
    pub caller: bool,
}

/// The reference kinds a domain may claim: `!42`, `#17`, `&12`, `$7`, `%3`, `@name`, a SHA,
/// a file name, a path-like name (`acme/web`, the container a request is about).
pub const REFERENCE_KINDS: &[&str] = &["!", "#", "&", "$", "%", "@", "sha", "file", "path"];

/// The operation an action's method, result and name imply: a read whose name ends in
/// `list` lists, even when GitLab answers one object (`job.artifacts_list`: the archive,
/// with its files).
pub fn implied_operation(name: &str, def: &ActionDef) -> &'static str {
    match def.method() {
        Method::Get if def.output.list.is_some() || name.rsplit('_').next() == Some("list") => {
            "list"
        }
        Method::Get => "get",
        Method::Post => "create",
        Method::Put | Method::Patch => "update",
        Method::Delete => "delete",
    }
}

/// Every operation of the manifest and the words that ask for it: the shared ones and
/// each action's `verbs`.
pub fn operation_words(manifest: &Manifest) -> BTreeMap<String, BTreeSet<String>> {
    let mut words: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (operation, list) in &manifest.shared.vocabulary.operations {
        words
            .entry(operation.clone())
            .or_default()
            .extend(list.iter().cloned());
    }
    for (_, file) in &manifest.domains {
        for (name, def) in &file.actions {
            let operation = def
                .vocabulary
                .operation
                .clone()
                .unwrap_or_else(|| implied_operation(name, def).to_owned());
            words
                .entry(operation)
                .or_default()
                .extend(def.vocabulary.verbs.iter().cloned());
        }
    }
    words
}

/// Checks `shared.yaml`'s vocabulary.
pub fn shared(
    path: &Path,
    def: &SharedVocabularyDef,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vocabulary {
    let mut error = |key: String, message: String| {
        diagnostics.push(Diagnostic::file(path, format!("key `{key}`: {message}")));
    };
    check_lists("vocabulary.operations", &def.operations, &mut error);
    check_lists("vocabulary.synonyms", &def.synonyms, &mut error);
    Vocabulary {
        operations: pairs(&def.operations),
        synonyms: pairs(&def.synonyms),
    }
}

/// Checks a domain file's vocabulary (its references are checked against its actions'
/// objects by `check_domain`).
pub fn domain(
    path: &Path,
    file: &DomainFile,
    diagnostics: &mut Vec<Diagnostic>,
) -> DomainVocabulary {
    let def = &file.vocabulary;
    let mut error = |key: String, message: String| {
        diagnostics.push(Diagnostic::file(path, format!("key `{key}`: {message}")));
    };
    check_list(&def.nouns, false, |problem| {
        error("vocabulary.nouns".to_owned(), problem)
    });
    check_lists("vocabulary.synonyms", &def.synonyms, &mut error);
    for (kind, word) in &def.references {
        if !REFERENCE_KINDS.contains(&kind.as_str()) {
            error(
                format!("vocabulary.references.{kind}"),
                format!(
                    "not a reference kind; use one of {}",
                    REFERENCE_KINDS
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
        if let Err(problem) = check_phrase(word) {
            error(format!("vocabulary.references.{kind}"), problem);
        }
    }
    DomainVocabulary {
        nouns: def.nouns.clone(),
        synonyms: pairs(&def.synonyms),
        references: def
            .references
            .iter()
            .map(|(kind, word)| (kind.clone(), word.clone()))
            .collect(),
    }
}

/// Checks an action's vocabulary and fills in its operation and objects.
pub fn action(
    name: &str,
    def: &ActionDef,
    operation_words: &BTreeMap<String, BTreeSet<String>>,
    mut error: impl FnMut(&str, String),
) -> ActionVocabulary {
    let vocabulary = &def.vocabulary;
    let operation = match &vocabulary.operation {
        Some(operation) => {
            if let Err(problem) = check_name(operation) {
                error("vocabulary.operation", problem);
            }
            operation.clone()
        }
        None => implied_operation(name, def).to_owned(),
    };
    if operation_words
        .get(&operation)
        .is_none_or(BTreeSet::is_empty)
    {
        let key = if vocabulary.operation.is_some() {
            "vocabulary.operation"
        } else {
            "vocabulary"
        };
        error(
            key,
            format!(
                "no words ask for the operation `{operation}`: list them under `vocabulary.verbs` (or `vocabulary.operations.{operation}` in shared.yaml)"
            ),
        );
    }
    check_list(&vocabulary.verbs, false, |problem| {
        error("vocabulary.verbs", problem)
    });
    check_list(&vocabulary.phrases, false, |problem| {
        error("vocabulary.phrases", problem)
    });
    let objects = match &vocabulary.objects {
        Some(objects) => {
            for object in objects {
                if let Err(problem) = check_name(object) {
                    error("vocabulary.objects", problem);
                }
            }
            objects.clone()
        }
        None => {
            // The words of the name that do not ask for its operation: `note_list` is the
            // operation `list` on `note`, `project_add` the operation `create` on `project`.
            let own: BTreeSet<&str> = operation.split('_').collect();
            let asks = operation_words.get(&operation);
            name.split('_')
                .filter(|word| !own.contains(word) && !asks.is_some_and(|w| w.contains(*word)))
                .map(str::to_owned)
                .collect()
        }
    };
    ActionVocabulary {
        operation,
        verbs: vocabulary.verbs.clone(),
        phrases: vocabulary.phrases.clone(),
        objects,
        caller: vocabulary.caller,
    }
}

/// What a domain's vocabulary may only say once its actions are known: synonyms mean
/// words the domain uses, references name a noun or an object of the domain.
pub fn check_domain(
    path: &Path,
    file: &DomainFile,
    actions: &[(&str, &ActionVocabulary)],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut words = catalog_words(file);
    for (_, vocabulary) in actions {
        words.extend(vocabulary.objects.iter().cloned());
    }
    for word in file.vocabulary.synonyms.keys() {
        if !words.contains(word) {
            diagnostics.push(Diagnostic::file(
                path,
                format!(
                    "key `vocabulary.synonyms.{word}`: `{word}` is not a word of this domain (its actions' names, tags, titles, descriptions or parameters)"
                ),
            ));
        }
    }
    let name = file.domain.replace('_', " ");
    for (kind, word) in &file.vocabulary.references {
        let noun = *word == name || file.vocabulary.nouns.contains(word);
        let object = actions
            .iter()
            .any(|(_, vocabulary)| vocabulary.objects.contains(word));
        if !noun && !object {
            diagnostics.push(Diagnostic::file(
                path,
                format!(
                    "key `vocabulary.references.{kind}`: `{word}` is neither a noun of this domain nor an object of its actions"
                ),
            ));
        }
    }
}

/// Checks that `shared.yaml`'s synonyms mean words some domain uses.
pub fn check_shared(manifest: &Manifest, diagnostics: &mut Vec<Diagnostic>) {
    let words: BTreeSet<String> = manifest
        .domains
        .iter()
        .flat_map(|(_, file)| catalog_words(file))
        .collect();
    for word in manifest.shared.vocabulary.synonyms.keys() {
        if !words.contains(word) {
            diagnostics.push(Diagnostic::file(
                &manifest.shared_path,
                format!(
                    "key `vocabulary.synonyms.{word}`: `{word}` is not a word of any action (names, tags, titles, descriptions or parameters)"
                ),
            ));
        }
    }
}

/// Every word a domain's text uses, lower case.
fn catalog_words(file: &DomainFile) -> BTreeSet<String> {
    let mut texts: Vec<&str> = vec![&file.domain, &file.title, &file.description];
    texts.extend(file.vocabulary.nouns.iter().map(String::as_str));
    for (name, def) in &file.actions {
        texts.extend([name.as_str(), &def.title, &def.description]);
        texts.extend(def.tags.iter().map(String::as_str));
        for (param, param_def) in &def.params {
            texts.push(param);
            texts.extend(param_def.values.iter().flatten().map(String::as_str));
            texts.extend(param_def.description.as_deref());
        }
    }
    texts
        .iter()
        .flat_map(|text| text.split(|c: char| !c.is_alphanumeric()))
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn pairs(map: &indexmap::IndexMap<String, Vec<String>>) -> Vec<(String, Vec<String>)> {
    map.iter()
        .map(|(name, words)| (name.clone(), words.clone()))
        .collect()
}

/// A map of one word to its words and phrases (`operations`, `synonyms`).
fn check_lists(
    key: &str,
    lists: &indexmap::IndexMap<String, Vec<String>>,
    error: &mut impl FnMut(String, String),
) {
    for (word, words) in lists {
        let key = format!("{key}.{word}");
        if let Err(problem) = check_name(word) {
            error(key.clone(), problem);
        }
        check_list(words, true, |problem| error(key.clone(), problem));
    }
}

/// A list of words and phrases: each one valid, none twice, and (when `required`) some.
fn check_list(words: &[String], required: bool, mut error: impl FnMut(String)) {
    if required && words.is_empty() {
        error("the list is empty".to_owned());
    }
    let mut seen = BTreeSet::new();
    for word in words {
        if let Err(problem) = check_phrase(word) {
            error(problem);
        } else if !seen.insert(word) {
            error(format!("`{word}` is listed twice"));
        }
    }
}

/// A word or phrase as a request would type it: lower case, words separated by one space.
fn check_phrase(text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        return Err("an empty word".to_owned());
    }
    if text.to_lowercase() != text {
        return Err(format!("`{text}` must be lower case"));
    }
    if text.split(' ').any(str::is_empty) || text.chars().any(|c| c.is_whitespace() && c != ' ') {
        return Err(format!(
            "`{text}`: separate the words of a phrase with single spaces"
        ));
    }
    if !text.chars().any(char::is_alphanumeric) {
        return Err(format!("`{text}` has no letter or digit"));
    }
    Ok(())
}

/// A single lower-case word (an operation, an object, a word a synonym means).
fn check_name(text: &str) -> Result<(), String> {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        Ok(())
    } else {
        Err(format!(
            "`{text}` is not one lower-case word (a-z, 0-9 and `_`)"
        ))
    }
}

//! Ids across the catalog: each domain once, each id and alias owned by one action, and
//! every action a hint or a description names declared (with the nearest id when it is not).

use std::collections::{BTreeMap, BTreeSet};

use super::super::Diagnostic;
use super::super::load::Manifest;
use super::super::suggest;
use super::Domain;

pub(super) fn check(manifest: &Manifest, domains: &[Domain], diagnostics: &mut Vec<Diagnostic>) {
    let mut owners: BTreeMap<String, String> = BTreeMap::new();
    let file_of = |domain: &str| manifest.file_of(domain);
    let mut domain_names = BTreeSet::new();
    for domain in domains {
        if !domain_names.insert(domain.name.clone()) {
            diagnostics.push(Diagnostic::file(
                &file_of(&domain.name),
                format!("domain `{}` is declared twice", domain.name),
            ));
        }
        for action in &domain.actions {
            let names = std::iter::once(action.id.clone()).chain(action.aliases.iter().cloned());
            for (index, name) in names.enumerate() {
                let key = if index == 0 {
                    String::new()
                } else {
                    "aliases".to_owned()
                };
                if let Some(owner) = owners.insert(name.clone(), action.id.clone()) {
                    diagnostics.push(Diagnostic::action(
                        &file_of(&domain.name),
                        &action.id,
                        &key,
                        format!("`{name}` is already the id or an alias of `{owner}`"),
                    ));
                }
                if index > 0 && !name.contains('.') {
                    diagnostics.push(Diagnostic::action(
                        &file_of(&domain.name),
                        &action.id,
                        &key,
                        format!("alias `{name}` is not of the form `domain.action`"),
                    ));
                }
            }
        }
    }
    // Every declared id, resolved or not, so one broken action does not make every hint
    // that names it an error too.
    let ids: BTreeSet<String> = manifest
        .domains
        .iter()
        .flat_map(|(_, file)| {
            file.actions
                .keys()
                .map(move |name| format!("{}.{name}", file.domain))
        })
        .collect();
    let known = |id: &str| ids.contains(id) || manifest.unreadable.action(id);
    let unknown = |id: &str| {
        let candidates = ids.iter().chain(&manifest.unreadable.actions);
        format!(
            "`{id}` is not an action id{}",
            suggest::did_you_mean(id, candidates.map(String::as_str))
        )
    };
    let domain_names: BTreeSet<&str> = manifest
        .domains
        .iter()
        .map(|(_, file)| file.domain.as_str())
        .chain(manifest.unreadable.domains.iter().map(String::as_str))
        .collect();
    for (path, file) in &manifest.domains {
        for id in named_ids(&file.description, &domain_names) {
            if !known(id) {
                diagnostics.push(Diagnostic::file(
                    path,
                    format!("key `description`: {}", unknown(id)),
                ));
            }
        }
        for (name, action) in &file.actions {
            let id = format!("{}.{name}", file.domain);
            let mut texts: Vec<(String, &str)> = vec![("description".into(), &action.description)];
            for (param, def) in &action.params {
                if let Some(description) = &def.description {
                    texts.push((format!("params.{param}.description"), description));
                }
            }
            for (index, hint) in action.hints.iter().enumerate() {
                if !known(&hint.action) {
                    diagnostics.push(Diagnostic::action(
                        path,
                        &id,
                        "hints",
                        unknown(&hint.action),
                    ));
                }
                texts.push((format!("hints.{index}.text"), &hint.text));
            }
            for (key, text) in texts {
                for named in named_ids(text, &domain_names) {
                    if !known(named) {
                        diagnostics.push(Diagnostic::action(path, &id, &key, unknown(named)));
                    }
                }
            }
        }
    }
}

/// The action ids a text names: words of the form `domain.action` (quoted or not) whose
/// domain is one of `domains`, so that `.gitlab-ci.yml` or `example.com` are not taken for one.
fn named_ids<'a>(text: &'a str, domains: &BTreeSet<&str>) -> Vec<&'a str> {
    text.split_whitespace()
        .map(|word| {
            word.trim_start_matches(|c: char| "`'\"([".contains(c))
                .trim_end_matches(|c: char| "`'\")],;:!?.".contains(c))
        })
        .filter(|word| {
            word.split_once('.').is_some_and(|(domain, name)| {
                domains.contains(domain)
                    && !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            })
        })
        .collect()
}

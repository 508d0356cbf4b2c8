//! Ids across the catalog: each domain once, each id and alias owned by one action, and
//! every action a hint names declared.

use std::collections::{BTreeMap, BTreeSet};

use super::super::Diagnostic;
use super::super::load::Manifest;
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
    for domain in domains {
        for action in &domain.actions {
            for hint in &action.hints {
                let target = &hint.action;
                if !ids.contains(target) {
                    diagnostics.push(Diagnostic::action(
                        &file_of(&domain.name),
                        &action.id,
                        "hints",
                        format!("`{target}` is not an action id"),
                    ));
                }
            }
        }
    }
}

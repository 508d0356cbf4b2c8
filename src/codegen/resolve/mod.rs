//! Checks the parsed manifest and resolves it into the model `emit` reads (build time only).
//!
//! Every rule a maintainer can break is checked here and reported as a diagnostic naming the
//! file, the action and the key; all diagnostics are collected before the build fails so one
//! run shows every mistake. After this pass, `emit` may assume the model is consistent:
//! every referenced type, field, parameter and action exists.
//!
//! One module per kind of rule: `names` (every name a valid Rust identifier that shadows
//! nothing generated code uses), `types` (entity types and their fields), `views` (cards,
//! tables and cell kinds), `action` (an action's texts, request and result), `safety`
//! (safety and what an action requires), `params` (parameters, their types and examples),
//! `graphql` (a GraphQL operation against its parameters), `placeholders` (`{param}` in
//! texts), `hints` (next steps and their conditions), `ids` (ids, aliases and the actions
//! texts name), `enums` (a shared Rust enum per set of values). The resolved model is
//! `checked`.

mod action;
mod checked;
mod enums;
mod graphql;
mod hints;
mod ids;
pub mod names;
mod params;
mod placeholders;
mod safety;
mod types;
mod views;

use std::path::Path;

pub use super::kinds::{ParamType, Requires};
pub use checked::*;
pub use names::{check_identifier, variant_name};

use super::Diagnostic;
use super::load::{Manifest, Unreadable};
use super::vocabulary::{self, ActionVocabulary};
use names::RESERVED_MODULES;

/// Resolves the manifest, or returns every problem found.
pub fn catalog(manifest: Manifest) -> Result<Catalog, Vec<Diagnostic>> {
    let mut diagnostics = Vec::new();
    let shared_path = manifest.shared_path.clone();
    let types = types::resolve(
        &manifest.type_files,
        &manifest.shared.types,
        &manifest.unreadable.types,
        &mut diagnostics,
    );
    let shared_params = &manifest.shared.params;
    for (name, def) in shared_params {
        if def.ty.is_none() {
            diagnostics.push(Diagnostic::file(
                &shared_path,
                format!("key `params.{name}.type`: missing"),
            ));
        }
        if def.description.is_none() {
            diagnostics.push(Diagnostic::file(
                &shared_path,
                format!("key `params.{name}.description`: missing"),
            ));
        }
    }

    let shared_vocabulary =
        vocabulary::shared(&shared_path, &manifest.shared.vocabulary, &mut diagnostics);
    let operation_words = vocabulary::operation_words(&manifest);

    let mut domains: Vec<Domain> = Vec::new();
    for (path, file) in &manifest.domains {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if let Err(problem) = check_identifier(&file.domain) {
            diagnostics.push(Diagnostic::file(path, format!("key `domain`: {problem}")));
        }
        if RESERVED_MODULES.contains(&file.domain.as_str()) {
            diagnostics.push(Diagnostic::file(
                path,
                format!(
                    "key `domain`: `{}` is the name of a generated module ({}); choose another",
                    file.domain,
                    RESERVED_MODULES.join(", ")
                ),
            ));
        }
        if stem != file.domain {
            diagnostics.push(Diagnostic::file(
                path,
                format!(
                    "key `domain`: `{}` must match the file name `{stem}.yaml`",
                    file.domain
                ),
            ));
        }
        let mut actions = Vec::new();
        for (name, def) in &file.actions {
            let mut scope = Scope {
                path,
                id: format!("{}.{name}", file.domain),
                diagnostics: &mut diagnostics,
                unreadable: &manifest.unreadable,
            };
            if let Some(action) = action::resolve(
                &mut scope,
                &file.domain,
                name,
                def,
                shared_params,
                &types,
                &operation_words,
            ) {
                actions.push(action);
            }
        }
        let domain_vocabulary = vocabulary::domain(path, file, &mut diagnostics);
        let action_vocabularies: Vec<(&str, &ActionVocabulary)> = actions
            .iter()
            .map(|a: &Action| (a.name.as_str(), &a.vocabulary))
            .collect();
        vocabulary::check_domain(path, file, &action_vocabularies, &mut diagnostics);
        domains.push(Domain {
            name: file.domain.clone(),
            title: file.title.clone(),
            description: file.description.trim().to_owned(),
            vocabulary: domain_vocabulary,
            actions,
        });
    }

    vocabulary::check_shared(&manifest, &mut diagnostics);
    ids::check(&manifest, &domains, &mut diagnostics);
    let enums = enums::assign(&manifest, &mut domains, &types, &mut diagnostics);

    if diagnostics.is_empty() {
        Ok(Catalog {
            types,
            enums,
            domains,
            vocabulary: shared_vocabulary,
        })
    } else {
        Err(diagnostics)
    }
}

/// Diagnostics for one action, each naming the file and the action id.
pub(super) struct Scope<'a> {
    pub path: &'a Path,
    pub id: String,
    pub diagnostics: &'a mut Vec<Diagnostic>,
    /// What could not be read (already reported): naming it is not another problem.
    pub unreadable: &'a Unreadable,
}

impl Scope<'_> {
    pub fn error(&mut self, key: &str, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::action(self.path, &self.id, key, message.into()));
    }
}

/// Runs of white space as one space: how descriptions and texts are compared and emitted.
pub(super) fn normalize_space(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

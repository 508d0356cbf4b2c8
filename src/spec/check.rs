//! `gitlab-mcp spec-check <openapi.yaml>`: which actions' method and path are not in GitLab's
//! spec, and how much of the spec the catalog covers.
//!
//! The spec is incomplete (notes, labels, to-dos, `/user`, `/users` and more are missing), so
//! an action it lacks is listed, with the GitLab docs page that documents it, in
//! `actions/not-in-openapi.tsv`. An action missing from both is a failure, and so is a list
//! entry that is no longer needed.
//!
//! An action covers the spec's path written with each fixed value of a path parameter (one
//! `integration.update` for the spec's PUT per integration), and a renamed path GitLab
//! still serves under its old name (`spec::current_shapes`).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{Spec, current_shapes, served_shapes};
use crate::catalog::{ACTIONS, Action};

/// Actions GitLab documents but its OpenAPI spec lacks: `id<TAB>docs page<TAB>why`.
const NOT_IN_OPENAPI: &str = include_str!("../../actions/not-in-openapi.tsv");

/// What `spec-check` found.
#[derive(Debug, Default)]
pub struct Report {
    /// Spec operations (method and path shape).
    pub operations: usize,
    /// Spec operations at least one action covers.
    pub covered: usize,
    /// The others, as `scaffold` takes them (`GET /projects/{id}/badges`), in the spec's
    /// order of paths.
    pub uncovered: Vec<String>,
    /// Actions whose method and path shape the spec has.
    pub matched: usize,
    /// Actions the spec lacks, found in the list with their docs page.
    pub listed: Vec<(&'static str, &'static str)>,
    /// Actions the spec lacks and the list does not explain.
    pub unlisted: Vec<&'static Action>,
    /// List entries that are wrong: no such action, or the spec has it after all.
    pub stale: Vec<String>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.unlisted.is_empty() && self.stale.is_empty()
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        let percent = 100.0 * self.covered as f64 / self.operations.max(1) as f64;
        let _ = writeln!(
            out,
            "The catalog's {} actions cover {} of the spec's {} operations ({percent:.1}%).",
            ACTIONS.len(),
            self.covered,
            self.operations
        );
        let _ = writeln!(
            out,
            "{} actions match the spec; {} are documented by GitLab but missing from the spec (actions/not-in-openapi.tsv).",
            self.matched,
            self.listed.len()
        );
        if !self.unlisted.is_empty() {
            let _ = writeln!(
                out,
                "\nNot in the spec and not in actions/not-in-openapi.tsv (fix the method or path, or list the action with its GitLab docs page):"
            );
            for action in &self.unlisted {
                match action.graphql {
                    Some(graphql) => {
                        let _ = writeln!(
                            out,
                            "  {}: GraphQL `{}` (POST /api/graphql)",
                            action.id, graphql.operation
                        );
                    }
                    None => {
                        let _ = writeln!(out, "  {}: {} {}", action.id, action.method, action.path);
                    }
                }
            }
        }
        if !self.stale.is_empty() {
            let _ = writeln!(out, "\nStale entries in actions/not-in-openapi.tsv:");
            for entry in &self.stale {
                let _ = writeln!(out, "  {entry}");
            }
        }
        out
    }
}

/// Compares every catalog action with the spec's operations.
pub fn check(spec: &Spec) -> Report {
    let mut operations = BTreeSet::new();
    for operation in spec.operations() {
        for path in current_shapes(&operation.path) {
            operations.insert((operation.method.clone(), path));
        }
    }
    let listed = listed();
    let mut report = Report {
        operations: spec.operations().len(),
        ..Report::default()
    };
    let mut covered = BTreeSet::new();
    for action in ACTIONS {
        let entry = listed.iter().find(|(id, ..)| *id == action.id);
        // A GraphQL action is no REST operation: the list names its GraphQL docs page.
        if action.graphql.is_some() {
            match entry {
                Some((id, page, _)) => report.listed.push((id, page)),
                None => report.unlisted.push(action),
            }
            continue;
        }
        let method = action.method.name();
        let served: Vec<(String, String)> = served_shapes(action.path, |name| values(action, name))
            .into_iter()
            .map(|shape| (method.to_owned(), shape))
            .filter(|key| operations.contains(key))
            .collect();
        match (!served.is_empty(), entry) {
            (true, None) => {
                report.matched += 1;
                covered.extend(served);
            }
            (true, Some(_)) => {
                report.matched += 1;
                covered.extend(served);
                report.stale.push(format!(
                    "{}: the spec has {} {} now; remove the entry",
                    action.id, action.method, action.path
                ));
            }
            (false, Some((id, page, _))) => report.listed.push((id, page)),
            (false, None) => report.unlisted.push(action),
        }
    }
    for (id, ..) in &listed {
        if !ACTIONS.iter().any(|a| a.id == *id) {
            report.stale.push(format!("{id}: no such action"));
        }
    }
    // An operation counts once, however many optional-segment spellings it has.
    for operation in spec.operations() {
        if current_shapes(&operation.path)
            .into_iter()
            .any(|path| covered.contains(&(operation.method.clone(), path)))
        {
            report.covered += 1;
        } else {
            report
                .uncovered
                .push(format!("{} {}", operation.method, operation.path));
        }
    }
    report
}

/// The fixed values of an action's parameter, if it has them.
fn values(action: &Action, name: &str) -> Vec<String> {
    action
        .params
        .iter()
        .find(|p| p.name == name)
        .map(|p| p.values.iter().map(|v| (*v).to_owned()).collect())
        .unwrap_or_default()
}

/// The list's rows: id, docs page, why.
fn listed() -> Vec<(&'static str, &'static str, &'static str)> {
    NOT_IN_OPENAPI
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .skip(1)
        .filter_map(|line| {
            let mut columns = line.split('\t');
            Some((
                columns.next()?,
                columns.next()?,
                columns.next().unwrap_or(""),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_action_has_a_docs_page() {
        for (id, page, why) in listed() {
            assert!(page.starts_with("https://docs.gitlab.com/"), "{id}: {page}");
            assert!(!why.trim().is_empty(), "{id}: say why the spec lacks it");
        }
    }

    #[test]
    fn a_spec_decides_match_coverage_and_staleness() {
        let spec: Spec = serde_json::from_value(serde_json::json!({
            "paths": {
                "/api/v4/projects/{id}/merge_requests": {"get": {}, "post": {}},
                "/api/v4/projects/{id}/(-/)search": {"get": {}},
                "/api/v4/version": {"get": {}}
            }
        }))
        .unwrap();
        let report = check(&spec);
        assert_eq!(report.operations, 4);
        // merge_request.list, merge_request.create and the project searches (the spec's
        // optional `(-/)` segment dropped) match; nothing covers version.
        assert_eq!(report.covered, 3);
        assert_eq!(report.uncovered, ["GET /version"]);
        assert!(!report.passed(), "most actions are not in this tiny spec");
        assert!(
            report.unlisted.iter().any(|a| a.id == "project.get"),
            "{}",
            report.text()
        );
    }
}

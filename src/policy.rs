//! Which actions this server instance offers and how mutating ones behave.
//!
//! Decided per action, never per tool, so every surface, `find`, the docs resources and the
//! next-step hints agree: a read-only server has no mutating action anywhere, an excluded
//! action is not offered, safe mode previews instead of mutating, and a destructive action
//! needs `confirm: true` unless YOLO mode is on.

use std::sync::{Arc, OnceLock};

use crate::catalog::{ACTIONS, Action};
use crate::fit::{Fit, Unfit};

/// How a get result points at its `gitlab://` resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum EmbeddedResources {
    /// A resource link, no duplicated JSON (the default).
    #[default]
    #[value(alias = "true", alias = "on", alias = "1")]
    Link,
    /// An embedded resource carrying the entity JSON.
    #[value(alias = "embedded")]
    Embed,
    /// Nothing.
    #[value(alias = "false", alias = "none", alias = "0")]
    Off,
}

#[derive(Debug, Clone, Default)]
pub struct Policy {
    pub read_only: bool,
    pub safe_mode: bool,
    pub yolo: bool,
    /// Action ids or globs (`*` any run of characters, `?` one) that are not offered.
    pub exclude: Vec<String>,
    pub embedded_resources: EmbeddedResources,
    /// What the instance and the token can run, once learned (`Dispatcher::fitted`).
    pub fit: Arc<OnceLock<Fit>>,
}

/// Why an action is not offered by this instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    ReadOnly,
    Excluded,
    /// The instance or the token cannot run it.
    Unfit(Unfit),
}

impl Policy {
    /// `None` when the action is offered, else why not.
    pub fn hidden(&self, action: &Action) -> Option<Hidden> {
        if self.read_only && action.is_mutation() {
            return Some(Hidden::ReadOnly);
        }
        if self
            .exclude
            .iter()
            .any(|pattern| glob_match(pattern, action.id))
        {
            return Some(Hidden::Excluded);
        }
        if let Some(unfit) = self.fit.get().and_then(|fit| fit.unfit(action)) {
            return Some(Hidden::Unfit(unfit));
        }
        None
    }

    /// The same policy before fitting: what is known without asking GitLab. It is never
    /// fitted (its `fit` is its own), so what is built from it stays as it was built.
    pub fn unfitted(&self) -> Policy {
        Policy {
            fit: Arc::new(OnceLock::new()),
            ..self.clone()
        }
    }

    pub fn allows(&self, action: &Action) -> bool {
        self.hidden(action).is_none()
    }

    /// Every action this instance offers, in catalog order.
    pub fn visible(&self) -> impl Iterator<Item = &'static Action> + '_ {
        ACTIONS.iter().filter(|action| self.allows(action))
    }

    pub fn needs_confirmation(&self, action: &Action) -> bool {
        action.safety.destructive && !self.yolo
    }

    /// Why an exclusion pattern is a mistake: it matches no action in the catalog (with
    /// the closest ids, for a typo). `None` when it matches one or more.
    pub fn unmatched_exclusion(pattern: &str) -> Option<String> {
        if ACTIONS.iter().any(|action| glob_match(pattern, action.id)) {
            return None;
        }
        let mut close: Vec<(usize, &str)> = ACTIONS
            .iter()
            .map(|a| (crate::text::edit_distance(pattern, a.id), a.id))
            .filter(|(distance, _)| *distance <= 3)
            .collect();
        close.sort();
        let hint = match close.first() {
            Some((_, id)) => format!("; did you mean `{id}`?"),
            None => "; ids are `domain.action` (`gitlab-mcp catalog` lists them), and `*` and `?` are wildcards".to_owned(),
        };
        Some(format!("`{pattern}` matches no action{hint}"))
    }

    /// Parses a comma- or whitespace-separated exclusion list.
    pub fn parse_exclude(text: &str) -> Vec<String> {
        text.split([',', ' ', '\n'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

/// Shell-style matching with `*` and `?`, over the whole text.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    fn matches(pattern: &[char], text: &[char]) -> bool {
        match pattern.split_first() {
            None => text.is_empty(),
            Some(('*', rest)) => (0..=text.len()).any(|skip| matches(rest, &text[skip..])),
            Some(('?', rest)) => !text.is_empty() && matches(rest, &text[1..]),
            Some((ch, rest)) => text.first() == Some(ch) && matches(rest, &text[1..]),
        }
    }
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    matches(&pattern, &text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;

    #[test]
    fn globs() {
        assert!(glob_match("project.*", "project.delete"));
        assert!(glob_match("*.delete", "branch.delete"));
        assert!(!glob_match("*.delete", "branch.delete_merged"));
        assert!(glob_match("job.?etry", "job.retry"));
        assert!(glob_match("issue.get", "issue.get"));
    }

    #[test]
    fn read_only_hides_every_mutation() {
        let policy = Policy {
            read_only: true,
            ..Policy::default()
        };
        assert!(policy.visible().all(|action| action.safety.read_only));
        assert!(policy.visible().any(|action| action.id == "project.get"));
        assert!(!policy.allows(catalog::find("project.delete").unwrap()));
    }

    #[test]
    fn an_exclusion_that_matches_nothing_is_explained() {
        assert_eq!(Policy::unmatched_exclusion("*.delete"), None);
        assert_eq!(Policy::unmatched_exclusion("project.delete"), None);
        assert_eq!(
            Policy::unmatched_exclusion("project.delet").as_deref(),
            Some("`project.delet` matches no action; did you mean `project.delete`?")
        );
        assert!(
            Policy::unmatched_exclusion("vulnerability.*")
                .unwrap()
                .contains("gitlab-mcp catalog")
        );
    }

    #[test]
    fn exclusions() {
        let policy = Policy {
            exclude: Policy::parse_exclude("*.delete, job.play"),
            ..Policy::default()
        };
        assert_eq!(
            policy.hidden(catalog::find("branch.delete").unwrap()),
            Some(Hidden::Excluded)
        );
        assert_eq!(
            policy.hidden(catalog::find("job.play").unwrap()),
            Some(Hidden::Excluded)
        );
        assert!(policy.allows(catalog::find("branch.get").unwrap()));
    }
}

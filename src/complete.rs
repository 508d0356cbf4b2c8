//! `completion/complete`: values for prompt arguments and resource-template parameters.
//!
//! What an argument completes to is declared with it (`complete:` in `prompts/*.yaml`);
//! a resource template's parameter completes by its name (`parameter_kind`). Each request
//! makes at most one GitLab call, a list action run through the dispatcher like any call
//! (so policy and fitting hold), searched with what was typed; values of a project
//! (branches, merge requests, labels, ...) are those of the `project_id` the client has
//! already chosen. At most `MAX_VALUES` come back, those starting with what was typed
//! first. Answers are kept `TTL` per token, instance and request, so typing back and
//! forth costs no call.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::catalog;
use crate::dispatch::Dispatcher;
use crate::prompts::Completion;

/// The most values one answer carries.
pub const MAX_VALUES: usize = 10;
/// How long an answer is reused for the same token and request.
pub const TTL: Duration = Duration::from_secs(30);
/// The most answers kept.
const CAPACITY: usize = 512;
/// How many items the one call asks for, so that filtering still leaves enough.
const FETCH: u64 = 50;

/// Completed values, and whether more matched than were returned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Values {
    pub values: Vec<String>,
    pub has_more: bool,
}

/// The answers of recent requests, per token.
pub struct Completions {
    keys: (
        std::collections::hash_map::RandomState,
        std::collections::hash_map::RandomState,
    ),
    entries: Mutex<HashMap<(u64, u64), (Instant, Values)>>,
}

impl Default for Completions {
    fn default() -> Self {
        Self {
            keys: Default::default(),
            entries: Mutex::new(HashMap::new()),
        }
    }
}

/// What a resource template's parameter completes to, by its name.
pub fn parameter_kind(name: &str) -> Option<Completion> {
    Some(match name {
        "project_id" => Completion::Project,
        "group_id" => Completion::Group,
        "branch" | "branch_name" => Completion::Branch,
        "tag_name" => Completion::Tag,
        "ref" | "sha" => Completion::Ref,
        "merge_request_iid" => Completion::MergeRequest,
        "issue_iid" => Completion::Issue,
        "pipeline_id" => Completion::Pipeline,
        "username" => Completion::User,
        "label_id" | "label" => Completion::Label,
        "milestone_id" | "milestone" => Completion::Milestone,
        _ => return None,
    })
}

/// An item's value, with its title when asked (`true`) and it has one.
type ItemValue = fn(&Value, bool) -> Option<String>;

/// How one kind is completed: the list action, its parameters, and each item's value.
struct Plan {
    action: &'static str,
    params: Map<String, Value>,
    /// The value an item offers (`None`: the item offers nothing).
    value: ItemValue,
    /// Whether the value typed is matched against the item's number (an IID or id).
    numbered: bool,
}

fn text_of(item: &Value, key: &str) -> Option<String> {
    match item.get(key)? {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// `42: Add rate limiting` for a prompt argument (which reads the number back), `42`
/// for a URI.
fn numbered(item: &Value, key: &str, label: Option<String>, titled: bool) -> Option<String> {
    let number = text_of(item, key)?;
    Some(match label.filter(|_| titled) {
        Some(label) => format!("{number}: {label}"),
        None => number,
    })
}

fn plan(kind: Completion, typed: &str, project: Option<&str>) -> Option<Plan> {
    let search = |params: &mut Map<String, Value>, text: &str| {
        if !text.is_empty() {
            params.insert("search".into(), json!(text));
        }
    };
    let mut params = Map::new();
    params.insert("per_page".into(), json!(FETCH));
    let in_project = |params: &mut Map<String, Value>| -> Option<()> {
        params.insert("project_id".into(), json!(project?));
        Some(())
    };
    let number_typed = !typed.is_empty()
        && typed
            .trim_start_matches(['!', '#'])
            .bytes()
            .all(|b| b.is_ascii_digit());
    let (action, value, numbered): (&str, ItemValue, bool) = match kind {
        Completion::Project => {
            search(&mut params, typed);
            if typed.contains('/') {
                params.insert("search_namespaces".into(), json!(true));
            }
            (
                "project.list",
                |item, _| text_of(item, "path_with_namespace"),
                false,
            )
        }
        Completion::Group => {
            // GitLab searches a group's name and path, not its parents'.
            search(&mut params, typed.rsplit('/').next().unwrap_or(typed));
            ("group.list", |item, _| text_of(item, "full_path"), false)
        }
        Completion::Branch | Completion::Ref => {
            in_project(&mut params)?;
            search(&mut params, typed);
            ("branch.list", |item, _| text_of(item, "name"), false)
        }
        Completion::Tag => {
            in_project(&mut params)?;
            search(&mut params, typed);
            ("tag.list", |item, _| text_of(item, "name"), false)
        }
        Completion::MergeRequest | Completion::Issue => {
            in_project(&mut params)?;
            params.insert("state".into(), json!("opened"));
            if !number_typed {
                search(&mut params, typed);
            }
            let action = if kind == Completion::Issue {
                "issue.list"
            } else {
                "merge_request.list"
            };
            (
                action,
                |item, titled| numbered(item, "iid", text_of(item, "title"), titled),
                true,
            )
        }
        Completion::Pipeline => {
            in_project(&mut params)?;
            (
                "pipeline.list",
                |item, titled| {
                    let label = match (text_of(item, "status"), text_of(item, "ref")) {
                        (Some(status), Some(reference)) => Some(format!("{status} on {reference}")),
                        (status, _) => status,
                    };
                    numbered(item, "id", label, titled)
                },
                true,
            )
        }
        Completion::User => {
            search(&mut params, typed.trim_start_matches('@'));
            ("user.list", |item, _| text_of(item, "username"), false)
        }
        Completion::Label => {
            in_project(&mut params)?;
            search(&mut params, typed);
            ("label.list", |item, _| text_of(item, "name"), false)
        }
        Completion::Milestone => {
            in_project(&mut params)?;
            search(&mut params, typed);
            ("milestone.list", |item, _| text_of(item, "title"), false)
        }
    };
    Some(Plan {
        action,
        params,
        value,
        numbered,
    })
}

impl Completions {
    /// The values for `kind` as typed so far; `context` holds the arguments already
    /// chosen (`project_id`). `titled`: numbered values carry their title.
    pub async fn complete(
        &self,
        dispatcher: &Dispatcher,
        kind: Completion,
        typed: &str,
        context: &HashMap<String, String>,
        titled: bool,
    ) -> Values {
        let typed = typed.trim();
        let project = context
            .get("project_id")
            .map(|p| p.trim())
            .filter(|p| !p.is_empty());
        let Some(plan) = plan(kind, typed, project) else {
            return Values::default();
        };
        let client = dispatcher.context().gitlab();
        let token = client.token().map(|t| t.expose()).unwrap_or_default();
        let subject = (
            client.api_url(),
            token,
            format!("{kind:?}"),
            project,
            typed,
            titled,
        );
        let key = (
            self.keys.0.hash_one(&subject),
            self.keys.1.hash_one(&subject),
        );
        if let Some(values) = self.cached(key) {
            return values;
        }
        let Some(action) = catalog::find(plan.action) else {
            return Values::default();
        };
        let outcome = dispatcher.run(action, plan.params.clone(), false).await;
        if outcome.is_error {
            // Not kept: the next keystroke may find GitLab answering again.
            return Values::default();
        }
        let catalog::ResultShape::List { key: list, .. } = action.result else {
            return Values::default();
        };
        let items = outcome
            .structured
            .as_ref()
            .and_then(|s| s.get(list))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let values = rank(&plan, &items, typed, titled);
        self.keep(key, values.clone());
        values
    }

    fn cached(&self, key: (u64, u64)) -> Option<Values> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .get(&key)
            .filter(|(born, _)| born.elapsed() < TTL)
            .map(|(_, values)| values.clone())
    }

    fn keep(&self, key: (u64, u64), values: Values) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= CAPACITY {
            entries.retain(|_, (born, _)| born.elapsed() < TTL);
        }
        if entries.len() >= CAPACITY
            && let Some(oldest) = entries
                .iter()
                .min_by_key(|(_, (born, _))| *born)
                .map(|(k, _)| *k)
        {
            entries.remove(&oldest);
        }
        entries.insert(key, (Instant::now(), values));
    }
}

/// The items' values that match what was typed: those starting with it first, then the
/// others GitLab's search found (for names, those containing it), in GitLab's order.
fn rank(plan: &Plan, items: &[Value], typed: &str, titled: bool) -> Values {
    let needle = typed.trim_start_matches(['!', '#', '@']).to_lowercase();
    let number_typed = needle.bytes().all(|b| b.is_ascii_digit());
    let values = items.iter().filter_map(|item| (plan.value)(item, titled));
    select(values, &needle, |value| {
        if plan.numbered {
            // A title GitLab searched: its number does not start with the words.
            !number_typed
        } else {
            value.contains(&needle)
        }
    })
}

/// Action ids for `gitlab://tools/{id}`: the offered ones starting with what was typed,
/// then those containing it (no GitLab call).
pub fn action_ids(policy: &crate::policy::Policy, typed: &str) -> Values {
    let needle = typed.trim().to_lowercase();
    let ids = policy.visible().map(|action| action.id.to_owned());
    select(ids, &needle, |id| id.contains(&needle))
}

/// The distinct values starting with `needle` (lowercase), then the others `keep` accepts
/// (given the value in lowercase); at most `MAX_VALUES`.
fn select(
    values: impl IntoIterator<Item = String>,
    needle: &str,
    keep: impl Fn(&str) -> bool,
) -> Values {
    let (mut starting, mut others): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for value in values {
        if starting.contains(&value) || others.contains(&value) {
            continue;
        }
        let lower = value.to_lowercase();
        if lower.starts_with(needle) {
            starting.push(value);
        } else if keep(&lower) {
            others.push(value);
        }
    }
    starting.append(&mut others);
    let has_more = starting.len() > MAX_VALUES;
    starting.truncate(MAX_VALUES);
    Values {
        values: starting,
        has_more,
    }
}

/// The number at the start of a completed value (`42: Add rate limiting`, `!42`, `#17`),
/// or the value as given.
pub fn leading_number(value: &str) -> &str {
    let trimmed = value.trim().trim_start_matches(['!', '#']);
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &trimmed[digits..];
    if digits > 0 && (rest.is_empty() || rest.starts_with(':') || rest.starts_with(' ')) {
        &trimmed[..digits]
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_back_from_completed_values() {
        assert_eq!(leading_number("42: Add rate limiting"), "42");
        assert_eq!(leading_number("!42"), "42");
        assert_eq!(leading_number("#17 Login page"), "17");
        assert_eq!(leading_number("42"), "42");
        assert_eq!(leading_number("v1.2"), "v1.2");
        assert_eq!(leading_number("42abc"), "42abc");
    }

    #[test]
    fn values_starting_with_what_was_typed_come_first() {
        let plan = plan(Completion::Branch, "docs", Some("p")).unwrap();
        let items: Vec<Value> = [
            "main",
            "fix/docs-typo",
            "docs/api",
            "docs/guide",
            "docs/api",
        ]
        .iter()
        .map(|name| json!({"name": name}))
        .collect();
        let ranked = rank(&plan, &items, "docs", false);
        assert_eq!(ranked.values, ["docs/api", "docs/guide", "fix/docs-typo"]);
        assert!(!ranked.has_more);
    }

    #[test]
    fn a_project_value_needs_the_project_chosen() {
        assert!(plan(Completion::Branch, "docs/", None).is_none());
        assert!(plan(Completion::Project, "acme/pla", None).is_some());
    }
}

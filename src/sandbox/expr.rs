//! The small language the sandbox's behaviour data is written in: templates, a few
//! operators and conditions over named values (`seed/README.md` documents it).
//!
//! A *template* is any JSON value. A string `"{merge_request.iid}"` that is exactly one
//! placeholder keeps the value's JSON type; placeholders inside longer text are filled in as
//! text. A placeholder is a dotted path into the named values (`user.id`, `body.ref`,
//! `project.default_branch`, `clones.0.id`) followed by filters (`|count`, `|or:body.name`).
//! An object with a single `$`-key is an operator (`{"$max": [0, ...]}`); any other object
//! or array is a template of its members.
//!
//! A *condition* is an object of `expression: matcher` pairs that must all hold, or
//! `{"any": [...]}`, `{"all": [...]}`, `{"not": {...}}`. A matcher is a template compared
//! for equality, or an object of tests (`{"in": [...]}`, `{"at_least": 2}`, ...).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::store::{Store, basic_user, get_path, public, text};

/// The named values a behaviour reads: the caller, the request, the records on the path,
/// lookups, and what the behaviour made.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    values: BTreeMap<String, Value>,
}

impl Scope {
    pub fn bind(&mut self, name: &str, value: Value) {
        self.values.insert(name.to_owned(), value);
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    /// Rebinds every name that held `old` (a record seen under several names: `target`
    /// and `merge_request`) to `new`.
    pub fn replace(&mut self, old: &Value, new: &Value) {
        for value in self.values.values_mut() {
            if value == old {
                *value = new.clone();
            }
        }
    }

    /// The value at a dotted path; array items by index (`clones.0`).
    pub fn path(&self, path: &str) -> Value {
        let mut parts = path.split('.');
        let Some(first) = parts.next() else {
            return Value::Null;
        };
        let mut current = match self.values.get(first) {
            Some(value) => value,
            None => return Value::Null,
        };
        for part in parts {
            let next = match current {
                Value::Array(items) => part.parse::<usize>().ok().and_then(|i| items.get(i)),
                other => other.get(part),
            };
            match next {
                Some(value) => current = value,
                None => return Value::Null,
            }
        }
        current.clone()
    }

    /// Evaluates a template.
    pub fn eval(&self, store: &Store, template: &Value) -> Value {
        match template {
            Value::String(text) => self.string(store, text),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.eval(store, v)).collect())
            }
            Value::Object(map) => match operator(map) {
                Some((name, argument)) => self.operate(store, name, argument),
                None => Value::Object(
                    map.iter()
                        .map(|(k, v)| (k.clone(), self.eval(store, v)))
                        .collect(),
                ),
            },
            other => other.clone(),
        }
    }

    /// Evaluates every value of a map of templates.
    pub fn eval_map(&self, store: &Store, map: &Map<String, Value>) -> Map<String, Value> {
        map.iter()
            .map(|(k, v)| (k.clone(), self.eval(store, v)))
            .collect()
    }

    fn string(&self, store: &Store, template: &str) -> Value {
        if let Some(inner) = template.strip_prefix('{').and_then(|t| t.strip_suffix('}'))
            && !inner.contains(['{', '}'])
        {
            return self.expression(store, inner);
        }
        Value::String(crate::text::fill_placeholders(template, |inner| {
            let value = self.expression(store, inner);
            (!value.is_null()).then(|| text(&value))
        }))
    }

    /// `path|filter|filter:argument`.
    pub fn expression(&self, store: &Store, expression: &str) -> Value {
        let mut filters = expression.split('|');
        let head = filters.next().unwrap_or_default().trim();
        let mut value = self.argument(head);
        for filter in filters {
            let (name, argument) = filter.split_once(':').unwrap_or((filter, ""));
            value = self.filter(store, name.trim(), argument.trim(), value);
        }
        value
    }

    /// A filter's argument or an expression's head: a number, `true`/`false`, a quoted
    /// literal (`'main'`), or a path.
    fn argument(&self, text: &str) -> Value {
        if let Some(literal) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
            return json!(literal);
        }
        match text {
            "true" => return json!(true),
            "false" => return json!(false),
            "null" => return Value::Null,
            _ => {}
        }
        if let Ok(number) = text.parse::<i64>() {
            return json!(number);
        }
        self.path(text)
    }

    /// GitLab's badge placeholders (`Badge::PLACEHOLDERS`) filled in for `project`: its
    /// path, title, name, id, namespace, group, server, default branch and that branch's
    /// last commit. A placeholder GitLab does not know stays as written.
    fn badge_url(&self, store: &Store, url: &str) -> String {
        let project = self.path("project");
        if project.is_null() {
            return url.to_owned();
        }
        let default_branch = text(&project["default_branch"]);
        let commit_sha = store
            .all("projects/repository/branches")
            .iter()
            .find(|branch| {
                text(&branch["_project_id"]) == text(&project["id"])
                    && text(&branch["name"]) == default_branch
            })
            .map(|branch| text(&branch["commit"]["id"]))
            .unwrap_or_default();
        let group_name = if text(&project["namespace"]["kind"]) == "group" {
            text(&project["namespace"]["path"])
        } else {
            String::new()
        };
        [
            ("project_path", text(&project["path_with_namespace"])),
            ("project_title", text(&project["name"])),
            ("project_name", text(&project["path"])),
            ("project_id", text(&project["id"])),
            (
                "project_namespace",
                text(&project["namespace"]["full_path"]),
            ),
            ("group_name", group_name),
            ("gitlab_server", text(&self.path("external_host"))),
            ("default_branch", default_branch.clone()),
            ("commit_sha", commit_sha),
        ]
        .iter()
        .fold(url.to_owned(), |url, (name, value)| {
            url.replace(&format!("%{{{name}}}"), value)
        })
    }

    fn filter(&self, store: &Store, name: &str, argument: &str, value: Value) -> Value {
        match name {
            "count" => json!(value.as_array().map_or(0, Vec::len)),
            // An object as a list of `{key, value}` (a triggered pipeline's variables).
            "entries" => Value::Array(
                value
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(key, value)| json!({"key": key, "value": value}))
                    .collect(),
            ),
            "basic" => basic_user(&value),
            "public" => public(&value),
            "users" => Value::Array(
                value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|id| {
                        store
                            .all("users")
                            .iter()
                            .find(|u| text(&u["id"]) == text(id))
                    })
                    .map(basic_user)
                    .collect(),
            ),
            "slug" => json!(slug(&text(&value))),
            // The argument is a literal salt: `{merge_request.id|sha:merge}`.
            "sha" if argument.is_empty() => json!(fake_sha(&text(&value))),
            "sha" => json!(fake_sha(&format!("{argument}:{}", text(&value)))),
            "text" => json!(text(&value)),
            // A text without its last line break, to join texts as lines (a patch's files).
            "chomp" => json!(text(&value).trim_end_matches('\n')),
            // GitLab's time tracking: `1w 2d 3h 30m` (a week of 5 days, a day of 8 hours,
            // a month of 4 weeks) to seconds, and back. Null when it is not a duration, so
            // a behaviour can refuse it with `present: false`.
            "seconds" => parse_duration(&text(&value)).map_or(Value::Null, |s| json!(s)),
            "human_time" => json!(human_time(number(&value))),
            // A wiki page's slug: its title with spaces as hyphens, case and `/` kept.
            "wiki_slug" => json!(text(&value).trim().replace(' ', "-")),
            // An uploaded file's name as GitLab stores it: characters other than letters,
            // digits, `_`, `.`, `-` and `+` become `_`.
            "file_name" => json!(
                text(&value)
                    .chars()
                    .map(|c| match c {
                        c if c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '+') => c,
                        _ => '_',
                    })
                    .collect::<String>()
            ),
            // A file name without its extension: the alt text of an embedded upload.
            "stem" => {
                let name = text(&value);
                json!(
                    name.rsplit_once('.')
                        .map_or(name.as_str(), |(stem, _)| stem)
                )
            }
            // A file name's extension without its dot (`keystore`), empty when it has none:
            // a secure file's `file_extension`.
            "extension" => {
                let name = text(&value);
                json!(name.rsplit_once('.').map_or("", |(_, extension)| extension))
            }
            // Whether GitLab embeds an upload (`![...]`) rather than links it: an image,
            // video or audio file by its extension.
            "media" => json!(is_media(&text(&value))),
            // A time as GitLab answers it (`2025-06-02T09:00:00.000Z`), from any ISO 8601
            // time or a day; null when it is not one. `minutes_later:N` is N minutes after
            // it (GitLab's defaults: a broadcast message ends an hour after it starts).
            "timestamp" => timestamp(&value, 0),
            "minutes_later" => timestamp(&value, number(&self.argument(argument))),
            // The day of a timestamp (`2025-06-02`), for date-only fields.
            "date" => json!(text(&value).chars().take(10).collect::<String>()),
            // The year of a timestamp or day (a license's `[year]`).
            "year" => json!(text(&value).chars().take(4).collect::<String>()),
            // A commit's short id: the first 8 characters.
            "short" => json!(text(&value).chars().take(8).collect::<String>()),
            // A text's bytes in base64 and its size in bytes: a Git blob as GitLab answers
            // it (`content`, `size`).
            "base64" => json!(base64::Engine::encode(
                &base64::engine::general_purpose::STANDARD,
                text(&value)
            )),
            "bytes" => json!(text(&value).len()),
            "revert_diff" => json!(revert_diff(&text(&value))),
            "not" => json!(!truthy(&value)),
            // A badge URL with GitLab's placeholders filled in for the bound `project`
            // (unchanged without one, as for a group's own badges).
            "badge_url" => json!(self.badge_url(store, &text(&value))),
            // A comma-separated text as the list of its items, trimmed (GitLab's
            // `email=a@example.com,b@example.com`); a list stays as it is.
            "items" => match value {
                Value::Array(_) => value,
                Value::Null => json!([]),
                other => json!(
                    text(&other)
                        .split(',')
                        .map(str::trim)
                        .filter(|item| !item.is_empty())
                        .collect::<Vec<_>>()
                ),
            },
            // A list of `{key, value}` as an object, the reverse of `entries` (GitLab's
            // reasons keyed by invitee).
            "object" => Value::Object(
                value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|entry| (text(&entry["key"]), entry["value"].clone()))
                    .collect(),
            ),
            // A URL with the user and password of its userinfo scrubbed, as GitLab answers
            // a mirror's URL (`https://*****:*****@host/path`).
            "scrubbed_url" => json!(scrubbed_url(&text(&value))),
            "first" => value
                .as_array()
                .and_then(|items| items.first().cloned())
                .unwrap_or(Value::Null),
            "or" => {
                if value.is_null() || value.as_str() == Some("") {
                    self.argument(argument)
                } else {
                    value
                }
            }
            // `check_template` reports unknown filters.
            _ => Value::Null,
        }
    }

    fn operate(&self, store: &Store, name: &str, argument: &Value) -> Value {
        let values = || -> Vec<Value> {
            match self.eval(store, argument) {
                Value::Array(items) => items,
                single => vec![single],
            }
        };
        let numbers = || values().iter().map(number).collect::<Vec<i64>>();
        match name {
            "$add" => json!(numbers().iter().sum::<i64>()),
            "$sub" => {
                let n = numbers();
                json!(n.first().copied().unwrap_or(0) - n.iter().skip(1).sum::<i64>())
            }
            "$max" => json!(numbers().into_iter().max().unwrap_or(0)),
            "$min" => json!(numbers().into_iter().min().unwrap_or(0)),
            "$test" => json!(self.holds(store, argument)),
            "$if" => {
                let branch = if self.holds(store, &argument["test"]) {
                    &argument["then"]
                } else {
                    &argument["else"]
                };
                self.eval(store, branch)
            }
            // `{"$map": {"over": list, "to": template, "as": name}}`: each item bound as
            // `name` (default `item`), so a `$filter` inside `to` can still see it.
            "$map" => {
                let items = self.eval(store, &argument["over"]);
                let name = argument["as"].as_str().unwrap_or("item");
                let mut inner = self.clone();
                Value::Array(
                    items
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|item| {
                            inner.bind(name, item.clone());
                            inner.eval(store, &argument["to"])
                        })
                        .collect(),
                )
            }
            "$view" => {
                let name = argument.as_str().unwrap_or_default();
                super::behaviour::view(name)
                    .map(|view| self.eval(store, view))
                    .unwrap_or(Value::Null)
            }
            // `{"$filter": {"over": list, "where": condition}}`: the items (bound as `item`)
            // for which the condition holds.
            "$filter" => {
                let items = self.eval(store, &argument["over"]);
                let mut inner = self.clone();
                Value::Array(
                    items
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|item| {
                            inner.bind("item", (*item).clone());
                            inner.holds(store, &argument["where"])
                        })
                        .cloned()
                        .collect(),
                )
            }
            // `{"$group": {"over": list, "by": "field", "to": template}}`: one answer per
            // distinct value of the field, in order of first appearance, with `key` (the
            // value) and `items` (the items holding it) bound.
            "$group" => {
                let items = self.eval(store, &argument["over"]);
                let by = argument["by"].as_str().unwrap_or_default();
                let mut groups: Vec<(Value, Vec<Value>)> = Vec::new();
                for item in items.as_array().into_iter().flatten() {
                    let key = get_path(item, by).cloned().unwrap_or(Value::Null);
                    match groups.iter_mut().find(|(k, _)| same(k, &key)) {
                        Some((_, members)) => members.push(item.clone()),
                        None => groups.push((key, vec![item.clone()])),
                    }
                }
                let mut inner = self.clone();
                Value::Array(
                    groups
                        .into_iter()
                        .map(|(key, members)| {
                            inner.bind("key", key);
                            inner.bind("items", Value::Array(members));
                            inner.eval(store, &argument["to"])
                        })
                        .collect(),
                )
            }
            "$count" => json!(self.eval(store, argument).as_array().map_or(0, Vec::len)),
            "$concat" => Value::Array(
                values()
                    .into_iter()
                    .flat_map(|v| match v {
                        Value::Array(items) => items,
                        Value::Null => Vec::new(),
                        single => vec![single],
                    })
                    .collect(),
            ),
            "$merge" => {
                let mut out = Map::new();
                for value in values() {
                    if let Value::Object(map) = value {
                        out.extend(map);
                    }
                }
                Value::Object(out)
            }
            // Unknown operators, and update operators outside `set`, are reported by
            // `check_template`.
            _ => Value::Null,
        }
    }

    /// Sets a record's fields from a map of templates; `$inc`, `$push`, `$pull` and
    /// `$unset` work on the field's current value.
    pub fn apply_set(&self, store: &Store, record: &mut Value, set: &Map<String, Value>) {
        for (field, template) in set {
            let current = get_path(record, field).cloned().unwrap_or(Value::Null);
            let new = match template.as_object().and_then(operator) {
                Some(("$inc", by)) => json!(number(&current) + number(&self.eval(store, by))),
                Some(("$push", item)) => {
                    let item = self.eval(store, item);
                    let mut items = current.as_array().cloned().unwrap_or_default();
                    if !items.contains(&item) {
                        items.push(item);
                    }
                    Value::Array(items)
                }
                Some(("$pull", item)) => {
                    let item = self.eval(store, item);
                    let items = current.as_array().cloned().unwrap_or_default();
                    Value::Array(items.into_iter().filter(|i| *i != item).collect())
                }
                Some(("$unset", _)) => {
                    remove_path(record, field);
                    continue;
                }
                _ => self.eval(store, template),
            };
            super::store::set_path(record, field, new);
        }
    }

    /// Whether a condition holds.
    pub fn holds(&self, store: &Store, condition: &Value) -> bool {
        let Some(map) = condition.as_object() else {
            return truthy(&self.eval(store, condition));
        };
        map.iter().all(|(key, matcher)| match key.as_str() {
            "any" => matcher
                .as_array()
                .is_some_and(|all| all.iter().any(|c| self.holds(store, c))),
            "all" => matcher
                .as_array()
                .is_some_and(|all| all.iter().all(|c| self.holds(store, c))),
            "not" => !self.holds(store, matcher),
            expression => {
                let value = self.expression(store, expression);
                self.matches(store, &value, matcher)
            }
        })
    }

    /// Whether a value passes a matcher: a template compared for equality, or tests.
    pub fn matches(&self, store: &Store, value: &Value, matcher: &Value) -> bool {
        let Some(tests) = matcher.as_object().filter(|m| operator(m).is_none()) else {
            return same(value, &self.eval(store, matcher));
        };
        tests.iter().all(|(test, expected)| {
            let expected = self.eval(store, expected);
            match test.as_str() {
                "in" => expected
                    .as_array()
                    .is_some_and(|all| all.iter().any(|e| same(value, e))),
                "not_in" => !expected
                    .as_array()
                    .is_some_and(|all| all.iter().any(|e| same(value, e))),
                "not" => !same(value, &expected),
                "present" => truthy(&expected) != (value.is_null() || value == ""),
                // A list holds the item; a text holds the substring.
                "contains" => match value.as_str() {
                    Some(text_value) => text_value.contains(&text(&expected)),
                    None => value
                        .as_array()
                        .is_some_and(|all| all.iter().any(|e| same(e, &expected))),
                },
                "lacks" => !value
                    .as_array()
                    .is_some_and(|all| all.iter().any(|e| same(e, &expected))),
                "at_least" => bound_order(value, &expected).is_ge(),
                "at_most" => bound_order(value, &expected).is_le(),
                "prefix" => text(value).starts_with(&text(&expected)),
                // `check` reports unknown tests; an unknown test never passes.
                _ => false,
            }
        })
    }

    /// Whether a record passes a `where` map of `field: matcher` (fields of the record,
    /// matchers evaluated in this scope).
    pub fn selects(&self, store: &Store, record: &Value, filter: &Map<String, Value>) -> bool {
        filter.iter().all(|(field, matcher)| {
            let value = get_path(record, field).cloned().unwrap_or(Value::Null);
            self.matches(store, &value, matcher)
        })
    }
}

/// The tests a matcher object may hold.
const TESTS: &[&str] = &[
    "in", "not_in", "not", "present", "contains", "lacks", "at_least", "at_most", "prefix",
];
const FILTERS: &[&str] = &[
    "count",
    "entries",
    "basic",
    "public",
    "users",
    "slug",
    "sha",
    "text",
    "not",
    "first",
    "or",
    "seconds",
    "human_time",
    "chomp",
    "short",
    "base64",
    "bytes",
    "revert_diff",
    "wiki_slug",
    "date",
    "year",
    "file_name",
    "stem",
    "extension",
    "media",
    "items",
    "object",
    "badge_url",
    "timestamp",
    "minutes_later",
    "scrubbed_url",
];

/// `value` (an RFC 3339 time, or a `YYYY-MM-DD` day at midnight UTC) `minutes` later, as
/// GitLab formats times; null when it is neither.
fn timestamp(value: &Value, minutes: i64) -> Value {
    let given = text(value);
    let time = chrono::DateTime::parse_from_rfc3339(&given)
        .map(|t| t.with_timezone(&chrono::Utc))
        .ok()
        .or_else(|| {
            chrono::NaiveDate::parse_from_str(&given, "%Y-%m-%d")
                .ok()
                .and_then(|day| day.and_hms_opt(0, 0, 0))
                .map(|t| t.and_utc())
        });
    time.map_or(Value::Null, |t| {
        json!(
            (t + chrono::Duration::minutes(minutes))
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
        )
    })
}

/// The extensions GitLab embeds in Markdown (`Gitlab::FileTypeDetection`: safe and
/// dangerous images, videos and audio).
const MEDIA_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "bmp", "tiff", "ico", "webp", "svg", "mp4", "m4v", "mov", "webm",
    "ogv", "mp3", "oga", "ogg", "spx", "wav",
];

fn is_media(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| MEDIA_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()))
}
const OPERATORS: &[&str] = &[
    "$add", "$sub", "$max", "$min", "$test", "$if", "$map", "$view", "$merge", "$filter", "$group",
    "$count", "$concat",
];
/// Operators that work on a field's current value, in `set` only.
const UPDATES: &[&str] = &["$inc", "$push", "$pull", "$unset"];

/// Problems in a template: unknown filters, operators, tests or views.
pub fn check_template(template: &Value, at: &str, problems: &mut Vec<String>) {
    match template {
        Value::String(text) => {
            let mut rest = text.as_str();
            while let Some(start) = rest.find('{') {
                let Some(len) = rest[start..].find('}') else {
                    break;
                };
                check_expression(&rest[start + 1..start + len], at, problems);
                rest = &rest[start + len + 1..];
            }
        }
        Value::Array(items) => items.iter().for_each(|v| check_template(v, at, problems)),
        Value::Object(map) => match operator(map) {
            Some(("$test", condition)) => check_condition(condition, at, problems),
            Some(("$if", branches)) => {
                check_condition(&branches["test"], at, problems);
                check_template(&branches["then"], at, problems);
                check_template(&branches["else"], at, problems);
            }
            Some(("$map", map)) | Some(("$group", map)) => {
                check_template(&map["over"], at, problems);
                check_template(&map["to"], at, problems);
            }
            Some(("$filter", map)) => {
                check_template(&map["over"], at, problems);
                check_condition(&map["where"], at, problems);
            }
            Some(("$view", name)) => {
                if name.as_str().and_then(super::behaviour::view).is_none() {
                    problems.push(format!("{at}: unknown view {name}"));
                }
            }
            Some((name, argument)) => {
                if !OPERATORS.contains(&name) {
                    problems.push(format!("{at}: unknown operator `{name}`"));
                }
                check_template(argument, at, problems);
            }
            None => map.values().for_each(|v| check_template(v, at, problems)),
        },
        _ => {}
    }
}

/// Problems in a `set` map: templates, or an update operator on the field.
pub fn check_set(set: &Map<String, Value>, at: &str, problems: &mut Vec<String>) {
    for (field, template) in set {
        match template.as_object().and_then(operator) {
            Some((name, argument)) if UPDATES.contains(&name) => {
                check_template(argument, at, problems)
            }
            _ => check_template(template, &format!("{at}: field `{field}`"), problems),
        }
    }
}

fn check_expression(expression: &str, at: &str, problems: &mut Vec<String>) {
    for filter in expression.split('|').skip(1) {
        let name = filter.split(':').next().unwrap_or_default().trim();
        if !FILTERS.contains(&name) {
            problems.push(format!(
                "{at}: unknown filter `{name}` in `{{{expression}}}`"
            ));
        }
    }
}

/// Problems in a condition.
pub fn check_condition(condition: &Value, at: &str, problems: &mut Vec<String>) {
    let Some(map) = condition.as_object() else {
        return check_template(condition, at, problems);
    };
    for (key, matcher) in map {
        match key.as_str() {
            "any" | "all" => match matcher.as_array() {
                Some(all) => all.iter().for_each(|c| check_condition(c, at, problems)),
                None => problems.push(format!("{at}: `{key}` takes a list of conditions")),
            },
            "not" => check_condition(matcher, at, problems),
            expression => {
                check_expression(expression, at, problems);
                check_matcher(matcher, at, problems);
            }
        }
    }
}

/// Problems in a matcher: a template, or an object of known tests.
pub fn check_matcher(matcher: &Value, at: &str, problems: &mut Vec<String>) {
    match matcher.as_object() {
        Some(tests) if operator(tests).is_none() => {
            for (test, expected) in tests {
                if !TESTS.contains(&test.as_str()) {
                    problems.push(format!("{at}: unknown test `{test}`"));
                }
                check_template(expected, at, problems);
            }
        }
        _ => check_template(matcher, at, problems),
    }
}

fn operator(map: &Map<String, Value>) -> Option<(&str, &Value)> {
    match map.iter().next() {
        Some((key, value)) if map.len() == 1 && key.starts_with('$') => Some((key, value)),
        _ => None,
    }
}

fn remove_path(record: &mut Value, path: &str) {
    let (parent, last) = match path.rsplit_once('.') {
        Some((parent, last)) => (
            parent
                .split('.')
                .try_fold(&mut *record, |v, k| v.get_mut(k)),
            last,
        ),
        None => (Some(record), path),
    };
    if let Some(Value::Object(map)) = parent {
        map.remove(last);
    }
}

pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty() && s != "false",
        Value::Array(items) => !items.is_empty(),
        Value::Object(_) => true,
    }
}

/// How `at_least` and `at_most` compare: as numbers, or as text when the bound is a text
/// that is not a number, which orders ISO dates and timestamps by time
/// (`last_activity_on`); then a missing value (never active) comes before every bound.
fn bound_order(value: &Value, bound: &Value) -> std::cmp::Ordering {
    match bound.as_str() {
        Some(bound) if bound.parse::<i64>().is_err() => match value {
            Value::Null => std::cmp::Ordering::Less,
            value => text(value).as_str().cmp(bound),
        },
        _ => number(value).cmp(&number(bound)),
    }
}

fn number(value: &Value) -> i64 {
    value
        .as_i64()
        .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or(0)
}

/// Equality as GitLab's parameters compare: `42` and `"42"` are the same; `true` and
/// `"true"` too; null is only null.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        _ => text(a) == text(b),
    }
}

/// Units of GitLab's time tracking, in seconds, longest first: a month of 4 weeks, a week
/// of 5 days, a day of 8 hours.
const TIME_UNITS: &[(&str, i64)] = &[
    ("mo", 4 * 5 * 8 * 3600),
    ("w", 5 * 8 * 3600),
    ("d", 8 * 3600),
    ("h", 3600),
    ("m", 60),
    ("s", 1),
];

/// `1w 2d 3h 30m` (spaces optional) in seconds; `None` when it is not a duration. A number
/// without a unit counts hours, as GitLab reads `3`.
pub fn parse_duration(text: &str) -> Option<i64> {
    let text = text.trim();
    // Time spent may be taken off (`-30m`); an estimate's behaviour refuses a negative one.
    if let Some(positive) = text.strip_prefix('-') {
        if positive.starts_with('-') {
            return None;
        }
        return parse_duration(positive).map(|seconds| -seconds);
    }
    let mut rest = text;
    let mut total = 0;
    let mut seen = false;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let amount: i64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        if rest.is_empty() {
            total += amount * 3600;
            seen = true;
            break;
        }
        let (unit, seconds) = TIME_UNITS.iter().find(|(unit, _)| rest.starts_with(unit))?;
        total += amount * seconds;
        rest = rest[unit.len()..].trim_start();
        seen = true;
    }
    seen.then_some(total)
}

/// Seconds as GitLab writes a human duration: `1w 2d 3h 30m`; `0m` for nothing.
pub fn human_time(seconds: i64) -> String {
    let mut left = seconds.max(0);
    let mut parts = Vec::new();
    for (unit, size) in TIME_UNITS {
        if left >= *size {
            parts.push(format!("{}{unit}", left / size));
            left %= size;
        }
    }
    if parts.is_empty() {
        "0m".to_owned()
    } else {
        parts.join(" ")
    }
}

/// A URL path made from a name, as GitLab derives a project path.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// A unified diff undone: added lines become removed ones and back, each hunk's old and
/// new ranges swap (what a revert commit's diff shows).
pub fn revert_diff(diff: &str) -> String {
    let mut out = String::new();
    for line in diff.lines() {
        let undone = if let Some(header) = line.strip_prefix("@@ -") {
            match header
                .split_once(" +")
                .and_then(|(old, rest)| rest.split_once(" @@").map(|(new, tail)| (old, new, tail)))
            {
                Some((old, new, tail)) => format!("@@ -{new} +{old} @@{tail}"),
                None => line.to_owned(),
            }
        } else if let Some(added) = line.strip_prefix('+') {
            format!("-{added}")
        } else if let Some(removed) = line.strip_prefix('-') {
            format!("+{removed}")
        } else {
            line.to_owned()
        };
        out.push_str(&undone);
        out.push('\n');
    }
    out
}

/// A stable 40-hex id derived from a seed text (tree entries, merge commits).
pub fn fake_sha(seed: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut out = String::new();
    for round in 0..3_u64 {
        for byte in seed.bytes().chain(round.to_le_bytes()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        out.push_str(&format!("{hash:016x}"));
    }
    out[..40].to_owned()
}

/// `scheme://user:password@host/...` with `*****` for the user and the password.
fn scrubbed_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return url.to_owned();
    };
    let userinfo = if rest[..at].contains(':') {
        "*****:*****"
    } else {
        "*****"
    };
    format!("{scheme}://{userinfo}{}", &rest[at..])
}

#[cfg(test)]
mod tests {
    use super::{human_time, parse_duration, scrubbed_url};

    #[test]
    fn a_mirror_url_loses_its_credentials_as_gitlab_scrubs_them() {
        assert_eq!(
            scrubbed_url("https://bot:glpat-x1@github.com/acme/api.git"),
            "https://*****:*****@github.com/acme/api.git"
        );
        assert_eq!(
            scrubbed_url("ssh://git@backup.acme.example/api.git"),
            "ssh://*****@backup.acme.example/api.git"
        );
        assert_eq!(
            scrubbed_url("https://github.com/acme/a@b.git"),
            "https://github.com/acme/a@b.git"
        );
    }

    #[test]
    fn durations_read_and_write_as_gitlab_does() {
        assert_eq!(parse_duration("3h30m"), Some(3 * 3600 + 30 * 60));
        assert_eq!(parse_duration("1w 2d"), Some((5 + 2) * 8 * 3600));
        assert_eq!(parse_duration("1mo"), Some(4 * 5 * 8 * 3600));
        assert_eq!(parse_duration("3"), Some(3 * 3600));
        assert_eq!(parse_duration("soon"), None);
        assert_eq!(parse_duration("-1h"), Some(-3600));
        assert_eq!(parse_duration("--1h"), None);
        assert_eq!(parse_duration(""), None);
        assert_eq!(human_time(12 * 3600), "1d 4h");
        assert_eq!(human_time((5 + 2) * 8 * 3600), "1w 2d");
    }
}

//! The sandbox's in-memory data: collections of JSON records and the generic operations
//! on them (find, list with filters and pages, create, update, delete).
//!
//! Collections and their behaviour (lookup keys, parent scoping, sort order, defaults,
//! web URL templates) come from `seed/collections.json`; records from `seed/records/`.
//! Keys that start with `_` are sandbox-only and never leave the store. Time is a fixed
//! clock that moves one minute per change, so every run produces the same timestamps.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// How a collection behaves, from `collections.json`.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// The name behaviour data calls a record of this collection by (`merge_request`);
    /// by default the singular of the last path segment.
    #[serde(default, rename = "as")]
    pub name: Option<String>,
    /// Collections whose records point at a record of this one by `commit.id` (branches,
    /// tags): their names also find it, as a SHA prefix of 7 or more characters does.
    #[serde(default)]
    pub refs: Vec<String>,
    /// The id after which new ids start, when the collection is empty.
    #[serde(default)]
    pub id_from: i64,
    /// Records get `created_at` and `updated_at` on create (default true).
    #[serde(default)]
    pub timestamps: Option<bool>,
    /// Another collection whose records this one shows (with its own scoping).
    #[serde(default)]
    pub alias_of: Option<String>,
    /// Fields a path parameter may name a record by; the first is the primary key.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Field paths matched, in order, against the primary keys of the records the path
    /// passes through (`/projects/{id}/merge_requests/{iid}/notes` → project, then MR).
    #[serde(default)]
    pub parents: Vec<String>,
    #[serde(default)]
    pub not_found: String,
    /// Default sort field; a leading `-` sorts descending.
    #[serde(default)]
    pub order: String,
    /// Records get a per-parent `iid` on create.
    #[serde(default)]
    pub iid: bool,
    /// Records get the current user as `author` on create.
    #[serde(default)]
    pub author: bool,
    #[serde(default)]
    pub search: Vec<String>,
    #[serde(default)]
    pub required: Vec<String>,
    /// `{field}`, `{external_url}` and `{project.web_url}` are filled in.
    #[serde(default)]
    pub web_url: Option<String>,
    #[serde(default)]
    pub defaults: Map<String, Value>,
    /// Query parameters GitLab assumes when the client sends none.
    #[serde(default)]
    pub query_defaults: Map<String, Value>,
}

/// A request-level failure, answered as GitLab would.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub status: u16,
    pub body: Value,
}

impl Failure {
    pub fn new(status: u16, message: impl Into<Value>) -> Self {
        Self {
            status,
            body: json!({ "message": message.into() }),
        }
    }

    /// GitLab's shape for a missing required parameter: `{"error": "title is missing"}`.
    pub fn missing(field: &str) -> Self {
        Self {
            status: 400,
            body: json!({ "error": format!("{field} is missing") }),
        }
    }
}

pub type Outcome<T> = Result<T, Failure>;

/// One record the request path passed through, with the collection it came from.
#[derive(Debug, Clone)]
pub struct Ancestor {
    pub collection: String,
    pub record: Value,
}

impl Ancestor {
    pub fn primary(&self, store: &Store) -> Value {
        let key = store
            .spec(&self.collection)
            .keys
            .first()
            .cloned()
            .unwrap_or_else(|| "id".into());
        get_path(&self.record, &key).cloned().unwrap_or(Value::Null)
    }
}

pub struct Store {
    pub external_url: String,
    /// The sandbox plays GitLab's Community Edition (Free tier only).
    pub community_edition: bool,
    now: DateTime<Utc>,
    specs: BTreeMap<String, Spec>,
    records: BTreeMap<String, Vec<Value>>,
}

/// A page of a list and the numbers for the pagination headers.
#[derive(Debug)]
pub struct Page {
    pub items: Vec<Value>,
    pub page: usize,
    pub per_page: usize,
    pub total: usize,
}

impl Page {
    /// The page `page` (default 1) of `per_page` items (default 20, at most 100), as
    /// GitLab pages, with sandbox-only fields removed.
    pub fn of(items: Vec<Value>, query: &Query) -> Self {
        let number = |name: &str, default: usize| {
            query
                .get(name)
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        let per_page = number("per_page", 20).clamp(1, 100);
        let page = number("page", 1).max(1);
        let total = items.len();
        let items = items
            .into_iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .map(|r| public(&r))
            .collect();
        Self {
            items,
            page,
            per_page,
            total,
        }
    }
}

impl Store {
    pub fn new(external_url: String, now: DateTime<Utc>, specs: BTreeMap<String, Spec>) -> Self {
        Self {
            external_url,
            community_edition: false,
            now,
            specs,
            records: BTreeMap::new(),
        }
    }

    /// The store without `collection`, as before its records were added (tests of what a
    /// new action meets first).
    #[cfg(test)]
    pub fn forget(&mut self, collection: &str) {
        self.specs.remove(collection);
        self.records.remove(collection);
    }

    /// The name behaviour data gives a record of `collection`.
    pub fn record_name(&self, collection: &str) -> String {
        if let Some(name) = self.specs.get(collection).and_then(|s| s.name.clone()) {
            return name;
        }
        let last = collection.rsplit('/').next().unwrap_or(collection);
        if let Some(base) = last.strip_suffix("ies") {
            format!("{base}y")
        } else if ["ches", "shes", "sses", "xes", "uses"]
            .iter()
            .any(|s| last.ends_with(s))
        {
            last[..last.len() - 2].to_owned()
        } else {
            last.strip_suffix('s').unwrap_or(last).to_owned()
        }
    }

    /// The sandbox's current time, as GitLab formats it.
    pub fn now(&self) -> String {
        self.now.to_rfc3339_opts(SecondsFormat::Millis, true)
    }

    /// Moves the clock one minute and returns the new time, for a change.
    pub fn tick(&mut self) -> String {
        self.now += Duration::minutes(1);
        self.now()
    }

    /// The id a new record of `collection` gets: one more than the largest, or than the
    /// collection's `id_from`.
    pub fn next_id(&self, collection: &str) -> i64 {
        self.all(collection)
            .iter()
            .filter_map(|r| r.get("id").and_then(Value::as_i64))
            .max()
            .unwrap_or(self.spec(collection).id_from)
            + 1
    }

    /// Adds a collection a records file declares itself.
    pub fn add_collection(&mut self, collection: String, spec: Spec) {
        self.specs.insert(collection, spec);
    }

    pub fn has(&self, collection: &str) -> bool {
        self.specs.contains_key(collection)
    }

    pub fn spec(&self, collection: &str) -> Spec {
        self.specs.get(collection).cloned().unwrap_or_default()
    }

    /// The collection that actually holds an alias's records.
    fn canonical<'a>(&'a self, collection: &'a str) -> &'a str {
        self.specs
            .get(collection)
            .and_then(|s| s.alias_of.as_deref())
            .unwrap_or(collection)
    }

    pub fn insert_seed(&mut self, collection: &str, records: Vec<Value>) {
        self.records
            .entry(collection.to_owned())
            .or_default()
            .extend(records);
    }

    pub fn all(&self, collection: &str) -> &[Value] {
        self.records
            .get(self.canonical(collection))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    pub fn all_mut(&mut self, collection: &str) -> &mut Vec<Value> {
        let canonical = self.canonical(collection).to_owned();
        self.records.entry(canonical).or_default()
    }

    /// Records of `collection` under these ancestors.
    pub fn scoped(&self, collection: &str, ancestors: &[Ancestor]) -> Vec<&Value> {
        let parents = self.spec(collection).parents;
        let keys: Vec<Value> = ancestors.iter().map(|a| a.primary(self)).collect();
        self.all(collection)
            .iter()
            .filter(|record| {
                parents
                    .iter()
                    .zip(&keys)
                    .all(|(field, key)| get_path(record, field).is_some_and(|v| same(v, key)))
            })
            .collect()
    }

    /// The record a path parameter names, among those under `ancestors`. In a collection
    /// with `refs` (commits), a SHA prefix or a branch or tag name also names a record.
    pub fn find(&self, collection: &str, ancestors: &[Ancestor], value: &str) -> Option<Value> {
        let spec = self.spec(collection);
        let records = self.scoped(collection, ancestors);
        let by_key = records.iter().find(|record| {
            spec.keys
                .iter()
                .any(|key| get_path(record, key).is_some_and(|v| text(v) == value))
        });
        if let Some(record) = by_key {
            return Some((*record).clone());
        }
        if spec.refs.is_empty() {
            return None;
        }
        let primary = spec.keys.first().map(String::as_str).unwrap_or("id");
        if value.len() >= 7
            && let Some(record) = records
                .iter()
                .find(|r| get_path(r, primary).is_some_and(|id| text(id).starts_with(value)))
        {
            return Some((*record).clone());
        }
        let head = spec.refs.iter().find_map(|holder| {
            let named = self.find(holder, ancestors, value)?;
            get_path(&named, "commit.id").map(text)
        })?;
        records
            .into_iter()
            .find(|r| get_path(r, primary).is_some_and(|id| text(id) == head))
            .cloned()
    }

    /// Filters (by the request's query), sorts and pages some records of a collection.
    pub fn page(
        &self,
        collection: &str,
        records: Vec<&Value>,
        query: &Query,
        user: &Value,
    ) -> Page {
        let spec = self.spec(collection);
        let mut query = query.clone();
        for (key, value) in &spec.query_defaults {
            if query.get(key).is_none() {
                query.pairs.push((key.clone(), text(value)));
            }
        }
        let mut items: Vec<Value> = records
            .into_iter()
            .filter(|record| self.visible_record(collection, record, user))
            .filter(|record| {
                query
                    .pairs
                    .iter()
                    .all(|(key, value)| filter(record, key, value, &query, &spec, user))
            })
            .cloned()
            .collect();
        let order = query.get("order_by").map(str::to_owned);
        let descending = match (query.get("sort"), &order) {
            (Some(sort), _) => sort == "desc",
            (None, Some(_)) => true,
            (None, None) => spec.order.starts_with('-'),
        };
        let field = order.unwrap_or_else(|| spec.order.trim_start_matches('-').to_owned());
        if !field.is_empty() {
            items.sort_by(|a, b| compare(get_path(a, &field), get_path(b, &field)));
            if descending {
                items.reverse();
            }
        }
        Page::of(items, &query)
    }

    /// Projects are visible when public or internal, to their members, or to an
    /// administrator; records inside a project follow their project (the path already
    /// checked it, except for global lists).
    pub fn visible_project(&self, project: &Value, user: &Value) -> bool {
        let visibility = project
            .get("visibility")
            .and_then(Value::as_str)
            .unwrap_or("private");
        visibility != "private"
            || is_member(project, user)
            || user.get("is_admin").and_then(Value::as_bool) == Some(true)
    }

    fn visible_record(&self, collection: &str, record: &Value, user: &Value) -> bool {
        if collection == "projects" {
            return self.visible_project(record, user);
        }
        if self.spec(collection).parents.is_empty()
            && let Some(project_id) = record.get("project_id").filter(|id| !id.is_null())
        {
            return self
                .all("projects")
                .iter()
                .find(|p| p.get("id").is_some_and(|id| same(id, project_id)))
                .is_some_and(|p| self.visible_project(p, user));
        }
        true
    }

    /// A new record of `collection` from a request body, under `ancestors`: GitLab's
    /// defaults, the parent links, an id (and a per-parent iid), timestamps, the author,
    /// then the body. It is not stored until `insert`; required fields are the caller's
    /// to check (`missing_field`), before anything else.
    pub fn build(
        &mut self,
        collection: &str,
        ancestors: &[Ancestor],
        body: &Map<String, Value>,
        user: &Value,
        now: &str,
    ) -> Value {
        let spec = self.spec(collection);
        let mut record = Value::Object(spec.defaults.clone());
        self.stamp(collection, ancestors, &mut record, now);
        if spec.author {
            record["author"] = basic_user(user);
        }
        self.apply(&mut record, body, user);
        record
    }

    /// The first of the collection's required fields the body lacks.
    pub fn missing_field(&self, collection: &str, body: &Map<String, Value>) -> Option<String> {
        self.spec(collection).required.into_iter().find(|field| {
            body.get(field)
                .is_none_or(|v| v.is_null() || v.as_str().is_some_and(str::is_empty))
        })
    }

    /// Gives a new record what the store owns: parent links, id, iid and timestamps, each
    /// unless the record already has it.
    pub fn stamp(&self, collection: &str, ancestors: &[Ancestor], record: &mut Value, now: &str) {
        let spec = self.spec(collection);
        let keys: Vec<Value> = ancestors.iter().map(|a| a.primary(self)).collect();
        for (field, key) in spec.parents.iter().zip(&keys) {
            if get_path(record, field).is_none() {
                set_path(record, field, key.clone());
            }
        }
        let primary = spec.keys.first().map(String::as_str).unwrap_or("id");
        if primary == "id" && record.get("id").is_none_or(Value::is_null) {
            record["id"] = json!(self.next_id(collection));
        }
        if spec.iid && record.get("iid").is_none_or(Value::is_null) {
            let iid = self
                .scoped(collection, ancestors)
                .iter()
                .filter_map(|r| r.get("iid").and_then(Value::as_i64))
                .max()
                .unwrap_or(0)
                + 1;
            record["iid"] = json!(iid);
        }
        if spec.timestamps.unwrap_or(true) {
            for field in ["created_at", "updated_at"] {
                if record.get(field).is_none_or(Value::is_null) {
                    record[field] = json!(now);
                }
            }
        }
    }

    /// Stores a new record, with its web URL filled in from the collection's template.
    pub fn insert(&mut self, collection: &str, ancestors: &[Ancestor], mut record: Value) -> Value {
        if let Some(template) = self.spec(collection).web_url {
            record["web_url"] = json!(self.fill(&template, &record, ancestors));
        }
        self.all_mut(collection).push(record.clone());
        record
    }

    /// Applies a request body to a record, the way GitLab reads its parameters.
    pub fn apply(&mut self, record: &mut Value, body: &Map<String, Value>, user: &Value) {
        for (key, value) in body {
            match key.as_str() {
                "labels" => record["labels"] = json!(split_labels(value)),
                "add_labels" => {
                    let mut labels = labels_of(record);
                    for label in split_labels(value) {
                        if !labels.contains(&label) {
                            labels.push(label);
                        }
                    }
                    record["labels"] = json!(labels);
                }
                "remove_labels" => {
                    let remove = split_labels(value);
                    let labels: Vec<String> = labels_of(record)
                        .into_iter()
                        .filter(|l| !remove.contains(l))
                        .collect();
                    record["labels"] = json!(labels);
                }
                "assignee_ids" | "reviewer_ids" => {
                    let users: Vec<Value> = ids(value)
                        .into_iter()
                        .filter_map(|id| {
                            self.all("users")
                                .iter()
                                .find(|u| u["id"] == json!(id))
                                .map(basic_user)
                        })
                        .collect();
                    if key == "assignee_ids" {
                        record["assignee"] = users.first().cloned().unwrap_or(Value::Null);
                        record["assignees"] = json!(users);
                    } else {
                        record["reviewers"] = json!(users);
                    }
                }
                "state_event" => match value.as_str() {
                    Some("close") => {
                        record["state"] = json!("closed");
                        record["closed_at"] = json!(self.now());
                        record["closed_by"] = basic_user(user);
                    }
                    Some("reopen") => {
                        record["state"] = json!("opened");
                        record["closed_at"] = Value::Null;
                        record["closed_by"] = Value::Null;
                    }
                    _ => {}
                },
                "title" => {
                    let title = value.as_str().unwrap_or_default();
                    if record.get("draft").is_some() {
                        let draft = ["Draft:", "[Draft]", "(Draft)"]
                            .iter()
                            .any(|p| title.starts_with(p));
                        record["draft"] = json!(draft);
                        record["work_in_progress"] = json!(draft);
                    }
                    record["title"] = value.clone();
                }
                _ => record[key.as_str()] = value.clone(),
            }
        }
    }

    /// Updates the record a path names, in place, and returns it.
    pub fn update(
        &mut self,
        collection: &str,
        current: &Value,
        body: &Map<String, Value>,
        user: &Value,
        now: &str,
    ) -> Value {
        let mut record = current.clone();
        self.apply(&mut record, body, user);
        record["updated_at"] = json!(now);
        self.replace(collection, current, record.clone());
        record
    }

    /// Replaces a record (found by identity) with a new version.
    pub fn replace(&mut self, collection: &str, current: &Value, record: Value) {
        if let Some(slot) = self.all_mut(collection).iter_mut().find(|r| *r == current) {
            *slot = record;
        }
    }

    pub fn remove(&mut self, collection: &str, current: &Value) {
        self.all_mut(collection).retain(|r| r != current);
    }

    /// Fills `{field}`, `{external_url}` and `{project.<field>}` in a URL template.
    pub fn fill(&self, template: &str, record: &Value, ancestors: &[Ancestor]) -> String {
        let project = ancestors
            .iter()
            .find(|a| a.collection == "projects")
            .map(|a| &a.record);
        crate::text::fill_placeholders(template, |name| {
            let value = match name {
                "external_url" => Some(json!(self.external_url)),
                _ => match name.strip_prefix("project.") {
                    Some(field) => project.and_then(|p| get_path(p, field)).cloned(),
                    None => get_path(record, name).cloned(),
                },
            };
            value.map(|v| text(&v))
        })
    }

    pub fn user_by_token(&self, token: &str) -> Option<Value> {
        self.all("users")
            .iter()
            .find(|u| {
                u.get("_tokens")
                    .and_then(Value::as_array)
                    .is_some_and(|t| t.iter().any(|v| v == token))
            })
            .cloned()
    }
}

/// A request's query parameters, in order, with repeated `name[]` keys kept.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub pairs: Vec<(String, String)>,
}

impl Query {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name[]` (or a comma-separated `name`).
    pub fn all(&self, name: &str) -> Vec<String> {
        let list = format!("{name}[]");
        let mut values: Vec<String> = self
            .pairs
            .iter()
            .filter(|(k, _)| *k == list)
            .map(|(_, v)| v.clone())
            .collect();
        if values.is_empty()
            && let Some(value) = self.get(name)
        {
            values = value
                .split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect();
        }
        values
    }
}

/// Whether a record passes one query parameter. Unknown parameters pass, as in GitLab.
fn filter(
    record: &Value,
    key: &str,
    value: &str,
    query: &Query,
    spec: &Spec,
    user: &Value,
) -> bool {
    let username = user
        .get("username")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let has_user = |field: &str, name: &str| match record.get(field) {
        Some(Value::Array(users)) => users
            .iter()
            .any(|u| u.get("username").and_then(Value::as_str) == Some(name)),
        Some(user) => user.get("username").and_then(Value::as_str) == Some(name),
        None => false,
    };
    match key {
        "page" | "per_page" | "order_by" | "sort" | "with_stats" | "statistics" | "simple"
        | "include_retried" => true,
        // Members lists call their text filter `query`.
        "search" | "query" => {
            let needle = value.to_lowercase();
            let fields: Vec<String> = if spec.search.is_empty() {
                vec!["title".into(), "name".into()]
            } else {
                spec.search.clone()
            };
            let needle = needle.trim_start_matches('^').trim_end_matches('$');
            fields.iter().any(|f| {
                record.get(f).and_then(Value::as_str).is_some_and(|t| {
                    let t = t.to_lowercase();
                    if value.starts_with('^') {
                        t.starts_with(needle)
                    } else if value.ends_with('$') {
                        t.ends_with(needle)
                    } else {
                        t.contains(needle)
                    }
                })
            })
        }
        "labels" => {
            let have = labels_of(record);
            value
                .split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .all(|wanted| have.iter().any(|l| l.eq_ignore_ascii_case(wanted)))
        }
        // `all` is GitLab's word for no filter (`state=all`, `type=all` for a commit's refs).
        "state" | "type" if value == "all" => true,
        // Pipeline schedules' scopes are their `active` flag.
        "scope"
            if matches!(value, "active" | "inactive")
                && record.get("active").is_some_and(Value::is_boolean) =>
        {
            record.get("active") == Some(&Value::Bool(value == "active"))
        }
        "scope" | "scope[]" => match value {
            "created_by_me" | "created-by-me" => has_user("author", username),
            "assigned_to_me" | "assigned-to-me" => {
                has_user("assignees", username) || has_user("assignee", username)
            }
            "all" => true,
            // Job scopes are statuses: `scope[]=failed&scope[]=success`.
            _ => query
                .all("scope")
                .iter()
                .any(|s| record.get("status").and_then(Value::as_str) == Some(s.as_str())),
        },
        "iids[]" | "iids" => query
            .all("iids")
            .iter()
            .any(|iid| record.get("iid").is_some_and(|v| text(v) == *iid)),
        "author_username" => has_user("author", value),
        "assignee_username" => has_user("assignees", value) || has_user("assignee", value),
        "reviewer_username" => has_user("reviewers", value),
        "username" if record.get("username").is_none() => has_user("user", value),
        "membership" | "owned" if value == "true" => {
            let id = user.get("id").cloned().unwrap_or(Value::Null);
            if key == "owned" {
                record.get("_owner") == Some(&id)
            } else {
                is_member(record, user)
            }
        }
        "membership" | "owned" | "starred" => true,
        "topic" => record
            .get("topics")
            .and_then(Value::as_array)
            .is_some_and(|t| t.iter().any(|v| v == value)),
        "milestone" => {
            record
                .get("milestone")
                .and_then(|m| m.get("title"))
                .and_then(Value::as_str)
                == Some(value)
        }
        "active" if record.get("state").is_some() => {
            value != "true" || record.get("state").and_then(Value::as_str) == Some("active")
        }
        // Users: `blocked`, `admins` and `humans` are flags over the record's own fields;
        // `admins` only for an administrator, as GitLab ignores it for anyone else.
        "blocked" if record.get("state").is_some() => {
            value != "true" || record.get("state").and_then(Value::as_str) == Some("blocked")
        }
        "admins" if record.get("is_admin").is_some() => {
            value != "true"
                || user.get("is_admin") != Some(&Value::Bool(true))
                || record.get("is_admin") == Some(&Value::Bool(true))
        }
        "humans" if record.get("bot").is_some() => {
            value != "true" || record.get("bot") != Some(&Value::Bool(true))
        }
        // Creation bounds, both inclusive as GitLab's `created_after` / `created_before`
        // scopes are, on ISO 8601 times in UTC (which sort as text; a bare date is its
        // midnight).
        "created_after" if record.get("created_at").is_some() => record
            .get("created_at")
            .and_then(Value::as_str)
            .is_some_and(|at| at >= value),
        "created_before" if record.get("created_at").is_some() => record
            .get("created_at")
            .and_then(Value::as_str)
            .is_some_and(|at| at <= value),
        "ref_name" => record
            .get("_branches")
            .and_then(Value::as_array)
            .is_some_and(|b| b.iter().any(|v| v == value)),
        "path" if record.get("_paths").is_some() || record.get("_diff").is_some() => {
            touches(record, value)
        }
        "author" => ["author_name", "author_email"].iter().any(|f| {
            record
                .get(*f)
                .and_then(Value::as_str)
                .is_some_and(|t| t.to_lowercase().contains(&value.to_lowercase()))
        }),
        "since" => record
            .get("committed_date")
            .and_then(Value::as_str)
            .is_some_and(|d| d >= value),
        "until" => record
            .get("committed_date")
            .and_then(Value::as_str)
            .is_some_and(|d| d <= value),
        // Contribution events: `action` names the kind GitLab writes as `action_name`,
        // `target_type` is snake case (`merge_request` for `MergeRequest`), and `after` and
        // `before` are dates, both exclusive.
        "action" if record.get("action_name").is_some() => {
            let name = record.get("action_name").map(text).unwrap_or_default();
            let kind = match name.as_str() {
                "opened" | "created" => "created",
                "accepted" | "merged" => "merged",
                "commented on" => "commented",
                "deleted" | "destroyed" => "destroyed",
                other => other.split(' ').next().unwrap_or(other),
            };
            kind == value
        }
        "target_type" if record.get("action_name").is_some() => record
            .get("target_type")
            .map(text)
            .is_some_and(|t| t.to_lowercase().replace('_', "") == value.replace('_', "")),
        "after" if record.get("action_name").is_some() => record
            .get("created_at")
            .map(text)
            .is_some_and(|d| d.get(..10).is_some_and(|day| day > value)),
        "before" if record.get("action_name").is_some() => record
            .get("created_at")
            .map(text)
            .is_some_and(|d| d.get(..10).is_some_and(|day| day < value)),
        // Environments filter their `state` by `states`.
        "states" => record.get("state").and_then(Value::as_str) == Some(value),
        _ => match record.get(key) {
            // An embedded entity is named by its name (`environment=production`).
            Some(Value::Object(entity)) => entity.get("name").is_some_and(|n| text(n) == value),
            Some(field) => text(field) == value,
            None => true,
        },
    }
}

/// Whether a commit's diff touches a file or directory.
fn touches(record: &Value, path: &str) -> bool {
    let prefix = format!("{}/", path.trim_end_matches('/'));
    record
        .get("_diff")
        .and_then(Value::as_array)
        .is_some_and(|diffs| {
            diffs.iter().any(|d| {
                ["new_path", "old_path"].iter().any(|f| {
                    d.get(*f)
                        .and_then(Value::as_str)
                        .is_some_and(|p| p == path || p.starts_with(&prefix))
                })
            })
        })
}

fn is_member(project: &Value, user: &Value) -> bool {
    let id = user.get("id").cloned().unwrap_or(Value::Null);
    project
        .get("_members")
        .and_then(Value::as_array)
        .is_some_and(|m| m.contains(&id))
}

/// GitLab's own fields whose names start with `_`, which are data, not the sandbox's
/// bookkeeping: `_links` (a release's or a package's URLs; a group's releases name their
/// project only there).
pub const GITLAB_UNDERSCORE_FIELDS: &[&str] = &["_links"];

/// A record without its sandbox-only (`_`) fields; GitLab's own `_links` stays.
pub fn public(record: &Value) -> Value {
    match record {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .filter(|(k, _)| {
                    !k.starts_with('_') || GITLAB_UNDERSCORE_FIELDS.contains(&k.as_str())
                })
                .map(|(k, v)| (k.clone(), public(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(public).collect()),
        other => other.clone(),
    }
}

/// GitLab's UserBasic: the way other records embed a user.
pub fn basic_user(user: &Value) -> Value {
    let mut out = Map::new();
    for field in [
        "id",
        "username",
        "name",
        "state",
        "locked",
        "avatar_url",
        "web_url",
    ] {
        if let Some(value) = user.get(field) {
            out.insert(field.into(), value.clone());
        }
    }
    Value::Object(out)
}

/// `a.b` → `value["a"]["b"]`.
pub fn get_path<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(value, |current, key| current.get(key))
        .filter(|v| !v.is_null())
}

pub fn set_path(value: &mut Value, path: &str, new: Value) {
    let mut current = value;
    let parts: Vec<&str> = path.split('.').collect();
    for part in &parts[..parts.len() - 1] {
        if !current.get(*part).is_some_and(Value::is_object) {
            current[*part] = json!({});
        }
        current = &mut current[*part];
    }
    current[parts[parts.len() - 1]] = new;
}

/// A JSON scalar as query text: strings bare, everything else as JSON.
pub fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn same(a: &Value, b: &Value) -> bool {
    text(a) == text(b)
}

pub fn compare(a: Option<&Value>, b: Option<&Value>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => x
            .as_f64()
            .unwrap_or_default()
            .total_cmp(&y.as_f64().unwrap_or_default()),
        (Some(x), Some(y)) => text(x).cmp(&text(y)),
        (Some(_), None) => std::cmp::Ordering::Greater,
        (None, Some(_)) => std::cmp::Ordering::Less,
        (None, None) => std::cmp::Ordering::Equal,
    }
}

fn split_labels(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items.iter().map(text).collect(),
        other => text(other)
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect(),
    }
}

fn labels_of(record: &Value) -> Vec<String> {
    record
        .get("labels")
        .and_then(Value::as_array)
        .map(|l| l.iter().map(text).collect())
        .unwrap_or_default()
}

fn ids(value: &Value) -> Vec<i64> {
    match value {
        Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_i64().or_else(|| text(v).parse().ok()))
            .collect(),
        other => text(other)
            .split(',')
            .filter_map(|s| s.trim().parse().ok())
            .collect(),
    }
}

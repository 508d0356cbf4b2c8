//! GitLab's GraphQL endpoint, as far as the catalog uses it. The sandbox does not
//! interpret GraphQL: it recognises each operation the catalog (and its handlers) send by
//! its `operationName` and answers from the seed records in the shape that operation's
//! document asks for (GitLab's field names under the document's aliases, widgets and
//! connections as GraphQL nests them). An operation it does not know gets GraphQL's kind
//! of failure, `200` with an `errors` array, as GitLab answers a document it refuses.
//!
//! Work items are the records of `work_items` and, in projects, the issues (in GitLab
//! every issue is a work item); `work_item_links` holds parent → child links, and
//! `work_item_types` the types a project or group offers. A project's Terraform states
//! are `terraform_states` (their lock and history in `_` fields).

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::engine::{Answer, Call};
use super::store::{Outcome, Store, basic_user, get_path};

const HIDDEN: &str = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

/// The operations the sandbox answers.
const OPERATIONS: &[&str] = &[
    "WorkItems",
    "Epics",
    "WorkItem",
    "Epic",
    "WorkItemId",
    "WorkItemTypes",
    "WorkItemLabels",
    "WorkItemUsers",
    "WorkItemCreate",
    "WorkItemUpdate",
    "TerraformStates",
];

pub fn graphql(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let operation = call
        .body
        .get("operationName")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let empty = Map::new();
    let variables = call
        .body
        .get("variables")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let data = match operation {
        "WorkItems" => list(store, call, variables, None),
        "Epics" => list(store, call, variables, Some("EPIC")),
        "WorkItem" | "Epic" | "WorkItemId" => get(store, call, variables),
        "WorkItemTypes" => types(store, call, variables),
        "WorkItemLabels" => labels(store, call, variables),
        "WorkItemUsers" => Ok(users(store, variables)),
        "WorkItemCreate" => create(store, call, variables),
        "WorkItemUpdate" => update(store, call, variables),
        "TerraformStates" => terraform_states(store, call, variables),
        other => Err(format!(
            "The sandbox does not answer the GraphQL operation `{other}`; it answers {}",
            OPERATIONS.join(", ")
        )),
    };
    Ok(Answer::ok(match data {
        Ok(data) => json!({ "data": data }),
        Err(message) => json!({ "data": null, "errors": [{ "message": message }] }),
    }))
}

/// A project or group by full path, if the caller may see it: `(is_project, record)`.
fn namespace(store: &Store, call: &Call<'_>, full_path: &str) -> Option<(bool, Value)> {
    if let Some(project) = store
        .all("projects")
        .iter()
        .find(|p| p["path_with_namespace"] == full_path)
    {
        return store
            .visible_project(project, &call.user)
            .then(|| (true, project.clone()));
    }
    store
        .all("groups")
        .iter()
        .find(|g| g["full_path"] == full_path)
        .map(|group| (false, group.clone()))
}

/// One work item, whichever collection holds it, in the terms the answers use.
struct Item {
    namespace: String,
    /// The record, and whether it is an issue (`projects/issues`).
    record: Value,
    issue: bool,
}

impl Item {
    fn iid(&self) -> i64 {
        self.record["iid"].as_i64().unwrap_or_default()
    }

    fn key(&self) -> String {
        format!("{}#{}", self.namespace, self.iid())
    }

    fn global_id(&self) -> String {
        format!("gid://gitlab/WorkItem/{}", self.record["id"])
    }

    fn type_name(&self) -> String {
        if self.issue {
            return match self.record["issue_type"].as_str() {
                Some("incident") => "Incident".into(),
                _ => "Issue".into(),
            };
        }
        self.record["work_item_type"]
            .as_str()
            .unwrap_or("Issue")
            .to_owned()
    }

    fn open(&self) -> bool {
        self.record["state"] == "opened"
    }
}

/// Every work item: the work item records and the issues of every project.
fn items(store: &Store) -> Vec<Item> {
    let projects: Map<String, Value> = store
        .all("projects")
        .iter()
        .map(|p| (p["id"].to_string(), p["path_with_namespace"].clone()))
        .collect();
    let issues = store.all("projects/issues").iter().filter_map(|issue| {
        let namespace = projects.get(&issue["project_id"].to_string())?.as_str()?;
        Some(Item {
            namespace: namespace.to_owned(),
            record: issue.clone(),
            issue: true,
        })
    });
    let own = store.all("work_items").iter().map(|record| Item {
        namespace: record["_namespace"].as_str().unwrap_or_default().to_owned(),
        record: record.clone(),
        issue: false,
    });
    issues.chain(own).collect()
}

fn type_key(name: &str) -> String {
    name.replace(' ', "_").to_uppercase()
}

fn list(
    store: &Store,
    call: &Call<'_>,
    variables: &Map<String, Value>,
    only: Option<&str>,
) -> Result<Value, String> {
    let full_path = variables
        .get("fullPath")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if namespace(store, call, full_path).is_none() {
        return Ok(json!({ "namespace": null }));
    }
    let types: Vec<String> = match (only, variables.get("types")) {
        (Some(only), _) => vec![only.to_owned()],
        (None, Some(Value::Array(types))) => types
            .iter()
            .filter_map(Value::as_str)
            .map(type_key)
            .collect(),
        (None, Some(Value::String(one))) => vec![type_key(one)],
        (None, _) => Vec::new(),
    };
    let state = variables
        .get("state")
        .and_then(Value::as_str)
        .unwrap_or("all");
    let search = variables
        .get("search")
        .and_then(Value::as_str)
        .map(str::to_lowercase);
    let labels: Vec<&str> = match variables.get("labelName") {
        Some(Value::Array(labels)) => labels.iter().filter_map(Value::as_str).collect(),
        Some(Value::String(one)) => vec![one.as_str()],
        _ => Vec::new(),
    };
    let all = items(store);
    let mut found: Vec<&Item> = all
        .iter()
        .filter(|item| item.namespace == full_path)
        .filter(|item| types.is_empty() || types.contains(&type_key(&item.type_name())))
        .filter(|item| match state {
            "opened" => item.open(),
            "closed" => !item.open(),
            _ => true,
        })
        .filter(|item| {
            search.as_ref().is_none_or(|search| {
                ["title", "description"].iter().any(|field| {
                    item.record[*field]
                        .as_str()
                        .is_some_and(|text| text.to_lowercase().contains(search))
                })
            })
        })
        .filter(|item| {
            labels.iter().all(|label| {
                item.record["labels"]
                    .as_array()
                    .is_some_and(|have| have.iter().any(|l| l == label))
            })
        })
        .collect();
    found.sort_by(|a, b| {
        b.record["created_at"]
            .as_str()
            .cmp(&a.record["created_at"].as_str())
            .then(b.iid().cmp(&a.iid()))
    });
    let count = found.len();
    let nodes: Vec<Value> = found.iter().map(|item| node(store, item)).collect();
    let (page, page_info) = connection_page(nodes, variables);
    Ok(json!({
        "namespace": {
            "workItems": {
                "count": count,
                "pageInfo": page_info,
                "nodes": page,
            }
        }
    }))
}

/// `project.terraformStates`: a project's states by name, each with its lock and latest
/// version, paged as a connection.
fn terraform_states(
    store: &Store,
    call: &Call<'_>,
    variables: &Map<String, Value>,
) -> Result<Value, String> {
    let full_path = variables
        .get("fullPath")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some((true, project)) = namespace(store, call, full_path) else {
        return Ok(json!({ "project": null }));
    };
    let mut states: Vec<&Value> = store
        .all("projects/terraform/state")
        .iter()
        .filter(|state| state["_project_id"] == project["id"])
        .collect();
    states.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    let user = |field: &Value| field.as_str().map(|name| json!({ "username": name }));
    let nodes: Vec<Value> = states
        .iter()
        .map(|state| {
            json!({
                "name": state["name"],
                "updated_at": state["_updated_at"],
                "locked_at": state["_locked_at"],
                "locked_by": user(&state["_locked_by"]),
                "latest_version": {
                    "serial": state["serial"],
                    "updated_at": state["_updated_at"],
                    "created_by": user(&state["_created_by"]),
                },
            })
        })
        .collect();
    let (page, page_info) = connection_page(nodes, variables);
    Ok(json!({
        "project": {
            "terraformStates": {
                "count": states.len(),
                "pageInfo": page_info,
                "nodes": page,
            }
        }
    }))
}

/// A page of a connection's nodes by `first` and `after`, with its `pageInfo`.
fn connection_page(nodes: Vec<Value>, variables: &Map<String, Value>) -> (Vec<Value>, Value) {
    let first = variables
        .get("first")
        .and_then(Value::as_u64)
        .unwrap_or(20)
        .clamp(1, 100) as usize;
    let offset = variables
        .get("after")
        .and_then(Value::as_str)
        .and_then(cursor_offset)
        .unwrap_or(0);
    let count = nodes.len();
    let page: Vec<Value> = nodes.into_iter().skip(offset).take(first).collect();
    let end = offset + page.len();
    let has_next = end < count;
    let info = json!({ "hasNextPage": has_next, "endCursor": has_next.then(|| cursor(end)) });
    (page, info)
}

/// GitLab's cursors are opaque base64; the sandbox's hold an offset.
fn cursor(offset: usize) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("{{\"offset\":{offset}}}"))
}

fn cursor_offset(cursor: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(cursor)
        .ok()?;
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    value["offset"].as_u64().map(|n| n as usize)
}

fn get(store: &Store, call: &Call<'_>, variables: &Map<String, Value>) -> Result<Value, String> {
    let full_path = variables
        .get("fullPath")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if namespace(store, call, full_path).is_none() {
        return Ok(json!({ "namespace": null }));
    }
    let iid = variables.get("iid").map(text).unwrap_or_default();
    let found = items(store)
        .into_iter()
        .find(|item| item.namespace == full_path && item.iid().to_string() == iid);
    Ok(json!({
        "namespace": { "workItem": found.map(|item| node(store, &item)) }
    }))
}

fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn types(store: &Store, call: &Call<'_>, variables: &Map<String, Value>) -> Result<Value, String> {
    let full_path = variables
        .get("fullPath")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some((is_project, _)) = namespace(store, call, full_path) else {
        return Ok(json!({ "namespace": null }));
    };
    let wanted = variables.get("name").and_then(Value::as_str).map(type_key);
    let level = if is_project { "project" } else { "group" };
    let nodes: Vec<Value> = store
        .all("work_item_types")
        .iter()
        .filter(|t| {
            t["levels"]
                .as_array()
                .is_some_and(|levels| levels.iter().any(|l| l == level))
        })
        .filter(|t| {
            wanted
                .as_ref()
                .is_none_or(|wanted| t["name"].as_str().map(type_key).as_ref() == Some(wanted))
        })
        .map(|t| json!({"id": type_id(&t["id"]), "name": t["name"]}))
        .collect();
    Ok(json!({ "namespace": { "workItemTypes": { "nodes": nodes } } }))
}

/// A project's labels and its groups', or a group's and its ancestors', as
/// `project.labels` or `group.labels`.
fn labels(store: &Store, call: &Call<'_>, variables: &Map<String, Value>) -> Result<Value, String> {
    let full_path = variables
        .get("fullPath")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some((is_project, record)) = namespace(store, call, full_path) else {
        return Ok(json!({ "project": null, "group": null }));
    };
    let group_path = if is_project {
        full_path.rsplit_once('/').map_or("", |(group, _)| group)
    } else {
        full_path
    };
    let mut nodes: Vec<Value> = Vec::new();
    if is_project {
        nodes.extend(
            store
                .all("projects/labels")
                .iter()
                .filter(|l| l["_project_id"] == record["id"])
                .map(|l| json!({"id": format!("gid://gitlab/ProjectLabel/{}", l["id"]), "title": l["name"]})),
        );
    }
    let ancestors: Vec<&Value> = store
        .all("groups")
        .iter()
        .filter(|g| {
            g["full_path"].as_str().is_some_and(|path| {
                group_path == path || group_path.starts_with(&format!("{path}/"))
            })
        })
        .collect();
    nodes.extend(
        store
            .all("groups/labels")
            .iter()
            .filter(|l| ancestors.iter().any(|g| g["id"] == l["_group_id"]))
            .map(|l| json!({"id": format!("gid://gitlab/GroupLabel/{}", l["id"]), "title": l["name"]})),
    );
    let owner = if is_project { "project" } else { "group" };
    Ok(json!({ owner: { "labels": { "nodes": nodes } } }))
}

fn users(store: &Store, variables: &Map<String, Value>) -> Value {
    let wanted: Vec<&Value> = match variables.get("usernames") {
        Some(Value::Array(names)) => names.iter().collect(),
        _ => Vec::new(),
    };
    let nodes: Vec<Value> = store
        .all("users")
        .iter()
        .filter(|u| wanted.contains(&&u["username"]))
        .map(|u| json!({"id": format!("gid://gitlab/User/{}", u["id"]), "username": u["username"]}))
        .collect();
    json!({ "users": { "nodes": nodes } })
}

/// The name of a label by its global ID (`gid://gitlab/ProjectLabel/2001`).
fn label_name(store: &Store, id: &Value) -> Option<Value> {
    let id = id.as_str()?;
    let (collection, number) = match id.rsplit_once('/')? {
        (kind, number) if kind.ends_with("ProjectLabel") => ("projects/labels", number),
        (kind, number) if kind.ends_with("GroupLabel") => ("groups/labels", number),
        _ => return None,
    };
    let number: i64 = number.parse().ok()?;
    store
        .all(collection)
        .iter()
        .find(|l| l["id"].as_i64() == Some(number))
        .map(|l| l["name"].clone())
}

fn type_id(id: &Value) -> String {
    format!("gid://gitlab/WorkItems::Type/{id}")
}

fn create(
    store: &mut Store,
    call: &Call<'_>,
    variables: &Map<String, Value>,
) -> Result<Value, String> {
    let input = &variables["input"];
    let full_path = input["namespacePath"].as_str().unwrap_or_default();
    let refused =
        |message: &str| Ok(json!({"workItemCreate": {"workItem": null, "errors": [message]}}));
    let Some((is_project, _)) = namespace(store, call, full_path) else {
        return Err(HIDDEN.to_owned());
    };
    let title = input["title"]
        .as_str()
        .unwrap_or_default()
        .trim()
        .to_owned();
    if title.is_empty() {
        return refused("Title can't be blank");
    }
    let level = if is_project { "project" } else { "group" };
    let Some(kind) = store
        .all("work_item_types")
        .iter()
        .find(|t| input["workItemTypeId"] == type_id(&t["id"]).as_str())
        .cloned()
    else {
        return Err(format!(
            "The work item type {} does not exist",
            input["workItemTypeId"]
        ));
    };
    if !kind["levels"]
        .as_array()
        .is_some_and(|levels| levels.iter().any(|l| l == level))
    {
        return refused(&format!(
            "{} is not allowed in a {level}",
            kind["name"].as_str().unwrap_or_default()
        ));
    }
    let all = items(store);
    let parent = match input.get("hierarchyWidget").map(|h| &h["parentId"]) {
        Some(Value::String(parent_id)) => match all.iter().find(|i| &i.global_id() == parent_id) {
            Some(parent) => Some(parent.key()),
            None => return refused("No matching work item found for the parent"),
        },
        _ => None,
    };
    let iid = all
        .iter()
        .filter(|item| item.namespace == full_path)
        .map(Item::iid)
        .max()
        .unwrap_or(0)
        + 1;
    let id = store
        .all("work_items")
        .iter()
        .filter_map(|r| r["id"].as_i64())
        .max()
        .unwrap_or(9000)
        + 1;
    let now = store.tick();
    let mut record = json!({
        "_namespace": full_path,
        "id": id,
        "iid": iid,
        "work_item_type": kind["name"],
        "title": title,
        "state": "opened",
        "confidential": input["confidential"].as_bool().unwrap_or(false),
        "author": {"username": call.user["username"]},
        "assignees": [],
        "labels": [],
        "created_at": now,
        "updated_at": now,
    });
    if let Some(description) = get_path(input, "descriptionWidget.description") {
        record["description"] = description.clone();
    }
    store.all_mut("work_items").push(record.clone());
    if let Some(parent) = parent {
        store.all_mut("work_item_links").push(json!({
            "parent": parent,
            "child": format!("{full_path}#{iid}"),
        }));
    }
    let item = Item {
        namespace: full_path.to_owned(),
        record,
        issue: false,
    };
    Ok(json!({"workItemCreate": {"workItem": node(store, &item), "errors": []}}))
}

fn update(
    store: &mut Store,
    _call: &Call<'_>,
    variables: &Map<String, Value>,
) -> Result<Value, String> {
    let input = &variables["input"];
    let id = input["id"].as_str().unwrap_or_default();
    let Some(item) = items(store).into_iter().find(|i| i.global_id() == id) else {
        return Err(HIDDEN.to_owned());
    };
    if input
        .get("title")
        .is_some_and(|t| t.as_str().is_none_or(|t| t.trim().is_empty()))
    {
        return Ok(
            json!({"workItemUpdate": {"workItem": null, "errors": ["Title can't be blank"]}}),
        );
    }
    let now = store.tick();
    let collection = if item.issue {
        "projects/issues"
    } else {
        "work_items"
    };
    let mut record = item.record.clone();
    if let Some(title) = input.get("title") {
        record["title"] = title.clone();
    }
    if let Some(description) = get_path(input, "descriptionWidget.description") {
        record["description"] = description.clone();
    }
    if let Some(confidential) = input.get("confidential") {
        record["confidential"] = confidential.clone();
    }
    if let Some(widget) = input.get("labelsWidget") {
        let mut labels: Vec<Value> = record["labels"].as_array().cloned().unwrap_or_default();
        for id in widget["removeLabelIds"].as_array().into_iter().flatten() {
            if let Some(name) = label_name(store, id) {
                labels.retain(|label| label != &name);
            }
        }
        for id in widget["addLabelIds"].as_array().into_iter().flatten() {
            match label_name(store, id) {
                Some(name) if !labels.contains(&name) => labels.push(name),
                Some(_) => {}
                None => return Err(format!("The label {id} does not exist")),
            }
        }
        record["labels"] = Value::Array(labels);
    }
    if let Some(ids) = get_path(input, "assigneesWidget.assigneeIds").and_then(Value::as_array) {
        let mut assignees = Vec::new();
        for id in ids {
            let user = store
                .all("users")
                .iter()
                .find(|u| id.as_str() == Some(format!("gid://gitlab/User/{}", u["id"]).as_str()));
            match user {
                Some(user) => assignees.push(basic_user(user)),
                None => return Err(format!("The user {id} does not exist")),
            }
        }
        record["assignees"] = Value::Array(assignees);
    }
    match input["stateEvent"].as_str() {
        Some("CLOSE") if item.open() => {
            record["state"] = json!("closed");
            record["closed_at"] = json!(now);
        }
        Some("REOPEN") if !item.open() => {
            record["state"] = json!("opened");
            record["closed_at"] = Value::Null;
        }
        _ => {}
    }
    record["updated_at"] = json!(now);
    if let Some(slot) = store
        .all_mut(collection)
        .iter_mut()
        .find(|r| r["id"] == item.record["id"])
    {
        *slot = record.clone();
    }
    let item = Item { record, ..item };
    Ok(json!({"workItemUpdate": {"workItem": node(store, &item), "errors": []}}))
}

/// A work item as the catalog's documents select it: GitLab's fields under their
/// aliases, the rest in widgets.
fn node(store: &Store, item: &Item) -> Value {
    let record = &item.record;
    let username = |user: &Value| json!({"username": user["username"]});
    let assignees: Vec<Value> = record["assignees"]
        .as_array()
        .map(|list| list.iter().map(username).collect())
        .unwrap_or_default();
    let labels: Vec<Value> = record["labels"]
        .as_array()
        .map(|list| list.iter().map(|l| json!({"title": l})).collect())
        .unwrap_or_default();
    let milestone = record
        .get("milestone")
        .filter(|m| m.is_object())
        .map(|m| json!({"title": m["title"], "due_date": m["due_date"]}));
    let all = items(store);
    let links = store.all("work_item_links");
    let key = item.key();
    let parent = links
        .iter()
        .find(|link| link["child"] == key.as_str())
        .and_then(|link| all.iter().find(|i| link["parent"] == i.key().as_str()))
        .map(|parent| reference(store, parent));
    let children: Vec<Value> = links
        .iter()
        .filter(|link| link["parent"] == key.as_str())
        .filter_map(|link| all.iter().find(|i| link["child"] == i.key().as_str()))
        .map(|child| reference(store, child))
        .collect();
    let mut base = reference(store, item);
    base["id"] = json!(item.global_id());
    base["confidential"] = record["confidential"].clone();
    base["created_at"] = record["created_at"].clone();
    base["updated_at"] = record["updated_at"].clone();
    base["closed_at"] = record["closed_at"].clone();
    base["author"] = username(&record["author"]);
    base["widgets"] = json!([
        {"type": "DESCRIPTION", "description": record["description"]},
        {"type": "ASSIGNEES", "assignees": {"nodes": assignees}},
        {"type": "LABELS", "labels": {"nodes": labels}},
        {"type": "MILESTONE", "milestone": milestone},
        {"type": "START_AND_DUE_DATE", "start_date": record["start_date"], "due_date": record["due_date"]},
        {"type": "HIERARCHY", "parent": parent, "has_children": !children.is_empty(), "children": {"nodes": children}},
    ]);
    base
}

/// The few fields a parent or a child shows.
fn reference(store: &Store, item: &Item) -> Value {
    let web_url = match item.record["web_url"].as_str() {
        Some(url) => url.to_owned(),
        None => web_url(store, item),
    };
    json!({
        "iid": item.iid().to_string(),
        "title": item.record["title"],
        "state": if item.open() { "OPEN" } else { "CLOSED" },
        "web_url": web_url,
        "work_item_type": {"name": item.type_name()},
    })
}

/// Where GitLab shows a work item: a project's under `/-/work_items/`, a group's under
/// `/groups/.../-/work_items/` (epics under `/-/epics/`).
fn web_url(store: &Store, item: &Item) -> String {
    let external = store.fill("{external_url}", &Value::Null, &[]);
    let in_project = store
        .all("projects")
        .iter()
        .any(|p| p["path_with_namespace"] == item.namespace.as_str());
    match (in_project, item.type_name().as_str()) {
        (true, _) => format!("{external}/{}/-/work_items/{}", item.namespace, item.iid()),
        (false, "Epic") => format!(
            "{external}/groups/{}/-/epics/{}",
            item.namespace,
            item.iid()
        ),
        (false, _) => format!(
            "{external}/groups/{}/-/work_items/{}",
            item.namespace,
            item.iid()
        ),
    }
}

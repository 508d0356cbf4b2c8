//! Work items (GraphQL). Why Rust: GitLab keeps most of a work item in `widgets`, a list
//! of typed parts (description, assignees, labels, hierarchy...) that no field path can
//! reach, so each one is merged into the item as plain fields; and a create or an update
//! names things GitLab wants as global IDs (the work item type, the parent, the item
//! itself, labels, assignees), which are looked up first. Everything else (the documents, the variables, the
//! result path, the error handling) is the generic GraphQL path of the manifest.

use serde_json::{Map, Value};

use crate::call::{ActionError, Context, graphql_decode, graphql_result};
use crate::catalog::{Action, Plan};
use crate::gitlab::Request;

/// The type IDs of a namespace, by name (`TASK`).
const TYPES: &str = "query WorkItemTypes($fullPath: ID!, $name: IssueType) {
  namespace(fullPath: $fullPath) { workItemTypes(name: $name) { nodes { id name } } }
}";

/// The global ID of a work item, by namespace and IID.
const ID: &str = "query WorkItemId($fullPath: ID!, $iid: String!) {
  namespace(fullPath: $fullPath) { workItem(iid: $iid) { id } }
}";

/// The label IDs of a project or group (its own and its ancestors'), by title.
const LABELS: &str = "query WorkItemLabels($fullPath: ID!) {
  project(fullPath: $fullPath) { labels(includeAncestorGroups: true, first: 100) { nodes { id title } } }
  group(fullPath: $fullPath) { labels(includeAncestorGroups: true, first: 100) { nodes { id title } } }
}";

/// User IDs, by username.
const USERS: &str = "query WorkItemUsers($usernames: [String!]) {
  users(usernames: $usernames) { nodes { id username } }
}";

/// `work_item.list`, `.get` and the epic actions: the generic GraphQL call, each work
/// item's widgets merged into it.
pub async fn work_item_widgets(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    run(context, action, plan, plan.request.clone()).await
}

/// `work_item.create`: the type's ID (and the parent's, when one is named) looked up,
/// then the mutation.
pub async fn work_item_create(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let full_path = text_arg(plan, "full_path");
    let type_name = text_arg(plan, "work_item_type").to_uppercase();
    let types = lookup(
        context,
        "WorkItemTypes",
        TYPES,
        serde_json::json!({"fullPath": full_path, "name": type_name}),
        "namespace.workItemTypes",
    )
    .await?;
    let type_id = types
        .as_ref()
        .and_then(|types| types.get("nodes"))
        .and_then(Value::as_array)
        .and_then(|nodes| {
            nodes.iter().find(|node| {
                node.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|name| name.replace(' ', "_").eq_ignore_ascii_case(&type_name))
            })
        })
        .and_then(|node| node.get("id"))
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ActionError::InvalidParams(format!(
                "{full_path} has no work item type `{type_name}` (the project or group may not exist, or the type needs a higher tier)"
            ))
        })?;
    let mut request = plan
        .request
        .clone()
        .set_variable("input.workItemTypeId", type_id);
    if let Some(parent) = plan.args.get("parent_iid") {
        let parent = value_text(parent);
        let parent_id = work_item_id(context, &full_path, &parent).await?;
        request = request.set_variable("input.hierarchyWidget.parentId", parent_id);
    }
    run(context, action, plan, request).await
}

/// `work_item.update`: the work item's global ID looked up from its IID, then the
/// mutation.
pub async fn work_item_update(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let full_path = text_arg(plan, "full_path");
    let iid = text_arg(plan, "work_item_iid");
    let id = work_item_id(context, &full_path, &iid).await?;
    let mut request = plan.request.clone().set_variable("input.id", id);
    for (param, variable) in [
        ("add_labels", "input.labelsWidget.addLabelIds"),
        ("remove_labels", "input.labelsWidget.removeLabelIds"),
    ] {
        let names = list_arg(plan, param);
        if !names.is_empty() {
            let ids = label_ids(context, &full_path, &names).await?;
            request = request.set_variable(variable, ids);
        }
    }
    if plan.args.contains_key("assignees") {
        let ids = user_ids(context, &list_arg(plan, "assignees")).await?;
        request = request.set_variable("input.assigneesWidget.assigneeIds", ids);
    }
    run(context, action, plan, request).await
}

/// The global IDs of labels by title, in `full_path` or its groups; a title that is
/// not there is refused by name.
async fn label_ids(
    context: &Context,
    full_path: &str,
    names: &[String],
) -> Result<Vec<Value>, ActionError> {
    let data = lookup(
        context,
        "WorkItemLabels",
        LABELS,
        serde_json::json!({"fullPath": full_path}),
        "",
    )
    .await?
    .unwrap_or_default();
    let known: Vec<&Value> = ["project", "group"]
        .iter()
        .filter_map(|owner| data.get(*owner)?.get("labels")?.get("nodes")?.as_array())
        .flatten()
        .collect();
    ids_by(&known, "title", names, |name| {
        format!("{full_path} has no label `{name}` (nor its groups)")
    })
}

/// The global IDs of users by username.
async fn user_ids(context: &Context, usernames: &[String]) -> Result<Vec<Value>, ActionError> {
    if usernames.is_empty() {
        return Ok(Vec::new());
    }
    let users = lookup(
        context,
        "WorkItemUsers",
        USERS,
        serde_json::json!({"usernames": usernames}),
        "users",
    )
    .await?
    .unwrap_or_default();
    let known: Vec<&Value> = users
        .get("nodes")
        .and_then(Value::as_array)
        .map(|nodes| nodes.iter().collect())
        .unwrap_or_default();
    ids_by(&known, "username", usernames, |name| {
        format!("there is no user `{name}`")
    })
}

/// The `id` of the node whose `key` is each wanted value, in order; the first missing
/// one is refused.
fn ids_by(
    nodes: &[&Value],
    key: &str,
    wanted: &[String],
    missing: impl Fn(&str) -> String,
) -> Result<Vec<Value>, ActionError> {
    wanted
        .iter()
        .map(|name| {
            nodes
                .iter()
                .find(|node| node.get(key).and_then(Value::as_str) == Some(name.as_str()))
                .and_then(|node| node.get("id").cloned())
                .ok_or_else(|| ActionError::InvalidParams(missing(name)))
        })
        .collect()
}

fn list_arg(plan: &Plan, name: &str) -> Vec<String> {
    match plan.args.get(name) {
        Some(Value::Array(items)) => items.iter().map(value_text).collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(one) => vec![value_text(one)],
    }
}

async fn run(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
    request: Request,
) -> Result<Value, ActionError> {
    let result = graphql_result(context, action, &request)
        .await?
        .map(flatten_result);
    graphql_decode(action, &plan.args, &request, result)
}

/// The global ID of the work item `iid` in `full_path`, or not found.
async fn work_item_id(
    context: &Context,
    full_path: &str,
    iid: &str,
) -> Result<String, ActionError> {
    let found = lookup(
        context,
        "WorkItemId",
        ID,
        serde_json::json!({"fullPath": full_path, "iid": iid}),
        "namespace.workItem.id",
    )
    .await?;
    match found {
        Some(Value::String(id)) => Ok(id),
        _ => Err(ActionError::NotFound {
            kind: "Work Item",
            what: format!("work item #{iid} in {full_path}"),
        }),
    }
}

/// One query of our own, through the same client, deadline and error handling.
async fn lookup(
    context: &Context,
    operation: &str,
    document: &str,
    variables: Value,
    result: &str,
) -> Result<Option<Value>, ActionError> {
    let mut request =
        Request::new(crate::gitlab::Method::Post).into_graphql(operation, document, true);
    if let Value::Object(variables) = variables {
        for (name, value) in variables {
            request = request.set_variable(&name, value);
        }
    }
    let response = context.send(request).await?;
    crate::gitlab::graphql::result(&response, result).map_err(ActionError::Gitlab)
}

fn text_arg(plan: &Plan, name: &str) -> String {
    plan.args.get(name).map(value_text).unwrap_or_default()
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A single work item, or a connection whose `nodes` are work items.
fn flatten_result(mut result: Value) -> Value {
    if let Some(Value::Array(nodes)) = result.get_mut("nodes") {
        for node in nodes.iter_mut() {
            flatten(node);
        }
        return result;
    }
    flatten(&mut result);
    result
}

/// A work item as plain fields: each widget's fields merged in, connections (`{nodes}`)
/// as lists, labels as their titles, the type as its name and the state as REST writes
/// states (`OPEN` → `open`). The parent and children are flattened the same way.
fn flatten(item: &mut Value) {
    let Value::Object(fields) = item else {
        return;
    };
    if let Some(Value::Array(widgets)) = fields.remove("widgets") {
        for widget in widgets {
            if let Value::Object(widget) = widget {
                for (key, value) in widget {
                    if key != "type" {
                        fields.insert(key, value);
                    }
                }
            }
        }
    }
    let keys: Vec<String> = fields.keys().cloned().collect();
    for key in keys {
        if let Some(value) = fields.get_mut(&key) {
            unwrap_connection(value);
        }
    }
    if let Some(Value::Array(labels)) = fields.get_mut("labels") {
        for label in labels.iter_mut() {
            if let Some(title) = label.get("title").cloned() {
                *label = title;
            }
        }
    }
    name_type_and_state(fields);
    if let Some(parent) = fields.get_mut("parent") {
        flatten(parent);
    }
    if let Some(Value::Array(children)) = fields.get_mut("children") {
        for child in children.iter_mut() {
            flatten(child);
        }
    }
}

/// `{"nodes": [...]}` → `[...]`.
fn unwrap_connection(value: &mut Value) {
    if let Value::Object(object) = value
        && object.len() == 1
        && let Some(Value::Array(nodes)) = object.get("nodes")
    {
        *value = Value::Array(nodes.clone());
    }
}

fn name_type_and_state(fields: &mut Map<String, Value>) {
    if let Some(name) = fields
        .get("work_item_type")
        .and_then(|kind| kind.get("name"))
        .cloned()
    {
        fields.insert("work_item_type".into(), name);
    }
    if let Some(Value::String(state)) = fields.get_mut("state") {
        *state = state.to_lowercase();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn widgets_become_fields() {
        let mut item = json!({
            "iid": "7",
            "state": "OPEN",
            "work_item_type": {"name": "Issue"},
            "widgets": [
                {"type": "DESCRIPTION", "description": "Text"},
                {"type": "ASSIGNEES", "assignees": {"nodes": [{"username": "bob"}]}},
                {"type": "LABELS", "labels": {"nodes": [{"title": "api"}]}},
                {"type": "HIERARCHY", "parent": {"iid": "1", "state": "CLOSED", "work_item_type": {"name": "Epic"}},
                 "children": {"nodes": [{"iid": "31", "state": "OPEN", "work_item_type": {"name": "Task"}}]}}
            ]
        });
        flatten(&mut item);
        assert_eq!(
            item,
            json!({
                "iid": "7",
                "state": "open",
                "work_item_type": "Issue",
                "description": "Text",
                "assignees": [{"username": "bob"}],
                "labels": ["api"],
                "parent": {"iid": "1", "state": "closed", "work_item_type": "Epic"},
                "children": [{"iid": "31", "state": "open", "work_item_type": "Task"}]
            })
        );
    }

    #[test]
    fn a_connection_flattens_each_node() {
        let result = flatten_result(json!({
            "count": 1,
            "nodes": [{"iid": "1", "state": "CLOSED", "widgets": [{"type": "LABELS", "labels": {"nodes": []}}]}]
        }));
        assert_eq!(result["nodes"][0]["state"], "closed");
        assert_eq!(result["nodes"][0]["labels"], json!([]));
        assert_eq!(result["count"], 1);
    }
}

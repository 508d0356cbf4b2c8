//! GitLab answers the certificate-based clusters of a group's hierarchy as two objects
//! keyed by full path (`{"groups": {"acme": [{"id": 2, "name": "shared"}]}, "projects":
//! {...}}`), which a manifest field cannot type. This handler turns them into one list of
//! clusters, each with `level` (`group` or `project`) and the `full_path` it is on.

use serde_json::{Map, Value};

use crate::call::{ActionError, Context};
use crate::catalog::{Action, Plan};

/// `cluster.discover`: the clusters of every group and project as one list.
pub async fn clusters_discovered(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    super::send_rewritten(context, action, plan, as_list).await
}

/// Groups' clusters first, then projects', each level in GitLab's order of paths.
fn as_list(body: &mut Value) {
    let mut listed = Vec::new();
    for (key, level) in [("groups", "group"), ("projects", "project")] {
        let Some(Value::Object(by_path)) = body.get(key) else {
            continue;
        };
        for (path, clusters) in by_path {
            for cluster in clusters.as_array().into_iter().flatten() {
                let mut item = Map::new();
                if let Value::Object(fields) = cluster {
                    item.extend(fields.clone());
                }
                item.insert("level".to_owned(), Value::String(level.to_owned()));
                item.insert("full_path".to_owned(), Value::String(path.clone()));
                listed.push(Value::Object(item));
            }
        }
    }
    *body = Value::Array(listed);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::as_list;

    #[test]
    fn clusters_keyed_by_path_become_one_list() {
        let mut body = json!({
            "groups": {"acme": [{"id": 2, "name": "shared"}, {"id": 4, "name": "gpu"}]},
            "projects": {"acme/api": [{"id": 1, "name": "production"}]},
        });
        as_list(&mut body);
        assert_eq!(
            body,
            json!([
                {"id": 2, "name": "shared", "level": "group", "full_path": "acme"},
                {"id": 4, "name": "gpu", "level": "group", "full_path": "acme"},
                {"id": 1, "name": "production", "level": "project", "full_path": "acme/api"},
            ])
        );
    }

    #[test]
    fn an_empty_answer_is_an_empty_list() {
        let mut body = json!({"groups": {}, "projects": {}});
        as_list(&mut body);
        assert_eq!(body, json!([]));
    }
}

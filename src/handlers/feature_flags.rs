//! A feature flag's rollout said as people say it: GitLab wants `strategies`, a list of
//! objects each with a `name`, a `parameters` object whose keys depend on the name
//! (`rollout` and `stickiness`, `percentage` and `groupId`, `userIds`) and `scopes` of
//! environments, and on an update the old strategies sent back by id with `_destroy`.
//! The manifest's `[object]` parameters hold scalars only, so `strategy`, `percentage`,
//! `user_ids`, `user_list_id` and `environments` are read here and sent as GitLab's
//! `strategies`; on an update they replace the flag's strategies (read first).

use serde_json::{Value, json};

use crate::call::{ActionError, Context, decode};
use crate::catalog::{Action, Args, Plan, arg_text};
use crate::gitlab::{Method, Request};

/// The strategy the call's local parameters describe, as GitLab's strategy object, or
/// `None` when the call names no `strategy`.
fn strategy(args: &Args) -> Result<Option<Value>, String> {
    let Some(name) = args.get("strategy").and_then(Value::as_str) else {
        for orphan in ["percentage", "user_ids", "user_list_id", "stickiness"] {
            if args.contains_key(orphan) {
                return Err(format!(
                    "`{orphan}` belongs to a rollout strategy: give `strategy` too."
                ));
            }
        }
        return Ok(None);
    };
    let percentage = || {
        args.get("percentage")
            .and_then(Value::as_i64)
            .map(|p| p.to_string())
            .ok_or_else(|| format!("The `{name}` strategy needs `percentage` (0-100)."))
    };
    let parameters = match name {
        "default" => json!({}),
        "flexibleRollout" => json!({
            "groupId": "default",
            "rollout": percentage()?,
            "stickiness": args.get("stickiness").and_then(Value::as_str).unwrap_or("default"),
        }),
        "gradualRolloutUserId" => json!({"groupId": "default", "percentage": percentage()?}),
        "userWithId" => {
            let ids = args
                .get("user_ids")
                .and_then(Value::as_str)
                .map(|ids| {
                    ids.split(',')
                        .map(str::trim)
                        .filter(|id| !id.is_empty())
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .filter(|ids| !ids.is_empty())
                .ok_or("The `userWithId` strategy needs `user_ids` (comma-separated).")?;
            json!({"userIds": ids})
        }
        "gitlabUserList" => json!({}),
        other => return Err(format!("Unknown strategy `{other}`.")),
    };
    let environments: Vec<&str> = args
        .get("environments")
        .and_then(Value::as_array)
        .map(|all| all.iter().filter_map(Value::as_str).collect())
        .filter(|all: &Vec<&str>| !all.is_empty())
        .unwrap_or_else(|| vec!["*"]);
    let scopes: Vec<Value> = environments
        .iter()
        .map(|scope| json!({"environment_scope": scope}))
        .collect();
    let mut strategy = json!({"name": name, "parameters": parameters, "scopes": scopes});
    if name == "gitlabUserList" {
        let list = args.get("user_list_id").and_then(Value::as_i64).ok_or(
            "The `gitlabUserList` strategy needs `user_list_id` (see `feature_flag.user_lists`).",
        )?;
        strategy["user_list_id"] = json!(list);
    }
    Ok(Some(strategy))
}

/// The flag's current strategies, each sent back by id to be destroyed.
fn destroyed(flag: &Value) -> Vec<Value> {
    flag["strategies"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["id"].as_i64())
        .map(|id| json!({"id": id, "_destroy": true}))
        .collect()
}

/// `feature_flag.create` and `.update`: the rollout sent as GitLab's `strategies`
/// (replacing the flag's own on an update), then the action's request.
pub async fn feature_flag_rollout(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let mut request = plan.request.clone();
    if let Some(new) = strategy(&plan.args).map_err(ActionError::InvalidParams)? {
        let mut strategies = Vec::new();
        if plan.request.method == Method::Put {
            let project = arg_text(&plan.args, "project_id").unwrap_or_default();
            let name = arg_text(&plan.args, "feature_flag_name").unwrap_or_default();
            let current = Request::new(Method::Get).at(
                "/projects/{project_id}/feature_flags/{feature_flag_name}",
                &[&project.as_str(), &name.as_str()],
            );
            let flag: Value = context.send(current).await?.value()?;
            strategies.extend(destroyed(&flag));
        }
        strategies.push(new);
        request = request.body("strategies", &Value::Array(strategies));
    }
    let response = context.send(request).await?;
    Ok(decode(action, &plan.args, &response)?)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{destroyed, strategy};

    fn args(value: serde_json::Value) -> crate::catalog::Args {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn a_percent_rollout_is_gitlabs_flexible_rollout_in_its_environments() {
        let sent = strategy(&args(json!({
            "strategy": "flexibleRollout", "percentage": 25, "environments": ["production", "staging"]
        })))
        .unwrap()
        .unwrap();
        assert_eq!(
            sent,
            json!({
                "name": "flexibleRollout",
                "parameters": {"groupId": "default", "rollout": "25", "stickiness": "default"},
                "scopes": [{"environment_scope": "production"}, {"environment_scope": "staging"}]
            })
        );
    }

    #[test]
    fn every_strategy_names_what_it_needs() {
        let all = strategy(&args(json!({"strategy": "default"})))
            .unwrap()
            .unwrap();
        assert_eq!(all["scopes"], json!([{"environment_scope": "*"}]));
        let users = strategy(&args(
            json!({"strategy": "userWithId", "user_ids": " 7, 12 ,"}),
        ))
        .unwrap()
        .unwrap();
        assert_eq!(users["parameters"], json!({"userIds": "7,12"}));
        let list = strategy(&args(
            json!({"strategy": "gitlabUserList", "user_list_id": 3}),
        ))
        .unwrap()
        .unwrap();
        assert_eq!(list["user_list_id"], json!(3));
        for (given, needs) in [
            (json!({"strategy": "flexibleRollout"}), "percentage"),
            (json!({"strategy": "gradualRolloutUserId"}), "percentage"),
            (
                json!({"strategy": "userWithId", "user_ids": " , "}),
                "user_ids",
            ),
            (json!({"strategy": "gitlabUserList"}), "user_list_id"),
            (json!({"percentage": 10}), "strategy"),
        ] {
            let problem = strategy(&args(given)).unwrap_err();
            assert!(problem.contains(needs), "{problem}");
        }
        assert_eq!(strategy(&args(json!({"active": false}))).unwrap(), None);
    }

    #[test]
    fn an_update_destroys_the_strategies_it_replaces() {
        let flag =
            json!({"strategies": [{"id": 4, "name": "default"}, {"id": 9, "name": "userWithId"}]});
        assert_eq!(
            destroyed(&flag),
            vec![
                json!({"id": 4, "_destroy": true}),
                json!({"id": 9, "_destroy": true})
            ]
        );
        assert!(destroyed(&json!({})).is_empty());
    }
}

//! CI/CD variable values are secrets (deploy keys, registry passwords, cloud credentials).
//! GitLab returns them in every answer about a variable; this handler sends the action's own
//! request and keeps a value only when the caller asked for values (`include_values`) and the
//! variable is neither masked nor hidden. A withheld value says why, so a model does not
//! take a missing value for an empty one. A value that is shown (of maskable length) is masked in logs from then on.

use serde_json::Value;

use crate::call::{ActionError, Context, decode};
use crate::catalog::{Action, Plan};

/// Shorter values (`debug`, `1`) are not masked in logs: they would mask ordinary text.
/// Eight is GitLab's own minimum for a maskable value.
const LOG_SECRET_MIN: usize = 8;

/// Why a value is not in the result.
fn withheld(variable: &Value, asked: bool, read: bool) -> Option<&'static str> {
    let flag = |name: &str| variable.get(name).and_then(Value::as_bool) == Some(true);
    if flag("hidden") {
        Some("hidden: GitLab never shows its value")
    } else if flag("masked") {
        Some("masked: never shown here")
    } else if !read {
        Some("not repeated: values are secrets (a get with include_values shows it)")
    } else if !asked {
        Some("not asked for: a list or get with include_values shows it")
    } else {
        None
    }
}

/// Removes or keeps one variable's value; returns the value kept.
fn guard(variable: &mut Value, asked: bool, read: bool) -> Option<String> {
    let reason = withheld(variable, asked, read);
    let object = variable.as_object_mut()?;
    match reason {
        Some(reason) => {
            object.remove("value");
            object.insert("value_withheld".into(), Value::from(reason));
            None
        }
        None => object
            .get("value")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

/// Every variable of a decoded result: the entity itself, or the items of its list.
fn variables(result: &mut Value) -> Vec<&mut Value> {
    if result.get("variables").is_some_and(Value::is_array) {
        return match result.get_mut("variables") {
            Some(Value::Array(items)) => items.iter_mut().collect(),
            _ => Vec::new(),
        };
    }
    vec![result]
}

/// Runs a CI/CD variable action and withholds the values the caller may not see.
pub async fn ci_variable_values(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let asked = plan.args.get("include_values").and_then(Value::as_bool) == Some(true);
    let read = action.safety.read_only;
    let response = context.send(plan.request.clone()).await?;
    let mut result = decode(action, &plan.args, &response)?;
    let shown: Vec<String> = variables(&mut result)
        .into_iter()
        .filter_map(|variable| guard(variable, asked, read))
        .filter(|value| value.len() >= LOG_SECRET_MIN)
        .collect();
    if !shown.is_empty() {
        crate::redact::register_for_logs(shown.iter().map(String::as_str));
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{guard, variables};

    #[test]
    fn a_value_is_kept_only_when_asked_for_and_neither_masked_nor_hidden() {
        let mut plain = json!({"key": "RUST_LOG", "value": "debug", "masked": false});
        assert_eq!(guard(&mut plain.clone(), false, true), None);
        assert_eq!(guard(&mut plain, true, true).as_deref(), Some("debug"));
        assert_eq!(plain["value"], "debug");

        let mut masked = json!({"key": "TOKEN", "value": "s3cr3t-value", "masked": true});
        assert_eq!(guard(&mut masked, true, true), None);
        assert!(masked.get("value").is_none());
        assert!(
            masked["value_withheld"]
                .as_str()
                .unwrap()
                .starts_with("masked")
        );

        let mut hidden = json!({"key": "KEY", "masked": true, "hidden": true});
        guard(&mut hidden, true, true);
        assert!(
            hidden["value_withheld"]
                .as_str()
                .unwrap()
                .starts_with("hidden")
        );
    }

    #[test]
    fn a_list_guards_each_item_and_a_single_variable_itself() {
        let mut list = json!({"variables": [{"key": "A", "value": "1"}, {"key": "B", "value": "2", "masked": true}]});
        let kept: Vec<_> = variables(&mut list)
            .into_iter()
            .filter_map(|v| guard(v, true, true))
            .collect();
        assert_eq!(kept, ["1"]);
        let mut one = json!({"key": "A", "value": "1"});
        assert_eq!(variables(&mut one).len(), 1);
        assert!(guard(&mut one.clone(), true, false).is_none());
        assert!(guard(&mut one, false, true).is_none());
        assert!(one.get("value").is_none());
    }
}

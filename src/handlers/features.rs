//! GitLab's own feature flags (`/features`) describe each gate as `{key, value}`, and the
//! value's type depends on the key: `true` for the boolean gate, `25` for a percentage,
//! `["User:1", "Group:11"]` for actors. A field has one type in the manifest, so this
//! handler writes every gate's value as text before the answer is read, and a gate keeps
//! what it says (which actors, what percentage) instead of being left out.

use serde_json::Value;

use crate::call::{ActionError, Context};
use crate::catalog::{Action, Plan};

/// `instance.feature_list`, `instance.feature_set`: the features with each gate's value
/// as text.
pub async fn feature_gates(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    super::send_rewritten(context, action, plan, |body| match body {
        Value::Array(features) => features.iter_mut().for_each(gates_as_text),
        feature => gates_as_text(feature),
    })
    .await
}

/// Each gate's `value` of one feature as text: a list of actors comma-separated.
fn gates_as_text(feature: &mut Value) {
    let Some(Value::Array(gates)) = feature.get_mut("gates") else {
        return;
    };
    for gate in gates {
        let Some(value) = gate.get_mut("value") else {
            continue;
        };
        *value = Value::String(super::value_text(value));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::gates_as_text;

    #[test]
    fn every_kind_of_gate_value_reads_as_text() {
        let mut feature = json!({"name": "f", "gates": [
            {"key": "boolean", "value": false},
            {"key": "percentage_of_time", "value": 25},
            {"key": "actors", "value": ["User:1", "Group:11"]},
            {"key": "percentage_of_actors", "value": "34"},
        ]});
        gates_as_text(&mut feature);
        let values: Vec<&str> = feature["gates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|gate| gate["value"].as_str().unwrap())
            .collect();
        assert_eq!(values, ["false", "25", "User:1, Group:11", "34"]);
    }

    #[test]
    fn a_feature_without_gates_is_left_as_it_is() {
        let mut feature = json!({"name": "f", "state": "off"});
        gates_as_text(&mut feature);
        assert_eq!(feature, json!({"name": "f", "state": "off"}));
    }
}

//! Next steps: a hint's `when` and `unless` test fields of the single entity the action
//! returns. (Its target is checked with every id, in `ids`.)

use super::super::model::HintDef;
use super::{EntityType, Output, Scope};

/// A hint's `when` and `unless`: each names a field of the single entity the action
/// returns (one that the structured result carries) and the scalar values it tests for.
pub(super) fn conditions(
    scope: &mut Scope<'_>,
    index: usize,
    hint: &HintDef,
    output: &Output,
    types: &[EntityType],
) -> Vec<(String, Vec<String>, bool)> {
    let mut conditions = Vec::new();
    for (key, map, negated) in [("when", &hint.when, false), ("unless", &hint.unless, true)] {
        let key = format!("hints.{index}.{key}");
        if map.is_empty() {
            continue;
        }
        let Output::Single { ty } = output else {
            scope.error(&key, "only a single-entity result has fields to test");
            continue;
        };
        let entity = types.iter().find(|t| &t.name == ty);
        for (field, values) in map {
            match entity.and_then(|e| e.fields.iter().find(|f| &f.name == field)) {
                None => scope.error(&key, format!("`{field}` is not a field of `{ty}`")),
                Some(f) if f.content_only => scope.error(
                    &key,
                    format!("`{field}` is content-only: the structured result does not carry it"),
                ),
                Some(_) => {}
            }
            if values.is_empty() {
                scope.error(&key, format!("`{field}` lists no values"));
            }
            let values = values
                .iter()
                .filter_map(|value| match value {
                    serde_json::Value::String(text) => Some(text.clone()),
                    serde_json::Value::Number(_) | serde_json::Value::Bool(_) => {
                        Some(value.to_string())
                    }
                    _ => {
                        scope.error(&key, format!("`{field}`: values must be scalars"));
                        None
                    }
                })
                .collect();
            conditions.push((field.clone(), values, negated));
        }
    }
    conditions
}

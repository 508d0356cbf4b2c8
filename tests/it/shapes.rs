//! Decoding accepts every shape GitLab's response schemas allow. The fixtures in
//! `tests/fixtures/shapes/` are derived from those schemas (`gitlab-mcp shape-check <schemas>
//! --write`): per entity type, every property present, every nullable one null, and only
//! the required ones. Each must decode, keep what it declares, and validate against the
//! output schema of every action that returns the type.

use std::path::PathBuf;

use gitlab_mcp::catalog::{
    ACTIONS, ENTITIES, Entity, FieldType, ResultShape, Unreadable, conform, strip_content_only,
};
use serde_json::{Value, json};

use crate::support::assert_valid;

fn fixtures() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shapes");
    let mut found: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            (name, value)
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

fn entity(name: &str) -> &'static Entity {
    ENTITIES
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("tests/fixtures/shapes/{name}.json names no entity type"))
}

/// The structured result of each action returning `entity`, built around `value`.
fn results(entity: &Entity, value: &Value) -> Vec<(&'static str, Value, Value)> {
    ACTIONS
        .iter()
        .filter_map(|action| {
            let structured = match action.result {
                ResultShape::Single { entity: e } if e.name == entity.name => value.clone(),
                ResultShape::List {
                    entity: e,
                    key,
                    paginated,
                    ..
                } if e.name == entity.name => {
                    let mut list = json!({ key: [value] });
                    if paginated {
                        list["pagination"] = json!({"page": 1, "per_page": 20, "has_more": false});
                    }
                    list
                }
                _ => return None,
            };
            Some((action.id, structured, action.output_schema()))
        })
        .collect()
}

#[test]
fn every_mapped_entity_has_fixtures() {
    let names: Vec<String> = fixtures().into_iter().map(|(name, _)| name).collect();
    for entity in ENTITIES.iter().filter(|e| e.gitlab_schema.is_some()) {
        assert!(
            names.iter().any(|n| n == entity.name),
            "{} names a GitLab schema but has no fixture: run `gitlab-mcp shape-check <schemas> --write`",
            entity.name
        );
    }
}

#[test]
fn every_shape_gitlab_allows_decodes_and_validates() {
    let mut checked = 0;
    for (name, fixture) in fixtures() {
        let entity = entity(&name);
        assert_eq!(fixture["schema"], json!(entity.gitlab_schema), "{name}");
        for (variant, instance) in fixture["instances"].as_object().unwrap() {
            let what = format!("{name} ({variant})");
            let mut unreadable = Unreadable::default();
            let mut value = conform(instance.clone(), entity, &mut unreadable)
                .unwrap_or_else(|error| panic!("{what} does not decode: {error}"));
            // Every property present in a type GitLab allows: all of it reads.
            assert!(
                variant != "full" || unreadable.is_empty(),
                "{what}: GitLab allows what is not read: {:?}",
                unreadable.paths()
            );
            if variant == "full" {
                for field in entity.fields {
                    let sent = instance.get(field.name).is_some_and(|v| !v.is_null());
                    let empty_list = matches!(field.ty, FieldType::List(_))
                        && instance[field.name].as_array().is_some_and(Vec::is_empty);
                    assert!(
                        !sent || empty_list || value.get(field.name).is_some(),
                        "{what}: `{}` was sent ({}) but not read",
                        field.name,
                        instance[field.name]
                    );
                }
            }
            strip_content_only(&mut value, entity);
            for (action, structured, schema) in results(entity, &value) {
                assert_valid(&schema, &structured, &format!("{what} as {action}"));
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} results checked");
}

//! Loads the sandbox's seed data, compiled into the binary from `seed/`.
//!
//! `collections.json` holds the sandbox's clock and URL and how the first collections
//! behave; `records/<name>.json` holds a collection's records as `{"collection": ...,
//! "records": [...]}`, and may carry the collection's own `spec` instead of an entry in
//! `collections.json`, so a new collection is one new file. build.rs lists every records
//! file.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

use super::store::{Spec, Store};

const COLLECTIONS: &str = include_str!("seed/collections.json");

// `RECORDS`: every `seed/records/*.json`, listed by build.rs.
include!(concat!(env!("OUT_DIR"), "/seed_records.rs"));

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Collections {
    external_url: String,
    now: DateTime<Utc>,
    collections: BTreeMap<String, Spec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Records {
    collection: String,
    /// How the collection behaves, when `collections.json` does not say.
    #[serde(default)]
    spec: Option<Spec>,
    records: Vec<Value>,
}

/// A fresh store holding the seed data. The data is compiled in and checked by tests, so
/// a malformed file is a bug in this build, not a runtime condition.
pub fn store() -> Store {
    let collections: Collections =
        serde_json::from_str(COLLECTIONS).expect("seed/collections.json is valid");
    let mut store = Store::new(
        collections.external_url,
        collections.now,
        collections.collections,
    );
    let files: Vec<(&str, Records)> = RECORDS
        .iter()
        .map(|(name, text)| {
            let records: Records = serde_json::from_str(text)
                .unwrap_or_else(|error| panic!("seed/records/{name}.json is invalid: {error}"));
            (*name, records)
        })
        .collect();
    // Every collection first, so a record may point at a collection declared later.
    for (name, records) in &files {
        if let Some(spec) = &records.spec {
            assert!(
                !store.has(&records.collection),
                "seed/records/{name}.json declares `{}`, which collections.json declares too",
                records.collection
            );
            store.add_collection(records.collection.clone(), spec.clone());
        }
    }
    for (name, records) in files {
        assert!(
            store.has(&records.collection),
            "seed/records/{name}.json names an unknown collection"
        );
        store.insert_seed(&records.collection, records.records);
    }
    store
}

#[cfg(test)]
mod tests {
    #[test]
    fn seed_loads() {
        let store = super::store();
        assert!(store.all("projects").len() >= 5);
        assert!(store.user_by_token("sandbox-token").is_some());
    }
}

//! The generator's fixture manifest as generated Rust (`tests/codegen/golden.rs`), compiled
//! here with every warning denied; `.ci/run` runs clippy on it with `-D warnings` too. The
//! tests run each fixture action's check and request, and decode and render a fixture
//! entity, so every generated item is used.
#![deny(warnings)]

// prettyplease wrote it; rustfmt would rewrite it and make it stale.
#[rustfmt::skip]
#[path = "../codegen/golden.rs"]
pub mod fixture;

use gitlab_mcp::catalog::{ParamEnum, Unreadable, conform};
use gitlab_mcp::output::Markdown;
use serde_json::json;

use fixture::enums::{ThingListState, ThingUpdateState, Type, WidgetState};
use fixture::types::{SHARE, THING, Thing};

#[test]
fn every_fixture_example_checks_into_its_request() {
    let targets: Vec<String> = fixture::ACTIONS
        .iter()
        .map(|action| {
            let plan = (action.plan)(action, action.example_args())
                .unwrap_or_else(|problems| panic!("{}: {}", action.id, problems.message()));
            format!("{} {}", plan.request.method, plan.request.target().unwrap())
        })
        .collect();
    assert_eq!(
        targets,
        [
            "GET /bookmarks?per_page=20",
            "GET /bookmarks/4",
            "POST /bookmarks",
            "POST /bookmarks/4/pin",
            "GET /bookmarks/shelves",
            "DELETE /bookmarks/4",
            "GET /projects/acme%2Fapp/things?type=2fa&state=opened&per_page=20",
            "GET /projects/acme%2Fapp/things/1",
            "PUT /projects/acme%2Fapp/things/1",
            "DELETE /projects/acme%2Fapp/things/1",
            "GET /projects/acme%2Fapp/shares",
            "GET /projects/acme%2Fapp/things/1/body",
            "GET /widgets",
            "POST /widgets",
        ]
    );
    assert_eq!(fixture::DOMAINS.len(), 3);
    let delete = fixture::ACTIONS
        .iter()
        .find(|a| a.id == "thing.delete")
        .unwrap();
    assert_eq!(
        (
            delete.requires.tier,
            delete.requires.role,
            delete.requires.admin
        ),
        (
            gitlab_mcp::catalog::Tier::Premium,
            Some(gitlab_mcp::catalog::Role::Maintainer),
            true
        )
    );
    assert_eq!(delete.scope(), gitlab_mcp::catalog::TokenScope::Api);
    let entities: Vec<&str> = fixture::ENTITIES.iter().map(|e| e.name).collect();
    assert_eq!(entities, ["Person", "Thing", "Share", "Bookmark"]);
    // No handler reaches `Bookmark`, so it is data only (no struct): decoding reads it
    // through its `Entity` description.
    let bookmark = conform(
        json!({"id": 4, "title": "Docs", "pinned": true, "extra": 1}),
        &fixture::types::BOOKMARK,
        &mut Unreadable::default(),
    )
    .unwrap();
    assert_eq!(bookmark, json!({"id": 4, "title": "Docs", "pinned": true}));
}

#[test]
fn odd_enum_values_become_variants_and_stay_values_on_the_wire() {
    assert_eq!(Type::VALUES, ["2fa", "self", "a-b", "created_by_me"]);
    assert_eq!(Type::V2fa.as_str(), "2fa");
    assert_eq!(Type::SelfValue.as_str(), "self");
    assert_eq!(Type::AB.as_str(), "a-b");
    assert_eq!(Type::CreatedByMe.as_str(), "created_by_me");
    // One name, several sets of values: qualified by domain, and by action within one.
    assert_eq!(ThingListState::VALUES, ["opened", "closed"]);
    assert_eq!(ThingUpdateState::VALUES, ["close", "reopen"]);
    assert_eq!(WidgetState::VALUES, ["on", "off"]);
}

#[test]
fn keyword_fields_decode_render_and_schema_alike() {
    let raw = json!({
        "iid": "3", "title": "Keywords", "type": "task", "ref": "main", "match": true,
        "async": "12.5", "loop": "2025-01-15", "owner": {"id": 1, "username": "ann"},
        "watchers": [{"id": 2, "username": "bob"}], "labels": ["x"], "body": "text",
        "undeclared": 1
    });
    let value = conform(raw, &THING, &mut Unreadable::default()).unwrap();
    let thing: Thing = serde_json::from_value(value.clone()).unwrap();
    assert_eq!((thing.iid, thing.r#type.as_deref()), (3, Some("task")));
    assert_eq!((thing.r#match, thing.r#async), (Some(true), Some(12.5)));
    assert_eq!(thing.r#loop.as_deref(), Some("2025-01-15"));
    assert_eq!(thing.owner.map(|o| o.username), Some("ann".to_owned()));
    assert_eq!(thing.watchers.len(), 1);
    assert_eq!(
        (thing.labels.len(), thing.body.as_deref()),
        (1, Some("text"))
    );
    assert!(thing.web_url.is_none() && thing.r#ref.is_some());

    let action = fixture::ACTIONS
        .iter()
        .find(|a| a.id == "thing.get")
        .unwrap();
    let mut markdown = Markdown::new();
    let args = action.example_args();
    gitlab_mcp::output::view::render(&action.view, &action.result, &args, &value, &mut markdown);
    let text = markdown.into_string();
    assert!(text.starts_with("## Thing #3: Keywords"), "{text}");
    for row in [
        "- **Type**: `task`",
        "- **Share**: 12.5%",
        "- **Due**: 15 Jan 2025",
        "- **Owner**: @ann",
        "- **Owner name**: `ann`",
        "### Body",
    ] {
        assert!(text.contains(row), "{row} in {text}");
    }
    let schema = action.output_schema();
    for field in ["type", "ref", "match", "async", "loop"] {
        assert!(
            schema["properties"].get(field).is_some(),
            "{field}: {schema}"
        );
    }
    assert!(
        schema["properties"].get("body").is_none(),
        "content-only: {schema}"
    );
}

#[test]
fn a_handler_gets_its_typed_params_and_output_type() {
    let action = fixture::ACTIONS
        .iter()
        .find(|a| a.id == "thing.window")
        .unwrap();
    assert_eq!(action.handler, Some("thing_window"));
    let plan = (action.plan)(action, action.example_args()).unwrap();
    let params = plan
        .params
        .downcast_ref::<fixture::thing::window::Params>()
        .unwrap();
    assert_eq!((params.thing_iid, params.lines), (1, 10));
    // A local parameter is never sent.
    assert_eq!(
        plan.request.target().unwrap(),
        "/projects/acme%2Fapp/things/1/body"
    );
    let output: fixture::thing::window::Output =
        serde_json::from_value(json!({"iid": 1, "title": "t"})).unwrap();
    assert_eq!(output.title, "t");
}

#[test]
fn map_entries_fit_their_item_type() {
    let value = conform(
        json!({"key": "Rust", "percent": 78}),
        &SHARE,
        &mut Unreadable::default(),
    )
    .unwrap();
    assert_eq!(value, json!({"key": "Rust", "percent": 78.0}));
}

#[test]
fn a_list_of_objects_is_checked_field_by_field_and_sent_under_gitlab_names() {
    let action = fixture::ACTIONS
        .iter()
        .find(|a| a.id == "widget.create")
        .unwrap();
    let plan = (action.plan)(
        action,
        json!({"name": "w", "links": [{"name": "Docs", "url": "https://x", "ref": "/docs"}]})
            .as_object()
            .cloned()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        serde_json::Value::Object(plan.request.json_body().unwrap().clone()),
        json!({"name": "w", "links": [{"name": "Docs", "url": "https://x", "link_type": "other", "direct_asset_path": "/docs"}]})
    );
    let problems = (action.plan)(
        action,
        json!({"name": "w", "links": [{"name": "ok", "url": "u"}, {"name": "x", "colour": 1, "link_type": "video"}]})
            .as_object()
            .cloned()
            .unwrap(),
    )
    .unwrap_err()
    .message();
    for part in [
        "`links`: item 2: `colour` is not a parameter of this object",
        "`link_type`: expected one of other, runbook, image, got \"video\"",
        "`url` is required: Where it points.",
        "(its fields: `name` (required, string)",
    ] {
        assert!(problems.contains(part), "{part} in {problems}");
    }
    let schema = action.input_schema();
    assert_eq!(
        schema["properties"]["links"]["items"]["required"],
        json!(["name", "url"])
    );
    assert_eq!(
        schema["properties"]["links"]["items"]["additionalProperties"],
        json!(false)
    );
}

/// A domain the real catalog lacks, declared in YAML alone (`tests/codegen/actions/
/// bookmark.yaml`: nouns, a synonym, an operation with its verbs), ranks first for everyday
/// requests when searched beside the real catalog, which keeps its own answers.
#[test]
fn a_new_domain_ranks_with_its_yaml_vocabulary_alone() {
    use gitlab_mcp::catalog::{self, Action, DomainInfo};
    use gitlab_mcp::search::{FindRequest, Index};

    let actions: Vec<&'static Action> = catalog::ACTIONS.iter().chain(fixture::ACTIONS).collect();
    let domains: Vec<&'static DomainInfo> =
        catalog::DOMAINS.iter().chain(fixture::DOMAINS).collect();
    let index = Index::build(
        actions.iter().copied(),
        &actions,
        &domains,
        &[&catalog::VOCABULARY, &fixture::VOCABULARY],
    );
    let top = |query: &str| {
        let found = index.find(&FindRequest {
            query: query.into(),
            limit: 5,
            explain: false,
        });
        found.hits.first().map_or("", |h| h.action.id)
    };
    for (query, expected) in [
        ("show my saved links", "bookmark.list"),
        ("list all favourites", "bookmark.list"),
        ("find the favorite about rust", "bookmark.list"),
        ("open bookmark 12", "bookmark.get"),
        ("save a new bookmark for the docs page", "bookmark.create"),
        ("pin bookmark 4", "bookmark.pin"),
        ("stick favourite 4 to the top", "bookmark.pin"),
        ("what's on my reading lists", "bookmark.shelf_list"),
        ("remove saved link 9", "bookmark.delete"),
        ("list open merge requests", "merge_request.list"),
        ("delete the feature/x branch", "branch.delete"),
        ("who am i", "user.current"),
    ] {
        assert_eq!(top(query), expected, "{query:?}");
    }
}

//! One action: its name and texts, its request (method and path, or a GraphQL operation),
//! pagination, result and resource, resolved with the rules of the sibling modules.

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;

use super::super::kinds::{Method, ParamType};
use super::super::model::{ActionDef, PaginationDef, ParamDef};
use super::super::vocabulary;
use super::names::{check_identifier, is_identifier};
use super::placeholders::check_placeholders;
use super::{
    Action, EntityType, Hint, Output, Scope, Segment, graphql, hints, normalize_space, params,
    safety, views,
};

const MAX_DESCRIPTION: usize = 420;
const MAX_TITLE: usize = 60;

pub(super) fn resolve(
    scope: &mut Scope<'_>,
    domain: &str,
    name: &str,
    def: &ActionDef,
    shared_params: &IndexMap<String, ParamDef>,
    types: &[EntityType],
    operation_words: &BTreeMap<String, BTreeSet<String>>,
) -> Option<Action> {
    let errors_before = scope.diagnostics.len();
    if let Err(problem) = check_identifier(name) {
        scope.error("", format!("the action name: {problem}"));
    }
    if def.title.len() > MAX_TITLE {
        scope.error(
            "title",
            format!("{} characters; keep it under {MAX_TITLE}", def.title.len()),
        );
    }
    let description = normalize_space(&def.description);
    if description.len() > MAX_DESCRIPTION {
        scope.error(
            "description",
            format!(
                "{} characters; keep it under {MAX_DESCRIPTION}",
                description.len()
            ),
        );
    }
    safety::check(scope, def);
    let method = def.method();
    if let Some(handler) = &def.handler
        && !is_identifier(handler)
    {
        scope.error(
            "handler",
            format!("`{handler}` is not a Rust function name"),
        );
    }

    let (path, graphql) = match &def.graphql {
        Some(graphql) => {
            for (key, present) in [
                ("method", def.method.is_some()),
                ("path", def.path.is_some()),
            ] {
                if present {
                    scope.error(
                        key,
                        "a GraphQL action is sent as `POST /api/graphql`; leave it out",
                    );
                }
            }
            ("/graphql".to_owned(), Some(graphql))
        }
        None => {
            if def.method.is_none() {
                scope.error("method", "missing (or declare a `graphql` operation)");
            }
            match &def.path {
                Some(path) => (path.clone(), None),
                None => {
                    scope.error("path", "missing (or declare a `graphql` operation)");
                    ("/".to_owned(), None)
                }
            }
        }
    };
    let segments = match graphql {
        Some(_) => vec![Segment::Literal],
        None => params::parse_path(scope, &path),
    };
    let paginated = def.pagination.is_some();
    let cursor_paged = def.pagination == Some(PaginationDef::Cursor);
    match (def.pagination, graphql.is_some()) {
        (Some(PaginationDef::Offset), true) => scope.error(
            "pagination",
            "a GraphQL list pages by cursor: `pagination: cursor`",
        ),
        (Some(PaginationDef::Cursor), false) => scope.error(
            "pagination",
            "`cursor` pages a GraphQL connection; a REST list uses `offset`",
        ),
        _ => {}
    }
    if paginated && def.output.list.is_none() {
        scope.error("pagination", "only a list result is paged");
    }
    let params = params::resolve(scope, def, shared_params, &segments);
    let graphql = graphql.map(|graphql| graphql::resolve(scope, def, graphql, &params));
    let output = output(scope, def, types);
    check_shown_once(scope, &output, method, types);
    let view = views::resolve_view(scope, def, &output, types);

    // Placeholders are filled from the call's parameters, so they may only name required,
    // scalar ones: an optional parameter could be absent when the text is written.
    let param_names: BTreeSet<&str> = params
        .iter()
        .filter(|p| p.required && !matches!(p.ty, ParamType::StringList | ParamType::IntegerList))
        .map(|p| p.name.as_str())
        .collect();
    for (index, hint) in def.hints.iter().enumerate() {
        check_placeholders(
            scope,
            &format!("hints.{index}.text"),
            &hint.text,
            &param_names,
        );
    }
    for (key, text) in [
        ("not_found", def.not_found.as_deref()),
        (
            "markdown.heading",
            def.markdown.as_ref().and_then(|m| m.heading.as_deref()),
        ),
        ("output.message", def.output.message.as_deref()),
        ("safety.consequence", def.safety.consequence.as_deref()),
    ] {
        if let Some(text) = text {
            check_placeholders(scope, key, text, &param_names);
        }
    }
    if def.not_found.is_some() && !matches!(output, Output::Single { .. }) {
        scope.error(
            "not_found",
            "only an action with a single-entity result can report not found",
        );
    }

    let resource = def.resource.as_ref().map(|resource| {
        if !resource.uri.starts_with("gitlab://") {
            scope.error("resource.uri", "must start with `gitlab://`");
        }
        check_placeholders(scope, "resource.uri", &resource.uri, &param_names);
        if !matches!(output, Output::Single { .. }) {
            scope.error(
                "resource",
                "only an action with a single-entity result has a resource",
            );
        }
        (resource.policy, resource.uri.clone())
    });

    let hints = def
        .hints
        .iter()
        .enumerate()
        .map(|(index, hint)| Hint {
            action: hint.action.clone(),
            text: normalize_space(&hint.text),
            conditions: hints::conditions(scope, index, hint, &output, types),
        })
        .collect();

    let example = params::example(scope, def, &params);

    let requires = safety::requires(scope, def);

    let vocabulary = vocabulary::action(name, def, operation_words, |key, message| {
        scope.error(key, message)
    });

    (scope.diagnostics.len() == errors_before).then(|| Action {
        id: scope.id.clone(),
        domain: domain.to_owned(),
        name: name.to_owned(),
        title: def.title.clone(),
        description,
        tags: def.tags.clone(),
        aliases: def.aliases.clone(),
        method,
        path,
        segments,
        handler: def.handler.clone(),
        graphql,
        params,
        paginated,
        cursor_paged,
        output,
        view,
        safety: def.safety.clone(),
        resource,
        not_found: def.not_found.as_deref().map(normalize_space),
        hints,
        example,
        requires,
        vocabulary,
    })
}

/// A secret shown once (`secret: shown_once`) is the answer of the write that creates it,
/// one entity whose top-level field the dispatcher finds: never a read, a list's items or
/// a nested record.
fn check_shown_once(scope: &mut Scope<'_>, output: &Output, method: Method, types: &[EntityType]) {
    let (ty, single) = match output {
        Output::Single { ty } => (ty, true),
        Output::List { ty, .. } => (ty, false),
        Output::Message { .. } => return,
    };
    let Some(entity) = types.iter().find(|t| &t.name == ty) else {
        return;
    };
    if !entity.fields.iter().any(|f| f.shown_once) {
        return;
    }
    if !single {
        scope.error(
            "output",
            format!("`{ty}` has a `secret: shown_once` field, which only the single result of the write that creates it can carry, not a list"),
        );
    } else if method == Method::Get {
        scope.error(
            "output",
            format!("`{ty}` has a `secret: shown_once` field: GitLab shows such a secret only in the answer of the write that creates it, never to a read"),
        );
    }
}

/// The result: one entity, a list (perhaps read from a map), or a message.
fn output(scope: &mut Scope<'_>, def: &ActionDef, types: &[EntityType]) -> Output {
    let output = &def.output;
    let exists = |name: &str| types.iter().any(|t| t.name == name);
    match (&output.ty, &output.list, &output.message) {
        (Some(ty), list, None) => {
            if !exists(ty) && !scope.unreadable.types.contains(ty) {
                let names = types.iter().map(|t| t.name.as_str());
                scope.error(
                    "output.type",
                    format!(
                        "no entity type `{ty}`{} (declare it under `types:` in shared.yaml or this file)",
                        super::super::suggest::did_you_mean(ty, names)
                    ),
                );
            }
            match list {
                Some(key) => {
                    if !is_identifier(key) {
                        scope.error("output.list", "the list key is lower_snake_case");
                    }
                    let from_map = output.from.as_ref().map(|from| {
                        let entity = types.iter().find(|t| &t.name == ty);
                        for field in [&from.map.key, &from.map.value] {
                            if entity.is_some_and(|e| e.field(field).is_none()) {
                                scope.error(
                                    "output.from.map",
                                    format!("`{ty}` has no field `{field}`"),
                                );
                            }
                        }
                        (from.map.key.clone(), from.map.value.clone())
                    });
                    Output::List {
                        ty: ty.clone(),
                        key: key.clone(),
                        from_map,
                    }
                }
                None => {
                    if output.from.is_some() {
                        scope.error("output.from", "only a list result can be read from a map");
                    }
                    Output::Single { ty: ty.clone() }
                }
            }
        }
        (None, None, Some(text)) => Output::Message {
            text: normalize_space(text),
        },
        _ => {
            scope.error(
                "output",
                "give either `type` (with `list` for a collection) or `message`",
            );
            Output::Message {
                text: String::new(),
            }
        }
    }
}

//! Parameters: the path's placeholders, shared definitions inherited, types, locations,
//! enums, defaults, bounds, aliases, an `[object]` parameter's fields, and the example
//! every action carries.

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;

use super::super::kinds::{Location, Method, ParamType};
use super::super::model::{ActionDef, PaginationDef, ParamDef};
use super::super::suggest;
use super::names::{check_identifier, variant_name};
use super::{Param, Scope, Segment, normalize_space};

/// Checks a value written in the manifest (an example, a default) against the type.
impl ParamType {
    pub(super) fn accepts(self, value: &serde_json::Value) -> bool {
        use serde_json::Value;
        match (self, value) {
            (Self::String, Value::String(_)) => true,
            (Self::Integer, Value::Number(n)) => n.is_i64(),
            (Self::Number, Value::Number(_)) => true,
            (Self::Boolean, Value::Bool(_)) => true,
            (Self::PathOrId, Value::String(_)) => true,
            (Self::PathOrId, Value::Number(n)) => n.is_i64(),
            (Self::StringList, Value::Array(items)) => items.iter().all(Value::is_string),
            (Self::StringMap, Value::Object(entries)) => entries.values().all(Value::is_string),
            (Self::IntegerList, Value::Array(items)) => items.iter().all(|item| item.is_i64()),
            (Self::ObjectList, Value::Array(items)) => items.iter().all(Value::is_object),
            _ => false,
        }
    }
}

pub(super) fn parse_path(scope: &mut Scope<'_>, path: &str) -> Vec<Segment> {
    let Some(rest) = path.strip_prefix('/') else {
        scope.error("path", "must start with `/` (relative to /api/v4)");
        return Vec::new();
    };
    let mut segments = Vec::new();
    for part in rest.split('/') {
        if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            segments.push(Segment::Param(name.to_owned()));
        } else if part.is_empty() || part.contains(['{', '}', '?', '#', ':']) {
            scope.error(
                "path",
                format!("bad segment `{part}`: use `{{param}}` placeholders and plain literals"),
            );
        } else {
            segments.push(Segment::Literal);
        }
    }
    segments
}

pub(super) fn resolve(
    scope: &mut Scope<'_>,
    def: &ActionDef,
    shared: &IndexMap<String, ParamDef>,
    segments: &[Segment],
) -> Vec<Param> {
    let path_params: Vec<&str> = segments
        .iter()
        .filter_map(|s| match s {
            Segment::Param(name) => Some(name.as_str()),
            Segment::Literal => None,
        })
        .collect();
    let mut defs: Vec<(String, ParamDef)> = def
        .params
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    match def.pagination {
        Some(PaginationDef::Offset) => {
            for name in ["page", "per_page"] {
                if !def.params.contains_key(name) {
                    defs.push((name.to_owned(), ParamDef::default()));
                }
            }
        }
        // A connection's page: `first` items `after` the cursor the last page ended at.
        Some(PaginationDef::Cursor) => {
            if !def.params.contains_key("per_page") {
                let per_page = ParamDef {
                    api_name: Some("first".to_owned()),
                    ..ParamDef::default()
                };
                defs.push(("per_page".to_owned(), per_page));
            }
            if !def.params.contains_key("cursor") {
                let cursor = ParamDef {
                    ty: Some("string".to_owned()),
                    description: Some(
                        "Where the page starts: the `next_cursor` of the previous page.".to_owned(),
                    ),
                    aliases: Some(vec!["after".to_owned()]),
                    api_name: Some("after".to_owned()),
                    ..ParamDef::default()
                };
                defs.push(("cursor".to_owned(), cursor));
            }
        }
        None => {}
    }

    let mut params = Vec::new();
    let mut seen_names = BTreeSet::new();
    for (name, local) in defs {
        let key = format!("params.{name}");
        if let Err(problem) = check_identifier(&name) {
            scope.error(&key, problem);
            continue;
        }
        let merged = match (local.ty.is_none(), shared.get(&name)) {
            (true, Some(base)) => ParamDef {
                ty: base.ty.clone(),
                required: local.required.or(base.required),
                description: local
                    .description
                    .clone()
                    .or_else(|| base.description.clone()),
                values: local.values.clone().or_else(|| base.values.clone()),
                default: local.default.clone().or_else(|| base.default.clone()),
                minimum: local.minimum.or(base.minimum),
                maximum: local.maximum.or(base.maximum),
                location: local.location.or(base.location),
                aliases: local.aliases.clone().or_else(|| base.aliases.clone()),
                api_name: local.api_name.clone().or_else(|| base.api_name.clone()),
                items: local.items.clone().or_else(|| base.items.clone()),
                secret: local.secret.or(base.secret),
            },
            (true, None) => {
                scope.error(
                    &format!("{key}.type"),
                    "missing, and `shared.yaml` defines no parameter of this name",
                );
                continue;
            }
            (false, _) => local,
        };
        let written = merged.ty.clone().unwrap_or_default();
        let Some(ty) = ParamType::parse(&written) else {
            let names = ParamType::ALL.iter().map(|(_, name)| *name);
            scope.error(
                &format!("{key}.type"),
                suggest::unknown("type", &written, names),
            );
            continue;
        };
        let in_path = path_params.contains(&name.as_str());
        let location = match (merged.location, in_path) {
            (Some(Location::Path), false) => {
                scope.error(&format!("{key}.in"), "the path has no such placeholder");
                continue;
            }
            (Some(location), true) if location != Location::Path => {
                scope.error(&format!("{key}.in"), "this parameter is a path placeholder");
                continue;
            }
            (_, true) => Location::Path,
            (Some(location), false) => location,
            (None, false) if def.graphql.is_some() => Location::Body,
            (None, false) => match def.method() {
                Method::Get | Method::Delete => Location::Query,
                _ => Location::Body,
            },
        };
        if def.graphql.is_some() && !matches!(location, Location::Body | Location::Local) {
            scope.error(
                &format!("{key}.in"),
                "a GraphQL action's parameters are its variables (`body`) or `local`",
            );
            continue;
        }
        let required = merged.required.unwrap_or(false) || in_path;
        if in_path && merged.required == Some(false) {
            scope.error(
                &format!("{key}.required"),
                "a path parameter is always required",
            );
        }
        if in_path
            && matches!(
                ty,
                ParamType::StringList
                    | ParamType::IntegerList
                    | ParamType::Boolean
                    | ParamType::StringMap
            )
        {
            scope.error(
                &format!("{key}.type"),
                "a path parameter is a string, an integer or `path_or_id`",
            );
        }
        let items = match (ty, &merged.items) {
            (ParamType::ObjectList, Some(items)) => resolve_items(scope, &key, items),
            (ParamType::ObjectList, None) => {
                scope.error(
                    &format!("{key}.items"),
                    "an `[object]` parameter lists its objects' fields in `items`",
                );
                continue;
            }
            (_, Some(_)) => {
                scope.error(
                    &format!("{key}.items"),
                    "only an `[object]` parameter has `items`",
                );
                continue;
            }
            (_, None) => Vec::new(),
        };
        if ty == ParamType::ObjectList && location != Location::Body {
            scope.error(
                &format!("{key}.in"),
                "a list of objects is sent in the body",
            );
        }
        if ty == ParamType::StringMap && location != Location::Body {
            scope.error(
                &format!("{key}.in"),
                "a map of strings is sent in the body (GitLab reads it as a JSON object)",
            );
        }
        let has_handler = def.handler.is_some();
        if let Some(param) = checked_param(
            scope,
            &key,
            name,
            &merged,
            ty,
            location,
            required,
            has_handler,
            &mut seen_names,
        ) {
            params.push(Param { items, ..param });
        }
    }
    for placeholder in path_params {
        if !params.iter().any(|p| p.name == placeholder) {
            scope.error(
                "path",
                format!("the placeholder `{{{placeholder}}}` has no parameter"),
            );
        }
    }
    params
}

/// The checks every parameter passes, an action's or an object's field.
#[allow(
    clippy::too_many_arguments,
    reason = "one call per parameter, each argument named"
)]
fn checked_param(
    scope: &mut Scope<'_>,
    key: &str,
    name: String,
    merged: &ParamDef,
    ty: ParamType,
    location: Location,
    required: bool,
    has_handler: bool,
    seen_names: &mut BTreeSet<String>,
) -> Option<Param> {
    let Some(description) = merged
        .description
        .as_deref()
        .map(normalize_space)
        .filter(|d| !d.is_empty())
    else {
        scope.error(&format!("{key}.description"), "missing");
        return None;
    };
    let values = merged.values.clone().unwrap_or_default();
    let mut variants = BTreeMap::new();
    for value in &values {
        if let Some(other) = variants.insert(variant_name(value), value) {
            scope.error(
                &format!("{key}.enum"),
                format!("`{other}` and `{value}` would be the same Rust variant"),
            );
        }
    }
    if !values.is_empty() && ty != ParamType::String {
        scope.error(&format!("{key}.enum"), "only string parameters take `enum`");
    }
    let default = match &merged.default {
        None => None,
        Some(value) => match value {
            value
                if ty.accepts(value)
                    && (values.is_empty() || values.iter().any(|v| value == v)) =>
            {
                Some(value.clone())
            }
            _ => {
                scope.error(
                    &format!("{key}.default"),
                    "does not match the parameter's type or `enum`",
                );
                None
            }
        },
    };
    if location == Location::Local && !has_handler {
        scope.error(
            &format!("{key}.in"),
            "`local` parameters are read by a `handler`, and this action has none",
        );
    }
    if default.is_some() && required {
        scope.error(
            &format!("{key}.default"),
            "a required parameter has no default",
        );
    }
    if (merged.minimum.is_some() || merged.maximum.is_some())
        && !matches!(ty, ParamType::Integer | ParamType::Number)
    {
        scope.error(&format!("{key}.minimum"), "bounds apply to numbers only");
    }
    if let (Some(min), Some(max)) = (merged.minimum, merged.maximum)
        && min > max
    {
        scope.error(&format!("{key}.maximum"), "is below `minimum`");
    }
    let aliases = merged.aliases.clone().unwrap_or_default();
    for alias in &aliases {
        if !seen_names.insert(alias.clone()) {
            scope.error(
                &format!("{key}.aliases"),
                format!("`{alias}` is already a name or alias of another parameter"),
            );
        }
    }
    if !seen_names.insert(name.clone()) {
        scope.error(key, "is already an alias of another parameter");
    }
    Some(Param {
        api_name: merged.api_name.clone().unwrap_or_else(|| name.clone()),
        name,
        ty,
        required,
        description,
        values,
        default,
        minimum: merged.minimum,
        maximum: merged.maximum,
        location,
        aliases,
        enum_type: None,
        items: Vec::new(),
        secret: merged.secret.unwrap_or(false),
    })
}

/// The fields of each object of an `[object]` parameter: scalars and lists of scalars,
/// sent in the body under their own names.
fn resolve_items(
    scope: &mut Scope<'_>,
    parent: &str,
    items: &IndexMap<String, ParamDef>,
) -> Vec<Param> {
    let mut fields = Vec::new();
    let mut seen_names = BTreeSet::new();
    for (name, def) in items {
        let key = format!("{parent}.items.{name}");
        if let Err(problem) = check_identifier(name) {
            scope.error(&key, problem);
            continue;
        }
        let written = def.ty.clone().unwrap_or_default();
        let ty = match ParamType::parse(&written) {
            Some(ParamType::ObjectList | ParamType::PathOrId | ParamType::StringMap) | None => {
                scope.error(
                    &format!("{key}.type"),
                    format!("`{written}`: an object's field is a string, integer, number, boolean, [string] or [integer]"),
                );
                continue;
            }
            Some(ty) => ty,
        };
        if def.location.is_some() || def.aliases.is_some() {
            scope.error(&key, "an object's field takes no `in` or `aliases`");
        }
        let required = def.required.unwrap_or(false);
        if let Some(field) = checked_param(
            scope,
            &key,
            name.clone(),
            def,
            ty,
            Location::Body,
            required,
            false,
            &mut seen_names,
        ) {
            fields.push(field);
        }
    }
    if fields.is_empty() {
        scope.error(&format!("{parent}.items"), "declares no valid field");
    }
    fields
}

/// The action's `example`: every key a parameter, every value of its type (and `enum`),
/// every required parameter present.
pub(super) fn example(
    scope: &mut Scope<'_>,
    def: &ActionDef,
    params: &[Param],
) -> serde_json::Value {
    let example = serde_json::Value::Object(
        def.example
            .iter()
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
    );
    if let serde_json::Value::Object(example) = &example {
        for (key, value) in example {
            match params.iter().find(|p| &p.name == key) {
                None => scope.error(&format!("example.{key}"), "not a parameter of this action"),
                Some(param) if !param.ty.accepts(value) => scope.error(
                    &format!("example.{key}"),
                    "does not match the parameter's type",
                ),
                Some(param)
                    if !param.values.is_empty() && !param.values.iter().any(|v| value == v) =>
                {
                    scope.error(
                        &format!("example.{key}"),
                        "is not one of the parameter's `enum` values",
                    )
                }
                Some(_) => {}
            }
        }
        for param in params.iter().filter(|p| p.required) {
            if !example.contains_key(&param.name) {
                scope.error(
                    "example",
                    format!("the required parameter `{}` is missing", param.name),
                );
            }
        }
    }
    example
}

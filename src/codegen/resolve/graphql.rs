//! A GraphQL action's operation against its parameters.

use super::super::kinds::Location;
use super::super::model::{ActionDef, GraphqlDef};
use super::{Graphql, Param, Scope};

/// A GraphQL operation checked against the action: the document declares the operation
/// by name, every parameter sent is one of its variables (the first part of a dotted
/// `api_name`: `input.title` fills `$input`), every variable is filled by a parameter
/// (or the action's handler), and the result is a dotted path.
pub(super) fn resolve(
    scope: &mut Scope<'_>,
    def: &ActionDef,
    graphql: &GraphqlDef,
    params: &[Param],
) -> Graphql {
    let document = graphql.query.trim().to_owned();
    let mutation = graphql.is_mutation();
    if !is_identifier_like(&graphql.operation) {
        scope.error(
            "graphql.operation",
            format!("`{}` is not a GraphQL operation name", graphql.operation),
        );
    }
    let keyword = if mutation { "mutation" } else { "query" };
    let declared_name = document
        .strip_prefix(keyword)
        .map(|rest| {
            rest.trim_start()
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default()
        })
        .unwrap_or_default();
    if !document.starts_with("query") && !document.starts_with("mutation") {
        scope.error(
            "graphql.query",
            "must start with `query <operation>` or `mutation <operation>`",
        );
    } else if declared_name != graphql.operation {
        scope.error(
            "graphql.query",
            format!(
                "declares the operation `{declared_name}`, but `graphql.operation` is `{}`",
                graphql.operation
            ),
        );
    }
    let variables = declared_variables(&document);
    for param in params.iter().filter(|p| p.location == Location::Body) {
        let variable = param.api_name.split('.').next().unwrap_or_default();
        if !variables.iter().any(|v| v == variable) {
            scope.error(
                &format!("params.{}", param.name),
                format!(
                    "is sent as the variable `${variable}`, which `graphql.query` does not declare"
                ),
            );
        }
    }
    if def.handler.is_none() {
        for variable in &variables {
            let filled = params.iter().any(|p| {
                p.location == Location::Body
                    && p.api_name.split('.').next() == Some(variable.as_str())
            });
            if !filled {
                scope.error(
                    "graphql.query",
                    format!("the variable `${variable}` has no parameter (set `api_name: {variable}` on one)"),
                );
            }
        }
    }
    if graphql.result.is_empty() || !graphql.result.split('.').all(is_identifier_like) {
        scope.error(
            "graphql.result",
            "the dotted path of the result under `data` (`namespace.workItems`)",
        );
    }
    Graphql {
        operation: graphql.operation.clone(),
        document,
        result: graphql.result.clone(),
        mutation,
    }
}

/// A GraphQL name: letters, digits and `_`, not starting with a digit.
fn is_identifier_like(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The variables an operation declares: each `$name` before the first `{`.
fn declared_variables(document: &str) -> Vec<String> {
    let header = document.split('{').next().unwrap_or_default();
    header
        .split('$')
        .skip(1)
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

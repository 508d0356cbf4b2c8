//! `{param}` placeholders in an action's texts: each names a required, single-valued
//! parameter, so the text can always be filled.

use std::collections::BTreeSet;

use super::Scope;

/// Names inside `{...}` in a text.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        found.push(rest[start + 1..start + len].to_owned());
        rest = &rest[start + len + 1..];
    }
    found
}

pub(super) fn check_placeholders(
    scope: &mut Scope<'_>,
    key: &str,
    text: &str,
    params: &BTreeSet<&str>,
) {
    for name in placeholders(text) {
        if !params.contains(name.as_str()) {
            scope.error(
                key,
                format!("`{{{name}}}` is not a required parameter of this action"),
            );
        }
    }
}

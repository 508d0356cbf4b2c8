//! Fills the catalog's templates (headings, hints, not-found texts, messages, resource
//! URIs) from a call's normalised arguments: the one place a `{param}` is replaced.

use serde_json::Value;

use super::Args;
use crate::gitlab::encode_component;

/// `Merge requests in {project_id}` → `Merge requests in acme/api`.
pub fn fill(template: &str, args: &Args) -> String {
    crate::text::fill_placeholders(template, |name| arg_text(args, name))
}

/// A `gitlab://` URI template, by RFC 6570 simple expansion: every character outside
/// `A-Z a-z 0-9 - . _ ~` of a value is percent-encoded.
pub fn fill_uri(template: &str, args: &Args) -> String {
    crate::text::fill_placeholders(template, |name| {
        arg_text(args, name).map(|text| encode_component(&text))
    })
}

/// An argument's value as text, as placeholders show it (a string without its quotes).
pub fn arg_text(args: &Args, name: &str) -> Option<String> {
    Some(match args.get(name)? {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fills_plain_and_rfc6570_simple() {
        let args = json!({"project_id": "group/project", "label_id": "priority::high", "merge_request_iid": 12});
        let args = args.as_object().unwrap();
        assert_eq!(
            fill_uri("gitlab://project/{project_id}/mr/{merge_request_iid}", args),
            "gitlab://project/group%2Fproject/mr/12"
        );
        assert_eq!(fill_uri("{label_id}", args), "priority%3A%3Ahigh");
        assert_eq!(fill("in {project_id}", args), "in group/project");
    }
}

//! Reading a GraphQL answer. GitLab answers a GraphQL request with 200 even when it
//! failed: the failure is an `errors` array beside (or instead of) `data`, and a mutation's
//! refusal is an `errors` list of sentences inside its payload. Either one becomes a
//! `GitlabError` here, so a GraphQL failure is never read as a success.

use serde_json::Value;

use super::client::Response;
use super::error::{ErrorKind, GitlabError};

/// The value at `result` (a dotted path under `data`: `namespace.workItems`), or `None`
/// when GitLab answered `null` there (nothing found, or nothing this token may see).
pub fn result(response: &Response, result: &str) -> Result<Option<Value>, GitlabError> {
    let answer = response.value()?;
    if let Some(errors) = answer.get("errors").and_then(Value::as_array) {
        let messages: Vec<String> = errors
            .iter()
            .map(|error| {
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("an unnamed error")
                    .to_owned()
            })
            .collect();
        if !messages.is_empty() {
            return Err(refusal(&messages));
        }
    }
    // Nulls are pruned as the answer is read: `{"data": {"namespace": null}}` arrives as
    // `{}`, which is nothing found.
    let Some(mut current) = answer.get("data") else {
        return Ok(None);
    };
    for part in result.split('.').filter(|part| !part.is_empty()) {
        // A mutation's payload lists what it refused in `errors` (sentences).
        if let Some(errors) = current.get("errors").and_then(Value::as_array) {
            let messages: Vec<String> = errors
                .iter()
                .filter_map(|e| e.as_str().map(str::to_owned))
                .collect();
            if !messages.is_empty() {
                return Err(refusal(&messages));
            }
        }
        match current.get(part) {
            Some(next) => current = next,
            None => return Ok(None),
        }
    }
    Ok(Some(current.clone()))
}

/// GitLab's GraphQL refusals, classified by what they say: a resource it will not show
/// is "not found", anything else is a request to fix.
fn refusal(messages: &[String]) -> GitlabError {
    let text = messages.join("; ");
    let lower = text.to_lowercase();
    let kind = if lower.contains("does not exist or you don't have permission") {
        ErrorKind::NotFound
    } else if lower.contains("rate limit") {
        ErrorKind::RateLimited
    } else {
        ErrorKind::Invalid
    };
    GitlabError::new(kind, super::error::one_line(&text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gitlab::Pagination;

    fn response(body: &str) -> Response {
        Response {
            status: 200,
            pagination: Pagination::default(),
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn reads_the_result_path() {
        let answer = response(r#"{"data": {"namespace": {"workItems": {"count": 2}}}}"#);
        let value = result(&answer, "namespace.workItems").unwrap().unwrap();
        assert_eq!(value["count"], 2);
    }

    #[test]
    fn a_null_result_is_nothing_found() {
        let answer = response(r#"{"data": {"namespace": null}}"#);
        assert_eq!(result(&answer, "namespace.workItem").unwrap(), None);
        let answer = response(r#"{"data": {"namespace": {"workItem": null}}}"#);
        assert_eq!(result(&answer, "namespace.workItem").unwrap(), None);
    }

    #[test]
    fn an_errors_array_is_an_error_never_a_success() {
        let answer = response(
            r#"{"data": null, "errors": [{"message": "Field 'nope' doesn't exist on type 'Query'"}]}"#,
        );
        let error = result(&answer, "namespace").unwrap_err();
        assert_eq!(error.kind, ErrorKind::Invalid);
        assert!(error.explain().contains("Field 'nope' doesn't exist"));
    }

    #[test]
    fn a_mutation_refusal_is_an_error() {
        let answer = response(
            r#"{"data": {"workItemCreate": {"workItem": null, "errors": ["Title can't be blank"]}}}"#,
        );
        let error = result(&answer, "workItemCreate.workItem").unwrap_err();
        assert!(error.explain().contains("Title can't be blank"));
    }

    #[test]
    fn a_hidden_resource_is_not_found() {
        let answer = response(
            r#"{"errors": [{"message": "The resource that you are attempting to access does not exist or you don't have permission to perform this action"}]}"#,
        );
        assert!(
            result(&answer, "workItemUpdate")
                .unwrap_err()
                .is_not_found()
        );
    }
}

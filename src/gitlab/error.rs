//! Failures talking to GitLab, classified so each becomes one clear, repairable sentence.
//!
//! GitLab's own error text is kept only as a short, single-line quote (it is often the
//! useful part: "Branch already exists"), never as raw HTML, and never with the token.

use std::fmt;

/// What went wrong, as far as the caller can act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// 401: the token is missing, expired or revoked.
    Unauthorized,
    /// 403: the token is valid but may not do this.
    Forbidden,
    /// 404: the thing does not exist or is not visible to this token.
    NotFound,
    /// 405/406/409: not allowed in the current state (merging a closed MR, an existing branch).
    Conflict,
    /// 400/422: GitLab rejected the values.
    Invalid,
    /// 429: too many requests.
    RateLimited,
    /// 5xx: GitLab failed.
    Server,
    /// The request never got an answer (connection refused, reset, timeout).
    Network,
    /// GitLab answered with something we cannot read.
    BadResponse,
    /// A parameter value would change the shape of the URL; nothing was sent.
    UnsafePath,
}

#[derive(Debug, Clone)]
pub struct GitlabError {
    pub kind: ErrorKind,
    pub status: Option<u16>,
    /// GitLab's message, trimmed to one short line; empty when it said nothing useful.
    pub detail: String,
    pub retry_after: Option<u64>,
}

const MAX_DETAIL: usize = 300;

impl GitlabError {
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            status: None,
            detail: detail.into(),
            retry_after: None,
        }
    }

    /// Classifies an HTTP error response from its status and body.
    pub fn from_status(status: u16, body: &[u8], retry_after: Option<u64>) -> Self {
        let kind = match status {
            401 => ErrorKind::Unauthorized,
            403 => ErrorKind::Forbidden,
            404 => ErrorKind::NotFound,
            405 | 406 | 409 => ErrorKind::Conflict,
            429 => ErrorKind::RateLimited,
            500..=599 => ErrorKind::Server,
            _ => ErrorKind::Invalid,
        };
        Self {
            kind,
            status: Some(status),
            detail: detail_from_body(body),
            retry_after,
        }
    }

    pub fn is_not_found(&self) -> bool {
        self.kind == ErrorKind::NotFound
    }

    /// Whether repeating the same request later may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self.kind, ErrorKind::RateLimited | ErrorKind::Network)
            || matches!(self.status, Some(502..=504))
    }

    /// One sentence for the model: what happened and what to do about it.
    pub fn explain(&self) -> String {
        let status = self.status.map(|s| format!(" ({s})")).unwrap_or_default();
        let said = if self.detail.is_empty() {
            String::new()
        } else {
            format!(" GitLab said: \"{}\".", self.detail)
        };
        match self.kind {
            ErrorKind::Unauthorized => format!(
                "GitLab rejected the token{status}. Check that GITLAB_TOKEN is a valid, unexpired personal access token with the `api` scope (or `read_api` for reading)."
            ),
            ErrorKind::Forbidden => format!(
                "The token is not allowed to do this{status}.{said} Ask a maintainer for access, or use a token with more permissions."
            ),
            ErrorKind::NotFound => format!(
                "GitLab found nothing there{status}.{said} Check the ids and paths (paths are case-sensitive); private projects also answer 404 to tokens without access."
            ),
            ErrorKind::Conflict => format!(
                "GitLab refused this in the current state{status}.{said} Read the current state first (for example with the matching `get` action), then retry."
            ),
            ErrorKind::Invalid => {
                format!("GitLab rejected the request{status}.{said} Fix the parameters and retry.")
            }
            ErrorKind::RateLimited => {
                let wait = self
                    .retry_after
                    .map(|s| format!(" Wait {s} s, then retry."))
                    .unwrap_or_else(|| " Wait a little, then retry.".into());
                format!("GitLab is rate limiting requests{status}.{wait}")
            }
            ErrorKind::Server => format!(
                "GitLab failed with a server error{status}.{said} Retry later; the request may or may not have taken effect."
            ),
            ErrorKind::Network => format!(
                "Could not reach GitLab: {}. Check GITLAB_URL and the network, then retry.",
                self.detail
            ),
            ErrorKind::BadResponse => format!(
                "GitLab answered with something unexpected: {}.",
                self.detail
            ),
            ErrorKind::UnsafePath => format!(
                "The value {} cannot be used in a URL path (empty, `.` or `..`). Nothing was sent; pass the real name.",
                self.detail
            ),
        }
    }
}

impl fmt::Display for GitlabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.explain())
    }
}

impl std::error::Error for GitlabError {}

/// GitLab answers errors as `{"message": ...}` or `{"error": ...}`; `message` may be a
/// string, a list, or an object of field → messages (`{"name": ["has already been taken"]}`).
fn detail_from_body(body: &[u8]) -> String {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
        return String::new();
    };
    let message = value
        .get("message")
        .or_else(|| value.get("error"))
        .map(flatten)
        .unwrap_or_default();
    one_line(&message)
}

fn flatten(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(flatten).collect::<Vec<_>>().join("; "),
        Value::Object(fields) => fields
            .iter()
            .map(|(field, messages)| format!("{field} {}", flatten(messages)))
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    }
}

/// Collapses whitespace, drops anything that looks like markup, and caps the length.
fn one_line(text: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for ch in text.chars() {
        match ch {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            c if c.is_whitespace() => {
                if !out.ends_with(' ') && !out.is_empty() {
                    out.push(' ');
                }
            }
            '"' => out.push('\''),
            c => out.push(c),
        }
    }
    let out = out.trim().to_owned();
    if out.chars().count() > MAX_DETAIL {
        let cut: String = out.chars().take(MAX_DETAIL).collect();
        format!("{cut}…")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_gitlab_error_bodies() {
        let error = GitlabError::from_status(404, br#"{"message":"404 Project Not Found"}"#, None);
        assert_eq!(error.kind, ErrorKind::NotFound);
        assert_eq!(error.detail, "404 Project Not Found");

        let error = GitlabError::from_status(
            400,
            br#"{"message":{"name":["has already been taken"]}}"#,
            None,
        );
        assert_eq!(error.detail, "name has already been taken");

        let error = GitlabError::from_status(500, b"<html><body>Oops</body></html>", None);
        assert_eq!(error.detail, "");
    }

    #[test]
    fn markup_in_messages_is_dropped() {
        let error = GitlabError::from_status(
            422,
            br#"{"error":"bad <script>alert(1)</script> value\n\nhere"}"#,
            None,
        );
        assert_eq!(error.detail, "bad alert(1) value here");
    }
}

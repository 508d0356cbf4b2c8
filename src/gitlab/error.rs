//! Failures talking to GitLab, classified so each becomes one clear, repairable sentence.
//!
//! GitLab's own error text is kept only as a short, single-line quote (it is often the
//! useful part: "Branch already exists"), never as raw HTML, and never with the token.
//! Whether a failed request may still have changed something decides the wording: a read
//! that failed changed nothing; a write whose answer was lost may or may not have happened.

use std::fmt;
use std::time::Duration;

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
    /// GitLab could not be reached: nothing was sent (DNS, connection refused, proxy).
    Network,
    /// The request was sent but the answer never came whole (connection reset or cut).
    Interrupted,
    /// The call's deadline passed before GitLab answered.
    Timeout,
    /// GitLab redirected somewhere the token may not go (another host, plain http, a loop).
    Redirect,
    /// The TLS certificate was not accepted.
    Tls,
    /// The answer (or the request, for a 413) is larger than we accept.
    TooLarge,
    /// GitLab answered with something we cannot read.
    BadResponse,
    /// A parameter value would change the shape of the URL; nothing was sent.
    UnsafePath,
    /// The request's address would be longer than GitLab accepts; nothing was sent.
    UrlTooLong,
    /// 304: GitLab changed nothing because it is already so (subscribing twice).
    Unchanged,
}

#[derive(Debug, Clone)]
pub struct GitlabError {
    pub kind: ErrorKind,
    pub status: Option<u16>,
    /// GitLab's message, trimmed to one short line; empty when it said nothing useful.
    pub detail: String,
    /// The wait GitLab asked for (`Retry-After`, `RateLimit-Reset`).
    pub retry_after: Option<Duration>,
    /// The request would change data (not a GET): if its answer was lost, it may or may
    /// not have taken effect.
    pub write: bool,
    /// The token came with the MCP client's HTTP request rather than from GITLAB_TOKEN.
    pub token_from_request: bool,
}

const MAX_DETAIL: usize = 300;

/// What to say about a write whose outcome we did not see.
const UNKNOWN_FATE: &str = "It may or may not have taken effect: check the current state before retrying, so the change is not made twice.";

impl GitlabError {
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            status: None,
            detail: detail.into(),
            retry_after: None,
            write: false,
            token_from_request: false,
        }
    }

    /// Marks the error as the answer to a write (a POST, PUT, PATCH or DELETE).
    pub fn for_write(mut self, write: bool) -> Self {
        self.write = write;
        self
    }

    /// Classifies an HTTP error response from its status and body.
    pub fn from_status(status: u16, body: &[u8], retry_after: Option<Duration>) -> Self {
        let kind = match status {
            401 => ErrorKind::Unauthorized,
            403 => ErrorKind::Forbidden,
            404 => ErrorKind::NotFound,
            304 => ErrorKind::Unchanged,
            405 | 406 | 409 => ErrorKind::Conflict,
            413 => ErrorKind::TooLarge,
            429 => ErrorKind::RateLimited,
            500..=599 => ErrorKind::Server,
            _ => ErrorKind::Invalid,
        };
        let detail = detail_from_body(body);
        // Some endpoints (award emoji) wrap a validation failure in a 404:
        // `404 Award Emoji Name has already been taken Not Found`. That is a refusal of
        // this request, not a missing project or path.
        let kind = match kind {
            ErrorKind::NotFound if detail.contains("has already been taken") => ErrorKind::Conflict,
            ErrorKind::NotFound if detail.contains("is not a valid") => ErrorKind::Invalid,
            kind => kind,
        };
        Self {
            kind,
            status: Some(status),
            detail,
            retry_after,
            write: false,
            token_from_request: false,
        }
    }

    pub fn is_not_found(&self) -> bool {
        self.kind == ErrorKind::NotFound
    }

    /// A write that GitLab may have carried out even though we saw no success: repeating
    /// it blindly could post a comment twice.
    pub fn fate_unknown(&self) -> bool {
        self.write
            && self.status != Some(501)
            && matches!(
                self.kind,
                ErrorKind::Interrupted | ErrorKind::Timeout | ErrorKind::Server
            )
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
                "GitLab rejected the token{status}. Check that {} is a valid, unexpired personal access token with the `api` scope (or `read_api` for reading).",
                if self.token_from_request {
                    "the token this request sent (PRIVATE-TOKEN or Authorization: Bearer)"
                } else {
                    "GITLAB_TOKEN"
                }
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
                    .map(|wait| format!(" Wait {} s, then retry.", wait.as_secs().max(1)))
                    .unwrap_or_else(|| " Wait a little, then retry.".into());
                format!("GitLab is rate limiting requests{status}.{wait}")
            }
            // Not Implemented: GitLab (or the sandbox, naming the data it lacks) does not
            // serve this at all; nothing was done.
            ErrorKind::Server if self.status == Some(501) => {
                format!("GitLab does not serve this{status}.{said} Nothing was changed.")
            }
            ErrorKind::Server if self.write => format!(
                "GitLab failed with a server error{status} while handling this change.{said} {UNKNOWN_FATE}"
            ),
            ErrorKind::Server => format!(
                "GitLab failed with a server error{status}.{said} This read changed nothing; retry in a moment."
            ),
            ErrorKind::Network => format!(
                "Could not reach GitLab: {}. Nothing was sent. Check GITLAB_URL, the network and any proxy (HTTPS_PROXY, NO_PROXY), then retry.",
                self.detail
            ),
            ErrorKind::Interrupted if self.write => format!(
                "The connection to GitLab broke after the change was sent ({}). {UNKNOWN_FATE}",
                self.detail
            ),
            ErrorKind::Interrupted => format!(
                "The connection to GitLab broke before its answer was complete ({}). This read changed nothing; retry in a moment.",
                self.detail
            ),
            ErrorKind::Timeout if self.write => format!(
                "GitLab did not answer within {} after the change was sent. {UNKNOWN_FATE}",
                self.detail
            ),
            ErrorKind::Timeout => format!(
                "GitLab did not answer within {} (the limit for one call, GITLAB_TIMEOUT). This read changed nothing; retry later, or ask for less at once (a smaller `per_page`).",
                self.detail
            ),
            ErrorKind::Redirect => format!(
                "{}. The token is only sent to GITLAB_URL's own address, so the request was not followed there. If GitLab has moved, set GITLAB_URL to its new https:// address.",
                self.detail
            ),
            ErrorKind::Tls => format!(
                "GitLab's TLS certificate was not accepted ({}). If your GitLab uses a private certificate authority, set GITLAB_CA_FILE to its PEM file; check that GITLAB_URL names the host the certificate is for.",
                self.detail
            ),
            ErrorKind::TooLarge if self.status == Some(413) => format!(
                "GitLab refused the request as too large (413).{said} Send less: shorten the text or split the change."
            ),
            ErrorKind::TooLarge => format!(
                "GitLab's answer is too large to read ({}). Ask for less at once: a smaller `per_page`, a line window, or a narrower filter.",
                self.detail
            ),
            ErrorKind::BadResponse => format!(
                "GitLab answered with something unexpected: {}.",
                self.detail
            ),
            ErrorKind::Unchanged => format!(
                "GitLab changed nothing{status}: it is already so (already subscribed, or already unsubscribed). There is nothing to do."
            ),
            ErrorKind::UrlTooLong => format!(
                "The request is too long for GitLab: {}, and GitLab accepts at most {} bytes in one address. Nothing was sent; pass a shorter value, or fewer values at once.",
                self.detail,
                super::request::MAX_TARGET_BYTES
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
pub(super) fn one_line(text: &str) -> String {
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
    fn a_validation_failure_in_a_404_is_a_refusal() {
        let taken = GitlabError::from_status(
            404,
            br#"{"message":"404 Award Emoji Name has already been taken Not Found"}"#,
            None,
        );
        assert_eq!(taken.kind, ErrorKind::Conflict);
        let invalid = GitlabError::from_status(
            404,
            br#"{"message":"404 Award Emoji Name is not a valid emoji name Not Found"}"#,
            None,
        );
        assert_eq!(invalid.kind, ErrorKind::Invalid);
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

//! Which redirects the client follows: only within the configured origin (same scheme,
//! host and port), never from https to http, and at most a few. The token and any body
//! therefore never reach another host, and no `Referer` is sent (the client turns it off).
//! A refused redirect is a permanent failure, named for what it is and never retried.

use std::fmt;

use reqwest::Url;
use reqwest::redirect::Policy;

/// GitLab itself redirects rarely (a renamed project, a trailing slash); more than this
/// is a misconfigured proxy or a loop.
pub const MAX_REDIRECTS: usize = 5;

/// Why a redirect was not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// To another scheme, host or port (shown as `scheme://host:port` only).
    OtherOrigin { to: String },
    /// From https to plain http.
    Downgrade { to: String },
    /// Back to a URL already visited, or more than `MAX_REDIRECTS` hops.
    Loop { hops: usize },
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OtherOrigin { to } => write!(f, "GitLab redirected to another address ({to})"),
            Self::Downgrade { to } => {
                write!(f, "GitLab redirected from https to plain http ({to})")
            }
            Self::Loop { hops } => write!(f, "GitLab redirected in a loop ({hops} redirects)"),
        }
    }
}

impl std::error::Error for Refused {}

pub fn policy() -> Policy {
    Policy::custom(|attempt| match judge(attempt.url(), attempt.previous()) {
        Some(refused) => attempt.error(refused),
        None => attempt.follow(),
    })
}

/// `None` to follow the redirect to `next`, after visiting `previous` (the first is the
/// URL the request was sent to).
pub fn judge(next: &Url, previous: &[Url]) -> Option<Refused> {
    let first = previous.first()?;
    if first.scheme() == "https" && next.scheme() == "http" {
        return Some(Refused::Downgrade { to: origin(next) });
    }
    if origin(next) != origin(first) {
        return Some(Refused::OtherOrigin { to: origin(next) });
    }
    if previous.len() > MAX_REDIRECTS || previous.contains(next) {
        return Some(Refused::Loop {
            hops: previous.len(),
        });
    }
    None
}

/// `scheme://host:port`: what decides where a token may go.
fn origin(url: &Url) -> String {
    format!(
        "{}://{}:{}",
        url.scheme(),
        url.host_str().unwrap_or_default(),
        url.port_or_known_default().unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn only_same_origin_redirects_are_followed() {
        let start = [url("https://gitlab.example.com/api/v4/projects/1")];
        assert_eq!(
            judge(&url("https://gitlab.example.com/api/v4/projects/2"), &start),
            None
        );
        assert!(matches!(
            judge(&url("https://evil.example.net/x"), &start),
            Some(Refused::OtherOrigin { .. })
        ));
        assert!(matches!(
            judge(&url("https://gitlab.example.com:8443/x"), &start),
            Some(Refused::OtherOrigin { .. })
        ));
        assert!(matches!(
            judge(&url("http://gitlab.example.com/api/v4/projects/1"), &start),
            Some(Refused::Downgrade { .. })
        ));
    }

    #[test]
    fn loops_stop_early() {
        let a = url("https://gitlab.example.com/a");
        let b = url("https://gitlab.example.com/b");
        assert!(matches!(
            judge(&a, &[a.clone(), b.clone()]),
            Some(Refused::Loop { .. })
        ));
        let many: Vec<Url> = (0..=MAX_REDIRECTS)
            .map(|i| url(&format!("https://gitlab.example.com/{i}")))
            .collect();
        assert!(matches!(
            judge(&url("https://gitlab.example.com/next"), &many),
            Some(Refused::Loop { .. })
        ));
    }
}

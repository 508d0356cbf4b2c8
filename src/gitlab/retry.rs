//! When to try a request again and how long to wait: exponential backoff with jitter, or
//! what GitLab asks for (`Retry-After` in seconds or as an HTTP date, `RateLimit-Reset`).
//! Every wait must fit in the call's deadline; one that does not ends the call instead.

use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::error::{ErrorKind, GitlabError};

/// The first backoff step; each retry doubles it.
const BASE: Duration = Duration::from_millis(250);
/// The longest wait GitLab may ask for that we sit out ourselves.
pub const MAX_WAIT: Duration = Duration::from_secs(20);

/// Whether repeating a request after `error` can neither double a change nor fail the
/// same way for certain; `idempotent`: the request changes nothing (a GET, a GraphQL
/// query).
pub fn worth_retrying(error: &GitlabError, idempotent: bool) -> bool {
    match error.kind {
        // Nothing reached GitLab, or GitLab refused before doing anything.
        ErrorKind::Network | ErrorKind::RateLimited => true,
        ErrorKind::Interrupted => idempotent,
        ErrorKind::Server => idempotent && matches!(error.status, Some(502..=504)),
        _ => false,
    }
}

/// The wait before retry number `attempt` (0 for the first retry).
pub fn wait(error: &GitlabError, attempt: u32) -> Duration {
    if let Some(asked) = error.retry_after {
        return asked;
    }
    let step = BASE.saturating_mul(2_u32.saturating_pow(attempt));
    // Equal jitter: half fixed, half random, so that clients that failed together do not
    // retry together.
    step / 2 + step.mul_f64(random_fraction() / 2.0)
}

/// The wait GitLab asks for, from `Retry-After` (seconds or an HTTP date) or, failing
/// that, `RateLimit-Reset` (GitLab sends a Unix time; a small number is read as seconds).
pub fn asked_wait(header: impl Fn(&str) -> Option<String>, now: SystemTime) -> Option<Duration> {
    if let Some(value) = header("retry-after") {
        let value = value.trim();
        if let Ok(seconds) = value.parse::<u64>() {
            return Some(Duration::from_secs(seconds));
        }
        if let Ok(date) = httpdate::parse_http_date(value) {
            return Some(date.duration_since(now).unwrap_or(Duration::ZERO));
        }
    }
    let reset: u64 = header("ratelimit-reset")?.trim().parse().ok()?;
    let now_secs = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(if reset > 1_000_000_000 {
        Duration::from_secs(reset.saturating_sub(now_secs))
    } else {
        Duration::from_secs(reset)
    })
}

/// A number in [0, 1) from the standard library's per-process random hash keys.
fn random_fraction() -> f64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    (hasher.finish() >> 11) as f64 / (1_u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn retry_after_in_seconds_and_as_a_date() {
        let now = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            asked_wait(headers(&[("Retry-After", "7")]), now),
            Some(Duration::from_secs(7))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(12));
        assert_eq!(
            asked_wait(headers(&[("Retry-After", &later)]), now),
            Some(Duration::from_secs(12))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(12));
        assert_eq!(
            asked_wait(headers(&[("Retry-After", &past)]), now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            asked_wait(headers(&[("RateLimit-Reset", "1700000030")]), now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            asked_wait(headers(&[("RateLimit-Reset", "5")]), now),
            Some(Duration::from_secs(5))
        );
        assert_eq!(asked_wait(headers(&[("Retry-After", "soon")]), now), None);
    }

    #[test]
    fn backoff_grows_with_jitter_inside_its_step() {
        let error = GitlabError::new(ErrorKind::Network, "x");
        for attempt in 0..4 {
            let step = BASE * 2_u32.pow(attempt);
            let waited = wait(&error, attempt);
            assert!(
                waited >= step / 2 && waited <= step,
                "{attempt}: {waited:?}"
            );
        }
    }

    #[test]
    fn writes_are_repeated_only_when_nothing_happened() {
        let interrupted = GitlabError::new(ErrorKind::Interrupted, "reset");
        assert!(worth_retrying(&interrupted, true));
        assert!(!worth_retrying(&interrupted, false));
        let refused = GitlabError::new(ErrorKind::Network, "refused");
        assert!(worth_retrying(&refused, false));
        let bad_gateway = GitlabError::from_status(502, b"", None);
        assert!(worth_retrying(&bad_gateway, true));
        assert!(!worth_retrying(&bad_gateway, false));
        let tls = GitlabError::new(ErrorKind::Tls, "unknown issuer");
        assert!(!worth_retrying(&tls, true));
    }
}

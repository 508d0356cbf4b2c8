//! Token buckets per key: the per-token rate limit, the limit on rejections per token and
//! on authentication failures per client address; and `Recent`, the tokens GitLab
//! accepted lately, which the address limit never holds back.
//!
//! Each key has a bucket of `burst` permits that refills evenly, `burst` per `window`. A
//! request (or a failure) takes one permit; an empty bucket says how long until the next.
//! Keys are 64-bit keyed hashes (`RandomState`, new each start), so no token is kept in
//! memory as a key. Buckets that have refilled completely say nothing a new bucket would
//! not, and are dropped when the map grows, which bounds memory by the keys active within
//! one window. The state is per process: with N replicas a client may get N times the
//! limit, which the README says.
//!
//! Hand-written rather than `governor`: that crate has no way to ask whether a key is
//! locked out without spending a permit, which the failure limit needs.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, RandomState};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Buckets above this count trigger a sweep of the full ones.
const SWEEP_AT: usize = 4096;

pub struct Limiter {
    burst: f64,
    /// Permits added per second.
    rate: f64,
    hasher: RandomState,
    buckets: Mutex<HashMap<u64, Bucket>>,
}

#[derive(Clone, Copy)]
struct Bucket {
    permits: f64,
    at: Instant,
}

impl Limiter {
    /// `burst` permits per `window`, refilled evenly; `None` when `burst` is 0 (no limit).
    pub fn new(burst: u32, window: Duration) -> Option<Self> {
        (burst > 0 && !window.is_zero()).then(|| Self {
            burst: f64::from(burst),
            rate: f64::from(burst) / window.as_secs_f64(),
            hasher: RandomState::new(),
            buckets: Mutex::new(HashMap::new()),
        })
    }

    fn key(&self, key: impl Hash) -> u64 {
        self.hasher.hash_one(key)
    }

    /// Takes a permit for `key`; when there is none, how long until there is.
    pub fn take(&self, key: impl Hash) -> Result<(), Duration> {
        self.take_at(self.key(key), Instant::now())
    }

    /// How long `key` must wait for a permit, without taking one; `None` when it has one.
    pub fn wait(&self, key: impl Hash) -> Option<Duration> {
        let key = self.key(key);
        let now = Instant::now();
        let buckets = self.lock();
        let bucket = buckets.get(&key).map(|b| self.refilled(*b, now))?;
        self.wait_for(bucket)
    }

    fn take_at(&self, key: u64, now: Instant) -> Result<(), Duration> {
        let mut buckets = self.lock();
        if buckets.len() >= SWEEP_AT {
            buckets.retain(|_, bucket| self.refilled(*bucket, now).permits < self.burst);
        }
        let bucket = buckets.get(&key).map_or(
            Bucket {
                permits: self.burst,
                at: now,
            },
            |b| self.refilled(*b, now),
        );
        if let Some(wait) = self.wait_for(bucket) {
            buckets.insert(key, bucket);
            return Err(wait);
        }
        buckets.insert(
            key,
            Bucket {
                permits: bucket.permits - 1.0,
                at: now,
            },
        );
        Ok(())
    }

    fn refilled(&self, bucket: Bucket, now: Instant) -> Bucket {
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        Bucket {
            permits: (bucket.permits + elapsed * self.rate).min(self.burst),
            at: now,
        }
    }

    fn wait_for(&self, bucket: Bucket) -> Option<Duration> {
        (bucket.permits < 1.0).then(|| Duration::from_secs_f64((1.0 - bucket.permits) / self.rate))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Bucket>> {
        self.buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Keys seen within `ttl` (tokens GitLab accepted), as keyed hashes like `Limiter`'s.
pub struct Recent {
    ttl: Duration,
    hasher: RandomState,
    seen: Mutex<HashMap<u64, Instant>>,
}

/// Past this many keys, new ones are not remembered until old ones expire (a token that
/// is not remembered is only held to its address's failure limit).
const MAX_RECENT: usize = 65_536;

impl Recent {
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            hasher: RandomState::new(),
            seen: Mutex::new(HashMap::new()),
        }
    }

    pub fn insert(&self, key: impl Hash) {
        let key = self.hasher.hash_one(key);
        let now = Instant::now();
        let mut seen = self.lock();
        if seen.len() >= SWEEP_AT && !seen.contains_key(&key) {
            seen.retain(|_, at| now.saturating_duration_since(*at) < self.ttl);
        }
        if seen.len() < MAX_RECENT || seen.contains_key(&key) {
            seen.insert(key, now);
        }
    }

    pub fn remove(&self, key: impl Hash) {
        let key = self.hasher.hash_one(key);
        self.lock().remove(&key);
    }

    pub fn contains(&self, key: impl Hash) -> bool {
        let key = self.hasher.hash_one(key);
        self.lock()
            .get(&key)
            .is_some_and(|at| at.elapsed() < self.ttl)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Instant>> {
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_an_even_refill() {
        let limiter = Limiter::new(3, Duration::from_secs(3)).unwrap();
        let start = Instant::now();
        for _ in 0..3 {
            assert!(limiter.take_at(7, start).is_ok());
        }
        let wait = limiter.take_at(7, start).unwrap_err();
        assert!(
            wait > Duration::from_millis(900) && wait <= Duration::from_secs(1),
            "{wait:?}"
        );
        // Another key has its own bucket.
        assert!(limiter.take_at(8, start).is_ok());
        // One second later one permit is back, and only one.
        let later = start + Duration::from_secs(1);
        assert!(limiter.take_at(7, later).is_ok());
        assert!(limiter.take_at(7, later).is_err());
    }

    #[test]
    fn waiting_does_not_spend() {
        let limiter = Limiter::new(1, Duration::from_secs(60)).unwrap();
        assert_eq!(limiter.wait("203.0.113.9"), None);
        assert!(limiter.take("203.0.113.9").is_ok());
        assert!(limiter.wait("203.0.113.9").is_some());
        assert!(limiter.wait("203.0.113.9").is_some());
        assert_eq!(limiter.wait("198.51.100.1"), None);
    }

    #[test]
    fn recent_keys_expire_and_can_be_forgotten() {
        let recent = Recent::new(Duration::from_millis(1));
        recent.insert("glpat-valid");
        std::thread::sleep(Duration::from_millis(5));
        assert!(!recent.contains("glpat-valid"));
        let recent = Recent::new(Duration::from_secs(60));
        recent.insert("glpat-valid");
        assert!(recent.contains("glpat-valid"));
        assert!(!recent.contains("glpat-other"));
        recent.remove("glpat-valid");
        assert!(!recent.contains("glpat-valid"));
    }

    #[test]
    fn zero_means_no_limit() {
        assert!(Limiter::new(0, Duration::from_secs(60)).is_none());
    }

    #[test]
    fn full_buckets_are_swept() {
        let limiter = Limiter::new(2, Duration::from_millis(10)).unwrap();
        let start = Instant::now();
        for key in 0..SWEEP_AT as u64 {
            limiter.take_at(key, start).unwrap();
        }
        limiter
            .take_at(u64::MAX, start + Duration::from_secs(1))
            .unwrap();
        assert_eq!(limiter.lock().len(), 1);
    }
}

//! What a caller is offered: the policy (fitted to their instance and token, or not) and
//! what is built from it once: the surface's tools, the entity templates, the search index.
//!
//! Over stdio there is one caller and one `View`. Over HTTP every request brings its own
//! token, and with fitting on `Views` holds one fitted `View` per instance and token:
//! learned (`fit::detect`) on the token's first request, reused by its later ones, and
//! never handed to another token. Keys are 128-bit keyed hashes of instance and token, so
//! no token is kept as a key. The cache holds at most `capacity` views (the oldest goes
//! first), forgets one after `ttl` (a token's scopes and its user's admin flag can change),
//! and keeps no failed detection: such a request gets the full catalog, which hides
//! nothing, and the token's next request asks again.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::fit::Fit;
use crate::gitlab::GitlabClient;
use crate::policy::Policy;
use crate::resources::{self, EntityTemplate};
use crate::search::Index;
use crate::surfaces::{MetaSchema, Surface, SurfaceKind};

/// One policy and what is built from it.
pub struct View {
    surface: Surface,
    templates: OnceLock<Vec<EntityTemplate>>,
    index: OnceLock<Index>,
}

impl View {
    pub fn new(surface: Surface) -> Self {
        Self {
            surface,
            templates: OnceLock::new(),
            index: OnceLock::new(),
        }
    }

    pub fn surface(&self) -> &Surface {
        &self.surface
    }

    pub fn policy(&self) -> &Arc<Policy> {
        self.surface.policy()
    }

    /// Built on first use, once the policy is final (fitted, or fitting is off).
    pub fn templates(&self) -> &[EntityTemplate] {
        self.templates
            .get_or_init(|| resources::entity_templates(self.policy()))
    }

    pub fn index(&self) -> &Index {
        self.index.get_or_init(|| Index::new(self.policy()))
    }
}

/// The views of the callers of an HTTP server.
pub struct Views {
    /// The operator's policy, not fitted: each fitted view is a copy with its own `Fit`.
    base: Policy,
    kind: SurfaceKind,
    meta_schema: MetaSchema,
    /// The whole catalog under the operator's policy (fitting off, or detection failed).
    full: Arc<View>,
    fitting: bool,
    keys: (RandomState, RandomState),
    capacity: usize,
    ttl: Duration,
    entries: Mutex<HashMap<(u64, u64), Arc<Entry>>>,
}

struct Entry {
    born: Instant,
    view: tokio::sync::OnceCell<Arc<View>>,
}

/// How many tokens' views an HTTP server keeps by default.
pub const DEFAULT_CAPACITY: usize = 1024;

/// How long a token's fitting is trusted.
pub const DEFAULT_TTL: Duration = Duration::from_secs(600);

impl Views {
    /// `fitting` says whether views are fitted per token (`GITLAB_FIT_CATALOG`).
    pub fn new(base: Policy, kind: SurfaceKind, meta_schema: MetaSchema, fitting: bool) -> Self {
        let base = Policy {
            fit: Arc::new(OnceLock::new()),
            ..base
        };
        let full = Arc::new(View::new(Surface::new(
            kind,
            meta_schema,
            Arc::new(base.clone()),
        )));
        Self {
            base,
            kind,
            meta_schema,
            full,
            fitting,
            keys: (RandomState::new(), RandomState::new()),
            capacity: DEFAULT_CAPACITY,
            ttl: DEFAULT_TTL,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The same, keeping at most `capacity` views, each for at most `ttl`.
    pub fn bounded(mut self, capacity: usize, ttl: Duration) -> Self {
        self.capacity = capacity.max(1);
        self.ttl = ttl;
        self
    }

    /// The whole catalog under the operator's policy: what a request without a caller is
    /// described with (`get_tool`), and what every caller gets when fitting is off.
    pub fn full(&self) -> &Arc<View> {
        &self.full
    }

    /// How many views are kept now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The view of the caller whose client this is: fitted to its instance and token.
    pub async fn of(&self, gitlab: &GitlabClient) -> Arc<View> {
        if !self.fitting {
            return self.full.clone();
        }
        let Some(token) = gitlab.token() else {
            return self.full.clone();
        };
        let key = self.key(gitlab.base_url(), token.expose());
        let entry = self.entry(key);
        let view = entry
            .view
            .get_or_init(|| async {
                match crate::fit::detect(gitlab).await {
                    Ok(fit) => {
                        tracing::info!(fit = %fit.summary(), "catalog fitted to a caller's token");
                        Arc::new(self.fitted(fit))
                    }
                    Err(reason) => {
                        tracing::warn!(
                            %reason,
                            "could not learn the instance's edition or this token's scopes; offering the full catalog to this request"
                        );
                        self.full.clone()
                    }
                }
            })
            .await
            .clone();
        if Arc::ptr_eq(&view, &self.full) {
            // Not kept: the token's next request asks again.
            let mut entries = self.lock();
            if entries.get(&key).is_some_and(|e| Arc::ptr_eq(e, &entry)) {
                entries.remove(&key);
            }
        }
        view
    }

    fn fitted(&self, fit: Fit) -> View {
        let policy = Policy {
            fit: Arc::new(OnceLock::from(fit)),
            ..self.base.clone()
        };
        View::new(Surface::new(self.kind, self.meta_schema, Arc::new(policy)))
    }

    fn key(&self, instance: &str, token: &str) -> (u64, u64) {
        let subject = (instance, token);
        (self.keys.0.hash_one(subject), self.keys.1.hash_one(subject))
    }

    /// The entry for `key`: the live one, or a new one (dropping expired entries, and the
    /// oldest when full).
    fn entry(&self, key: (u64, u64)) -> Arc<Entry> {
        let now = Instant::now();
        let mut entries = self.lock();
        if let Some(entry) = entries.get(&key)
            && now.duration_since(entry.born) < self.ttl
        {
            return entry.clone();
        }
        if entries.len() >= self.capacity {
            entries.retain(|_, entry| now.duration_since(entry.born) < self.ttl);
        }
        if entries.len() >= self.capacity
            && let Some(oldest) = entries
                .iter()
                .min_by_key(|(_, entry)| entry.born)
                .map(|(key, _)| *key)
        {
            entries.remove(&oldest);
        }
        let entry = Arc::new(Entry {
            born: now,
            view: tokio::sync::OnceCell::new(),
        });
        entries.insert(key, entry.clone());
        entry
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(u64, u64), Arc<Entry>>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

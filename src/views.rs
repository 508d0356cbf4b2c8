//! What a caller is offered: the policy (fitted to their instance and token, or not) and
//! what is built from it once: the surface's tools, the entity templates, the search index.
//!
//! Over stdio there is one caller, and `Current` holds its view: until fitting has finished
//! (`fit::GRACE` at most for any request), the view of what is known without GitLab (the
//! policy before fitting, built once and never changed under a client), then the fitted
//! one; when a client was shown tools that fitting changed, it is told (`settle`). Over
//! HTTP every request brings its own
//! token, and with fitting on `Views` holds one fitted `View` per instance and token:
//! learned (`fit::detect`, in a task of its own) from the token's first request, which
//! waits for it at most `fit::GRACE` (then it is answered with the operator's catalog),
//! reused by its later ones, and never handed to another token. Keys are 128-bit keyed hashes of instance and token, so
//! no token is kept as a key. The cache holds at most `capacity` views (the oldest goes
//! first), forgets one after `ttl` (a token's scopes and its user's admin flag can change),
//! and keeps no failed detection: such a request gets the full catalog, which hides
//! nothing, and the token's next request asks again.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

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

/// The view of a stdio server's one client: what is known until fitting has finished,
/// then the fitted view.
pub struct Current {
    kind: SurfaceKind,
    meta_schema: MetaSchema,
    /// The dispatcher's policy, fitted in place when fitting finishes.
    policy: Arc<Policy>,
    state: Mutex<CurrentState>,
    /// `Some(changed)` once fitting has been applied: whether tools the client was shown
    /// before changed.
    settled: tokio::sync::watch::Sender<Option<bool>>,
    /// Fitting was still to come when the server started.
    fitting: bool,
}

struct CurrentState {
    view: Arc<View>,
    /// The view is the fitted one (or fitting is off).
    fitted: bool,
    /// A client was shown the tools of the view before fitting.
    shown_before: bool,
}

impl Current {
    /// `surface` is over the dispatcher's policy; `fitted` says whether that is final
    /// already (fitting off).
    pub fn new(surface: Surface, fitted: bool) -> Self {
        let (kind, meta_schema, policy) =
            (surface.kind, surface.meta_schema, surface.policy().clone());
        let view = if fitted {
            View::new(surface)
        } else {
            View::new(Surface::new(kind, meta_schema, Arc::new(policy.unfitted())))
        };
        Self {
            kind,
            meta_schema,
            policy,
            state: Mutex::new(CurrentState {
                view: Arc::new(view),
                fitted,
                shown_before: false,
            }),
            settled: tokio::sync::watch::Sender::new(fitted.then_some(false)),
            fitting: !fitted,
        }
    }

    /// Whether the view may change during the session (fitting was on at start).
    pub fn may_change(&self) -> bool {
        self.fitting
    }

    /// The view to answer with now.
    pub fn view(&self) -> Arc<View> {
        self.lock().view.clone()
    }

    /// The view whose tools a `tools/list` shows now, remembering that the client saw the
    /// tools of the view before fitting (`settle` compares them).
    pub fn listed(&self) -> Arc<View> {
        let mut state = self.lock();
        if !state.fitted {
            state.shown_before = true;
        }
        state.view.clone()
    }

    /// Fitting has finished: the fitted view replaces the one before. Whether a client was
    /// shown tools that are now different (then it should list them again); `false` when
    /// done before.
    pub fn settle(&self) -> bool {
        let fitted = Arc::new(View::new(Surface::new(
            self.kind,
            self.meta_schema,
            self.policy.clone(),
        )));
        let (before, shown) = {
            let mut state = self.lock();
            if state.fitted {
                return false;
            }
            state.fitted = true;
            let before = std::mem::replace(&mut state.view, fitted.clone());
            (before, state.shown_before)
        };
        let changed = shown && before.surface().listing() != fitted.surface().listing();
        self.settled.send_replace(Some(changed));
        changed
    }

    /// Resolves once fitting has been applied: whether tools the client was shown changed.
    pub async fn settled(&self) -> bool {
        let mut settled = self.settled.subscribe();
        match settled.wait_for(Option::is_some).await {
            Ok(changed) => changed.unwrap_or(false),
            Err(_) => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CurrentState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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
    entries: Arc<Mutex<Entries>>,
}

type Entries = HashMap<(u64, u64), Arc<Entry>>;

struct Entry {
    born: Instant,
    /// The token's view once fitting has finished.
    view: tokio::sync::watch::Sender<Option<Arc<View>>>,
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
            entries: Arc::new(Mutex::new(HashMap::new())),
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

    /// The view of the caller whose client this is: fitted to its instance and token, once
    /// fitting has finished; until then, waiting for it at most `grace`, the whole
    /// catalog under the operator's policy (GitLab refuses what the token cannot do).
    pub async fn of(&self, gitlab: &GitlabClient, grace: Duration) -> Arc<View> {
        if !self.fitting {
            return self.full.clone();
        }
        let Some(token) = gitlab.token() else {
            return self.full.clone();
        };
        let key = self.key(gitlab.base_url(), token.expose());
        let (entry, new) = self.entry(key);
        if new {
            self.fit(key, entry.clone(), gitlab);
        }
        let mut ready = entry.view.subscribe();
        let fitted = tokio::time::timeout(grace, ready.wait_for(Option::is_some)).await;
        match fitted {
            Ok(Ok(view)) => view.clone().unwrap_or_else(|| self.full.clone()),
            _ => self.full.clone(),
        }
    }

    /// Learns what the caller's instance and token can run, in a task of its own (a
    /// request that stops waiting does not stop it), and publishes the view. A failed
    /// detection is not kept: the token's next request asks again.
    fn fit(&self, key: (u64, u64), entry: Arc<Entry>, gitlab: &GitlabClient) {
        let gitlab = gitlab.clone();
        let (base, kind, meta_schema) = (self.base.clone(), self.kind, self.meta_schema);
        let (full, entries) = (self.full.clone(), self.entries.clone());
        let redactor = gitlab.shared_redactor();
        tokio::spawn(crate::redact::scoped(redactor, async move {
            let view = match crate::fit::detect(&gitlab).await {
                Ok(fit) => {
                    tracing::info!(fit = %fit.summary(), "catalog fitted to a caller's token");
                    let policy = Policy {
                        fit: Arc::new(OnceLock::from(fit)),
                        ..base
                    };
                    Arc::new(View::new(Surface::new(kind, meta_schema, Arc::new(policy))))
                }
                Err(reason) => {
                    tracing::warn!(
                        %reason,
                        "could not learn the instance's edition or this token's scopes; offering it the full catalog"
                    );
                    let mut entries = lock(&entries);
                    if entries.get(&key).is_some_and(|e| Arc::ptr_eq(e, &entry)) {
                        entries.remove(&key);
                    }
                    full
                }
            };
            entry.view.send_replace(Some(view));
        }));
    }

    fn key(&self, instance: &str, token: &str) -> (u64, u64) {
        let subject = (instance, token);
        (self.keys.0.hash_one(subject), self.keys.1.hash_one(subject))
    }

    /// The entry for `key`: the live one, or a new one (dropping expired entries, and the
    /// oldest when full), and whether it is new.
    fn entry(&self, key: (u64, u64)) -> (Arc<Entry>, bool) {
        let now = Instant::now();
        let mut entries = self.lock();
        if let Some(entry) = entries.get(&key)
            && now.duration_since(entry.born) < self.ttl
        {
            return (entry.clone(), false);
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
            view: tokio::sync::watch::Sender::new(None),
        });
        entries.insert(key, entry.clone());
        (entry, true)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        lock(&self.entries)
    }
}

fn lock(entries: &Mutex<Entries>) -> std::sync::MutexGuard<'_, Entries> {
    entries
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

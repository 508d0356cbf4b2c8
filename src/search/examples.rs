//! Requests people really made, each with the action that answers it (`actions/requests/`),
//! as a second opinion beside the rules: a request is compared word by word (Okapi BM25)
//! with every known one and with every action's profile (all its requests as one text),
//! and each action is scored by its nearest known requests and its profile alike.
//!
//! The rules read what a request says (verbs, objects, references); the examples know how
//! people say it, in words no vocabulary list foresaw ("nuke the stale branch", "Sam left the
//! company"). Neither names a domain or an action: the examples are data, like the
//! vocabulary, and a new action ranks with its YAML alone until requests for it are written.
//!
//! The postings and weights are build-time data (`known::table`, read in place): a start
//! builds nothing, and a search only adds up weights in scratch space it reuses.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;

use super::intent::is_neutral;
use super::known::table::{Lengths, Table, build};
use super::known::terms::{is_reference, terms};

/// The table of every known request, built by build.rs. A function, not a `static`: a
/// static's bytes are also written to the library's metadata, and this function's only
/// to the binary (it is never inlined into another crate, so its body is not exported).
#[inline(never)]
fn built() -> &'static [u8] {
    include_bytes!(concat!(env!("OUT_DIR"), "/requests.table"))
}

/// A word in this share (1 in N) of the requests or more is common (`COMMON_SHARE`).
const COMMON_SHARE: usize = 4;

/// An action's score is its nearest request's plus this share of the next two: several
/// close requests are surer evidence than one.
const RUNNERS_UP_SHARE: f64 = 0.5;

/// What a known request sharing a single word with a longer request counts for.
const SINGLE_WORD: f64 = 0.3;

/// The known requests, indexed by word.
pub struct Examples {
    table: Table,
    /// The table's actions as lexicon action ids.
    actions: Vec<usize>,
    /// By lexicon action id: whether some request asks for it.
    asked: Vec<bool>,
    /// The requests by their text's hash, for measuring a known request as if unseen:
    /// built on the first such search, never by a server.
    by_text: OnceLock<(RandomState, HashMap<u64, Vec<u32>>)>,
}

/// A search's sums, kept between searches on the same thread so that a search allocates
/// nothing for them: only the entries the last search touched are cleared.
#[derive(Default)]
struct Scratch {
    /// By request.
    scores: Vec<f64>,
    /// By request: how many of the query's terms it shares.
    shared: Vec<u8>,
    /// The requests touched, in `touched[..touched_count]` (sized like `scores`).
    touched: Vec<u32>,
    touched_count: usize,
    /// By table action: its three nearest requests (score, request).
    nearest: Vec<[(f64, u32); 3]>,
    reached: Vec<u32>,
    /// By table action.
    profile: Vec<f64>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// An action's evidence from the known requests.
pub struct Evidence<'a> {
    /// Lexicon action id.
    pub action: usize,
    /// Its score over the best action's, in (0, 1].
    pub share: f64,
    /// The nearest known request for it, by number: its text is only read to explain a
    /// ranking, never by every search.
    request: u32,
    table: &'a Table,
}

impl Evidence<'_> {
    /// The nearest known request for the action.
    pub fn nearest(&self) -> &str {
        self.table.request(self.request as usize)
    }
}

impl Examples {
    /// Every known request (`actions/requests/`), read in place from the table build.rs
    /// wrote, for the actions `action_id` knows (lexicon action ids). When it does not know
    /// one of them (a catalog generated from another manifest), the table is built again
    /// for the ones it knows.
    pub fn built_in(action_id: impl Fn(&str) -> Option<usize>) -> Self {
        if let Some(table) = Table::read(Cow::Borrowed(built())) {
            let actions: Option<Vec<usize>> = (0..table.actions())
                .map(|action| action_id(table.action(action)))
                .collect();
            if let Some(actions) = actions {
                return Self::with_table(table, actions);
            }
        }
        Self::new(crate::catalog::REQUESTS, action_id, |_| true)
    }

    /// Indexes `files` (`(source, text)`: a header line, `#` comment lines, then
    /// `request<TAB>action ids separated by |<TAB>kind`), keeping the requests whose actions
    /// `action_id` knows and those `keep` accepts by source.
    pub fn new(
        files: &[(&'static str, &'static str)],
        action_id: impl Fn(&str) -> Option<usize>,
        keep: impl Fn(&str) -> bool,
    ) -> Self {
        let texts: Vec<&str> = files
            .iter()
            .filter(|(source, _)| keep(source))
            .map(|(_, text)| *text)
            .collect();
        let block = build(&texts, |id| action_id(id).is_some());
        let table = Table::read(Cow::Owned(block)).expect("`build` writes a table");
        let actions = (0..table.actions())
            .map(|action| action_id(table.action(action)).unwrap_or_default())
            .collect();
        Self::with_table(table, actions)
    }

    fn with_table(table: Table, actions: Vec<usize>) -> Self {
        let mut asked = vec![false; actions.iter().max().map_or(0, |a| a + 1)];
        for &action in &actions {
            asked[action] = true;
        }
        Self {
            table,
            actions,
            asked,
            by_text: OnceLock::new(),
        }
    }

    /// The known requests that say `text` exactly.
    fn requests_saying(&self, text: &str) -> Vec<u32> {
        let (hasher, by_text) = self.by_text.get_or_init(|| {
            let hasher = RandomState::new();
            let mut by_text: HashMap<u64, Vec<u32>> = HashMap::new();
            for request in 0..self.table.requests() {
                let hash = hasher.hash_one(self.table.request(request));
                by_text.entry(hash).or_default().push(request as u32);
            }
            (hasher, by_text)
        });
        by_text
            .get(&hasher.hash_one(text))
            .into_iter()
            .flatten()
            .copied()
            .filter(|&request| self.table.request_is(request as usize, text))
            .collect()
    }

    /// Whether some known request asks for the action (lexicon action id).
    pub fn asked_for(&self, action: usize) -> bool {
        self.asked.get(action).copied().unwrap_or(false)
    }

    /// Each action the known requests near `query` point at, best first, leaving out the
    /// words of `ignored` (a purpose's verb). A known request equal to `unseen` is ignored
    /// (to measure on the requests themselves, each as if it were new).
    pub fn evidence(
        &self,
        query: &str,
        ignored: &[&str],
        unseen: Option<&str>,
    ) -> Vec<Evidence<'_>> {
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            // What the last search touched is cleared first, even if it never returned.
            scratch.clear();
            self.evidence_in(&mut scratch, query, ignored, unseen)
        })
    }

    fn evidence_in(
        &self,
        scratch: &mut Scratch,
        query: &str,
        ignored: &[&str],
        unseen_text: Option<&str>,
    ) -> Vec<Evidence<'_>> {
        let table = &self.table;
        let unseen: Vec<u32> = unseen_text.map_or_else(Vec::new, |u| self.requests_saying(u));
        let ignored: Vec<String> = ignored.iter().flat_map(|w| terms(w)).collect();
        let mut query_terms = terms(query);
        query_terms.retain(|t| !ignored.contains(t));
        query_terms.sort_unstable();
        query_terms.dedup();
        // Words that say how to look, not at what ("view #34", "look at &3"): few known
        // requests use them, so BM25 weighs them as if they named an action ("glab ci view
        // 88123" made "view #34" a pipeline), and a reference's common terms only add to
        // requests a rarer word reached. Beside references alone they are left out; beside
        // other words they stay ("git show abc123" is a commit).
        if query_terms.iter().any(|t| is_reference(t))
            && query_terms.iter().all(|t| is_neutral(t) || is_reference(t))
        {
            query_terms.retain(|t| !is_neutral(t));
        }
        let words = query_terms.len();
        let query_terms: Vec<usize> = query_terms.iter().filter_map(|t| table.term(t)).collect();
        scratch.fit(table.requests(), table.actions());
        // Sums and the requests touched. A word in a quarter of all requests or more
        // (a number, a common project name) only adds to requests a rarer word reached,
        // when there is one: a request sharing nothing else is no evidence, and those
        // words' postings are most of a search's work.
        let common = table.requests() / COMMON_SHARE;
        let mut lists: Vec<_> = query_terms.iter().map(|&t| table.postings(t)).collect();
        lists.sort_by_key(|list| list.len());
        let has_rare = lists.first().is_some_and(|list| list.len() < common);
        let Scratch {
            scores,
            shared,
            touched,
            touched_count: stored_count,
            nearest,
            reached,
            profile,
        } = scratch;
        // Both loops are free of branches on the data: whether a request was reached
        // before is as good as random, and mispredicting it was most of their time.
        let mut touched_count = 0;
        for list in lists {
            if has_rare && list.len() >= common {
                for (request, weight) in list.iter() {
                    let request = request as usize;
                    let reached = scores[request] != 0.0;
                    scores[request] += if reached { weight } else { 0.0 };
                    shared[request] = shared[request].saturating_add(u8::from(reached));
                }
            } else {
                for (request, weight) in list.iter() {
                    // Written at the end of the touched list every time, kept (by moving
                    // the end on) only the first time: a request is touched once, so the
                    // list never outgrows the requests.
                    touched[touched_count] = request;
                    touched_count += usize::from(scores[request as usize] == 0.0);
                    scores[request as usize] += weight;
                    shared[request as usize] = shared[request as usize].saturating_add(1);
                }
                *stored_count = touched_count;
            }
        }
        let touched = &touched[..touched_count];
        let request_actions = table.request_actions();
        // Each action's three nearest requests.
        for &request in touched.iter() {
            let score = scores[request as usize];
            if unseen.contains(&request) {
                continue;
            }
            for action in request_actions.of(request as usize) {
                let best = &mut nearest[action as usize];
                // Most requests are no nearer than the action's third nearest so far.
                if score < best[2].0 {
                    continue;
                }
                if best[0].1 == u32::MAX {
                    reached.push(action);
                }
                // Ties go to the earlier request, so that the answer is deterministic.
                let place = best
                    .iter()
                    .position(|&(s, r)| score > s || (score == s && request < r));
                if let Some(place) = place {
                    best[place..].rotate_right(1);
                    best[place] = (score, request);
                }
            }
        }
        // A request sharing one word only with the query (when it has more) is weak
        // evidence, however rare the word: "contributors" in a request to credit them in
        // release notes says nothing about listing a project's contributors.
        let single =
            |request: u32| words > 1 && request != u32::MAX && shared[request as usize] <= 1;
        let mut evidence: Vec<(usize, f64, u32)> = reached
            .iter()
            .map(|&action| {
                let best = nearest[action as usize];
                let score: f64 = best
                    .iter()
                    .zip([1.0, RUNNERS_UP_SHARE, RUNNERS_UP_SHARE])
                    .map(|(&(score, request), share)| {
                        let damped = if single(request) { SINGLE_WORD } else { 1.0 };
                        score * share * damped
                    })
                    .sum();
                (action as usize, score, best[0].1)
            })
            .collect();
        // The nearest requests and the profiles count alike, each over its best action.
        self.profile_scores(profile, &query_terms, unseen_text, &unseen);
        let nearest_top = evidence.iter().map(|e| e.1).fold(0.0, f64::max);
        let profile_top = profile.iter().copied().fold(0.0, f64::max);
        if nearest_top > 0.0 && profile_top > 0.0 {
            for (action, score, _) in &mut evidence {
                *score = *score / nearest_top + profile[*action] / profile_top;
            }
        }
        for (action, _, _) in &mut evidence {
            *action = self.actions[*action];
        }
        // Each action once: no two are equal, so the unstable sort is as deterministic.
        evidence.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let top = evidence.first().map_or(1.0, |e| e.1);
        evidence
            .into_iter()
            .map(|(action, score, request)| Evidence {
                action,
                share: score / top,
                request,
                table,
            })
            .collect()
    }

    /// Each action's BM25 score with all its requests as one text (a profile of how people
    /// ask for it), without `unseen`'s lines, into `scores` (by table action). Nearest
    /// requests alone follow one writer's phrasing; a profile pools every word people used
    /// for the action.
    fn profile_scores(
        &self,
        scores: &mut [f64],
        query_terms: &[usize],
        unseen_text: Option<&str>,
        unseen: &[u32],
    ) {
        let table = &self.table;
        let Some(unseen_text) = unseen_text else {
            for &term in query_terms {
                for (action, weight) in table.profile(term).weights() {
                    scores[action as usize] += weight;
                }
            }
            return;
        };
        // Measuring on a known request, its own words leave its actions' profiles.
        let unseen_terms = terms(unseen_text);
        let unseen_known: Vec<usize> = unseen_terms.iter().filter_map(|t| table.term(t)).collect();
        let mut removed: HashMap<(u32, usize), u32> = HashMap::new();
        let mut lengths = table.profile_lengths();
        for &request in unseen {
            for action in table.request_actions().of(request as usize) {
                lengths[action as usize] -= unseen_terms.len() as u32;
                for &term in &unseen_known {
                    *removed.entry((action, term)).or_default() += 1;
                }
            }
        }
        let lengths = Lengths::new(lengths);
        for &term in query_terms {
            let counts: Vec<(u32, f64)> = table
                .profile(term)
                .counts()
                .map(|(action, count)| {
                    let gone = removed.get(&(action, term)).copied().unwrap_or(0);
                    (action, f64::from(count - gone))
                })
                .filter(|(_, count)| *count > 0.0)
                .collect();
            let with = counts.len() as f64;
            for (action, count) in counts {
                scores[action as usize] += lengths.weight(action as usize, count, with);
            }
        }
    }
}

impl Scratch {
    /// Sized for a table of `requests` and `actions` (a thread may search several).
    fn fit(&mut self, requests: usize, actions: usize) {
        if self.scores.len() < requests {
            self.scores.resize(requests, 0.0);
            self.shared.resize(requests, 0);
            // One more than the requests: the last write may land past the last request.
            self.touched.resize(requests + 1, 0);
        }
        if self.nearest.len() < actions {
            self.nearest.resize(actions, [(0.0, u32::MAX); 3]);
            self.profile.resize(actions, 0.0);
        }
    }

    /// Back to all zeroes, clearing only what the search touched.
    fn clear(&mut self) {
        for &request in &self.touched[..self.touched_count] {
            self.scores[request as usize] = 0.0;
            self.shared[request as usize] = 0;
        }
        self.touched_count = 0;
        for action in self.reached.drain(..) {
            self.nearest[action as usize] = [(0.0, u32::MAX); 3];
        }
        self.profile.fill(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_requests_vote_for_their_action() {
        let file = "request\tactions\tkind\n# comment\nnuke the stale gadget\tgadget.drop\tsynonym\nshow the gadget\tgadget.show\tplain\n";
        let ids = ["gadget.drop", "gadget.show", "gadget.new"];
        let examples = Examples::new(
            &[("someone", file)],
            |id| ids.iter().position(|i| *i == id),
            |_| true,
        );
        let evidence = examples.evidence("nuke gadget old-one", &[], None);
        assert_eq!(evidence[0].action, 0);
        assert_eq!(evidence[0].nearest(), "nuke the stale gadget");
        assert!(evidence[1].share < 1.0);
        assert!(examples.asked_for(1) && !examples.asked_for(2));
        // Measured as if unseen, a request does not find itself, nearest or in its action's
        // profile.
        let evidence =
            examples.evidence("nuke the stale gadget", &[], Some("nuke the stale gadget"));
        assert_eq!(evidence[0].action, 1);
    }

    #[test]
    fn the_built_in_table_is_the_one_the_requests_make() {
        let ids: Vec<&str> = crate::catalog::ACTIONS.iter().map(|a| a.id).collect();
        let action_id = |id: &str| ids.iter().position(|i| *i == id);
        let built_in = Examples::built_in(action_id);
        let texts: Vec<&str> = crate::catalog::REQUESTS.iter().map(|(_, t)| *t).collect();
        assert!(built_in.table.in_place());
        assert_eq!(built_in.table.block(), build(&texts, |_| true).as_slice());
    }
}

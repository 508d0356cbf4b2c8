//! Ranks the catalog for a natural-language request: the engine behind `gitlab_find_action`.
//!
//! Each action is indexed by field class, strongest first: its exact id, its aliases, its
//! tags, its domain and action words, its title, its parameter and enum names, then its
//! description. A query term scores the best class it matches in an action (a synonym a
//! little less than the word itself), an action that matches both its domain and its verb
//! gets a bonus, and the total is scaled by how much of the query it covers. When that
//! exact pass is weak, misspelt terms (three letters or more) are matched within two edits,
//! never to recommend a destructive action on a guess. Long prompts are also scored in
//! windows of three to six terms, so one intent among several still surfaces. Ties keep
//! catalog order, so the ranking is deterministic.

mod words;

use std::collections::{BTreeMap, BTreeSet};

use crate::catalog::Action;
use crate::policy::Policy;
use crate::text::edit_distance;

pub use words::{stem, terms};

/// A search as `gitlab_find_action` receives it.
#[derive(Debug, Clone)]
pub struct FindRequest {
    pub query: String,
    pub limit: usize,
    pub explain: bool,
}

pub const DEFAULT_LIMIT: usize = 20;
pub const MAX_LIMIT: usize = 50;

/// Field classes, strongest first, with the points a matching term earns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Tag,
    Action,
    Domain,
    Title,
    Param,
    Text,
}

impl Class {
    fn points(self) -> i64 {
        match self {
            Self::Tag => 30,
            Self::Action => 34,
            Self::Domain => 40,
            Self::Title => 16,
            Self::Param => 7,
            Self::Text => 4,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Tag => "tag",
            Self::Action => "action",
            Self::Domain => "domain",
            Self::Title => "title",
            Self::Param => "param",
            Self::Text => "description",
        }
    }
}

const EXACT_ID: i64 = 1000;
const ALIAS: i64 = 800;
/// Matching both the domain and the verb of an action.
const PAIR_BONUS: i64 = 30;
/// A tag matched as a whole phrase.
const PHRASE_BONUS: i64 = 25;
/// A top score below this lets misspelt terms be matched approximately.
const WEAK: i64 = 60;
/// Two scores closer than this (with no clear winner) are reported as ambiguous.
const AMBIGUITY_MARGIN: i64 = 8;
/// Terms in a long prompt before it is also searched in windows.
const WINDOW_FROM: usize = 7;

/// Parameters on almost every action: matching them says nothing.
const COMMON_PARAMS: &[&str] = &["project_id", "page", "per_page"];

struct Document {
    action: &'static Action,
    /// Term → strongest class it appears in.
    terms: BTreeMap<String, Class>,
    domain: BTreeSet<String>,
    verb: BTreeSet<String>,
    /// Tags of more than one term, as term lists.
    phrases: Vec<Vec<String>>,
}

/// The search index over the actions one server instance offers.
pub struct Index {
    documents: Vec<Document>,
    vocabulary: BTreeSet<String>,
}

/// One ranked action.
#[derive(Debug, Clone)]
pub struct Hit {
    pub action: &'static Action,
    pub score: i64,
    pub reasons: Vec<String>,
}

/// The ranked answer to a search.
#[derive(Debug, Clone)]
pub struct Found {
    pub hits: Vec<Hit>,
    /// Ids of top hits too close to call, when there is no clear winner.
    pub ambiguous: Vec<&'static str>,
    /// Catalog words close to the query, when nothing matched.
    pub suggestions: Vec<String>,
}

impl Index {
    pub fn new(policy: &Policy) -> Self {
        let mut documents = Vec::new();
        let mut vocabulary = BTreeSet::new();
        for action in policy.visible() {
            let mut document = Document {
                action,
                terms: BTreeMap::new(),
                domain: terms(&action.domain.replace('_', " ")).into_iter().collect(),
                verb: terms(&action.name.replace('_', " ")).into_iter().collect(),
                phrases: Vec::new(),
            };
            let mut add = |text: &str, class: Class, document: &mut Document| {
                for term in terms(text) {
                    vocabulary.insert(term.clone());
                    let entry = document.terms.entry(term).or_insert(class);
                    *entry = (*entry).min(class);
                }
            };
            add(&action.domain.replace('_', " "), Class::Domain, &mut document);
            add(&action.name.replace('_', " "), Class::Action, &mut document);
            for tag in action.tags {
                add(tag, Class::Tag, &mut document);
                let phrase = terms(tag);
                if phrase.len() > 1 {
                    document.phrases.push(phrase);
                }
            }
            add(action.title, Class::Title, &mut document);
            for param in action.params.iter().filter(|p| !COMMON_PARAMS.contains(&p.name)) {
                add(&param.name.replace('_', " "), Class::Param, &mut document);
                for value in param.values {
                    add(&value.replace('_', " "), Class::Param, &mut document);
                }
            }
            add(action.description, Class::Text, &mut document);
            documents.push(document);
        }
        Self { documents, vocabulary }
    }

    pub fn find(&self, request: &FindRequest) -> Found {
        let query = request.query.trim();
        let normalized = query.to_lowercase().replace([' ', '_', '-', '/'], ".");
        let words = words::words(query);
        let query_terms: Vec<Query> = words.iter().map(|w| Query::new(w)).collect();

        let mut scores: Vec<(i64, Vec<String>)> =
            self.documents.iter().map(|d| self.score(d, &query_terms, &normalized, query)).collect();

        if query_terms.len() >= WINDOW_FROM {
            for size in 3..=6 {
                for window in query_terms.windows(size) {
                    for (index, document) in self.documents.iter().enumerate() {
                        let (score, reasons) = self.score(document, window, "", "");
                        let score = score * 9 / 10;
                        if score > scores[index].0 {
                            let mut reasons = reasons;
                            reasons.push(format!("window of {size} terms"));
                            scores[index] = (score, reasons);
                        }
                    }
                }
            }
        }

        let best = scores.iter().map(|(s, _)| *s).max().unwrap_or(0);
        if best < WEAK && !query_terms.is_empty() {
            let fuzzy: Vec<Query> = query_terms.iter().map(|q| q.with_typos(&self.vocabulary)).collect();
            if fuzzy.iter().any(|q| !q.typos.is_empty()) {
                for (index, document) in self.documents.iter().enumerate() {
                    let (score, mut reasons) = self.score(document, &fuzzy, &normalized, query);
                    if score <= scores[index].0 {
                        continue;
                    }
                    // A guess never recommends a destructive action, unless the request
                    // says the destructive word itself.
                    if document.action.safety.destructive && !says_destructive_verb(&query_terms, document) {
                        continue;
                    }
                    reasons.push("matched a misspelt term".into());
                    scores[index] = (score, reasons);
                }
            }
        }

        let mut hits: Vec<Hit> = self
            .documents
            .iter()
            .zip(scores)
            .filter(|(_, (score, _))| *score > 0)
            .map(|(document, (score, reasons))| Hit { action: document.action, score, reasons })
            .collect();
        hits.sort_by(|a, b| b.score.cmp(&a.score));

        let ambiguous = match hits.as_slice() {
            [first, second, ..] if first.score < EXACT_ID && first.score - second.score < AMBIGUITY_MARGIN => {
                hits.iter().take_while(|h| first.score - h.score < AMBIGUITY_MARGIN).map(|h| h.action.id).collect()
            }
            _ => Vec::new(),
        };
        let suggestions = if hits.is_empty() { self.suggest(&words) } else { Vec::new() };
        hits.truncate(request.limit.clamp(1, MAX_LIMIT));
        if !request.explain {
            hits.iter_mut().for_each(|h| h.reasons.clear());
        }
        Found { hits, ambiguous, suggestions }
    }

    fn score(&self, document: &Document, query: &[Query], normalized: &str, raw: &str) -> (i64, Vec<String>) {
        let action = document.action;
        let mut reasons = Vec::new();
        let mut score = 0;
        if !normalized.is_empty() && (normalized == action.id || raw == action.tool_name()) {
            score += EXACT_ID;
            reasons.push("exact action id".to_owned());
        } else if !normalized.is_empty() && action.aliases.contains(&normalized) {
            score += ALIAS;
            reasons.push("action alias".to_owned());
        }

        let mut matched = 0;
        let mut domain_hit = false;
        let mut verb_hit = false;
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for term in query {
            let mut best: Option<(i64, String)> = None;
            for (candidate, factor, how) in term.candidates() {
                if let Some(class) = document.terms.get(candidate) {
                    let points = class.points() * factor / 10;
                    if best.as_ref().is_none_or(|(p, _)| points > *p) {
                        best = Some((points, format!("`{}` {how} {}", term.word, class.name())));
                    }
                    domain_hit |= document.domain.contains(candidate);
                    verb_hit |= document.verb.contains(candidate);
                }
            }
            if let Some((points, reason)) = best {
                // A word repeated in a prompt counts once.
                if seen.insert(term.stemmed.clone()) {
                    score += points;
                    reasons.push(reason);
                }
                matched += 1;
            }
        }
        if domain_hit && verb_hit {
            score += PAIR_BONUS;
            reasons.push("domain and verb".to_owned());
        }
        let stems: Vec<&str> = query.iter().map(|q| q.stemmed.as_str()).collect();
        if document.phrases.iter().any(|phrase| stems.windows(phrase.len()).any(|w| w == phrase.as_slice())) {
            score += PHRASE_BONUS;
            reasons.push("tag phrase".to_owned());
        }
        if !query.is_empty() && score < EXACT_ID {
            // Scale by coverage: an action that explains every term beats one that
            // explains a few strongly.
            let coverage = matched as i64 * 100 / query.len() as i64;
            score = score * (50 + coverage / 2) / 100;
        }
        (score, reasons)
    }

    /// Catalog words near the query's words, then the main domains.
    fn suggest(&self, words: &[String]) -> Vec<String> {
        let mut near: Vec<(usize, String)> = Vec::new();
        for word in words.iter().filter(|w| w.chars().count() >= 3) {
            for term in &self.vocabulary {
                let distance = edit_distance(&stem(word), term);
                if distance <= 2 {
                    near.push((distance, term.clone()));
                }
            }
        }
        near.sort();
        near.dedup_by(|a, b| a.1 == b.1);
        let mut out: Vec<String> = near.into_iter().map(|(_, t)| t).take(6).collect();
        for domain in ["project", "merge request", "issue", "pipeline", "branch", "user"] {
            if !out.iter().any(|o| o == domain) {
                out.push(domain.to_owned());
            }
        }
        out
    }
}

/// One query word with what it may match: itself, its synonyms, and (after a weak exact
/// pass) catalog words within two edits.
#[derive(Debug, Clone)]
struct Query {
    word: String,
    stemmed: String,
    synonyms: Vec<String>,
    typos: Vec<String>,
}

impl Query {
    fn new(word: &str) -> Self {
        Self { word: word.to_owned(), stemmed: stem(word), synonyms: words::synonyms(word), typos: Vec::new() }
    }

    /// (term, points out of 10, how it matched)
    fn candidates(&self) -> impl Iterator<Item = (&String, i64, &'static str)> {
        std::iter::once((&self.stemmed, 10, "matched"))
            .chain(self.synonyms.iter().map(|s| (s, 8, "means")))
            .chain(self.typos.iter().map(|t| (t, 6, "looks like")))
    }

    fn with_typos(&self, vocabulary: &BTreeSet<String>) -> Self {
        let mut query = self.clone();
        let length = self.stemmed.chars().count();
        if length < 3 || vocabulary.contains(&self.stemmed) || !self.synonyms.is_empty() {
            return query;
        }
        let allowed = if length <= 4 { 1 } else { 2 };
        query.typos = vocabulary
            .iter()
            .filter(|term| term.chars().count() >= 3 && edit_distance(&self.stemmed, term) <= allowed)
            .cloned()
            .collect();
        query
    }
}

/// Whether the request itself says the action's destructive verb (`delete`, `merge`, ...).
fn says_destructive_verb(query: &[Query], document: &Document) -> bool {
    query.iter().any(|q| document.verb.contains(&q.stemmed) || q.synonyms.iter().any(|s| document.verb.contains(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top(query: &str) -> &'static str {
        let index = Index::new(&Policy::default());
        let found = index.find(&FindRequest { query: query.into(), limit: 5, explain: true });
        found.hits.first().map(|h| h.action.id).unwrap_or("")
    }

    #[test]
    fn exact_ids_win() {
        assert_eq!(top("merge_request.list"), "merge_request.list");
        assert_eq!(top("gitlab_pipeline_latest"), "pipeline.latest");
    }

    #[test]
    fn typos_never_guess_destructive_actions() {
        let index = Index::new(&Policy::default());
        let found = index.find(&FindRequest { query: "brnach".into(), limit: 50, explain: false });
        assert!(found.hits.iter().all(|h| !h.action.safety.destructive), "{:?}", found.hits.iter().map(|h| h.action.id).collect::<Vec<_>>());
    }
}

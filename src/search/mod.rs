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

mod intent;
mod tokens;
mod words;

use std::collections::{BTreeMap, BTreeSet};

use crate::catalog::Action;
use crate::policy::Policy;
use crate::text::edit_distance;

use intent::{Intent, Profile};
use tokens::{Reference, Role};
pub use words::{stem, terms};

/// A search as `gitlab_find_action` receives it.
#[derive(Debug, Clone)]
pub struct FindRequest {
    pub query: String,
    pub limit: usize,
    pub explain: bool,
}

/// Hits in a find answer by default, and at most: each one is context the model pays for.
pub const DEFAULT_LIMIT: usize = 8;
pub const MAX_LIMIT: usize = 20;

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
            Self::Tag => 26,
            Self::Action => 30,
            Self::Domain => 36,
            Self::Title => 14,
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
/// A tag matched as a whole phrase.
const PHRASE_BONUS: i64 = 20;
/// The request's operation is the action's.
const VERB_MATCH: i64 = 30;
/// The request says another operation.
const VERB_MISMATCH: i64 = -22;
/// No verb, but a plural asks for a list or a reference for one thing, and it fits.
const IMPLIED_VERB: i64 = 18;
/// A plural asks for a list, and the action reads one thing.
const IMPLIED_MISMATCH: i64 = -10;
/// The action reads one thing by its id, and the request names none.
const UNNAMED_TARGET: i64 = -8;
/// A question (with no verb) and an action that changes something.
const QUESTION_MUTATION: i64 = -15;
/// The request names the part of the domain the action works on (comments, a log, ...).
const OBJECT_MATCH: i64 = 34;
/// The action works on a part of its domain the request does not name.
const OBJECT_MISSING: i64 = -24;
/// The request names a part of the domain the action does not work on.
const OBJECT_FOREIGN: i64 = -20;
/// `!42` names a merge request, `#17` most often an issue.
const MERGE_REQUEST_REFERENCE: i64 = 30;
const HASH_REFERENCE: i64 = 10;
/// `@bob` names a user.
const MENTION_REFERENCE: i64 = 30;
/// `@bob` is not the caller.
const MENTION_NOT_CALLER: i64 = -30;
/// The request names domains, and not this action's.
const DOMAIN_FOREIGN: i64 = -20;
/// The request speaks of the caller, and the action is about the caller's own things.
const FIRST_PERSON: i64 = 22;
/// The action is about the caller, and the request speaks of someone else.
const NOT_FIRST_PERSON: i64 = -12;
/// A runner-up scoring at least this share (in percent) of the top score makes the
/// request ambiguous.
const AMBIGUITY_SHARE: i64 = 95;
/// A top score under this is a weak match: with words the catalog does not know, the
/// request probably asks for something it lacks.
const WEAK_MATCH: i64 = 60;
/// Words in a prompt before its clauses are also searched one by one.
const LONG_PROMPT: usize = 9;

/// Parameters on almost every action: matching them says nothing.
const COMMON_PARAMS: &[&str] = &["project_id", "page", "per_page"];

struct Document {
    action: &'static Action,
    /// Term → strongest class it appears in.
    terms: BTreeMap<String, Class>,
    /// Tags of more than one term, as term lists.
    phrases: Vec<Vec<String>>,
    profile: Profile,
    /// Parts of this action's domain that other actions work on.
    domain_objects: BTreeSet<&'static str>,
}

/// The search index over the actions one server instance offers.
pub struct Index {
    documents: Vec<Document>,
    vocabulary: BTreeSet<String>,
    /// Terms that name a thing an action works on (in an id, a tag or a title), not only a
    /// parameter or a word of a description.
    things: BTreeSet<String>,
    /// Words as the catalog and the intent tables spell them, for typo matching.
    spellings: BTreeSet<String>,
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
    /// A sentence saying what the catalog lacks, when the request asks for it ("No action
    /// deletes tags: ..."), with the nearest domains.
    pub missing: Option<String>,
}

/// A request (or a window of one) read once: its terms and its intent.
struct Reading {
    terms: Vec<Query>,
    intent: Intent,
    /// Terms the catalog knows (directly, by synonym or by a typo match): only these count
    /// towards coverage, so names like `hotfix/crash` cost nothing.
    known: usize,
    /// Some word was read from a misspelling.
    has_typos: bool,
}

impl Index {
    pub fn new(policy: &Policy) -> Self {
        let mut documents = Vec::new();
        let mut vocabulary = BTreeSet::new();
        for action in policy.visible() {
            let mut document = Document {
                action,
                terms: BTreeMap::new(),
                phrases: Vec::new(),
                profile: Profile::of(action),
                domain_objects: BTreeSet::new(),
            };
            let mut add = |text: &str, class: Class, document: &mut Document| {
                // Operation words in tags and titles belong to the intent, which weighs
                // them against the action's own verb; counted here they would favour any
                // action whose tags happen to say "show".
                let generic = matches!(class, Class::Tag | Class::Title);
                for word in words::words(text) {
                    if generic && intent::is_generic(&word) {
                        continue;
                    }
                    let term = stem(&word);
                    vocabulary.insert(term.clone());
                    let entry = document.terms.entry(term).or_insert(class);
                    if class.points() > entry.points() {
                        *entry = class;
                    }
                }
            };
            add(
                &action.domain.replace('_', " "),
                Class::Domain,
                &mut document,
            );
            add(&action.name.replace('_', " "), Class::Action, &mut document);
            for tag in action.tags {
                add(tag, Class::Tag, &mut document);
                let phrase = terms(tag);
                if phrase.len() > 1 {
                    document.phrases.push(phrase);
                }
            }
            add(action.title, Class::Title, &mut document);
            for param in action
                .params
                .iter()
                .filter(|p| !COMMON_PARAMS.contains(&p.name))
            {
                add(&param.name.replace('_', " "), Class::Param, &mut document);
                for value in param.values {
                    add(&value.replace('_', " "), Class::Param, &mut document);
                }
            }
            add(action.description, Class::Text, &mut document);
            documents.push(document);
        }
        let mut spellings: BTreeSet<String> = intent::known_words().map(str::to_owned).collect();
        spellings.extend(words::known_words().map(str::to_owned));
        for document in &documents {
            let action = document.action;
            let texts = [
                action.title,
                action.description,
                &action.domain.replace('_', " "),
                &action.name.replace('_', " "),
            ];
            for text in texts.into_iter().chain(action.tags.iter().copied()) {
                spellings.extend(
                    words::words(text)
                        .into_iter()
                        .filter(|w| w.len() >= 3 && w.chars().all(char::is_alphabetic)),
                );
            }
        }
        let all: Vec<(&'static str, BTreeSet<&'static str>)> = documents
            .iter()
            .map(|d| (d.action.domain, d.profile.objects.clone()))
            .collect();
        for document in &mut documents {
            for (domain, objects) in &all {
                if *domain == document.action.domain {
                    document.domain_objects.extend(objects.iter().copied());
                }
            }
        }
        let things = documents
            .iter()
            .flat_map(|d| d.terms.iter())
            .filter(|(_, class)| **class <= Class::Title)
            .map(|(term, _)| term.clone())
            .collect();
        Self {
            documents,
            vocabulary,
            things,
            spellings,
        }
    }

    /// Whether the exact pass can place a word at all.
    fn knows(&self, word: &str) -> bool {
        self.spellings.contains(word)
            || self.vocabulary.contains(&stem(word))
            || words::is_stop_word(word)
    }

    /// The typo-tolerant fallback, word by word: a word the exact pass cannot place (three
    /// letters or more) is read as the known word within one edit (up to five letters) or
    /// two (longer) that starts with the same letter, the closest and then the first in
    /// order. An inflection (`labeled`, `reviewing`) is not a typo of its root.
    fn correct(&self, word: &str) -> Option<String> {
        if word.chars().count() < 3 || !word.chars().all(char::is_alphabetic) || self.knows(word) {
            return None;
        }
        let allowed = if word.chars().count() <= 5 { 1 } else { 2 };
        let first = word.chars().next();
        self.spellings
            .iter()
            .filter(|known| known.chars().next() == first && !word.starts_with(known.as_str()))
            .map(|known| (edit_distance(word, known), known))
            .filter(|(distance, _)| *distance <= allowed)
            .min()
            .map(|(_, known)| known.clone())
    }

    fn read(&self, pieces: &[String]) -> Reading {
        // Correct misspellings first, then rewrite phrases again: `mrege requests` is only
        // a phrase once corrected.
        let mut typos = BTreeSet::new();
        let corrected: Vec<String> = pieces
            .iter()
            .map(|piece| {
                let core = piece.trim_matches(|c: char| !c.is_alphanumeric());
                match self.correct(core) {
                    Some(known) => {
                        typos.insert(known.clone());
                        piece.replacen(core, &known, 1)
                    }
                    None => piece.clone(),
                }
            })
            .collect();
        let pieces = tokens::pieces(&corrected.join(" "));
        let pieces = pieces.as_slice();
        let mut tokens = tokens::read(pieces, intent::is_verb);
        let mut intent = Intent::read(&tokens, pieces);
        if intent.domains.is_empty()
            && intent.objects.is_empty()
            && tokens.iter().any(|t| t.role == Role::Context)
        {
            tokens::promote_context(&mut tokens);
            intent = Intent::read(&tokens, pieces);
        }
        let terms: Vec<Query> = tokens
            .iter()
            .filter(|t| t.reference.is_none() && matches!(t.role, Role::Head | Role::Context))
            .map(|t| {
                let mut query = Query::new(&t.word);
                query.typo = typos.contains(&t.word);
                query.context = t.role == Role::Context;
                query
            })
            .collect();
        let known = terms
            .iter()
            .filter(|q| self.vocabulary.contains(&q.stemmed) || !q.synonyms.is_empty())
            .count();
        Reading {
            terms,
            intent,
            known,
            has_typos: !typos.is_empty(),
        }
    }

    pub fn find(&self, request: &FindRequest) -> Found {
        let query = request.query.trim();
        let normalized = query.to_lowercase();
        let raw = tokens::pieces(query);
        let reading = self.read(&raw);

        let mut scores: Vec<(i64, Vec<String>)> = self
            .documents
            .iter()
            .map(|d| self.score(d, &reading, &normalized))
            .collect();

        // Long prompts: each clause is scored on its own too, earlier ones a little higher
        // (the first thing asked for is usually the first thing to do), and clauses that
        // say no operation lower (they tend to be context: "the pipeline on main failed").
        if raw.len() >= LONG_PROMPT {
            for (position, clause) in clauses(&raw).iter().enumerate() {
                let reading = self.read(clause);
                let mut factor = (90 - 8 * position as i64).max(50);
                if reading.intent.verbs.is_empty() {
                    factor -= 25;
                }
                for (index, document) in self.documents.iter().enumerate() {
                    let (score, mut reasons) = self.score(document, &reading, "");
                    let score = score * factor / 100;
                    if score > scores[index].0 {
                        reasons.push(format!("clause {}", position + 1));
                        scores[index] = (score, reasons);
                    }
                }
            }
        }

        // A guess never recommends a destructive action: when words were misspelt, a
        // destructive action stays only if an exactly spelt word names it.
        if reading.has_typos {
            for (index, document) in self.documents.iter().enumerate() {
                if document.action.safety.destructive && !names_exactly(&reading, document) {
                    scores[index].0 = 0;
                }
            }
        }

        // A destructive action is offered only when the request names both its operation
        // and its object: "delete the tag v1" never offers to delete a branch.
        for (index, document) in self.documents.iter().enumerate() {
            if document.action.safety.destructive && !asks_for(&reading, document) {
                scores[index].0 = 0;
            }
        }

        let mut hits: Vec<Hit> = self
            .documents
            .iter()
            .zip(scores)
            .filter(|(_, (score, _))| *score > 0)
            .map(|(document, (score, reasons))| Hit {
                action: document.action,
                score,
                reasons,
            })
            .collect();
        hits.sort_by_key(|hit| std::cmp::Reverse(hit.score));

        let close = |top: i64, other: i64| other * 100 >= top * AMBIGUITY_SHARE;
        let ambiguous = match hits.as_slice() {
            [first, second, ..] if first.score < EXACT_ID && close(first.score, second.score) => {
                hits.iter()
                    .take_while(|h| close(first.score, h.score))
                    .map(|h| h.action.id)
                    .collect()
            }
            _ => Vec::new(),
        };
        let missing = self.missing(&reading, &hits, ambiguous.len());
        let suggestions = if hits.is_empty() && missing.is_none() {
            self.suggest(&words::words(query))
        } else {
            Vec::new()
        };
        hits.truncate(request.limit.clamp(1, MAX_LIMIT));
        if !request.explain {
            hits.iter_mut().for_each(|h| h.reasons.clear());
        }
        Found {
            hits,
            ambiguous,
            suggestions,
            missing,
        }
    }

    /// What the request asks for that no action does: an operation on a domain that has no
    /// such action, or things no domain knows, when nothing fits well.
    fn missing(&self, reading: &Reading, hits: &[Hit], ambiguous: usize) -> Option<String> {
        let intent = &reading.intent;
        let verb = intent
            .verbs
            .iter()
            .max_by_key(|(_, votes)| **votes)
            .map(|(verb, _)| *verb);
        let domains: Vec<&'static str> = self.domains();
        if let Some(verb) = verb
            && !intent.domains.is_empty()
        {
            let named: Vec<&'static str> = domains
                .iter()
                .copied()
                .filter(|d| intent.domains.contains(d))
                .collect();
            let can = |domain: &str| {
                self.documents
                    .iter()
                    .any(|d| d.action.domain == domain && d.profile.verb == verb)
            };
            if !named.is_empty() && !named.iter().any(|d| can(d)) {
                let domain = named[0];
                let actions: Vec<&str> = self
                    .documents
                    .iter()
                    .filter(|d| d.action.domain == domain)
                    .map(|d| d.action.name)
                    .collect();
                return Some(format!(
                    "No action can {} {}; for {} there are {}.",
                    verb.word(),
                    domain_title(domain).to_lowercase(),
                    domain_title(domain).to_lowercase(),
                    actions
                        .iter()
                        .map(|a| format!("`{domain}.{a}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        // Words the catalog does not know, and no action that fits well.
        let unknown: Vec<&str> = reading
            .terms
            .iter()
            .filter(|q| {
                !q.context
                    && !q.typo
                    && q.synonyms.is_empty()
                    && !self.things.contains(&q.stemmed)
                    && !intent::is_generic(&q.word)
                    && q.word.chars().all(char::is_alphabetic)
            })
            .map(|q| q.word.as_str())
            .collect();
        // Weak: a low best score, or many actions tied on the generic words alone.
        let weak = hits.first().is_none_or(|h| h.score < WEAK_MATCH) || ambiguous >= 3;
        if unknown.is_empty() || !weak || !intent.domains.is_empty() {
            return None;
        }
        let mut nearest: Vec<&'static str> = Vec::new();
        for hit in hits.iter().take(5) {
            if !nearest.contains(&hit.action.domain) {
                nearest.push(hit.action.domain);
            }
        }
        let covered: Vec<String> = domains
            .iter()
            .map(|d| domain_title(d).to_lowercase())
            .collect();
        let mut sentence = format!(
            "No action manages {}; the catalog covers {}.",
            unknown.join(" "),
            covered.join(", ")
        );
        if !nearest.is_empty() {
            sentence.push_str(&format!(
                " Nearest: {}.",
                nearest
                    .iter()
                    .map(|d| domain_title(d).to_lowercase())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Some(sentence)
    }

    /// The domains of the visible actions, in catalog order.
    fn domains(&self) -> Vec<&'static str> {
        let mut domains: Vec<&'static str> = Vec::new();
        for document in &self.documents {
            if !domains.contains(&document.action.domain) {
                domains.push(document.action.domain);
            }
        }
        domains
    }

    fn score(
        &self,
        document: &Document,
        reading: &Reading,
        normalized: &str,
    ) -> (i64, Vec<String>) {
        let action = document.action;
        let mut reasons = Vec::new();
        if !normalized.is_empty() && (normalized == action.id || normalized == action.tool_name()) {
            return (EXACT_ID, vec!["exact action id".to_owned()]);
        }
        if !normalized.is_empty() && action.aliases.contains(&normalized) {
            return (ALIAS, vec!["action alias".to_owned()]);
        }

        let mut score = 0;
        let mut matched = 0;
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for term in &reading.terms {
            let mut best: Option<(i64, String)> = None;
            for (candidate, factor, how) in term.candidates() {
                if let Some(class) = document.terms.get(candidate) {
                    let points = class.points() * factor / 10;
                    if best.as_ref().is_none_or(|(p, _)| points > *p) {
                        best = Some((points, format!("`{}` {how} {}", term.word, class.name())));
                    }
                }
            }
            if let Some((points, reason)) = best {
                // A word repeated in a prompt counts once.
                if seen.insert(term.stemmed.as_str()) {
                    score += points;
                    reasons.push(reason);
                }
                matched += 1;
            }
        }
        let stems: Vec<&str> = reading.terms.iter().map(|q| q.stemmed.as_str()).collect();
        if document
            .phrases
            .iter()
            .any(|phrase| stems.windows(phrase.len()).any(|w| w == phrase.as_slice()))
        {
            score += PHRASE_BONUS;
            reasons.push("tag phrase".to_owned());
        }
        let intent = self.intent(document, &reading.intent, &mut reasons);
        // Without a matched word, only a clear intent (the right object, a reference) counts.
        if matched == 0 && intent < MENTION_REFERENCE {
            return (0, reasons);
        }
        score += intent;

        // Scale by coverage of the words the catalog knows: an action that explains every
        // such word beats one that explains a few strongly.
        let known = reading.known.max(matched).max(1) as i64;
        let coverage = matched as i64 * 100 / known;
        (score * (50 + coverage / 2) / 100, reasons)
    }

    /// Points for agreeing (or not) with what the request asks for.
    fn intent(&self, document: &Document, intent: &Intent, reasons: &mut Vec<String>) -> i64 {
        let profile = &document.profile;
        let mut points = 0;
        if !intent.verbs.is_empty() {
            // Words may name several operations ("add" creates or updates); the operation
            // most words name counts fully, the others in proportion.
            let votes = intent.verbs.get(&profile.verb).copied().unwrap_or(0);
            let most = intent.verbs.values().copied().max().unwrap_or(1);
            if votes > 0 {
                points += VERB_MATCH * votes / most;
                reasons.push(format!("asks to {:?}", profile.verb).to_lowercase());
            } else {
                points += VERB_MISMATCH;
            }
        } else {
            match intent.implied_verb() {
                Some(verb) if verb == profile.verb => {
                    points += IMPLIED_VERB;
                    reasons.push(format!("implies {:?}", profile.verb).to_lowercase());
                }
                Some(_) => points += IMPLIED_MISMATCH,
                None => {}
            }
            // Nothing named, no verb: reading one thing by its id is the less likely ask.
            if intent.references.is_empty() && profile.needs_target {
                points += UNNAMED_TARGET;
            }
            if intent.question && document.action.is_mutation() {
                points += QUESTION_MUTATION;
            }
        }
        let named: BTreeSet<&str> = intent
            .objects
            .iter()
            .copied()
            .filter(|o| document.domain_objects.contains(o) || profile.objects.contains(o))
            .collect();
        if !profile.objects.is_empty() {
            if profile.objects.iter().any(|o| intent.objects.contains(o)) {
                points += OBJECT_MATCH;
                reasons.push("names what it works on".to_owned());
            } else {
                points += OBJECT_MISSING;
            }
        } else if !named.is_empty()
            || (!intent.objects.is_empty()
                && !intent
                    .objects
                    .iter()
                    .any(|o| document.domain_objects.contains(o)))
        {
            // The request names a part no action of this domain works on (a file, a log).
            points += OBJECT_FOREIGN;
        }
        if intent.references.contains(&Reference::MergeRequest)
            && document.action.domain == "merge_request"
        {
            points += MERGE_REQUEST_REFERENCE;
        }
        if intent.references.contains(&Reference::Hash) && document.action.domain == "issue" {
            points += HASH_REFERENCE;
        }
        if intent.references.contains(&Reference::Mention) && document.action.domain == "user" {
            points += MENTION_REFERENCE;
        }
        if !intent.domains.is_empty() && !intent.domains.contains(document.action.domain) {
            points += DOMAIN_FOREIGN;
        }
        let domain_agrees =
            intent.domains.is_empty() || intent.domains.contains(document.action.domain);
        if intent.references.contains(&Reference::Mention) && profile.first_person {
            // `@bob` is someone else.
            points += MENTION_NOT_CALLER;
        }
        match (intent.first_person, profile.first_person) {
            (true, true) if domain_agrees => {
                points += FIRST_PERSON;
                reasons.push("about the caller".to_owned());
            }
            (false, true)
                if intent.domains.contains(document.action.domain)
                    || !intent.references.is_empty() =>
            {
                points += NOT_FIRST_PERSON;
            }
            _ => {}
        }
        points
    }

    /// Catalog words near the query's words, then the main domains.
    fn suggest(&self, words: &[String]) -> Vec<String> {
        // Real words (never stems) near the request's words.
        let mut near: Vec<(usize, String)> = Vec::new();
        for word in words.iter().filter(|w| w.chars().count() >= 3) {
            for known in &self.spellings {
                let distance = edit_distance(word, known);
                if distance <= 2 && known != word {
                    near.push((distance, known.clone()));
                }
            }
        }
        near.sort();
        near.dedup_by(|a, b| a.1 == b.1);
        let mut out: Vec<String> = near.into_iter().map(|(_, t)| t).take(6).collect();
        for domain in [
            "project",
            "merge request",
            "issue",
            "pipeline",
            "branch",
            "user",
        ] {
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
    /// Read from a misspelling by the typo fallback.
    typo: bool,
    /// Names a container ("in this project"): it counts for less.
    context: bool,
}

impl Query {
    fn new(word: &str) -> Self {
        Self {
            word: word.to_owned(),
            stemmed: stem(word),
            synonyms: words::synonyms(word),
            typo: false,
            context: false,
        }
    }

    /// (term, points out of 10, how it matched)
    fn candidates(&self) -> impl Iterator<Item = (&String, i64, &'static str)> {
        let (exact, synonym, how) = match (self.typo, self.context) {
            (_, true) => (4, 3, "in context"),
            (true, false) => (7, 6, "looks like"),
            (false, false) => (10, 8, "matched"),
        };
        std::iter::once((&self.stemmed, exact, how))
            .chain(self.synonyms.iter().map(move |s| (s, synonym, "means")))
    }
}

/// A domain's title ("Merge requests"), or its name in words.
fn domain_title(domain: &str) -> String {
    crate::catalog::domain(domain)
        .map(|d| d.title.to_owned())
        .unwrap_or_else(|| domain.replace('_', " "))
}

/// Whether a request names both a destructive action's operation and its object (its
/// domain, by name, synonym or reference).
fn asks_for(reading: &Reading, document: &Document) -> bool {
    let verb = reading.intent.verbs.contains_key(&document.profile.verb);
    let object = reading.intent.domains.contains(document.action.domain)
        || reading.terms.iter().any(|q| {
            q.candidates().any(|(term, _, _)| {
                document
                    .terms
                    .get(term)
                    .is_some_and(|class| *class == Class::Domain)
            })
        });
    verb && object
}

/// Whether a request names the action's domain or object with an exact (not misspelt) word.
fn names_exactly(reading: &Reading, document: &Document) -> bool {
    reading
        .terms
        .iter()
        .filter(|q| !q.typo && !q.context)
        .any(|q| {
            document
                .terms
                .get(&q.stemmed)
                .is_some_and(|class| matches!(class, Class::Domain | Class::Action | Class::Tag))
        })
}

/// Splits a long prompt into clauses at punctuation and at the words that join requests.
fn clauses(raw: &[String]) -> Vec<Vec<String>> {
    const JOINERS: &[&str] = &[
        "then", "and", "so", "but", "before", "after", "once", "if", "because", "while",
    ];
    let mut clauses = vec![Vec::new()];
    for word in raw {
        let ends = word.ends_with([',', ';', '.', '?', '!', ':']);
        if JOINERS.contains(&word.as_str()) && !clauses.last().is_some_and(Vec::is_empty) {
            clauses.push(Vec::new());
            continue;
        }
        if let Some(last) = clauses.last_mut() {
            last.push(word.clone());
        }
        if ends {
            clauses.push(Vec::new());
        }
    }
    clauses.retain(|c| !c.is_empty());
    clauses
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top(query: &str) -> &'static str {
        let index = Index::new(&Policy::default());
        let found = index.find(&FindRequest {
            query: query.into(),
            limit: 5,
            explain: true,
        });
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
        let found = index.find(&FindRequest {
            query: "brnach".into(),
            limit: 50,
            explain: false,
        });
        assert!(
            found.hits.iter().all(|h| !h.action.safety.destructive),
            "{:?}",
            found.hits.iter().map(|h| h.action.id).collect::<Vec<_>>()
        );
    }
}

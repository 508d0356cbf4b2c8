//! Scores the actions for one reading of a request: each query word's best match per
//! action through the postings (a word itself, the catalog words it means, a phrase naming
//! the action), tag phrases, the intent weighed against each action's profile, and the
//! share of the request's known words an action explains. Only the actions some word or
//! the intent reaches are scored.

use std::cell::RefCell;

use hashbrown::{HashMap, HashSet};

use super::Hit;
use super::index::{Document, Index, stands_for};
use super::intent::{self, Intent, Shape};
use super::known::terms::terms;
use super::lexicon::Lexicon;
use super::tokens::{self, Reference, Token};
use crate::catalog::Action;

/// Field classes, strongest first, with the points a matching term earns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Tag,
    Action,
    Domain,
    Title,
    Param,
    Text,
}

impl Class {
    pub fn points(self) -> i64 {
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
            Self::Tag => "tags",
            Self::Action => "action",
            Self::Domain => "domain",
            Self::Title => "title",
            Self::Param => "param",
            Self::Text => "description",
        }
    }
}

pub const EXACT_ID: i64 = 1000;
const ALIAS: i64 = 800;
/// A phrase of the action's own vocabulary (`who am i`): it names the action.
const ACTION_PHRASE: i64 = 46;
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
/// A read of the whole thing a request only names.
const WHOLE_THING: i64 = 16;
/// The action reads one thing by its id, and the request names none.
const UNNAMED_TARGET: i64 = -8;
/// A question (with no verb) and an action that changes something.
const QUESTION_MUTATION: i64 = -20;
/// No verb (and no question), and an action that changes something.
const UNASKED_MUTATION: i64 = -12;
/// The request names the part of the domain the action works on (comments, a log, ...).
/// The object weights were last set with every domain's requests left out in turn (what a
/// new action meets): agreeing on the object, and disagreeing on it or on the domain,
/// counted too much against the action's own words and phrases.
const OBJECT_MATCH: i64 = 26;
/// The action works on a part of its domain the request does not name.
const OBJECT_MISSING: i64 = -24;
/// The request names a part of the domain the action does not work on.
const OBJECT_FOREIGN: i64 = -12;
/// The action works on several parts and the request names only some of them, or it names
/// a part this action does not work on beside one it does ("reactions on comment 6" is
/// not the issue's own reactions; "add a note" is no reaction to one).
const OBJECT_PARTIAL: i64 = -10;
/// `!42` and `@bob` name their domain; `#17` only leans towards one.
const NAMING_REFERENCE: i64 = 30;
const LEANING_REFERENCE: i64 = 10;
/// `!42` or `#17` names a thing of another domain, and the action takes none.
const REFERENCE_UNUSED: i64 = -30;
/// `@bob` is not the caller.
const MENTION_NOT_CALLER: i64 = -30;
/// The request names a container ("of a project") and the action is scoped by it, or by
/// nothing (it reads the whole instance).
const CONTAINER_MATCH: i64 = 15;
const CONTAINER_MISSING: i64 = -15;
/// The request names a container, and the action is scoped by another one.
const CONTAINER_OTHER: i64 = -10;
/// The request names domains, and not this action's.
const DOMAIN_FOREIGN: i64 = -14;
/// The request speaks of the caller, and the action is about the caller's own things.
const FIRST_PERSON: i64 = 22;
/// The action is about the caller, and the request speaks of someone else.
const NOT_FIRST_PERSON: i64 = -12;
/// A runner-up scoring at least this share (in percent) of the top score makes the
/// request ambiguous.
pub const AMBIGUITY_SHARE: i64 = 95;
/// A top score under this is a weak match: with words the catalog does not know, the
/// request probably asks for something it lacks.
pub const WEAK_MATCH: i64 = 60;
/// Without a matched word, an action needs at least this much intent to count.
const INTENT_ALONE: i64 = 30;
/// How much the known requests near a request weigh (`examples`): the action they point at
/// most gains this many times the rules' top score, the others their share of it. Chosen by
/// leaving each writer's requests out in turn and ranking them (the requests of one writer
/// are never evidence for their own ranking): over 6,800 requests of 15 writers, P@1 0.879
/// at 2, 0.889 at 3, 0.886 at 4; over 10,642 of 23 writers, 0.871 at 2.5, 0.875 at 3, 0.877
/// at 4, 0.875 at 5 (flat; 3 is best on the known requests).
const EXAMPLE_WEIGHT: f64 = 3.0;
/// What a new action inherits (percent) of what the requests gave its namesakes in
/// other domains.
const NAMESAKE: i64 = 80;
/// Words in a prompt before its clauses are also searched one by one.
const LONG_PROMPT: usize = 9;
/// What a word of an action's phrase counts (out of ten) for the other actions it matches.
const PHRASE_WORD: i64 = 5;
/// How such a word matched (in an explanation); it explains half of its term.
const IN_A_PHRASE: &str = "in a phrase";

/// A long prompt read whole counts this share (in percent) of its score.
const WHOLE_PROMPT: i64 = 65;

/// One query word with what it may match: itself and the catalog words it means (at
/// points out of ten), and the actions a phrase of theirs names.
#[derive(Debug, Clone)]
pub struct Query {
    pub word: String,
    pub stemmed: String,
    /// (term, points out of 10, how it matched)
    pub candidates: Vec<(String, i64, &'static str)>,
    /// Documents a phrase names.
    pub actions: Vec<u32>,
    /// Read from a misspelling by the typo fallback.
    pub typo: bool,
    /// Names a container ("in this project"): it counts for less.
    pub context: bool,
    /// A verb read as what the thing is for, not what to do.
    pub purpose: bool,
}

impl Query {
    pub fn new(
        token: &Token,
        action_documents: &[Option<u32>],
        actions: &[&'static Action],
    ) -> Self {
        let context = token.role == tokens::Role::Context;
        let (exact, synonym, how) = match (token.typo, context) {
            (_, true) => (4, 3, "in context"),
            (true, false) => (7, 6, "looks like"),
            (false, false) => (10, 8, "matched"),
        };
        let stemmed = super::stem(&token.word);
        let mut candidates = vec![(stemmed.clone(), exact, how)];
        for term in &token.meaning.terms {
            if !candidates.iter().any(|(t, ..)| t == term) {
                candidates.push((term.to_string(), synonym, "means"));
            }
        }
        // An action's phrase ("group audit event") names that action, and its words still
        // say what its siblings are about ("group audit events" lists them).
        if !token.meaning.actions.is_empty() {
            for word in token
                .word
                .split(' ')
                .filter(|w| !w.is_empty() && !super::words::is_stop_word(w))
            {
                let stemmed = super::stem(word);
                if !candidates.iter().any(|(t, ..)| *t == stemmed) {
                    candidates.push((stemmed, PHRASE_WORD, IN_A_PHRASE));
                }
            }
        }
        Self {
            word: token.word.clone(),
            stemmed,
            candidates,
            // Said in the plural, a single read's phrase ("members of the group") asks for
            // the list its words are about, not that one read; unless the read declares it
            // so ("notification settings").
            actions: token
                .meaning
                .actions
                .iter()
                .filter(|id| !token.plural || !plural_of_single_read(actions[**id], &token.word))
                .filter_map(|id| action_documents.get(*id).copied().flatten())
                .collect(),
            typo: token.typo,
            context,
            purpose: token.purpose,
        }
    }

    /// The lexicon gives the word a meaning beyond itself.
    pub fn has_meaning(&self) -> bool {
        self.candidates.len() > 1 || !self.actions.is_empty()
    }

    fn points_factor(&self) -> i64 {
        self.candidates.first().map_or(10, |(_, f, _)| *f)
    }
}

/// A request (or a clause of one) read once: its terms and its intent.
pub struct Reading {
    pub terms: Vec<Query>,
    /// The stems of its words in order (stop words left out), for tag phrases.
    pub stems: Vec<String>,
    /// Whether each of those words is said in the plural.
    pub plurals: Vec<bool>,
    pub intent: Intent,
    /// Terms the catalog knows (directly, by meaning or by a typo match): only these count
    /// towards coverage, so names like `hotfix/crash` cost nothing.
    pub known: usize,
    /// Of those, the terms that say what is asked: "show", "view", "check" say only how to
    /// look ("view #34" asks what "#34" does).
    pub asking: usize,
    /// Some word was read from a misspelling.
    pub has_typos: bool,
}

/// What the known requests near a request are weighed against.
enum Verdict<'a> {
    /// The rules' top score.
    Rules(i64),
    /// The rules found nothing: only requests saying the same count
    /// (`Index::says_the_same`): these words.
    SayingAll(&'a [String]),
}

/// One action's score for a reading.
#[derive(Clone)]
struct Scored {
    document: u32,
    score: i64,
    reasons: Vec<String>,
    /// One of its tags was said whole ("delete ssh ca"): the request names what it
    /// works on, part and all, in its maintainer's words.
    tagged: bool,
}

/// `score`'s tallies by document, kept per thread: a search scores once per request and
/// clause, and allocating and zeroing them each time was nearly a tenth of its scoring.
#[derive(Default)]
struct Tallies {
    points: Vec<i64>,
    matched: Vec<i64>,
    /// Terms matched only by a word of another action's phrase.
    halves: Vec<i64>,
    /// The best match of the term being read, and how it matched.
    best: Vec<i64>,
    how: Vec<(usize, Option<Class>)>,
    /// A tag said whole.
    in_phrase: Vec<bool>,
    /// The documents with a matched term, and those with a tag said whole: all that the
    /// tallies above hold for, so all that `clear` resets.
    reached: Vec<u32>,
    phrased: Vec<u32>,
    /// The documents the term being read matches (emptied as each term is counted).
    touched: Vec<u32>,
}

thread_local! {
    static TALLIES: RefCell<Tallies> = RefCell::default();
}

impl Tallies {
    /// Sized for `documents` (a thread may search several indexes).
    fn fit(&mut self, documents: usize) {
        if self.points.len() < documents {
            self.points.resize(documents, 0);
            self.matched.resize(documents, 0);
            self.halves.resize(documents, 0);
            self.best.resize(documents, 0);
            self.how.resize(documents, (0, None));
            self.in_phrase.resize(documents, false);
        }
    }

    /// Back to all zeroes, clearing only what the last scoring touched (`best` and `how`
    /// are reset as each term is read; a scoring cut short leaves them to be reset here).
    fn clear(&mut self) {
        for document in self.reached.drain(..) {
            let d = document as usize;
            self.points[d] = 0;
            self.matched[d] = 0;
            self.halves[d] = 0;
        }
        for document in self.phrased.drain(..) {
            self.in_phrase[document as usize] = false;
        }
        self.touched.clear();
        self.best.fill(0);
    }
}

impl Index {
    /// The ranked hits for a request: the whole request, and for a long prompt each clause
    /// on its own too; destructive actions only when asked for by verb and object.
    pub(super) fn rank(
        &self,
        query: &str,
        raw: &[String],
        reading: &Reading,
        unseen: Option<&str>,
        explain: bool,
    ) -> (Vec<Hit>, i64) {
        // A request that is a path and nothing else ("acme/web", "acme/platform/api?") is about
        // what the path names, as "#34" is about an issue; the words of a name say nothing
        // of what is asked, so the known requests that share them are no evidence. (A web
        // address no page is read from is not known to name a project.)
        let path_only = reading.stems.is_empty()
            && reading.intent.referenced.is_empty()
            && !reading.intent.paths.is_empty()
            && raw.iter().all(|piece| !piece.contains("://"));
        let mut scores: Vec<Scored> = self.score(reading, path_only, explain);
        // A long prompt with no joining word or stop inside is one clause, the prompt itself:
        // its reading and scores are the whole prompt's, kept rather than worked out again.
        let clauses = if raw.len() >= LONG_PROMPT {
            clauses(raw)
        } else {
            Vec::new()
        };
        let mut whole_clause =
            (clauses.len() == 1 && clauses[0] == raw && !path_only).then(|| scores.clone());
        // The request is an id, a tool name or an alias.
        if let Some((document, alias)) = self.ids.get(query.to_lowercase().as_str()) {
            let (score, reason) = if *alias {
                (ALIAS, "action alias")
            } else {
                (EXACT_ID, "exact action id")
            };
            scores.retain(|s| s.document != *document);
            scores.push(Scored {
                document: *document,
                score,
                reasons: vec![reason.to_owned()],
                tagged: false,
            });
        }

        // Long prompts: each clause is scored on its own too, earlier ones a little higher
        // (the first thing asked for is usually the first thing to do), and clauses that
        // say no operation lower (they tend to be context: "the pipeline on main failed").
        if !clauses.is_empty() {
            // The whole prompt mixes every task it mentions; a clause that asks for one
            // thing on its own should be able to beat it.
            for scored in &mut scores {
                scored.score = scored.score * WHOLE_PROMPT / 100;
            }
            // Where each document's score is, so that merging a clause is linear.
            let mut at: Vec<Option<usize>> = vec![None; self.documents.len()];
            for (place, scored) in scores.iter().enumerate() {
                at[scored.document as usize] = Some(place);
            }
            for (position, clause) in clauses.iter().enumerate() {
                let (said, scored) = match whole_clause.take() {
                    Some(scored) => (None, scored),
                    None => {
                        let said = self.read(clause);
                        let scored = self.score(&said, false, explain);
                        (Some(said), scored)
                    }
                };
                let mut factor = (90 - 8 * position as i64).max(50);
                if said.as_ref().unwrap_or(reading).intent.verbs.is_empty() {
                    factor -= 25;
                }
                for mut scored in scored {
                    scored.score = scored.score * factor / 100;
                    match at[scored.document as usize] {
                        Some(place) if scores[place].score >= scored.score => {}
                        Some(place) => {
                            if explain {
                                scored.reasons.push(format!("clause {}", position + 1));
                            }
                            scores[place] = scored;
                        }
                        None => {
                            if explain {
                                scored.reasons.push(format!("clause {}", position + 1));
                            }
                            at[scored.document as usize] = Some(scores.len());
                            scores.push(scored);
                        }
                    }
                }
            }
        }

        // The rules' own verdict, before the examples add theirs: whether anything fits well.
        let mut rules_top = scores.iter().map(|s| s.score).max().unwrap_or(0);
        let favoured = if path_only {
            None
        } else if rules_top > 0 {
            let verdict = Verdict::Rules(rules_top);
            self.weigh_examples(&mut scores, query, reading, verdict, unseen, explain)
        } else if !reading.stems.is_empty() {
            // Words no vocabulary reads ("what's been happening in acme/web", "is acme/api
            // archived?"), which people have said before in just these words: the known
            // requests that say the same stand in for the rules, as a weak match would.
            // (A bare `acme/web` says nothing of the kind: references are names.)
            let words = self.said_besides_references(raw);
            let verdict = Verdict::SayingAll(&words);
            let favoured =
                self.weigh_examples(&mut scores, query, reading, verdict, unseen, explain);
            if favoured.is_some() {
                rules_top = WEAK_MATCH;
            }
            favoured
        } else {
            None
        };

        // The action the requests favour, or, for an action nobody has asked for yet, its
        // namesake in another domain: people ask for namesakes alike ("unprotect main" as
        // "unprotect the v* tags").
        let favoured_alike = |document: u32| {
            favoured.is_some_and(|favoured| {
                favoured == document
                    || !self.documents[document as usize].asked_for
                        && self.documents[favoured as usize].action.name
                            == self.documents[document as usize].action.name
            })
        };
        for scored in &mut scores {
            let document = &self.documents[scored.document as usize];
            if !document.action.safety.destructive {
                continue;
            }
            // A guess never recommends a destructive action: when words were misspelt, a
            // destructive action stays only if an exactly spelt word names it. And it is
            // offered only when the request names both its operation and its object:
            // "delete the tag v1" never offers to delete a branch. The object may also be
            // named as people name it, when the known requests nearest to this one are for
            // this action ("remove bob from acme/web" removes a member; no word says so).
            // Either way the part its name removes must be named ("delete the epic" is no
            // request to delete a comment on it, however alike the requests for that read).
            // And a request that removes a person removes nothing else: "remove kim from
            // the games group" names the group only as where kim is.
            if (reading.has_typos && !names_exactly(reading, document))
                || spares(&self.lexicon, reading, document)
                || !(asks_for(&self.lexicon, reading, document)
                    || scored.tagged && asks_for_operation(&self.lexicon, reading, document)
                    || self.phrase_names(&reading.intent, document)
                        && tells_to_act(&self.lexicon, &reading.intent)
                    || favoured_alike(scored.document)
                        && names_part(reading, document)
                        && asks_for_operation(&self.lexicon, reading, document))
            {
                scored.score = 0;
            }
        }

        scores.retain(|s| s.score > 0);
        // Ties keep catalog order.
        scores.sort_by_key(|s| (std::cmp::Reverse(s.score), s.document));
        let hits = scores
            .into_iter()
            .map(|s| Hit {
                action: self.documents[s.document as usize].action,
                score: s.score,
                reasons: s.reasons,
            })
            .collect();
        (hits, rules_top)
    }

    /// Adds what the known requests near `query` say: each action they point at gains its
    /// share of `EXAMPLE_WEIGHT` times the rules' top score. An action nobody has asked for
    /// yet (new in the manifest) is judged by the rules alone, its score scaled as if the
    /// requests agreed with them, so that it is not outvoted for lack of requests. Only
    /// actions the rules reached or the requests name are touched; destructive ones are
    /// still gated afterwards. When the rules found nothing, only the known requests that
    /// say the same as `query` count (`Index::says_the_same`). Returns the action the
    /// requests favour most.
    fn weigh_examples(
        &self,
        scores: &mut Vec<Scored>,
        query: &str,
        reading: &Reading,
        verdict: Verdict<'_>,
        unseen: Option<&str>,
        explain: bool,
    ) -> Option<u32> {
        // With no verdict of the rules, the requests that say the same count as much as
        // they would beside a weak match.
        let (rules_top, same) = match verdict {
            Verdict::Rules(top) => (top, None),
            Verdict::SayingAll(words) => (WEAK_MATCH, Some(words)),
        };
        // A purpose's verb says what the thing is for: people asking to do it said it
        // otherwise ("approve !42" is not "a comment on !42 to approve it").
        let purposes: Vec<&str> = reading
            .terms
            .iter()
            .filter(|q| q.purpose)
            .map(|q| q.word.as_str())
            .collect();
        let mut favoured = None;
        let examples = self.lexicon.examples();
        // The rules' scores, before the requests add theirs.
        let rules: Vec<(u32, i64)> = scores.iter().map(|s| (s.document, s.score)).collect();
        let mut at: HashMap<u32, usize> = scores
            .iter()
            .enumerate()
            .map(|(place, scored)| (scored.document, place))
            .collect();
        // Misspelt words are compared as the words they were read as ("pipleine").
        let mut corrected = query.to_owned();
        for q in reading.terms.iter().filter(|q| q.typo) {
            corrected.push(' ');
            corrected.push_str(&q.word);
        }
        for evidence in examples.evidence(&corrected, &purposes, unseen) {
            let Some(document) = self.action_documents[evidence.action] else {
                continue;
            };
            if same.is_some_and(|words| !self.says_the_same(evidence.nearest(), words)) {
                continue;
            }
            favoured.get_or_insert(document);
            let points = (EXAMPLE_WEIGHT * rules_top as f64 * evidence.share).round() as i64;
            if points <= 0 {
                break;
            }
            let reason = || format!("like \"{}\" +{points}", evidence.nearest());
            match at.get(&document) {
                Some(&place) => {
                    scores[place].score += points;
                    if explain {
                        scores[place].reasons.push(reason());
                    }
                }
                None => {
                    at.insert(document, scores.len());
                    scores.push(Scored {
                        document,
                        score: points,
                        reasons: if explain { vec![reason()] } else { Vec::new() },
                        tagged: false,
                    });
                }
            }
        }
        self.weigh_new(scores, &rules, explain);
        favoured
    }

    /// What a request's pieces say besides their references (`tokens::said`), as the
    /// known requests' terms, sorted.
    fn said_besides_references(&self, pieces: &[String]) -> Vec<String> {
        let mut terms = terms(&tokens::said(pieces, &self.lexicon).join(" "));
        terms.sort_unstable();
        terms.dedup();
        terms
    }

    /// Whether a known request says what a request whose words (besides references) are
    /// `words` says: all of them but one in three (a name said as a word: "what has tomas
    /// been doing" for "what has mchen been doing"), and at most two more ("what's been
    /// happening in acme/web today?" for "what's happening on acme/shop"), not merely some
    /// of them. Reads the known request's text: only for the rare request the rules found
    /// nothing for.
    fn says_the_same(&self, known: &str, words: &[String]) -> bool {
        let own = self.said_besides_references(&tokens::pieces(known));
        let unsaid = words
            .iter()
            .filter(|w| own.binary_search(w).is_err())
            .count();
        own.iter()
            .filter(|w| words.binary_search(w).is_err())
            .count()
            <= 2
            && unsaid <= words.len() / 3
    }

    /// An action nobody has asked for yet (new in the manifest) has no requests to vote
    /// for it, so the requests' votes for another action must not outvote it when its own
    /// words fit better: it gains as much as the most favoured action it outscores by the
    /// rules (or, at least, as if the requests agreed with the rules' verdict on it). Their
    /// requests share words with this one, which is why they were near; the rules say which
    /// of the two the words name.
    fn weigh_new(&self, scores: &mut [Scored], rules: &[(u32, i64)], explain: bool) {
        let new = |document: u32| !self.documents[document as usize].asked_for;
        if !rules.iter().any(|(document, _)| new(*document)) {
            return;
        }
        let rules_of: HashMap<u32, i64> = rules.iter().copied().collect();
        // What the requests gave each asked action, by the rules' score it had.
        let mut gained: Vec<(i64, i64)> = scores
            .iter()
            .filter(|s| !new(s.document))
            .map(|s| {
                let before = rules_of.get(&s.document).copied().unwrap_or(0);
                (before, s.score - before)
            })
            .collect();
        // The most each action name (`group_list`, `note_create`) gained in other domains:
        // people ask for namesakes alike ("in the acme group", "reply to the thread").
        let mut by_name: HashMap<&str, i64> = HashMap::new();
        for scored in scores.iter().filter(|s| !new(s.document)) {
            let before = rules_of.get(&scored.document).copied().unwrap_or(0);
            let name = self.documents[scored.document as usize].action.name;
            let most = by_name.entry(name).or_default();
            *most = (*most).max(scored.score - before);
        }
        gained.sort_unstable();
        // The most any action scoring at most so much by the rules gained.
        let mut most = 0;
        for entry in &mut gained {
            most = most.max(entry.1);
            entry.1 = most;
        }
        for scored in scores.iter_mut().filter(|s| new(s.document)) {
            let own = (EXAMPLE_WEIGHT * scored.score as f64).round() as i64;
            let place = gained.partition_point(|(before, _)| *before <= scored.score);
            let outscored = place.checked_sub(1).map_or(0, |p| gained[p].1);
            let name = self.documents[scored.document as usize].action.name;
            let namesake = by_name.get(name).map_or(0, |g| g * NAMESAKE / 100);
            let inherited = outscored.max(namesake);
            scored.score += own.max(inherited);
            if explain && inherited > own {
                scored
                    .reasons
                    .push(format!("new, outscores the requests' choice +{inherited}"));
            }
        }
    }

    /// Scores every action a reading reaches; with `path_only`, a whole request that is a
    /// path and nothing else (`rank`), also the actions of the domains the path names.
    fn score(&self, reading: &Reading, path_only: bool, explain: bool) -> Vec<Scored> {
        TALLIES.with(|tallies| {
            let mut tallies = tallies.borrow_mut();
            // What the last scoring touched is cleared first, even if it never returned.
            tallies.clear();
            tallies.fit(self.documents.len());
            self.score_into(&mut tallies, reading, path_only, explain)
        })
    }

    fn score_into(
        &self,
        tallies: &mut Tallies,
        reading: &Reading,
        path_only: bool,
        explain: bool,
    ) -> Vec<Scored> {
        let count = self.documents.len();
        let Tallies {
            points,
            matched,
            halves,
            best,
            how,
            in_phrase,
            reached,
            phrased,
            touched,
        } = tallies;
        let mut reasons: Vec<Vec<String>> = if explain {
            vec![Vec::new(); count]
        } else {
            Vec::new()
        };
        let mut seen: HashSet<&str> = HashSet::new();
        for term in &reading.terms {
            for (candidate, (text, factor, _)) in term.candidates.iter().enumerate() {
                let Some(postings) = self.postings.get(text.as_str()) else {
                    continue;
                };
                for (document, class) in postings {
                    let d = *document as usize;
                    let value = class.points() * factor / 10;
                    if value > best[d] {
                        if best[d] == 0 {
                            touched.push(*document);
                        }
                        best[d] = value;
                        how[d] = (candidate, Some(*class));
                    }
                }
            }
            let phrase = ACTION_PHRASE * term.points_factor() / 10;
            for document in &term.actions {
                let d = *document as usize;
                if phrase > best[d] {
                    if best[d] == 0 {
                        touched.push(*document);
                    }
                    best[d] = phrase;
                    how[d] = (0, None);
                }
            }
            // A word repeated in a prompt counts once.
            let first = seen.insert(term.stemmed.as_str());
            for document in touched.drain(..) {
                let d = document as usize;
                if matched[d] == 0 {
                    reached.push(document);
                }
                if first {
                    points[d] += best[d];
                    if explain {
                        reasons[d].push(match how[d] {
                            (candidate, Some(class)) => format!(
                                "`{}` {} {}",
                                term.word,
                                term.candidates[candidate].2,
                                class.name()
                            ),
                            (_, None) => format!("`{}` names it", term.word),
                        });
                    }
                }
                matched[d] += 1;
                if let (candidate, Some(_)) = how[d]
                    && term.candidates[candidate].2 == IN_A_PHRASE
                {
                    halves[d] += 1;
                }
                best[d] = 0;
            }
        }

        // Tags matched as whole phrases, also with the words that only say whose or how to
        // look left out ("detach my fork" says the tag "detach fork").
        let plain: Option<(Vec<String>, Vec<bool>)> = reading
            .stems
            .iter()
            .any(|stem| intent::is_neutral(stem))
            .then(|| {
                reading
                    .stems
                    .iter()
                    .zip(&reading.plurals)
                    .filter(|(stem, _)| !intent::is_neutral(stem))
                    .map(|(stem, plural)| (stem.clone(), *plural))
                    .unzip()
            });
        let readings = std::iter::once((&reading.stems, &reading.plurals))
            .chain(plain.as_ref().map(|(stems, plurals)| (stems, plurals)));
        for (stems, plurals) in readings {
            for (at, first) in stems.iter().enumerate() {
                for (document, phrase) in self.tag_phrases.get(first.as_str()).into_iter().flatten()
                {
                    // "the wiki page" names one page, not the tag "wiki pages".
                    let number_agrees = || !phrase.plural || plurals[at + phrase.stems.len() - 1];
                    if starts_with(&stems[at..], &phrase.stems)
                        && number_agrees()
                        && !in_phrase[*document as usize]
                    {
                        in_phrase[*document as usize] = true;
                        phrased.push(*document);
                    }
                }
            }
        }

        // Every action the words reach, and those the intent alone may reach.
        let intent = &reading.intent;
        let mut candidates: Vec<u32> = reached.clone();
        candidates.extend(phrased.iter());
        for (operation, _) in &intent.verbs {
            candidates.extend(self.by_operation.get(operation).into_iter().flatten());
        }
        for object in &intent.objects {
            candidates.extend(self.by_object.get(object).into_iter().flatten());
        }
        for (domain, _) in &intent.referenced {
            candidates.extend(self.by_domain.get(domain).into_iter().flatten());
        }
        // A request that is a path and nothing else: the things of the domains it names
        // (`rank`; a clause is never read so: "... on the branch from !231, feat/md-tables"
        // says where).
        if path_only {
            for domain in &intent.paths {
                candidates.extend(self.by_domain.get(domain).into_iter().flatten());
            }
        }
        if intent.first_person {
            candidates.extend(&self.callers);
        }
        candidates.sort_unstable();
        candidates.dedup();

        let known = reading.known as i64;
        // A request that says nothing the catalog knows but its references ("#34", "what's
        // #112 about", "view #34") has nothing else to go by: what they point at is its intent.
        let intent_alone = if reading.asking == 0 && !intent.references.is_empty() {
            1
        } else {
            INTENT_ALONE
        };
        let mut out = Vec::with_capacity(candidates.len());
        for document in candidates {
            let d = document as usize;
            let mut why = if explain {
                std::mem::take(&mut reasons[d])
            } else {
                Vec::new()
            };
            let mut score = points[d];
            if in_phrase[d] {
                score += PHRASE_BONUS;
                if explain {
                    why.push("phrase in its tags".to_owned());
                }
            }
            let agreement = self.agreement(&self.documents[d], intent, explain.then_some(&mut why));
            // Without a matched word, only a clear intent (the right object, a reference) counts.
            if matched[d] == 0 && agreement < intent_alone {
                continue;
            }
            score += agreement;
            // Scale by coverage of the words the catalog knows: an action that explains every
            // such word beats one that explains a few strongly.
            let known = known.max(matched[d]).max(1);
            let coverage = (2 * matched[d] - halves[d]) * 50 / known;
            out.push(Scored {
                document,
                score: score * (50 + coverage / 2) / 100,
                reasons: why,
                tagged: in_phrase[d],
            });
        }
        out
    }

    /// Whether a phrase of `document`'s action is said in the request.
    fn phrase_names(&self, intent: &Intent, document: &Document) -> bool {
        intent
            .actions
            .iter()
            .any(|id| std::ptr::eq(self.lexicon.actions[*id], document.action))
    }

    /// Points for agreeing (or not) with what the request asks for.
    fn agreement(
        &self,
        document: &Document,
        intent: &Intent,
        mut reasons: Option<&mut Vec<String>>,
    ) -> i64 {
        // Formatted only when explaining: `agreement` runs for every candidate of every find.
        let mut say = |reason: std::fmt::Arguments| {
            if let Some(reasons) = reasons.as_deref_mut() {
                reasons.push(reason.to_string());
            }
        };
        let operation = &self.lexicon.operations[document.operation];
        let mut points = 0;
        if !intent.verbs.is_empty() {
            // Words may name several operations ("add" creates or updates); the operation
            // most words name counts fully, the others in proportion.
            // A word an action gave a shared operation asks for it in that action's domain
            // only: "revoke" (a leaked token's revocation is a create) asks no other
            // domain's create.
            let out_of_scope = intent
                .asked
                .iter()
                .filter(|(word, operation)| {
                    *operation == document.operation
                        && !asks_here(&self.lexicon, document, word, *operation)
                })
                .count() as i64;
            let votes = (intent.votes(document.operation) - out_of_scope).max(0);
            let most = intent.verbs.iter().map(|(_, v)| *v).max().unwrap_or(1);
            if votes > 0 {
                points += VERB_MATCH * votes / most;
                say(format_args!("asks to {operation}"));
            } else if intent
                .verb_words
                .iter()
                .any(|w| document.verbs.iter().any(|v| v == w))
                && (document.action.is_mutation()
                    || self.phrase_names(intent, document)
                    || !tells_to_change(&self.lexicon, intent))
            {
                // "remove the estimate" asks for what "Remove an issue's time estimate"
                // does, whatever operation the vocabulary calls it. Told to make a change,
                // a read's words say what it reads, though: "close !77" asks no "Issues a
                // merge request closes" ("which issues will this close" does, and
                // "namespaces I can create projects in", a phrase of the read, names it).
                points += VERB_MATCH / most;
                say(format_args!("asks in its own words"));
            } else {
                points += VERB_MISMATCH;
            }
        } else {
            // An action named in the plural reads what the plural names ("approvals on
            // !56" reads `merge_request.approvals`, one object).
            let named_in_plural = || {
                document
                    .action
                    .name
                    .split('_')
                    .any(|word| intent.plurals.iter().any(|p| p == word))
            };
            match intent.implied_shape() {
                Some(Shape::Many) if document.shape == Shape::One && named_in_plural() => {
                    points += IMPLIED_VERB;
                    say(format_args!("implies {operation}"));
                }
                Some(shape) if shape == document.shape => {
                    points += IMPLIED_VERB;
                    say(format_args!("implies {operation}"));
                }
                Some(_) => points += IMPLIED_MISMATCH,
                None => {}
            }
            // A request that only names a thing asks for the thing itself: of the reads
            // of one such thing, the one that reads it whole, not a part of it ("!12" is
            // the merge request, before its approvals or its diff).
            if intent.names_only
                && document.reads_whole
                && intent.referenced.iter().any(|(d, _)| *d == document.domain)
            {
                points += WHOLE_THING;
                say(format_args!("reads the thing it names"));
            }
            // A change is asked for by a verb: a request that names none wants to read.
            if document.action.is_mutation() {
                points += if intent.question {
                    QUESTION_MUTATION
                } else {
                    UNASKED_MUTATION
                };
            }
        }
        // Reading one thing by its id, and the request names nothing, or names no number
        // for a thing read by one: the less likely ask.
        if document.needs_target
            && (intent.references.is_empty() || (document.needs_number && !intent.gives_number))
        {
            points += UNNAMED_TARGET;
        }
        // Listing the things of one thing by its number, and the request gives none ("jobs
        // of acme/web" are the project's, not a pipeline's).
        if document.lists_by_number && !intent.gives_number {
            points += UNNAMED_TARGET;
            // A change of one thing by its number, asked of many ("approve every pending
            // member"): an action that changes them all is the likelier ask.
            if document.shape == Shape::Change && intent.plural {
                points += UNNAMED_TARGET;
            }
        }
        // An object that is also another domain's noun (`group` in `label.group_create`)
        // qualifies the action's own domain: it is matched only when the request names that
        // domain too ("a label for the whole group"); "create a group" asks for a group.
        // To an action of the domain the word names, it is no foreign object.
        let own_domain_named = intent.domains.contains(&document.domain);
        let matches_object = |object: &usize| {
            let names = self.lexicon.object_domains(*object);
            intent.objects.contains(object)
                && (own_domain_named || names.is_empty() || names.contains(&document.domain))
        };
        // But the noun of a domain that contains nothing (`contributor`, a member, in
        // `repository.contributor_list`; `tag` in `container_registry.tag_list`) may be
        // the thing the action works on: named, it neither counts for the action nor
        // against it, and the domain it names is not foreign to it.
        let names_noun_object = |object: &usize| {
            let names = self.lexicon.object_domains(*object);
            intent.objects.contains(object)
                && names.iter().all(|d| !self.container_domains.contains(d))
        };
        // A verb may name what the action works on: "protect main" names `protected`, the
        // object of protecting a branch, when the action's own title or tags use the verb
        // ("Protect a branch"): "merge !42" names no `merged` branches.
        let verb_names_object = |object: &usize| {
            let object = &self.lexicon.objects[*object];
            intent
                .verb_words
                .iter()
                .zip(&intent.verb_stems)
                .any(|(verb, stemmed)| {
                    verb == object
                        || names_as_verb(stemmed, object)
                            && document.verbs.iter().any(|v| v == stemmed)
                })
        };
        // An action's own verb said without its object works on the first thing named
        // after it: "reply in thread 9ac0 on #34" answers the thread.
        let own_verb_asked = !intent.head_names_thing
            && !self.lexicon.is_shared_operation(document.operation)
            && intent.votes(document.operation) > 0;
        let worked_on_after_verb =
            |object: &usize| own_verb_asked && intent.context_objects.contains(object);
        if !document.objects.is_empty() {
            if document
                .objects
                .iter()
                .any(|o| matches_object(o) || verb_names_object(o) || worked_on_after_verb(o))
            {
                points += OBJECT_MATCH;
                say(format_args!("names what it works on"));
                // Only the parts no domain's noun names: those say what is worked on.
                let part = |o: &usize| self.lexicon.object_domains(*o).is_empty();
                let unnamed = document
                    .objects
                    .iter()
                    .any(|o| part(o) && !intent.objects.contains(o) && !verb_names_object(o));
                let other = intent
                    .objects
                    .iter()
                    .any(|o| part(o) && !document.objects.contains(o));
                if unnamed || other {
                    points += OBJECT_PARTIAL;
                }
            } else if !document.objects.iter().any(names_noun_object) {
                points += OBJECT_MISSING;
            }
        } else if intent
            .objects
            .iter()
            .any(|o| !self.lexicon.object_domains(*o).contains(&document.domain))
        {
            // The request names a part this action does not work on (a file, a log).
            points += OBJECT_FOREIGN;
        }
        // "MRs of a project", "invite jane to acme/web": an action scoped by that container
        // fits; one over the whole instance does not. (A container is a domain some action's
        // path is scoped by.) A path (`acme/platform`) names a project, unless the word
        // beside it names another container a path names ("the acme/platform group", "group
        // acme"): then an action scoped by a project is not what it asks for. (For that
        // container's own actions the word already names their domain.)
        let paths: &[usize] = if intent.path_said_as.iter().any(|d| {
            self.path_containers.contains(d) && !intent.paths.contains(d) && *d != document.domain
        }) {
            &[]
        } else {
            &intent.paths
        };
        let named = |domain: &usize| {
            intent.containers.contains(domain)
                || paths.contains(domain)
                || intent.domains.contains(domain)
        };
        // A word that names this action's object names no container of it, though it is
        // a container's noun too ("namespaces" for `user.namespace_list`).
        let names_own_object = |domain: &usize| {
            document.objects.iter().any(|object| {
                intent.objects.contains(object)
                    && self.lexicon.object_domains(*object).contains(domain)
            })
        };
        let said_containers = || intent.containers.iter().chain(paths).chain(&intent.domains);
        for (at, container) in said_containers().enumerate() {
            // Whether a container is counted depends on it alone: said again, it is not
            // counted again.
            if *container == document.domain
                || !self.container_domains.contains(container)
                || said_containers().take(at).any(|c| c == container)
                || !intent.containers.contains(container)
                    && !paths.contains(container)
                    && names_own_object(container)
            {
                continue;
            }
            let name = &self.lexicon.domains[*container].name;
            match document.container {
                Some(scope) if scope == *container => {
                    points += CONTAINER_MATCH;
                    say(format_args!("scoped by the {name}"));
                }
                None => {
                    points += CONTAINER_MISSING;
                    say(format_args!("not scoped by the {name}"));
                }
                // Scoped by another container ("on acme/web" and a group's members), unless
                // it is one of the request's containers too.
                Some(scope) if !named(&scope) => {
                    points += CONTAINER_OTHER;
                    say(format_args!("scoped by another container than the {name}"));
                }
                Some(_) => {}
            }
        }
        for (at, (domain, reference)) in intent.referenced.iter().enumerate() {
            // Each kind of reference to this domain counts once.
            if *domain != document.domain
                || intent.referenced[..at].contains(&(*domain, *reference))
            {
                continue;
            }
            points += match reference {
                Reference::Bang | Reference::Mention | Reference::Sigil(_) => NAMING_REFERENCE,
                Reference::Hash => LEANING_REFERENCE,
                _ => 0,
            };
        }
        // `!42` names a merge request, `#17` (most likely) an issue, wherever it is said:
        // an action of another domain that takes none has no use for it ("approval rules
        // of !42" are the merge request's, not the project's).
        if intent
            .numbered
            .iter()
            .any(|domain| *domain != document.domain && !document.takes.contains(domain))
        {
            points += REFERENCE_UNUSED;
        }
        // "job 442100" names a job as `#17` names an issue; a noun may be several domains'
        // ("migration 8"): an action that takes the number of none of them has no use for it.
        if !intent.numbered_by_noun.is_empty()
            && intent.numbered_by_noun.iter().all(|(domain, noun)| {
                *domain != document.domain
                    && !document.takes.contains(domain)
                    && !takes(document.action, noun)
            })
        {
            points += REFERENCE_UNUSED;
        }
        // Nor has a read of one thing of that very domain that is told no thing to read:
        // "did pipeline 99 pass" is that pipeline, not the latest one.
        if document.shape == Shape::One
            && !document.needs_target
            && intent
                .numbered_by_noun
                .iter()
                .any(|(domain, noun)| *domain == document.domain && !takes(document.action, noun))
        {
            points += REFERENCE_UNUSED;
            say(format_args!("takes no thing to read"));
        }
        // The domains a named object of this action names are not foreign to it.
        let foreign = intent.domains.iter().all(|domain| {
            *domain != document.domain
                && !document.objects.iter().any(|object| {
                    names_noun_object(object)
                        && self.lexicon.object_domains(*object).contains(domain)
                })
        });
        if !intent.domains.is_empty() && foreign {
            points += DOMAIN_FOREIGN;
        }
        let domain_agrees = intent.domains.is_empty() || intent.domains.contains(&document.domain);
        if intent.references.contains(&Reference::Mention) && document.caller {
            // `@bob` is someone else.
            points += MENTION_NOT_CALLER;
        }
        match (intent.first_person, document.caller) {
            (true, true) if domain_agrees => {
                points += FIRST_PERSON;
                say(format_args!("about the caller"));
            }
            (false, true)
                if intent.domains.contains(&document.domain) || !intent.references.is_empty() =>
            {
                points += NOT_FIRST_PERSON;
            }
            _ => {}
        }
        points
    }
}

/// The operations every domain shares that change something.
const CHANGES: [&str; 3] = ["create", "update", "delete"];

/// Whether the request tells to make a change: it is no question, and every operation
/// its verbs ask for changes something.
fn tells_to_change(lexicon: &Lexicon, intent: &Intent) -> bool {
    !intent.question
        && intent
            .verbs
            .iter()
            .all(|(operation, _)| CHANGES.contains(&lexicon.operations[*operation].as_str()))
}

/// The operations every domain shares that read.
const READS: [&str; 2] = ["list", "get"];

/// Whether the request tells to do something: it is no question, and its words ask for
/// operations, none of them a read ("show how to reach inbox zero" marks nothing done).
fn tells_to_act(lexicon: &Lexicon, intent: &Intent) -> bool {
    !intent.question
        && !intent.verbs.is_empty()
        && intent
            .verbs
            .iter()
            .all(|(operation, _)| !READS.contains(&lexicon.operations[*operation].as_str()))
}

/// Whether `action` takes a thing of `domain` by its id or iid (`merge_request_iid`).
fn takes(action: &Action, domain: &str) -> bool {
    action.params.iter().any(|param| stands_for(param, domain))
}

/// Whether `phrase`, said in the plural, is one of a single read's phrases said in the
/// plural where the read declares it in the singular.
fn plural_of_single_read(action: &Action, phrase: &str) -> bool {
    let said: Vec<&str> = phrase.split(' ').collect();
    let head = tokens::head_word(&said);
    Shape::of(action) == Shape::One
        && !action.vocabulary.phrases.iter().any(|declared| {
            let declared: Vec<&str> = declared.split(' ').collect();
            tokens::head_word(&declared) == head
        })
}

/// Whether a request names both a destructive action's operation and its object: its
/// domain, by name, synonym or a reference at the head of the request (`README.md`, `!42`),
/// and the part of it the action removes when its name says one ("delete the epic" asks
/// to remove no reaction from it, "remove the note" no reaction from the note).
fn asks_for(lexicon: &Lexicon, reading: &Reading, document: &Document) -> bool {
    if !names_part(reading, document) {
        return false;
    }
    let verb = asks_for_operation(lexicon, reading, document);
    let object = reading.intent.domains.contains(&document.domain)
        || removes_person(reading, document)
        || reading
            .intent
            .referenced
            .iter()
            .any(|(domain, _)| *domain == document.domain)
        || reading.terms.iter().any(|q| {
            q.candidates
                .iter()
                .any(|(term, ..)| names_domain(document, term))
        });
    verb && object
}

/// Whether a request names the person an action works on in a container it names, with
/// one of the action's own verbs: "remove kim from the games group", "kick @bob out of
/// acme/web" (no word names a member; the verb and the container say it).
fn removes_person(reading: &Reading, document: &Document) -> bool {
    let intent = &reading.intent;
    document.person
        && intent.person
        && document.container.is_some_and(|c| {
            [
                &intent.containers,
                &intent.paths,
                &intent.path_said_as,
                &intent.domains,
            ]
            .iter()
            .any(|named| named.contains(&c))
        })
        && intent
            .asked
            .iter()
            .chain(&intent.phrase_verbs)
            .any(|(word, operation)| {
                *operation == document.operation && document.verbs.iter().any(|verb| verb == word)
            })
}

/// Whether a request that names a person spares what an action removes: the action takes
/// no person, and the request names its domain only as where the person is.
fn spares(lexicon: &Lexicon, reading: &Reading, document: &Document) -> bool {
    reading.intent.person
        && reading.intent.containers.contains(&document.domain)
        && !reading.intent.domains.contains(&document.domain)
        && !lexicon
            .people()
            .any(|people| document.takes.contains(&people))
}

/// Whether a request names the part of its domain a destructive action removes, when its
/// name says one (`note` for `note_delete`, `reaction` for `note_reaction_remove`).
fn names_part(reading: &Reading, document: &Document) -> bool {
    document.parts.is_empty()
        || document
            .parts
            .iter()
            .any(|part| reading.intent.objects.contains(part))
}

/// Whether a request asks for the action's operation (a word of it, or one of its verbs).
/// A word an action gave a shared operation asks for it only in that action's domain
/// (`Lexicon::verb_asks_in`) or where the action's own title or tags use it ("Revoke a
/// deploy token"); an operation a phrase asked for, with no word, is the phrase's.
fn asks_for_operation(lexicon: &Lexicon, reading: &Reading, document: &Document) -> bool {
    if reading.intent.votes(document.operation) == 0 {
        return false;
    }
    let mut words = reading
        .intent
        .asked
        .iter()
        .filter(|(_, operation)| *operation == document.operation)
        .peekable();
    words.peek().is_none()
        || words.any(|(word, operation)| asks_here(lexicon, document, word, *operation))
}

/// Whether `word` (a stem), which asks for `operation`, asks for it of this action: it is
/// one of the action's own verbs, or it asks for the operation in the action's domain
/// (`Lexicon::verb_asks_in`).
fn asks_here(lexicon: &Lexicon, document: &Document, word: &str, operation: usize) -> bool {
    document.verbs.iter().any(|verb| verb == word)
        || lexicon.verb_asks_in(word, operation, document.domain)
}

/// Whether a request names the action's domain or object with an exact (not misspelt)
/// word, itself or by what it means (`wiki page` for `wiki`).
fn names_exactly(reading: &Reading, document: &Document) -> bool {
    reading
        .terms
        .iter()
        .filter(|q| !q.typo && !q.context)
        .any(|q| {
            q.candidates.iter().any(|(term, ..)| {
                document.names(term.as_str()).is_some_and(|class| {
                    matches!(class, Class::Domain | Class::Action | Class::Tag)
                })
            })
        })
}

/// Whether a verb (stemmed) names an object as the catalog stems it: the
/// object itself ("archive" an `archive`), or its participle or noun ("protect" names
/// `protected`, "protect" `protection`, "pin" `pinned`). Objects keep their `-ed` (states
/// such as `merged` are not the verb `merge`), so the forms are compared here.
fn names_as_verb(stemmed_verb: &str, object: &str) -> bool {
    let Some(rest) = object.strip_prefix(stemmed_verb) else {
        return false;
    };
    // Or its last letter doubled ("pin", `pinned`).
    let doubled = || {
        rest.strip_suffix("ed").is_some_and(|letter| {
            stemmed_verb
                .chars()
                .last()
                .is_some_and(|last| letter.chars().eq([last]))
        })
    };
    matches!(rest, "" | "d" | "ed" | "ion" | "ation") || doubled()
}

/// Whether `words` begins with `phrase`.
fn starts_with(words: &[String], phrase: &[super::Word]) -> bool {
    words.len() >= phrase.len() && words.iter().zip(phrase).all(|(w, p)| w == p)
}

fn names_domain(document: &Document, term: &str) -> bool {
    document.names(term) == Some(Class::Domain)
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
    use super::super::stem;

    fn names_as_verb(verb: &str, object: &str) -> bool {
        super::names_as_verb(&stem(verb), object)
    }

    #[test]
    fn a_verb_names_its_participle_and_its_noun() {
        // Objects are stemmed, keeping `-ed`: `protected`, `protection`, `archiv`.
        assert!(names_as_verb("protect", "protected"));
        assert!(names_as_verb("protecting", "protection"));
        assert!(names_as_verb("archive", "archived"));
        assert!(names_as_verb("archive", "archiv"));
        assert!(names_as_verb("pin", "pinned"));
        assert!(!names_as_verb("pin", "pipeline"));
        assert!(!names_as_verb("protect", "protector"));
        assert!(!names_as_verb("merge", "merger"));
    }
}

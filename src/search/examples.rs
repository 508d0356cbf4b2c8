//! Requests people really made, each with the action that answers it (`actions/requests/`),
//! as a second opinion beside the rules: a request is compared word by word (Okapi BM25)
//! with every known one and with every action's profile (all its requests as one text),
//! and each action is scored by its nearest known requests and its profile alike.
//!
//! The rules read what a request says (verbs, objects, references); the examples know how
//! people say it, in words no vocabulary list foresaw ("nuke the stale branch", "Sam left the
//! company"). Neither names a domain or an action: the examples are data, like the
//! vocabulary, and a new action ranks with its YAML alone until requests for it are written.

use std::collections::{HashMap, HashSet};

/// Words that say nothing about which action is meant.
const FILLER: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "for", "my", "me", "i", "is", "are", "be", "it",
    "this", "that", "with", "from", "by", "and", "or", "at", "as", "please", "you", "can",
];

/// A word in this share (1 in N) of the requests or more is common (`COMMON_SHARE`).
const COMMON_SHARE: usize = 4;

/// Okapi BM25's saturation and length normalisation, at their textbook values.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// An action's score is its nearest request's plus this share of the next two: several
/// close requests are surer evidence than one.
const RUNNERS_UP_SHARE: f64 = 0.5;

/// The known requests, indexed by word.
pub struct Examples {
    /// Each request's text and the actions that answer it (lexicon action ids).
    requests: Vec<(&'static str, Vec<usize>)>,
    /// The actions some request asks for.
    asked: HashSet<usize>,
    /// One more than the largest action id a request names.
    action_count: usize,
    /// Term → (request, the term's BM25 weight in it), computed once: a search only adds.
    postings: HashMap<String, Vec<(u32, f64)>>,
    /// Every action's requests as one text: term → (action, count of the term in it).
    profiles: HashMap<String, Vec<(u32, u32)>>,
    /// How long each action's profile is.
    profile_lengths: Lengths,
    /// Term → (action, the term's BM25 weight in the action's profile), computed once for
    /// searches that leave no request out.
    profile_weights: HashMap<String, Vec<(u32, f64)>>,
}

/// The lengths of a set of texts (requests, or profiles) in terms, as BM25 weighs them.
struct Lengths {
    each: Vec<u32>,
    /// The average length of the texts that have any.
    average: f64,
    /// How many texts have any terms.
    texts: f64,
}

impl Lengths {
    fn new(each: Vec<u32>) -> Self {
        let texts = each.iter().filter(|l| **l > 0).count() as f64;
        let average = each.iter().map(|l| f64::from(*l)).sum::<f64>() / texts.max(1.0);
        Self {
            each,
            average,
            texts,
        }
    }

    /// The BM25 weight of a term found `count` times in text `text`, of the `with` texts
    /// that hold it.
    fn weight(&self, text: usize, count: f64, with: f64) -> f64 {
        let idf = (1.0 + (self.texts - with + 0.5) / (with + 0.5)).ln();
        let relative_length = f64::from(self.each[text]) / self.average.max(1.0);
        let norm = K1 * (1.0 - B + B * relative_length);
        idf * count * (K1 + 1.0) / (count + norm)
    }
}

/// An action's evidence from the known requests.
pub struct Evidence {
    /// Lexicon action id.
    pub action: usize,
    /// Its score over the best action's, in (0, 1].
    pub share: f64,
    /// The nearest known request for it.
    pub nearest: &'static str,
}

impl Examples {
    /// Indexes `files` (`(source, text)`: a header line, `#` comment lines, then
    /// `request<TAB>action ids separated by |<TAB>kind`), keeping the requests whose actions
    /// `action_id` knows and those `keep` accepts by source.
    pub fn new(
        files: &[(&'static str, &'static str)],
        action_id: impl Fn(&str) -> Option<usize>,
        keep: impl Fn(&str) -> bool,
    ) -> Self {
        let mut requests = Vec::new();
        let mut terms_of = Vec::new();
        for (_, text) in files.iter().filter(|(source, _)| keep(source)) {
            for known in parse(text) {
                let actions: Vec<usize> = known
                    .actions
                    .iter()
                    .filter_map(|id| action_id(id))
                    .collect();
                if actions.is_empty() {
                    continue;
                }
                terms_of.push(terms(known.request));
                requests.push((known.request, actions));
            }
        }
        let mut counts: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        for (number, terms) in terms_of.iter().enumerate() {
            let mut in_request: HashMap<&str, u32> = HashMap::new();
            for term in terms {
                *in_request.entry(term).or_default() += 1;
            }
            for (term, count) in in_request {
                counts
                    .entry(term.to_owned())
                    .or_default()
                    .push((number as u32, count));
            }
        }
        let lengths = Lengths::new(terms_of.iter().map(|t| t.len() as u32).collect());
        let postings = counts
            .into_iter()
            .map(|(term, list)| {
                let with = list.len() as f64;
                let weighted = list
                    .into_iter()
                    .map(|(request, count)| {
                        let weight = lengths.weight(request as usize, f64::from(count), with);
                        (request, weight)
                    })
                    .collect();
                (term, weighted)
            })
            .collect();
        let asked: HashSet<usize> = requests
            .iter()
            .flat_map(|(_, a)| a.iter().copied())
            .collect();
        let action_count = asked.iter().max().map_or(0, |a| a + 1);
        let mut profile_counts: Vec<HashMap<&str, u32>> = vec![HashMap::new(); action_count];
        let mut profile_lengths = vec![0u32; action_count];
        for ((_, actions), terms) in requests.iter().zip(&terms_of) {
            for &action in actions {
                profile_lengths[action] += terms.len() as u32;
                for term in terms {
                    *profile_counts[action].entry(term).or_default() += 1;
                }
            }
        }
        let mut profiles: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        for (action, counts) in profile_counts.iter().enumerate() {
            for (term, count) in counts {
                profiles
                    .entry((*term).to_owned())
                    .or_default()
                    .push((action as u32, *count));
            }
        }
        let profile_lengths = Lengths::new(profile_lengths);
        let profile_weights = profiles
            .iter()
            .map(|(term, list)| {
                let weights = profile_weights(term, list, &profile_lengths, &HashMap::new());
                (term.clone(), weights)
            })
            .collect();
        Self {
            requests,
            asked,
            action_count,
            postings,
            profiles,
            profile_lengths,
            profile_weights,
        }
    }

    /// Whether some known request asks for the action (lexicon action id).
    pub fn asked_for(&self, action: usize) -> bool {
        self.asked.contains(&action)
    }

    /// Each action the known requests near `query` point at, best first, leaving out the
    /// words of `ignored` (a purpose's verb). A known request equal to `unseen` is ignored
    /// (to measure on the requests themselves, each as if it were new).
    pub fn evidence(&self, query: &str, ignored: &[&str], unseen: Option<&str>) -> Vec<Evidence> {
        let ignored: Vec<String> = ignored.iter().flat_map(|w| terms(w)).collect();
        let mut query_terms = terms(query);
        query_terms.retain(|t| !ignored.contains(t));
        query_terms.sort_unstable();
        query_terms.dedup();
        // Dense sums and the requests touched. A word in a quarter of all requests or more
        // (a number, a common project name) only adds to requests a rarer word reached,
        // when there is one: a request sharing nothing else is no evidence, and those
        // words' postings are most of a search's work.
        let common = self.requests.len() / COMMON_SHARE;
        let mut lists: Vec<&Vec<(u32, f64)>> = query_terms
            .iter()
            .filter_map(|term| self.postings.get(term))
            .collect();
        lists.sort_by_key(|list| list.len());
        let has_rare = lists.first().is_some_and(|list| list.len() < common);
        let mut scores = vec![0.0f64; self.requests.len()];
        let mut touched: Vec<u32> = Vec::new();
        for list in lists {
            let only_reached = has_rare && list.len() >= common;
            for &(request, weight) in list {
                let score = &mut scores[request as usize];
                if *score == 0.0 {
                    if only_reached {
                        continue;
                    }
                    touched.push(request);
                }
                *score += weight;
            }
        }
        // Each action's three nearest requests.
        let mut nearest = vec![[(0.0f64, u32::MAX); 3]; self.action_count];
        let mut reached: Vec<usize> = Vec::new();
        for request in touched {
            let score = scores[request as usize];
            let (text, actions) = &self.requests[request as usize];
            if unseen.is_some_and(|u| u == *text) {
                continue;
            }
            for &action in actions {
                let best = &mut nearest[action];
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
        let mut evidence: Vec<(usize, f64, u32)> = reached
            .into_iter()
            .map(|action| {
                let best = nearest[action];
                let score = best[0].0 + RUNNERS_UP_SHARE * (best[1].0 + best[2].0);
                (action, score, best[0].1)
            })
            .collect();
        // The nearest requests and the profiles count alike, each over its best action.
        let profile = self.profile_scores(&query_terms, unseen);
        let nearest_top = evidence.iter().map(|e| e.1).fold(0.0, f64::max);
        let profile_top = profile.iter().copied().fold(0.0, f64::max);
        if nearest_top > 0.0 && profile_top > 0.0 {
            for (action, score, _) in &mut evidence {
                *score = *score / nearest_top + profile[*action] / profile_top;
            }
        }
        evidence.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let top = evidence.first().map_or(1.0, |e| e.1);
        evidence
            .into_iter()
            .map(|(action, score, request)| Evidence {
                action,
                share: score / top,
                nearest: self.requests[request as usize].0,
            })
            .collect()
    }

    /// Each action's BM25 score with all its requests as one text (a profile of how people
    /// ask for it), without `unseen`'s lines. Nearest requests alone follow one writer's
    /// phrasing; a profile pools every word people used for the action.
    fn profile_scores(&self, query_terms: &[String], unseen: Option<&str>) -> Vec<f64> {
        let mut scores = vec![0.0f64; self.action_count];
        let Some(unseen) = unseen else {
            for term in query_terms {
                for &(action, weight) in self.profile_weights.get(term).into_iter().flatten() {
                    scores[action as usize] += weight;
                }
            }
            return scores;
        };
        // Measuring on a known request, its own words leave its actions' profiles.
        let unseen_terms = terms(unseen);
        let mut removed: HashMap<(usize, &str), u32> = HashMap::new();
        let mut lengths = self.profile_lengths.each.clone();
        for (_, actions) in self.requests.iter().filter(|(text, _)| *text == unseen) {
            for &action in actions {
                lengths[action] -= unseen_terms.len() as u32;
                for term in &unseen_terms {
                    *removed.entry((action, term.as_str())).or_default() += 1;
                }
            }
        }
        let lengths = Lengths::new(lengths);
        for term in query_terms {
            let Some(list) = self.profiles.get(term) else {
                continue;
            };
            for (action, weight) in profile_weights(term, list, &lengths, &removed) {
                scores[action as usize] += weight;
            }
        }
        scores
    }
}

/// The BM25 weight of `term` in each action's profile that holds it (`list`: action, count),
/// with `lengths` and without the counts `removed`.
fn profile_weights(
    term: &str,
    list: &[(u32, u32)],
    lengths: &Lengths,
    removed: &HashMap<(usize, &str), u32>,
) -> Vec<(u32, f64)> {
    let counts: Vec<(u32, f64)> = list
        .iter()
        .map(|&(action, count)| {
            let gone = removed.get(&(action as usize, term)).copied().unwrap_or(0);
            (action, f64::from(count - gone))
        })
        .filter(|(_, count)| *count > 0.0)
        .collect();
    let with = counts.len() as f64;
    counts
        .into_iter()
        .map(|(action, count)| (action, lengths.weight(action as usize, count, with)))
        .collect()
}

/// One line of a requests file (`actions/requests/*.tsv`, and the holdouts in the same
/// format).
pub struct KnownRequest<'a> {
    pub request: &'a str,
    /// The actions that answer it, any of them right.
    pub actions: Vec<&'a str>,
    /// `plain`, `synonym`, `typo` or `multi` (empty when the line has no third column).
    pub kind: &'a str,
}

/// The requests of a requests file: after its header line, every line but blank ones and
/// `# ` comments (a request may start with an issue reference such as `#42`), as
/// `request<TAB>ids separated by |<TAB>kind`. build.rs has checked the files it embeds.
pub fn parse(text: &str) -> impl Iterator<Item = KnownRequest<'_>> {
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty() && !line.starts_with("# ") && *line != "#")
        .filter_map(|line| {
            let mut columns = line.split('\t');
            let (request, ids) = (columns.next()?, columns.next()?);
            Some(KnownRequest {
                request,
                actions: ids.split('|').collect(),
                kind: columns.next().unwrap_or_default(),
            })
        })
}

/// A request's terms: lower-case words without filler, split at `/ . _ -`, numbers as one
/// term, `!12`, `#34`, `@sam` and `%v1` as a reference term of their kind, each word without
/// a plural or tense ending; a GitLab page's web address as the words it names.
fn terms(request: &str) -> Vec<String> {
    let lower = super::tokens::pieces(request).join(" ");
    let mut terms = Vec::new();
    let is_word_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-/".contains(c);
    let mut rest = lower.as_str();
    while !rest.is_empty() {
        let Some(start) = rest.find(|c: char| is_word_char(c) || "!#@%".contains(c)) else {
            break;
        };
        rest = &rest[start..];
        let mut word = rest;
        if let Some(sigil) = word.chars().next().filter(|c| "!#@%".contains(*c)) {
            word = &word[1..];
            if word.starts_with(is_word_char) {
                terms.push(format!("{sigil}ref"));
            }
        }
        let end = word.find(|c: char| !is_word_char(c)).unwrap_or(word.len());
        for part in word[..end].split(['/', '.', '_', '-']) {
            if part.is_empty() || FILLER.contains(&part) {
                continue;
            }
            if part.chars().all(|c| c.is_ascii_digit()) {
                terms.push("#number".to_owned());
            } else {
                terms.push(ending_removed(part).to_owned());
            }
        }
        let consumed = rest.len() - word.len() + end;
        rest = &rest[consumed.max(1)..];
    }
    terms
}

/// A word without `-ing`, `-ed`, `-es` or `-s`, when at least three letters remain.
fn ending_removed(word: &str) -> &str {
    for ending in ["ing", "ed", "es", "s"] {
        if word.len() > ending.len() + 2
            && let Some(stem) = word.strip_suffix(ending)
        {
            return stem;
        }
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_drop_filler_and_endings_and_read_references() {
        assert_eq!(
            terms("Show me the broken gadgets of !12 on train/2.4"),
            [
                "show", "broken", "gadget", "!ref", "#number", "train", "#number", "#number"
            ]
        );
        assert_eq!(
            terms("#42 blocks @sam"),
            ["#ref", "#number", "block", "@ref", "sam"]
        );
    }

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
        assert_eq!(evidence[0].nearest, "nuke the stale gadget");
        assert!(evidence[1].share < 1.0);
        assert!(examples.asked_for(1) && !examples.asked_for(2));
        // Measured as if unseen, a request does not find itself, nearest or in its action's
        // profile.
        let evidence =
            examples.evidence("nuke the stale gadget", &[], Some("nuke the stale gadget"));
        assert_eq!(evidence[0].action, 1);
    }
}

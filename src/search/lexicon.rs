//! The lexicon: what the words and phrases of a request mean, read from the manifest's
//! `vocabulary:` keys (`actions/README.md`, "Search vocabulary"), never written here.
//!
//! - a domain's *nouns* (and its name in words) name the domain: `mr`, `pull request`;
//! - an *operation*'s words ask for it: `remove` asks for `delete`, `land` for `merge`;
//! - an action's *objects* (the parts of its domain it works on) name themselves: `log`;
//! - a *synonym* means a catalog word, and so whatever that word means: `comment` → `note`;
//! - an action's *phrases* name that action alone: `who am i`;
//! - a domain's *references* say which domain `!42` or `@bob` names, and which object a SHA
//!   or a file name names.
//!
//! Entries are keyed by the stems of their words, so plurals and inflections meet. Phrases
//! are matched over whole words, leftmost and longest first.

use hashbrown::{HashMap, HashSet};

use super::Word;
use super::words::{self, ARTICLES, stem, units};
use crate::catalog::{Action, DomainInfo, Vocabulary};

/// What a word or phrase means. Ids index the lexicon's tables.
#[derive(Debug, Clone, Default)]
pub struct Meaning {
    /// Domains it names (a noun).
    pub domains: Vec<usize>,
    /// Operations it asks for (a verb).
    pub operations: Vec<usize>,
    /// Objects it names.
    pub objects: Vec<usize>,
    /// Actions it names alone (a phrase of theirs).
    pub actions: Vec<usize>,
    /// Containers a phrase names in passing: "group audit events" is about a group.
    pub containers: Vec<usize>,
    /// Catalog terms (stemmed) it also means, for matching the catalog's text.
    pub terms: Vec<Word>,
}

impl Meaning {
    /// It names a thing: a domain or an object.
    pub fn names_thing(&self) -> bool {
        !self.domains.is_empty() || !self.objects.is_empty()
    }

    fn shrink(&mut self) {
        self.domains.shrink_to_fit();
        self.operations.shrink_to_fit();
        self.objects.shrink_to_fit();
        self.actions.shrink_to_fit();
        self.containers.shrink_to_fit();
        self.terms.shrink_to_fit();
    }

    fn add(&mut self, other: &Meaning) {
        extend_unique(&mut self.domains, &other.domains);
        extend_unique(&mut self.operations, &other.operations);
        extend_unique(&mut self.objects, &other.objects);
        extend_unique(&mut self.actions, &other.actions);
        extend_unique(&mut self.containers, &other.containers);
        extend_unique(&mut self.terms, &other.terms);
    }
}

fn extend_unique<T: Clone + PartialEq>(into: &mut Vec<T>, from: &[T]) {
    for item in from {
        if !into.contains(item) {
            into.push(item.clone());
        }
    }
}

/// One entry: its meaning, and the verb forms that ask for its operations (an operation is
/// read off an inflected word only when the verb is longer than three letters).
#[derive(Debug, Clone, Default)]
struct Entry {
    meaning: Meaning,
    verbs: Vec<(String, usize)>,
    /// Actions a phrase of this entry names only as declared with a plural last word, and
    /// that word: "approval rules" names `approval.rule_list`, and "approval rule 1201"
    /// names one rule, not it.
    plural_only: Vec<(usize, String)>,
}

impl Entry {
    fn shrink(&mut self) {
        self.meaning.shrink();
        self.verbs.shrink_to_fit();
        self.plural_only.shrink_to_fit();
    }

    /// Records the actions a declared phrase names, and whether it names them in the plural.
    fn name_actions(&mut self, actions: &[usize], last_word: &str) {
        if words::is_plural(last_word) {
            for action in actions {
                if !self.meaning.actions.contains(action)
                    && !self.plural_only.iter().any(|(a, _)| a == action)
                {
                    self.plural_only.push((*action, last_word.to_owned()));
                }
            }
        } else {
            self.plural_only
                .retain(|(action, _)| !actions.contains(action));
        }
    }

    /// The actions the entry names only in the plural, said here in the singular
    /// (`last_word` is "rule" for "rules"; "reviewing" is not the singular of "reviews").
    fn said_in_singular(&self, last_word: &str) -> impl Iterator<Item = usize> {
        self.plural_only
            .iter()
            .filter(move |(_, plural)| super::known::terms::singular(plural) == last_word)
            .map(|(action, _)| *action)
    }
}

/// A reference kind a domain claims, and what it names.
#[derive(Debug, Clone)]
pub struct ReferenceMeaning {
    pub domain: usize,
    pub meaning: Meaning,
}

pub struct Lexicon {
    /// Domain names, in the order given.
    pub domains: Vec<&'static DomainInfo>,
    pub operations: Vec<String>,
    /// Object stems.
    pub objects: Vec<String>,
    /// Per object, the domains whose noun is the same word (`group` is an object of
    /// `label.group_create` and the noun of the group domain).
    object_domains: Vec<Vec<usize>>,
    /// Every action whose vocabulary was read (phrases name them by index).
    pub actions: Vec<&'static Action>,
    /// Single words as declared.
    words: HashMap<Word, Entry>,
    /// Single words by stem: every declared word with that stem, merged (`comments` finds
    /// `comment`; `files`, declared on its own, keeps its own meaning).
    stems: HashMap<Word, Entry>,
    /// Phrases by the stem of their first word: (stems, entry), longest first.
    phrases: HashMap<Word, Vec<(Vec<Word>, Entry)>>,
    /// First stems of the verbs of several words that may be said around their object
    /// (`separated_verb`): most requests have none, and are read without looking further.
    separable: HashSet<Word>,
    /// Reference kind (`!`, `#`, `@`, `sha`, `file`) → what it names, per domain.
    references: HashMap<String, Vec<ReferenceMeaning>>,
    /// Every word the vocabulary spells out, for the typo fallback.
    pub spellings: Vec<Word>,
    /// Words an action gave one of the operations every domain shares, which shared.yaml
    /// does not: (stem, operation) → the domains whose actions gave it.
    scoped_verbs: HashMap<(Word, usize), Vec<usize>>,
    /// The operations shared.yaml declares (`list`, `get`, `create`, `update`, `delete`).
    shared_operations: Vec<usize>,
    /// Each table's ids by name, keyed by `Word`, which keeps a short name inline: a
    /// search looks names up without allocating.
    ids: HashMap<(Table, Word), usize>,
}

/// The tables ids index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Table {
    Domain,
    Operation,
    Object,
}

/// A word or phrase as it is declared, and what it means.
struct Declared {
    text: String,
    meaning: Meaning,
    verb: Option<usize>,
}

impl Lexicon {
    pub fn new(
        actions: &[&'static Action],
        domains: &[&'static DomainInfo],
        vocabularies: &[&'static Vocabulary],
    ) -> Self {
        let mut lexicon = Self {
            domains: domains.to_vec(),
            operations: Vec::new(),
            objects: Vec::new(),
            object_domains: Vec::new(),
            actions: actions.to_vec(),
            words: HashMap::new(),
            stems: HashMap::new(),
            phrases: HashMap::new(),
            separable: HashSet::new(),
            references: HashMap::new(),
            spellings: Vec::new(),
            scoped_verbs: HashMap::new(),
            shared_operations: Vec::new(),
            ids: domains
                .iter()
                .enumerate()
                .map(|(id, d)| ((Table::Domain, Word::new(d.name)), id))
                .collect(),
        };
        let mut declared: Vec<Declared> = Vec::new();
        // Which domain each noun (the first entries of `declared`) names.
        let mut noun_domains: Vec<usize> = Vec::new();

        // Nouns: a domain's name in words and its declared nouns.
        for (id, domain) in domains.iter().enumerate() {
            let meaning = Meaning {
                domains: vec![id],
                terms: domain.name.split('_').map(|w| stem(w).into()).collect(),
                ..Meaning::default()
            };
            let name = domain.name.replace('_', " ");
            for noun in
                std::iter::once(name.as_str()).chain(domain.vocabulary.nouns.iter().copied())
            {
                declared.push(Declared {
                    text: noun.to_owned(),
                    meaning: meaning.clone(),
                    verb: None,
                });
                noun_domains.push(id);
            }
        }
        // Operations: the shared ones, then each action's own verbs.
        let mut shared_operations: HashSet<&str> = HashSet::new();
        let mut shared_verbs: HashSet<&str> = HashSet::new();
        for list in vocabularies.iter().flat_map(|v| v.operations.iter()) {
            let id = lexicon.operation(list.name);
            shared_operations.insert(list.name);
            extend_unique(&mut lexicon.shared_operations, &[id]);
            for word in list.words {
                shared_verbs.insert(word);
                declared.push(lexicon.verb(word, id));
            }
        }
        // A word an action gives its domain's create, update or delete (not an operation
        // of its own, such as "merge") names that domain too when no other domain uses it:
        // "invite" adds members, "kick" removes them.
        let mut verb_domains: HashMap<&str, Vec<&str>> = HashMap::new();
        for action in actions {
            for word in action.vocabulary.verbs {
                let domains = verb_domains.entry(word).or_default();
                if !domains.contains(&action.domain) {
                    domains.push(action.domain);
                }
            }
        }
        // The verbs some action gives a meaning of its own, with the domains of those
        // actions.
        let mut verbs_of_their_own: HashMap<&str, Vec<&str>> = HashMap::new();
        for action in actions.iter().filter(|a| {
            shared_operations.contains(a.vocabulary.operation)
                && own_verb(a, &shared_verbs).is_some()
        }) {
            for word in action.vocabulary.verbs {
                if !shared_verbs.contains(word) {
                    verbs_of_their_own
                        .entry(word)
                        .or_default()
                        .push(action.domain);
                }
            }
        }
        for action in actions {
            let id = lexicon.operation(action.vocabulary.operation);
            let generic = shared_operations.contains(action.vocabulary.operation);
            let own = own_verb(action, &shared_verbs);
            for word in action.vocabulary.verbs {
                if generic && !shared_verbs.contains(word) {
                    let domain = lexicon.domain_id(action.domain);
                    let domains = lexicon
                        .scoped_verbs
                        .entry((Word::new(stem(word)), id))
                        .or_default();
                    if let Some(domain) = domain
                        && !domains.contains(&domain)
                    {
                        domains.push(domain);
                    }
                }
                let mut declared_verb = lexicon.verb(word, id);
                // A verb an action gives one of the shared operations says what that
                // action does, not the operation's own word: "lock down" is to protect (a
                // create of a protection) and never names `branch.create`. An action named
                // after its operation keeps the operation's word for the verb, unless the
                // verb is another domain's action's own: `protection_rule_create` of the
                // container registry, which says "lock down" too, must not lend it
                // "create" in the branch domain.
                if generic && !shared_verbs.contains(word) {
                    match own {
                        Some(own) => declared_verb.meaning.terms = vec![stem(own).into()],
                        None if verbs_of_their_own
                            .get(word)
                            .is_some_and(|domains| !domains.contains(&action.domain)) =>
                        {
                            declared_verb.meaning.terms.clear();
                        }
                        None => {}
                    }
                }
                if let (true, false, [domain]) = (
                    generic,
                    shared_verbs.contains(word),
                    verb_domains[word].as_slice(),
                ) {
                    declared_verb
                        .meaning
                        .domains
                        .extend(lexicon.domain_id(domain));
                }
                declared.push(declared_verb);
            }
        }
        // Objects name themselves; phrases name their action.
        for (index, action) in actions.iter().enumerate() {
            for object in action.vocabulary.objects {
                let id = lexicon.object(object);
                declared.push(Declared {
                    text: (*object).to_owned(),
                    meaning: Meaning {
                        objects: vec![id],
                        terms: vec![stem(object).into()],
                        ..Meaning::default()
                    },
                    verb: None,
                });
            }
            for phrase in action.vocabulary.phrases {
                declared.push(Declared {
                    text: (*phrase).to_owned(),
                    meaning: Meaning {
                        actions: vec![index],
                        ..Meaning::default()
                    },
                    verb: None,
                });
            }
        }
        // A noun that spells out one of its domain's objects names that object too: in
        // "show personal access token 4101" the noun takes the word `personal`, which says
        // which of the domain's tokens is meant.
        let mut domain_objects: Vec<Vec<usize>> = vec![Vec::new(); domains.len()];
        for action in actions {
            let Some(domain) = lexicon.domain_id(action.domain) else {
                continue;
            };
            for object in action.vocabulary.objects {
                let id = lexicon.object(object);
                if !domain_objects[domain].contains(&id) {
                    domain_objects[domain].push(id);
                }
            }
        }
        for (noun, &domain) in declared.iter_mut().zip(&noun_domains) {
            let words = units(&noun.text);
            if words.len() < 2 {
                continue;
            }
            for word in &words {
                let key = (Table::Object, Word::new(stem(word)));
                if let Some(object) = lexicon.ids.get(&key)
                    && domain_objects[domain].contains(object)
                    && !noun.meaning.objects.contains(object)
                {
                    noun.meaning.objects.push(*object);
                }
            }
        }
        // A phrase that says the noun of its action's container names that container:
        // "group audit events" is about a group's events, not a project's. (The phrase
        // takes the word, which alone would have said so.)
        let container_nouns: HashMap<String, usize> = declared
            .iter()
            .zip(&noun_domains)
            .filter(|(noun, _)| !noun.text.contains(' '))
            .map(|(noun, domain)| (stem(&noun.text), *domain))
            .collect();
        for phrase in declared
            .iter_mut()
            .filter(|d| !d.meaning.actions.is_empty())
        {
            let action = actions[phrase.meaning.actions[0]];
            let Some(container) =
                super::index::container(action).and_then(|name| lexicon.domain_id(name))
            else {
                continue;
            };
            let says_it = units(&phrase.text)
                .iter()
                .any(|word| container_nouns.get(&stem(word)) == Some(&container));
            if says_it && lexicon.domain_id(action.domain) != Some(container) {
                phrase.meaning.containers.push(container);
            }
        }
        for item in declared {
            lexicon.insert(&item.text, &item.meaning, item.verb);
        }

        // Synonyms mean their catalog word, and whatever it means (as declared above).
        let synonyms = vocabularies
            .iter()
            .flat_map(|v| v.synonyms.iter())
            .chain(domains.iter().flat_map(|d| d.vocabulary.synonyms.iter()));
        lexicon.index_stems();
        let mut meant: Vec<(&str, Meaning)> = Vec::new();
        for list in synonyms {
            let mut meaning = lexicon
                .lookup(list.name)
                .map(|(meaning, _)| meaning)
                .unwrap_or_default();
            meaning.actions.clear();
            // A synonym does not ask for an operation: `open` means `opened`, not `open a`.
            meaning.operations.clear();
            extend_unique(&mut meaning.terms, &[stem(list.name).into()]);
            for word in list.words {
                meant.push((word, meaning.clone()));
            }
        }
        for (word, meaning) in meant {
            lexicon.insert(word, &meaning, None);
        }
        lexicon.index_stems();

        // References: what `!42`, `#17`, `@bob`, a SHA or a file name names.
        for (id, domain) in domains.iter().enumerate() {
            for (kind, word) in domain.vocabulary.references {
                let meaning = lexicon.lookup(word).map(|(m, _)| m).unwrap_or_default();
                lexicon
                    .references
                    .entry((*kind).to_owned())
                    .or_default()
                    .push(ReferenceMeaning {
                        domain: id,
                        meaning,
                    });
            }
        }
        for phrases in lexicon.phrases.values_mut() {
            phrases.sort_by_key(|(stems, _)| std::cmp::Reverse(stems.len()));
        }
        lexicon.separable = lexicon
            .phrases
            .iter()
            .filter(|(_, phrases)| phrases.iter().any(|(s, e)| separable(s, e)))
            .map(|(first, _)| first.clone())
            .collect();
        lexicon.spellings.sort();
        lexicon.spellings.dedup();
        lexicon.shrink();
        lexicon.object_domains = lexicon
            .objects
            .iter()
            .map(|object| {
                lexicon
                    .stems
                    .get(object.as_str())
                    .map(|entry| entry.meaning.domains.clone())
                    .unwrap_or_default()
            })
            .collect();
        lexicon
    }

    /// Gives back what the tables grew by while the vocabulary was read: a lexicon lives
    /// as long as the process, and growth by doubling leaves up to half of each unused.
    fn shrink(&mut self) {
        self.spellings.shrink_to_fit();
        for entry in self.words.values_mut().chain(self.stems.values_mut()) {
            entry.shrink();
        }
        for phrases in self.phrases.values_mut() {
            for (stems, entry) in phrases.iter_mut() {
                stems.shrink_to_fit();
                entry.shrink();
            }
            phrases.shrink_to_fit();
        }
        for meanings in self.references.values_mut() {
            meanings.iter_mut().for_each(|r| r.meaning.shrink());
        }
        self.words.shrink_to_fit();
        self.stems.shrink_to_fit();
        self.phrases.shrink_to_fit();
        self.scoped_verbs.shrink_to_fit();
        self.shared_operations.shrink_to_fit();
        self.ids.shrink_to_fit();
    }

    fn operation(&mut self, name: &str) -> usize {
        let key = (Table::Operation, Word::new(name));
        if let Some(id) = self.ids.get(&key) {
            return *id;
        }
        self.operations.push(name.to_owned());
        self.ids.insert(key, self.operations.len() - 1);
        self.operations.len() - 1
    }

    fn object(&mut self, name: &str) -> usize {
        let key = (Table::Object, Word::new(stem(name)));
        if let Some(id) = self.ids.get(&key) {
            return *id;
        }
        self.objects.push(key.1.to_string());
        self.ids.insert(key, self.objects.len() - 1);
        self.objects.len() - 1
    }

    fn verb(&self, word: &str, operation: usize) -> Declared {
        Declared {
            text: word.to_owned(),
            meaning: Meaning {
                operations: vec![operation],
                terms: self.operations[operation]
                    .split('_')
                    .map(|w| stem(w).into())
                    .collect(),
                ..Meaning::default()
            },
            verb: Some(operation),
        }
    }

    fn insert(&mut self, text: &str, meaning: &Meaning, verb: Option<usize>) {
        let words = units(text);
        self.spellings.extend(
            words
                .iter()
                .filter(|w| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic))
                .map(Word::from),
        );
        let stems: Vec<Word> = words.iter().map(|w| Word::from(stem(w))).collect();
        let entry = match stems.as_slice() {
            [] => return,
            [_] => self.words.entry(Word::from(&words[0])).or_default(),
            [first, ..] => {
                let phrases = self.phrases.entry(first.clone()).or_default();
                let at = match phrases.iter().position(|(s, _)| *s == stems) {
                    Some(at) => at,
                    None => {
                        phrases.push((stems.clone(), Entry::default()));
                        phrases.len() - 1
                    }
                };
                &mut phrases[at].1
            }
        };
        if stems.len() > 1
            && let Some(last) = words.last()
        {
            entry.name_actions(&meaning.actions, last);
        }
        entry.meaning.add(meaning);
        if let Some(operation) = verb {
            let form = words.join(" ");
            if !entry
                .verbs
                .iter()
                .any(|(w, o)| *w == form && *o == operation)
            {
                entry.verbs.push((form, operation));
            }
        }
    }

    /// Merges every declared word into the entry of its stem, in the words' order: what
    /// an entry means is a list (its operations, its terms), and a ranking reads it in
    /// order, so the map's own order (another in every process) must not set it.
    fn index_stems(&mut self) {
        self.stems.clear();
        let mut words: Vec<(&Word, &Entry)> = self.words.iter().collect();
        words.sort_unstable_by_key(|(word, _)| *word);
        for (word, entry) in words {
            let merged = self.stems.entry(Word::from(stem(word))).or_default();
            merged.meaning.add(&entry.meaning);
            for verb in &entry.verbs {
                if !merged.verbs.contains(verb) {
                    merged.verbs.push(verb.clone());
                }
            }
        }
    }

    /// What one word means, and whether it is a plural. A word declared as such means what
    /// it was declared to; another word what the declared words of its stem mean. An
    /// operation is read off the word itself, or off an inflection of a verb longer than
    /// three letters.
    pub fn lookup(&self, word: &str) -> Option<(Meaning, bool)> {
        let stemmed = stem(word);
        let plural = words::is_plural_of(word, &stemmed);
        let (entry, plural) = match self
            .words
            .get(word)
            .or_else(|| self.stems.get(stemmed.as_str()))
        {
            Some(entry) => (entry, plural),
            // Short words keep their `s` in the stemmer: `mrs`, `prs`.
            None => {
                let base = word.strip_suffix('s').filter(|b| b.chars().count() >= 2)?;
                (self.words.get(base)?, true)
            }
        };
        Some((self.resolve(entry, word), plural))
    }

    fn resolve(&self, entry: &Entry, word: &str) -> Meaning {
        let mut meaning = entry.meaning.clone();
        // A phrase of a list said in the singular names one of its things: not the list,
        // but still what it is about ("delete package file 77"), and still asks what its
        // first words ask ("clean up the merged branch" deletes one branch).
        let mut asked = Vec::new();
        let mut said: Option<Vec<String>> = None;
        for action in entry.said_in_singular(word.rsplit(' ').next().unwrap_or_default()) {
            meaning.actions.retain(|a| *a != action);
            let action = self.actions[action];
            if let Some(operation) = self.operation_id(action.vocabulary.operation) {
                let said = said.get_or_insert_with(|| word.split(' ').map(str::to_owned).collect());
                let asks = |meaning: &Meaning| meaning.operations.contains(&operation);
                let opens_with_verb = self.lookup(&said[0]).is_some_and(|(m, _)| asks(&m))
                    || self
                        .phrase_at(&said[..said.len() - 1], 0)
                        .is_some_and(|(_, m)| asks(&m));
                if opens_with_verb && !asked.contains(&operation) {
                    asked.push(operation);
                }
            }
            if let Some(domain) = self.domain_id(action.domain) {
                extend_unique(&mut meaning.domains, &[domain]);
            }
            for object in action.vocabulary.objects {
                if let Some(object) = self.object_id(object) {
                    extend_unique(&mut meaning.objects, &[object]);
                }
            }
        }
        meaning.operations = entry
            .verbs
            .iter()
            .filter(|(form, _)| form == word || form.chars().count() > 3)
            .map(|(_, operation)| *operation)
            .chain(asked)
            .collect();
        meaning.operations.dedup();
        meaning
    }

    /// The longest phrase that starts at `words[at]`: how many words it spans, and what it
    /// means.
    /// An article inside a phrase may be left out or added: "reset the time spent" is
    /// "reset time spent", "close issue" is "close the issue" (an article ending a phrase,
    /// `open a`, is kept).
    pub fn phrase_at(&self, words: &[String], at: usize) -> Option<(usize, Meaning)> {
        let first = stem(words.get(at)?);
        let candidates = self.phrases.get(first.as_str())?;
        let mut stemmed = Stemmed::from(words, at);
        candidates.iter().find_map(|(stems, entry)| {
            let end = phrase_end(stems, &mut stemmed, at)?;
            Some((end - at, self.resolve(entry, &words[at..end].join(" "))))
        })
    }

    /// Whether these words are exactly one declared phrase (`ci/cd` is `ci cd`).
    pub fn is_phrase(&self, words: &[String]) -> bool {
        words.len() > 1
            && self
                .phrase_at(words, 0)
                .is_some_and(|(n, _)| n == words.len())
    }

    /// What a reference kind names, per domain that claims it.
    pub fn reference(&self, kind: &str) -> &[ReferenceMeaning] {
        self.references.get(kind).map_or(&[], Vec::as_slice)
    }

    /// The domains whose things are people: those `@bob` names.
    pub fn people(&self) -> impl Iterator<Item = usize> + '_ {
        self.reference("@").iter().map(|meant| meant.domain)
    }

    /// Whether a stem is a word of the vocabulary.
    pub fn knows_stem(&self, stemmed: &str) -> bool {
        self.stems.contains_key(stemmed) || self.phrases.contains_key(stemmed)
    }
}

/// The verb of an action's name when it is not its operation's own word: the last word of
/// the name that is one of the action's verbs, a shared verb or its title's first word
/// (titles start with what the action does). `protect` (a create),
/// `remove` in `project_remove` (a delete), `revoke` in `group_revoke_leaked`; `None` for
/// `schedule_create` (its operation's word) and for a name without a verb (`snapshot`).
fn own_verb<'a>(action: &'a Action, shared_verbs: &HashSet<&str>) -> Option<&'a str> {
    let operation = action.vocabulary.operation;
    let title_verb = action.title.split(' ').next().unwrap_or_default();
    for word in action.name.rsplit('_') {
        if operation.split('_').any(|w| w == word) {
            return None;
        }
        if action.vocabulary.verbs.contains(&word)
            || shared_verbs.contains(word)
            || title_verb.eq_ignore_ascii_case(word)
        {
            return Some(word);
        }
    }
    None
}

/// The most words between a verb and the rest of it ("mark the first review thread as
/// resolved").
const VERB_GAP: usize = 4;

/// Where a phrase (`stems`) that starts at `words[at]` ends in `words`, if it is there.
fn phrase_end(stems: &[Word], words: &mut Stemmed, at: usize) -> Option<usize> {
    let (mut phrase, mut word) = (0, at);
    while phrase < stems.len() {
        let expected = &stems[phrase];
        match words.get(word) {
            Some((_, stemmed)) if *expected == stemmed => {
                phrase += 1;
                word += 1;
            }
            _ if phrase > 0
                && phrase + 1 < stems.len()
                && ARTICLES.contains(&expected.as_str()) =>
            {
                phrase += 1;
            }
            Some((w, _)) if phrase > 0 && ARTICLES.contains(&w) => word += 1,
            _ => return None,
        }
    }
    Some(word)
}

/// Words and their stems from `start` on, each stemmed when first compared: a word may
/// start dozens of phrases, and each compared its words' stems anew.
struct Stemmed<'a> {
    words: &'a [String],
    start: usize,
    stems: Vec<String>,
}

impl<'a> Stemmed<'a> {
    fn from(words: &'a [String], start: usize) -> Self {
        Self {
            words,
            start,
            stems: Vec::new(),
        }
    }

    /// Word `at` (`start` or later) and its stem.
    fn get(&mut self, at: usize) -> Option<(&str, &str)> {
        let word = self.words.get(at)?;
        let offset = at - self.start;
        while self.stems.len() <= offset {
            self.stems
                .push(stem(&self.words[self.start + self.stems.len()]));
        }
        Some((word, &self.stems[offset]))
    }
}

/// A verb of several words whose rest may come after its object. A rest that is a
/// preposition ("let in", "turn on") is one only where it ends the clause ("let everyone
/// who is waiting in"): before more words it introduces them (`separated_verb`).
fn separable(stems: &[Word], entry: &Entry) -> bool {
    stems.len() > 1 && !entry.verbs.is_empty()
}

impl Lexicon {
    /// Whether `word` may start a verb said around its object (`separated_verb`).
    pub fn may_separate(&self, word: &str) -> bool {
        self.separable.contains(stem(word).as_str())
    }

    /// A verb of several words that starts with `words[0]` and ends its clause, `words`,
    /// after its object ("mark the thread as resolved", "turn those off"): where the rest
    /// of it starts in `words`, and how many words it has. None when a phrase of several
    /// words starts at `words[0]` as it stands. When the first word is a verb alone, the
    /// rest must end the clause: before more words it is a preposition ("cut a branch off
    /// main", "kick bob off acme/web"). A first word that asks for nothing alone
    /// ("take") has no meaning of its own to keep, so its rest may come before more words
    /// ("take the screenshot off the incident"), unless that rest is a grammar word (`a`
    /// of `open a`).
    pub fn separated_verb(&self, words: &[String]) -> Option<(usize, usize)> {
        let first = stem(words.first()?);
        if !self.separable.contains(first.as_str()) {
            return None;
        }
        let candidates = self.phrases.get(first.as_str())?;
        if self
            .phrase_at(words, 0)
            .is_some_and(|(length, _)| length > 1)
        {
            return None;
        }
        let verb_alone = self
            .lookup(&words[0])
            .is_some_and(|(meaning, _)| !meaning.operations.is_empty());
        candidates
            .iter()
            .filter(|(stems, entry)| separable(stems, entry))
            .find_map(|(stems, _)| {
                let rest = &stems[1..];
                // Where the rest may start: at the clause's end only, or anywhere from the
                // third word on. A rest of grammar words (`open a`: "show the open MRs of a
                // project") is no rest before more words.
                let last = words.len().checked_sub(rest.len())?;
                let grammar = rest.iter().any(|w| words::is_stop_word(w));
                let first = if verb_alone || grammar { last } else { 2 };
                let at = (first.max(2)..=last.min(VERB_GAP + 1)).find(|&at| {
                    rest.iter()
                        .zip(&words[at..])
                        .all(|(expected, word)| *expected == stem(word))
                })?;
                Some((at, rest.len()))
            })
    }

    /// Whether `operations` (a word's) are to create and to update, both.
    pub fn asks_create_or_update(&self, operations: &[usize]) -> bool {
        let asks = |name: &str| operations.iter().any(|o| self.operations[*o] == name);
        asks("create") && asks("update")
    }

    /// Whether `operation` is one of the operations shared.yaml declares for every domain.
    pub fn is_shared_operation(&self, operation: usize) -> bool {
        self.shared_operations.contains(&operation)
    }

    pub fn operation_id(&self, name: &str) -> Option<usize> {
        self.ids.get(&(Table::Operation, Word::new(name))).copied()
    }

    /// Whether `verb` (a stem) asks for `operation` in `domain`. A word shared.yaml gives an
    /// operation asks for it everywhere; a word an action gave one of the shared operations
    /// asks for it only in that action's domain (and its kin that gave it too): "cancel"
    /// deletes an invitation, and never a pipeline, "reject" an access request, and never a
    /// deploy key.
    pub fn verb_asks_in(&self, verb: &str, operation: usize, domain: usize) -> bool {
        self.scoped_verbs
            .get(&(Word::new(verb), operation))
            .is_none_or(|domains| domains.contains(&domain))
    }

    pub fn domain_id(&self, name: &str) -> Option<usize> {
        self.ids.get(&(Table::Domain, Word::new(name))).copied()
    }

    /// The domains whose noun names `object` too.
    pub fn object_domains(&self, object: usize) -> &[usize] {
        self.object_domains.get(object).map_or(&[], Vec::as_slice)
    }

    pub fn object_id(&self, word: &str) -> Option<usize> {
        self.ids
            .get(&(Table::Object, Word::new(stem(word))))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{DomainVocabulary, WordList};

    static DOMAINS: [DomainInfo; 1] = [DomainInfo {
        name: "gizmo",
        title: "Gizmos",
        description: "",
        vocabulary: DomainVocabulary {
            nouns: &["gadget", "big gadget"],
            synonyms: &[WordList::new("gizmo", &["doohickey"])],
            references: &[("@", "gizmo")],
        },
    }];
    static VOCABULARY: Vocabulary = Vocabulary {
        operations: &[WordList::new(
            "spin",
            &[
                "spin",
                "spin around",
                "twirl",
                "whirl away",
                "open a",
                "let in",
            ],
        )],
        synonyms: &[],
    };

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn phrases_match_whole_words_longest_first() {
        let domains: Vec<&'static DomainInfo> = DOMAINS.iter().collect();
        let lexicon = Lexicon::new(&[], &domains, &[&VOCABULARY]);
        let spin = lexicon.operation_id("spin").unwrap();
        let request = words("spin around the big gadgets");
        let (length, meaning) = lexicon.phrase_at(&request, 0).unwrap();
        assert_eq!((length, meaning.operations), (2, vec![spin]));
        assert_eq!(lexicon.phrase_at(&request, 3).unwrap().0, 2);
        assert!(lexicon.phrase_at(&words("bigger gadget"), 0).is_none());
        assert!(lexicon.is_phrase(&words("big gadget")));
        let (meaning, plural) = lexicon.lookup("doohickeys").unwrap();
        assert_eq!((meaning.domains, plural), (vec![0], true));
        assert!(
            lexicon
                .lookup("spinning")
                .unwrap()
                .0
                .operations
                .contains(&spin)
        );
        assert_eq!(lexicon.reference("@")[0].domain, 0);
    }

    /// Each lexicon's maps iterate in an order of their own (hashbrown seeds every map
    /// anew), so lexicons built alike differ where that order leaks into what a word
    /// means: then one request ranks one way in one process and another in the next.
    #[test]
    fn what_a_stem_means_does_not_depend_on_the_maps_order() {
        let actions: Vec<&'static Action> = crate::catalog::ACTIONS.iter().collect();
        let domains: Vec<&'static DomainInfo> = crate::catalog::DOMAINS.iter().collect();
        let build = || Lexicon::new(&actions, &domains, &[&crate::catalog::VOCABULARY]);
        let first = build();
        let mut stems: Vec<&Word> = first.stems.keys().collect();
        stems.sort_unstable();
        let meaning = |lexicon: &Lexicon, stem: &Word| format!("{:?}", lexicon.stems.get(stem));
        for _ in 0..3 {
            let again = build();
            for stem in &stems {
                assert_eq!(meaning(&again, stem), meaning(&first, stem), "`{stem}`");
            }
        }
    }

    #[test]
    fn a_verb_may_end_after_its_object() {
        let domains: Vec<&'static DomainInfo> = DOMAINS.iter().collect();
        let lexicon = Lexicon::new(&[], &domains, &[&VOCABULARY]);
        // "spin the big gadget around": "around" is the rest of "spin around".
        assert_eq!(
            lexicon.separated_verb(&words("spin the big gadget around")),
            Some((4, 1))
        );
        // Said whole, it is the phrase as it stands.
        assert_eq!(
            lexicon.separated_verb(&words("spin around the gadget")),
            None
        );
        // Followed by more words it is a preposition: the gadget is spun, around the rest.
        assert_eq!(
            lexicon.separated_verb(&words("spin the gadget around the yard")),
            None
        );
        // Too far from the verb to be its rest.
        assert_eq!(
            lexicon.separated_verb(&words("spin the one big shiny new gadget around")),
            None
        );
        // "whirl" alone asks for nothing: its rest may come before more words.
        assert_eq!(
            lexicon.separated_verb(&words("whirl the gadget away from the yard")),
            Some((3, 1))
        );
        assert_eq!(
            lexicon.separated_verb(&words("whirl the gadget away")),
            Some((3, 1))
        );
        // A rest that is a grammar word is no rest before more words.
        assert_eq!(
            lexicon.separated_verb(&words("open gadgets of a yard")),
            None
        );
        // A preposition ending the clause is the rest of its verb; before more words it
        // introduces them.
        assert_eq!(
            lexicon.separated_verb(&words("let every gadget in")),
            Some((3, 1))
        );
        assert_eq!(
            lexicon.separated_verb(&words("let the gadget in the yard")),
            None
        );
    }
}

//! The search index over the actions one server instance offers: each action's terms by
//! field class in postings (term → actions), its profile (domain, operation, objects,
//! shape), its tag phrases, and the words the typo fallback may read a misspelling as.
//! Reading the catalog's texts (`Prepared`) is done once per catalog and shared by every
//! index over it, one per policy (per token over HTTP); a search then touches only the
//! actions its words and intent reach.

// foldhash (hashbrown's default) over SipHash: a search looks up every word of a request
// several times, in maps of catalog words nobody outside can choose.
use hashbrown::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use super::examples::Examples;
use super::intent::{self, Intent, Shape};
use super::lexicon::Lexicon;
use super::rank::{Class, Query, Reading};
use super::tokens::{self, Role};
use super::words::{self, stem};
use super::{FindRequest, Found, Word};
use crate::catalog::{self, Action, DomainInfo, Location, ParamSpec, ParamType, Vocabulary};
use crate::policy::Policy;
use crate::text::edit_distance_within;

/// A parameter on this share (percent) of the actions or more says nothing about any of
/// them (`project_id`, `page`).
const COMMON_PARAM_SHARE: usize = 20;

/// One action as the index sees it.
pub struct Document {
    pub action: &'static Action,
    /// Lexicon ids.
    pub domain: usize,
    pub operation: usize,
    pub objects: Vec<usize>,
    /// About the caller's own things.
    pub caller: bool,
    /// Reads one thing named by a parameter (an iid, a SHA, a file path).
    pub needs_target: bool,
    /// That thing is named by a number (an id or an iid).
    pub needs_number: bool,
    /// Lists the things of one thing named by a number (a pipeline's jobs).
    pub lists_by_number: bool,
    /// Reads one thing whole: its path ends at the thing (`/merge_requests/{iid}`), not
    /// at a part of it (`/merge_requests/{iid}/approvals`).
    pub reads_whole: bool,
    pub shape: Shape,
    /// The domain its path is scoped by, by the path's first segment (`project` for
    /// `/projects/{project_id}/...`), if any.
    pub container: Option<usize>,
    /// The domains whose things it takes by id or iid (`target_group_id` takes a group):
    /// asked of every candidate when a request numbers something (`!42`, `job 442100`).
    pub takes: Vec<usize>,
    /// The terms that name it (in its domain, its name or its tags) with the strongest of
    /// those classes, sorted by term; the postings hold every term, and a ranking asks a
    /// document only whether a word names it, so the rest would be a second copy of every
    /// action's words. A few words per action: a sorted slice, not a map of its own.
    terms: Box<[(Word, Class)]>,
    /// Stems of the words of its tags and title that ask for an operation.
    pub verbs: Vec<Word>,
    /// Some known request (`actions/requests/`) asks for it.
    pub asked_for: bool,
    /// The part of its domain its name says it works on (`reaction` for
    /// `note_reaction_remove`), with the objects of its own that name that part too: a
    /// destructive one removes that part, not the domain's thing. Empty when its name
    /// says no part.
    pub parts: Vec<usize>,
    /// The one thing it works on in its container is a person: a thing of the domain `@`
    /// names (`user_id` in `/groups/{group_id}/members/{user_id}`).
    pub person: bool,
}

impl Document {
    /// The strongest class in which `term` names this action (its domain, name or tags),
    /// if it does.
    pub fn names(&self, term: &str) -> Option<Class> {
        self.terms
            .binary_search_by(|(word, _)| word.as_str().cmp(term))
            .ok()
            .map(|at| self.terms[at].1)
    }
}

/// The terms of `terms` that name the action (`Document::terms`), sorted.
fn naming_terms(terms: &HashMap<Word, Class>) -> Box<[(Word, Class)]> {
    let mut naming: Vec<(Word, Class)> = terms
        .iter()
        .filter(|(_, class)| **class <= Class::Domain)
        .map(|(term, class)| (term.clone(), *class))
        .collect();
    naming.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    naming.into_boxed_slice()
}

/// The search index over the actions one server instance offers.
pub struct Index {
    pub(super) documents: Vec<Document>,
    /// The lexicon, through the prepared catalog it belongs to.
    pub(super) lexicon: LexiconOf,
    /// Term → (document, strongest class), in document order.
    pub(super) postings: HashMap<Word, Vec<(u32, Class)>>,
    /// Tags of more than one word, by the stem of their first: (document, phrase).
    pub(super) tag_phrases: HashMap<Word, Vec<(u32, TagPhrase)>>,
    /// Exact ids, tool names and aliases → (document, is an alias).
    pub(super) ids: HashMap<Word, (u32, bool)>,
    /// Documents by operation, object and domain: the ones an intent alone can reach.
    pub(super) by_operation: HashMap<usize, Vec<u32>>,
    pub(super) by_object: HashMap<usize, Vec<u32>>,
    pub(super) by_domain: HashMap<usize, Vec<u32>>,
    pub(super) callers: Vec<u32>,
    /// Lexicon action id → document.
    pub(super) action_documents: Vec<Option<u32>>,
    /// Terms that name a thing an action works on (in an id, a tag or a title), not only a
    /// parameter or a word of a description.
    things: HashSet<Word>,
    /// Words the visible actions' texts spell that the vocabulary does not, sorted, for
    /// typo matching with the lexicon's own (which every index shares, not copies).
    spellings: Box<[Word]>,
    /// The domains of the offered actions, in catalog order.
    domains: Vec<usize>,
    /// Domains some offered action's path is scoped by (`project`, `group`).
    pub(super) container_domains: HashSet<usize>,
    /// Those of them a path-like name (`acme/platform`) may name: their id is a path or an
    /// id (`project_id`, `group_id`).
    pub(super) path_containers: HashSet<usize>,
    /// (domain, operation) pairs some offered action has.
    operations_in: HashSet<(usize, usize)>,
}

/// The sentences of an action's description that are about it: one that points to another
/// action ("Group variables the project inherits: `ci_variable.group_list`") says what this
/// one is not, and its words would count for the wrong action.
fn own_sentences(action: &Action, action_ids: &HashSet<&str>) -> String {
    let points_elsewhere = |sentence: &&str| {
        sentence
            .split('`')
            .skip(1)
            .step_by(2)
            .any(|code| code != action.id && action_ids.contains(code))
    };
    let sentences: Vec<&str> = action
        .description
        .split(". ")
        .flat_map(|sentence| sentence.split("; "))
        .filter(|sentence| !points_elsewhere(sentence))
        .collect();
    sentences.join(". ")
}

/// A tag of more than one word, as stems, and whether it ends in a plural ("wiki pages"):
/// the singular ("the wiki page") then names one of those things, not the tag.
#[derive(Clone)]
pub(super) struct TagPhrase {
    pub stems: Vec<Word>,
    pub plural: bool,
}

/// What the index needs of every action of a catalog, whatever the policy: the lexicon,
/// and each action's terms, tag phrases and spellings. Reading the texts is most of the
/// cost of an index, so it is done once per catalog (for the built-in one, once per
/// process, possibly while the instance is still being fitted); an index for a policy then
/// only assembles the visible actions' parts.
pub struct Prepared {
    lexicon: Lexicon,
    /// By lexicon action id.
    actions: Vec<PreparedAction>,
    /// Action id → lexicon action id.
    by_id: HashMap<&'static str, usize>,
    /// The terms of a parameter's name and values, once per distinct parameter (most
    /// actions share `project_id`, `page`, `state`...).
    param_terms: Vec<Box<[Word]>>,
    /// Requests people made, with the actions that answer them.
    pub(super) examples: Examples,
}

struct PreparedAction {
    /// Stems of the words of its tags and title that ask for an operation.
    verbs: Vec<Word>,
    /// Term → strongest class, from every text but the parameters, by term (a list: it is
    /// only ever copied into an index, never looked up).
    terms: Vec<(Word, Class)>,
    /// Each parameter's name and its terms (an index into `Prepared::param_terms`):
    /// whether a parameter counts depends on how many of the visible actions have it.
    params: Vec<(&'static str, u32)>,
    /// Tags of more than one word.
    tag_phrases: Vec<TagPhrase>,
    /// Words of its texts the typo fallback may read a misspelling as.
    spellings: Vec<Word>,
    objects: Vec<usize>,
    /// `Document::parts`.
    parts: Vec<usize>,
    /// The domain its path is scoped by (`Document::container`).
    container: Option<usize>,
}

static BUILT_IN: OnceLock<Arc<Prepared>> = OnceLock::new();

impl Prepared {
    /// The built-in catalog, prepared on first use.
    pub fn built_in() -> Arc<Self> {
        BUILT_IN
            .get_or_init(|| {
                let actions: Vec<&'static Action> = catalog::ACTIONS.iter().collect();
                let domains: Vec<&'static DomainInfo> = catalog::DOMAINS.iter().collect();
                Arc::new(Self::new(&actions, &domains, &[&catalog::VOCABULARY]))
            })
            .clone()
    }

    /// The built-in catalog with the requests of `actions/requests/` whose file (source)
    /// `keep` accepts: leaving one writer's requests out measures the ranking on them as on
    /// requests never seen.
    pub fn built_in_with_requests(keep: impl Fn(&str) -> bool) -> Self {
        Self::built_in_learning(keep, |_| true)
    }

    /// The built-in catalog as if the actions `asked` rejects were new: no known request
    /// names them (a request for one of them and another counts for the other only). It
    /// measures how an action ranks on arrival, from its YAML alone.
    pub fn built_in_without_requests_for(asked: impl Fn(&str) -> bool) -> Self {
        Self::built_in_learning(|_| true, asked)
    }

    /// The built-in catalog learning from the requests of the files (sources) `keep`
    /// accepts, for the actions `asked` accepts.
    fn built_in_learning(keep: impl Fn(&str) -> bool, asked: impl Fn(&str) -> bool) -> Self {
        let actions: Vec<&'static Action> = catalog::ACTIONS.iter().collect();
        let domains: Vec<&'static DomainInfo> = catalog::DOMAINS.iter().collect();
        Self::prepare(&actions, &domains, &[&catalog::VOCABULARY], |action_id| {
            let action_id = |id: &str| action_id(id).filter(|_| asked(id));
            Examples::new(catalog::REQUESTS, action_id, keep)
        })
    }

    /// The vocabulary of `actions`, `domains` and the shared `vocabularies`, and every
    /// action's parts, with every known request (`actions/requests/`) for these actions,
    /// read in place from the table build.rs wrote.
    pub fn new(
        actions: &[&'static Action],
        domains: &[&'static DomainInfo],
        vocabularies: &[&'static Vocabulary],
    ) -> Self {
        Self::prepare(actions, domains, vocabularies, |action_id| {
            Examples::built_in(action_id)
        })
    }

    /// The same, learning from the known requests in the files `keep` accepts only (a
    /// table of them built on the heap).
    pub fn with_requests(
        actions: &[&'static Action],
        domains: &[&'static DomainInfo],
        vocabularies: &[&'static Vocabulary],
        keep: impl Fn(&str) -> bool,
    ) -> Self {
        Self::prepare(actions, domains, vocabularies, |action_id| {
            Examples::new(catalog::REQUESTS, action_id, keep)
        })
    }

    /// Every action's parts, and the known requests `examples` reads with a lexicon
    /// action id for each action id.
    fn prepare(
        actions: &[&'static Action],
        domains: &[&'static DomainInfo],
        vocabularies: &[&'static Vocabulary],
        examples: impl FnOnce(&dyn Fn(&str) -> Option<usize>) -> Examples,
    ) -> Self {
        let lexicon = Lexicon::new(actions, domains, vocabularies);
        // The words of the domains' names and nouns: "merge" in "List merge requests" names
        // the thing, it asks for no operation.
        let domain_words: HashSet<String> = domains
            .iter()
            .flat_map(|domain| {
                std::iter::once(domain.name.replace('_', " ")).chain(
                    domain
                        .vocabulary
                        .nouns
                        .iter()
                        .map(|noun| (*noun).to_owned()),
                )
            })
            .flat_map(|noun| words::stems(&noun))
            .collect();
        // Whether a word of a tag or title only says what to do (an operation that names no
        // thing, or a way of looking): it belongs to the intent, which weighs it against
        // the action's own operation.
        let mut generic: HashMap<String, bool> = HashMap::new();
        // Looked up for every spelling of every action.
        let lexicon_spellings: HashSet<&str> = lexicon.spellings.iter().map(Word::as_str).collect();
        let action_ids: HashSet<&str> = lexicon.actions.iter().map(|a| a.id).collect();
        let mut prepared = Vec::with_capacity(actions.len());
        let mut param_terms: Vec<Box<[Word]>> = Vec::new();
        let mut param_ids: HashMap<(&str, &[&str]), u32> = HashMap::new();
        for action in &lexicon.actions {
            let mut terms: HashMap<Word, Class> = HashMap::new();
            // The typo fallback may read a misspelling as any word of these same texts.
            let mut spellings: Vec<Word> = Vec::new();
            // The words of its tags and title that say what it does ("remove" in "Remove an
            // issue's time estimate"), whatever operation the vocabulary gives them.
            let mut verbs: Vec<Word> = Vec::new();
            let mut add = |words: &[String], class: Class| {
                spellings.extend(
                    words
                        .iter()
                        .filter(|w| w.len() >= 3 && w.chars().all(char::is_alphabetic))
                        .map(Word::from),
                );
                for word in words {
                    if matches!(class, Class::Tag | Class::Title) {
                        let is_generic = *generic.entry(word.clone()).or_insert_with(|| {
                            intent::is_neutral(word)
                                || lexicon.lookup(word).is_some_and(|(meaning, _)| {
                                    !meaning.operations.is_empty() && !meaning.names_thing()
                                })
                        });
                        if is_generic {
                            let stemmed = Word::from(stem(word));
                            if !intent::is_neutral(word)
                                && !domain_words.contains(stemmed.as_str())
                                && !verbs.contains(&stemmed)
                            {
                                verbs.push(stemmed);
                            }
                            continue;
                        }
                    }
                    upgrade(&mut terms, stem(word).into(), class);
                }
            };
            add(
                &words::words(&action.domain.replace('_', " ")),
                Class::Domain,
            );
            add(&words::words(&action.name.replace('_', " ")), Class::Action);
            let mut tag_phrases = Vec::new();
            for tag in action.tags {
                let tag_words = words::words(tag);
                if tag_words.len() > 1 {
                    tag_phrases.push(TagPhrase {
                        stems: tag_words.iter().map(|w| Word::from(stem(w))).collect(),
                        plural: tag_words.last().is_some_and(|w| words::is_plural(w)),
                    });
                }
                add(&tag_words, Class::Tag);
            }
            add(&words::words(action.title), Class::Title);
            add(
                &words::words(&own_sentences(action, &action_ids)),
                Class::Text,
            );
            let params = action
                .params
                .iter()
                .map(|param| {
                    let next = param_terms.len() as u32;
                    let at = *param_ids.entry((param.name, param.values)).or_insert(next);
                    if at == next {
                        // The name's stems, then each value's.
                        let stems = std::iter::once(param.name)
                            .chain(param.values.iter().copied())
                            .flat_map(|text| words::stems(&text.replace('_', " ")))
                            .map(Word::from)
                            .collect();
                        param_terms.push(stems);
                    }
                    (param.name, at)
                })
                .collect();
            let objects = action
                .vocabulary
                .objects
                .iter()
                .filter_map(|o| lexicon.object_id(o))
                .collect::<Vec<_>>();
            // The part its name says it works on: of the objects its name spells, the one
            // nearest the verb (`reaction` in `note_reaction_remove`), leaving out words a
            // domain's noun names too (`group` in `group_revoke` says whose token).
            let name = words::stems(&action.name.replace('_', " "));
            let part = action
                .vocabulary
                .objects
                .iter()
                .filter_map(|o| {
                    let at = name.iter().rposition(|word| *word == stem(o))?;
                    let id = lexicon.object_id(o)?;
                    lexicon.object_domains(id).is_empty().then_some((at, id))
                })
                .max()
                .map(|(_, id)| id);
            // Its other objects name that part too, unless its name spells them as what the
            // part belongs to (`note` in `note_reaction_remove`): `ca` for the `certificate`
            // of `ssh_certificate_delete`, `instance` for the `system` of `system_delete`.
            let parts = part.map_or_else(Vec::new, |part| {
                let mut parts = vec![part];
                parts.extend(action.vocabulary.objects.iter().filter_map(|o| {
                    let id = lexicon.object_id(o)?;
                    let stemmed = stem(o);
                    let spelt = name.contains(&stemmed);
                    (id != part && (!spelt || !lexicon.object_domains(id).is_empty())).then_some(id)
                }));
                parts
            });
            // Held for the process's life: no slack, and each spelling once (the index
            // unions them with the lexicon's, which has most of them already).
            spellings.sort_unstable();
            spellings.dedup();
            spellings.retain(|w| !lexicon_spellings.contains(w.as_str()));
            spellings.shrink_to_fit();
            let mut terms: Vec<(Word, Class)> = terms.into_iter().collect();
            terms.sort_unstable();
            verbs.shrink_to_fit();
            prepared.push(PreparedAction {
                verbs,
                terms,
                params,
                tag_phrases,
                spellings,
                objects,
                parts,
                container: container(action).and_then(|name| lexicon.domain_id(name)),
            });
        }
        // It borrows the lexicon, which moves into the index below.
        drop(lexicon_spellings);
        let by_id: HashMap<&'static str, usize> = lexicon
            .actions
            .iter()
            .enumerate()
            .map(|(index, action)| (action.id, index))
            .collect();
        let examples = examples(&|id| by_id.get(id).copied());
        Self {
            lexicon,
            actions: prepared,
            by_id,
            param_terms,
            examples,
        }
    }
}

/// The lexicon of a prepared catalog an index shares.
pub(super) struct LexiconOf(Arc<Prepared>);

impl LexiconOf {
    /// The known requests of the prepared catalog.
    pub(super) fn examples(&self) -> &Examples {
        &self.0.examples
    }
}

impl std::ops::Deref for LexiconOf {
    type Target = Lexicon;

    fn deref(&self) -> &Lexicon {
        &self.0.lexicon
    }
}

/// Keeps the strongest class a term appears in.
fn upgrade(terms: &mut HashMap<Word, Class>, term: Word, class: Class) {
    let entry = terms.entry(term).or_insert(class);
    if class.points() > entry.points() {
        *entry = class;
    }
}

impl Index {
    /// The index over what a policy lets an instance offer; the vocabulary is the whole
    /// catalog's, so that a request for a hidden action still reads right.
    pub fn new(policy: &Policy) -> Self {
        Self::assemble(policy.visible(), Prepared::built_in())
    }

    /// The index over `visible`, with the vocabulary of `actions`, `domains` and the shared
    /// `vocabularies` (a catalog generated from another manifest can be searched too).
    pub fn build(
        visible: impl IntoIterator<Item = &'static Action>,
        actions: &[&'static Action],
        domains: &[&'static DomainInfo],
        vocabularies: &[&'static Vocabulary],
    ) -> Self {
        Self::assemble(
            visible,
            Arc::new(Prepared::new(actions, domains, vocabularies)),
        )
    }

    /// The index over `visible`, from a prepared catalog they belong to.
    pub fn assemble(
        visible: impl IntoIterator<Item = &'static Action>,
        prepared: Arc<Prepared>,
    ) -> Self {
        let lexicon = &prepared.lexicon;
        let visible: Vec<(&'static Action, &PreparedAction)> = visible
            .into_iter()
            .filter(|a| {
                lexicon.domain_id(a.domain).is_some()
                    && lexicon.operation_id(a.vocabulary.operation).is_some()
            })
            .filter_map(|a| Some((a, &prepared.actions[*prepared.by_id.get(a.id)?])))
            .collect();

        let mut param_counts: HashMap<&str, usize> = HashMap::new();
        for (action, _) in &visible {
            for param in action.params {
                *param_counts.entry(param.name).or_default() += 1;
            }
        }
        let common = |name: &str| {
            param_counts.get(name).copied().unwrap_or(0) * 100
                >= visible.len().max(1) * COMMON_PARAM_SHARE
        };

        let mut index = Self {
            documents: Vec::with_capacity(visible.len()),
            postings: HashMap::new(),
            tag_phrases: HashMap::new(),
            ids: HashMap::new(),
            by_operation: HashMap::new(),
            by_object: HashMap::new(),
            by_domain: HashMap::new(),
            callers: Vec::new(),
            action_documents: vec![None; lexicon.actions.len()],
            things: HashSet::new(),
            spellings: Box::default(),
            domains: Vec::new(),
            operations_in: HashSet::new(),
            container_domains: HashSet::new(),
            path_containers: HashSet::new(),
            lexicon: LexiconOf(prepared.clone()),
        };
        let mut spellings: Vec<Word> = Vec::new();
        let people: Vec<&str> = lexicon
            .people()
            .map(|domain| lexicon.domains[domain].name)
            .collect();
        for (number, (action, part)) in visible.iter().enumerate() {
            let id = number as u32;
            let domain = lexicon.domain_id(action.domain).unwrap_or_default();
            let operation = lexicon
                .operation_id(action.vocabulary.operation)
                .unwrap_or_default();
            let mut terms: HashMap<Word, Class> = part.terms.iter().cloned().collect();
            for (_, at) in part.params.iter().filter(|(name, _)| !common(name)) {
                for term in &prepared.param_terms[*at as usize] {
                    upgrade(&mut terms, term.clone(), Class::Param);
                }
            }
            for phrase in &part.tag_phrases {
                index
                    .tag_phrases
                    .entry(phrase.stems[0].clone())
                    .or_default()
                    .push((id, phrase.clone()));
            }
            spellings.extend(part.spellings.iter().cloned());
            index.ids.insert(action.id.into(), (id, false));
            index.ids.insert(action.tool_name().into(), (id, false));
            for alias in action.aliases {
                index.ids.entry((*alias).into()).or_insert((id, true));
            }
            for (term, class) in &terms {
                index
                    .postings
                    .entry(term.clone())
                    .or_default()
                    .push((id, *class));
                if *class <= Class::Title {
                    index.things.insert(term.clone());
                }
            }
            for object in &part.objects {
                index.by_object.entry(*object).or_default().push(id);
            }
            index.by_operation.entry(operation).or_default().push(id);
            index.by_domain.entry(domain).or_default().push(id);
            if action.vocabulary.caller {
                index.callers.push(id);
            }
            if !index.domains.contains(&domain) {
                index.domains.push(domain);
            }
            index.operations_in.insert((domain, operation));
            let shape = Shape::of(action);
            // What a read of one thing needs named; for a list, the thing whose things
            // it lists (a pipeline's jobs).
            let targets = targets(action);
            let by_number = targets.iter().any(|p| matches!(p.ty, ParamType::Integer));
            let reads_one = shape == Shape::One;
            let person =
                matches!(targets[..], [target] if people.iter().any(|d| stands_for(target, d)));
            index.container_domains.extend(part.container);
            if container_param(action).is_some_and(|p| p.ty == ParamType::PathOrId) {
                index.path_containers.extend(part.container);
            }
            index.documents.push(Document {
                action,
                domain,
                operation,
                objects: part.objects.clone(),
                caller: action.vocabulary.caller,
                needs_target: reads_one && !targets.is_empty(),
                needs_number: reads_one && by_number,
                lists_by_number: !reads_one && by_number,
                reads_whole: reads_one && ends_at_own_thing(action),
                shape,
                container: part.container,
                takes: taken_domains(action, lexicon),
                terms: naming_terms(&terms),
                verbs: part.verbs.clone(),
                asked_for: prepared
                    .by_id
                    .get(action.id)
                    .is_some_and(|&id| prepared.examples.asked_for(id)),
                parts: part.parts.clone(),
                person,
            });
        }
        spellings.sort_unstable();
        spellings.dedup();
        index.spellings = spellings.into_boxed_slice();
        index.shrink();
        for (id, action) in lexicon.actions.iter().enumerate() {
            index.action_documents[id] = index
                .ids
                .get(action.id)
                .filter(|(_, alias)| !alias)
                .map(|(document, _)| *document);
        }
        index
    }

    /// Gives back what the containers grew by while the index was assembled: an index
    /// lives as long as its view, and growth by doubling leaves up to half of each unused.
    fn shrink(&mut self) {
        for list in self.postings.values_mut() {
            list.shrink_to_fit();
        }
        for list in self.tag_phrases.values_mut() {
            list.shrink_to_fit();
        }
        for list in [
            &mut self.by_operation,
            &mut self.by_object,
            &mut self.by_domain,
        ] {
            list.values_mut().for_each(Vec::shrink_to_fit);
            list.shrink_to_fit();
        }
        self.postings.shrink_to_fit();
        self.tag_phrases.shrink_to_fit();
        self.ids.shrink_to_fit();
        self.things.shrink_to_fit();
        self.documents.shrink_to_fit();
    }

    /// The vocabulary's spellings and the visible actions' own, each sorted.
    fn spelling_lists(&self) -> [&[Word]; 2] {
        [&self.lexicon.spellings, &self.spellings]
    }

    /// Whether the catalog spells out `word`.
    fn is_spelling(&self, word: &str) -> bool {
        self.spelling_lists()
            .iter()
            .any(|list| list.binary_search_by(|w| w.as_str().cmp(word)).is_ok())
    }

    /// The catalog's spellings that start with `first`.
    fn spellings_starting(&self, first: char) -> impl Iterator<Item = &Word> {
        self.spelling_lists().into_iter().flat_map(move |list| {
            let from = list.partition_point(|w| w.chars().next().is_none_or(|c| c < first));
            list[from..]
                .iter()
                .take_while(move |w| w.starts_with(first))
        })
    }

    /// Whether the exact pass can place a word at all.
    fn knows(&self, word: &str) -> bool {
        let stemmed = stem(word);
        self.is_spelling(word)
            || self.postings.contains_key(stemmed.as_str())
            || self.lexicon.knows_stem(&stemmed)
            || self.lexicon.lookup(word).is_some()
            || words::is_stop_word(word)
            || tokens::is_grammar(word)
    }

    /// The typo-tolerant fallback, word by word: a word the exact pass cannot place (three
    /// letters or more) is read as the known word within one edit (up to six letters) or
    /// two (longer) that starts with the same letter, the closest and then the likeliest
    /// (most typos leave a letter out). An inflection (`labeled`, `reviewing`) is not a
    /// typo of its root, and most everyday typos are one edit (`mrege`, `isue`), so a
    /// six-letter word two edits from a catalog word (`access`, `accept`) is a word of its
    /// own.
    fn correct(&self, word: &str) -> Option<String> {
        let length = word.chars().count();
        if length < 3
            || !word.chars().all(char::is_alphabetic)
            || words::is_everyday(word)
            || self.knows(word)
        {
            return None;
        }
        let allowed = if length <= 6 { 1 } else { 2 };
        let first = word.chars().next()?;
        self.spellings_starting(first)
            .filter(|known| known.chars().count().abs_diff(length) <= allowed)
            .filter(|known| !word.starts_with(known.as_str()))
            // Three letters are too few to guess from: only a word cut short (`dif`) or
            // with two letters swapped (`jbo`) is read as another; `bob` is a name, not `blob`.
            .filter(|known| length > 3 || known.starts_with(word) || same_letters(word, known))
            .filter_map(|known| Some((edit_distance_within(word, known, allowed)?, known)))
            // Among the closest: a word the request cut short (`dif`, `diff`), then one
            // with a letter left out (`grup`: `group`, not `grep`), then the first in order.
            .min_by_key(|(distance, known)| {
                (
                    *distance,
                    !known.starts_with(word),
                    known.len() <= word.len(),
                    *known,
                )
            })
            .map(|(_, known)| known.to_string())
    }

    /// Reads a request (or one clause of it): misspellings corrected, phrases grouped, each
    /// word given its role and meaning, and the intent read off them.
    pub(super) fn read(&self, pieces: &[String]) -> Reading {
        let mut units = tokens::units(pieces, &self.lexicon);
        let mut has_typos = false;
        // ("look" is no misspelt "lock": words that say how to look are never corrected.)
        for unit in units
            .iter_mut()
            .filter(|u| u.reference.is_none() && !u.possessive && !intent::is_neutral(&u.word))
        {
            if let Some(known) = self.correct(&unit.word) {
                unit.word = known;
                unit.typo = true;
                has_typos = true;
            }
        }
        let mut tokens = tokens::read(&units, &self.lexicon);
        let mut intent = Intent::read(&tokens, pieces, &self.lexicon);
        // (A person is no thing, but the head names them: "remove kim from the games group"
        // is about kim, in the group.) Nor is a head of words that only say how to look:
        // "look at &3", "in !3" are about what they point at.
        let head_says_what = tokens
            .iter()
            .any(|t| t.role == Role::Head && !intent::is_neutral(&t.word));
        if (!head_says_what
            || intent.domains.is_empty() && intent.objects.is_empty() && !intent.person)
            && tokens.iter().any(|t| t.role == Role::Context)
        {
            tokens::promote_context(&mut tokens);
            intent = Intent::read(&tokens, pieces, &self.lexicon);
        }
        let terms: Vec<Query> = tokens
            .iter()
            .filter(|t| t.reference.is_none() && matches!(t.role, Role::Head | Role::Context))
            .map(|t| Query::new(t, &self.action_documents, &self.lexicon.actions))
            .collect();
        // "!12", "show #34": the request names things and says nothing of them.
        intent.names_only =
            !intent.referenced.is_empty() && terms.iter().all(|q| intent::is_neutral(&q.word));
        let is_known =
            |q: &&Query| self.postings.contains_key(q.stemmed.as_str()) || q.has_meaning();
        let known = terms.iter().filter(is_known).count();
        let asking = terms
            .iter()
            .filter(is_known)
            .filter(|q| !intent::is_neutral(&q.word))
            .count();
        let (stems, plurals) = units
            .iter()
            .filter(|u| {
                u.reference.is_none() && u.word.chars().count() > 1 && !words::is_stop_word(&u.word)
            })
            .map(|u| {
                let stemmed = stem(&u.word);
                let plural = words::is_plural_of(&u.word, &stemmed);
                (stemmed, plural)
            })
            .unzip();
        Reading {
            terms,
            stems,
            plurals,
            intent,
            known,
            asking,
            has_typos,
        }
    }

    pub fn find(&self, request: &FindRequest) -> Found {
        self.find_with(request, None)
    }

    /// `find` as if the request were not one of the known requests (`actions/requests/`):
    /// measuring the ranking on those requests themselves, each must be found without its
    /// own line.
    pub fn find_unseen(&self, request: &FindRequest) -> Found {
        self.find_with(request, Some(request.query.trim()))
    }

    fn find_with(&self, request: &FindRequest, unseen: Option<&str>) -> Found {
        let query = request.query.trim();
        let mut raw = tokens::pieces(query);
        // Who asks is not what is asked, for the known requests either: "security auditor:
        // who can access acme/api" is nearest to what people asked who can access, not to
        // what other auditors asked.
        let asked = if tokens::drop_speaker(&mut raw) {
            query
                .split_once(':')
                .map_or(query, |(_, rest)| rest.trim_start())
        } else {
            query
        };
        let reading = self.read(&raw);
        let (mut hits, rules_top) = self.rank(asked, &raw, &reading, unseen, request.explain);

        let close = |top: i64, other: i64| other * 100 >= top * super::rank::AMBIGUITY_SHARE;
        let ambiguous = match hits.as_slice() {
            [first, second, ..]
                if first.score < super::rank::EXACT_ID && close(first.score, second.score) =>
            {
                hits.iter()
                    .take_while(|h| close(first.score, h.score))
                    .map(|h| h.action.id)
                    .collect()
            }
            _ => Vec::new(),
        };
        let missing = self.missing(&reading, &hits, rules_top, ambiguous.len());
        let suggestions = if hits.is_empty() && missing.is_none() {
            // Words near a name (`acme/shop`: "came", "ship") are no help: only the
            // request's own words are matched.
            self.suggest(&tokens::said(&raw, &self.lexicon))
        } else {
            Vec::new()
        };
        hits.truncate(request.limit.clamp(1, super::MAX_LIMIT));
        Found {
            hits,
            ambiguous,
            suggestions,
            missing,
        }
    }

    /// What the request asks for that no action does: an operation on a domain that has no
    /// such action, or things no domain knows, when nothing fits well.
    fn missing(
        &self,
        reading: &Reading,
        hits: &[super::Hit],
        rules_top: i64,
        ambiguous: usize,
    ) -> Option<String> {
        let intent = &reading.intent;
        let title = |domain: usize| self.lexicon.domains[domain].title.to_lowercase();
        if let Some(verb) = intent.main_verb()
            && !intent.domains.is_empty()
        {
            let named: Vec<usize> = self
                .domains
                .iter()
                .copied()
                .filter(|d| intent.domains.contains(d))
                .collect();
            if !named.is_empty()
                && !named
                    .iter()
                    .any(|d| self.operations_in.contains(&(*d, verb)))
            {
                let domain = named[0];
                let actions: Vec<String> = self
                    .documents
                    .iter()
                    .filter(|d| d.domain == domain)
                    .map(|d| format!("`{}`", d.action.id))
                    .collect();
                return Some(format!(
                    "No action can {} {}; for {} there are {}.",
                    self.lexicon.operations[verb].replace('_', " "),
                    title(domain),
                    title(domain),
                    actions.join(", ")
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
                    && !q.has_meaning()
                    && !self.things.contains(q.stemmed.as_str())
                    && !intent::is_neutral(&q.word)
                    && q.word.chars().all(char::is_alphabetic)
            })
            .map(|q| q.word.as_str())
            .collect();
        // Weak: a low best score, or many actions tied on the generic words alone.
        // (The rules' score: the known requests near any request always point somewhere.)
        let weak = rules_top < super::rank::WEAK_MATCH || ambiguous >= 3;
        if unknown.is_empty() || !weak || !intent.domains.is_empty() {
            return None;
        }
        let mut nearest: Vec<&'static str> = Vec::new();
        for hit in hits.iter().take(5) {
            if !nearest.contains(&hit.action.domain) {
                nearest.push(hit.action.domain);
            }
        }
        let nearest: Vec<String> = nearest
            .iter()
            .filter_map(|d| self.lexicon.domain_id(d))
            .map(title)
            .collect();
        let unknown = unknown.join(" ");
        // The whole catalog's domains (about 1.2 KB at 68) only when nothing is near: with
        // hits beside it ("summarize #34"), the nearest domains are what the reader needs.
        let sentence = if nearest.is_empty() {
            let covered: Vec<String> = self.domains.iter().map(|d| title(*d)).collect();
            format!(
                "No action manages “{unknown}”; the catalog covers {}.",
                covered.join(", ")
            )
        } else {
            format!(
                "No action manages “{unknown}”; nearest: {}.",
                nearest.join(", ")
            )
        };
        Some(sentence)
    }

    /// Catalog words near the query's words, then the largest domains' names.
    fn suggest(&self, words: &[String]) -> Vec<String> {
        // Real words (never stems) near the request's words.
        let mut near: Vec<(usize, String)> = Vec::new();
        for word in words
            .iter()
            .filter(|w| w.chars().count() >= 3 && !words::is_stop_word(w))
        {
            for known in self.spelling_lists().into_iter().flatten() {
                if let Some(distance) = edit_distance_within(word, known, 2)
                    && known != word
                {
                    near.push((distance, known.to_string()));
                }
            }
        }
        near.sort();
        near.dedup_by(|a, b| a.1 == b.1);
        let mut out: Vec<String> = near.into_iter().map(|(_, t)| t).take(6).collect();
        let mut largest: Vec<(usize, usize)> = self
            .domains
            .iter()
            .map(|d| (self.by_domain.get(d).map_or(0, Vec::len), *d))
            .collect();
        largest.sort_by_key(|(count, _)| std::cmp::Reverse(*count));
        for (_, domain) in largest.into_iter().take(6) {
            let name = self.lexicon.domains[domain].name.replace('_', " ");
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }
}

/// Whether two words are made of the same letters.
fn same_letters(a: &str, b: &str) -> bool {
    let mut a: Vec<char> = a.chars().collect();
    let mut b: Vec<char> = b.chars().collect();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

/// The container an action's path is scoped by: its first segment, in the singular, when a
/// parameter follows it (`projects` in `/projects/{project_id}/merge_requests`).
pub(super) fn container(action: &Action) -> Option<&'static str> {
    if action.graphql.is_some() {
        return graphql_container(action);
    }
    let mut segments = action.path.split('/').filter(|s| !s.is_empty());
    let first = segments.next()?;
    segments.next()?.starts_with('{').then_some(())?;
    first.strip_suffix('s')
}

/// A GraphQL action's path is `/graphql`: it is scoped by what the first id its required
/// parameters stand for names (`full_path`, whose first such alias is `project_id`: a
/// project's or group's work items).
fn graphql_container(action: &Action) -> Option<&'static str> {
    action.required_params().find_map(|param| {
        std::iter::once(&param.name)
            .chain(param.aliases)
            .find_map(|name| name.strip_suffix("_id"))
    })
}

/// The domains (lexicon ids) whose things `action` takes by id or iid: those `stands_for`
/// says its parameters stand for.
fn taken_domains(action: &Action, lexicon: &Lexicon) -> Vec<usize> {
    let mut taken = Vec::new();
    for domain in action
        .params
        .iter()
        .flat_map(named_by_id)
        .filter_map(|name| lexicon.domain_id(name))
    {
        if !taken.contains(&domain) {
            taken.push(domain);
        }
    }
    taken
}

/// Whether `param` takes a thing of `domain` by its id or iid (`merge_request_iid`).
pub(super) fn stands_for(param: &ParamSpec, domain: &str) -> bool {
    named_by_id(param).any(|name| name == domain)
}

/// What a parameter that takes a thing by id or iid may name it as: its name without
/// `_id` or `_iid`, and what follows each `_` of that (`target_group_id` takes a
/// `target_group`, a group).
fn named_by_id(param: &ParamSpec) -> impl Iterator<Item = &'static str> {
    let name = param
        .name
        .strip_suffix("_iid")
        .or(param.name.strip_suffix("_id"));
    name.into_iter().flat_map(|name| {
        std::iter::once(name).chain(name.match_indices('_').map(move |(at, _)| &name[at + 1..]))
    })
}

/// The name of an action's first path parameter (`project_id` in
/// `/projects/{project_id}/merge_requests`).
fn container_name(action: &Action) -> Option<&'static str> {
    action.path.split('/').find_map(parameter_named)
}

/// The parameter a path segment stands for (`project_id` for `{project_id}`), if it is one.
fn parameter_named(segment: &str) -> Option<&str> {
    segment.strip_prefix('{')?.strip_suffix('}')
}

/// The parameter that names an action's container (`project_id`).
fn container_param(action: &Action) -> Option<&'static ParamSpec> {
    container(action)?;
    let name = container_name(action)?;
    action.required_params().find(|p| p.name == name)
}

/// Whether the action's path ends at a parameter that takes a thing of its own domain
/// (`/jobs/{job_id}` for `job.get`, `/snippets/{snippet_id}` for `snippet.get`; not
/// `/notes/{note_id}` for a merge request's note).
fn ends_at_own_thing(action: &Action) -> bool {
    let last = action.path.rsplit('/').next().unwrap_or_default();
    parameter_named(last).is_some_and(|name| {
        action
            .required_params()
            .any(|p| p.name == name && stands_for(p, action.domain))
    })
}

/// The parameters that name the one thing an action reads, beyond its container: each required
/// path parameter after the first (`{merge_request_iid}` in
/// `/projects/{project_id}/merge_requests/{merge_request_iid}`).
fn targets(action: &Action) -> Vec<&'static ParamSpec> {
    let container = container_name(action);
    action
        .required_params()
        .filter(|p| p.location == Location::Path && Some(p.name) != container)
        .collect()
}

//! What a request asks for, beyond its words: the operations it names, the domains and
//! objects (the parts of a domain: comments, a log, a file, a diff, ...) it names, and its
//! references (`!42`, `#17`, a SHA, `src/main.rs`, a number).
//!
//! Every action has the same profile, from its vocabulary: `merge_request.note_list` is the
//! operation `list` on the object `note` in the domain `merge_request`. Matching the two
//! keeps "show the comments on MR 42" away from the merge request itself and "show the open
//! MRs" away from every single read, without any rule about particular actions.

use super::lexicon::Lexicon;
use super::tokens::{Reference, Role, Token};
use crate::catalog::{Action, ResultShape};
use crate::gitlab::Method;

/// First words that make a request a question.
const QUESTIONS: &[&str] = &[
    "what", "what's", "whats", "who", "who's", "which", "how", "is", "are", "does", "do", "did",
    "why", "when", "where", "has", "have", "was", "were", "whether",
];

/// Whether a word makes a request that starts with it a question.
pub fn is_question_word(word: &str) -> bool {
    QUESTIONS.contains(&word)
}

/// Words that say how to look rather than what: they go with a list or a single read.
const NEUTRAL: &[&str] = &[
    "show", "see", "view", "display", "open", "check", "look", "my", "me", "mine",
];

/// Whether a word only says how to look, so that it belongs to the intent, not to an
/// action's tags or title.
pub fn is_neutral(word: &str) -> bool {
    NEUTRAL.contains(&word)
}

/// What an action gives back, which a request without a verb can still ask for: a plural
/// asks for many things, a reference for one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A read of a list.
    Many,
    /// A read of one thing.
    One,
    /// A change.
    Change,
}

impl Shape {
    pub fn of(action: &Action) -> Self {
        match (action.method, action.result) {
            (Method::Get, ResultShape::List { .. }) => Self::Many,
            // A listing GitLab answers as one object (an archive's directory) lists too.
            (Method::Get, _) if action.vocabulary.operation == "list" => Self::Many,
            (Method::Get, _) => Self::One,
            _ => Self::Change,
        }
    }
}

/// What one request (or one clause of it) asks for. Ids index the lexicon's tables.
#[derive(Debug, Clone, Default)]
pub struct Intent {
    /// Operations named, with how many words name each.
    pub verbs: Vec<(usize, i64)>,
    pub objects: Vec<usize>,
    pub plural: bool,
    /// The words said in the plural, as said (`approvals`).
    pub plurals: Vec<String>,
    /// References in the head of the request.
    pub references: Vec<Reference>,
    /// The request gives a number (`42`, `!42`, `#42`) anywhere: something can be read by
    /// its id.
    pub gives_number: bool,
    /// Domains the request names.
    pub domains: Vec<usize>,
    /// Domains named as the container the request is about ("of a project").
    pub containers: Vec<usize>,
    /// What the first thing named after a preposition is ("thread" in "reply in thread
    /// 9ac0 on #34").
    pub context_objects: Vec<usize>,
    /// A word of the head that asks for nothing names a thing ("the platform group" in
    /// "restore the platform group from its export").
    pub head_names_thing: bool,
    /// The request names things by reference and says nothing else but how to look
    /// ("!12", "show #34"); set by the index, which reads the words' terms.
    pub names_only: bool,
    /// Domains a path-like name (`acme/web`) names, when no word names a container.
    pub paths: Vec<usize>,
    /// Domains a word right before or after a path names ("the acme group", "group
    /// acme/platform"): what the path may be instead.
    pub path_said_as: Vec<usize>,
    /// Domains a reference points at, and the reference.
    pub referenced: Vec<(usize, Reference)>,
    /// Domains whose one thing a `!42` or `#17` anywhere in the request names.
    pub numbered: Vec<usize>,
    /// Domains whose one thing their noun said before a number names ("job 442100"),
    /// with the noun as said (`agent` in "agent 5", `cluster_agent`'s).
    pub numbered_by_noun: Vec<(usize, String)>,
    /// The head names a person: `@bob`, the noun of the domain `@` names before a number
    /// (`user 77`), or a name said bare after the verb ("remove kim from the games group").
    pub person: bool,
    /// Actions a phrase of theirs names.
    pub actions: Vec<usize>,
    /// The request speaks of the caller (`my`, `me`, `who am I`).
    pub first_person: bool,
    /// The request quotes a name or title.
    pub quoted: bool,
    /// The request is a question (`what`, `who`, `is`, ...): it wants to read.
    pub question: bool,
    /// The words (stems) that ask for an operation.
    pub verb_words: Vec<String>,
    /// `verb_words` as `names_as_verb` compares them (stemmed again), once per request:
    /// ranking asks it of every candidate action's every object.
    pub verb_stems: Vec<String>,
    /// Each word (stem) that asks for an operation, with the operation.
    pub asked: Vec<(String, usize)>,
    /// The first word (stem) of each action's phrase that is a verb of the action's
    /// operation ("remove" in "remove the user"), with the operation. Kept apart from
    /// `asked`: a phrase asks for its operation as a whole, not by its first word.
    pub phrase_verbs: Vec<(String, usize)>,
}

/// Words that say how things ought to be ("issue #34 should be closed").
const MODALS: &[&str] = &[
    "should",
    "shoud",
    "shud",
    "shouldn't",
    "shouldnt",
    "must",
    "mustn't",
    "ought",
];

/// Words between a modal and what it asks for that change nothing ("should really be").
const IN_PASSING: &[&str] = &[
    "only",
    "also",
    "still",
    "now",
    "really",
    "just",
    "already",
    "instead",
    "definitely",
    "actually",
    "probably",
    "to",
    "be",
    "not",
    "no",
    "longer",
    "never",
    "anymore",
];

/// What a request that says how things ought to be, with no verb that asks for it, asks
/// for: "X shouldn't exist", "X should be gone", "X should no longer have Y" and "there
/// should be no X" a delete; "X should exist", "there should be a X" and "X should have a
/// Y" a create; "X should be <done>" what its word asks for ("closed", "cancelled"), and
/// anything else an update.
fn desired_state(pieces: &[String], lexicon: &Lexicon) -> Vec<usize> {
    let Some(at) = pieces.iter().position(|w| MODALS.contains(&w.as_str())) else {
        return Vec::new();
    };
    let operation = |name: &str| lexicon.operation_id(name).into_iter().collect();
    let rest: Vec<&str> = pieces[at + 1..].iter().map(String::as_str).collect();
    let negated = pieces[at].ends_with("n't")
        || pieces[at].ends_with("nt")
        || rest
            .iter()
            .take(3)
            .any(|w| matches!(*w, "not" | "never" | "longer"));
    let there = at > 0 && pieces[at - 1] == "there";
    let said = rest.iter().find(|w| !IN_PASSING.contains(w)).copied();
    let gone = matches!(
        said,
        Some("exist" | "work" | "there" | "around" | "left" | "remain")
    );
    // "shouldn't have access" takes it away; "shouldn't have the label" changes a field.
    let loses = said == Some("have")
        && rest
            .iter()
            .skip_while(|w| **w != "have")
            .nth(1)
            .is_none_or(|w| *w != "the");
    let no_more = negated && (gone || loses) || rest.starts_with(&["have", "no"]);
    if no_more || said == Some("gone") || there && rest.starts_with(&["be", "no"]) {
        return operation("delete");
    }
    if said == Some("exist") {
        return operation("create");
    }
    let article = |w: Option<&&str>| w.is_some_and(|w| super::words::INDEFINITE.contains(w));
    let has = matches!(rest.first(), Some(&("have" | "carry" | "get" | "include")));
    if (there && rest.first() == Some(&"be") || has) && article(rest.get(1)) {
        return operation("create");
    }
    // The word after `be` may itself ask for an operation, as said or as the verb of its
    // participle ("deleted", "protected", "closed").
    let asked = match said {
        Some(word) if rest.first() == Some(&"be") => participle_operations(word, lexicon),
        _ => Vec::new(),
    };
    if asked.is_empty() {
        operation("update")
    } else {
        asked
    }
}

/// "the spike branch can go", "that comment has to go": a thing that may or must go, with
/// nothing said after it in its clause (not "go ahead", "go to develop"), is to be deleted.
/// `pieces` as written, punctuation and all: a clause ends at its punctuation.
fn told_to_go(pieces: &[String]) -> bool {
    pieces.iter().enumerate().skip(1).any(|(at, piece)| {
        let word = piece.trim_end_matches(|c: char| !c.is_alphanumeric());
        let clause_ends = at + 1 == pieces.len() || word.len() < piece.len();
        let may = match pieces[at - 1].as_str() {
            "can" | "must" | "should" | "gotta" => true,
            "to" => at > 1 && matches!(pieces[at - 2].as_str(), "has" | "have" | "needs" | "need"),
            _ => false,
        };
        word.eq_ignore_ascii_case("go") && clause_ends && may
    })
}

/// "mark the thread as resolved", "mark !12 as approved": marking a thing as done asks
/// for the action of its own that the participle says (`resolve`), not for an update of
/// any kind. Empty when the request marks nothing, or its participle asks for nothing or
/// for one of the shared operations ("mark it as done", "mark the variable as protected":
/// an update of a field).
fn marked_as(pieces: &[String], lexicon: &Lexicon) -> Vec<usize> {
    let Some(mark) = pieces.iter().position(|w| w == "mark") else {
        return Vec::new();
    };
    let Some(at) = pieces[mark + 1..].iter().position(|w| w == "as") else {
        return Vec::new();
    };
    let mut asked = pieces
        .get(mark + at + 2)
        .map_or_else(Vec::new, |word| participle_operations(word, lexicon));
    asked.retain(|operation| !lexicon.is_shared_operation(*operation));
    asked
}

/// The operations a word asks for, or the verb it is the participle of: `deleted` is
/// `delete`, `protected` `protect`, `stopped` `stop`.
fn participle_operations(word: &str, lexicon: &Lexicon) -> Vec<usize> {
    let without_ed = word.strip_suffix("ed");
    let verbs = [
        Some(word),
        word.strip_suffix('d'),
        without_ed,
        without_ed.and_then(|w| w.get(..w.len().saturating_sub(1))),
    ];
    verbs
        .into_iter()
        .flatten()
        .filter(|verb| verb.len() > 2)
        .filter_map(|verb| lexicon.lookup(verb))
        .map(|(meaning, _)| meaning.operations)
        .find(|operations| !operations.is_empty())
        .unwrap_or_default()
}

/// Whether the number after `before` is a person's: the noun of the domain `@` names
/// comes right before it, or before `id`, alone or last in a phrase ("user 77", "user id
/// 90", "remove user 4477").
fn numbers_person(before: &[Token], lexicon: &Lexicon) -> bool {
    let noun = match before {
        [.., noun, id] if id.word == "id" => noun,
        [.., noun] => noun,
        [] => return false,
    };
    let last = noun.word.rsplit(' ').next().unwrap_or_default();
    noun.reference.is_none()
        && !noun.plural
        && lexicon.lookup(last).is_some_and(|(meaning, plural)| {
            !plural
                && lexicon
                    .people()
                    .any(|people| meaning.domains.contains(&people))
        })
}

fn insert_word(into: &mut Vec<String>, word: &str) {
    let stemmed = super::stem(word);
    if !into.contains(&stemmed) {
        into.push(stemmed);
    }
}

fn insert<T: PartialEq>(into: &mut Vec<T>, item: T) {
    if !into.contains(&item) {
        into.push(item);
    }
}

impl Intent {
    /// Reads a request from its tokens and its pieces (the words as typed).
    pub fn read(tokens: &[Token], pieces: &[String], lexicon: &Lexicon) -> Self {
        let mut intent = Self::default();
        let bare = |piece: &String| {
            piece
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_owned()
        };
        // A title in quotes names one thing ("the wiki page \"Getting started\"").
        intent.quoted = pieces.iter().any(|p| p.starts_with(['"', '\u{201c}']));
        let told_to_go = told_to_go(pieces);
        let pieces: Vec<String> = pieces.iter().map(bare).collect();
        // "how do I add a variable" asks how to do something: it is a task, not a question.
        let asks_how_to = matches!(
            pieces
                .iter()
                .take(3)
                .map(String::as_str)
                .collect::<Vec<_>>()[..],
            ["how", "do" | "can" | "should" | "would", "i" | "we", ..] | ["how", "to", ..]
        );
        intent.question =
            !asks_how_to && pieces.first().is_some_and(|w| is_question_word(w.as_str()));
        for (index, piece) in pieces.iter().enumerate() {
            let previous = index
                .checked_sub(1)
                .map(|i| pieces[i].as_str())
                .unwrap_or("");
            let next = pieces.get(index + 1).map(String::as_str).unwrap_or("");
            // "show me", "tell me": the caller receives; "my", "am I": the caller owns.
            intent.first_person |= match piece.as_str() {
                "my" | "mine" | "myself" => true,
                "me" => !matches!(
                    previous,
                    "show" | "tell" | "give" | "let" | "send" | "help" | "get" | "for"
                ),
                "i" => previous == "am",
                "am" => next == "i",
                _ => false,
            };
        }
        let mut phrased: Vec<usize> = Vec::new();
        // The containers path-like names (`acme/web`) name, when no word names one.
        let mut paths: Vec<usize> = Vec::new();
        for (at, token) in tokens.iter().enumerate() {
            if let Some(reference) = token.reference {
                intent.gives_number |= matches!(
                    reference,
                    Reference::Number | Reference::Bang | Reference::Hash | Reference::Sigil(_)
                );
                let meanings = lexicon.reference(reference.kind().unwrap_or_default());
                if reference == Reference::Name {
                    // `acme/web` names the container the request is about, nothing in it.
                    for meant in meanings {
                        insert(&mut paths, meant.domain);
                    }
                    let beside = [at.checked_sub(1), Some(at + 1)];
                    for near in beside.into_iter().flatten().filter_map(|i| tokens.get(i)) {
                        for domain in &near.meaning.domains {
                            insert(&mut intent.path_said_as, *domain);
                        }
                    }
                    if token.role == Role::Head {
                        intent.references.push(reference);
                    }
                    continue;
                }
                if reference == Reference::Number && token.role == Role::Head {
                    intent.person |= numbers_person(&tokens[..at], lexicon);
                }
                // "job 442100", "snippet 4521": a domain's noun said in the singular right
                // before a number names one thing of that domain, as `#17` does.
                if reference == Reference::Number
                    && let Some(noun) = at.checked_sub(1).map(|i| &tokens[i])
                    && noun.reference.is_none()
                    && !noun.plural
                    && noun.meaning.operations.is_empty()
                {
                    for domain in &noun.meaning.domains {
                        let said = (*domain, noun.word.replace(' ', "_"));
                        insert(&mut intent.numbered_by_noun, said);
                    }
                }
                for meant in meanings {
                    // `!42` and `#17` name one thing of their domain, wherever they are.
                    if matches!(
                        reference,
                        Reference::Bang | Reference::Hash | Reference::Sigil(_)
                    ) {
                        insert(&mut intent.numbered, meant.domain);
                    }
                    match reference {
                        // `!42`, `&12` and `@bob` name their domain; `#17` only leans
                        // to one.
                        Reference::Bang | Reference::Mention | Reference::Sigil(_) => {
                            insert(&mut intent.domains, meant.domain);
                        }
                        // A SHA or a file name at the head names an object.
                        Reference::Sha | Reference::File if token.role == Role::Head => {
                            for object in &meant.meaning.objects {
                                insert(&mut intent.objects, *object);
                            }
                        }
                        _ => {}
                    }
                    if token.role == Role::Head {
                        intent.referenced.push((meant.domain, reference));
                    }
                }
                if token.role == Role::Head {
                    intent.references.push(reference);
                    // (`@acme/ui` is a package.)
                    intent.person |= reference == Reference::Mention && !token.word.contains('/');
                }
                continue;
            }
            if token.role == Role::Context {
                // "of a project", "in the acme group": the container the request is about.
                for domain in &token.meaning.domains {
                    insert(&mut intent.containers, *domain);
                }
                if intent.context_objects.is_empty() {
                    intent.context_objects.clone_from(&token.meaning.objects);
                }
            }
            if token.role != Role::Head {
                continue;
            }
            let meaning = &token.meaning;
            intent.person |= token.name;
            for operation in &meaning.operations {
                intent.vote(*operation);
            }
            intent.head_names_thing |= meaning.operations.is_empty() && meaning.names_thing();
            for object in &meaning.objects {
                insert(&mut intent.objects, *object);
            }
            for domain in &meaning.domains {
                insert(&mut intent.domains, *domain);
            }
            for container in &meaning.containers {
                insert(&mut intent.containers, *container);
            }
            if !meaning.operations.is_empty() {
                insert_word(&mut intent.verb_words, &token.word);
                let stemmed = super::stem(&token.word);
                for operation in &meaning.operations {
                    let asked = (stemmed.clone(), *operation);
                    if !intent.asked.contains(&asked) {
                        intent.asked.push(asked);
                    }
                }
            }
            // A phrase of an action asks for its operation, on its objects, in its domain;
            // its operation counts only when no word asks for one ("remove the time
            // estimate" does not set it). A phrase that a domain's actions of several
            // operations share ("group wiki page": read one, write one, delete one) names
            // what they work on, not what is done to it: it asks for none of them. Nor
            // does the phrase of a single read said in the plural ("group audit events"
            // asks for a list, not for `get`).
            for id in &meaning.actions {
                let action = lexicon.actions[*id];
                insert(&mut intent.actions, *id);
                let operation = action.vocabulary.operation;
                let agreed = !(token.plural && Shape::of(action) == Shape::One)
                    && meaning.actions.iter().all(|other| {
                        let other = lexicon.actions[*other];
                        other.domain != action.domain || other.vocabulary.operation == operation
                    });
                if let Some(operation) = lexicon.operation_id(operation)
                    && agreed
                {
                    insert(&mut phrased, operation);
                    // Its first word, when a verb of that operation, is the word that
                    // asked ("remove" in "remove the user").
                    let first = token.word.split(' ').next().unwrap_or_default();
                    if lexicon
                        .lookup(first)
                        .is_some_and(|(meaning, _)| meaning.operations.contains(&operation))
                    {
                        insert(&mut intent.phrase_verbs, (super::stem(first), operation));
                    }
                }
                // A phrase that several domains' actions share names none of them.
                let one_domain = meaning
                    .actions
                    .iter()
                    .all(|other| lexicon.actions[*other].domain == action.domain);
                if let Some(domain) = lexicon.domain_id(action.domain)
                    && one_domain
                {
                    insert(&mut intent.domains, domain);
                }
                for object in action.vocabulary.objects {
                    if let Some(object) = lexicon.object_id(object) {
                        insert(&mut intent.objects, object);
                    }
                }
                intent.first_person |= action.vocabulary.caller;
            }
            intent.plural |= token.plural;
            if token.plural {
                let said: Vec<&str> = token.word.split(' ').collect();
                let head = super::tokens::head_word(&said).to_owned();
                if !intent.plurals.contains(&head) {
                    intent.plurals.push(head);
                }
            }
        }
        if intent.containers.is_empty() {
            intent.paths = paths;
        }
        let marked = marked_as(&pieces, lexicon);
        if !marked.is_empty() {
            intent.verbs.clear();
            for operation in marked {
                intent.vote(operation);
            }
        }
        if intent.verbs.is_empty() {
            for operation in phrased {
                intent.vote(operation);
            }
        }
        // Said however much else is: "I pasted a password in a comment, that comment has to
        // go".
        if told_to_go
            && !intent.question
            && let Some(operation) = lexicon.operation_id("delete")
        {
            intent.vote(operation);
        }
        if intent.verbs.is_empty() && !intent.question {
            for operation in desired_state(&pieces, lexicon) {
                intent.vote(operation);
            }
        }
        // A question asks to read: "is MR 33 ready to merge" does not merge it.
        if intent.question {
            intent.verbs.clear();
        }
        intent.verb_stems = intent.verb_words.iter().map(|w| super::stem(w)).collect();
        intent
    }

    fn vote(&mut self, operation: usize) {
        match self.verbs.iter_mut().find(|(o, _)| *o == operation) {
            Some((_, votes)) => *votes += 1,
            None => self.verbs.push((operation, 1)),
        }
    }

    /// Votes for an operation (0 when no word names it).
    pub fn votes(&self, operation: usize) -> i64 {
        self.verbs
            .iter()
            .find(|(o, _)| *o == operation)
            .map_or(0, |(_, votes)| *votes)
    }

    /// The operation most words name.
    pub fn main_verb(&self) -> Option<usize> {
        self.verbs
            .iter()
            .max_by_key(|(_, votes)| *votes)
            .map(|(operation, _)| *operation)
    }

    /// What the request asks for when no verb says it: a plural asks for a list, a
    /// reference (other than `@name`) or a quoted title for one thing.
    pub fn implied_shape(&self) -> Option<Shape> {
        if !self.verbs.is_empty() {
            return None;
        }
        if self.plural {
            Some(Shape::Many)
        } else if self.quoted || self.references.iter().any(|r| *r != Reference::Mention) {
            Some(Shape::One)
        } else {
            None
        }
    }
}

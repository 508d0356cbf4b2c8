//! What a request asks for, beyond its words: the operation (list, get, create, ...), the
//! sub-object (comments, a log, a file, a diff, ...) and references (`!42`, `#17`, a SHA,
//! `src/main.rs`, a number).
//!
//! Every action has the same profile, read off its id: `merge_request.note_list` is the
//! verb *list* on the object *note* in the domain *merge_request*. Matching the two keeps
//! "show the comments on MR 42" away from `merge_request.get` and "show the open MRs" away
//! from every `get`, without any rule about particular actions.

use std::collections::{BTreeMap, BTreeSet};

use super::tokens::{Reference, Role, Token};
use super::words::stem;
use crate::catalog::Action;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verb {
    List,
    Get,
    Create,
    Update,
    Delete,
    Merge,
    Approve,
    Retry,
    Cancel,
    Play,
    Compare,
}

impl Verb {
    /// The operation as a verb in a sentence: "No action can delete tags".
    pub fn word(self) -> &'static str {
        match self {
            Self::List => "list",
            Self::Get => "read",
            Self::Create => "create",
            Self::Update => "update",
            Self::Delete => "delete",
            Self::Merge => "merge",
            Self::Approve => "approve",
            Self::Retry => "retry",
            Self::Cancel => "cancel",
            Self::Play => "run",
            Self::Compare => "compare",
        }
    }
}

/// Query words that name an operation. `show`, `see`, `open` and `check` name none: they
/// go with a list or a get, which plurals and references decide.
const VERBS: &[(&str, &[Verb])] = &[
    ("list", &[Verb::List]),
    ("find", &[Verb::List]),
    ("search", &[Verb::List]),
    ("browse", &[Verb::List]),
    ("enumerate", &[Verb::List]),
    ("get", &[Verb::Get]),
    ("fetch", &[Verb::Get]),
    ("read", &[Verb::Get]),
    ("details", &[Verb::Get]),
    ("detail", &[Verb::Get]),
    ("info", &[Verb::Get]),
    ("describe", &[Verb::Get]),
    ("inspect", &[Verb::Get]),
    ("cat", &[Verb::Get]),
    ("print", &[Verb::Get]),
    ("tail", &[Verb::Get]),
    ("create", &[Verb::Create]),
    ("new", &[Verb::Create]),
    ("make", &[Verb::Create]),
    ("add", &[Verb::Create, Verb::Update]),
    ("raise", &[Verb::Create]),
    ("submit", &[Verb::Create]),
    ("post", &[Verb::Create]),
    ("write", &[Verb::Create]),
    ("leave", &[Verb::Create]),
    ("reply", &[Verb::Create]),
    ("init", &[Verb::Create]),
    ("initialize", &[Verb::Create]),
    ("update", &[Verb::Update]),
    ("edit", &[Verb::Update]),
    ("change", &[Verb::Update]),
    ("modify", &[Verb::Update]),
    ("rename", &[Verb::Update]),
    ("set", &[Verb::Update]),
    ("assign", &[Verb::Update]),
    ("unassign", &[Verb::Update]),
    ("close", &[Verb::Update]),
    ("reopen", &[Verb::Update]),
    ("mark", &[Verb::Update]),
    ("label", &[Verb::Update]),
    ("relabel", &[Verb::Update]),
    ("retitle", &[Verb::Update]),
    ("delete", &[Verb::Delete]),
    ("remove", &[Verb::Delete]),
    ("revoke", &[Verb::Delete]),
    ("drop", &[Verb::Delete]),
    ("destroy", &[Verb::Delete]),
    ("erase", &[Verb::Delete]),
    ("rm", &[Verb::Delete]),
    ("nuke", &[Verb::Delete]),
    ("prune", &[Verb::Delete]),
    ("merge", &[Verb::Merge]),
    ("land", &[Verb::Merge]),
    ("ship", &[Verb::Merge]),
    ("accept", &[Verb::Merge]),
    ("approve", &[Verb::Approve]),
    ("approval", &[Verb::Approve]),
    ("lgtm", &[Verb::Approve]),
    ("retry", &[Verb::Retry]),
    ("rerun", &[Verb::Retry]),
    ("restart", &[Verb::Retry]),
    ("cancel", &[Verb::Cancel]),
    ("cut", &[Verb::Create]),
    ("stop", &[Verb::Cancel]),
    ("abort", &[Verb::Cancel]),
    ("kill", &[Verb::Cancel]),
    ("halt", &[Verb::Cancel]),
    ("play", &[Verb::Play]),
    ("deploy", &[Verb::Play]),
    ("trigger", &[Verb::Play, Verb::Create]),
    ("run", &[Verb::Create, Verb::Play]),
    ("start", &[Verb::Create, Verb::Play]),
    ("kick", &[Verb::Create, Verb::Play]),
    ("compare", &[Verb::Compare]),
    ("vs", &[Verb::Compare]),
    ("versus", &[Verb::Compare]),
];

/// Query words that name a part of a domain, and that part's name in action ids.
const OBJECTS: &[(&str, &str)] = &[
    ("comment", "note"),
    ("comments", "note"),
    ("commented", "note"),
    ("note", "note"),
    ("notes", "note"),
    ("discussion", "note"),
    ("discussions", "note"),
    ("thread", "note"),
    ("feedback", "note"),
    ("said", "note"),
    ("say", "note"),
    ("reply", "note"),
    ("log", "log"),
    ("logs", "log"),
    ("trace", "log"),
    ("output", "log"),
    ("console", "log"),
    ("tail", "log"),
    ("file", "file"),
    ("content", "file"),
    ("contents", "file"),
    ("readme", "file"),
    ("blob", "raw"),
    ("raw", "raw"),
    ("download", "raw"),
    ("bytes", "raw"),
    ("binary", "raw"),
    ("commit", "commit"),
    ("sha", "commit"),
    ("commits", "commit"),
    ("history", "commit"),
    ("pushed", "commit"),
    ("diff", "diff"),
    ("diffs", "diff"),
    ("changes", "diff"),
    ("changed", "diff"),
    ("patch", "diff"),
    ("files", "tree"),
    ("files", "diff"),
    ("tree", "tree"),
    ("directory", "tree"),
    ("directories", "tree"),
    ("folder", "tree"),
    ("folders", "tree"),
    ("structure", "tree"),
    ("ls", "tree"),
    ("language", "language"),
    ("languages", "language"),
    ("stack", "language"),
    ("written", "language"),
];

/// Query words that name a domain. A request that names domains costs the actions of
/// other domains a little.
const DOMAINS: &[(&str, &str)] = &[
    ("mr", "merge_request"),
    ("mrs", "merge_request"),
    ("pr", "merge_request"),
    ("prs", "merge_request"),
    ("issue", "issue"),
    ("issues", "issue"),
    ("ticket", "issue"),
    ("tickets", "issue"),
    ("bug", "issue"),
    ("bugs", "issue"),
    ("backlog", "issue"),
    ("pipeline", "pipeline"),
    ("pipelines", "pipeline"),
    ("ci", "pipeline"),
    ("build", "pipeline"),
    ("builds", "pipeline"),
    ("build", "job"),
    ("job", "job"),
    ("jobs", "job"),
    ("branch", "branch"),
    ("branches", "branch"),
    ("project", "project"),
    ("projects", "project"),
    ("repo", "project"),
    ("repos", "project"),
    ("repo", "repository"),
    ("repository", "repository"),
    ("repository", "project"),
    ("commit", "repository"),
    ("commits", "repository"),
    ("file", "repository"),
    ("files", "repository"),
    ("user", "user"),
    ("users", "user"),
    ("whoami", "user"),
    ("account", "user"),
    ("username", "user"),
];

/// First words that make a request a question.
const QUESTIONS: &[&str] = &[
    "what", "what's", "whats", "who", "who's", "which", "how", "is", "are", "does", "do", "did",
    "why", "when", "where", "has", "have", "was", "were",
];

/// Nouns in the plural: without a verb, they ask for a list.
const PLURALS: &[&str] = &[
    "mrs",
    "prs",
    "issues",
    "tickets",
    "bugs",
    "pipelines",
    "builds",
    "jobs",
    "branches",
    "projects",
    "repos",
    "repositories",
    "commits",
    "users",
    "comments",
    "notes",
    "files",
    "members",
    "people",
    "runs",
    "tasks",
    "stages",
    "statuses",
    "reviews",
];

/// Words that ask to tell someone something: a comment.
const MESSAGES: &[&str] = &["tell", "ask", "ping", "notify", "remind", "inform", "let"];

/// Every word the intent tables know, for the typo fallback.
pub fn known_words() -> impl Iterator<Item = &'static str> {
    VERBS
        .iter()
        .map(|(w, _)| *w)
        .chain(OBJECTS.iter().map(|(w, _)| *w))
        .chain(DOMAINS.iter().map(|(w, _)| *w))
        .chain(PLURALS.iter().copied())
        .chain(NEUTRAL.iter().copied())
}

/// Words that say how to look rather than what: they go with a list or a get.
const NEUTRAL: &[&str] = &[
    "show", "see", "view", "display", "open", "check", "look", "my", "me", "mine",
];

/// Whether a word only says what to do (an operation or a way of looking), so that it
/// belongs to the intent, not to an action's tags or title.
pub fn is_generic(word: &str) -> bool {
    NEUTRAL.contains(&word) || is_verb(word)
}

/// Whether a word names an operation.
pub fn is_verb(word: &str) -> bool {
    VERBS.iter().any(|(w, _)| *w == word)
}

/// What one request (or one window of it) asks for.
#[derive(Debug, Clone, Default)]
pub struct Intent {
    /// Operations named, with how many words name each.
    pub verbs: BTreeMap<Verb, i64>,
    pub objects: BTreeSet<&'static str>,
    pub plural: bool,
    pub references: Vec<Reference>,
    /// The request names a merge request (by `mr`, `pr` or `!42`).
    pub merge_request: bool,
    /// Domains the request names.
    pub domains: BTreeSet<&'static str>,
    /// The request speaks of the caller (`my`, `me`, `who am I`).
    pub first_person: bool,
    /// The request is a question (`what`, `who`, `is`, ...): it wants to read.
    pub question: bool,
}

impl Intent {
    /// Reads a request from its tokens and its pieces (the words as typed).
    pub fn read(tokens: &[Token], pieces: &[String]) -> Self {
        let mut intent = Self::default();
        let bare = |piece: &String| {
            piece
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_owned()
        };
        let pieces: Vec<String> = pieces.iter().map(bare).collect();
        intent.question = pieces
            .first()
            .is_some_and(|w| QUESTIONS.contains(&w.as_str()));
        for (index, piece) in pieces.iter().enumerate() {
            let previous = index
                .checked_sub(1)
                .map(|i| pieces[i].as_str())
                .unwrap_or("");
            let next = pieces.get(index + 1).map(String::as_str).unwrap_or("");
            // "open a merge request" creates one; "open MR 42" and "open issues" do not.
            if piece == "open" && matches!(next, "a" | "an" | "new") {
                *intent.verbs.entry(Verb::Create).or_default() += 1;
            }
            // "show me", "tell me": the caller receives; "my", "am I": the caller owns.
            let first_person = match piece.as_str() {
                "my" | "mine" | "myself" | "whoami" => true,
                "me" => !matches!(
                    previous,
                    "show" | "tell" | "give" | "let" | "send" | "help" | "get" | "for"
                ),
                "i" => previous == "am",
                "am" => next == "i",
                _ => false,
            };
            intent.first_person |= first_person;
        }
        let mut first_head = true;
        for token in tokens {
            if let Some(reference) = token.reference {
                match reference {
                    Reference::MergeRequest => {
                        intent.merge_request = true;
                        intent.domains.insert("merge_request");
                    }
                    Reference::Mention => {
                        intent.domains.insert("user");
                    }
                    Reference::File if token.role == Role::Head => {
                        intent.objects.insert("file");
                    }
                    Reference::Sha if token.role == Role::Head => {
                        intent.objects.insert("commit");
                    }
                    _ => {}
                }
                if token.role == Role::Head {
                    intent.references.push(reference);
                }
                continue;
            }
            if token.role != Role::Head {
                continue;
            }
            let word = token.word.as_str();
            // A noun-verb as the first word is the verb: "comment on !42".
            if first_head && matches!(word, "comment" | "note" | "reply") {
                *intent.verbs.entry(Verb::Create).or_default() += 1;
            }
            first_head = false;
            // "tell the author": a comment; "tell me": an answer for the caller.
            let to_caller = tokens
                .iter()
                .skip_while(|t| t.word != word)
                .nth(1)
                .is_some_and(|t| t.word == "me");
            let addressed = pieces
                .windows(2)
                .any(|w| w[0] == word && matches!(w[1].as_str(), "me" | "us"));
            if MESSAGES.contains(&word) && !to_caller && !addressed {
                *intent.verbs.entry(Verb::Create).or_default() += 1;
                intent.objects.insert("note");
            }
            // `delet`, `deleting`: a verb read by its stem too.
            let verb = VERBS.iter().find(|(w, _)| *w == word).or_else(|| {
                VERBS
                    .iter()
                    .find(|(w, _)| w.len() > 3 && stem(w) == stem(word))
            });
            if let Some((_, verbs)) = verb {
                for verb in *verbs {
                    *intent.verbs.entry(*verb).or_default() += 1;
                }
            }
            intent
                .objects
                .extend(OBJECTS.iter().filter(|(w, _)| *w == word).map(|(_, o)| *o));
            intent
                .domains
                .extend(DOMAINS.iter().filter(|(w, _)| *w == word).map(|(_, d)| *d));
            // A domain's own name names it too (`tag`, `tags`), with no table to keep.
            let stemmed = stem(word);
            for domain in crate::catalog::DOMAINS.iter().map(|d| d.name) {
                if !domain.contains('_') && stem(domain) == stemmed {
                    intent.domains.insert(domain);
                    if word != domain && word.ends_with('s') {
                        intent.plural = true;
                    }
                }
            }
            if PLURALS.contains(&word) {
                intent.plural = true;
            }
            if matches!(word, "mr" | "mrs" | "pr" | "prs") {
                intent.merge_request = true;
            }
        }
        // A question asks to read: "is MR 33 ready to merge" does not merge it.
        if intent.question {
            intent.verbs.clear();
        }
        intent
    }

    /// The operation asked for, read from cues when no verb says it.
    pub fn implied_verb(&self) -> Option<Verb> {
        if !self.verbs.is_empty() {
            return None;
        }
        if self.plural {
            Some(Verb::List)
        } else if self.references.iter().any(|r| *r != Reference::Mention) {
            Some(Verb::Get)
        } else {
            None
        }
    }
}

/// An action's profile: its operation and the part of its domain it works on.
#[derive(Debug, Clone)]
pub struct Profile {
    /// The action reads one thing named by a parameter (a SHA, an iid, a file path).
    pub needs_target: bool,
    pub verb: Verb,
    pub objects: BTreeSet<&'static str>,
    /// The action is about the caller's own things (`user.current`, `merge_request.list_all`,
    /// whose default is the caller's merge requests).
    pub first_person: bool,
}

impl Profile {
    pub fn of(action: &Action) -> Self {
        let words: Vec<&str> = action.name.split('_').collect();
        // `list_all` lists, `file_raw` reads: the first word that is a verb decides.
        let verb = match action.name {
            "tree" => Verb::List,
            "compare" => Verb::Compare,
            "merge" => Verb::Merge,
            "approve" => Verb::Approve,
            "retry" => Verb::Retry,
            "cancel" => Verb::Cancel,
            "play" => Verb::Play,
            "update" => Verb::Update,
            "delete" => Verb::Delete,
            _ if words.contains(&"list") => Verb::List,
            _ if words.contains(&"create") => Verb::Create,
            _ => name_verb(&words).unwrap_or_else(|| method_verb(action)),
        };
        let mut objects = BTreeSet::new();
        for word in words {
            let object = match word {
                "note" => "note",
                "file" => "file",
                "raw" => "raw",
                "commit" => "commit",
                "log" => "log",
                "diffs" => "diff",
                "tree" => "tree",
                "languages" => "language",
                "compare" => "diff",
                _ => continue,
            };
            objects.insert(object);
        }
        if action.name == "file_raw" {
            objects.insert("file");
        }
        let first_person = matches!(action.name, "current" | "list_all");
        let needs_target = verb == Verb::Get
            && action
                .required_params()
                .any(|p| !matches!(p.name, "project_id" | "group_id"));
        Self {
            verb,
            objects,
            first_person,
            needs_target,
        }
    }
}

/// The first word of an action's name that is an operation word (`project_remove`,
/// `status_set`); `merge` before `request` names a thing, not the operation.
fn name_verb(words: &[&str]) -> Option<Verb> {
    words.iter().enumerate().find_map(|(index, word)| {
        let noun = words
            .get(index + 1)
            .is_some_and(|next| next.starts_with("request"));
        if noun {
            return None;
        }
        VERBS
            .iter()
            .find(|(w, _)| w == word)
            .and_then(|(_, verbs)| verbs.first().copied())
    })
}

/// What the HTTP method says when the name does not: a DELETE removes, a PUT changes, a
/// POST creates, a paged GET lists.
fn method_verb(action: &Action) -> Verb {
    match action.method {
        crate::gitlab::Method::Delete => Verb::Delete,
        crate::gitlab::Method::Put | crate::gitlab::Method::Patch => Verb::Update,
        crate::gitlab::Method::Post => Verb::Create,
        _ if matches!(
            action.result,
            crate::catalog::ResultShape::List {
                paginated: true,
                ..
            }
        ) =>
        {
            Verb::List
        }
        _ => Verb::Get,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tokens;

    fn read(text: &str) -> Intent {
        let pieces = tokens::pieces(text);
        Intent::read(&tokens::read(&pieces, is_verb), &pieces)
    }

    #[test]
    fn references_and_cues() {
        let intent = read("show the comments on !42");
        assert!(intent.merge_request && intent.objects.contains("note"));
        assert_eq!(read("show open MRs").implied_verb(), Some(Verb::List));
        assert_eq!(read("show MR 42").implied_verb(), Some(Verb::Get));
        assert!(
            read("open a merge request")
                .verbs
                .contains_key(&Verb::Create)
        );
        assert!(read("cat src/main.rs").objects.contains("file"));
        assert!(read("git show 9f1c2e7a").objects.contains("commit"));
        assert!(read("show me my merge requests").first_person);
        assert!(!read("show me the open merge requests").first_person);
        assert!(
            read("comment on !42 that it looks good")
                .verbs
                .contains_key(&Verb::Create)
        );
    }
}

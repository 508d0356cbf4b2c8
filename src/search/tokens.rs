//! Reads a request into tokens with a role each, so that the words of the thing asked for
//! count fully and the words around it count less or not at all.
//!
//! - *head*: what the request is about ("show the **open merge requests**").
//! - *context*: a container named after a preposition ("... **in this project**", "... on
//!   the **develop branch**"): it says where, not what.
//! - *value*: a name or label the request passes along ("labeled **bug**").
//! - *negated*: what the request rules out ("... **not the whole pipeline**").
//!
//! Names in the request (`acme/api`, `src/main.rs`, `!42`, `#17`, `9f1c2e7a`, `@bob`, 42) are
//! references, not words: they say that one thing is meant, not which action.

pub use super::known::terms::pieces;
use std::borrow::Cow;

use super::intent::{self, Shape};
use super::lexicon::{Lexicon, Meaning};
use super::words;

/// A specific thing the request names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// `!42`
    Bang,
    /// `#17`
    Hash,
    /// GitLab's other references by number, by their sigil: `&12` (an epic), `$7` (a
    /// snippet), `%3` (a milestone). Each names one thing of the domain that claims it.
    Sigil(char),
    /// A bare number.
    Number,
    /// A hexadecimal SHA of 6 or more characters.
    Sha,
    /// `@name`
    Mention,
    /// Something that looks like a file: `src/main.rs`, `Dockerfile`, `.gitlab-ci.yml`.
    File,
    /// A path-like name: `acme/api`, `feature/login`.
    Name,
}

/// The sigils of `Reference::Sigil`; each is also the kind a domain claims.
const SIGILS: &str = "&$%";

impl Reference {
    /// The kind a domain claims under `vocabulary.references` (`!`, `#`, `&`, `$`, `%`, `@`,
    /// `sha`, `file`, `path`).
    pub fn kind(self) -> Option<&'static str> {
        match self {
            Self::Bang => Some("!"),
            Self::Hash => Some("#"),
            Self::Sigil(sigil) => SIGILS
                .find(sigil)
                .map(|at| &SIGILS[at..at + sigil.len_utf8()]),
            Self::Mention => Some("@"),
            Self::Sha => Some("sha"),
            Self::File => Some("file"),
            Self::Name => Some("path"),
            Self::Number => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Head,
    Context,
    Value,
    Negated,
}

#[derive(Debug, Clone)]
pub struct Token {
    /// Lower case; a phrase's words joined by a space; a reference's own text.
    pub word: String,
    pub reference: Option<Reference>,
    pub role: Role,
    /// What the lexicon says the word or phrase means.
    pub meaning: Meaning,
    /// The word names a thing in the plural (`issues`, `mrs`).
    pub plural: bool,
    /// The word was read from a misspelling.
    pub typo: bool,
    /// A verb read as what the thing is for ("a comment on !42 to approve it").
    pub purpose: bool,
    /// A word the vocabulary does not know, said right after the verb and before a
    /// preposition: a name ("remove kim from the games group").
    pub name: bool,
}

/// Words after which the next words name a container.
/// (`of` is not one: "the source of src/main.rs" is about the file.)
const PREPOSITIONS: &[&str] = &[
    "in", "for", "on", "from", "under", "within", "into", "onto", "inside", "across", "at",
];
/// Words after which the next word is a value passed along.
const VALUE_INTRODUCERS: &[&str] = &[
    "labeled", "labelled", "called", "named", "titled", "saying", "says", "tagged",
];
/// Words after which the rest of the clause is ruled out.
const NEGATIONS: &[&str] = &["not", "without", "except", "excluding"];
/// How many content words after a preposition are context.
const CONTEXT_WORDS: usize = 2;

const FILE_NAMES: &[&str] = &[
    "dockerfile",
    "makefile",
    "readme",
    "license",
    "gemfile",
    "procfile",
    "jenkinsfile",
];
const EXTENSIONS: &[&str] = &[
    "rs", "go", "py", "rb", "js", "ts", "tsx", "jsx", "java", "kt", "c", "h", "cc", "cpp", "hpp",
    "cs", "php", "sh", "yml", "yaml", "json", "toml", "md", "txt", "xml", "html", "css", "scss",
    "sql", "lock", "cfg", "ini", "conf", "env", "png", "jpg", "jpeg", "gif", "svg", "pdf", "zip",
    "bin", "csv", "proto", "gradle", "swift", "vue",
];

/// Whether a word shapes the request's grammar (a preposition, a negation, a word that
/// introduces a value): it is never a misspelling.
pub fn is_grammar(word: &str) -> bool {
    PREPOSITIONS.contains(&word) || NEGATIONS.contains(&word) || VALUE_INTRODUCERS.contains(&word)
}

/// Words that end a speaker's role ("security auditor:", "GitLab admin here:").
const ROLES: &[&str] = &[
    "administrator",
    "analyst",
    "architect",
    "auditor",
    "cto",
    "designer",
    "dev",
    "developer",
    "engineer",
    "here",
    "intern",
    "lead",
    "manager",
    "ops",
    "pm",
    "qa",
    "sre",
    "support",
    "tester",
    "writer",
];

/// Drops who is speaking from the head of a request ("security auditor: who has ...",
/// "PM: ..."): up to three words before a colon, the last of them a role, say who asks,
/// not what ("create an issue: ..." is kept). Whether it dropped them.
pub fn drop_speaker(pieces: &mut Vec<String>) -> bool {
    let Some(end) = pieces.iter().take(3).position(|p| p.ends_with(':')) else {
        return false;
    };
    let speaks = ROLES.contains(&pieces[end].trim_end_matches(':')) && end + 1 < pieces.len();
    if speaks {
        pieces.drain(..=end);
    }
    speaks
}

/// One word of a request, or one reference, before phrases are grouped.
#[derive(Debug, Clone)]
pub struct Unit {
    pub word: String,
    pub reference: Option<Reference>,
    /// The last unit of a clause (its piece ended with `,`, `;`, `.`, ...).
    pub ends_clause: bool,
    pub typo: bool,
    /// Written with `'s`: a name that owns something (`bob's`), never a misspelling.
    pub possessive: bool,
}

/// The units of the pieces: each reference whole, every other piece split into words (a
/// path-like piece that is one phrase of the vocabulary, such as `ci/cd`, is words).
pub fn units(pieces: &[String], lexicon: &Lexicon) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    for piece in pieces {
        // A dash set apart ends a clause: "not from the group — remove frank from acme/web".
        if !piece.is_empty()
            && piece
                .chars()
                .all(|c| matches!(c, '-' | '\u{2013}' | '\u{2014}'))
        {
            if let Some(last) = units.last_mut() {
                last.ends_clause = true;
            }
            continue;
        }
        let ends_clause = piece.ends_with([',', ';', '.', '?', '!', ':']);
        let trimmed = piece
            .trim_matches(|c: char| {
                matches!(
                    c,
                    ',' | ';' | ':' | '?' | '"' | '\'' | '(' | ')' | '`' | '[' | ']'
                )
            })
            .trim_end_matches('.')
            .trim_start_matches('-');
        let mut words = words::units(trimmed);
        // `to-dos`, `e-mail`: a hyphenated word the vocabulary knows joined up.
        if words.len() > 1 && trimmed.contains('-') {
            let joined = words.concat();
            if lexicon.lookup(&joined).is_some() {
                words = vec![joined];
            }
        }
        let possessive = words.len() == 1 && trimmed.ends_with("'s");
        let reference =
            reference(trimmed).filter(|r| *r != Reference::Name || !lexicon.is_phrase(&words));
        let start = units.len();
        match reference {
            Some(reference) => units.push(Unit {
                word: trimmed.to_owned(),
                reference: Some(reference),
                ends_clause: false,
                typo: false,
                possessive: false,
            }),
            None => units.extend(words.into_iter().map(|word| Unit {
                word,
                reference: None,
                ends_clause: false,
                typo: false,
                possessive,
            })),
        }
        if ends_clause
            && units.len() > start
            && let Some(last) = units.last_mut()
        {
            last.ends_clause = true;
        }
    }
    units
}

/// The words of the pieces besides their references: what a request says, not what it
/// names (names differ from request to request).
pub fn said(pieces: &[String], lexicon: &Lexicon) -> Vec<String> {
    units(pieces, lexicon)
        .into_iter()
        .filter(|unit| unit.reference.is_none())
        .map(|unit| unit.word)
        .collect()
}

/// Where the reader is in a clause.
#[derive(Default)]
struct State {
    /// Content words still to come in a container named after a preposition.
    context_left: usize,
    value_next: bool,
    negated: bool,
}

impl State {
    fn role(&mut self, verb: bool) -> Role {
        if self.negated {
            return Role::Negated;
        }
        if self.value_next {
            self.value_next = false;
            return Role::Value;
        }
        if verb {
            self.context_left = 0;
            return Role::Head;
        }
        if self.context_left > 0 {
            self.context_left -= 1;
            return Role::Context;
        }
        Role::Head
    }
}

/// The units with the rest of each verb said after its object moved next to the verb:
/// "mark the thread as resolved" reads "mark as resolved the thread", "push the due date
/// out" reads "push out the due date", so that the verb's phrase is found.
fn join_separated_verbs<'a>(units: &'a [Unit], lexicon: &Lexicon) -> Cow<'a, [Unit]> {
    if !units.iter().any(|u| lexicon.may_separate(&u.word)) {
        return Cow::Borrowed(units);
    }
    let mut units = units.to_vec();
    let mut words: Vec<String> = units.iter().map(|u| u.word.clone()).collect();
    for at in 0..units.len() {
        if units[at].reference.is_some() || units[at].ends_clause {
            continue;
        }
        let clause_end = units[at..]
            .iter()
            .position(|u| u.ends_clause)
            .map_or(units.len(), |end| at + end + 1);
        let Some((from, length)) = lexicon.separated_verb(&words[at..clause_end]) else {
            continue;
        };
        move_next_to(&mut units, at, at + from, length);
        words[at + 1..at + from + length].rotate_right(length);
    }
    Cow::Owned(units)
}

/// Moves `length` units from `from` to right after the unit at `verb`; the clause still
/// ends where it ended.
fn move_next_to(units: &mut [Unit], verb: usize, from: usize, length: usize) {
    let end = from + length;
    let ends_clause = std::mem::take(&mut units[end - 1].ends_clause);
    units[from - 1].ends_clause |= ends_clause;
    units[verb + 1..end].rotate_right(length);
}

/// Whether the unit at `at` starts what a request says to leave as it is: "delete the
/// artifacts of job 5 but keep the log", "revoke the token, leave my own alone". What is
/// kept is ruled out like what is not to be touched; a `keep` that is the request's own
/// ask ("keep the artifacts of job 5") comes first or after no other ask.
fn says_to_keep(units: &[Unit], at: usize, asked: bool) -> bool {
    matches!(units[at].word.as_str(), "keep" | "leave")
        && at > 0
        && (units[at - 1].word == "but" || asked && units[at - 1].ends_clause)
}

/// Tokens of the units of a request (or of one clause of it): phrases grouped (leftmost,
/// longest first, never across a reference or a clause's end), each word read in the
/// lexicon, and a role given to each. A word that names a thing asks for an operation
/// only as the first word of the request's head ("comment on !42", but "the comments").
pub fn read(units: &[Unit], lexicon: &Lexicon) -> Vec<Token> {
    let units: &[Unit] = &join_separated_verbs(units, lexicon);
    // Phrases are looked for in the words from each unit on: copied once, not at each.
    let words: Vec<String> = units.iter().map(|u| u.word.clone()).collect();
    let mut tokens = Vec::new();
    let mut state = State::default();
    let mut first_head = true;
    // A verb has been read: "to" then starts a purpose ("add a task to upgrade postgres"),
    // whose verb is what the thing is for, not what to do.
    let mut asked = false;
    let mut purpose = false;
    let mut at = 0;
    while at < units.len() {
        let unit = &units[at];
        if let Some(reference) = unit.reference {
            let role = state.role(false);
            tokens.push(Token {
                word: unit.word.clone(),
                reference: Some(reference),
                role,
                meaning: Meaning::default(),
                plural: false,
                typo: false,
                purpose: false,
                name: false,
            });
            if unit.ends_clause {
                state = State::default();
            }
            at += 1;
            continue;
        }
        if says_to_keep(units, at, asked) {
            state.negated = true;
            at += 1;
            continue;
        }
        // The words up to the next reference or clause end, for phrases.
        let run_end = units[at..]
            .iter()
            .position(|u| u.reference.is_some() || u.ends_clause)
            .map_or(units.len(), |p| {
                if units[at + p].reference.is_some() {
                    at + p
                } else {
                    at + p + 1
                }
            });
        let run = &words[at..run_end];
        let phrase = lexicon.phrase_at(run, 0).filter(|(_, meaning)| {
            // Said first, not in a question ("which merge request closes #58").
            let imperative = units[..at]
                .iter()
                .all(|u| words::is_stop_word(&u.word) && !intent::is_question_word(&u.word));
            !(imperative && orders_otherwise(&unit.word, meaning, lexicon))
        });
        if let Some((length, meaning)) = phrase {
            let last = at + length - 1;
            // `ci runs`, `pull requests`, `group audit events`: a phrase is plural by its
            // last word, or by the word before its `of` ("members of the group").
            let end = head_word(&run[..length]);
            let plural = (meaning.names_thing() || !meaning.actions.is_empty())
                && (words::is_plural(end) || after_quantifier(units, at));
            let mut meaning = meaning;
            let is_purpose = read_as_purpose(&mut purpose, &mut meaning);
            let verb = !meaning.operations.is_empty();
            let role = state.role(verb);
            if role == Role::Head {
                first_head = false;
                asked |= verb;
            }
            tokens.push(Token {
                word: run[..length].join(" "),
                reference: None,
                role,
                meaning,
                plural,
                typo: units[at..=last].iter().any(|u| u.typo),
                purpose: is_purpose,
                name: false,
            });
            if units[last].ends_clause {
                state = State::default();
            }
            at = last + 1;
            continue;
        }
        let word = unit.word.as_str();
        // Whether the word before is a content word that asks for nothing: then a verb
        // after it (but a participle: "MRs mentioning") ends a noun ("the new contact list").
        // Looked up only for a verb read after another.
        let index = at;
        let after_noun = || {
            index > 0 && {
                let before = &units[index - 1];
                before.reference.is_none()
                    && !before.ends_clause
                    && !words::is_stop_word(&before.word)
                    && !is_grammar(&before.word)
                    && before.word != "to"
                    && lexicon
                        .lookup(&before.word)
                        .is_none_or(|(meaning, _)| meaning.operations.is_empty())
            }
        };
        let after_article = || after_one_of(units, index, words::ARTICLES);
        at += 1;
        if word == "to" && asked {
            purpose = true;
        } else if PREPOSITIONS.contains(&word) {
            state.context_left = CONTEXT_WORDS;
        } else if NEGATIONS.contains(&word) {
            state.negated = true;
        } else if word.chars().count() >= 2 && !words::is_stop_word(word) {
            let looked_up = lexicon.lookup(word);
            // A name is said bare right after its verb and before a preposition: "remove
            // the flaky test" names a thing, "delete bob's fork" his fork, "remove it
            // permanently" says how, "change what I replied in" is no name.
            let name = looked_up.is_none()
                && word.len() > 2
                && !unit.typo
                && !unit.possessive
                && index > 0
                && !words::is_stop_word(&units[index - 1].word)
                && !intent::is_neutral(word)
                && !words::is_everyday(word)
                && tokens.last().is_some_and(|verb: &Token| {
                    verb.role == Role::Head && !verb.meaning.operations.is_empty()
                })
                && units.get(index + 1).is_some_and(|next| {
                    PREPOSITIONS.contains(&next.word.as_str()) || next.word == "of"
                });
            let (mut meaning, plural) = looked_up.unwrap_or_default();
            let plural = (plural || after_quantifier(units, index)) && meaning.names_thing();
            let is_purpose = read_as_purpose(&mut purpose, &mut meaning);
            // Once a verb has asked, a verb after an article qualifies a thing: "rotate it
            // and show the new one", "put the new value in".
            let ends_noun = || {
                asked
                    && !meaning.operations.is_empty()
                    && (after_article() || !word.ends_with("ing") && after_noun())
            };
            // After an article, a word that names a thing is that thing: "the tag v1.0
            // shouldn't exist" tags nothing.
            let noun_after_article = || meaning.names_thing() && after_article();
            // Right before a SHA of its own domain, it is that thing: "commit 9f3ab21" is
            // one commit, not a commit to make ("tag 9f3ab21 as v1.0" still tags it).
            let names_sha = || {
                units.get(index + 1).is_some_and(|next| {
                    next.reference == Some(Reference::Sha)
                        && lexicon
                            .reference("sha")
                            .iter()
                            .any(|meant| meaning.domains.contains(&meant.domain))
                })
            };
            // Right after `the`, a verb is a noun: "tell the reporter the fix is in v2.3.1"
            // fixes nothing. But a button is pressed for what it says ("hit the Stop button").
            let after_the = after_one_of(units, index, &["the"])
                && units
                    .get(index + 1)
                    .is_none_or(|next| next.word != "button");
            // After a form of `be`, a verb in -ing tells what is going on: "carol is leaving"
            // leaves no comment.
            let going_on = word.ends_with("ing")
                && after_one_of(units, index, &["is", "are", "am", "was", "were", "been"]);
            if (meaning.names_thing() && (plural || !first_head))
                || after_the
                || going_on
                || noun_after_article()
                || ends_noun()
                || names_sha()
            {
                meaning.operations.clear();
            }
            // A verb that may create or update ("add") followed by `a` or `an` makes a new
            // thing: "add a download link to v2.3.1" creates a link.
            let makes_one = units
                .get(index + 1)
                .is_some_and(|next| words::INDEFINITE.contains(&next.word.as_str()));
            if makes_one && lexicon.asks_create_or_update(&meaning.operations) {
                meaning
                    .operations
                    .retain(|operation| lexicon.operations[*operation] == "create");
            }
            let role = state.role(!meaning.operations.is_empty());
            if role == Role::Head {
                first_head = false;
                asked |= !meaning.operations.is_empty();
            }
            tokens.push(Token {
                word: word.to_owned(),
                reference: None,
                role,
                meaning,
                plural,
                typo: unit.typo,
                purpose: is_purpose,
                name,
            });
            if VALUE_INTRODUCERS.contains(&word) {
                state.value_next = true;
            }
        }
        if unit.ends_clause {
            state = State::default();
        }
    }
    tokens
}

/// Whether a phrase of reads starts with a verb said in the imperative that asks for none
/// of their operations: "close merge request !77" closes it, though "closing merge
/// request" names the read of the merge requests that close an issue.
fn orders_otherwise(word: &str, meaning: &Meaning, lexicon: &Lexicon) -> bool {
    let Some((said, _)) = lexicon.lookup(word) else {
        return false;
    };
    !said.operations.is_empty()
        && !said.names_thing()
        && !word.ends_with("ing")
        && !word.ends_with("ed")
        && !meaning.actions.is_empty()
        && meaning.actions.iter().all(|id| {
            let action = lexicon.actions[*id];
            Shape::of(action) != Shape::Change
                && lexicon
                    .operation_id(action.vocabulary.operation)
                    .is_none_or(|operation| !said.operations.contains(&operation))
        })
}

/// "every branch", "each runner": a thing said in the singular after a word that counts
/// them all means them all.
fn after_quantifier(units: &[Unit], at: usize) -> bool {
    after_one_of(units, at, &["every", "each"])
}

/// Whether the unit before `at`, in the same clause, is one of `words`.
fn after_one_of(units: &[Unit], at: usize, words: &[&str]) -> bool {
    at > 0 && !units[at - 1].ends_clause && words.contains(&units[at - 1].word.as_str())
}

/// A verb right after "to", once the request has asked for something, is what the thing
/// is for ("add a task to upgrade postgres"): it asks for nothing and means nothing more
/// than its word. The first word read after "to" ends the purpose either way.
fn read_as_purpose(purpose: &mut bool, meaning: &mut Meaning) -> bool {
    let is_purpose = std::mem::take(purpose) && !meaning.operations.is_empty();
    if is_purpose {
        *meaning = Meaning::default();
    }
    is_purpose
}

/// Makes every context token a head token: for a request whose head names nothing the
/// catalog knows ("failure reason for job 70042"), the container is the subject.
pub fn promote_context(tokens: &mut [Token]) {
    for token in tokens.iter_mut().filter(|t| t.role == Role::Context) {
        token.role = Role::Head;
    }
}

fn reference(word: &str) -> Option<Reference> {
    if let Some(name) = word.strip_prefix('@') {
        return (!name.is_empty()).then_some(Reference::Mention);
    }
    if let Some(number) = word.strip_prefix('!') {
        return (!number.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
            .then_some(Reference::Bang);
    }
    if let Some(number) = word.strip_prefix('#') {
        return (!number.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
            .then_some(Reference::Hash);
    }
    for sigil in SIGILS.chars() {
        if let Some(number) = word.strip_prefix(sigil)
            && !number.is_empty()
            && number.chars().all(|c| c.is_ascii_digit())
        {
            return Some(Reference::Sigil(sigil));
        }
    }
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_digit()) {
        return Some(Reference::Number);
    }
    // A version (`v1.3.0`, `2.1`) names one tag or release.
    let version = word.strip_prefix('v').unwrap_or(word);
    if version.contains('.')
        && version
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
    {
        return Some(Reference::Name);
    }
    let has_digit = word.chars().any(|c| c.is_ascii_digit());
    let has_letter = word.chars().any(|c| c.is_ascii_alphabetic());
    if (6..=40).contains(&word.len())
        && has_digit
        && has_letter
        && word.chars().all(|c| c.is_ascii_hexdigit())
    {
        return Some(Reference::Sha);
    }
    // A key such as `DATABASE_URL` names one variable, setting or file.
    if word.contains('_')
        && word
            .split('_')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric()))
    {
        return Some(Reference::Name);
    }
    let name = word.rsplit('/').next().unwrap_or(word);
    let base = name.trim_start_matches('.');
    let stem = base.split('.').next().unwrap_or("");
    let extension = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    let is_file = FILE_NAMES.contains(&stem)
        || (name.contains('.') && extension.is_some_and(|ext| EXTENSIONS.contains(&ext.as_str())))
        || (name.starts_with('.') && base.len() > 1);
    if is_file {
        return Some(Reference::File);
    }
    (word.contains('/') && word.len() > 1).then_some(Reference::Name)
}

/// The word of a phrase that says how many things it names: its last, or the one before
/// its `of` ("members of the group").
pub(super) fn head_word<S: AsRef<str>>(words: &[S]) -> &str {
    let at = match words.iter().position(|w| w.as_ref() == "of") {
        Some(of) if of > 0 => of - 1,
        _ => words.len().saturating_sub(1),
    };
    words.get(at).map_or("", AsRef::as_ref)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(text: &str) -> Vec<(String, Role)> {
        let lexicon = Lexicon::new(&[], &[], &[]);
        read(&units(&pieces(text), &lexicon), &lexicon)
            .into_iter()
            .map(|t| (t.word, t.role))
            .collect()
    }

    #[test]
    fn a_phrase_is_as_many_as_its_head_word() {
        assert_eq!(head_word(&["group", "audit", "events"]), "events");
        assert_eq!(head_word(&["members", "of", "the", "group"]), "members");
        assert_eq!(head_word(&["of", "course"]), "course");
        assert_eq!(head_word::<&str>(&[]), "");
    }

    #[test]
    fn containers_values_and_negations() {
        assert_eq!(
            roles("show widgets labeled red in this box, not gadgets"),
            vec![
                ("show".into(), Role::Head),
                ("widgets".into(), Role::Head),
                ("labeled".into(), Role::Head),
                ("red".into(), Role::Value),
                ("box".into(), Role::Context),
                ("gadgets".into(), Role::Negated),
            ]
        );
    }

    #[test]
    fn a_dash_ends_what_a_negation_rules_out() {
        assert_eq!(
            roles("not gadgets \u{2014} show widgets"),
            vec![
                ("gadgets".into(), Role::Negated),
                ("show".into(), Role::Head),
                ("widgets".into(), Role::Head),
            ]
        );
    }

    #[test]
    fn what_a_request_keeps_is_ruled_out() {
        assert_eq!(
            roles("drop the widgets but keep the gadgets"),
            vec![
                ("drop".into(), Role::Head),
                ("widgets".into(), Role::Head),
                ("gadgets".into(), Role::Negated),
            ]
        );
        assert_eq!(
            roles("keep the gadgets"),
            vec![("keep".into(), Role::Head), ("gadgets".into(), Role::Head)]
        );
    }

    #[test]
    fn once_a_verb_asked_a_verb_after_an_article_qualifies_a_thing() {
        static VOCABULARY: crate::catalog::Vocabulary = crate::catalog::Vocabulary {
            operations: &[
                crate::catalog::WordList::new("create", &["new"]),
                crate::catalog::WordList::new("update", &["rotate"]),
            ],
            synonyms: &[],
        };
        let lexicon = Lexicon::new(&[], &[], &[&VOCABULARY]);
        let asks = |text: &str| -> Vec<String> {
            read(&units(&pieces(text), &lexicon), &lexicon)
                .into_iter()
                .filter(|t| !t.meaning.operations.is_empty())
                .map(|t| t.word)
                .collect()
        };
        assert_eq!(asks("rotate the key and show the new one"), ["rotate"]);
        assert_eq!(asks("a new key"), ["new"]);
    }

    #[test]
    fn the_rest_of_a_verb_said_after_its_object_joins_it() {
        let lexicon = Lexicon::new(&[], &[], &[]);
        let mut units = units(&pieces("twirl the widget round, then stop"), &lexicon);
        // As the vocabulary's "twirl round" would.
        move_next_to(&mut units, 0, 3, 1);
        let joined: Vec<(&str, bool)> = units
            .iter()
            .map(|u| (u.word.as_str(), u.ends_clause))
            .collect();
        assert_eq!(
            joined,
            [
                ("twirl", false),
                ("round", false),
                ("the", false),
                ("widget", true),
                ("then", false),
                ("stop", false)
            ]
        );
    }

    #[test]
    fn web_addresses_read_as_the_page_they_name() {
        let read = |text: &str| pieces(text).join(" ");
        assert_eq!(
            read("see https://gitlab.acme.io/acme/web/-/gadget_boxes/42/parts, please"),
            "see acme/web gadget box 42 parts please"
        );
        assert_eq!(
            read("https://gitlab.acme.io/groups/acme/-/gadgets?color_name[]=red"),
            "groups/acme gadgets color name red"
        );
        assert_eq!(
            read("http://git.local/a/b/-/blob/main/src/app.rs#L12"),
            "a/b blob main src app.rs line 12"
        );
        assert_eq!(
            read("read https://git.local/a/b/-/gadgets/7#part_99"),
            "read a/b gadget 7 part 99"
        );
        assert_eq!(
            read("https://git.local/a/b/-/merge_requests/12/diffs"),
            "a/b merge request 12 diffs"
        );
        // A reference written after its project is apart from it.
        assert_eq!(
            read("show acme/web#88, then a/b!7."),
            "show acme/web #88, then a/b !7."
        );
        // Any other address is a value.
        assert_eq!(
            read("send pushes to https://hooks.example.com/in"),
            "send pushes to https://hooks.example.com/in"
        );
    }

    #[test]
    fn references() {
        assert_eq!(reference("!42"), Some(Reference::Bang));
        assert_eq!(reference("&12"), Some(Reference::Sigil('&')));
        assert_eq!(Reference::Sigil('$').kind(), Some("$"));
        assert_eq!(reference("%v1"), None);
        assert_eq!(reference("abc123"), Some(Reference::Sha));
        assert_eq!(reference("src/main.rs"), Some(Reference::File));
        assert_eq!(reference(".gitlab-ci.yml"), Some(Reference::File));
        assert_eq!(
            reference("Makefile".to_lowercase().as_str()),
            Some(Reference::File)
        );
        assert_eq!(reference("acme/api"), Some(Reference::Name));
        assert_eq!(reference("database_url"), Some(Reference::Name));
        assert_eq!(reference("_url"), None);
        assert_eq!(reference("api"), None);
    }
}

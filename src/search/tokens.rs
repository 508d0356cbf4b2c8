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

use super::words;

/// A specific thing the request names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// `!42`
    MergeRequest,
    /// `#17`
    Hash,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Head,
    Context,
    Value,
    Negated,
}

#[derive(Debug, Clone)]
pub struct Token {
    /// Lower case, after phrase rewriting; a reference's own text.
    pub word: String,
    pub reference: Option<Reference>,
    pub role: Role,
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
    "changelog",
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

/// The request's pieces as typed (lower case, phrases rewritten), split on white space.
pub fn pieces(text: &str) -> Vec<String> {
    words::rewrite_phrases(&text.to_lowercase())
        .split_whitespace()
        .map(str::to_owned)
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

/// Tokens of the pieces of a request (or of one clause of it).
pub fn read(pieces: &[String], is_verb: impl Fn(&str) -> bool) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut state = State::default();
    for piece in pieces {
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
        if let Some(reference) = reference(trimmed) {
            let role = state.role(false);
            tokens.push(Token {
                word: trimmed.to_owned(),
                reference: Some(reference),
                role,
            });
        } else {
            for word in trimmed
                .split(|c: char| !c.is_alphanumeric() && c != '+' && c != '\'')
                .filter(|w| !w.is_empty())
            {
                let word = word.strip_suffix("'s").unwrap_or(word).trim_matches('\'');
                if PREPOSITIONS.contains(&word) {
                    state.context_left = CONTEXT_WORDS;
                    continue;
                }
                if NEGATIONS.contains(&word) {
                    state.negated = true;
                    continue;
                }
                if word.chars().count() < 2 || words::is_stop_word(word) {
                    continue;
                }
                let role = state.role(is_verb(word));
                tokens.push(Token {
                    word: word.to_owned(),
                    reference: None,
                    role,
                });
                if VALUE_INTRODUCERS.contains(&word) {
                    state.value_next = true;
                }
            }
        }
        if ends_clause {
            state = State::default();
        }
    }
    tokens
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
            .then_some(Reference::MergeRequest);
    }
    if let Some(number) = word.strip_prefix('#') {
        return (!number.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
            .then_some(Reference::Hash);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(text: &str) -> Vec<(String, Role)> {
        read(&pieces(text), |w| w == "list")
            .into_iter()
            .map(|t| (t.word, t.role))
            .collect()
    }

    #[test]
    fn containers_values_and_negations() {
        assert_eq!(
            roles("list mrs labeled bug in this project, not issues"),
            vec![
                ("list".into(), Role::Head),
                ("mrs".into(), Role::Head),
                ("labeled".into(), Role::Head),
                ("bug".into(), Role::Value),
                ("project".into(), Role::Context),
                ("issues".into(), Role::Negated),
            ]
        );
    }

    #[test]
    fn references() {
        assert_eq!(reference("!42"), Some(Reference::MergeRequest));
        assert_eq!(reference("abc123"), Some(Reference::Sha));
        assert_eq!(reference("src/main.rs"), Some(Reference::File));
        assert_eq!(reference(".gitlab-ci.yml"), Some(Reference::File));
        assert_eq!(
            reference("Makefile".to_lowercase().as_str()),
            Some(Reference::File)
        );
        assert_eq!(reference("acme/api"), Some(Reference::Name));
        assert_eq!(reference("api"), None);
    }
}

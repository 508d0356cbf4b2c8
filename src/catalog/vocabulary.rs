//! Search vocabulary as catalog data: the words requests use for operations, domains and
//! actions, declared under `vocabulary:` in `actions/*.yaml` and generated into each entry.
//!
//! The catalog only carries the words; `search` reads them into its lexicon. Every word or
//! phrase is lower case, its words separated by single spaces.

/// One catalog word (an operation, a word of an action's name) and the words and phrases a
/// request may use for it: `note` ← `comment`, `discussion`.
#[derive(Debug, Clone, Copy)]
pub struct WordList {
    pub name: &'static str,
    pub words: &'static [&'static str],
}

impl WordList {
    pub const fn new(name: &'static str, words: &'static [&'static str]) -> Self {
        Self { name, words }
    }
}

/// `vocabulary:` of `shared.yaml`: what every domain shares.
#[derive(Debug, Clone, Copy)]
pub struct Vocabulary {
    /// The common operations (`list`, `get`, `create`, ...) and the words that ask for each.
    pub operations: &'static [WordList],
    /// Words that mean a catalog word in any domain (`opened` ← `open`).
    pub synonyms: &'static [WordList],
}

impl Vocabulary {
    pub const NONE: Self = Self {
        operations: &[],
        synonyms: &[],
    };
}

/// `vocabulary:` of a domain file: how requests name the domain and its parts.
#[derive(Debug, Clone, Copy)]
pub struct DomainVocabulary {
    /// Words and phrases naming the domain's things, singular (`merge request`, `mr`).
    pub nouns: &'static [&'static str],
    /// Catalog words of the domain and the words a request may use for them.
    pub synonyms: &'static [WordList],
    /// A reference kind (`!`, `#`, `@`, `sha`, `file`) and the noun or object it names.
    pub references: &'static [(&'static str, &'static str)],
}

impl DomainVocabulary {
    pub const NONE: Self = Self {
        nouns: &[],
        synonyms: &[],
        references: &[],
    };
}

/// `vocabulary:` of an action, with what the generator derives filled in: its operation
/// (from its method and result unless declared) and its objects (the words of its name
/// that do not name its operation, unless declared).
#[derive(Debug, Clone, Copy)]
pub struct ActionVocabulary {
    pub operation: &'static str,
    /// Words and phrases that ask for the action's operation.
    pub verbs: &'static [&'static str],
    /// Words and phrases that name this action alone.
    pub phrases: &'static [&'static str],
    /// The parts of its domain the action works on (`note` for `note_list`).
    pub objects: &'static [&'static str],
    /// It is about the caller's own things.
    pub caller: bool,
}

impl ActionVocabulary {
    pub const fn of(operation: &'static str) -> Self {
        Self {
            operation,
            verbs: &[],
            phrases: &[],
            objects: &[],
            caller: false,
        }
    }

    pub const fn verbs(mut self, verbs: &'static [&'static str]) -> Self {
        self.verbs = verbs;
        self
    }

    pub const fn phrases(mut self, phrases: &'static [&'static str]) -> Self {
        self.phrases = phrases;
        self
    }

    pub const fn objects(mut self, objects: &'static [&'static str]) -> Self {
        self.objects = objects;
        self
    }

    pub const fn caller(mut self) -> Self {
        self.caller = true;
        self
    }
}

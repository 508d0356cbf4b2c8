//! Words for search: splitting, stop words and a small stemmer, applied the same way to the
//! catalog, its vocabulary and the request, so that a request word and a catalog word meet
//! in the same form: lower case, split on anything that is not a letter or a digit, suffixes
//! stemmed (`pipelines` and `pipeline` are both `pipelin`). What the words mean is the
//! manifest's (`vocabulary:` in `actions/*.yaml`, read by `lexicon`); nothing here knows a
//! domain or an action.

/// Articles: a phrase may leave them out or add them inside it, and a verb after one (once
/// the request has asked for something) qualifies a thing.
pub const ARTICLES: &[&str] = &["the", "a", "an"];

/// Words that introduce a new thing: "add a link", "there should be an X".
pub const INDEFINITE: &[&str] = &["a", "an", "another"];

/// Words that carry no intent in a request, sorted (looked up by binary search: every word
/// of every action's text is checked when the search index is built).
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "did", "do", "does", "for", "from", "gitlab", "had", "has", "have", "hey",
    "hi", "how", "i", "if", "in", "into", "is", "it", "its", "just", "let", "lets", "need", "now",
    "of", "on", "one", "or", "our", "please", "should", "so", "some", "than", "thank", "thanks",
    "that", "the", "their", "them", "then", "there", "these", "this", "those", "to", "up", "us",
    "use", "using", "via", "want", "was", "we", "were", "what", "which", "will", "with", "would",
    "you", "your",
];

pub fn is_stop_word(word: &str) -> bool {
    // Most of the catalog's words are longer than any stop word: no search for them (the
    // search was a tenth of building the index).
    word.len() <= LONGEST_STOP_WORD && STOP_WORDS.binary_search(&word).is_ok()
}

const LONGEST_STOP_WORD: usize = {
    let (mut at, mut longest) = (0, 0);
    while at < STOP_WORDS.len() {
        if STOP_WORDS[at].len() > longest {
            longest = STOP_WORDS[at].len();
        }
        at += 1;
    }
    longest
};

/// Everyday English words that are one edit from a word a catalog may use (`long` and
/// `log`, `got` and `get`, `three` and `tree`, `ran` and `raw`): spelt right, they mean
/// themselves and are never read as a misspelling. Sorted, as `STOP_WORDS` is.
const EVERYDAY_WORDS: &[&str] = &[
    "able", "after", "again", "ago", "ahead", "ask", "asked", "away", "back", "bad", "been",
    "best", "better", "big", "came", "come", "day", "days", "done", "down", "each", "else", "even",
    "ever", "far", "few", "fine", "five", "four", "gave", "give", "goes", "going", "gone", "good",
    "got", "great", "guy", "guys", "hand", "here", "high", "hour", "hours", "idea", "keep", "kept",
    "kind", "knew", "know", "late", "later", "lead", "least", "left", "less", "like", "likes",
    "line", "little", "long", "look", "looks", "lot", "lots", "low", "made", "many", "may",
    "maybe", "mean", "means", "might", "more", "most", "much", "must", "near", "never", "next",
    "nice", "nine", "old", "once", "only", "other", "over", "own", "part", "past", "put", "ran",
    "rather", "ready", "real", "really", "right", "said", "same", "saw", "say", "says", "seen",
    "send", "sent", "seven", "several", "she", "side", "since", "six", "soon", "still", "such",
    "sure", "take", "taken", "takes", "tell", "ten", "three", "told", "too", "took", "tried",
    "try", "two", "very", "wait", "way", "week", "weeks", "well", "went", "while", "who", "why",
    "wish", "work", "works", "yes", "yet",
];

/// Whether a word is everyday English that is never taken for a misspelling.
pub fn is_everyday(word: &str) -> bool {
    EVERYDAY_WORDS.binary_search(&word).is_ok()
}

/// Whether a character belongs to a word: letters, digits, `+` (`+1`) and `'` (`what's`).
fn in_word(c: char) -> bool {
    c.is_alphanumeric() || c == '+' || c == '\''
}

/// The words of a text, lower case, in order, stop words kept: `checkout -b` is
/// `checkout`, `b`; `ci/cd` is `ci`, `cd`; `bob's` is `bob`; `i'm` is `i`, `am` (so that
/// "projects I'm in" meets a phrase "i am in"). A typographic apostrophe (`I’m`, as phones
/// and word processors write it) is an apostrophe.
pub fn units(text: &str) -> Vec<String> {
    let text = text.to_lowercase().replace('’', "'");
    let mut units = Vec::new();
    for word in text.split(|c: char| !in_word(c)) {
        let word = word.strip_suffix("'s").unwrap_or(word).trim_matches('\'');
        if word.is_empty() {
            continue;
        }
        match contraction(word) {
            Some((head, verb)) => {
                units.push(head.to_owned());
                units.push(verb.to_owned());
            }
            None => units.push(word.to_owned()),
        }
    }
    units
}

/// A pronoun and its verb run together (`i'm`, `we're`, `you've`, `they'll`, `i'd`), apart.
/// A negation (`don't`) stays one word: read as `not`, it would negate what follows it,
/// which is seldom what was meant ("I don't see the pipeline for main").
fn contraction(word: &str) -> Option<(&str, &'static str)> {
    const VERBS: &[(&str, &str)] = &[
        ("'m", "am"),
        ("'re", "are"),
        ("'ve", "have"),
        ("'ll", "will"),
        ("'d", "would"),
    ];
    VERBS.iter().find_map(|(ending, verb)| {
        let head = word.strip_suffix(ending)?;
        (!head.is_empty() && head.chars().all(char::is_alphabetic)).then_some((head, *verb))
    })
}

/// The words of a text that can carry meaning: no stop words, no single letters.
pub fn words(text: &str) -> Vec<String> {
    units(text)
        .into_iter()
        .filter(|w| w.chars().count() > 1 && !is_stop_word(w))
        .collect()
}

/// The stems of a text's meaningful words, in order.
pub fn stems(text: &str) -> Vec<String> {
    words(text).iter().map(|w| stem(w)).collect()
}

/// Whether a word is said in the plural: the stemmer takes an `s` off it (`pages`,
/// `policies`; not `status`).
pub fn is_plural(word: &str) -> bool {
    is_plural_of(word, &stem(word))
}

/// `is_plural` for a word whose stem is already at hand.
pub fn is_plural_of(word: &str, stemmed: &str) -> bool {
    word.ends_with('s') && stemmed != word
}

/// A light suffix stemmer, applied the same way to catalog and query words.
pub fn stem(word: &str) -> String {
    let mut w = word.to_owned();
    if w.len() <= 3 || !w.chars().all(|c| c.is_ascii_alphabetic()) {
        return w;
    }
    if let Some(base) = w.strip_suffix("ies").filter(|b| b.len() >= 2) {
        w = format!("{base}y");
    } else if ["ches", "shes", "sses", "xes", "zes"]
        .iter()
        .any(|s| w.ends_with(s))
    {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.pop();
    }
    if w.len() > 5
        && let Some(base) = w.strip_suffix("ing")
    {
        w = base.to_owned();
        // `running` → `runn` → `run`. (`-ed` is kept: `merged` and `closed` are states,
        // not the verbs `merge` and `close`.)
        let bytes = w.as_bytes();
        if bytes.len() >= 2
            && bytes[bytes.len() - 1] == bytes[bytes.len() - 2]
            && !w.ends_with("ss")
            && !w.ends_with("ll")
        {
            w.pop();
        }
    }
    if w.len() > 3 && w.ends_with('e') {
        w.pop();
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_lists_are_sorted_for_binary_search() {
        for list in [STOP_WORDS, EVERYDAY_WORDS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn stems_meet() {
        for (a, b) in [
            ("timelines", "timeline"),
            ("tissues", "tissue"),
            ("benches", "bench"),
            ("purging", "purge"),
            ("running", "run"),
            ("statuses", "status"),
            ("comments", "comment"),
            ("queries", "query"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
    }

    #[test]
    fn units_split_on_punctuation_and_keep_stop_words() {
        assert_eq!(units("git checkout -b x"), ["git", "checkout", "b", "x"]);
        assert_eq!(units("TCP/IP"), ["tcp", "ip"]);
        assert_eq!(units("+1 on bob's MR"), ["+1", "on", "bob", "mr"]);
        assert_eq!(units("projects I’m in"), ["projects", "i", "am", "in"]);
        assert_eq!(
            units("we've got it, don't"),
            ["we", "have", "got", "it", "don't"]
        );
        assert_eq!(
            words("Show me the open pull requests, please"),
            ["show", "me", "open", "pull", "requests"]
        );
    }
}

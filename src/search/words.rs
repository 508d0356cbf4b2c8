//! Words for search: normalisation, stop words, a small stemmer and GitLab synonyms.
//!
//! The same `terms` function reads the catalog (at index time) and the query, so a query
//! word and a catalog word meet in the same form: lower case, split on anything that is not
//! a letter or digit, stop words dropped, suffixes stemmed (`pipelines` and `pipeline` are
//! both `pipelin`).

/// Words that carry no intent in a request.
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "to", "with", "please", "for", "of", "in", "on", "at", "and", "or", "is",
    "are", "was", "were", "be", "been", "do", "does", "did", "can", "could", "would", "should",
    "will", "you", "i", "we", "it", "its", "this", "that", "these", "those", "what", "which",
    "how", "there", "any", "some", "up", "into", "about", "just", "now", "want", "need", "let",
    "lets", "hey", "hi", "thanks", "thank", "via", "using", "use", "so", "than", "then", "if",
    "by", "from", "as", "our", "us", "your", "them", "their", "has", "have", "had", "gitlab",
    "also", "one", "all",
];

/// Phrases rewritten before splitting, so a multi-word name is one idea.
const PHRASES: &[(&str, &str)] = &[
    ("log a bug", "create issue"),
    ("file a bug", "create issue"),
    ("report a bug", "create issue"),
    ("file an issue", "create issue"),
    ("another go", "retry"),
    ("re-run", "rerun"),
    ("pull requests", "mrs"),
    ("merge requests", "mrs"),
    ("pull-requests", "mrs"),
    ("merge-requests", "mrs"),
    ("pull request", "mr"),
    ("pull-request", "mr"),
    ("merge request", "mr"),
    ("merge-request", "mr"),
    ("ship it", "merge"),
    ("sign off", "approve"),
    ("try again", "retry"),
    ("who am i", "whoami"),
    ("logged in", "whoami"),
    ("git log", "commits"),
    ("tech stack", "languages"),
    ("is the build green", "latest pipeline status"),
    ("let the", "tell the"),
    ("most recent", "latest"),
    ("default branch", "defaultbranch"),
    ("who changed", "commit history"),
    ("who touched", "commit history"),
    ("who modified", "commit history"),
    ("authenticated as", "whoami"),
    ("signed in as", "whoami"),
    ("ci run", "pipeline"),
    ("ci runs", "pipelines"),
    ("checkout -b", "create branch"),
    ("push origin --delete", "delete branch"),
    ("git branch", "branches"),
    ("clean up", "delete"),
    ("cleanup", "delete"),
    ("but not on", "vs"),
    ("language-wise", "languages"),
    ("built with", "languages"),
    ("written in", "languages"),
    ("ci/cd", "ci"),
    ("+1", "approve"),
];

/// Query words and the catalog words they also mean (stemmed on both sides). A synonym
/// scores a little less than the word itself, so an exact word still wins a tie.
const SYNONYMS: &[(&str, &[&str])] = &[
    ("mr", &["merge", "request"]),
    ("mrs", &["merge", "request", "list"]),
    ("pr", &["merge", "request"]),
    ("prs", &["merge", "request", "list"]),
    ("ticket", &["issue"]),
    ("bug", &["issue"]),
    ("task", &["issue"]),
    ("build", &["pipeline", "job"]),
    ("ci", &["pipeline"]),
    ("cd", &["pipeline"]),
    ("workflow", &["pipeline"]),
    ("run", &["pipeline", "create", "play"]),
    ("step", &["job"]),
    ("trace", &["log"]),
    ("output", &["log"]),
    ("console", &["log"]),
    ("tail", &["log"]),
    ("repo", &["repository", "project"]),
    ("cat", &["file", "get"]),
    ("source", &["file"]),
    ("code", &["file"]),
    ("content", &["file"]),
    ("contents", &["file"]),
    ("readme", &["file"]),
    ("patch", &["diff"]),
    ("changes", &["diff"]),
    ("changed", &["diff"]),
    ("comment", &["note"]),
    ("reply", &["note", "create"]),
    ("discussion", &["note"]),
    ("feedback", &["note"]),
    ("lgtm", &["approve"]),
    ("land", &["merge"]),
    ("whoami", &["current", "user"]),
    ("me", &["current"]),
    ("myself", &["current", "user"]),
    ("account", &["user", "current"]),
    ("profile", &["user"]),
    ("people", &["user"]),
    ("person", &["user"]),
    ("member", &["user"]),
    ("username", &["user"]),
    ("fetch", &["get"]),
    ("read", &["get"]),
    ("details", &["get"]),
    ("detail", &["get"]),
    ("info", &["get"]),
    ("describe", &["get"]),
    ("inspect", &["get"]),
    ("open", &["opened"]),
    ("find", &["list"]),
    ("search", &["list"]),
    ("browse", &["list", "tree"]),
    ("enumerate", &["list"]),
    ("remove", &["delete"]),
    ("drop", &["delete"]),
    ("destroy", &["delete"]),
    ("erase", &["delete"]),
    ("rm", &["delete"]),
    ("del", &["delete"]),
    ("make", &["create"]),
    ("new", &["create"]),
    ("add", &["create"]),
    ("start", &["create", "play"]),
    ("init", &["create"]),
    ("post", &["create"]),
    ("write", &["create"]),
    ("edit", &["update"]),
    ("change", &["update"]),
    ("modify", &["update"]),
    ("rename", &["update"]),
    ("set", &["update"]),
    ("assign", &["update"]),
    ("close", &["update"]),
    ("reopen", &["update"]),
    ("rerun", &["retry"]),
    ("restart", &["retry"]),
    ("stop", &["cancel"]),
    ("abort", &["cancel"]),
    ("kill", &["cancel"]),
    ("trigger", &["create", "play"]),
    ("deploy", &["play"]),
    ("green", &["latest"]),
    ("red", &["latest"]),
    ("passing", &["latest"]),
    ("last", &["latest"]),
    ("current", &["latest"]),
    ("status", &["latest"]),
    ("broken", &["latest", "failed"]),
    ("failing", &["latest", "failed"]),
    ("fail", &["failed"]),
    ("stack", &["language"]),
    ("ls", &["tree"]),
    ("dir", &["tree"]),
    ("directory", &["tree"]),
    ("folder", &["tree"]),
    ("history", &["commit", "list"]),
    ("between", &["compare"]),
    ("vs", &["compare"]),
    ("versus", &["compare"]),
    ("download", &["raw"]),
    ("binary", &["raw"]),
    ("bytes", &["raw"]),
];

/// Every query word the synonym table knows, for the typo fallback.
pub fn known_words() -> impl Iterator<Item = &'static str> {
    SYNONYMS.iter().map(|(w, _)| *w)
}

pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// Lower-cased text with multi-word phrases rewritten to the word they mean. A phrase
/// matches whole words only, and longer phrases first: "ci runs" is not "ci run" + "s".
pub fn rewrite_phrases(text: &str) -> String {
    let mut lowered = format!(" {} ", text.to_lowercase());
    let mut phrases: Vec<&(&str, &str)> = PHRASES.iter().collect();
    phrases.sort_by_key(|(phrase, _)| std::cmp::Reverse(phrase.len()));
    for (phrase, replacement) in phrases {
        lowered = replace_words(&lowered, phrase, replacement);
    }
    lowered
}

/// Replaces `phrase` where it stands as whole words (no letter or digit touches it).
fn replace_words(text: &str, phrase: &str, replacement: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(phrase) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + phrase.len()..].chars().next();
        let bounded = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        out.push_str(&rest[..at]);
        if bounded(before) && bounded(after) {
            out.push_str(&format!(" {replacement} "));
        } else {
            out.push_str(phrase);
        }
        rest = &rest[at + phrase.len()..];
    }
    out.push_str(rest);
    out
}

/// Lower case, phrases rewritten, split on everything but letters and digits.
pub fn words(text: &str) -> Vec<String> {
    rewrite_phrases(text)
        .split(|c: char| !c.is_alphanumeric() && c != '+')
        .filter(|w| w.chars().count() > 1 && !is_stop_word(w))
        .map(str::to_owned)
        .collect()
}

/// The stemmed terms of a text, in order.
pub fn terms(text: &str) -> Vec<String> {
    words(text).iter().map(|w| stem(w)).collect()
}

/// The catalog terms a query word also means, stemmed; `bugs` means what `bug` means.
pub fn synonyms(word: &str) -> Vec<String> {
    let stemmed = stem(word);
    SYNONYMS
        .iter()
        .find(|(key, _)| *key == word)
        .or_else(|| SYNONYMS.iter().find(|(key, _)| stem(key) == stemmed))
        .map(|(_, means)| means.iter().map(|m| stem(m)).collect())
        .unwrap_or_default()
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
    for suffix in ["ing"] {
        if w.len() > suffix.len() + 2
            && let Some(base) = w.strip_suffix(suffix)
        {
            w = base.to_owned();
            // `running` → `runn` → `run`. (`-ed` is kept: `merged` and `closed` are
            // states, not the verbs `merge` and `close`.)
            let bytes = w.as_bytes();
            if bytes.len() >= 2
                && bytes[bytes.len() - 1] == bytes[bytes.len() - 2]
                && !w.ends_with("ss")
                && !w.ends_with("ll")
            {
                w.pop();
            }
            break;
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
    fn stems_meet() {
        for (a, b) in [
            ("pipelines", "pipeline"),
            ("issues", "issue"),
            ("branches", "branch"),
            ("merging", "merge"),
            ("running", "run"),
            ("statuses", "status"),
            ("comments", "comment"),
            ("retries", "retry"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
    }

    #[test]
    fn phrases_match_whole_words_longest_first() {
        assert!(rewrite_phrases("list ci runs").contains(" pipelines "));
        assert!(!rewrite_phrases("a bci run").contains("pipeline"));
        assert!(rewrite_phrases("most recent").contains(" latest "));
    }

    #[test]
    fn phrases_and_stop_words() {
        assert_eq!(
            terms("Show me the open pull requests, please"),
            vec!["show", "me", "open", "mrs"]
        );
        assert_eq!(terms("merge_request.list"), vec!["merg", "request", "list"]);
    }
}

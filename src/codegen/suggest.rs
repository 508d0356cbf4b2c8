//! "Did you mean": the nearest known name to a misspelt one (build time only).
//!
//! Every diagnostic that names something unknown (a key, a kind, an action id) offers the
//! closest name it could have been, so the message says the fix.

use super::text::edit_distance;

/// The candidate nearest to `word`, if one is near enough to be a misspelling: at most a
/// third of its characters apart (at least one), or one that contains it or is contained.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|candidate| *candidate != word)
        .map(|candidate| (edit_distance(word, candidate), candidate))
        .filter(|(distance, candidate)| {
            *distance <= limit
                || (word.len() >= 4 && (candidate.contains(word) || word.contains(candidate)))
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// `; did you mean `name`?` for the nearest candidate, or nothing.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    nearest(word, candidates)
        .map(|name| format!("; did you mean `{name}`?"))
        .unwrap_or_default()
}

/// "unknown kind `cod`; did you mean `code`? (one of text, code, ...)".
pub fn unknown<'a>(what: &str, word: &str, names: impl Iterator<Item = &'a str> + Clone) -> String {
    let list: Vec<&str> = names.clone().collect();
    format!(
        "unknown {what} `{word}`{} (one of {})",
        did_you_mean(word, names),
        list.join(", ")
    )
}

//! Small text utilities shared by parameter checks and search.

/// Replaces each `{name}` in a template with `value(name)` (nothing when it has none).
pub fn fill_placeholders(template: &str, mut value: impl FnMut(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push_str(&value(&rest[start + 1..start + len]).unwrap_or_default());
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// The word action ids use for an operation, for another word a person may type for it
/// (`show` → `get`, `remove` → `delete`); `None` for a word that is not one of them.
pub fn action_word(word: &str) -> Option<&'static str> {
    const SAME: &[(&str, &[&str])] = &[
        (
            "get",
            &[
                "show", "view", "display", "read", "fetch", "describe", "info", "details", "open",
            ],
        ),
        (
            "list",
            &["ls", "all", "index", "search", "find", "browse", "show_all"],
        ),
        ("create", &["new", "add", "make", "post", "open_new"]),
        (
            "update",
            &["edit", "modify", "change", "patch", "set", "put"],
        ),
        (
            "delete",
            &["remove", "rm", "del", "destroy", "drop", "erase"],
        ),
        ("retry", &["rerun", "restart"]),
        ("cancel", &["stop", "abort", "kill"]),
    ];
    SAME.iter()
        .find(|(_, others)| others.contains(&word))
        .map(|(canonical, _)| *canonical)
}

/// The first letter of each `_`-separated word: `merge_request` → `mr`.
pub fn initials(name: &str) -> String {
    name.split('_')
        .filter_map(|word| word.chars().next())
        .collect()
}

/// Edit distance between two strings, by characters: insertions, deletions, substitutions
/// and transpositions of neighbours (`clsoe` is one edit from `close`), each costing one
/// (the optimal string alignment distance).
pub fn edit_distance(a: &str, b: &str) -> usize {
    edit_distance_within(a, b, usize::MAX).expect("no distance is past usize::MAX")
}

/// `edit_distance(a, b)` when it is at most `limit`, computed a row at a time and given up
/// as soon as no later row can come back within the limit: a search compares a word with
/// hundreds of known ones, nearly all of them far off.
pub fn edit_distance_within(a: &str, b: &str, limit: usize) -> Option<usize> {
    // Nearly every word compared is ASCII, where bytes are characters: no copy to compare.
    if a.is_ascii() && b.is_ascii() {
        return distance_within(a.as_bytes(), b.as_bytes(), limit);
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    distance_within(&a, &b, limit)
}

/// Words up to this long are compared with the table's rows on the stack: a search makes
/// hundreds of comparisons, and allocating their rows took nearly as long as comparing.
const ROWS_ON_STACK: usize = 32;

fn distance_within<T: PartialEq>(a: &[T], b: &[T], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let width = b.len() + 1;
    let mut stack = [0_usize; 3 * (ROWS_ON_STACK + 1)];
    let mut heap = Vec::new();
    let cells: &mut [usize] = if width <= ROWS_ON_STACK + 1 {
        &mut stack[..3 * width]
    } else {
        heap.resize(3 * width, 0);
        &mut heap
    };
    // Rows i - 2, i - 1 and i of the table `edit_distance` fills.
    let (mut before, rest) = cells.split_at_mut(width);
    let (mut last, mut row) = rest.split_at_mut(width);
    for (j, cell) in last.iter_mut().enumerate() {
        *cell = j;
    }
    let mut last_least = 0;
    for i in 1..=a.len() {
        row[0] = i;
        let mut least = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            row[j] = best;
            least = least.min(best);
        }
        // A cell is at least its row's least or, through a transposition, one more than
        // the least of the row before that: past the limit in both, it stays past it.
        if least > limit && last_least >= limit {
            return None;
        }
        last_least = least;
        std::mem::swap(&mut before, &mut last);
        std::mem::swap(&mut last, &mut row);
    }
    let distance = last[b.len()];
    (distance <= limit).then_some(distance)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders() {
        let filled = fill_placeholders("a {x} b {y} {z}", |name| {
            (name != "z").then(|| name.to_uppercase())
        });
        assert_eq!(filled, "a X b Y ");
        assert_eq!(fill_placeholders("no {end", |_| None), "no {end");
    }

    #[test]
    fn other_words_for_operations() {
        assert_eq!(action_word("show"), Some("get"));
        assert_eq!(action_word("rm"), Some("delete"));
        assert_eq!(action_word("get"), None);
        assert_eq!(initials("merge_request"), "mr");
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("pipline", "pipeline"), 1);
        assert_eq!(edit_distance("mrege", "merge"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(edit_distance("clsoe", "close"), 1);
        assert_eq!(edit_distance("jbo", "job"), 1);
    }

    #[test]
    fn edit_distance_within_agrees_with_edit_distance() {
        let words = [
            "",
            "a",
            "ab",
            "ba",
            "abc",
            "acb",
            "pipeline",
            "pipline",
            "pipleine",
            "close",
            "clsoe",
            "merge",
            "mrege",
            "job",
            "jbo",
            "group",
            "grup",
            "grep",
            "ünïcode",
            "unicode",
            "abcdefgh",
            "badcfehg",
            "a-word-of-more-than-thirty-two-letters",
            "a-word-of-more-than-thirty-two-lettres",
        ];
        for a in words {
            for b in words {
                let distance = edit_distance(a, b);
                for limit in 0..4 {
                    let within = edit_distance_within(a, b, limit);
                    assert_eq!(
                        within,
                        (distance <= limit).then_some(distance),
                        "{a} {b} {limit}"
                    );
                }
            }
        }
    }
}

//! Unified diffs of the sandbox's file versions, as GitLab's `diff` fields hold them: hunks
//! only (no `---`/`+++` lines), three lines of context, and `\ No newline at end of file`
//! after a last line without one.
//!
//! Lines are compared by `similar`'s Myers diff through the hooks its `TextDiff` uses
//! (compaction, then replacements), called directly: `TextDiff` chooses its algorithm at run
//! time, so using it compiled every algorithm `similar` has, over a dozen hook and index
//! types (8% of this crate's LLVM IR by `cargo llvm-lines`, for the one diff the sandbox
//! writes).

use std::fmt::Write as _;
use std::ops::Range;

use similar::algorithms::{Capture, Compact, Replace, myers};
use similar::{DiffTag, group_diff_ops};

/// Lines of unchanged context around each change.
const CONTEXT: usize = 3;

/// The hunks turning `old` into `new`, both read as UTF-8 (lossily).
pub fn unified(old: &[u8], new: &[u8]) -> String {
    let (old, new) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
    let (old, new) = (lines(&old), lines(&new));
    let mut hook = Compact::new(Replace::new(Capture::new()), &old, &new);
    // The diff ends by calling the hook's `finish`, which is when `Compact` shifts its ops;
    // capturing cannot fail.
    let Ok(()) = myers::diff(&mut hook, &old, 0..old.len(), &new, 0..new.len());
    let ops = hook.into_inner().into_inner().into_ops();
    let mut out = String::new();
    for hunk in group_diff_ops(ops, CONTEXT) {
        let (Some(first), Some(last)) = (hunk.first(), hunk.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let _ = writeln!(out, "@@ -{} +{} @@", range(old_range), range(new_range));
        for op in &hunk {
            let (tag, old_lines, new_lines) = op.as_tag_tuple();
            let (old_lines, new_lines) = (&old[old_lines], &new[new_lines]);
            match tag {
                DiffTag::Equal => write_lines(&mut out, ' ', old_lines),
                DiffTag::Delete => write_lines(&mut out, '-', old_lines),
                DiffTag::Insert => write_lines(&mut out, '+', new_lines),
                DiffTag::Replace => {
                    write_lines(&mut out, '-', old_lines);
                    write_lines(&mut out, '+', new_lines);
                }
            }
        }
    }
    out
}

/// A text's lines, each with its terminator (`\n`, `\r\n` or a lone `\r`), as `TextDiff`
/// splits them.
fn lines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        let end = match bytes[at] {
            b'\r' if bytes.get(at + 1) == Some(&b'\n') => at + 2,
            b'\r' | b'\n' => at + 1,
            _ => {
                at += 1;
                continue;
            }
        };
        lines.push(&text[start..end]);
        (start, at) = (end, end);
    }
    if start < bytes.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// A hunk header's range: `start,length`, counted from 1, or `start` alone for one line;
/// an empty range starts at the line before it.
fn range(lines: Range<usize>) -> String {
    match lines.len() {
        0 => format!("{},0", lines.start),
        1 => (lines.start + 1).to_string(),
        length => format!("{},{length}", lines.start + 1),
    }
}

fn write_lines(out: &mut String, tag: char, lines: &[&str]) {
    for line in lines {
        out.push(tag);
        out.push_str(line);
        if !line.ends_with(['\r', '\n']) {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_have_three_lines_of_context() {
        let diff = unified(b"a\nb\nc\n", b"a\nB\nc\nd\n");
        assert_eq!(diff, "@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n");
        assert_eq!(unified(b"", b"x\n"), "@@ -0,0 +1 @@\n+x\n");
        assert_eq!(unified(b"same\n", b"same\n"), "");
        let old: String = (1..=20).map(|n| format!("{n}\n")).collect();
        let new = old.replace("10\n", "ten\n");
        assert_eq!(
            unified(old.as_bytes(), new.as_bytes()),
            "@@ -7,7 +7,7 @@\n 7\n 8\n 9\n-10\n+ten\n 11\n 12\n 13\n"
        );
    }

    #[test]
    fn a_last_line_without_a_newline_is_marked() {
        assert_eq!(
            unified(b"a\nb", b"a\nc"),
            "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
        );
        assert_eq!(lines("a\r\nb\rc\nd"), ["a\r\n", "b\r", "c\n", "d"]);
    }

    /// The same hunks as `similar`'s `TextDiff` writes, over edits of short and long
    /// texts (past the 100 lines where `TextDiff` trims and numbers lines first, and past
    /// the 512 where Myers' own shortcuts start), with missing final newlines, `\r\n` and
    /// lone `\r`.
    #[test]
    fn the_hunks_are_text_diffs() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |bound: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % bound
        };
        const LINES: [&str; 6] = ["a\n", "b\n", "c\n", "}\n", "\n", "x\r\n"];
        for case in 0..400 {
            let length = if case % 4 == 0 {
                90 + next(60)
            } else {
                next(12)
            };
            let old: Vec<&str> = (0..length).map(|_| LINES[next(LINES.len())]).collect();
            let mut new = old.clone();
            for _ in 0..next(if length > 400 { 60 } else { 5 }) {
                let at = next(new.len() + 1);
                match next(3) {
                    0 => new.insert(at, LINES[next(LINES.len())]),
                    1 if at < new.len() => drop(new.remove(at)),
                    _ if at < new.len() => new[at] = LINES[next(LINES.len())],
                    _ => {}
                }
            }
            let (mut old, mut new) = (old.concat(), new.concat());
            if next(4) == 0 {
                old.push_str("end");
            }
            if next(4) == 0 {
                new.push_str("end");
            }
            let expected = similar::TextDiff::from_lines(old.as_str(), new.as_str())
                .unified_diff()
                .context_radius(CONTEXT)
                .to_string();
            assert_eq!(
                unified(old.as_bytes(), new.as_bytes()),
                expected,
                "{old:?} -> {new:?}"
            );
        }
    }
}

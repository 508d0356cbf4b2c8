//! A comment on a line of a merge request's diff, asked for as a person asks for it: a file,
//! a line and a side (the new file, or the old one for a removed line). GitLab wants a
//! `position` built from the merge request's diff refs (base, start and head SHA) and, for
//! an unchanged line, both its old and new numbers; this handler reads the diff refs and the
//! diff, finds the line, builds the position, and says plainly when the line is not part of
//! the diff. Threads (`discussion_create`) and draft notes (`draft_note_create`) share it.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::call::{ActionError, Context, decode};
use crate::catalog::{Action, Plan};
use crate::gitlab::Request;

/// The path segment whose following parameter is the merge request.
const MERGE_REQUESTS: &str = "merge_requests";

/// Which version of the file a line number counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    New,
    Old,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::New => "new",
            Side::Old => "old",
        }
    }
}

/// One line of a diff hunk with its numbers on each side (`None` where it does not exist).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DiffLine {
    old: Option<i64>,
    new: Option<i64>,
}

/// Every line a unified diff shows, with its old and new numbers.
fn diff_lines(diff: &str) -> Vec<DiffLine> {
    let mut lines = Vec::new();
    let (mut old, mut new) = (0, 0);
    for text in diff.lines() {
        if let Some(header) = text.strip_prefix("@@ ") {
            // `@@ -21,6 +21,21 @@`: where the hunk starts on each side.
            let mut starts = header.split_whitespace().take(2).map(|range| {
                range[1..]
                    .split(',')
                    .next()
                    .and_then(|n| n.parse::<i64>().ok())
                    .unwrap_or(0)
            });
            old = starts.next().unwrap_or(0);
            new = starts.next().unwrap_or(0);
            continue;
        }
        match text.chars().next() {
            Some('+') => {
                lines.push(DiffLine {
                    old: None,
                    new: Some(new),
                });
                new += 1;
            }
            Some('-') => {
                lines.push(DiffLine {
                    old: Some(old),
                    new: None,
                });
                old += 1;
            }
            Some('\\') => {}
            _ => {
                lines.push(DiffLine {
                    old: Some(old),
                    new: Some(new),
                });
                old += 1;
                new += 1;
            }
        }
    }
    lines
}

/// The ranges of `side` line numbers the diff shows, for the message when a line is not
/// among them: `21–35, 90–96`.
fn shown_ranges(lines: &[DiffLine], side: Side) -> String {
    let mut ranges: Vec<(i64, i64)> = Vec::new();
    for line in lines {
        let Some(number) = (match side {
            Side::New => line.new,
            Side::Old => line.old,
        }) else {
            continue;
        };
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == number => *end = number,
            _ => ranges.push((number, number)),
        }
    }
    ranges
        .iter()
        .map(|(start, end)| {
            if start == end {
                start.to_string()
            } else {
                format!("{start}–{end}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Deserialize)]
struct DiffRefs {
    base_sha: String,
    start_sha: String,
    head_sha: String,
}

#[derive(Deserialize)]
struct MergeRequest {
    diff_refs: Option<DiffRefs>,
}

#[derive(Deserialize)]
struct DiffFile {
    old_path: String,
    new_path: String,
    #[serde(default)]
    diff: String,
}

fn invalid(message: String) -> ActionError {
    ActionError::InvalidParams(message)
}

/// The position GitLab wants for `line` of `file_path` on `side`, or why there is none.
async fn position(
    context: &Context,
    merge_request: Request,
    file_path: &str,
    line: i64,
    side: Side,
) -> Result<Value, ActionError> {
    let refs = context
        .send(merge_request.clone())
        .await?
        .json::<MergeRequest>()?
        .diff_refs
        .ok_or_else(|| {
            invalid(
                "this merge request has no diff yet (no diff refs), so no line can be commented on; \
                 leave out `file_path` to comment on the merge request as a whole"
                    .into(),
            )
        })?;
    let files: Vec<DiffFile> =
        super::changes::all_diffs(context, merge_request.clone().segment("diffs")).await?;
    let Some(file) = files
        .iter()
        .find(|f| f.new_path == file_path || f.old_path == file_path)
    else {
        let changed: Vec<&str> = files.iter().map(|f| f.new_path.as_str()).collect();
        return Err(invalid(format!(
            "`{file_path}` is not among the files this merge request changes ({}). \
             Pass one of them, or leave out `file_path` to comment on the merge request as a whole.",
            changed.join(", ")
        )));
    };
    let lines = diff_lines(&file.diff);
    let found = lines.iter().find(|l| match side {
        Side::New => l.new == Some(line),
        Side::Old => l.old == Some(line),
    });
    let Some(found) = found else {
        let other = match side {
            Side::New => Side::Old,
            Side::Old => Side::New,
        };
        return Err(invalid(format!(
            "line {line} of `{file_path}` ({} side) is not part of this merge request's diff, \
             so GitLab cannot anchor a comment there. The diff shows {} lines {}{}. Pick a line \
             in those ranges, use `side: {}` for a line of the {} file, or leave out `file_path` \
             to comment on the merge request as a whole.",
            side.name(),
            side.name(),
            shown_ranges(&lines, side),
            match shown_ranges(&lines, other) {
                ranges if ranges.is_empty() => String::new(),
                ranges => format!(" ({} side: {ranges})", other.name()),
            },
            other.name(),
            other.name(),
        )));
    };
    let mut position = Map::new();
    position.insert("position_type".into(), json!("text"));
    position.insert("base_sha".into(), json!(refs.base_sha));
    position.insert("start_sha".into(), json!(refs.start_sha));
    position.insert("head_sha".into(), json!(refs.head_sha));
    position.insert("old_path".into(), json!(file.old_path));
    position.insert("new_path".into(), json!(file.new_path));
    if let Some(old) = found.old {
        position.insert("old_line".into(), json!(old));
    }
    if let Some(new) = found.new {
        position.insert("new_line".into(), json!(new));
    }
    Ok(Value::Object(position))
}

/// Sends the action's request, with a `position` on the diff when `file_path` is given.
pub async fn with_position(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let mut request = plan.request.clone();
    let file_path = plan.args.get("file_path").and_then(Value::as_str);
    let line = plan.args.get("line").and_then(Value::as_i64);
    let side = match plan.args.get("side").and_then(Value::as_str) {
        Some("old") => Side::Old,
        _ => Side::New,
    };
    match (file_path, line) {
        (Some(file_path), Some(line)) => {
            let (Some(iid), Some(merge_requests)) = (
                request.param_after(MERGE_REQUESTS).map(str::to_owned),
                request.collection_of(MERGE_REQUESTS),
            ) else {
                return Err(invalid("this action's path names no merge request".into()));
            };
            let merge_request = merge_requests.param(iid.as_str());
            let position = position(context, merge_request, file_path, line, side).await?;
            request = request.body("position", &position);
        }
        (Some(_), None) => {
            return Err(invalid(
                "`file_path` needs `line`, the line number to comment on".into(),
            ));
        }
        (None, Some(_)) => {
            return Err(invalid(
                "`line` needs `file_path`, the file the line is in".into(),
            ));
        }
        (None, None) => {}
    }
    let response = context.send(request).await?;
    Ok(decode(action, &plan.args, &response)?)
}

#[cfg(test)]
mod tests {
    use super::{DiffLine, Side, diff_lines, shown_ranges};

    const DIFF: &str = "@@ -2,4 +2,5 @@\n \n pub mod auth;\n-pub mod old;\n+pub mod login;\n+pub mod rate_limit;\n pub mod users;\n";

    #[test]
    fn each_line_has_its_numbers_on_each_side() {
        let lines = diff_lines(DIFF);
        assert_eq!(
            lines[1],
            DiffLine {
                old: Some(3),
                new: Some(3)
            }
        );
        assert_eq!(
            lines[2],
            DiffLine {
                old: Some(4),
                new: None
            }
        );
        assert_eq!(
            lines[4],
            DiffLine {
                old: None,
                new: Some(5)
            }
        );
        assert_eq!(
            lines[5],
            DiffLine {
                old: Some(5),
                new: Some(6)
            }
        );
    }

    #[test]
    fn the_shown_ranges_name_each_side() {
        let lines = diff_lines(DIFF);
        assert_eq!(shown_ranges(&lines, Side::New), "2–6");
        assert_eq!(shown_ranges(&lines, Side::Old), "2–5");
        let two = diff_lines("@@ -1,1 +1,1 @@\n a\n@@ -10,1 +10,2 @@\n b\n+c\n");
        assert_eq!(shown_ranges(&two, Side::New), "1, 10–11");
    }
}

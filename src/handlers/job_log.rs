//! Reading job logs: by default the part that failed (`log_focus.rs`) and then the tail,
//! or a window of lines from `start_line`.
//!
//! GitLab's trace endpoint answers the whole log (it does not honour `Range`), so the log
//! is streamed: every line is counted, but only a bounded window is kept (the last
//! `KEEP_BYTES` for the default view, the asked-for lines for a window). Lines are cleaned
//! as a person sees them in the job page: ANSI colours stripped (`strip-ansi-escapes`),
//! `\r` progress redraws collapsed, section markers removed (and remembered). An HTML page
//! is refused as not a log; an empty log reports 0 lines.

use std::collections::VecDeque;

use super::log_focus::{self, Line, Section};
use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::job::log;
use crate::gitlab::{ErrorKind, GitlabError, HTML_INSTEAD, looks_like_html};

/// How much of the end of a log is kept to look for the failure in.
const KEEP_BYTES: usize = 4 * 1024 * 1024;
/// The longest line shown; minified output and base64 blobs are cut.
const MAX_LINE_CHARS: usize = 1000;
/// Lines of failure excerpt shown before the tail.
const FOCUS_LINES: i64 = 60;
/// Sections remembered (a log with more is unusual; the latest are kept).
const MAX_SECTIONS: usize = 500;

/// `job.log`: the failing part and the last `lines` lines, or `lines` lines from
/// `start_line`.
pub async fn job_log_tail(
    context: &Context,
    params: &log::Params,
) -> Result<log::Output, ActionError> {
    let count = params.lines.max(1);
    let window = params.start_line.map(|start| (start, start + count - 1));
    let mut stream = context.open(params.request().raw(), &[]).await?;
    let html_type = stream.content_type.starts_with("text/html");
    let mut reader = LineReader::default();
    let mut kept = Kept::default();
    let mut first = true;
    while let Some(chunk) = stream.chunk().await? {
        if first && (html_type || looks_like_html(&chunk)) {
            return Err(GitlabError::new(ErrorKind::BadResponse, HTML_INSTEAD).into());
        }
        first = false;
        reader.push(&chunk, |raw| kept.take(raw, window));
    }
    reader.finish(|raw| kept.take(raw, window));
    let total_bytes = stream.read as i64;
    // Trailing blank lines are not lines of the log.
    let total = kept.last_visible;
    kept.lines.retain(|l| l.number <= total);

    if let Some((start, _)) = window
        && total > 0
        && start > total
    {
        return Err(ActionError::InvalidParams(format!(
            "`start_line` {start} is past the end of the log, which has {total} lines"
        )));
    }
    let output = |start: i64, end: i64, truncated: bool, content: Option<String>| log::Output {
        job_id: params.job_id,
        total_bytes,
        total_lines: total,
        start_line: start,
        end_line: end,
        truncated,
        content,
    };
    if total == 0 {
        return Ok(output(0, 0, false, None));
    }
    if let Some((start, end)) = window {
        let end = end.min(total);
        let text = join(
            kept.lines
                .iter()
                .filter(|l| l.number >= start && l.number <= end),
        );
        return Ok(output(start, end, start > 1 || end < total, Some(text)));
    }

    let tail_start = (total - count + 1).max(1);
    let lines: Vec<Line> = kept.lines.into_iter().collect();
    let ranges = log_focus::focus(&lines, tail_start, FOCUS_LINES);
    let mut content = String::new();
    for &(start, end) in &ranges {
        let section = log_focus::section_of(&kept.sections, start)
            .map(|s| format!(", section {}", s.name))
            .unwrap_or_default();
        content.push_str(&format!("── lines {start}–{end}{section} ──\n"));
        content.push_str(&join(
            lines
                .iter()
                .filter(|l| l.number >= start && l.number <= end),
        ));
        content.push('\n');
    }
    if !ranges.is_empty() {
        content.push_str(&format!("── last lines, {tail_start}–{total} ──\n"));
    }
    content.push_str(&join(lines.iter().filter(|l| l.number >= tail_start)));
    let first_shown = ranges.first().map_or(tail_start, |r| r.0);
    Ok(output(
        first_shown,
        total,
        first_shown > 1 || !ranges.is_empty(),
        Some(content),
    ))
}

fn join<'a>(lines: impl Iterator<Item = &'a Line>) -> String {
    lines
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// What is kept of the log while it streams past.
#[derive(Default)]
struct Kept {
    lines: VecDeque<Line>,
    bytes: usize,
    sections: Vec<Section>,
    count: i64,
    /// The number of the last line with visible text.
    last_visible: i64,
}

impl Kept {
    fn take(&mut self, raw: &str, window: Option<(i64, i64)>) {
        self.count += 1;
        let number = self.count;
        let (text, markers) = clean(raw);
        for (start, name) in markers {
            if start {
                if self.sections.len() == MAX_SECTIONS {
                    self.sections.remove(0);
                }
                self.sections.push(Section {
                    name,
                    start: number,
                    end: None,
                });
            } else if let Some(open) = self
                .sections
                .iter_mut()
                .rev()
                .find(|s| s.name == name && s.end.is_none())
            {
                open.end = Some(number);
            }
        }
        if !text.is_empty() {
            self.last_visible = number;
        }
        match window {
            Some((start, end)) if number < start || number > end => return,
            Some(_) => {}
            None => {
                while self.bytes > KEEP_BYTES {
                    match self.lines.pop_front() {
                        Some(old) => self.bytes -= old.text.len(),
                        None => break,
                    }
                }
            }
        }
        self.bytes += text.len();
        self.lines.push_back(Line { number, text });
    }
}

/// Splits a byte stream into lines; a line may span chunks.
#[derive(Default)]
struct LineReader {
    partial: Vec<u8>,
}

impl LineReader {
    fn push(&mut self, chunk: &[u8], mut each: impl FnMut(&str)) {
        let mut rest = chunk;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            self.partial.extend_from_slice(&rest[..at]);
            each(&String::from_utf8_lossy(&self.partial));
            self.partial.clear();
            rest = &rest[at + 1..];
        }
        self.partial.extend_from_slice(rest);
        // A line without end (a progress bar, a blob) is kept bounded.
        if self.partial.len() > 4 * MAX_LINE_CHARS * 4 {
            self.partial.truncate(4 * MAX_LINE_CHARS * 4);
        }
    }

    fn finish(&mut self, mut each: impl FnMut(&str)) {
        if !self.partial.is_empty() {
            each(&String::from_utf8_lossy(&self.partial));
            self.partial.clear();
        }
    }
}

/// A raw log line as a person sees it, and the section markers in it (`true` for a start).
fn clean(raw: &str) -> (String, Vec<(bool, String)>) {
    let markers = section_markers(raw);
    // A progress line redrawn with `\r` shows only its last state.
    let visible = raw
        .split('\r')
        .map(|part| strip_ansi_escapes::strip_str(part.replace('\t', "    ")))
        .rfind(|part| !strip_sections(part).trim().is_empty())
        .unwrap_or_default();
    let text = strip_sections(&visible).trim_end().to_owned();
    let text = if text.chars().count() > MAX_LINE_CHARS {
        let cut: String = text.chars().take(MAX_LINE_CHARS).collect();
        format!("{cut}… (line cut)")
    } else {
        text
    };
    (text, markers)
}

/// `section_start:1700000000:step_script[collapsed=true]` → (true, "step_script").
fn section_markers(raw: &str) -> Vec<(bool, String)> {
    let mut found = Vec::new();
    for (marker, start) in [("section_start:", true), ("section_end:", false)] {
        let mut rest = raw;
        while let Some(at) = rest.find(marker) {
            let after = &rest[at + marker.len()..];
            let name: String = after
                .split_once(':')
                .map(|(_, name)| name)
                .unwrap_or_default()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                .collect();
            if !name.is_empty() {
                found.push((start, name));
            }
            rest = after;
        }
    }
    // Ends before starts on the same line: a section closes before the next opens.
    found.sort_by_key(|(start, _)| *start);
    found
}

/// Removes section markers, anywhere in a line.
fn strip_sections(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("section_") {
        let tail = &rest[at..];
        let marker = ["section_start:", "section_end:"]
            .into_iter()
            .find(|m| tail.starts_with(m));
        let Some(marker) = marker else {
            out.push_str(&rest[..at + "section_".len()]);
            rest = &rest[at + "section_".len()..];
            continue;
        };
        out.push_str(&rest[..at]);
        let after = &tail[marker.len()..];
        let end = after
            .find(|c: char| c.is_whitespace())
            .unwrap_or(after.len());
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cleaned(raw: &str) -> Vec<String> {
        let mut kept = Kept::default();
        let mut reader = LineReader::default();
        for piece in raw.as_bytes().chunks(7) {
            reader.push(piece, |line| kept.take(line, None));
        }
        reader.finish(|line| kept.take(line, None));
        kept.lines.into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn cleans_gitlab_log_noise() {
        let raw = "section_start:1700000000:prepare_script\r\u{1b}[0K\u{1b}[32;1mPreparing\u{1b}[0;m\nprogress 10%\rprogress 100%\n\u{1b}[31;1mERROR: failed\u{1b}[0m\tcode\nsection_end:1700000001:prepare_script\r\u{1b}[0K\n";
        assert_eq!(
            cleaned(raw),
            vec!["Preparing", "progress 100%", "ERROR: failed    code", ""]
        );
    }

    #[test]
    fn sections_are_remembered() {
        let mut kept = Kept::default();
        for line in [
            "section_start:1:step_script\r\u{1b}[0Kscript",
            "cargo test",
            "error: boom",
            "section_end:2:step_script\r\u{1b}[0K",
        ] {
            kept.take(line, None);
        }
        assert_eq!(
            kept.sections,
            vec![Section {
                name: "step_script".into(),
                start: 1,
                end: Some(4)
            }]
        );
    }
}

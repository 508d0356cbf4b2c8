//! Reading job logs: the tail by default (failures are at the end), or a window of lines.

use crate::catalog::ActionParams;
use crate::catalog::generated::job::log;
use crate::dispatch::{ActionError, Context};

/// `job.log`: the last `lines` lines, or `lines` lines from `start_line`.
pub async fn job_log_tail(
    context: &Context,
    params: &log::Params,
) -> Result<log::Output, ActionError> {
    let body = context.send(params.request().raw()).await?.body;
    let text = clean(&String::from_utf8_lossy(&body));
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len() as i64;
    let count = params.lines.max(1);
    let (start, end) = match params.start_line {
        Some(start) if total > 0 && start > total => {
            return Err(ActionError::InvalidParams(format!(
                "`start_line` {start} is past the end of the log, which has {total} lines"
            )));
        }
        Some(start) => (start, (start + count - 1).min(total)),
        None => ((total - count + 1).max(1), total),
    };
    let content = if total == 0 {
        None
    } else {
        Some(lines[(start - 1) as usize..end as usize].join("\n"))
    };
    Ok(log::Output {
        job_id: params.job_id,
        total_bytes: body.len() as i64,
        total_lines: total,
        start_line: if total == 0 { 0 } else { start },
        end_line: end,
        truncated: start > 1 || end < total,
        content,
    })
}

/// Removes ANSI escape sequences, GitLab's collapsible-section markers and carriage-return
/// overwrites, keeping what a person sees in the job page.
fn clean(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for line in raw.split('\n') {
        // A progress line redrawn with `\r` shows only its last state.
        let visible = line
            .rsplit('\r')
            .find(|part| !strip_ansi(part).trim().is_empty())
            .unwrap_or("");
        let text = strip_sections(&strip_ansi(visible));
        out.push_str(text.trim_end());
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                // CSI: parameters, then one final byte in @..~
                for next in chars.by_ref() {
                    if ('@'..='~').contains(&next) {
                        break;
                    }
                }
            } else {
                chars.next();
            }
        } else {
            out.push(ch);
        }
    }
    out
}

/// `section_start:1700000000:step_script[collapsed=true]` markers, anywhere in a line.
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

    #[test]
    fn cleans_gitlab_log_noise() {
        let raw = "section_start:1700000000:prepare_script\r\u{1b}[0K\u{1b}[32;1mPreparing\u{1b}[0;m\nprogress 10%\rprogress 100%\n\u{1b}[31;1mERROR: failed\u{1b}[0m\nsection_end:1700000001:prepare_script\r\u{1b}[0K\n";
        assert_eq!(clean(raw), "Preparing\nprogress 100%\nERROR: failed\n");
    }
}

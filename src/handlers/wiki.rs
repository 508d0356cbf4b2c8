//! Reading wiki pages in line windows, as repository files are read: a long runbook is
//! paged instead of filling the result. A project's and a group's wiki pages answer alike.

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::wiki::{get, group_get};

use super::files::Window;

/// A wiki page as GitLab answers it.
#[derive(serde::Deserialize)]
struct Page {
    slug: String,
    title: String,
    format: Option<String>,
    content: Option<String>,
}

/// `wiki.get`: `max_lines` lines of a project's page from `start_line`.
pub async fn wiki_window(
    context: &Context,
    params: &get::Params,
) -> Result<get::Output, ActionError> {
    let page: Page = context.send(params.request()).await?.json()?;
    window(page, params.start_line, params.max_lines)
}

/// `wiki.group_get`: `max_lines` lines of a group's page from `start_line`.
pub async fn group_wiki_window(
    context: &Context,
    params: &group_get::Params,
) -> Result<group_get::Output, ActionError> {
    let page: Page = context.send(params.request()).await?.json()?;
    window(page, params.start_line, params.max_lines)
}

/// The page's lines `start_line` to `start_line + max_lines - 1`, with where to read on.
fn window(page: Page, start_line: i64, max_lines: i64) -> Result<get::Output, ActionError> {
    let text = page.content.unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let window = Window::of(lines.len() as i64, start_line, max_lines)?;
    let shown = window.shown;
    Ok(get::Output {
        slug: page.slug,
        title: page.title,
        format: page.format,
        total_lines: window.total,
        start_line: shown.map(|(start, _)| start),
        end_line: shown.map(|(_, end)| end),
        truncated: window.truncated,
        next_start_line: window.next,
        content: shown.map(|(start, end)| lines[(start - 1) as usize..end as usize].join("\n")),
    })
}

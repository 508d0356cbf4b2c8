//! Reading wiki pages in line windows, as repository files are read: a long runbook is
//! paged instead of filling the result.

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::wiki::get;

use super::files::Window;

/// `wiki.get`: `max_lines` lines of the page from `start_line`.
pub async fn wiki_window(
    context: &Context,
    params: &get::Params,
) -> Result<get::Output, ActionError> {
    #[derive(serde::Deserialize)]
    struct Page {
        slug: String,
        title: String,
        format: Option<String>,
        content: Option<String>,
    }
    let page: Page = context.send(params.request()).await?.json()?;
    let text = page.content.unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let window = Window::of(lines.len() as i64, params.start_line, params.max_lines)?;
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

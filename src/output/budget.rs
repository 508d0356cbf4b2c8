//! The byte budget of one tool result. Some MCP clients drop the connection on a message
//! over 10 MiB, and a model's context is smaller still, so every outcome is fitted under
//! `GITLAB_MCP_MAX_RESULT_BYTES` (default 256 KiB) as the last step of a call:
//!
//! 1. an embedded resource that does not fit becomes a link;
//! 2. long strings in the structured result are shortened (big text belongs in the
//!    Markdown, and must not be sent twice);
//! 3. the Markdown's longest blocks are cut first (a fair share each, so twenty long
//!    comments all stay visible), code fences are closed, the next steps are kept, and a
//!    note says how much was cut and how to get the rest.
//!
//! A list is cut before that, by the dispatcher, to the items that fit in both the Markdown
//! and the structure (`ListCut`), and continues in pages of the size shown.

use serde_json::{Map, Value};

use crate::catalog::Action;
use crate::dispatch::Outcome;
use crate::gitlab::Pagination;
use crate::output::Markdown;
use crate::output::format::size;

pub const DEFAULT_RESULT_BYTES: usize = 256 * 1024;
/// The smallest budget accepted: a cut result still needs room for its note and steps.
pub const MIN_RESULT_BYTES: usize = 8 * 1024;
/// Room for the JSON-RPC envelope, annotations and the resource link.
const ENVELOPE: usize = 1024;
/// Room for the note about what was cut.
const NOTE: usize = 600;
/// No block is cut shorter than this: a few lines of each stay readable.
const MIN_BLOCK: usize = 160;

/// A list fitted to one answer: long texts shortened to a fair share per item (so twenty
/// long comments all stay readable), then, if that is not enough, only the first items
/// kept, re-paged so the rest starts on a page of its own.
#[derive(Debug, Clone, PartialEq)]
pub struct ListCut {
    /// Items kept.
    pub shown: usize,
    /// Items read from GitLab.
    pub read: usize,
    /// The length, in characters, long texts were shortened to.
    pub shortened: Option<usize>,
    /// Whether GitLab sent more than the page size it reports (it did not page).
    pub unpaged: bool,
    /// The kept items as a page of their own: `shown` per page, the next page where the
    /// rest starts. `None` when every item is kept or the action has no pages.
    pub pagination: Option<Pagination>,
}

impl ListCut {
    /// The first `fits` of `read` items, re-paged: page `p` of `per_page` items starts at
    /// item `(p - 1) * per_page`, so the items kept become a page of their own size
    /// whose next page starts right after them. Past the first page, the size is the
    /// largest that divides that offset (at most `fits`), so the pages line up exactly.
    pub fn new(
        fits: usize,
        read: usize,
        paging: Option<&Pagination>,
        shortened: Option<usize>,
    ) -> Self {
        let unpaged = paging
            .and_then(|p| usize::try_from(p.per_page).ok())
            .is_some_and(|per_page| read > per_page);
        let mut cut = Self {
            shown: fits.clamp(1, read.max(1)),
            read,
            shortened,
            unpaged,
            pagination: None,
        };
        let Some(paging) = paging.filter(|_| cut.shown < read) else {
            return cut;
        };
        let Some(page) = paging.page else {
            // A cursor page: its next cursor is past every item read, so smaller pages
            // from the same cursor are the way on.
            cut.pagination = Some(Pagination {
                per_page: cut.shown as i64,
                has_more: true,
                next_cursor: None,
                ..paging.clone()
            });
            return cut;
        };
        let offset = (page.max(1) - 1) * paging.per_page.max(0);
        let size = (1..=cut.shown as i64)
            .rev()
            .find(|size| offset % size == 0)
            .unwrap_or(1);
        let page = offset / size + 1;
        cut.shown = size as usize;
        cut.pagination = Some(Pagination {
            page: Some(page),
            per_page: size,
            total_items: paging.total_items,
            total_pages: paging.total_items.map(|total| (total + size - 1) / size),
            next_page: Some(page + 1),
            has_more: true,
            next_cursor: None,
        });
        cut
    }

    /// Whether items were left out (not only shortened).
    pub fn dropped_items(&self) -> bool {
        self.shown < self.read
    }

    /// The result's structure with the list under `key` cut and its pagination re-paged.
    pub fn apply(&self, mut value: Value, key: &str) -> Value {
        if let Some(Value::Array(items)) = value.get_mut(key) {
            items.truncate(self.shown);
        }
        if let (Some(pagination), Some(object)) = (&self.pagination, value.as_object_mut()) {
            object.insert(
                "pagination".into(),
                serde_json::to_value(pagination).unwrap_or_default(),
            );
        }
        value
    }

    /// What the result says about the cut, and how to read the rest.
    pub fn note(&self, budget: usize, action: &Action) -> String {
        let mut parts = Vec::new();
        if let Some(cap) = self.shortened {
            parts.push(format!("long texts shortened to {cap} characters each"));
        }
        if self.dropped_items() {
            parts.push(format!("only the first {} items shown", self.shown));
        }
        let mut text = format!(
            "✂️ This list was cut to fit the {} limit of one answer: {}.",
            size(budget as f64),
            parts.join(", and ")
        );
        if self.unpaged {
            text.push_str(" GitLab sent more items at once than the page size it reports (it did not page the list).");
        }
        let per_page = action.params.iter().any(|p| p.name == "per_page");
        if !self.dropped_items() && per_page {
            text.push_str(&format!(
                " To read more of each, call `{}` again with a smaller `per_page`.",
                action.id
            ));
        }
        text
    }
}

/// Shortens, in a list's items, every text longer than a fair share of `budget` (a third
/// of it over the items, since a text may show in the Markdown and the structure; at least
/// 512 characters): the length texts were cut to, if any was.
pub fn shorten_items(value: &mut Value, key: &str, budget: usize) -> Option<usize> {
    let items = value.get_mut(key)?.as_array_mut()?;
    let cap = (budget / (3 * items.len().max(1))).max(512);
    let cut = items
        .iter_mut()
        .fold(false, |cut, item| cap_value(item, cap) | cut);
    cut.then_some(cap)
}

/// Fits an outcome into `budget` bytes of JSON.
pub fn fit(outcome: &mut Outcome, budget: usize, action: &Action) {
    let budget = budget.max(MIN_RESULT_BYTES);
    if measure(outcome) <= budget {
        return;
    }
    if let Some(resource) = &mut outcome.resource
        && resource
            .embedded
            .as_deref()
            .is_some_and(|e| json_len(e) > budget / 4)
    {
        resource.embedded = None;
    }
    let mut structured_cut = false;
    if let Some(structured) = &mut outcome.structured {
        let share = budget / 4;
        let mut cap = 4096;
        while structured_len(structured) > share && cap >= 64 {
            structured_cut |= cap_strings(structured, cap);
            cap /= 2;
        }
    }
    let used = ENVELOPE
        + outcome.structured.as_ref().map_or(0, structured_len)
        + outcome
            .resource
            .as_ref()
            .and_then(|r| r.embedded.as_deref())
            .map_or(0, json_len);
    let room = budget.saturating_sub(used);
    if json_len(&outcome.text) > room || structured_cut {
        let before = outcome.text.len();
        let web_url = outcome
            .structured
            .as_ref()
            .and_then(|s| s.get("web_url"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        outcome.text = shrink(&outcome.text, room.saturating_sub(NOTE));
        let cut = before.saturating_sub(outcome.text.len());
        let note = note(
            action,
            cut,
            before,
            budget,
            structured_cut,
            web_url.as_deref(),
        );
        insert_before_steps(&mut outcome.text, &note);
    }
}

/// The serialized size of an outcome, near enough (escapes counted, envelope estimated).
pub fn measure(outcome: &Outcome) -> usize {
    ENVELOPE
        + json_len(&outcome.text)
        + outcome.structured.as_ref().map_or(0, structured_len)
        + outcome
            .resource
            .as_ref()
            .and_then(|r| r.embedded.as_deref())
            .map_or(0, json_len)
}

fn structured_len(structured: &Map<String, Value>) -> usize {
    serde_json::to_vec(structured).map_or(0, |v| v.len())
}

/// The length of a string once written as JSON.
fn json_len(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' => 2,
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => 6,
            c => c.len_utf8(),
        })
        .sum::<usize>()
        + 2
}

/// Shortens every string longer than `cap` characters; whether any was.
fn cap_strings(map: &mut Map<String, Value>, cap: usize) -> bool {
    let mut cut = false;
    for value in map.values_mut() {
        cut |= cap_value(value, cap);
    }
    cut
}

fn cap_value(value: &mut Value, cap: usize) -> bool {
    match value {
        Value::String(text) if text.chars().count() > cap => {
            let kept: String = text.chars().take(cap).collect();
            *text = format!("{}…", kept.trim_end());
            true
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |cut, item| cap_value(item, cap) | cut),
        Value::Object(map) => cap_strings(map, cap),
        _ => false,
    }
}

const STEPS: &str = "\n---\n💡 **Next steps:**\n";

/// Splits off the next-steps block, which is kept whole.
fn split_steps(text: &str) -> (&str, &str) {
    match text.rfind(STEPS) {
        Some(at) => text.split_at(at + 1),
        None => (text, ""),
    }
}

fn insert_before_steps(text: &mut String, note: &str) {
    let (head, steps) = split_steps(text);
    let mut out = head.trim_end().to_owned();
    out.push_str("\n\n");
    out.push_str(note.trim());
    out.push('\n');
    if !steps.is_empty() {
        out.push('\n');
        out.push_str(steps);
    }
    *text = out;
}

/// The largest length each part may keep so that all of them fit in `room` (shorter parts
/// whole, the longer ones cut to it), never below `floor`: a binary search over the cap.
pub fn common_cap(lengths: &[usize], room: usize, floor: usize) -> usize {
    let fits = |cap: usize| lengths.iter().map(|&l| l.min(cap)).sum::<usize>() <= room;
    let (mut low, mut high) = (floor, lengths.iter().copied().max().unwrap_or(0));
    while low < high {
        let mid = (low + high).div_ceil(2);
        if fits(mid) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    low
}

/// Fits Markdown into `room` bytes of JSON: the next steps stay whole; the longest
/// blocks (paragraphs, code blocks, tables) are cut to a common length first.
pub fn shrink(text: &str, room: usize) -> String {
    let (head, steps) = split_steps(text);
    let room = room.saturating_sub(json_len(steps));
    if json_len(head) <= room {
        return text.to_owned();
    }
    let blocks = blocks(head);
    let lengths: Vec<usize> = blocks.iter().map(|b| json_len(b)).collect();
    let low = common_cap(&lengths, room, MIN_BLOCK);
    let mut out = String::new();
    for (block, &length) in blocks.iter().zip(&lengths) {
        if json_len(&out) >= room {
            break;
        }
        if length <= low {
            out.push_str(block);
        } else {
            out.push_str(&cut_block(block, low));
        }
    }
    // Many small blocks over the room: the last resort is a cut at a line end.
    if json_len(&out) > room {
        out = cut_block(&out, room);
    }
    out.push_str(steps);
    out
}

/// Blocks separated by blank lines; a fenced code block is one block.
fn blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current = String::new();
    let mut fence: Option<String> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_end_matches('\n');
        match &fence {
            Some(open) if trimmed == open => fence = None,
            Some(_) => {}
            None if trimmed.starts_with("```") => {
                fence = Some(trimmed.chars().take_while(|&c| c == '`').collect());
            }
            None if trimmed.is_empty() => {
                current.push_str(line);
                blocks.push(std::mem::take(&mut current));
                continue;
            }
            None => {}
        }
        current.push_str(line);
    }
    if !current.is_empty() {
        blocks.push(current);
    }
    blocks
}

/// A block cut to about `cap` bytes of JSON at a line end (or a character boundary in a
/// very long line), with a marker; an open code fence is closed.
fn cut_block(block: &str, cap: usize) -> String {
    let fence: Option<String> = block
        .starts_with("```")
        .then(|| block.chars().take_while(|&c| c == '`').collect());
    let total = block.len();
    let marker_room = 64 + fence.as_ref().map_or(0, |f| f.len() + 1);
    let limit = cap.saturating_sub(marker_room);
    let mut kept = String::new();
    for line in block.split_inclusive('\n') {
        if json_len(&kept) + json_len(line) > limit {
            if kept.is_empty() || kept.lines().count() <= 1 {
                let room = limit.saturating_sub(json_len(&kept));
                kept.push_str(&prefix_within(line, room));
                kept.push('\n');
            }
            break;
        }
        kept.push_str(line);
    }
    if !kept.ends_with('\n') {
        kept.push('\n');
    }
    let cut = total.saturating_sub(kept.len());
    kept.push_str(&format!("✂️ … {} cut here\n", size(cut as f64)));
    if let Some(fence) = fence {
        kept.push_str(&fence);
        kept.push('\n');
    }
    kept.push('\n');
    kept
}

/// The longest prefix of `line` within `room` bytes of JSON, ended at a character.
fn prefix_within(line: &str, room: usize) -> String {
    let mut out = String::new();
    let mut used = 2;
    for c in line.trim_end_matches('\n').chars() {
        let width = json_len(c.encode_utf8(&mut [0; 4])) - 2;
        if used + width > room {
            break;
        }
        used += width;
        out.push(c);
    }
    out
}

/// What was cut and how to get the rest, written by the one Markdown writer.
fn note(
    action: &Action,
    cut: usize,
    before: usize,
    budget: usize,
    structured_cut: bool,
    web_url: Option<&str>,
) -> String {
    let mut parts = Vec::new();
    if cut > 0 {
        parts.push(format!(
            "{} of {} of text left out",
            size(cut as f64),
            size(before as f64)
        ));
    }
    if structured_cut {
        parts.push("long text in the structured result shortened".to_owned());
    }
    let mut text = format!(
        "✂️ This result was cut to fit the {} limit of one answer: {}.",
        size(budget as f64),
        parts.join(", and ")
    );
    let windows: Vec<String> = [
        "start_line",
        "lines",
        "max_lines",
        "max_bytes",
        "max_patch_lines",
        "file_path",
        "per_page",
    ]
    .iter()
    .filter(|name| action.params.iter().any(|p| p.name == **name))
    .map(|name| format!("`{name}`"))
    .collect();
    if !windows.is_empty() {
        text.push_str(&format!(
            " To read the rest, call `{}` again for less at once ({}).",
            action.id,
            windows.join(", ")
        ));
    }
    if let Some(url) = web_url {
        text.push_str(&format!(" The whole text is in GitLab: {url}"));
    }
    let mut markdown = Markdown::new();
    markdown.note(&text);
    markdown.into_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_long_block_keeps_a_share_and_fences_close() {
        let mut text = String::from("## Notes\n\n");
        for i in 0..20 {
            text.push_str(&format!(
                "**note {i}**\n\n```\n{}\n```\n\n",
                "x".repeat(50_000)
            ));
        }
        text.push_str("---\n💡 **Next steps:**\n- Reply: `x.y`\n");
        let out = shrink(&text, 40_000);
        assert!(json_len(&out) <= 40_000, "{}", out.len());
        for i in 0..20 {
            assert!(out.contains(&format!("**note {i}**")), "note {i} is gone");
        }
        assert!(out.ends_with("- Reply: `x.y`\n"));
        let fences = out.lines().filter(|l| l.starts_with("```")).count();
        assert_eq!(fences % 2, 0, "unbalanced fences");
        assert!(out.contains("cut here"));
    }

    #[test]
    fn one_huge_line_is_cut_at_a_character() {
        let text = format!("# Title\n\n{}\n", "é".repeat(100_000));
        let out = shrink(&text, 10_000);
        assert!(json_len(&out) <= 10_000);
        assert!(out.starts_with("# Title"));
    }

    fn page(page: i64, per_page: i64, total: Option<i64>) -> Pagination {
        Pagination {
            page: Some(page),
            per_page,
            total_items: total,
            total_pages: None,
            next_page: None,
            has_more: false,
            next_cursor: None,
        }
    }

    #[test]
    fn a_cut_first_page_continues_in_pages_of_the_size_shown() {
        let cut = ListCut::new(37, 100, Some(&page(1, 100, Some(250))), None);
        assert_eq!(cut.shown, 37);
        let pagination = cut.pagination.unwrap();
        assert_eq!(
            (
                pagination.page,
                pagination.next_page,
                pagination.total_pages
            ),
            (Some(1), Some(2), Some(7))
        );
        assert!(pagination.has_more && !cut.unpaged);
    }

    #[test]
    fn a_cut_later_page_keeps_the_pages_aligned() {
        // Page 3 of 100 starts at item 200: 40 divides it, so page 6 of 40 starts there.
        let cut = ListCut::new(47, 100, Some(&page(3, 100, None)), None);
        assert_eq!(cut.shown, 40);
        let pagination = cut.pagination.unwrap();
        assert_eq!((pagination.page, pagination.next_page), (Some(6), Some(7)));
    }

    #[test]
    fn a_list_gitlab_did_not_page_says_so() {
        let cut = ListCut::new(300, 90_000, Some(&page(1, 20, None)), None);
        assert!(cut.unpaged && cut.dropped_items());
        let value = serde_json::json!({"items": [1, 2, 3], "pagination": {}});
        let cut = ListCut::new(2, 3, None, None);
        assert_eq!(
            cut.apply(value, "items"),
            serde_json::json!({"items": [1, 2], "pagination": {}})
        );
    }

    #[test]
    fn every_item_keeps_a_share_of_its_long_texts() {
        let mut value = serde_json::json!({"notes": [
            {"body": "a".repeat(100_000), "id": 1},
            {"body": "short", "id": 2},
        ]});
        assert_eq!(shorten_items(&mut value, "notes", 30_000), Some(5_000));
        assert_eq!(
            value["notes"][0]["body"].as_str().unwrap().chars().count(),
            5_001
        );
        assert_eq!(value["notes"][1]["body"], "short");
        let mut short = serde_json::json!({"notes": [{"body": "short"}]});
        assert_eq!(shorten_items(&mut short, "notes", 30_000), None);
    }

    #[test]
    fn small_text_is_left_alone() {
        assert_eq!(shrink("a\n\nb\n", 1000), "a\n\nb\n");
    }
}

//! The one Markdown writer: every card, table, section and hint block goes through here.
//!
//! All escaping lives in this file. User text can carry `|`, `[`, backticks, newlines,
//! `<script>` or emoji; whatever it holds, a table keeps its columns, a card keeps its rows
//! and no HTML reaches the reader. Formatters describe values as `Cell`s; only this module
//! turns them into Markdown.

use std::fmt::{Display, Write as _};

use super::cell::{Cell, Part};
use crate::gitlab::Pagination;

/// A Markdown document under construction.
#[derive(Debug, Default)]
pub struct Markdown {
    out: String,
}

/// Where a cell is written; a few rules differ between the two.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Table,
    Card,
}

impl Markdown {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn into_string(self) -> String {
        let mut out = self.out;
        while out.ends_with('\n') {
            out.pop();
        }
        out
    }

    pub fn as_str(&self) -> &str {
        &self.out
    }

    fn blank_line(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            if !self.out.ends_with('\n') {
                self.out.push('\n');
            }
            self.out.push('\n');
        }
    }

    fn heading(&mut self, level: usize, text: &str) {
        self.blank_line();
        let _ = writeln!(self.out, "{} {}", "#".repeat(level), inline(text));
    }

    /// A card for one entity, headed `## <Kind> <ref> [verb]: <title>`.
    pub fn entity_card(&mut self, kind: &str) -> CardHeading<'_> {
        CardHeading {
            markdown: self,
            kind: kind.to_owned(),
            reference: None,
            title: None,
            verb: None,
        }
    }

    /// A card under a heading of the caller's choosing.
    pub fn card(&mut self, heading: &str) -> Card<'_> {
        self.heading(2, heading);
        Card {
            markdown: self,
            rows: Vec::new(),
            sections: Vec::new(),
        }
    }

    /// A table headed `## <heading> (<shown>)`; columns left empty in every row are dropped.
    pub fn table(&mut self, heading: &str, shown: usize, columns: &[&str]) -> Table<'_> {
        Table {
            markdown: self,
            heading: heading.to_owned(),
            shown,
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// The result of an action that returns no entity.
    pub fn done(&mut self, heading: &str, message: &str) {
        self.heading(2, &format!("✅ {heading}"));
        self.paragraph(message);
    }

    /// An informational not-found answer: `## ❓ Merge Request Not Found`.
    pub fn not_found(&mut self, kind: &str, what: &str) {
        self.heading(2, &format!("❓ {kind} Not Found"));
        self.paragraph(&format!(
            "The {what} does not exist or is not accessible with your current permissions."
        ));
    }

    /// A paragraph of plain text, escaped; newlines in it are kept as line breaks.
    pub fn paragraph(&mut self, text: &str) {
        self.blank_line();
        let lines: Vec<String> = text.lines().map(|line| line_start(inline(line))).collect();
        let _ = writeln!(self.out, "{}", lines.join("  \n"));
    }

    /// A fenced block holding text verbatim; the fence outgrows any backtick run inside.
    pub fn code_block(&mut self, language: &str, text: &str) {
        self.blank_line();
        let fence = "`".repeat(longest_run(text, '`').max(2) + 1);
        let _ = writeln!(self.out, "{fence}{language}");
        self.out.push_str(text);
        if !text.ends_with('\n') {
            self.out.push('\n');
        }
        let _ = writeln!(self.out, "{fence}");
    }

    /// A sentence of our own that may hold `code` spans (action ids); the rest is escaped.
    pub fn note(&mut self, text: &str) {
        self.blank_line();
        let _ = writeln!(self.out, "{}", inline_with_code(text));
    }

    /// "Page 1 of 3, 20 per page, 57 items."
    pub fn pagination(&mut self, pagination: &Pagination) {
        self.blank_line();
        let page = match (pagination.page, pagination.total_pages) {
            (Some(page), Some(pages)) => format!("Page {page} of {}, ", pages.max(1)),
            (Some(page), None) => format!("Page {page}, "),
            // A cursor page has no number.
            (None, _) => String::new(),
        };
        let total = match pagination.total_items {
            Some(1) => ", 1 item".to_owned(),
            Some(items) => format!(", {items} items"),
            None if pagination.has_more => ", more pages available".to_owned(),
            None => String::new(),
        };
        let _ = writeln!(self.out, "{page}{} per page{total}.", pagination.per_page);
    }

    /// The `💡 Next steps` block; the same strings go into `next_steps`.
    pub fn next_steps(&mut self, steps: &[String]) {
        if steps.is_empty() {
            return;
        }
        self.blank_line();
        self.out.push_str("---\n💡 **Next steps:**\n");
        for step in steps {
            let _ = writeln!(self.out, "- {}", inline_with_code(step));
        }
    }
}

/// The heading of an entity card, built up before the card opens.
pub struct CardHeading<'a> {
    markdown: &'a mut Markdown,
    kind: String,
    reference: Option<String>,
    title: Option<String>,
    verb: Option<String>,
}

impl<'a> CardHeading<'a> {
    pub fn reference(mut self, prefix: &str, value: Option<impl Display>) -> Self {
        self.reference = value.map(|v| format!("{prefix}{v}"));
        self
    }

    pub fn title(mut self, title: Option<&str>) -> Self {
        self.title = title.map(str::to_owned);
        self
    }

    pub fn verb(mut self, verb: &str) -> Self {
        self.verb = Some(verb.to_owned());
        self
    }

    pub fn open(self) -> Card<'a> {
        let mut heading = self.kind;
        for part in [self.reference, self.verb].into_iter().flatten() {
            heading.push(' ');
            heading.push_str(&part);
        }
        if let Some(title) = self.title {
            heading.push_str(": ");
            heading.push_str(&title);
        }
        self.markdown.card(&heading)
    }
}

/// `- **Label**: value` rows, then body sections; written by `finish`.
pub struct Card<'a> {
    markdown: &'a mut Markdown,
    rows: Vec<(String, Cell)>,
    sections: Vec<Section>,
}

enum Section {
    Body {
        label: String,
        text: String,
    },
    Code {
        label: String,
        text: String,
        language: &'static str,
    },
    Table {
        label: String,
        columns: Vec<String>,
        rows: Vec<Vec<Cell>>,
    },
}

impl Card<'_> {
    /// A row; an empty value leaves the row out.
    pub fn row(&mut self, label: &str, value: Cell) {
        if !value.is_empty() {
            self.rows.push((label.to_owned(), value));
        }
    }

    /// A user-written Markdown body (a description, a comment), kept verbatim in a fence so
    /// its headings, HTML and tables cannot break the card.
    pub fn body(&mut self, label: &str, text: Option<&str>) {
        if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
            self.sections.push(Section::Body {
                label: label.to_owned(),
                text: text.to_owned(),
            });
        }
    }

    /// File content, a log or a diff, fenced and tagged with `language` (`rust`, `diff`).
    pub fn code_block(&mut self, label: &str, text: Option<&str>, language: Option<&'static str>) {
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            let language = language.unwrap_or("");
            self.sections.push(Section::Code {
                label: label.to_owned(),
                text: text.to_owned(),
                language,
            });
        }
    }

    /// A list of related records (a pipeline's jobs, a comparison's commits) as a table.
    pub fn table(&mut self, label: &str, columns: &[&str], rows: Vec<Vec<Cell>>) {
        if !rows.is_empty() {
            let columns = columns.iter().map(|c| (*c).to_owned()).collect();
            self.sections.push(Section::Table {
                label: label.to_owned(),
                columns,
                rows,
            });
        }
    }

    pub fn finish(self) {
        let Card {
            markdown,
            rows,
            sections,
        } = self;
        if !rows.is_empty() {
            markdown.blank_line();
            for (label, value) in rows {
                let _ = writeln!(
                    markdown.out,
                    "- **{}**: {}",
                    inline(&label),
                    render(&value, Place::Card)
                );
            }
        }
        for section in sections {
            match section {
                Section::Body { label, text } => {
                    markdown.heading(3, &label);
                    markdown.code_block("", &text);
                }
                Section::Code {
                    label,
                    text,
                    language,
                } => {
                    markdown.heading(3, &label);
                    markdown.code_block(language, &text);
                }
                Section::Table {
                    label,
                    columns,
                    rows,
                } => {
                    markdown.heading(3, &format!("{label} ({})", rows.len()));
                    write_rows(markdown, &columns, &rows);
                }
            }
        }
    }
}

/// Rows of cells under column labels; written by `finish`.
pub struct Table<'a> {
    markdown: &'a mut Markdown,
    heading: String,
    shown: usize,
    columns: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

impl Table<'_> {
    pub fn row(&mut self, cells: impl Into<Vec<Cell>>) {
        let cells = cells.into();
        debug_assert_eq!(
            cells.len(),
            self.columns.len(),
            "a row has one cell per column"
        );
        self.rows.push(cells);
    }

    /// Writes the heading, the table (or a line saying it is empty) and the pagination line.
    pub fn finish(self, pagination: Option<&Pagination>) {
        let Table {
            markdown,
            heading,
            shown,
            columns,
            rows,
        } = self;
        let count = match pagination.and_then(|p| p.total_items) {
            Some(total) if total > shown as i64 => format!("{shown} of {total}"),
            _ => shown.to_string(),
        };
        markdown.heading(2, &format!("{heading} ({count})"));
        if rows.is_empty() {
            markdown.paragraph("Nothing matched.");
        } else {
            write_rows(markdown, &columns, &rows);
        }
        if let Some(pagination) = pagination {
            markdown.pagination(pagination);
        }
    }
}

/// The longest text a table cell shows; longer text ends in `…`.
const TABLE_TEXT_CAP: usize = 300;

fn clip(text: &str, cap: usize) -> String {
    if text.chars().count() <= cap {
        return text.to_owned();
    }
    let cut: String = text.chars().take(cap).collect();
    format!("{}…", cut.trim_end())
}

/// The GFM table itself; a column empty in every row is left out.
fn write_rows(markdown: &mut Markdown, columns: &[String], rows: &[Vec<Cell>]) {
    let keep: Vec<usize> = (0..columns.len())
        .filter(|&i| rows.iter().any(|row| !row[i].is_empty()))
        .collect();
    markdown.blank_line();
    let out = &mut markdown.out;
    let header: Vec<String> = keep.iter().map(|&i| inline(&columns[i])).collect();
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(keep.len()));
    for row in rows {
        let cells: Vec<String> = keep
            .iter()
            .map(|&i| render(&row[i], Place::Table))
            .collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
}

fn render(cell: &Cell, place: Place) -> String {
    let mut out = String::new();
    for part in &cell.0 {
        match part {
            Part::Text(text) if place == Place::Table => {
                out.push_str(&inline(&clip(text, TABLE_TEXT_CAP)))
            }
            Part::Text(text) => out.push_str(&inline(text)),
            Part::Code(text) => out.push_str(&code_span(text, place)),
            Part::Link { text, url } => {
                let _ = write!(out, "[{}]({})", inline(text), link_target(url));
            }
            // `no` in a table too: a blank would read as unknown ("is this thread resolved,
            // or can it not be?"); a missing value stays blank.
            Part::Flag(value) => out.push_str(match (place, value) {
                (Place::Table, true) => "✅",
                (Place::Table, false) => "no",
                (Place::Card, true) => "yes",
                (Place::Card, false) => "no",
            }),
            Part::Person { username, url } => match (place, url) {
                (Place::Card, Some(url)) => {
                    let _ = write!(out, "[@{}]({})", inline(username), link_target(url));
                }
                _ => {
                    out.push('@');
                    out.push_str(&inline(username));
                }
            },
            Part::Symbol(symbol) => out.push_str(symbol),
        }
    }
    out
}

/// User text on one line: whitespace collapsed, Markdown and HTML specials escaped.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    for (index, &ch) in chars.iter().enumerate() {
        match ch {
            '\\' | '`' | '*' | '[' | ']' | '~' => {
                out.push('\\');
                out.push(ch);
            }
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // `_` only emphasises at a word boundary; `user_id` stays as it is.
            '_' => {
                let before = index.checked_sub(1).map(|i| chars[i]);
                let after = chars.get(index + 1).copied();
                if before.is_some_and(char::is_alphanumeric)
                    && after.is_some_and(char::is_alphanumeric)
                {
                    out.push('_');
                } else {
                    out.push_str("\\_");
                }
            }
            _ => out.push(ch),
        }
    }
    out
}

/// Escapes a character at the start of a line that would open a block (a heading, a list
/// item, a numbered list) when the line is a paragraph of its own.
fn line_start(line: String) -> String {
    let opens_block = line.starts_with(['#', '-', '+', '='])
        || line
            .split_once(". ")
            .is_some_and(|(lead, _)| !lead.is_empty() && lead.chars().all(|c| c.is_ascii_digit()));
    if opens_block {
        format!("\\{line}")
    } else {
        line
    }
}

/// A code span whose delimiter outgrows any backtick run inside; `|` is escaped in tables,
/// where GFM splits cells before it parses code spans.
fn code_span(text: &str, place: Place) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let ticks = "`".repeat(longest_run(&flat, '`') + 1);
    let pad = if flat.starts_with('`') || flat.ends_with('`') {
        " "
    } else {
        ""
    };
    let body = if place == Place::Table {
        escape_table_pipes(&flat)
    } else {
        flat
    };
    format!("{ticks}{pad}{body}{pad}{ticks}")
}

/// `|` as `\|` for GFM's table splitter, which reads `\X` pairs first: after an odd run
/// of backslashes one more is added, so the pipe stays escaped (found by a property test).
fn escape_table_pipes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = 0;
    for ch in text.chars() {
        if ch == '|' {
            if run % 2 == 1 {
                out.push('\\');
            }
            out.push_str("\\|");
            run = 0;
            continue;
        }
        run = if ch == '\\' { run + 1 } else { 0 };
        out.push(ch);
    }
    out
}

/// Text that may hold our own `code` spans (hint lines): code spans are kept, the rest escaped.
fn inline_with_code(text: &str) -> String {
    let mut out = String::new();
    for (index, piece) in text.split('`').enumerate() {
        if index % 2 == 1 {
            out.push_str(&code_span(piece, Place::Card));
        } else {
            // Keep the spaces around code spans: `Open one: `x`` must not become `one:`x``.
            if piece.starts_with(char::is_whitespace) && !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&inline(piece));
            if piece.ends_with(char::is_whitespace) && !piece.trim().is_empty() {
                out.push(' ');
            }
        }
    }
    out
}

/// A URL made safe inside `(...)`: spaces, parentheses, angle brackets and pipes encoded.
fn link_target(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for ch in url.chars() {
        match ch {
            ' ' => out.push_str("%20"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            '|' => out.push_str("%7C"),
            '\\' => out.push_str("%5C"),
            '"' => out.push_str("%22"),
            c if c.is_whitespace() || c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn longest_run(text: &str, ch: char) -> usize {
    let mut longest = 0;
    let mut current = 0;
    for c in text.chars() {
        if c == ch {
            current += 1;
            longest = longest.max(current);
        } else {
            current = 0;
        }
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::cell;

    fn columns_of(line: &str) -> usize {
        // Count unescaped pipes: a GFM row with N cells has N + 1 of them.
        let mut count = 0;
        let mut escaped = false;
        for ch in line.chars() {
            match ch {
                '\\' if !escaped => escaped = true,
                '|' if !escaped => count += 1,
                _ => escaped = false,
            }
            if ch != '\\' {
                escaped = false;
            }
        }
        count - 1
    }

    #[test]
    fn hostile_text_keeps_the_table_shape() {
        let hostile = "a | b ] [c](d) `e` ``f`` \n new line <script>alert(1)</script> *g* _h_ 🎉";
        let mut markdown = Markdown::new();
        let mut table = markdown.table("Things", 1, &["Title", "Code", "Link"]);
        table.row([
            cell::text(Some(hostile)),
            cell::code(Some(hostile)),
            cell::reference("!", Some(1), Some("https://gitlab.example.com/a (b)|c")),
        ]);
        table.finish(None);
        let text = markdown.into_string();
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with('|')).collect();
        assert_eq!(rows.len(), 3, "{text}");
        for row in &rows {
            assert_eq!(columns_of(row), 3, "row {row:?} of\n{text}");
        }
        // Raw HTML appears only inside the code span, where Markdown shows it as text.
        assert_eq!(text.matches("<script>").count(), 1, "{text}");
        assert!(
            text.contains("```a \\| b ] [c](d) `e` ``f`` new line <script>"),
            "{text}"
        );
        assert!(
            text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{text}"
        );
        assert!(text.contains("🎉"));
        assert!(
            text.contains("(https://gitlab.example.com/a%20%28b%29%7Cc)"),
            "{text}"
        );
    }

    #[test]
    fn card_rows_skip_empty_values_and_fence_bodies() {
        let mut markdown = Markdown::new();
        let mut card = markdown
            .entity_card("Merge Request")
            .reference("!", Some(12))
            .title(Some("Fix `x` | y"))
            .open();
        card.row("Status", cell::status(Some("opened")));
        card.row("Milestone", cell::text(None));
        card.body(
            "Description",
            Some("# Heading\n```rust\nfn main() {}\n```\n<b>bold</b>"),
        );
        card.finish();
        let text = markdown.into_string();
        assert!(
            text.starts_with("## Merge Request !12: Fix \\`x\\` \\| y\n"),
            "{text}"
        );
        assert!(text.contains("- **Status**: 🟢 opened"));
        assert!(!text.contains("Milestone"));
        assert!(
            text.contains("### Description\n\n````\n# Heading\n```rust"),
            "{text}"
        );
        assert!(text.ends_with("<b>bold</b>\n````"), "{text}");
    }

    #[test]
    fn pagination_line() {
        let mut markdown = Markdown::new();
        markdown.pagination(&Pagination {
            page: Some(1),
            per_page: 20,
            total_items: Some(57),
            total_pages: Some(3),
            next_page: Some(2),
            has_more: true,
            next_cursor: None,
        });
        assert_eq!(
            markdown.into_string(),
            "Page 1 of 3, 20 per page, 57 items."
        );
    }

    #[test]
    fn cursor_pagination_line() {
        let mut markdown = Markdown::new();
        markdown.pagination(&Pagination {
            page: None,
            per_page: 2,
            total_items: Some(5),
            total_pages: None,
            next_page: None,
            has_more: true,
            next_cursor: Some("eyJpZCI6Mn0".into()),
        });
        assert_eq!(markdown.into_string(), "2 per page, 5 items.");
    }

    #[test]
    fn empty_tables_say_so() {
        let mut markdown = Markdown::new();
        let table = markdown.table("Branches", 0, &["Branch"]);
        table.finish(None);
        assert_eq!(
            markdown.into_string(),
            "## Branches (0)\n\nNothing matched."
        );
    }

    #[test]
    fn next_steps_keep_action_ids_as_code() {
        let mut markdown = Markdown::new();
        markdown.next_steps(&["Open one: `merge_request.get`".into()]);
        assert_eq!(
            markdown.into_string(),
            "---\n💡 **Next steps:**\n- Open one: `merge_request.get`"
        );
    }
}

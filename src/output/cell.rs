//! Values as the output writer shows them: one constructor per field kind.
//!
//! A `Cell` holds parts (user text, code, links, our own symbols), not Markdown: the writer
//! renders and escapes them for the place they land in (a table cell or a card row). This
//! keeps every escaping rule in `markdown.rs` and makes a raw, unescaped row impossible.

use std::fmt::Display;

use super::format;

/// How many items of a list a cell shows before "+N more".
const LIST_CAP: usize = 5;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    /// Text from GitLab or the user: escaped where it lands.
    Text(String),
    /// Shown as a code span.
    Code(String),
    /// A link; the text is user text, the URL is checked and encoded.
    Link { text: String, url: String },
    /// A boolean, which reads differently in a table and in a card.
    Flag(bool),
    /// A user: linked in a card, plain `@name` in a table (where links would crowd the row).
    Person {
        username: String,
        url: Option<String>,
    },
    /// Our own fixed markup (emoji, arrows, separators).
    Symbol(&'static str),
}

/// A formatted value for one card row or table cell. Empty cells are left out of cards.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cell(pub(crate) Vec<Part>);

impl Cell {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn one(part: Part) -> Self {
        Self(vec![part])
    }
}

/// Something that can be shown as a user (`@alice`), such as the generated `User` type.
pub trait Person {
    fn username(&self) -> &str;
    fn web_url(&self) -> Option<&str>;
}

pub fn text(value: Option<&str>) -> Cell {
    value
        .filter(|v| !v.trim().is_empty())
        .map(|v| Cell::one(Part::Text(v.to_owned())))
        .unwrap_or_default()
}

pub fn code(value: Option<&str>) -> Cell {
    value
        .filter(|v| !v.is_empty())
        .map(|v| Cell::one(Part::Code(v.to_owned())))
        .unwrap_or_default()
}

/// A commit SHA, shortened to 8 characters.
pub fn sha(value: Option<&str>) -> Cell {
    code(value.map(|v| v.get(..8).unwrap_or(v)))
}

pub fn integer(value: Option<i64>) -> Cell {
    value
        .map(|v| Cell::one(Part::Text(v.to_string())))
        .unwrap_or_default()
}

pub fn number(value: Option<f64>) -> Cell {
    value
        .map(|v| Cell::one(Part::Text(format::number(v))))
        .unwrap_or_default()
}

pub fn percent(value: Option<f64>) -> Cell {
    value
        .map(|v| Cell::one(Part::Text(format!("{}%", format::number(v)))))
        .unwrap_or_default()
}

pub fn size(value: Option<f64>) -> Cell {
    value
        .map(|v| Cell::one(Part::Text(format::size(v))))
        .unwrap_or_default()
}

pub fn duration(value: Option<f64>) -> Cell {
    value
        .map(|v| Cell::one(Part::Text(format::duration(v))))
        .unwrap_or_default()
}

pub fn boolean(value: Option<bool>) -> Cell {
    value.map(|v| Cell::one(Part::Flag(v))).unwrap_or_default()
}

/// A date or timestamp, readable: `15 Jan 2025 10:30 UTC`, or `15 Jan 2025` for a date.
pub fn date(value: Option<&str>) -> Cell {
    value
        .map(|v| Cell::one(Part::Text(format::date(v))))
        .unwrap_or_default()
}

/// A status with its emoji: `✅ success`.
pub fn status(value: Option<&str>) -> Cell {
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return Cell::default();
    };
    let mut parts = Vec::new();
    if let Some(emoji) = format::status_emoji(value) {
        parts.push(Part::Symbol(emoji));
        parts.push(Part::Symbol(" "));
    }
    parts.push(Part::Text(value.replace('_', " ")));
    Cell(parts)
}

/// A URL as a link; a value that is not http(s) is shown as text, never linked.
pub fn url(value: Option<&str>) -> Cell {
    match value {
        Some(url) if format::is_web_url(url) => Cell::one(Part::Link {
            text: "open".into(),
            url: url.to_owned(),
        }),
        other => text(other),
    }
}

/// A short reference such as `!12` or `#34`, linked to the entity's page.
pub fn reference(prefix: &str, value: Option<impl Display>, url: Option<&str>) -> Cell {
    let Some(value) = value else {
        return Cell::default();
    };
    let text = format!("{prefix}{value}");
    match url {
        Some(url) if format::is_web_url(url) => Cell::one(Part::Link {
            text,
            url: url.to_owned(),
        }),
        _ => Cell::one(Part::Text(text)),
    }
}

pub fn user(value: Option<&impl Person>) -> Cell {
    let Some(person) = value else {
        return Cell::default();
    };
    let url = person
        .web_url()
        .filter(|url| format::is_web_url(url))
        .map(str::to_owned);
    Cell::one(Part::Person {
        username: person.username().to_owned(),
        url,
    })
}

pub fn users(values: &[impl Person]) -> Cell {
    capped(
        values
            .iter()
            .map(|p| Part::Text(format!("@{}", p.username()))),
        values.len(),
    )
}

pub fn labels(values: &[String]) -> Cell {
    capped(values.iter().map(|l| Part::Code(l.clone())), values.len())
}

pub fn list(values: &[String]) -> Cell {
    capped(values.iter().map(|v| Part::Text(v.clone())), values.len())
}

/// Two values joined by an arrow: `feature/x` → `main`.
pub fn transition(from: Option<&str>, to: Option<&str>) -> Cell {
    match (from, to) {
        (Some(from), Some(to)) => Cell(vec![
            Part::Code(from.to_owned()),
            Part::Symbol(" → "),
            Part::Code(to.to_owned()),
        ]),
        (one, None) | (None, one) => code(one),
    }
}

fn capped(parts: impl Iterator<Item = Part>, total: usize) -> Cell {
    let mut out = Vec::new();
    for (index, part) in parts.take(LIST_CAP).enumerate() {
        if index > 0 {
            out.push(Part::Symbol(", "));
        }
        out.push(part);
    }
    if total > LIST_CAP {
        out.push(Part::Text(format!(" +{} more", total - LIST_CAP)));
    }
    Cell(out)
}

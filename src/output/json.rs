//! JSON text as the output contract wants it: no HTML escaping, U+2028/U+2029 escaped.
//!
//! serde_json already leaves `<`, `>` and `&` alone, so a text block equals
//! `JSON.stringify(structuredContent)`; the line and paragraph separators are escaped
//! because they end a line inside JavaScript string literals in older engines.

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};
use std::io;

struct EscapeSeparators<F>(F);

impl<F: Formatter> Formatter for EscapeSeparators<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut rest = fragment;
        while let Some(at) = rest.find(['\u{2028}', '\u{2029}']) {
            writer.write_all(&rest.as_bytes()[..at])?;
            let escaped: &[u8] = if rest[at..].starts_with('\u{2028}') {
                b"\\u2028"
            } else {
                b"\\u2029"
            };
            writer.write_all(escaped)?;
            rest = &rest[at + '\u{2028}'.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }

    // Everything else is delegated to the wrapped formatter (indentation, separators).
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

fn write<F: Formatter>(value: &impl Serialize, formatter: F) -> String {
    let mut out = Vec::new();
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut out, EscapeSeparators(formatter));
    value
        .serialize(&mut serializer)
        .expect("JSON values always serialize");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Compact JSON text.
pub fn to_text(value: &impl Serialize) -> String {
    write(value, CompactFormatter)
}

/// Indented JSON text, for people (CLI output, generated files).
pub fn to_pretty(value: &impl Serialize) -> String {
    write(value, PrettyFormatter::with_indent(b"  "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn no_html_escaping_and_separators_escaped() {
        let value = json!({"t": "<a href=\"x\">&</a>\u{2028}\u{2029}é"});
        assert_eq!(
            to_text(&value),
            r#"{"t":"<a href=\"x\">&</a>\u2028\u2029é"}"#
        );
    }

    #[test]
    fn pretty_output_is_indented() {
        assert_eq!(
            to_pretty(&json!({"a": [1]})),
            "{\n  \"a\": [\n    1\n  ]\n}"
        );
    }
}

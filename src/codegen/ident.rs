//! Names and doc comments for generated items (build time only).
//!
//! Wire names (`ref`, `type`, `source_branch`) become valid Rust identifiers here, and YAML
//! descriptions become one `#[doc]` attribute per line, which prettyplease prints as `///`.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while", "abstract", "become", "box", "do", "final", "macro", "override",
    "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// A field, function or module name; a keyword becomes a raw identifier (`r#ref`), which
/// serde and schemars still spell `ref` on the wire.
pub fn snake(name: &str) -> Ident {
    if KEYWORDS.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// A type or variant name: `created_by_me` → `CreatedByMe`, `2fa` → `V2fa`.
pub fn camel(name: &str) -> Ident {
    let mut out = String::new();
    for part in name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
    {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    Ident::new(&out, Span::call_site())
}

/// A static's name: `MergeRequest` → `MERGE_REQUEST`.
pub fn screaming(name: &str) -> Ident {
    let mut out = String::new();
    let mut previous: Option<char> = None;
    for ch in name.chars() {
        if ch.is_ascii_uppercase()
            && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
        {
            out.push('_');
        }
        out.push(ch.to_ascii_uppercase());
        previous = Some(ch);
    }
    Ident::new(&out, Span::call_site())
}

/// One `#[doc = " line"]` per line of text, so the output reads as `///` comments.
pub fn doc(text: &str) -> TokenStream {
    let lines = wrap(text, 96);
    let lines = lines.iter().map(|line| format!(" {line}"));
    quote! { #(#[doc = #lines])* }
}

/// Wraps prose at word boundaries so generated doc comments stay readable.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.lines() {
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            if !line.is_empty() && line.len() + 1 + word.len() > width {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push(line);
    }
    lines
}

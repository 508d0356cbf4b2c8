//! Names the manifest gives that become Rust: identifiers lower_snake_case, never a name
//! generated code already uses, and the Rust names derived from them (enum variants,
//! CamelCase, humanised labels).

/// Type names generated code already uses: what `src/prelude.rs` exports, the items every
/// action module declares, and the std prelude's. An entity or enum type of one of these
/// names would shadow it. (A test keeps this list in step with the prelude.)
pub const RESERVED_TYPES: &[&str] = &[
    // src/prelude.rs
    "Action",
    "ActionParams",
    "ActionVocabulary",
    "ArgReader",
    "CellKind",
    "DomainInfo",
    "DomainVocabulary",
    "Done",
    "Entity",
    "Field",
    "FenceLanguage",
    "FieldType",
    "FieldView",
    "Graphql",
    "Hint",
    "HintCondition",
    "Location",
    "Method",
    "ParamEnum",
    "ParamSpec",
    "ParamType",
    "PathOrId",
    "Reference",
    "Request",
    "ResourcePolicy",
    "ResourceSpec",
    "ResultShape",
    "Safety",
    "View",
    "Vocabulary",
    "WordList",
    "Requires",
    "JsonObject",
    "ObjectParam",
    "Role",
    "Tier",
    "TokenScope",
    "StringMap",
    // every action module
    "Params",
    "Output",
    // the std prelude
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "String",
    "Vec",
    "Box",
    "Default",
    "Self",
    "Clone",
    "Copy",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Iterator",
    "ToString",
    "ToOwned",
    "Eq",
    "PartialEq",
    "Ord",
    "PartialOrd",
    "Into",
    "From",
];

/// The generated modules beside the domain modules.
pub(super) const RESERVED_MODULES: &[&str] = &["types", "enums", "params"];

/// Names that cannot be Rust identifiers even in raw form (`r#self` is not allowed).
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// A manifest name used as a Rust identifier (a field, parameter, action or domain):
/// lower_snake_case, and a keyword only where a raw identifier can stand for it.
pub fn check_identifier(name: &str) -> Result<(), String> {
    if NOT_RAW.contains(&name) {
        return Err(format!(
            "`{name}` cannot be a Rust name; use another name (with `api_name` for GitLab's)"
        ));
    }
    if !is_identifier(name) {
        return Err(format!(
            "`{name}` is not lower_snake_case (a-z, 0-9 and `_`, starting with a letter)"
        ));
    }
    Ok(())
}

/// The Rust variant of an enum value: `created_by_me` → `CreatedByMe`, `2fa` → `V2fa`.
pub fn variant_name(value: &str) -> String {
    let name = camel_case(value);
    match name.as_str() {
        "" => "Empty".to_owned(),
        "Self" => "SelfValue".to_owned(),
        _ if name.starts_with(|c: char| c.is_ascii_digit()) => format!("V{name}"),
        _ => name,
    }
}

pub(super) fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// `order_by` → `OrderBy`, as `ident::camel` names the generated enum.
pub(super) fn camel_case(name: &str) -> String {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

pub(super) fn humanize_type(name: &str) -> String {
    let mut out = String::new();
    for (i, ch) in name.chars().enumerate() {
        if ch.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(ch);
    }
    out
}

/// "source_branch" → "Source branch".
pub fn humanize_field(name: &str) -> String {
    let text = name.replace('_', " ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

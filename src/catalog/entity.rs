//! Entity types as data: the fields GitLab sends that we keep, and how a card and a table
//! show them.
//!
//! `build.rs` emits one `Entity` per type in `actions/shared.yaml`, beside the typed struct
//! of the same name. Decoding (`conform`), output schemas and the Markdown of every action
//! that returns the type read this one description, so a type is shown the same way
//! wherever it appears.

use crate::kinds::CellKind;

/// One entity type (`MergeRequest`, `Pipeline`, ...).
#[derive(Debug)]
pub struct Entity {
    /// The Rust type name, which is also the name in output schemas' `$defs`.
    pub name: &'static str,
    /// Display name in card headings and not-found results ("Merge Request").
    pub kind: &'static str,
    /// The field shown as the short reference (`iid` for `!12`) and its prefix.
    pub reference: Option<Reference>,
    /// The field shown as the card title.
    pub heading: Option<&'static str>,
    /// The field holding the web URL; references link to it and cards get a URL row.
    pub link: Option<&'static str>,
    pub fields: &'static [Field],
    /// The rows of a card for one entity.
    pub card: &'static [FieldView],
    /// The columns of a table of entities.
    pub table: &'static [FieldView],
    /// GitLab's response schema the type follows (`pipeline/detail.json`), if it has one.
    pub gitlab_schema: Option<&'static str>,
}

#[derive(Debug, Clone, Copy)]
pub struct Reference {
    pub field: &'static str,
    pub prefix: &'static str,
}

impl Reference {
    pub const fn new(field: &'static str, prefix: &'static str) -> Self {
        Self { field, prefix }
    }
}

impl Entity {
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|field| field.name == name)
    }

    /// The fields holding a secret GitLab shows only in this answer.
    pub fn shown_once(&self) -> impl Iterator<Item = &'static Field> + use<> {
        let fields: &'static [Field] = self.fields;
        fields.iter().filter(|field| field.shown_once)
    }
}

/// One declared field. Fields GitLab sends that are not declared are dropped.
#[derive(Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: FieldType,
    /// Decoding fails when GitLab leaves it out (GitLab's schemas never send it null).
    pub required: bool,
    /// A large body (file content, a log) shown in the Markdown, never in the structure.
    pub content_only: bool,
    /// A secret GitLab shows only in the answer that creates it (`secret: shown_once`).
    pub shown_once: bool,
}

impl Field {
    pub const fn new(name: &'static str, ty: FieldType) -> Self {
        Self {
            name,
            ty,
            required: false,
            content_only: false,
            shown_once: false,
        }
    }

    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }

    pub const fn content_only(mut self) -> Self {
        self.content_only = true;
        self
    }

    pub const fn shown_once(mut self) -> Self {
        self.shown_once = true;
        self
    }
}

#[derive(Debug, Clone, Copy)]
pub enum FieldType {
    /// Text, dates and URLs.
    String,
    Integer,
    Number,
    Boolean,
    Entity(&'static Entity),
    List(&'static FieldType),
}

/// A card row or a table column: which field, under which label, shown as which kind.
#[derive(Debug)]
pub struct FieldView {
    /// A field of the entity, or a dotted path into a nested one (`commit.title`).
    pub field: &'static str,
    /// The second field of a `transition` (`source_branch` → `target_branch`).
    pub to: Option<&'static str>,
    pub label: &'static str,
    pub kind: CellKind,
    /// For a code block: the fence language, or the field whose file extension names it.
    pub language: Option<FenceLanguage>,
}

#[derive(Debug, Clone, Copy)]
pub enum FenceLanguage {
    Fixed(&'static str),
    FromField(&'static str),
}

impl FieldView {
    pub const fn new(field: &'static str, label: &'static str, kind: CellKind) -> Self {
        Self {
            field,
            to: None,
            label,
            kind,
            language: None,
        }
    }

    /// The second field of a `transition`.
    pub const fn to(mut self, field: &'static str) -> Self {
        self.to = Some(field);
        self
    }

    pub const fn language(mut self, language: FenceLanguage) -> Self {
        self.language = Some(language);
        self
    }

    /// Whether this view is a card section (under its own heading) rather than a row.
    pub fn is_section(&self) -> bool {
        matches!(
            self.kind,
            CellKind::Body | CellKind::CodeBlock | CellKind::Table
        )
    }
}

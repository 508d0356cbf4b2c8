//! Entity types: a typed struct and its `Entity` description (build time only).
//!
//! The struct is what handlers build and read, emitted only for the types they reach; the
//! `Entity` static is what decoding, output schemas and the one card and table renderer
//! read. Both come from the same `types:` entry, so they cannot disagree.

use proc_macro2::TokenStream;
use quote::quote;

use super::super::resolve::{EntityType, FieldType, FieldView};
use super::ident::{camel, doc, screaming, snake};

/// The `Entity` static, and the struct too when Rust code uses the type (`typed`).
pub fn entity(entity: &EntityType, typed: bool) -> TokenStream {
    let description = description(entity);
    if !typed {
        return description;
    }
    let name = camel(&entity.name);
    let docs = doc(&entity.description);
    let fields = entity.fields.iter().map(|field| {
        let ident = snake(&field.name);
        let docs = field.description.as_deref().map(doc).unwrap_or_default();
        let ty = rust_type(&field.ty);
        // Absent options read as `None`; what the struct writes is pruned of empty values
        // afterwards (`handlers::adapt`), so no field needs a skip rule.
        if matches!(field.ty, FieldType::List(_)) {
            quote! { #docs #[serde(default)] pub #ident: #ty, }
        } else if field.required {
            quote! { #docs pub #ident: #ty, }
        } else {
            quote! { #docs pub #ident: Option<#ty>, }
        }
    });
    quote! {
        #docs
        #[derive(Debug, Clone, ::serde::Deserialize, ::serde::Serialize)]
        pub struct #name {
            #(#fields)*
        }

        #description
    }
}

fn rust_type(ty: &FieldType) -> TokenStream {
    match ty {
        FieldType::String => quote!(String),
        FieldType::Integer => quote!(i64),
        FieldType::Number => quote!(f64),
        FieldType::Boolean => quote!(bool),
        FieldType::Entity(name) => {
            let name = camel(name);
            quote!(#name)
        }
        FieldType::List(inner) => {
            let inner = rust_type(inner);
            quote!(Vec<#inner>)
        }
    }
}

/// The `Entity` static: fields, reference, and the card and table every action shows.
fn description(entity: &EntityType) -> TokenStream {
    let static_name = screaming(&entity.name);
    let docs = doc(&format!(
        "How `{}` is read from GitLab and shown.",
        entity.name
    ));
    let (name, kind) = (&entity.name, &entity.kind);
    let reference = match &entity.reference {
        Some((field, prefix)) => quote!(Some(Reference::new(#field, #prefix))),
        None => quote!(None),
    };
    let heading = option_str(entity.heading.as_deref());
    let link = option_str(entity.link.as_deref());
    let fields = entity.fields.iter().map(|field| {
        let (field_name, ty) = (&field.name, field_type(&field.ty));
        let mut tokens = quote!(Field::new(#field_name, #ty));
        if field.required {
            tokens = quote!(#tokens.required());
        }
        if field.content_only {
            tokens = quote!(#tokens.content_only());
        }
        if field.shown_once {
            tokens = quote!(#tokens.shown_once());
        }
        tokens
    });
    let gitlab_schema = option_str(entity.gitlab_schema.as_deref());
    let card = entity.card.iter().map(field_view);
    let table = entity.table.iter().map(field_view);
    quote! {
        #docs
        pub static #static_name: Entity = Entity {
            name: #name,
            kind: #kind,
            reference: #reference,
            heading: #heading,
            link: #link,
            fields: &[#(#fields),*],
            card: &[#(#card),*],
            table: &[#(#table),*],
            gitlab_schema: #gitlab_schema,
        };
    }
}

fn field_type(ty: &FieldType) -> TokenStream {
    match ty {
        FieldType::String => quote!(FieldType::String),
        FieldType::Integer => quote!(FieldType::Integer),
        FieldType::Number => quote!(FieldType::Number),
        FieldType::Boolean => quote!(FieldType::Boolean),
        FieldType::Entity(name) => {
            let name = screaming(name);
            quote!(FieldType::Entity(&#name))
        }
        FieldType::List(inner) => {
            let inner = field_type(inner);
            quote!(FieldType::List(&#inner))
        }
    }
}

fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(value) => quote!(Some(#value)),
        None => quote!(None),
    }
}

/// `FieldView::new("commit.title", "Commit", CellKind::Text)`, plus a transition's second
/// field or a code block's language.
pub fn field_view(view: &FieldView) -> TokenStream {
    let dotted = |path: &[super::super::resolve::Field]| {
        path.iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(".")
    };
    let field = dotted(&view.paths[0]);
    let label = &view.label;
    let kind = super::kind_tokens("CellKind", view.kind.variant());
    let mut tokens = quote!(FieldView::new(#field, #label, #kind));
    if let Some(to) = view.paths.get(1) {
        let to = dotted(to);
        tokens = quote!(#tokens.to(#to));
    }
    match (&view.language, &view.language_from) {
        (Some(language), _) => tokens = quote!(#tokens.language(FenceLanguage::Fixed(#language))),
        (None, Some(field)) => tokens = quote!(#tokens.language(FenceLanguage::FromField(#field))),
        (None, None) => {}
    }
    tokens
}

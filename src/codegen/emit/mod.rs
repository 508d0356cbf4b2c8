//! Emits the Rust for the resolved catalog with `quote!` (build time only).
//!
//! What is the same for every action lives in the runtime; what is emitted is what is truly
//! per action or per type: the entity structs and their `Entity` descriptions (`types`),
//! each enumerated parameter's enum, declared once (`enums`), one module per action with its
//! typed `Params`, their check and request (`<domain>::<action>`), and the `ACTIONS` and
//! `DOMAINS` tables, whose entries carry the JSON Schemas computed here, and the search
//! vocabulary (`VOCABULARY`, and each domain's and action's own) as plain data. Generated code
//! reaches the runtime through `crate::prelude` and spells std and serde paths absolutely,
//! so no generated name can shadow them. It must read like code a person would write.

mod actions;
mod entities;
mod schema;
mod vocabulary;

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::quote;

use super::ident;
use super::resolve::{Catalog, Domain, EnumType, Output};
use ident::{camel, doc, snake};

pub fn catalog(catalog: &Catalog) -> TokenStream {
    let typed = rust_facing_types(catalog);
    let types = catalog
        .types
        .iter()
        .map(|entity| entities::entity(entity, typed.contains(entity.name.as_str())));
    let entity_statics = catalog.types.iter().map(|t| ident::screaming(&t.name));
    let enums = catalog.enums.iter().map(enum_type);
    let mut first_index = 0;
    let domains: Vec<_> = catalog
        .domains
        .iter()
        .map(|domain| {
            let module = domain_module(domain, first_index);
            first_index += domain.actions.len();
            module
        })
        .collect();
    let all: Vec<_> = catalog
        .domains
        .iter()
        .flat_map(|d| d.actions.iter())
        .collect();
    let shared = actions::SharedParams::new(&all);
    let shared_module = shared.module();
    let entries = all
        .iter()
        .map(|action| actions::entry(action, &catalog.types, &shared));
    let domain_entries = catalog.domains.iter().map(|domain| {
        let (name, title, description) = (&domain.name, &domain.title, &domain.description);
        let vocabulary = vocabulary::domain(&domain.vocabulary);
        quote! {
            DomainInfo { name: #name, title: #title, description: #description, vocabulary: #vocabulary }
        }
    });
    let shared_vocabulary = vocabulary::shared(&catalog.vocabulary);
    quote! {
        use crate::prelude::*;

        /// Entity types from `actions/shared.yaml`: only the fields declared there are read from
        /// GitLab and written to the structured result, so no undeclared upstream field leaks.
        pub mod types {
            use crate::prelude::*;
            #(#types)*
        }

        /// The values of enumerated parameters: one enum per name and set of values, shared by
        /// every action that takes it.
        pub mod enums {
            use crate::prelude::*;
            #(#enums)*
        }

        #shared_module

        #(#domains)*

        /// Every action in the catalog, in manifest order (domains by file name).
        pub static ACTIONS: &[Action] = &[#(#entries),*];

        /// Every entity type, in manifest order.
        pub static ENTITIES: &[&Entity] = &[#(&types::#entity_statics),*];

        /// Every domain, sorted by name.
        pub static DOMAINS: &[DomainInfo] = &[#(#domain_entries),*];

        /// The search words every domain shares (`vocabulary:` in `actions/shared.yaml`).
        pub static VOCABULARY: Vocabulary = #shared_vocabulary;
    }
}

/// The entity types Rust code reads or builds: the outputs of actions with a handler and
/// every type their fields reach. Only these get a struct; every other type is the data of
/// its `Entity` static alone, which is all decoding, schemas and rendering read.
/// `CellKind::Code`: a value of one of `kinds`' enums, as generated code writes it.
fn kind_tokens(ty: &str, variant: &str) -> TokenStream {
    let (ty, variant) = (
        quote::format_ident!("{ty}"),
        quote::format_ident!("{variant}"),
    );
    quote!(#ty::#variant)
}

fn rust_facing_types(catalog: &Catalog) -> HashSet<&str> {
    let mut pending: Vec<&str> = catalog
        .domains
        .iter()
        .flat_map(|domain| &domain.actions)
        .filter(|action| action.handler.is_some())
        .filter_map(|action| match &action.output {
            Output::Single { ty } | Output::List { ty, .. } => Some(ty.as_str()),
            Output::Message { .. } => None,
        })
        .collect();
    let mut typed = HashSet::new();
    while let Some(name) = pending.pop() {
        if !typed.insert(name) {
            continue;
        }
        let Some(entity) = catalog.types.iter().find(|t| t.name == name) else {
            continue;
        };
        for field in &entity.fields {
            pending.extend(field.ty.entity_name());
        }
    }
    typed
}

/// The domain's module; its actions' entries start at `ACTIONS[first_index]`.
fn domain_module(domain: &Domain, first_index: usize) -> TokenStream {
    let name = snake(&domain.name);
    let docs = doc(&format!("`{}`: {}", domain.name, domain.title));
    let actions = domain
        .actions
        .iter()
        .enumerate()
        .map(|(offset, action)| actions::module(action, first_index + offset));
    quote! {
        #docs
        pub mod #name {
            #(#actions)*
        }
    }
}

fn enum_type(enum_type: &EnumType) -> TokenStream {
    let name = camel(&enum_type.name);
    let shown: Vec<&str> = enum_type.users.iter().take(3).map(String::as_str).collect();
    let more = match enum_type.users.len().saturating_sub(shown.len()) {
        0 => String::new(),
        more => format!(" and {more} more"),
    };
    let docs = doc(&format!("Values of `{}`{more}.", shown.join("`, `")));
    let variants: Vec<_> = enum_type
        .variants
        .iter()
        .map(|(variant, _)| camel(variant))
        .collect();
    let values = enum_type.variants.iter().map(|(_, value)| value);
    quote! {
        #docs
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum #name {
            #(#variants,)*
        }

        impl ParamEnum for #name {
            const VALUES: &'static [&'static str] = words![#(#values),*];
            const ALL: &'static [Self] = &[#(Self::#variants),*];
        }

        param_enum!(#name);
    }
}

//! The search vocabulary as data: `VOCABULARY`, and each domain's and action's own (build
//! time only). Only what the manifest says (or the generator derived) is written out.

use proc_macro2::TokenStream;
use quote::quote;

use super::super::vocabulary::{ActionVocabulary, DomainVocabulary, Vocabulary};

pub fn shared(vocabulary: &Vocabulary) -> TokenStream {
    if vocabulary.operations.is_empty() && vocabulary.synonyms.is_empty() {
        return quote!(Vocabulary::NONE);
    }
    let operations = word_lists(&vocabulary.operations);
    let synonyms = word_lists(&vocabulary.synonyms);
    quote! {
        Vocabulary { operations: #operations, synonyms: #synonyms }
    }
}

pub fn domain(vocabulary: &DomainVocabulary) -> TokenStream {
    if vocabulary.nouns.is_empty()
        && vocabulary.synonyms.is_empty()
        && vocabulary.references.is_empty()
    {
        return quote!(DomainVocabulary::NONE);
    }
    let nouns = &vocabulary.nouns;
    let synonyms = word_lists(&vocabulary.synonyms);
    let references = vocabulary
        .references
        .iter()
        .map(|(kind, word)| quote!((#kind, #word)));
    quote! {
        DomainVocabulary {
            nouns: words![#(#nouns),*],
            synonyms: #synonyms,
            references: &[#(#references),*],
        }
    }
}

pub fn action(vocabulary: &ActionVocabulary) -> TokenStream {
    let operation = &vocabulary.operation;
    let mut tokens = quote!(ActionVocabulary::of(#operation));
    for (method, words) in [
        (quote!(verbs), &vocabulary.verbs),
        (quote!(phrases), &vocabulary.phrases),
        (quote!(objects), &vocabulary.objects),
    ] {
        if !words.is_empty() {
            tokens = quote!(#tokens.#method(words![#(#words),*]));
        }
    }
    if vocabulary.caller {
        tokens = quote!(#tokens.caller());
    }
    tokens
}

fn word_lists(lists: &[(String, Vec<String>)]) -> TokenStream {
    let lists = lists
        .iter()
        .map(|(name, words)| quote!(WordList::new(#name, words![#(#words),*])));
    quote!(&[#(#lists),*])
}

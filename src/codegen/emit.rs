//! Emits the Rust for the resolved catalog with `quote!` (build time only).
//!
//! Output: a `types` module with the entity structs, one module per domain with one module
//! per action (params, enums, output, request builder, Markdown formatter, runner), and the
//! `ACTIONS` and `DOMAINS` tables. Generated code reaches the runtime only through
//! `crate::prelude`, and spells std and serde paths absolutely so no generated name can
//! shadow them. It must read like code a person would write: maintainers step through it.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::ident::{camel, doc, snake};
use super::model::{FieldKind, HttpMethod, ParamLocation, ResourcePolicy};
use super::resolve::{
    Action, Catalog, Domain, EntityType, Field, FieldType, FieldView, Output, Param, ParamType,
    Segment, View, is_person, placeholders,
};

pub fn catalog(catalog: &Catalog) -> TokenStream {
    let types = catalog
        .types
        .iter()
        .map(|entity| entity_struct(entity, catalog));
    let domains = catalog
        .domains
        .iter()
        .map(|domain| domain_module(domain, catalog));
    let entries = catalog
        .domains
        .iter()
        .flat_map(|d| d.actions.iter())
        .map(catalog_entry);
    let domain_entries = catalog.domains.iter().map(|domain| {
        let (name, title, description) = (&domain.name, &domain.title, &domain.description);
        quote! { DomainInfo { name: #name, title: #title, description: #description } }
    });
    quote! {
        use crate::prelude::*;

        /// Entity types from `actions/shared.yaml`: only the fields declared there are read from
        /// GitLab and written to the structured result, so no undeclared upstream field leaks.
        pub mod types {
            use crate::prelude::*;
            #(#types)*
        }

        #(#domains)*

        /// Every action in the catalog, in manifest order (domains by file name).
        pub static ACTIONS: &[Action] = &[#(#entries),*];

        /// Every domain, sorted by name.
        pub static DOMAINS: &[DomainInfo] = &[#(#domain_entries),*];
    }
}

fn entity_struct(entity: &EntityType, catalog: &Catalog) -> TokenStream {
    let name = camel(&entity.name);
    let person = is_person(&catalog.types, &entity.name).then(|| {
        let web_url = match entity.field("web_url") {
            Some(field) => str_access(field, quote!(self)),
            None => quote!(None),
        };
        quote! {
            impl cell::Person for #name {
                fn username(&self) -> &str {
                    &self.username
                }

                fn web_url(&self) -> Option<&str> {
                    #web_url
                }
            }
        }
    });
    let docs = doc(&entity.description);
    let fields = entity.fields.iter().map(|field| {
        let ident = snake(&field.name);
        let docs = field.description.as_deref().map(doc).unwrap_or_default();
        let ty = rust_type(&field.ty);
        let is_list = matches!(field.ty, FieldType::List(_));
        if field.content_only {
            let ty = if field.required {
                ty
            } else {
                quote!(Option<#ty>)
            };
            quote! {
                #docs
                #[serde(default, skip_serializing)]
                pub #ident: #ty,
            }
        } else if is_list {
            quote! {
                #docs
                #[serde(default, skip_serializing_if = "Vec::is_empty")]
                pub #ident: #ty,
            }
        } else if field.required {
            quote! {
                #docs
                pub #ident: #ty,
            }
        } else {
            quote! {
                #docs
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub #ident: Option<#ty>,
            }
        }
    });
    quote! {
        #docs
        #[derive(Debug, Clone, ::serde::Deserialize, ::serde::Serialize, ::schemars::JsonSchema)]
        pub struct #name {
            #(#fields)*
        }

        #person
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

fn domain_module(domain: &Domain, catalog: &Catalog) -> TokenStream {
    let name = snake(&domain.name);
    let docs = doc(&format!("`{}`: {}", domain.name, domain.title));
    let actions = domain
        .actions
        .iter()
        .map(|action| action_module(action, catalog));
    quote! {
        #docs
        pub mod #name {
            #(#actions)*
        }
    }
}

fn action_module(action: &Action, catalog: &Catalog) -> TokenStream {
    let name = snake(&action.name);
    let docs = doc(&format!(
        "`{}`: {}.\n\n{}",
        action.id, action.title, action.description
    ));
    let params = params_struct(action);
    let enums = action
        .params
        .iter()
        .filter(|p| !p.values.is_empty())
        .map(param_enum);
    let defaults = action.params.iter().filter_map(default_fn);
    let output = output_type(action);
    let request = request_builder(action);
    let render = render_fn(action, catalog);
    let execute = execute_fn(action);
    let run = run_fn(action, catalog);
    quote! {
        #docs
        pub mod #name {
            use crate::prelude::*;

            #params
            #(#enums)*
            #(#defaults)*
            #output
            #request
            #execute
            #render
            #run
        }
    }
}

fn param_type(param: &Param) -> TokenStream {
    if !param.values.is_empty() {
        let name = camel(&param.name);
        return quote!(#name);
    }
    match param.ty {
        ParamType::String => quote!(String),
        ParamType::Integer => quote!(i64),
        ParamType::Number => quote!(f64),
        ParamType::Boolean => quote!(bool),
        ParamType::PathOrId => quote!(PathOrId),
        ParamType::StringList => quote!(Vec<String>),
        ParamType::IntegerList => quote!(Vec<i64>),
    }
}

fn params_struct(action: &Action) -> TokenStream {
    let docs = doc(&format!("Parameters of `{}`.", action.id));
    let fields = action.params.iter().map(|param| {
        let ident = snake(&param.name);
        let docs = doc(&param.description);
        let ty = param_type(param);
        let (minimum, maximum) = (
            param.minimum.map(Literal::i64_unsuffixed),
            param.maximum.map(Literal::i64_unsuffixed),
        );
        let range = match (minimum, maximum) {
            (Some(min), Some(max)) => quote!(#[schemars(range(min = #min, max = #max))]),
            (Some(min), None) => quote!(#[schemars(range(min = #min))]),
            (None, Some(max)) => quote!(#[schemars(range(max = #max))]),
            (None, None) => quote!(),
        };
        let is_list = matches!(param.ty, ParamType::StringList | ParamType::IntegerList);
        if param.required {
            quote! { #docs #range pub #ident: #ty, }
        } else if param.default.is_some() {
            let default = format!("default_{}", param.name);
            quote! { #docs #[serde(default = #default)] #range pub #ident: #ty, }
        } else if is_list {
            quote! {
                #docs
                #[serde(default, skip_serializing_if = "Vec::is_empty")]
                pub #ident: #ty,
            }
        } else {
            quote! {
                #docs
                #[serde(default, skip_serializing_if = "Option::is_none")]
                #range
                pub #ident: Option<#ty>,
            }
        }
    });
    quote! {
        #docs
        #[derive(Debug, ::serde::Deserialize, ::serde::Serialize, ::schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct Params {
            #(#fields)*
        }
    }
}

fn param_enum(param: &Param) -> TokenStream {
    let name = camel(&param.name);
    let docs = doc(&format!("Values of `{}`.", param.name));
    let variants: Vec<_> = param.values.iter().map(|value| camel(value)).collect();
    let values = &param.values;
    quote! {
        #docs
        #[derive(Debug, Clone, Copy, PartialEq, Eq, ::serde::Deserialize, ::serde::Serialize, ::schemars::JsonSchema)]
        #[schemars(inline)]
        pub enum #name {
            #(#[serde(rename = #values)] #variants,)*
        }

        impl #name {
            /// The value as GitLab spells it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    #(Self::#variants => #values,)*
                }
            }
        }

        impl ::std::fmt::Display for #name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl WireValue for #name {
            fn wire(&self) -> WireText {
                WireText::One(self.as_str().to_owned())
            }
        }
    }
}

fn default_fn(param: &Param) -> Option<TokenStream> {
    if param.required {
        return None;
    }
    let default = param.default.as_ref()?;
    let name = format_ident!("default_{}", param.name);
    let ty = param_type(param);
    let value = match default {
        serde_json::Value::String(text) if !param.values.is_empty() => {
            let variant = camel(text);
            quote!(#ty::#variant)
        }
        serde_json::Value::String(text) => quote!(String::from(#text)),
        serde_json::Value::Bool(flag) => quote!(#flag),
        serde_json::Value::Number(number) if param.ty == ParamType::Number => {
            let number = Literal::f64_unsuffixed(number.as_f64().unwrap_or_default());
            quote!(#number)
        }
        serde_json::Value::Number(number) => {
            let number = Literal::i64_unsuffixed(number.as_i64().unwrap_or_default());
            quote!(#number)
        }
        _ => return None,
    };
    Some(quote! {
        fn #name() -> #ty {
            #value
        }
    })
}

fn output_type(action: &Action) -> TokenStream {
    match &action.output {
        Output::Single { ty } => {
            let ty = camel(ty);
            let docs = doc(&format!("The structured result of `{}`.", action.id));
            quote! { #docs pub type Output = #ty; }
        }
        Output::Message { .. } => {
            let docs = doc(&format!(
                "The structured result of `{}`: a confirmation message.",
                action.id
            ));
            quote! { #docs pub type Output = Done; }
        }
        Output::List { ty, key, .. } => {
            let docs = doc(&format!("The structured result of `{}`.", action.id));
            let ty = camel(ty);
            let key = snake(key);
            let pagination = action
                .paginated
                .then(|| quote! { pub pagination: Pagination, });
            quote! {
                #docs
                #[derive(Debug, ::serde::Serialize, ::schemars::JsonSchema)]
                pub struct Output {
                    pub #key: Vec<#ty>,
                    #pagination
                }
            }
        }
    }
}

fn request_builder(action: &Action) -> TokenStream {
    let method = method_tokens(action.method);
    let docs = doc(&format!(
        "Builds `{} {}`.",
        method_name(action.method),
        action.path
    ));
    let segments = action.segments.iter().map(|segment| match segment {
        Segment::Literal(text) => quote!(.segment(#text)),
        Segment::Param(name) => {
            let ident = snake(name);
            quote!(.param(&self.#ident))
        }
    });
    let rest = action
        .params
        .iter()
        .filter(|p| matches!(p.location, ParamLocation::Query | ParamLocation::Body))
        .map(|param| {
            let ident = snake(&param.name);
            let api_name = &param.api_name;
            match param.location {
                ParamLocation::Query => quote!(.query(#api_name, &self.#ident)),
                _ => quote!(.body(#api_name, &self.#ident)),
            }
        });
    quote! {
        impl Params {
            #docs
            pub fn request(&self) -> Request {
                Request::new(#method) #(#segments)* #(#rest)*
            }
        }
    }
}

fn method_tokens(method: HttpMethod) -> TokenStream {
    match method {
        HttpMethod::Get => quote!(Method::Get),
        HttpMethod::Post => quote!(Method::Post),
        HttpMethod::Put => quote!(Method::Put),
        HttpMethod::Patch => quote!(Method::Patch),
        HttpMethod::Delete => quote!(Method::Delete),
    }
}

fn method_name(method: HttpMethod) -> &'static str {
    match method {
        HttpMethod::Get => "GET",
        HttpMethod::Post => "POST",
        HttpMethod::Put => "PUT",
        HttpMethod::Patch => "PATCH",
        HttpMethod::Delete => "DELETE",
    }
}

/// `format!` arguments for a text with `{param}` placeholders.
fn template(text: &str, holder: TokenStream) -> TokenStream {
    let names = placeholders(text);
    if names.is_empty() {
        return quote!(String::from(#text));
    }
    let mut format = String::new();
    let mut rest = text;
    for name in &names {
        let marker = format!("{{{name}}}");
        let at = rest.find(&marker).unwrap_or(0);
        format.push_str(&rest[..at].replace('{', "{{").replace('}', "}}"));
        format.push_str("{}");
        rest = &rest[at + marker.len()..];
    }
    format.push_str(&rest.replace('{', "{{").replace('}', "}}"));
    let args = names.iter().map(|name| {
        let ident = snake(name);
        quote!(#holder.#ident)
    });
    quote!(format!(#format, #(#args),*))
}

fn execute_fn(action: &Action) -> TokenStream {
    let docs = doc(&format!("Calls GitLab for `{}`.", action.id));
    if let Some(handler) = &action.handler {
        let handler = snake(handler);
        return quote! {
            #docs
            async fn execute(context: &Context, params: &Params) -> Result<Output, ActionError> {
                crate::handlers::#handler(context, params).await
            }
        };
    }
    let body = match &action.output {
        Output::Single { .. } => quote! {
            let response = context.send(params.request()).await?;
            Ok(response.json()?)
        },
        Output::Message { text } => {
            let message = template(text, quote!(params));
            quote! {
                context.send(params.request()).await?;
                Ok(Done::new(#message))
            }
        }
        Output::List { key, from_map, .. } => {
            let key = snake(key);
            let items = match from_map {
                Some((k, v)) => quote!(response.map_items(#k, #v)?),
                None => quote!(response.items()?),
            };
            let pagination = action
                .paginated
                .then(|| quote!(pagination: response.pagination(),));
            quote! {
                let response = context.send(params.request()).await?;
                Ok(Output { #key: #items, #pagination })
            }
        }
    };
    quote! {
        #docs
        async fn execute(context: &Context, params: &Params) -> Result<Output, ActionError> {
            #body
        }
    }
}

fn run_fn(action: &Action, catalog: &Catalog) -> TokenStream {
    let docs = doc(&format!(
        "Runs `{}`: decodes the checked arguments, calls GitLab and formats the result.",
        action.id
    ));
    let execute = match (&action.not_found, &action.output) {
        (Some(text), Output::Single { ty }) => {
            let kind = catalog
                .types
                .iter()
                .find(|t| &t.name == ty)
                .map(|t| t.kind.clone())
                .unwrap_or_default();
            let what = template(text, quote!(params));
            quote! {
                execute(context, &params).await.map_err(|error| error.or_not_found(#kind, || #what))?
            }
        }
        _ => quote!(execute(context, &params).await?),
    };
    quote! {
        #docs
        pub fn run(context: &Context, args: Args) -> ActionFuture<'_> {
            Box::pin(async move {
                let params: Params = decode(args)?;
                let output = #execute;
                let mut markdown = Markdown::new();
                render(&output, &params, &mut markdown);
                Rendered::new(&output, markdown)
            })
        }

        /// The request `run` would send first, for safe-mode previews.
        pub fn preview(args: Args) -> Result<Request, ActionError> {
            Ok(decode::<Params>(args)?.request())
        }
    }
}

fn render_fn(action: &Action, catalog: &Catalog) -> TokenStream {
    let docs = doc(&format!("Writes the Markdown of `{}`.", action.id));
    let entity = |ty: &str| {
        catalog
            .types
            .iter()
            .find(|t| t.name == ty)
            .expect("checked by resolve")
    };
    let uses_params = |text: &str| !placeholders(text).is_empty();
    let (body, params_used) = match (&action.view, &action.output) {
        (View::Table { heading, columns }, Output::List { ty, key, .. }) => {
            let entity = entity(ty);
            let key = snake(key);
            let heading_text = template(heading, quote!(params));
            let labels = columns.iter().map(|c| c.label.as_str());
            let cells = columns
                .iter()
                .map(|column| cell(column, entity, quote!(item)));
            let pagination = if action.paginated {
                quote!(table.finish(Some(&output.pagination));)
            } else {
                quote!(table.finish(None);)
            };
            let body = quote! {
                let mut table = markdown.table(&#heading_text, output.#key.len(), &[#(#labels),*]);
                for item in &output.#key {
                    table.row([#(#cells),*]);
                }
                #pagination
            };
            (body, uses_params(heading))
        }
        (
            View::Card {
                heading,
                verb,
                rows,
            },
            Output::Single { ty },
        ) => {
            let entity = entity(ty);
            let kind = &entity.kind;
            let mut start = match heading {
                Some(text) => {
                    let text = template(text, quote!(params));
                    quote!(markdown.card(&#text))
                }
                None => {
                    let mut builder = quote!(markdown.entity_card(#kind));
                    if let Some((field, prefix)) = &entity.reference {
                        let value =
                            scalar_access(entity.field(field).expect("checked"), quote!(output));
                        builder = quote!(#builder.reference(#prefix, #value));
                    }
                    if let Some(field) = &entity.heading {
                        let value =
                            str_access(entity.field(field).expect("checked"), quote!(output));
                        builder = quote!(#builder.title(#value));
                    }
                    if let Some(verb) = verb {
                        builder = quote!(#builder.verb(#verb));
                    }
                    quote!(#builder.open())
                }
            };
            start = quote!(let mut card = #start;);
            let rows = rows.iter().map(|row| card_row(row, entity, catalog));
            let link = entity.link.as_ref().map(|link| {
                let url = str_access(entity.field(link).expect("checked"), quote!(output));
                let text = match &entity.reference {
                    Some((field, prefix)) => {
                        let value =
                            scalar_access(entity.field(field).expect("checked"), quote!(output));
                        quote!(cell::reference(#prefix, #value, #url))
                    }
                    None => quote!(cell::url(#url)),
                };
                quote!(card.row("URL", #text);)
            });
            let body = quote! {
                #start
                #(#rows)*
                #link
                card.finish();
            };
            (body, heading.as_deref().is_some_and(uses_params))
        }
        (View::Message { heading }, _) => {
            let text = template(heading, quote!(params));
            (
                quote!(markdown.done(&#text, &output.message);),
                uses_params(heading),
            )
        }
        _ => unreachable!("resolve pairs every view with its output"),
    };
    let params_arg = if params_used {
        quote!(params)
    } else {
        quote!(_params)
    };
    quote! {
        #docs
        pub fn render(output: &Output, #params_arg: &Params, markdown: &mut Markdown) {
            #body
        }
    }
}

/// `Option<&str>` for a string field.
fn str_access(field: &Field, holder: TokenStream) -> TokenStream {
    let ident = snake(&field.name);
    if field.required {
        quote!(Some(#holder.#ident.as_str()))
    } else {
        quote!(#holder.#ident.as_deref())
    }
}

/// How a view reads the value at the end of a field path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Leaf {
    /// `Option<&str>`.
    Str,
    /// `Option<T>` for a number or boolean.
    Copy,
    /// `Option<f64>` for any number.
    Float,
    /// `Option<&T>` for an entity.
    Ref,
    /// `&[T]` for a list.
    Slice,
}

/// Reads the value at the end of `path` from `holder`, through optional entities.
fn access(path: &[Field], holder: TokenStream, leaf: Leaf) -> TokenStream {
    let (field, rest) = path.split_first().expect("paths are never empty");
    let ident = snake(&field.name);
    if !rest.is_empty() {
        let base = if field.required {
            quote!(Some(&#holder.#ident))
        } else {
            quote!(#holder.#ident.as_ref())
        };
        let inner = access(rest, quote!(value), leaf);
        // A required leaf reads as `Some(x)`: map to `x` instead of `and_then(|v| Some(x))`.
        let inner_text = inner.to_string();
        return match leaf {
            Leaf::Slice => quote!(#base.map(|value| #inner).unwrap_or(&[])),
            _ if inner_text.starts_with("Some (") => {
                let unwrapped = unwrap_some(inner);
                quote!(#base.map(|value| #unwrapped))
            }
            _ => quote!(#base.and_then(|value| #inner)),
        };
    }
    match leaf {
        Leaf::Str if field.ty == FieldType::String => str_access(field, holder),
        Leaf::Str | Leaf::Copy => {
            if field.required {
                quote!(Some(#holder.#ident))
            } else {
                quote!(#holder.#ident)
            }
        }
        Leaf::Float => {
            let value = access(path, holder, Leaf::Copy);
            if field.ty == FieldType::Integer {
                quote!(#value.map(|value| value as f64))
            } else {
                value
            }
        }
        Leaf::Ref => {
            if field.required {
                quote!(Some(&#holder.#ident))
            } else {
                quote!(#holder.#ident.as_ref())
            }
        }
        Leaf::Slice => quote!(#holder.#ident.as_slice()),
    }
}

/// `Some(x)` → `x`, for a token stream known to be a `Some(...)` call.
fn unwrap_some(tokens: TokenStream) -> TokenStream {
    let mut trees = tokens.into_iter();
    let _some = trees.next();
    match trees.next() {
        Some(proc_macro2::TokenTree::Group(group)) => group.stream(),
        _ => unreachable!("called on `Some(...)` only"),
    }
}

fn scalar_access(field: &Field, holder: TokenStream) -> TokenStream {
    let leaf = if field.ty == FieldType::String {
        Leaf::Str
    } else {
        Leaf::Copy
    };
    access(std::slice::from_ref(field), holder, leaf)
}

fn cell(view: &FieldView, entity: &EntityType, holder: TokenStream) -> TokenStream {
    let path = &view.paths[0];
    let read = |leaf| access(path, holder.clone(), leaf);
    match view.kind {
        FieldKind::Text => {
            let value = read(Leaf::Str);
            quote!(cell::text(#value))
        }
        FieldKind::Code => {
            let value = read(Leaf::Str);
            quote!(cell::code(#value))
        }
        FieldKind::Sha => {
            let value = read(Leaf::Str);
            quote!(cell::sha(#value))
        }
        FieldKind::Status => {
            let value = read(Leaf::Str);
            quote!(cell::status(#value))
        }
        FieldKind::Date => {
            let value = read(Leaf::Str);
            quote!(cell::date(#value))
        }
        FieldKind::Url => {
            let value = read(Leaf::Str);
            quote!(cell::url(#value))
        }
        FieldKind::Integer => {
            let value = read(Leaf::Copy);
            quote!(cell::integer(#value))
        }
        FieldKind::Number => {
            let value = read(Leaf::Float);
            quote!(cell::number(#value))
        }
        FieldKind::Percent => {
            let value = read(Leaf::Float);
            quote!(cell::percent(#value))
        }
        FieldKind::Size => {
            let value = read(Leaf::Float);
            quote!(cell::size(#value))
        }
        FieldKind::Duration => {
            let value = read(Leaf::Float);
            quote!(cell::duration(#value))
        }
        FieldKind::Bool => {
            let value = read(Leaf::Copy);
            quote!(cell::boolean(#value))
        }
        FieldKind::User => {
            let value = read(Leaf::Ref);
            quote!(cell::user(#value))
        }
        FieldKind::Users => {
            let value = read(Leaf::Slice);
            quote!(cell::users(#value))
        }
        FieldKind::Labels => {
            let value = read(Leaf::Slice);
            quote!(cell::labels(#value))
        }
        FieldKind::List => {
            let value = read(Leaf::Slice);
            quote!(cell::list(#value))
        }
        FieldKind::Reference => {
            let field = &path[0];
            let value = scalar_access(field, holder.clone());
            let prefix = entity
                .reference
                .as_ref()
                .filter(|(f, _)| *f == field.name)
                .map(|(_, p)| p.as_str())
                .unwrap_or("");
            let link = entity
                .link
                .as_ref()
                .and_then(|l| entity.field(l))
                .expect("checked by resolve");
            let url = str_access(link, holder);
            quote!(cell::reference(#prefix, #value, #url))
        }
        FieldKind::Transition => {
            let from = read(Leaf::Str);
            let to = access(&view.paths[1], holder, Leaf::Str);
            quote!(cell::transition(#from, #to))
        }
        FieldKind::Body | FieldKind::CodeBlock | FieldKind::Table => {
            // Sections, not cells: `card_row` writes them, and tables refuse them.
            unreachable!("resolve keeps sections out of cells")
        }
    }
}

fn card_row(view: &FieldView, entity: &EntityType, catalog: &Catalog) -> TokenStream {
    let label = &view.label;
    // Sections (table, body, code block) are always top-level fields, checked by resolve.
    let field = view.paths[0].last().expect("paths are never empty");
    match view.kind {
        FieldKind::Table => {
            let FieldType::List(inner) = &field.ty else {
                unreachable!("checked by resolve")
            };
            let FieldType::Entity(item_type) = inner.as_ref() else {
                unreachable!("checked by resolve")
            };
            let item_entity = catalog
                .types
                .iter()
                .find(|t| &t.name == item_type)
                .expect("checked by resolve");
            let ident = snake(&field.name);
            let labels = item_entity.table.iter().map(|c| c.label.as_str());
            let cells = item_entity
                .table
                .iter()
                .map(|column| cell(column, item_entity, quote!(item)));
            quote! {
                card.table(
                    #label,
                    &[#(#labels),*],
                    output.#ident.iter().map(|item| Vec::from([#(#cells),*])).collect(),
                );
            }
        }
        FieldKind::Body => {
            let value = str_access(field, quote!(output));
            quote!(card.body(#label, #value);)
        }
        FieldKind::CodeBlock => {
            let value = str_access(field, quote!(output));
            let language = match (&view.language_from, &view.language) {
                (Some(source), _) => {
                    let path = str_access(entity.field(source).expect("checked"), quote!(output));
                    quote!(#path.map(format::language_of))
                }
                (None, Some(language)) => quote!(Some(#language)),
                (None, None) => quote!(None),
            };
            quote!(card.code_block(#label, #value, #language);)
        }
        _ => {
            let value = cell(view, entity, quote!(output));
            quote!(card.row(#label, #value);)
        }
    }
}

fn catalog_entry(action: &Action) -> TokenStream {
    let (id, domain, name, title, description) = (
        &action.id,
        &action.domain,
        &action.name,
        &action.title,
        &action.description,
    );
    let domain_ident = snake(&action.domain);
    let action_ident = snake(&action.name);
    let module = quote!(#domain_ident::#action_ident);
    let tags = &action.tags;
    let aliases = &action.aliases;
    let method = method_tokens(action.method);
    let path = &action.path;
    let handler = match &action.handler {
        Some(handler) => quote!(Some(#handler)),
        None => quote!(None),
    };
    let params = action.params.iter().map(param_spec);
    let result = match &action.output {
        Output::Single { ty } => quote!(ResultShape::Single { entity: #ty }),
        Output::List { ty, key, .. } => {
            let paginated = action.paginated;
            quote!(ResultShape::List { entity: #ty, key: #key, paginated: #paginated })
        }
        Output::Message { .. } => quote!(ResultShape::Message),
    };
    let (read_only, destructive, idempotent) = (
        action.safety.read_only,
        action.safety.destructive,
        action.safety.idempotent,
    );
    let resource = match &action.resource {
        Some((policy, uri)) => {
            let policy = match policy {
                ResourcePolicy::None => quote!(ResourcePolicy::None),
                ResourcePolicy::Optional => quote!(ResourcePolicy::Optional),
                ResourcePolicy::Always => quote!(ResourcePolicy::Always),
            };
            quote!(Some(ResourceSpec { policy: #policy, uri: #uri }))
        }
        None => quote!(None),
    };
    let hints = action
        .hints
        .iter()
        .map(|(target, text)| quote!(Hint { action: #target, text: #text }));
    let example = serde_json::to_string(&action.example).unwrap_or_default();
    quote! {
        Action {
            id: #id,
            domain: #domain,
            name: #name,
            title: #title,
            description: #description,
            tags: &[#(#tags),*],
            aliases: &[#(#aliases),*],
            method: #method,
            path: #path,
            handler: #handler,
            params: &[#(#params),*],
            result: #result,
            safety: Safety { read_only: #read_only, destructive: #destructive, idempotent: #idempotent },
            resource: #resource,
            hints: &[#(#hints),*],
            example: #example,
            input_schema: schema::input::<#module::Params>,
            output_schema: schema::output::<#module::Output>,
            run: #module::run,
            preview: #module::preview,
        }
    }
}

fn param_spec(param: &Param) -> TokenStream {
    let (name, description, api_name) = (&param.name, &param.description, &param.api_name);
    let ty = match param.ty {
        ParamType::String => quote!(ParamType::String),
        ParamType::Integer => quote!(ParamType::Integer),
        ParamType::Number => quote!(ParamType::Number),
        ParamType::Boolean => quote!(ParamType::Boolean),
        ParamType::PathOrId => quote!(ParamType::PathOrId),
        ParamType::StringList => quote!(ParamType::StringList),
        ParamType::IntegerList => quote!(ParamType::IntegerList),
    };
    let location = match param.location {
        ParamLocation::Path => quote!(Location::Path),
        ParamLocation::Query => quote!(Location::Query),
        ParamLocation::Body => quote!(Location::Body),
        ParamLocation::Local => quote!(Location::Local),
    };
    let required = param.required;
    let values = &param.values;
    let default = match &param.default {
        Some(value) => {
            let text = value.to_string();
            quote!(Some(#text))
        }
        None => quote!(None),
    };
    let bound = |value: Option<i64>| match value {
        Some(value) => {
            let value = Literal::i64_unsuffixed(value);
            quote!(Some(#value))
        }
        None => quote!(None),
    };
    let (minimum, maximum) = (bound(param.minimum), bound(param.maximum));
    let aliases = &param.aliases;
    quote! {
        ParamSpec {
            name: #name,
            ty: #ty,
            required: #required,
            location: #location,
            description: #description,
            values: &[#(#values),*],
            default: #default,
            minimum: #minimum,
            maximum: #maximum,
            aliases: &[#(#aliases),*],
            api_name: #api_name,
        }
    }
}

//! One module per action: its typed params, their check, its request and its result type;
//! and its catalog entry (build time only).

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::super::model::Location;
use super::super::resolve::{
    Action, EntityType, FieldView, Output, Param, ParamType, Segment, View, variant_name,
};
use super::entities::field_view;
use super::ident::{camel, doc, screaming, snake};
use super::kind_tokens;
use super::schema;

/// The module of `action`, whose entry is `ACTIONS[index]`.
pub fn module(action: &Action, index: usize) -> TokenStream {
    let name = snake(&action.name);
    let docs = doc(&format!("`{}`: {}.", action.id, action.title));
    let params = params_struct(action);
    let items = action
        .params
        .iter()
        .filter(|p| p.ty == ParamType::ObjectList)
        .map(item_struct);
    let check = check_impl(action, index);
    // Only a handler builds the result in Rust; for every other action the entity's
    // description is all the runtime needs.
    let output = action.handler.is_some().then(|| output_type(action));
    quote! {
        #docs
        pub mod #name {
            use crate::prelude::*;

            #params
            #check
            #(#items)*
            #output
        }
    }
}

fn param_type(param: &Param) -> TokenStream {
    if let Some(name) = &param.enum_type {
        let name = camel(name);
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
        ParamType::ObjectList => {
            let item = item_type(param);
            quote!(Vec<#item>)
        }
        ParamType::StringMap => quote!(StringMap),
    }
}

/// The struct of one object of an `[object]` parameter: `actions` → `ActionsItem`.
fn item_type(param: &Param) -> proc_macro2::Ident {
    quote::format_ident!("{}Item", camel(&param.name))
}

fn is_list(param: &Param) -> bool {
    matches!(
        param.ty,
        ParamType::StringList | ParamType::IntegerList | ParamType::ObjectList
    )
}

/// The typed parameters. Their descriptions live once, in the catalog entry's `ParamSpec`s
/// and input schema, so the fields carry no copy of them.
fn params_struct(action: &Action) -> TokenStream {
    let fields = typed_fields(&action.params);
    quote! {
        #[derive(Debug)]
        pub struct Params {
            #(#fields)*
        }
    }
}

/// `pub name: Type,` for each parameter; optional ones without a default are `Option`s.
fn typed_fields(params: &[Param]) -> impl Iterator<Item = TokenStream> + '_ {
    params.iter().map(|param| {
        let ident = snake(&param.name);
        let ty = param_type(param);
        if param.required || param.default.is_some() || is_list(param) {
            quote! { pub #ident: #ty, }
        } else {
            quote! { pub #ident: Option<#ty>, }
        }
    })
}

/// `check` reads every parameter through the `ArgReader`; `request` maps them onto the
/// REST call.
fn check_impl(action: &Action, index: usize) -> TokenStream {
    let reads = action
        .params
        .iter()
        .map(|param| read_param(param, quote!(args)));
    let request = request_body(action, index);
    let request_docs = match &action.graphql {
        Some(graphql) => doc(&format!(
            "Builds the variables of the GraphQL operation `{}`.",
            graphql.operation
        )),
        None => doc(&format!(
            "Builds `{} {}`.",
            action.method.name(),
            action.path
        )),
    };
    let args = if action.params.is_empty() {
        quote!(_args)
    } else {
        quote!(args)
    };
    quote! {
        impl ActionParams for Params {
            fn check(#args: &mut ArgReader) -> Self {
                Self { #(#reads)* }
            }

            #request_docs
            fn request(&self) -> Request {
                #request
            }
        }
    }
}

/// `name: args.required("name"),` and its kin, by how the parameter is declared.
fn read_param(param: &Param, reader: TokenStream) -> TokenStream {
    let ident = snake(&param.name);
    let name = &param.name;
    let read = if param.required {
        quote!(#reader.required(#name))
    } else if let Some(default) = &param.default {
        let default = default_value(param, default);
        quote!(#reader.or_default(#name, #default))
    } else if is_list(param) {
        quote!(#reader.list(#name))
    } else {
        quote!(#reader.optional(#name))
    };
    quote!(#ident: #read,)
}

/// One object of an `[object]` parameter: its fields, their check, and its body JSON.
fn item_struct(param: &Param) -> TokenStream {
    let name = item_type(param);
    let docs = doc(&format!("One object of `{}`.", param.name));
    let fields = typed_fields(&param.items);
    let specs = param.items.iter().map(|field| param_spec(field, None));
    let reads = param
        .items
        .iter()
        .map(|field| read_param(field, quote!(fields)));
    let writes = param.items.iter().map(|field| {
        let (ident, api_name) = (snake(&field.name), &field.api_name);
        quote!(put(body, #api_name, &self.#ident);)
    });
    quote! {
        #docs
        #[derive(Debug)]
        pub struct #name {
            #(#fields)*
        }

        impl ObjectParam for #name {
            const FIELDS: &'static [ParamSpec] = &[#(#specs),*];

            fn check(fields: &mut ArgReader) -> Self {
                Self { #(#reads)* }
            }

            fn write(&self, body: &mut JsonObject) {
                #(#writes)*
            }
        }

        object_param!(#name);
    }
}

fn default_value(param: &Param, default: &serde_json::Value) -> TokenStream {
    match default {
        serde_json::Value::String(text) => match &param.enum_type {
            Some(name) => {
                let (name, variant) = (camel(name), camel(&variant_name(text)));
                quote!(#name::#variant)
            }
            None => quote!(String::from(#text)),
        },
        serde_json::Value::Bool(flag) => quote!(#flag),
        serde_json::Value::Number(number) if param.ty == ParamType::Number => {
            let number = Literal::f64_unsuffixed(number.as_f64().unwrap_or_default());
            quote!(#number)
        }
        serde_json::Value::Number(number) => {
            let number = Literal::i64_unsuffixed(number.as_i64().unwrap_or_default());
            quote!(#number)
        }
        // resolve only accepts defaults of the parameter's scalar type.
        _ => quote!(Default::default()),
    }
}

/// `ACTIONS[index].request(&[path params])` and a `.query` or `.body` per other param: the
/// entry holds method and path, so they are not written here again. The table is reached as
/// `super::super::ACTIONS` (domain, then catalog module), which is also right in a fixture's
/// generated file, where `ACTIONS` is not the crate's.
fn request_body(action: &Action, index: usize) -> TokenStream {
    let index = Literal::usize_unsuffixed(index);
    let path_params = action.segments.iter().filter_map(|segment| match segment {
        Segment::Literal => None,
        Segment::Param(name) => {
            let ident = snake(name);
            Some(quote!(&self.#ident))
        }
    });
    let rest = action
        .params
        .iter()
        .filter(|p| matches!(p.location, Location::Query | Location::Body))
        .map(|param| {
            let ident = snake(&param.name);
            let api_name = &param.api_name;
            match param.location {
                Location::Query => quote!(.query(#api_name, &self.#ident)),
                _ => quote!(.body(#api_name, &self.#ident)),
            }
        });
    quote! { super::super::ACTIONS[#index].request(&[#(#path_params),*]) #(#rest)* }
}

fn output_type(action: &Action) -> TokenStream {
    let docs = doc(&format!("What `{}`'s handler returns.", action.id));
    let ty = match &action.output {
        Output::Single { ty } => {
            let ty = camel(ty);
            quote!(#ty)
        }
        Output::List { ty, .. } => {
            let ty = camel(ty);
            quote!(Vec<#ty>)
        }
        Output::Message { .. } => quote!(Done),
    };
    quote! { #docs pub type Output = #ty; }
}

/// The action's entry in `ACTIONS`.
pub fn entry(action: &Action, types: &[EntityType], shared: &SharedParams) -> TokenStream {
    let (id, domain, name, title, description) = (
        &action.id,
        &action.domain,
        &action.name,
        &action.title,
        &action.description,
    );
    let module = {
        let (domain, action) = (snake(&action.domain), snake(&action.name));
        quote!(#domain::#action)
    };
    let tags = &action.tags;
    let aliases = &action.aliases;
    let method = kind_tokens("Method", action.method.variant());
    let path = &action.path;
    let params = action.params.iter().map(|param| shared.spec(action, param));
    let result = match &action.output {
        Output::Single { ty } => {
            let entity = screaming(ty);
            quote!(ResultShape::single(&#entity))
        }
        Output::List { ty, key, from_map } => {
            let entity = screaming(ty);
            match from_map {
                Some((k, v)) => quote!(ResultShape::from_map(&#entity, #key, #k, #v)),
                None if action.paginated => quote!(ResultShape::paginated(&#entity, #key)),
                None => quote!(ResultShape::list(&#entity, #key)),
            }
        }
        Output::Message { text } => quote!(ResultShape::message(#text)),
    };
    let view = match &action.view {
        View::Card {
            heading,
            verb,
            rows,
        } => {
            let rows = view_rows(rows, &action.output, types, Which::Card);
            match (heading, verb) {
                (Some(heading), _) => quote!(View::card_headed(#heading, #rows)),
                (None, Some(verb)) => quote!(View::card_verb(#verb, #rows)),
                (None, None) => quote!(View::card(#rows)),
            }
        }
        View::Table { heading, columns } => {
            let columns = view_rows(columns, &action.output, types, Which::Table);
            quote!(View::table(#heading, #columns))
        }
        View::Message { heading } => quote!(View::message(#heading)),
    };
    let safety = match (
        action.safety.read_only,
        action.safety.destructive,
        action.safety.idempotent,
    ) {
        (_, _, idempotent) if action.safety.consequence.is_some() => {
            let text = action.safety.consequence.as_deref().unwrap_or_default();
            quote!(Safety::new(false, true, #idempotent).consequence(#text))
        }
        (true, false, true) => quote!(Safety::READ_ONLY),
        (false, false, false) => quote!(Safety::WRITE),
        (false, false, true) => quote!(Safety::IDEMPOTENT_WRITE),
        (false, true, true) => quote!(Safety::DESTRUCTIVE),
        (read_only, destructive, idempotent) => {
            quote!(Safety::new(#read_only, #destructive, #idempotent))
        }
    };
    let resource = match &action.resource {
        Some((policy, uri)) => {
            let policy = kind_tokens("ResourcePolicy", policy.variant());
            quote!(Some(ResourceSpec::new(#policy, #uri)))
        }
        None => quote!(None),
    };
    let hints = action.hints.iter().map(|hint| {
        let (target, text) = (&hint.action, &hint.text);
        if hint.conditions.is_empty() {
            return quote!(Hint::new(#target, #text));
        }
        let conditions = hint.conditions.iter().map(|(field, values, negated)| {
            quote!(HintCondition::new(#field, &[#(#values),*], #negated))
        });
        quote!(Hint::new(#target, #text).when(&[#(#conditions),*]))
    });
    let example = serde_json::to_string(&action.example).unwrap_or_default();
    let vocabulary = super::vocabulary::action(&action.vocabulary);
    let mut optional = Vec::new();
    let input_schema = schema::input(action).to_string();
    if action.safety.destructive {
        let confirmed = schema::confirmed_input(action).to_string();
        optional.push(quote!(confirmed_input_schema_json: #confirmed,));
    }
    let output_schema = schema::output(action, types).to_string();
    if !aliases.is_empty() {
        optional.push(quote!(aliases: words![#(#aliases),*],));
    }
    if let Some(handler) = &action.handler {
        optional.push(quote!(handler: Some(#handler),));
    }
    if let Some(graphql) = &action.graphql {
        let (operation, document, result) =
            (&graphql.operation, &graphql.document, &graphql.result);
        let graphql = if graphql.mutation {
            quote!(Graphql::mutation(#operation, #document, #result))
        } else {
            quote!(Graphql::query(#operation, #document, #result))
        };
        optional.push(quote!(graphql: Some(#graphql),));
    }
    if action.resource.is_some() {
        optional.push(quote!(resource: #resource,));
    }
    if let Some(not_found) = &action.not_found {
        optional.push(quote!(not_found: Some(#not_found),));
    }
    if let Some(requires) = requires(&action.requires) {
        optional.push(quote!(requires: #requires,));
    }
    quote! {
        Action {
            id: #id,
            domain: #domain,
            name: #name,
            title: #title,
            description: #description,
            tags: words![#(#tags),*],
            method: #method,
            path: #path,
            params: &[#(#params),*],
            result: #result,
            view: #view,
            safety: #safety,
            hints: &[#(#hints),*],
            example: #example,
            input_schema_json: #input_schema,
            output_schema_json: #output_schema,
            plan: plan::<#module::Params>,
            vocabulary: #vocabulary,
            #(#optional)*
            ..Action::DEFAULTS
        }
    }
}

/// `Requires::ANYONE.tier(Tier::Premium)...`, when the action needs more than anyone has.
fn requires(requires: &super::super::resolve::Requires) -> Option<TokenStream> {
    use super::super::model::Tier;
    let mut tokens = quote!(Requires::ANYONE);
    let mut any = false;
    if requires.tier != Tier::Free {
        let tier = kind_tokens("Tier", requires.tier.variant());
        tokens = quote!(#tokens.tier(#tier));
        any = true;
    }
    if let Some(scope) = requires.scope {
        let scope = kind_tokens("TokenScope", scope.variant());
        tokens = quote!(#tokens.scope(#scope));
        any = true;
    }
    if let Some(role) = requires.role {
        let role = kind_tokens("Role", role.variant());
        tokens = quote!(#tokens.role(#role));
        any = true;
    }
    if requires.admin {
        tokens = quote!(#tokens.admin());
        any = true;
    }
    any.then_some(tokens)
}

/// Which of an entity's views an action's view may reuse.
#[derive(Clone, Copy)]
enum Which {
    Card,
    Table,
}

/// The rows or columns of a view: the entity's own (`MERGE_REQUEST.card`) when the action
/// keeps them, else the action's own list.
fn view_rows(
    rows: &[FieldView],
    output: &Output,
    types: &[EntityType],
    which: Which,
) -> TokenStream {
    let entity = match output {
        Output::Single { ty } | Output::List { ty, .. } => types.iter().find(|t| &t.name == ty),
        Output::Message { .. } => None,
    };
    if let Some(entity) = entity {
        let (own, field) = match which {
            Which::Card => (&entity.card, quote!(card)),
            Which::Table => (&entity.table, quote!(table)),
        };
        if same_views(own, rows) {
            let name = screaming(&entity.name);
            return quote!(#name.#field);
        }
    }
    let rows = rows.iter().map(field_view);
    quote!(&[#(#rows),*])
}

fn same_views(a: &[FieldView], b: &[FieldView]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| field_view(x).to_string() == field_view(y).to_string())
}

/// Parameter specs that several actions declare identically, emitted once as constants
/// (`PROJECT_ID`) in a `params` module; the rest are written in the entry.
pub struct SharedParams {
    /// Each shared spec's tokens and constant name.
    constants: Vec<(String, proc_macro2::Ident, TokenStream)>,
}

impl SharedParams {
    pub fn new(actions: &[&Action]) -> Self {
        let mut counts: Vec<(String, &Param, TokenStream, usize)> = Vec::new();
        for action in actions {
            for param in &action.params {
                let tokens = param_spec(param, Some(&module_path(action)));
                let key = tokens.to_string();
                match counts.iter_mut().find(|(k, ..)| *k == key) {
                    Some((.., count)) => *count += 1,
                    None => counts.push((key, param, tokens, 1)),
                }
            }
        }
        let mut constants: Vec<(String, proc_macro2::Ident, TokenStream)> = Vec::new();
        for (key, param, tokens, count) in counts {
            if count < 2 {
                continue;
            }
            let same_name = constants
                .iter()
                .filter(|(_, _, tokens)| spec_name(tokens) == param.name)
                .count();
            let name = match same_name {
                0 => screaming(&param.name),
                n => screaming(&format!("{}{}", camel_name(&param.name), n + 1)),
            };
            constants.push((key, name, tokens));
        }
        Self { constants }
    }

    /// The `params` module with every shared spec.
    pub fn module(&self) -> TokenStream {
        let constants = self.constants.iter().map(|(_, name, tokens)| {
            quote! { pub const #name: ParamSpec = #tokens; }
        });
        quote! {
            /// Parameters that several actions declare the same way.
            pub mod params {
                use crate::prelude::*;
                #(#constants)*
            }
        }
    }

    /// The spec of one parameter of one action: a shared constant, or written out.
    fn spec(&self, action: &Action, param: &Param) -> TokenStream {
        let tokens = param_spec(param, Some(&module_path(action)));
        let key = tokens.to_string();
        match self.constants.iter().find(|(k, ..)| *k == key) {
            Some((_, name, _)) => quote!(params::#name),
            None => tokens,
        }
    }
}

/// `branch::list`, the module of an action's generated items.
fn module_path(action: &Action) -> TokenStream {
    let (domain, name) = (snake(&action.domain), snake(&action.name));
    quote!(#domain::#name)
}

/// The parameter name a spec's tokens start with.
fn spec_name(tokens: &TokenStream) -> String {
    tokens
        .to_string()
        .split('"')
        .nth(1)
        .unwrap_or_default()
        .to_owned()
}

/// `per_page` → `PerPage`, so that `screaming` gives `PER_PAGE2` for a second variant.
fn camel_name(name: &str) -> String {
    camel(name).to_string()
}

/// A parameter's `ParamSpec`; `module` is the action's module, where an `[object]`
/// parameter's item struct (and its fields' specs) lives.
fn param_spec(param: &Param, module: Option<&TokenStream>) -> TokenStream {
    let (name, description) = (&param.name, &param.description);
    let ty = kind_tokens("ParamType", param.ty.variant());
    let location = kind_tokens("Location", param.location.variant());
    let mut tokens = quote!(ParamSpec::new(#name, #ty, #location).describe(#description));
    if param.required {
        tokens = quote!(#tokens.required());
    }
    if param.secret {
        tokens = quote!(#tokens.secret());
    }
    if let Some(enum_type) = &param.enum_type {
        let enum_type = camel(enum_type);
        tokens = quote!(#tokens.values(#enum_type::VALUES));
    }
    if let Some(default) = &param.default {
        let text = default.to_string();
        tokens = quote!(#tokens.default(#text));
    }
    if let Some(minimum) = param.minimum {
        let minimum = Literal::i64_unsuffixed(minimum);
        tokens = quote!(#tokens.minimum(#minimum));
    }
    if let Some(maximum) = param.maximum {
        let maximum = Literal::i64_unsuffixed(maximum);
        tokens = quote!(#tokens.maximum(#maximum));
    }
    if !param.aliases.is_empty() {
        let aliases = &param.aliases;
        tokens = quote!(#tokens.aliases(&[#(#aliases),*]));
    }
    if param.api_name != param.name {
        let api_name = &param.api_name;
        tokens = quote!(#tokens.api_name(#api_name));
    }
    if param.ty == ParamType::ObjectList {
        let item = item_type(param);
        tokens = quote!(#tokens.items(<#module::#item as ObjectParam>::FIELDS));
    }
    tokens
}

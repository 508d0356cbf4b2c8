//! The Rust enum of each enumerated parameter: one per name and set of values, shared by
//! every action that takes it, and never a name generated code already uses.

use super::super::Diagnostic;
use super::super::load::Manifest;
use super::names::{RESERVED_TYPES, camel_case, variant_name};
use super::{Domain, EntityType, EnumType};

/// Gives every enumerated parameter its Rust type: one enum per name and set of values,
/// shared by every action that takes it. A name with several sets is qualified by the
/// domain (`MergeRequestOrderBy`), or by domain and action where one domain has several.
pub(super) fn assign(
    manifest: &Manifest,
    domains: &mut [Domain],
    types: &[EntityType],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<EnumType> {
    // (base name, values) → users (domain, action, param), in catalog order.
    type Users = Vec<(String, String, String)>;
    let mut sets: Vec<(String, Vec<String>, Users)> = Vec::new();
    for domain in domains.iter() {
        for action in &domain.actions {
            // An object's field is named `<param>.<field>`, its enum `<Param><Field>`.
            let enumerated = action.params.iter().flat_map(|param| {
                std::iter::once((param.name.clone(), param)).chain(
                    param
                        .items
                        .iter()
                        .map(move |field| (format!("{}.{}", param.name, field.name), field)),
                )
            });
            for (qualified, param) in enumerated.filter(|(_, p)| !p.values.is_empty()) {
                let base = camel_case(&qualified.replace('.', "_"));
                let user = (domain.name.clone(), action.name.clone(), qualified);
                match sets
                    .iter_mut()
                    .find(|(b, values, _)| *b == base && *values == param.values)
                {
                    Some((_, _, users)) => users.push(user),
                    None => sets.push((base, param.values.clone(), vec![user])),
                }
            }
        }
    }
    let mut names: Vec<String> = Vec::with_capacity(sets.len());
    for (base, _, users) in &sets {
        let (domain, action, _) = &users[0];
        let same_base: Vec<_> = sets.iter().filter(|(b, ..)| b == base).collect();
        let domains_of_base: Vec<&str> = same_base
            .iter()
            .map(|(_, _, users)| users[0].0.as_str())
            .collect();
        let name = if same_base.len() == 1 {
            base.clone()
        } else if domains_of_base.iter().filter(|d| *d == domain).count() == 1 {
            format!("{}{base}", camel_case(domain))
        } else {
            format!("{}{}{base}", camel_case(domain), camel_case(action))
        };
        names.push(name);
    }
    let file_of = |domain: &str| manifest.file_of(domain);
    let mut enums = Vec::new();
    for (index, ((_, values, users), name)) in sets.into_iter().zip(&names).enumerate() {
        let (domain, action, param) = &users[0];
        let clash = if RESERVED_TYPES.contains(&name.as_str()) {
            Some("a name generated code already uses".to_owned())
        } else if types.iter().any(|t| &t.name == name) {
            Some(format!("the entity type `{name}`"))
        } else if names[..index].contains(name) {
            Some("another enumerated parameter's type".to_owned())
        } else {
            None
        };
        if let Some(clash) = clash {
            diagnostics.push(Diagnostic::action(
                &file_of(domain),
                &format!("{domain}.{action}"),
                &format!("params.{param}"),
                format!(
                    "its values would be the Rust enum `{name}`, which collides with {clash}; rename the parameter (with `api_name` for GitLab's name)"
                ),
            ));
        }
        for (domain_name, action_name, param_name) in &users {
            let Some(param) = domains
                .iter_mut()
                .find(|d| &d.name == domain_name)
                .and_then(|d| d.actions.iter_mut().find(|a| &a.name == action_name))
                .and_then(|a| {
                    let (name, field) = match param_name.split_once('.') {
                        Some((name, field)) => (name, Some(field)),
                        None => (param_name.as_str(), None),
                    };
                    let param = a.params.iter_mut().find(|p| p.name == name)?;
                    match field {
                        Some(field) => param.items.iter_mut().find(|f| f.name == field),
                        None => Some(param),
                    }
                })
            else {
                continue;
            };
            param.enum_type = Some(name.clone());
        }
        enums.push(EnumType {
            name: name.clone(),
            variants: values
                .iter()
                .map(|value| (variant_name(value), value.clone()))
                .collect(),
            users: users
                .iter()
                .map(|(d, a, p)| format!("{d}.{a}.{p}"))
                .collect(),
        });
    }
    enums
}

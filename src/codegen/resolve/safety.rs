//! Safety and what an action requires: a GET (or GraphQL query) reads only, a DELETE is
//! destructive, nothing is both read-only and destructive, and a token scope fits the
//! safety (a `read_api` token cannot write).

use super::super::kinds::{Method, Requires, Tier, TokenScope};
use super::super::model::ActionDef;
use super::Scope;

/// The safety flags against the method the action behaves as.
pub(super) fn check(scope: &mut Scope<'_>, def: &ActionDef) {
    if def.safety.read_only && def.safety.destructive {
        scope.error(
            "safety",
            "an action cannot be both read_only and destructive",
        );
    }
    let method = def.method();
    if method == Method::Get && !def.safety.read_only {
        scope.error(
            "safety.read_only",
            if def.graphql.is_some() {
                "a GraphQL query is read-only"
            } else {
                "a GET action is read-only"
            },
        );
    }
    if method != Method::Get && def.safety.read_only && def.handler.is_none() {
        scope.error(
            "safety.read_only",
            if def.graphql.is_some() {
                "a GraphQL mutation changes something; it is not read-only"
            } else {
                "only GET actions (or handlers that only read) are read-only"
            },
        );
    }
    if def.safety.consequence.is_some() && !def.safety.destructive {
        scope.error(
            "safety.consequence",
            "only a destructive action asks for confirmation of its consequence",
        );
    }
    if method == Method::Delete && !def.safety.destructive {
        scope.error("safety.destructive", "a DELETE action is destructive");
    }
}

/// `requires:` with its defaults filled in, its scope checked against the safety.
pub(super) fn requires(scope: &mut Scope<'_>, def: &ActionDef) -> Requires {
    let requires = def
        .requires
        .as_ref()
        .map_or(Requires::ANYONE, |requires| Requires {
            tier: requires.tier.unwrap_or(Tier::Free),
            scope: requires.scope,
            role: requires.role,
            admin: requires.admin,
        });
    if requires.scope == Some(TokenScope::ReadApi) && !def.safety.read_only {
        scope.error(
            "requires.scope",
            "a `read_api` token cannot change anything; a write needs `api`",
        );
    }
    if requires.scope == Some(TokenScope::Api) && def.safety.read_only {
        scope.error(
            "requires.scope",
            "`api` is already implied for writes only; a read needs `read_api` (leave it out)",
        );
    }
    requires
}

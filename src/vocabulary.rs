//! How the one asking names things: the words an answer uses for confirming a destructive
//! call, setting a parameter, and searching the catalog.
//!
//! The dispatcher serves MCP clients and the command line alike; its repair sentences and
//! next steps must name what the asker can actually type (`confirm: true` or `--confirm`,
//! `gitlab_find_action` or `gitlab-mcp find`). The caller that builds the dispatcher says
//! which front end it is; nothing rewrites a sentence afterwards.

/// The words of one front end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vocabulary {
    /// What to do to run a destructive action that was refused for want of confirmation.
    pub confirm: &'static str,
    /// The same for an action whose YAML spells out its consequence (`Safety::consequence`:
    /// deleting or banning a user, revoking a token), after it: the strongest wording.
    pub confirm_strong: &'static str,
    /// How to search the catalog for an action id, as the end of a sentence.
    pub search: &'static str,
    /// How one parameter is written.
    pub param: ParamStyle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamStyle {
    /// `page: 2`, a JSON member.
    Json,
    /// `page=2`, a command-line pair.
    Pair,
}

/// An MCP client's strongest confirmation: a general go-ahead given earlier is not one.
const STRONG_MCP: &str = "Tell the user exactly that, and call again with `confirm: true` only after they approve this action on this target explicitly; an earlier general go-ahead is not enough.";

impl Vocabulary {
    /// An MCP client on the dynamic surface, which has a search tool.
    pub const MCP_DYNAMIC: Self = Self {
        confirm: "Ask the user to approve it, then call again with `confirm: true`.",
        confirm_strong: STRONG_MCP,
        search: "search with `gitlab_find_action`",
        param: ParamStyle::Json,
    };

    /// An MCP client on a surface without a search tool (meta, individual).
    pub const MCP_LISTED: Self = Self {
        confirm: "Ask the user to approve it, then call again with `confirm: true`.",
        confirm_strong: STRONG_MCP,
        search: "read resource `gitlab://tools` for every action id",
        param: ParamStyle::Json,
    };

    /// `gitlab-mcp call ...` in a terminal.
    pub const CLI: Self = Self {
        confirm: "If you mean it, run the same command again with `--confirm`.",
        confirm_strong: "Only if you are sure, and have checked that it is the right one, run the same command again with `--confirm`.",
        search: "search with `gitlab-mcp find \"<what you want to do>\"`",
        param: ParamStyle::Pair,
    };

    /// One parameter as the asker writes it: `` `page: 2` `` or `` `page=2` ``.
    pub fn param(&self, name: &str, value: impl std::fmt::Display) -> String {
        match self.param {
            ParamStyle::Json => format!("`{name}: {value}`"),
            ParamStyle::Pair => format!("`{name}={value}`"),
        }
    }
}

impl Default for Vocabulary {
    fn default() -> Self {
        Self::MCP_DYNAMIC
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_front_end_names_its_own_syntax() {
        assert_eq!(Vocabulary::MCP_DYNAMIC.param("page", 2), "`page: 2`");
        assert_eq!(Vocabulary::CLI.param("page", 2), "`page=2`");
        assert!(Vocabulary::CLI.confirm.contains("--confirm"));
        assert!(Vocabulary::CLI.search.contains("gitlab-mcp find"));
        assert!(!Vocabulary::MCP_LISTED.search.contains("gitlab_find_action"));
    }
}

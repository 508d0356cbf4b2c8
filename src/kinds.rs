//! The manifest's closed sets of names, defined once for build time and run time.
//!
//! `build.rs` reads these names from `actions/*.yaml` (`src/codegen/` compiles this file
//! with `#[path]`) and the catalog entries it generates carry the same values at run
//! time, so a new field kind or parameter type is added here once, and the compiler then
//! points at every `match` that must learn it, on either side. Each set is a plain enum
//! with its names as the YAML spells them (`ALL`, `name`, `parse`); behaviour belongs to
//! the side that needs it (`impl` blocks in `src/codegen/` and `src/catalog/`). `Requires`
//! is made of them and shared alike. This file names nothing else in the crate.

/// The key of the note a result carries beside a secret GitLab shows once (a field marked
/// `secret: shown_once`), in the structure and the output schema alike.
pub const SHOWN_ONCE_KEY: &str = "shown_once";

/// An enum of unit variants, each with the name the manifest spells it with.
macro_rules! named {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident = $text:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $($(#[$variant_meta])* $variant,)+
        }

        impl $name {
            /// Every value with its manifest name, in declaration order.
            pub const ALL: &[(Self, &str)] = &[$((Self::$variant, $text),)+];

            /// The name the manifest spells it with.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }

            /// The Rust variant's name (generated code writes `CellKind::Code`).
            pub const fn variant(self) -> &'static str {
                match self {
                    $(Self::$variant => stringify!($variant),)+
                }
            }

            /// The value the manifest name `text` spells, if any.
            pub fn parse(text: &str) -> Option<Self> {
                Self::ALL
                    .iter()
                    .find(|(_, name)| *name == text)
                    .map(|(value, _)| *value)
            }
        }
    };
}

named! {
    /// How a card row or table column shows a value (`kind:`). `actions/README.md` lists
    /// what each one does.
    pub enum CellKind {
        Text = "text",
        Code = "code",
        Integer = "integer",
        Number = "number",
        Bool = "bool",
        Date = "date",
        User = "user",
        Users = "users",
        Labels = "labels",
        List = "list",
        Url = "url",
        Reference = "reference",
        Status = "status",
        Size = "size",
        Duration = "duration",
        Percent = "percent",
        Sha = "sha",
        Transition = "transition",
        /// Card sections, not cells.
        Body = "body",
        CodeBlock = "code_block",
        Table = "table",
    }
}

named! {
    /// A parameter's type (`type:`).
    pub enum ParamType {
        String = "string",
        Integer = "integer",
        Number = "number",
        Boolean = "boolean",
        /// A numeric id or a full path such as `group/sub/project`.
        PathOrId = "path_or_id",
        StringList = "[string]",
        IntegerList = "[integer]",
        /// A list of objects whose fields are the parameter's `items`.
        ObjectList = "[object]",
        /// An object of string values by key (`{"VERSION": "2"}`).
        StringMap = "{string}",
    }
}

named! {
    /// Where a parameter is sent (`in:`).
    pub enum Location {
        Path = "path",
        Query = "query",
        Body = "body",
        /// Read by the action's handler only, never sent to GitLab.
        Local = "local",
    }
}

named! {
    /// A REST action's HTTP method (`method:`).
    pub enum Method {
        Get = "GET",
        Post = "POST",
        Put = "PUT",
        Patch = "PATCH",
        Delete = "DELETE",
    }
}

named! {
    /// Whether a single-entity result is also a `gitlab://` resource (`resource.policy`).
    pub enum ResourcePolicy {
        None = "none",
        Optional = "optional",
        Always = "always",
    }
}

named! {
    /// GitLab's tiers, lowest first (`requires.tier`).
    pub enum Tier {
        Free = "free",
        Premium = "premium",
        Ultimate = "ultimate",
    }
}

named! {
    /// A token's API scope: `read_api` reads, `api` reads and writes (`requires.scope`).
    pub enum TokenScope {
        ReadApi = "read_api",
        Api = "api",
    }
}

named! {
    /// Project and group roles, lowest first (`requires.role`).
    pub enum Role {
        Guest = "guest",
        Planner = "planner",
        Reporter = "reporter",
        Developer = "developer",
        Maintainer = "maintainer",
        Owner = "owner",
    }
}

/// What an instance and a token need to run an action. Instance fitting hides what the
/// edition or the token cannot run; the role is GitLab's to check and is shown in docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Requires {
    pub tier: Tier,
    /// `None`: `read_api` for a read, `api` for a write.
    pub scope: Option<TokenScope>,
    pub role: Option<Role>,
    pub admin: bool,
}

impl Requires {
    /// Any edition, the scope the safety implies, any role.
    pub const ANYONE: Self = Self {
        tier: Tier::Free,
        scope: None,
        role: None,
        admin: false,
    };

    pub const fn tier(mut self, tier: Tier) -> Self {
        self.tier = tier;
        self
    }

    pub const fn scope(mut self, scope: TokenScope) -> Self {
        self.scope = Some(scope);
        self
    }

    pub const fn role(mut self, role: Role) -> Self {
        self.role = Some(role);
        self
    }

    pub const fn admin(mut self) -> Self {
        self.admin = true;
        self
    }
}

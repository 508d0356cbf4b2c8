//! Everything generated code may use, and nothing more.
//!
//! The generated catalog (`catalog::generated`) imports only this module, so the surface
//! between generated and hand-written code is visible in one place. Adding a name here is
//! an API decision: generated code will come to depend on it, and the generator must
//! reserve it (`RESERVED_TYPES` in `src/codegen/resolve/names.rs`; a test keeps the two in step).

pub use crate::catalog::generated::enums::*;
pub use crate::catalog::generated::types::*;
pub use runtime::*;

/// The runtime's part: what any generated catalog uses, whatever its own types. The
/// generator's fixture (`tests/codegen/golden.rs`) is compiled against this alone.
pub mod runtime {
    pub use crate::catalog::{
        Action, ActionParams, ActionVocabulary, ArgReader, CellKind, DomainInfo, DomainVocabulary,
        Entity, FenceLanguage, Field, FieldType, FieldView, Graphql, Hint, HintCondition,
        JsonObject, Location, ObjectParam, ParamEnum, ParamSpec, ParamType, Reference, Requires,
        ResourcePolicy, ResourceSpec, ResultShape, Role, Safety, Tier, TokenScope, View,
        Vocabulary, WordList, plan,
    };
    pub use crate::gitlab::{Method, PathOrId, Request, StringMap, put};
    pub use crate::output::Done;
    pub use crate::{object_param, param_enum, words};
}

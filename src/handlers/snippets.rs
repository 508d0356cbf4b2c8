//! Reading a snippet's raw content under the byte budget repository files are read with.

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::snippet::{file_raw, project_file_raw, project_raw, raw};

use super::files::raw_head;

/// A handler reading a snippet's content under the byte budget: `snippet.raw` and
/// `snippet.project_raw` differ only in their path.
macro_rules! raw_reader {
    ($(#[$doc:meta])* $name:ident, $action:ident) => {
        $(#[$doc])*
        pub async fn $name(
            context: &Context,
            params: &$action::Params,
        ) -> Result<$action::Output, ActionError> {
            let head = raw_head(context, params.request(), params.max_bytes).await?;
            Ok($action::Output {
                snippet_id: params.snippet_id,
                size: head.size,
                shown_bytes: head.shown,
                truncated: head.truncated(),
                binary: head.binary,
                content: head.content,
            })
        }
    };
}

raw_reader!(
    /// `snippet.raw`: the first `max_bytes` bytes, or the size of binary content.
    snippet_raw,
    raw
);
raw_reader!(
    /// `snippet.project_raw`: the same over a project snippet.
    project_snippet_raw,
    project_raw
);
raw_reader!(
    /// `snippet.file_raw`: the same over one file of a snippet, at a revision.
    snippet_file_raw,
    file_raw
);
raw_reader!(
    /// `snippet.project_file_raw`: the same over one file of a project snippet.
    project_snippet_file_raw,
    project_file_raw
);

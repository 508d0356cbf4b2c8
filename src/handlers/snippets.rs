//! Reading a snippet's raw content under the byte budget repository files are read with.

use crate::catalog::generated::snippet::{file_raw, project_file_raw, project_raw, raw};

use super::files::raw_reader;

raw_reader!(
    /// `snippet.raw`: the first `max_bytes` bytes, or the size of binary content.
    snippet_raw,
    raw,
    snippet_id
);
raw_reader!(
    /// `snippet.project_raw`: the same over a project snippet.
    project_snippet_raw,
    project_raw,
    snippet_id
);
raw_reader!(
    /// `snippet.file_raw`: the same over one file of a snippet, at a revision.
    snippet_file_raw,
    file_raw,
    snippet_id
);
raw_reader!(
    /// `snippet.project_file_raw`: the same over one file of a project snippet.
    project_snippet_file_raw,
    project_file_raw,
    snippet_id
);

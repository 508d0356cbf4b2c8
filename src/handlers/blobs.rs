//! Reading a Git blob's raw content under the byte budget repository files are read with.

use crate::catalog::generated::repository::blob_raw as action;

use super::files::raw_reader;

raw_reader!(
    /// `repository.blob_raw`: the first `max_bytes` bytes, or the size of binary content.
    blob_raw,
    action,
    sha.clone()
);

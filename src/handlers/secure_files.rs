//! Reading a secure file's content under the byte budget repository files are read with:
//! a keystore or profile is reported by size, a text file (`.env`, `.properties`) shown
//! up to `max_bytes`, never the whole body.

use crate::catalog::generated::secure_file::download;

use super::files::raw_reader;

raw_reader!(
    /// `secure_file.download`: the first `max_bytes` bytes, or the size of binary content.
    secure_file_download,
    download,
    secure_file_id
);

//! Reading a secure file's content under the byte budget repository files are read with:
//! a keystore or profile is reported by size, a text file (`.env`, `.properties`) shown
//! up to `max_bytes`, never the whole body.

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::secure_file::download;

use super::files::raw_head;

/// `secure_file.download`: the first `max_bytes` bytes, or the size of binary content.
pub async fn secure_file_download(
    context: &Context,
    params: &download::Params,
) -> Result<download::Output, ActionError> {
    let head = raw_head(context, params.request(), params.max_bytes).await?;
    Ok(download::Output {
        secure_file_id: params.secure_file_id,
        size: head.size,
        shown_bytes: head.shown,
        truncated: head.truncated(),
        binary: head.binary,
        content: head.content,
    })
}

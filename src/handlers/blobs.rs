//! Reading a Git blob's raw content under the byte budget repository files are read with.

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::repository::blob_raw as action;

use super::files::raw_head;

/// `repository.blob_raw`: the first `max_bytes` bytes, or the size of binary content.
pub async fn blob_raw(
    context: &Context,
    params: &action::Params,
) -> Result<action::Output, ActionError> {
    let head = raw_head(context, params.request(), params.max_bytes).await?;
    Ok(action::Output {
        sha: params.sha.clone(),
        size: head.size,
        shown_bytes: head.shown,
        truncated: head.truncated(),
        binary: head.binary,
        content: head.content,
    })
}

//! Reading a snippet's raw content under the byte budget repository files are read with.

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::snippet::raw;

use super::files::raw_head;

/// `snippet.raw`: the first `max_bytes` bytes, or the size of binary content.
pub async fn snippet_raw(
    context: &Context,
    params: &raw::Params,
) -> Result<raw::Output, ActionError> {
    let head = raw_head(context, params.request(), params.max_bytes).await?;
    Ok(raw::Output {
        snippet_id: params.snippet_id,
        size: head.size,
        shown_bytes: head.shown,
        truncated: head.truncated(),
        binary: head.binary,
        content: head.content,
    })
}

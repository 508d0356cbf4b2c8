//! Downloads read under the byte budget repository files are read with (`raw_head`): a
//! package file (a manifest or metadata file shown, an archive or binary reported by
//! size), a vulnerability export's CSV and an attestation's Sigstore bundle, never the
//! whole body.

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::attestation::download as attestation_bundle;
use crate::catalog::generated::package::file_download;
use crate::catalog::generated::security::export_download;

use super::files::raw_head;

/// `package.file_download`: the first `max_bytes` bytes, or the size of binary content.
pub async fn package_file_download(
    context: &Context,
    params: &file_download::Params,
) -> Result<file_download::Output, ActionError> {
    let head = raw_head(context, params.request(), params.max_bytes).await?;
    Ok(file_download::Output {
        package_file_id: params.package_file_id,
        size: head.size,
        shown_bytes: head.shown,
        truncated: head.truncated(),
        binary: head.binary,
        content: head.content,
    })
}

/// `security.export_download`: the first `max_bytes` bytes of the export's CSV.
pub async fn vulnerability_export_download(
    context: &Context,
    params: &export_download::Params,
) -> Result<export_download::Output, ActionError> {
    let head = raw_head(context, params.request(), params.max_bytes).await?;
    Ok(export_download::Output {
        export_id: params.export_id,
        size: head.size,
        shown_bytes: head.shown,
        truncated: head.truncated(),
        binary: head.binary,
        content: head.content,
    })
}

/// `attestation.download`: the first `max_bytes` bytes of the Sigstore bundle.
pub async fn attestation_download(
    context: &Context,
    params: &attestation_bundle::Params,
) -> Result<attestation_bundle::Output, ActionError> {
    let head = raw_head(context, params.request(), params.max_bytes).await?;
    Ok(attestation_bundle::Output {
        attestation_iid: params.attestation_iid,
        size: head.size,
        shown_bytes: head.shown,
        truncated: head.truncated(),
        binary: head.binary,
        content: head.content,
    })
}

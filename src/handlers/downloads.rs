//! Downloads read under the byte budget repository files are read with (`raw_head`): a
//! package file (a manifest or metadata file shown, an archive or binary reported by
//! size), a vulnerability export's CSV and an attestation's Sigstore bundle, never the
//! whole body.

use crate::catalog::generated::attestation::download as attestation_bundle;
use crate::catalog::generated::package::file_download;
use crate::catalog::generated::security::export_download;

use super::files::raw_reader;

raw_reader!(
    /// `package.file_download`: the first `max_bytes` bytes, or the size of binary content.
    package_file_download,
    file_download,
    package_file_id
);
raw_reader!(
    /// `security.export_download`: the first `max_bytes` bytes of the export's CSV.
    vulnerability_export_download,
    export_download,
    export_id
);
raw_reader!(
    /// `attestation.download`: the first `max_bytes` bytes of the Sigstore bundle.
    attestation_download,
    attestation_bundle,
    attestation_iid
);

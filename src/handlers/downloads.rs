//! Downloads read under the byte budget repository files are read with (`raw_head`): a
//! package file (a manifest or metadata file shown, an archive or binary reported by
//! size), a vulnerability export's CSV, an attestation's Sigstore bundle, a project's or
//! group's export archive or exported relation, a group's placeholder CSV, a repository
//! archive or snapshot and a project's or group's avatar (binary: its size), never the
//! whole body.

use crate::catalog::generated::attestation::download as attestation_bundle;
use crate::catalog::generated::group::avatar_download as group_avatar;
use crate::catalog::generated::import::{
    group_export_download as group_export, group_relations_export_download as group_relations,
    placeholder_list, project_export_download as project_export,
    project_relations_export_download as project_relations,
};
use crate::catalog::generated::package::file_download;
use crate::catalog::generated::project::{
    avatar_download as project_avatar, snapshot as project_snapshot,
};
use crate::catalog::generated::repository::archive;
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
raw_reader!(
    /// `import.project_export_download`: the archive's size (it is binary), never its bytes.
    project_export_download,
    project_export,
    project_id.to_string()
);
raw_reader!(
    /// `import.group_export_download`: the same over a group's export archive.
    group_export_download,
    group_export,
    group_id.to_string()
);
raw_reader!(
    /// `import.project_relations_export_download`: one exported relation's gzipped NDJSON.
    project_relations_export_download,
    project_relations,
    project_id.to_string()
);
raw_reader!(
    /// `import.group_relations_export_download`: the same over a group's relation.
    group_relations_export_download,
    group_relations,
    group_id.to_string()
);
raw_reader!(
    /// `import.placeholder_list`: the first `max_bytes` bytes of the reassignments CSV.
    placeholder_csv,
    placeholder_list,
    group_id.to_string()
);
raw_reader!(
    /// `repository.archive`: the archive's size; its bytes are binary and never kept past
    /// `max_bytes`.
    repository_archive,
    archive,
    project_id.to_string()
);
raw_reader!(
    /// `project.avatar_download`: the avatar's size, or its head when it is text (an SVG).
    project_avatar_download,
    project_avatar,
    project_id.to_string()
);
raw_reader!(
    /// `group.avatar_download`: the same over a group's avatar.
    group_avatar_download,
    group_avatar,
    group_id.to_string()
);
raw_reader!(
    /// `project.snapshot`: the tar's size, never more than `max_bytes` of it read.
    project_snapshot_download,
    project_snapshot,
    project_id.to_string()
);

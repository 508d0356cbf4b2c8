//! Reading an uploaded file's content under the byte budget repository files are read
//! with: a screenshot is reported by size, a log shown up to `max_bytes`, never the whole
//! body (GitLab allows uploads of 100 MiB).

use crate::catalog::generated::upload::{
    group_download, group_download_by_secret, project_download, project_download_by_secret,
};

use super::files::raw_reader;

raw_reader!(
    /// `upload.project_download`: the first `max_bytes` bytes, or the size of binary content.
    upload_download,
    project_download,
    upload_id
);
raw_reader!(
    /// `upload.group_download`: the same over a group's upload.
    group_upload_download,
    group_download,
    upload_id
);
raw_reader!(
    /// `upload.project_download_by_secret`: the same, found by the link's secret and name.
    upload_download_by_secret,
    project_download_by_secret,
    filename.clone()
);
raw_reader!(
    /// `upload.group_download_by_secret`: the same over a group's upload.
    group_upload_download_by_secret,
    group_download_by_secret,
    filename.clone()
);

//! Reading an uploaded file's content under the byte budget repository files are read
//! with: a screenshot is reported by size, a log shown up to `max_bytes`, never the whole
//! body (GitLab allows uploads of 100 MiB).

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::upload::{
    group_download, group_download_by_secret, project_download, project_download_by_secret,
};

use super::files::raw_head;

/// A handler reading an upload found by its id: the project's and the group's differ only
/// in their path.
macro_rules! by_id {
    ($(#[$doc:meta])* $name:ident, $action:ident) => {
        $(#[$doc])*
        pub async fn $name(
            context: &Context,
            params: &$action::Params,
        ) -> Result<$action::Output, ActionError> {
            let head = raw_head(context, params.request(), params.max_bytes).await?;
            Ok($action::Output {
                upload_id: params.upload_id,
                size: head.size,
                shown_bytes: head.shown,
                truncated: head.truncated(),
                binary: head.binary,
                content: head.content,
            })
        }
    };
}

/// A handler reading an upload found by its link's secret and file name.
macro_rules! by_secret {
    ($(#[$doc:meta])* $name:ident, $action:ident) => {
        $(#[$doc])*
        pub async fn $name(
            context: &Context,
            params: &$action::Params,
        ) -> Result<$action::Output, ActionError> {
            let head = raw_head(context, params.request(), params.max_bytes).await?;
            Ok($action::Output {
                filename: params.filename.clone(),
                size: head.size,
                shown_bytes: head.shown,
                truncated: head.truncated(),
                binary: head.binary,
                content: head.content,
            })
        }
    };
}

by_id!(
    /// `upload.project_download`: the first `max_bytes` bytes, or the size of binary content.
    upload_download,
    project_download
);
by_id!(
    /// `upload.group_download`: the same over a group's upload.
    group_upload_download,
    group_download
);
by_secret!(
    /// `upload.project_download_by_secret`: the same, found by the link's secret and name.
    upload_download_by_secret,
    project_download_by_secret
);
by_secret!(
    /// `upload.group_download_by_secret`: the same over a group's upload.
    group_upload_download_by_secret,
    group_download_by_secret
);

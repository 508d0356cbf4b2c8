//! File writes that carry `last_commit_id`: when GitLab refuses one because the file
//! changed since it was read, the result says which file, the commit it was read at, the
//! commit it is at now, and how to redo the change, instead of GitLab's bare sentence.

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::repository::{commit_create, file_update};
use crate::gitlab::{GitlabError, Method, PathOrId, Request};

/// `repository.file_update`: the update, or a clear conflict.
pub async fn file_update(
    context: &Context,
    params: &file_update::Params,
) -> Result<file_update::Output, ActionError> {
    match context.send(params.request()).await {
        Ok(response) => Ok(response.json()?),
        Err(error) => Err(conflict(
            context,
            error,
            &params.project_id,
            &params.branch_name,
            |_| Some((params.file_path.clone(), params.last_commit_id.clone())),
        )
        .await),
    }
}

/// `repository.commit_create`: the commit, or a clear conflict naming the file.
pub async fn commit_create(
    context: &Context,
    params: &commit_create::Params,
) -> Result<commit_create::Output, ActionError> {
    match context.send(params.request()).await {
        Ok(response) => Ok(response.json()?),
        Err(error) => Err(conflict(
            context,
            error,
            &params.project_id,
            &params.branch_name,
            |detail| {
                // GitLab names the file after the colon; else the first action that
                // carried a `last_commit_id`.
                let named = detail.rsplit_once(": ").map(|(_, path)| path.trim());
                params
                    .actions
                    .iter()
                    .filter(|a| a.last_commit_id.is_some())
                    .find(|a| named.is_none_or(|path| path == a.file_path))
                    .map(|a| (a.file_path.clone(), a.last_commit_id.clone()))
            },
        )
        .await),
    }
}

/// GitLab's refusal of a stale `last_commit_id`, explained with the file's current last
/// commit on the branch; any other failure is passed on as it is.
async fn conflict(
    context: &Context,
    error: GitlabError,
    project: &PathOrId,
    branch: &str,
    file: impl FnOnce(&str) -> Option<(String, Option<String>)>,
) -> ActionError {
    let stale = error.status == Some(400)
        && error
            .detail
            .contains("changed since you started editing it");
    let Some((path, given)) = stale.then(|| file(&error.detail)).flatten() else {
        return error.into();
    };
    #[derive(serde::Deserialize)]
    struct File {
        last_commit_id: Option<String>,
    }
    let request = Request::new(Method::Get)
        .segment("projects")
        .param(project)
        .segment("repository")
        .segment("files")
        .param(&path)
        .set_query("ref", branch);
    let now = match context.send(request).await.and_then(|r| r.json::<File>()) {
        Ok(File {
            last_commit_id: Some(id),
        }) => format!("its last commit there is now `{}`", short(&id)),
        _ => "it has been changed or removed since".to_owned(),
    };
    let read = given
        .map(|id| format!(" at `{}`", short(&id)))
        .unwrap_or_default();
    ActionError::InvalidParams(format!(
        "`{path}` changed on `{branch}` since you read it{read}: {now}. Nothing was committed. \
         Read it again with `repository.file_get`, apply your change to the new content, and \
         retry with its new `last_commit_id`."
    ))
}

fn short(sha: &str) -> &str {
    sha.get(..8).unwrap_or(sha)
}

//! A runner is created by `POST /user/runners`, which names its project or group by
//! numeric id only; a full path is looked up first, as people name projects by path.
//! GitLab answers with the runner's id and token alone, so the result completes them
//! with what the call asked for (its type and description). The token is a secret shown
//! once: its field's mark (`secret: shown_once`) has the dispatcher note it and mask it
//! in logs, as for any action.

use serde_json::Value;

use crate::call::{ActionError, Context};
use crate::catalog::generated::runner::create as runner_create;
use crate::catalog::{ActionParams, ParamEnum};
use crate::gitlab::{Method, PathOrId, Request};

/// `runner.create`: the project or group path looked up to its numeric id.
pub async fn runner_by_owner_id(
    context: &Context,
    params: &runner_create::Params,
) -> Result<runner_create::Output, ActionError> {
    #[derive(serde::Deserialize)]
    struct Created {
        id: i64,
        token: Option<String>,
        token_expires_at: Option<String>,
    }
    let mut request = params.request();
    if let Some(PathOrId::Path(path)) = &params.project_id {
        request = request.body("project_id", &numeric_id(context, "projects", path).await?);
    }
    if let Some(PathOrId::Path(path)) = &params.group_id {
        request = request.body("group_id", &numeric_id(context, "groups", path).await?);
    }
    let created: Created = context.send(request).await?.json()?;
    Ok(runner_create::Output {
        id: created.id,
        token: created.token,
        token_expires_at: created.token_expires_at,
        runner_type: Some(params.runner_type.as_str().to_owned()),
        description: params.description.clone(),
    })
}

/// The numeric id of the project or group at `path` (`collection` is `projects` or `groups`).
async fn numeric_id(
    context: &Context,
    collection: &'static str,
    path: &str,
) -> Result<i64, ActionError> {
    let template = match collection {
        "groups" => "/groups/{group_id}",
        _ => "/projects/{project_id}",
    };
    let request = Request::new(Method::Get).at(template, &[&path]);
    let found: Value = context.send(request).await?.value()?;
    found
        .get("id")
        .and_then(Value::as_i64)
        .ok_or_else(|| ActionError::InvalidParams(format!("GitLab gave no id for `{path}`.")))
}

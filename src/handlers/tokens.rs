//! A token GitLab creates is a secret it shows once. The result carries it, marked as
//! shown once; from that moment the log writer masks it like the server's own token, so a
//! debug log of this call or any later one never holds it.
//!
//! A runner is created by `POST /user/runners`, which names its project or group by
//! numeric id only; a full path is looked up first, as people name projects by path.

use serde_json::Value;

use crate::call::{ActionError, Context};
use crate::catalog::generated::access_token::project_create;
use crate::catalog::generated::deploy_key::token_create as deploy_token_create;
use crate::catalog::generated::runner::create as runner_create;
use crate::catalog::{ActionParams, ParamEnum};
use crate::gitlab::{Method, PathOrId, Request};

/// What the result says next to the value.
const SHOWN_ONCE: &str =
    "Store this token now: GitLab shows it only in this answer and never again.";

/// Masks a token GitLab just created in every later log line, like the server's own.
fn mask_from_now_on(token: Option<&str>) {
    if let Some(token) = token.filter(|t| !t.is_empty()) {
        crate::redact::register_for_logs([token]);
    }
}

/// `access_token.project_create`: the new token, its value registered as a log secret.
pub async fn token_created(
    context: &Context,
    params: &project_create::Params,
) -> Result<project_create::Output, ActionError> {
    #[derive(serde::Deserialize)]
    struct Created {
        id: i64,
        name: String,
        scopes: Option<Vec<String>>,
        access_level: Option<i64>,
        expires_at: Option<String>,
        created_at: Option<String>,
        user_id: Option<i64>,
        token: Option<String>,
    }
    let created: Created = context.send(params.request()).await?.json()?;
    mask_from_now_on(created.token.as_deref());
    Ok(project_create::Output {
        id: created.id,
        name: created.name,
        scopes: created.scopes.unwrap_or_default(),
        access_level: created.access_level,
        expires_at: created.expires_at,
        created_at: created.created_at,
        user_id: created.user_id,
        token: created.token,
        shown_once: SHOWN_ONCE.to_owned(),
    })
}

/// `deploy_key.token_create`: the new deploy token, its value registered as a log secret
/// and marked as shown once.
pub async fn deploy_token_created(
    context: &Context,
    params: &deploy_token_create::Params,
) -> Result<deploy_token_create::Output, ActionError> {
    #[derive(serde::Deserialize)]
    struct Created {
        id: i64,
        name: String,
        username: Option<String>,
        scopes: Option<Vec<String>>,
        expires_at: Option<String>,
        token: Option<String>,
    }
    let created: Created = context.send(params.request()).await?.json()?;
    mask_from_now_on(created.token.as_deref());
    Ok(deploy_token_create::Output {
        id: created.id,
        name: created.name,
        username: created.username,
        scopes: created.scopes.unwrap_or_default(),
        expires_at: created.expires_at,
        token: created.token,
        shown_once: SHOWN_ONCE.to_owned(),
    })
}

/// `runner.create`: the new runner and its authentication token, registered as a log
/// secret and marked as shown once.
pub async fn runner_created(
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
    mask_from_now_on(created.token.as_deref());
    Ok(runner_create::Output {
        id: created.id,
        token: created.token,
        token_expires_at: created.token_expires_at,
        shown_once: SHOWN_ONCE.to_owned(),
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

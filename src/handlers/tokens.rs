//! A token GitLab creates is a secret it shows once. The result carries it, marked as
//! shown once; from that moment the log writer masks it like the server's own token, so a
//! debug log of this call or any later one never holds it.

use crate::catalog::ActionParams;
use crate::catalog::generated::access_token::project_create;
use crate::dispatch::{ActionError, Context};

/// What the result says next to the value.
const SHOWN_ONCE: &str =
    "Store this token now: GitLab shows it only in this answer and never again.";

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
    if let Some(token) = created.token.as_deref().filter(|t| !t.is_empty()) {
        crate::redact::register_for_logs([token]);
    }
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

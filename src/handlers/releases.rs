//! A group's releases come from many projects, and GitLab names a release's project only
//! inside its `_links.self` URL (`https://host/group/project/-/releases/v1.0`). This
//! handler reads the project's path from there, so every release in the list says which
//! project it belongs to, and keeps the URL as the release's link. A release asset read
//! through its permanent path keeps the path's slashes and the byte budget of `file_raw`.

use serde_json::Value;

use crate::call::{ActionError, Context, decode};
use crate::catalog::generated::release::asset_download;
use crate::catalog::{Action, Plan};
use crate::gitlab::{Method, Request};

use super::artifacts::with_path;
use super::files::raw_head;

/// `release.group_list`: the decoded list, each release with `project` and `web_url`.
pub async fn releases_with_project(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let response = context.send(plan.request.clone()).await?;
    let urls: Vec<Option<String>> = response
        .list()?
        .iter()
        .map(|release| {
            release
                .pointer("/_links/self")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect();
    let mut result = decode(action, &plan.args, &response)?;
    let base = context.gitlab().base_url().to_owned();
    if let Some(Value::Array(releases)) = result.get_mut("releases") {
        for (release, url) in releases.iter_mut().zip(urls) {
            let (Some(object), Some(url)) = (release.as_object_mut(), url) else {
                continue;
            };
            if let Some(project) = project_of(&url, &base) {
                object.insert("project".into(), Value::String(project));
            }
            object.insert("web_url".into(), Value::String(url));
        }
    }
    Ok(result)
}

/// The project's full path in a release URL, below the instance's base URL (which may
/// have a path of its own, `https://host/gitlab`); `None` for a URL of another shape.
fn project_of(url: &str, base: &str) -> Option<String> {
    let base = base.trim_end_matches('/');
    let rest = url.strip_prefix(base).or_else(|| {
        // Another spelling of the host (http, a port): keep the URL's path.
        let after_scheme = url.split_once("://")?.1;
        after_scheme.find('/').map(|slash| &after_scheme[slash..])
    })?;
    let (project, _) = rest.trim_start_matches('/').split_once("/-/releases/")?;
    (!project.is_empty()).then(|| project.to_owned())
}

/// `release.asset_download`: the first `max_bytes` bytes of an asset read through the
/// release's permanent path (GitLab's `*direct_asset_path`, slashes kept), or its size when
/// binary. GitLab answers with a redirect to the link's URL, which the client follows on
/// this GitLab's origin only.
pub async fn release_asset_download(
    context: &Context,
    params: &asset_download::Params,
) -> Result<asset_download::Output, ActionError> {
    let request = Request::new(Method::Get).at(
        "/projects/{project_id}/releases/{tag_name}/downloads",
        &[&params.project_id, &params.tag_name],
    );
    let request = with_path(
        request,
        "direct_asset_path",
        "the release's downloads",
        &params.direct_asset_path,
    )?;
    let head = raw_head(context, request, params.max_bytes).await?;
    Ok(asset_download::Output {
        tag_name: params.tag_name.clone(),
        direct_asset_path: params.direct_asset_path.clone(),
        size: head.size,
        shown_bytes: head.shown,
        truncated: head.truncated(),
        binary: head.binary,
        content: head.content,
    })
}

#[cfg(test)]
mod tests {
    use super::project_of;

    #[test]
    fn the_project_is_the_path_before_the_release_page() {
        let base = "https://gitlab.example.com";
        assert_eq!(
            project_of(
                "https://gitlab.example.com/acme/platform/api/-/releases/v1.0.0",
                base
            )
            .as_deref(),
            Some("acme/platform/api")
        );
        assert_eq!(
            project_of(
                "https://git.corp.example/gitlab/acme/api/-/releases/v2",
                "https://git.corp.example/gitlab/"
            )
            .as_deref(),
            Some("acme/api")
        );
        assert_eq!(
            project_of(
                "http://gitlab.example.com:8080/acme/api/-/releases/v2",
                base
            )
            .as_deref(),
            Some("acme/api")
        );
        assert_eq!(
            project_of("https://gitlab.example.com/acme/api/-/tags/v2", base),
            None
        );
    }
}

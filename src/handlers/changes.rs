//! Changes as a file list plus one patch under a line budget: merge request diffs, one of
//! its diff versions, its raw patch, a commit's diff and comparisons between two refs share
//! this.

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::merge_request::{diffs, raw_diffs, version_get};
use crate::catalog::generated::repository::{commit_diff, compare as comparison};
use crate::catalog::generated::types::{CommitRef, DiffFile};
use crate::gitlab::{Method, Request};

/// The most diff pages read for one merge request (100 files a page).
const MAX_DIFF_PAGES: i64 = 10;

struct Patch {
    text: String,
    shown_files: i64,
    truncated: bool,
}

/// Joins the files' diffs into one patch of at most `budget` lines, whole files first.
fn patch(files: &[DiffFile], budget: i64) -> Patch {
    let mut text = String::new();
    let mut used = 0;
    let mut shown_files = 0;
    let mut truncated = false;
    for file in files {
        let header = format!("diff --git a/{} b/{}", file.old_path, file.new_path);
        let body = file.diff.as_deref().unwrap_or("");
        let lines: Vec<&str> = std::iter::once(header.as_str())
            .chain(body.lines())
            .collect();
        let room = (budget - used).max(0) as usize;
        if room == 0 {
            truncated = true;
            break;
        }
        let take = lines.len().min(room);
        for line in &lines[..take] {
            text.push_str(line);
            text.push('\n');
        }
        used += take as i64;
        shown_files += 1;
        if take < lines.len() {
            truncated = true;
            text.push_str("… (patch cut here: raise max_patch_lines or pass file_path)\n");
            break;
        }
    }
    Patch {
        text,
        shown_files,
        truncated,
    }
}

/// Every page of a diff listing (100 files a page, at most `MAX_DIFF_PAGES`), each file
/// read as `T` (the full `DiffFile` here, what a line position needs in `positions.rs`).
pub(super) async fn all_diffs<T: serde::de::DeserializeOwned>(
    context: &Context,
    request: Request,
) -> Result<Vec<T>, ActionError> {
    let mut files: Vec<T> = Vec::new();
    let mut page = 1;
    loop {
        let request = request
            .clone()
            .set_query("per_page", "100")
            .set_query("page", page.to_string());
        let response = context.send(request).await?;
        files.extend(response.items::<T>()?);
        match response.pagination.next_page {
            Some(next) if next <= MAX_DIFF_PAGES => page = next,
            _ => break,
        }
    }
    Ok(files)
}

/// Keeps only the file `path` names (its old or new path), or says which files there are.
fn only_file(files: &mut Vec<DiffFile>, path: &str, what: &str) -> Result<(), ActionError> {
    let all: Vec<String> = files.iter().map(|f| f.new_path.clone()).collect();
    files.retain(|f| f.new_path == path || f.old_path == path);
    if files.is_empty() {
        return Err(ActionError::InvalidParams(format!(
            "`file_path` {path:?} is not among the files {what} changes: {}",
            all.join(", ")
        )));
    }
    Ok(())
}

/// `merge_request.diffs`: every changed file, and the patch within `max_patch_lines`.
pub async fn merge_request_diffs(
    context: &Context,
    params: &diffs::Params,
) -> Result<diffs::Output, ActionError> {
    #[derive(serde::Deserialize)]
    struct MergeRequest {
        iid: i64,
        title: String,
        web_url: Option<String>,
    }
    let merge_request = Request::new(Method::Get)
        .segment("projects")
        .param(&params.project_id)
        .segment("merge_requests")
        .param(&params.merge_request_iid);
    let merge_request: MergeRequest = context.send(merge_request).await?.json()?;

    let mut files = all_diffs(context, params.request()).await?;
    if let Some(path) = &params.file_path {
        only_file(&mut files, path, "this merge request")?;
    }
    let patch = patch(&files, params.max_patch_lines);
    Ok(diffs::Output {
        title: format!("!{} {}", merge_request.iid, merge_request.title),
        total_files: files.len() as i64,
        shown_files: patch.shown_files,
        truncated: patch.truncated,
        web_url: merge_request.web_url,
        commits: Vec::new(),
        files,
        patch: Some(patch.text).filter(|t| !t.is_empty()),
    })
}

/// `repository.compare`: the commits between two refs, the files and the patch.
pub async fn compare(
    context: &Context,
    params: &comparison::Params,
) -> Result<comparison::Output, ActionError> {
    #[derive(serde::Deserialize)]
    struct Comparison {
        #[serde(default)]
        commits: Vec<CommitRef>,
        #[serde(default)]
        diffs: Vec<DiffFile>,
        web_url: Option<String>,
    }
    let comparison: Comparison = context.send(params.request()).await?.json()?;
    let patch = patch(&comparison.diffs, params.max_patch_lines);
    Ok(comparison::Output {
        title: format!("{}...{}", params.from, params.to),
        total_files: comparison.diffs.len() as i64,
        shown_files: patch.shown_files,
        truncated: patch.truncated,
        web_url: comparison.web_url,
        commits: comparison.commits,
        files: comparison.diffs,
        patch: Some(patch.text).filter(|t| !t.is_empty()),
    })
}

/// `repository.commit_diff`: the files one commit changed and its patch under the budget.
pub async fn commit_diff(
    context: &Context,
    params: &commit_diff::Params,
) -> Result<commit_diff::Output, ActionError> {
    #[derive(serde::Deserialize)]
    struct Commit {
        short_id: String,
        title: String,
        web_url: Option<String>,
    }
    let commit = Request::new(Method::Get)
        .segment("projects")
        .param(&params.project_id)
        .segment("repository")
        .segment("commits")
        .param(&params.sha);
    let commit: Commit = context.send(commit).await?.json()?;
    let mut files = all_diffs(context, params.request()).await?;
    let total_files = files.len() as i64;
    if let Some(path) = &params.file_path {
        only_file(&mut files, path, "this commit")?;
    }
    let patch = patch(&files, params.max_patch_lines);
    Ok(commit_diff::Output {
        title: format!("{} {}", commit.short_id, commit.title),
        total_files,
        shown_files: patch.shown_files,
        truncated: patch.truncated,
        web_url: commit.web_url,
        commits: Vec::new(),
        files,
        patch: Some(patch.text).filter(|t| !t.is_empty()),
    })
}

/// `merge_request.version_get`: one diff version's commits and files, and its patch within
/// `max_patch_lines` (GitLab sends every diff of the version in one answer).
pub async fn merge_request_version(
    context: &Context,
    params: &version_get::Params,
) -> Result<version_get::Output, ActionError> {
    #[derive(serde::Deserialize)]
    struct Version {
        id: i64,
        head_commit_sha: String,
        base_commit_sha: Option<String>,
        start_commit_sha: Option<String>,
        created_at: Option<String>,
        real_size: Option<String>,
        #[serde(default)]
        commits: Vec<CommitRef>,
        #[serde(default)]
        diffs: Vec<DiffFile>,
    }
    let version: Version = context.send(params.request()).await?.json()?;
    let mut files = version.diffs;
    let total_files = files.len() as i64;
    if let Some(path) = &params.file_path {
        only_file(&mut files, path, "this version")?;
    }
    let patch = patch(&files, params.max_patch_lines);
    Ok(version_get::Output {
        title: format!(
            "!{} at {}",
            params.merge_request_iid,
            version.head_commit_sha.chars().take(8).collect::<String>()
        ),
        id: version.id,
        head_commit_sha: version.head_commit_sha,
        base_commit_sha: version.base_commit_sha,
        start_commit_sha: version.start_commit_sha,
        created_at: version.created_at,
        real_size: version.real_size,
        total_files,
        shown_files: patch.shown_files,
        truncated: patch.truncated,
        commits: version.commits,
        files,
        patch: Some(patch.text).filter(|t| !t.is_empty()),
    })
}

/// `merge_request.raw_diffs`: GitLab's plain-text patch (not JSON), streamed; the first
/// `max_patch_lines` lines are kept and the rest only counted.
pub async fn merge_request_raw_diffs(
    context: &Context,
    params: &raw_diffs::Params,
) -> Result<raw_diffs::Output, ActionError> {
    let budget = params.max_patch_lines.max(1) as usize;
    let mut stream = context.open(params.request().raw(), &[]).await?;
    let mut kept: Vec<u8> = Vec::new();
    let mut lines = 0usize;
    let mut last = b'\n';
    while let Some(chunk) = stream.chunk().await? {
        for &byte in &chunk {
            if lines < budget {
                kept.push(byte);
            }
            if byte == b'\n' {
                lines += 1;
            }
            last = byte;
        }
    }
    // A last line without its newline still counts.
    if last != b'\n' {
        lines += 1;
    }
    let text = String::from_utf8_lossy(&kept);
    let shown: Vec<&str> = text.lines().take(budget).collect();
    let truncated = lines > shown.len();
    let mut patch = shown.join("\n");
    if truncated {
        patch.push_str("\n… (patch cut here: raise max_patch_lines, or read one file with merge_request.diffs and file_path)");
    }
    Ok(raw_diffs::Output {
        title: format!("!{} in {}", params.merge_request_iid, params.project_id),
        total_lines: lines as i64,
        shown_lines: shown.len() as i64,
        shown_files: shown
            .iter()
            .filter(|line| line.starts_with("diff --git "))
            .count() as i64,
        truncated,
        patch: Some(patch).filter(|p| !p.is_empty()),
    })
}

//! Reading repository files: line windows of text files and of their blame, and
//! byte-capped raw reads.

use base64::Engine as _;

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::repository::{file_blame as blame, file_get, file_raw as raw};
use crate::catalog::generated::types::{BlameCommit, BlameRange};
use crate::gitlab::{ErrorKind, GitlabError, Method, PathOrId, Request};

/// The project's default branch, for reads that name no ref.
async fn default_branch(context: &Context, project: &PathOrId) -> Result<String, ActionError> {
    #[derive(serde::Deserialize)]
    struct Project {
        default_branch: Option<String>,
    }
    let request = Request::new(Method::Get).segment("projects").param(project);
    let project: Project = context.send(request).await?.json()?;
    project.default_branch.ok_or_else(|| {
        ActionError::Gitlab(GitlabError::new(
            ErrorKind::NotFound,
            "the project has no default branch (its repository is empty)",
        ))
    })
}

/// Whether bytes look like a binary file: a NUL early on, or not UTF-8.
fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8000).any(|&b| b == 0) || std::str::from_utf8(bytes).is_err()
}

/// `repository.file_get`: a window of `max_lines` lines from `start_line`.
pub async fn file_window(
    context: &Context,
    params: &file_get::Params,
) -> Result<file_get::Output, ActionError> {
    #[derive(serde::Deserialize)]
    struct File {
        size: i64,
        encoding: Option<String>,
        content: Option<String>,
        blob_id: Option<String>,
        last_commit_id: Option<String>,
    }

    let git_ref = match &params.r#ref {
        Some(git_ref) => git_ref.clone(),
        None => default_branch(context, &params.project_id).await?,
    };
    let request = params.request().set_query("ref", git_ref.clone());
    let file: File = context.send(request).await?.json()?;
    let bytes = match file.encoding.as_deref() {
        Some("base64") => base64::engine::general_purpose::STANDARD
            .decode(
                file.content
                    .as_deref()
                    .unwrap_or_default()
                    .replace(['\n', '\r'], ""),
            )
            .map_err(|_| {
                GitlabError::new(ErrorKind::BadResponse, "file content is not valid base64")
            })?,
        _ => file.content.unwrap_or_default().into_bytes(),
    };

    let mut output = file_get::Output {
        file_path: params.file_path.clone(),
        r#ref: git_ref,
        size: file.size,
        encoding: file.encoding,
        blob_id: file.blob_id,
        last_commit_id: file.last_commit_id,
        total_lines: None,
        start_line: None,
        end_line: None,
        truncated: false,
        binary: is_binary(&bytes),
        next_start_line: None,
        content: None,
    };
    if output.binary {
        return Ok(output);
    }

    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let window = Window::of(lines.len() as i64, params.start_line, params.max_lines)?;
    output.total_lines = Some(window.total);
    if let Some((start, end)) = window.shown {
        output.start_line = Some(start);
        output.end_line = Some(end);
        output.content = Some(lines[(start - 1) as usize..end as usize].join("\n"));
    }
    output.truncated = window.truncated;
    output.next_start_line = window.next;
    Ok(output)
}

/// The lines of a file a read shows: `max_lines` from `start_line` (1-based).
pub(super) struct Window {
    pub total: i64,
    /// First and last line shown; none for an empty file.
    pub shown: Option<(i64, i64)>,
    pub truncated: bool,
    pub next: Option<i64>,
}

impl Window {
    pub fn of(total: i64, start_line: i64, max_lines: i64) -> Result<Self, ActionError> {
        let start = start_line.max(1);
        if total > 0 && start > total {
            return Err(ActionError::InvalidParams(format!(
                "`start_line` {start} is past the end of the file, which has {total} lines"
            )));
        }
        let end = (start + max_lines - 1).min(total);
        Ok(Self {
            total,
            shown: (total > 0).then_some((start, end)),
            truncated: start > 1 || end < total,
            next: (end < total).then_some(end + 1),
        })
    }
}

/// `repository.file_blame`: the same window as `file_window`, each line with the commit
/// that last changed it. GitLab answers ranges of consecutive lines per commit; the
/// window cuts the ranges at its edges.
pub async fn file_blame(
    context: &Context,
    params: &blame::Params,
) -> Result<blame::Output, ActionError> {
    #[derive(serde::Deserialize)]
    struct Range {
        commit: Commit,
        lines: Vec<String>,
    }
    #[derive(serde::Deserialize)]
    struct Commit {
        id: String,
        message: Option<String>,
        author_name: Option<String>,
        authored_date: Option<String>,
    }

    let git_ref = match &params.r#ref {
        Some(git_ref) => git_ref.clone(),
        None => default_branch(context, &params.project_id).await?,
    };
    let request = params.request().set_query("ref", git_ref.clone());
    let ranges: Vec<Range> = context.send(request).await?.items()?;
    let total: i64 = ranges.iter().map(|r| r.lines.len() as i64).sum();
    let window = Window::of(total, params.start_line, params.max_lines)?;
    let mut output = blame::Output {
        file_path: params.file_path.clone(),
        r#ref: git_ref,
        total_lines: total,
        start_line: None,
        end_line: None,
        truncated: window.truncated,
        next_start_line: window.next,
        ranges: Vec::new(),
        content: None,
    };
    let Some((start, end)) = window.shown else {
        return Ok(output);
    };
    output.start_line = Some(start);
    output.end_line = Some(end);
    let width = end.to_string().len();
    let mut content = String::new();
    let mut first = 1;
    for range in &ranges {
        let last = first + range.lines.len() as i64 - 1;
        let (from, to) = (first.max(start), last.min(end));
        if from <= to {
            let commit = BlameCommit {
                id: range.commit.id.clone(),
                title: range
                    .commit
                    .message
                    .as_deref()
                    .and_then(|m| m.lines().next())
                    .map(str::to_owned),
                author_name: range.commit.author_name.clone(),
                authored_date: range.commit.authored_date.clone(),
            };
            // One header line per range, then its lines numbered: the Markdown shows who
            // changed what without a table per line.
            let short: String = commit.id.chars().take(8).collect();
            content.push_str(&format!(
                "── {short} {}, {}: {}\n",
                commit.author_name.as_deref().unwrap_or("unknown author"),
                commit
                    .authored_date
                    .as_deref()
                    .map(|d| d.get(..10).unwrap_or(d))
                    .unwrap_or("undated"),
                commit.title.as_deref().unwrap_or("")
            ));
            for (number, line) in (from..=to).zip(&range.lines[(from - first) as usize..]) {
                content.push_str(&format!("{number:>width$}  {line}\n"));
            }
            output.ranges.push(BlameRange {
                start_line: from,
                end_line: to,
                commit,
            });
        }
        first = last + 1;
    }
    output.content = Some(content.trim_end().to_owned());
    Ok(output)
}

/// `repository.file_raw`: the first `max_bytes` bytes, or the size of a binary file. Only
/// the bytes shown are fetched: a `Range` request where GitLab honours it, otherwise the
/// stream is closed once they have arrived.
pub async fn file_raw(context: &Context, params: &raw::Params) -> Result<raw::Output, ActionError> {
    let git_ref = match &params.r#ref {
        Some(git_ref) => git_ref.clone(),
        None => default_branch(context, &params.project_id).await?,
    };
    let request = params.request().set_query("ref", git_ref.clone());
    let head = raw_head(context, request, params.max_bytes).await?;
    Ok(raw::Output {
        file_path: params.file_path.clone(),
        r#ref: git_ref,
        size: head.size,
        shown_bytes: head.shown,
        truncated: head.truncated(),
        binary: head.binary,
        content: head.content,
    })
}

/// A handler that reads a raw body under the byte budget (`raw_head`) and answers its
/// head beside the one parameter that names what was read: snippets, uploads, blobs,
/// secure files and downloads differ only in their path and that field
/// (`raw_reader!(name, action, snippet_id)`, or `sha.clone()` for a string).
macro_rules! raw_reader {
    ($(#[$doc:meta])* $name:ident, $action:ident, $field:ident $(. $method:ident ())?) => {
        $(#[$doc])*
        pub async fn $name(
            context: &$crate::call::Context,
            params: &$action::Params,
        ) -> Result<$action::Output, $crate::call::ActionError> {
            use $crate::catalog::ActionParams as _;
            let head =
                $crate::handlers::files::raw_head(context, params.request(), params.max_bytes)
                    .await?;
            Ok($action::Output {
                $field: params.$field $(.$method())?,
                size: head.size,
                shown_bytes: head.shown,
                truncated: head.truncated(),
                binary: head.binary,
                content: head.content,
            })
        }
    };
}
pub(super) use raw_reader;

/// The start of a raw body, at most `max_bytes` of it, and what is known of the rest.
pub(super) struct RawHead {
    pub size: i64,
    pub shown: i64,
    pub binary: bool,
    pub content: Option<String>,
}

impl RawHead {
    pub fn truncated(&self) -> bool {
        !self.binary && self.shown < self.size
    }
}

/// Reads the first `max_bytes` of a raw body (a `Range` request; never more kept), its
/// whole size, and whether it is binary; a character is never cut in half.
pub(super) async fn raw_head(
    context: &Context,
    request: Request,
    max_bytes: i64,
) -> Result<RawHead, ActionError> {
    let max = max_bytes.max(1) as usize;
    // One byte more than shown, to know whether there is more.
    let range = [("Range", format!("bytes=0-{max}"))];
    let mut stream = match context.open(request.raw(), &range).await {
        Ok(stream) => stream,
        // An empty file has no byte 0 to give.
        Err(error) if error.status == Some(416) => {
            return Ok(RawHead {
                size: 0,
                shown: 0,
                binary: false,
                content: None,
            });
        }
        Err(error) => return Err(error.into()),
    };
    let mut head = Vec::new();
    let mut complete = true;
    while let Some(chunk) = stream.chunk().await? {
        head.extend_from_slice(&chunk);
        if head.len() > max {
            complete = false;
            break;
        }
    }
    let partial = stream.status == 206;
    let size = match (stream.full_size, stream.length) {
        (Some(size), _) => size as i64,
        (None, Some(length)) if !partial => length as i64,
        _ if complete => head.len() as i64,
        // No size header and more to come: count the rest without keeping it.
        _ => {
            let mut size = head.len() as u64;
            while let Some(chunk) = stream.chunk().await? {
                size += chunk.len() as u64;
            }
            size as i64
        }
    };
    let binary = is_binary_head(&head, complete);
    let mut shown = 0;
    let mut content = None;
    if !binary {
        let mut cut = max.min(head.len());
        // Never cut a UTF-8 character in half.
        while cut < head.len() && cut > 0 && (head[cut] & 0b1100_0000) == 0b1000_0000 {
            cut -= 1;
        }
        shown = cut as i64;
        content = Some(String::from_utf8_lossy(&head[..cut]).into_owned());
    }
    Ok(RawHead {
        size,
        shown,
        binary,
        content: content.filter(|c| !c.is_empty()),
    })
}

/// `is_binary` for the first bytes of a file: a character cut at the end is not a sign
/// of binary content.
fn is_binary_head(head: &[u8], complete: bool) -> bool {
    if head.iter().take(8000).any(|&b| b == 0) {
        return true;
    }
    match std::str::from_utf8(head) {
        Ok(_) => false,
        Err(error) => complete || error.error_len().is_some(),
    }
}

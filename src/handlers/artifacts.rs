//! Job artifacts: the list of files in an archive, and a window of lines of one file.
//!
//! A zip archive ends with its central directory, which names every file with its sizes,
//! so the list needs only the archive's end: a `Range` request for its last bytes (a
//! second one when the directory is longer), or, where GitLab sends the whole archive, a
//! stream of which only the last `MAX_TAIL` bytes are kept. `rawzip` reads the directory
//! from those bytes. One file is GitLab's to extract (`/artifacts/*artifact_path`); it is
//! streamed, and only the lines asked for are kept.

use std::io;

use rawzip::time::ZipDateTimeKind;
use rawzip::{RECOMMENDED_BUFFER_SIZE, ReaderAt, ZipLocator};

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::job::{
    artifact_file, artifact_file_by_ref, artifacts_download_by_ref, artifacts_list,
};
use crate::catalog::generated::types::ArtifactEntry;
use crate::gitlab::{ErrorKind, GitlabError, Method, Request};

/// The end of an archive asked for first: its end record and a directory of a few hundred
/// files.
const FIRST_TAIL: u64 = 64 * 1024;
/// The most of an archive's end kept: a directory longer than this (some 300 000 files)
/// is refused rather than held.
const MAX_TAIL: u64 = 32 * 1024 * 1024;
/// The longest line shown; minified files and data URLs are cut.
const MAX_LINE_CHARS: usize = 1000;

/// The last bytes of an archive: `bytes` are its bytes from `start` to its end.
struct Tail {
    start: u64,
    bytes: Vec<u8>,
}

impl ReaderAt for Tail {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let Some(at) = offset.checked_sub(self.start) else {
            return Err(io::Error::other(format!(
                "byte {offset} is before the kept end of the archive"
            )));
        };
        let at = at as usize;
        if at >= self.bytes.len() {
            return Ok(0);
        }
        let n = buf.len().min(self.bytes.len() - at);
        buf[..n].copy_from_slice(&self.bytes[at..at + n]);
        Ok(n)
    }
}

fn not_a_zip(detail: impl std::fmt::Display) -> ActionError {
    GitlabError::new(
        ErrorKind::BadResponse,
        format!("the artifacts archive is not a readable zip file ({detail})"),
    )
    .into()
}

/// The archive's last `last` bytes and its whole size. When GitLab ignores `Range` the
/// archive streams past and only its last `MAX_TAIL` bytes stay.
async fn tail(context: &Context, request: &Request, last: u64) -> Result<(Tail, u64), ActionError> {
    let range = [("Range", format!("bytes=-{last}"))];
    let mut stream = context.open(request.clone().raw(), &range).await?;
    let ranged = stream.status == 206;
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.chunk().await? {
        bytes.extend_from_slice(&chunk);
        // Keep at most twice the bound between trims, so trimming stays cheap.
        if bytes.len() as u64 > 2 * MAX_TAIL {
            let cut = bytes.len() - MAX_TAIL as usize;
            bytes.drain(..cut);
        }
    }
    let total = match stream.full_size {
        Some(size) if ranged => size,
        _ if ranged => stream.offset + stream.read,
        _ => stream.read,
    };
    if bytes.len() as u64 > MAX_TAIL {
        let cut = bytes.len() - MAX_TAIL as usize;
        bytes.drain(..cut);
    }
    let start = total.saturating_sub(bytes.len() as u64);
    Ok((Tail { start, bytes }, total))
}

/// One file of the directory, as the result lists it.
struct Entry {
    path: String,
    size: u64,
    compressed: u64,
    modified: Option<String>,
}

/// Every file in the directory of the archive that `tail` ends, or `Err(offset)` when the
/// directory starts before the bytes kept.
fn directory(tail: Tail, total: u64) -> Result<Result<Vec<Entry>, u64>, ActionError> {
    let mut buffer = vec![0; RECOMMENDED_BUFFER_SIZE];
    let archive = ZipLocator::new()
        .locate_in_reader(tail, &mut buffer, total)
        .map_err(|(_, error)| not_a_zip(error))?;
    if archive.directory_offset() < archive.get_ref().start {
        return Ok(Err(archive.directory_offset()));
    }
    let mut files = Vec::new();
    let mut entries = archive.entries(&mut buffer);
    while let Some(entry) = entries.next_entry().map_err(not_a_zip)? {
        if entry.is_dir() {
            continue;
        }
        let path = String::from_utf8_lossy(entry.file_path().as_ref()).into_owned();
        files.push(Entry {
            path,
            size: entry.uncompressed_size_hint(),
            compressed: entry.compressed_size_hint(),
            modified: timestamp(&entry.last_modified()),
        });
    }
    Ok(Ok(files))
}

/// A zip timestamp as RFC 3339 (zip times without a zone are read as UTC, as GitLab's
/// runner writes them).
fn timestamp(time: &ZipDateTimeKind) -> Option<String> {
    (time.year() > 1980).then(|| {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            time.year(),
            time.month(),
            time.day(),
            time.hour(),
            time.minute(),
            time.second()
        )
    })
}

/// The files of an archive under a path prefix, at most `limit` of them.
struct Listing {
    archive_size: i64,
    total_files: i64,
    files: Vec<ArtifactEntry>,
}

impl Listing {
    fn shown(&self) -> i64 {
        self.files.len() as i64
    }

    fn truncated(&self) -> bool {
        self.shown() < self.total_files
    }
}

/// Reads the directory of the archive `request` answers (its end only) and keeps the files
/// under `prefix`, at most `limit`.
async fn listing(
    context: &Context,
    request: Request,
    prefix: Option<&str>,
    limit: i64,
) -> Result<Listing, ActionError> {
    let (first, total) = tail(context, &request, FIRST_TAIL).await?;
    let files = match directory(first, total)? {
        Ok(files) => files,
        Err(offset) => {
            let length = total - offset;
            if length > MAX_TAIL {
                return Err(GitlabError::new(
                    ErrorKind::TooLarge,
                    format!(
                        "the archive's directory is {length} bytes, more than the {MAX_TAIL} read"
                    ),
                )
                .into());
            }
            let (whole, total) = tail(context, &request, length).await?;
            directory(whole, total)?.map_err(|_| not_a_zip("its directory lies outside it"))?
        }
    };
    let prefix = prefix.unwrap_or_default();
    let matching: Vec<Entry> = files
        .into_iter()
        .filter(|f| f.path.starts_with(prefix))
        .collect();
    let total_files = matching.len() as i64;
    let files = matching
        .into_iter()
        .take(limit.max(1) as usize)
        .map(|f| ArtifactEntry {
            path: f.path,
            size: f.size as i64,
            compressed_size: (f.compressed != f.size).then_some(f.compressed as i64),
            modified: f.modified,
        })
        .collect();
    Ok(Listing {
        archive_size: total as i64,
        total_files,
        files,
    })
}

/// `job.artifacts_list`: the archive's files under `path_prefix`, at most `limit`.
pub async fn artifacts_list(
    context: &Context,
    params: &artifacts_list::Params,
) -> Result<artifacts_list::Output, ActionError> {
    let listing = listing(
        context,
        params.request(),
        params.path_prefix.as_deref(),
        params.limit,
    )
    .await?;
    Ok(artifacts_list::Output {
        job_id: params.job_id,
        archive_size: listing.archive_size,
        total_files: listing.total_files,
        shown_files: listing.shown(),
        truncated: listing.truncated(),
        files: listing.files,
    })
}

/// `job.artifacts_download_by_ref`: the archive GitLab's download of a ref's latest job
/// serves, read as `job.artifacts_list` reads one (its directory, from its end), so a
/// download never brings the archive into the answer.
pub async fn artifacts_download_by_ref(
    context: &Context,
    params: &artifacts_download_by_ref::Params,
) -> Result<artifacts_download_by_ref::Output, ActionError> {
    let listing = listing(
        context,
        params.request(),
        params.path_prefix.as_deref(),
        params.limit,
    )
    .await?;
    Ok(artifacts_download_by_ref::Output {
        r#ref: params.r#ref.clone(),
        job: params.job.clone(),
        archive_size: listing.archive_size,
        total_files: listing.total_files,
        shown_files: listing.shown(),
        truncated: listing.truncated(),
        files: listing.files,
    })
}

/// The request for one file: a wildcard path (GitLab's `*artifact_path`, a release's
/// `*direct_asset_path`) keeps its slashes, each part one segment, so `..` and empty parts
/// are refused before sending, naming the parameter (`name`) and what it is a path in.
pub(super) fn with_path(
    mut request: Request,
    name: &str,
    within: &str,
    path: &str,
) -> Result<Request, ActionError> {
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == "..")
    {
        return Err(ActionError::InvalidParams(format!(
            "`{name}` {path:?} must be a path inside {within}, without empty, `.` or `..` parts"
        )));
    }
    for part in parts {
        request = request.param(part);
    }
    Ok(request.raw())
}

/// A window of lines of a streamed file, and what it says about the whole file.
struct Window {
    size: Option<i64>,
    total_lines: i64,
    lines: Vec<String>,
    binary: bool,
}

/// Streams one file, keeping lines `start..start + count` (1-based); a NUL or invalid
/// UTF-8 early on makes it binary, and then nothing is kept.
async fn window(
    context: &Context,
    request: Request,
    start: i64,
    count: i64,
) -> Result<Window, ActionError> {
    let mut stream = context.open(request, &[]).await?;
    let size = stream.length.map(|l| l as i64);
    let end = start + count - 1;
    let mut pending: Vec<u8> = Vec::new();
    let mut out = Window {
        size,
        total_lines: 0,
        lines: Vec::new(),
        binary: false,
    };
    let mut head_checked = false;
    let keep = |out: &mut Window, line: &[u8]| {
        out.total_lines += 1;
        if out.total_lines >= start && out.total_lines <= end {
            let text = String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(line));
            out.lines.push(cut(&text));
        }
    };
    while let Some(chunk) = stream.chunk().await? {
        pending.extend_from_slice(&chunk);
        if !head_checked && pending.len() >= 8000 {
            head_checked = true;
            if is_binary(&pending, false) {
                out.binary = true;
                break;
            }
        }
        let mut from = 0;
        while let Some(at) = pending[from..].iter().position(|&b| b == b'\n') {
            keep(&mut out, &pending[from..from + at]);
            from += at + 1;
        }
        pending.drain(..from);
    }
    if !out.binary && !head_checked && is_binary(&pending, true) {
        out.binary = true;
    }
    if out.binary {
        out.lines.clear();
        out.total_lines = 0;
        out.size = out.size.or(Some(stream.read as i64));
        return Ok(out);
    }
    if !pending.is_empty() {
        keep(&mut out, &pending);
    }
    out.size = out.size.or(Some(stream.read as i64));
    Ok(out)
}

/// Whether the first bytes look binary: a NUL, or bytes that are not UTF-8 (a character
/// cut at the end of an incomplete head is not a sign).
fn is_binary(head: &[u8], complete: bool) -> bool {
    let head = &head[..head.len().min(8000)];
    if head.contains(&0) {
        return true;
    }
    match std::str::from_utf8(head) {
        Ok(_) => false,
        Err(error) => complete || error.error_len().is_some(),
    }
}

fn cut(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}… (line cut)", &line[..at]),
        None => line.to_owned(),
    }
}

/// The window's fields of the result, shared by both reads.
struct Shown {
    size: Option<i64>,
    total_lines: Option<i64>,
    start_line: Option<i64>,
    end_line: Option<i64>,
    truncated: bool,
    binary: bool,
    next_start_line: Option<i64>,
    content: Option<String>,
}

fn shown(window: Window, start: i64) -> Result<Shown, ActionError> {
    let total = window.total_lines;
    if window.binary {
        return Ok(Shown {
            size: window.size,
            total_lines: None,
            start_line: None,
            end_line: None,
            truncated: false,
            binary: true,
            next_start_line: None,
            content: None,
        });
    }
    if total > 0 && start > total {
        return Err(ActionError::InvalidParams(format!(
            "`start_line` {start} is past the end of the file, which has {total} lines"
        )));
    }
    let end = start + window.lines.len() as i64 - 1;
    Ok(Shown {
        size: window.size,
        total_lines: Some(total),
        start_line: (total > 0).then_some(start),
        end_line: (total > 0).then_some(end),
        truncated: total > 0 && (start > 1 || end < total),
        binary: false,
        next_start_line: (end < total).then_some(end + 1),
        content: (!window.lines.is_empty()).then(|| window.lines.join("\n")),
    })
}

/// `job.artifact_file`: a window of one file of a job's artifacts.
pub async fn artifact_file(
    context: &Context,
    params: &artifact_file::Params,
) -> Result<artifact_file::Output, ActionError> {
    let request = Request::new(Method::Get).at(
        "/projects/{project_id}/jobs/{job_id}/artifacts",
        &[&params.project_id, &params.job_id],
    );
    let request = with_path(
        request,
        "artifact_path",
        "the archive",
        &params.artifact_path,
    )?;
    let start = params.start_line.max(1);
    let shown = shown(
        window(context, request, start, params.max_lines.max(1)).await?,
        start,
    )?;
    Ok(artifact_file::Output {
        artifact_path: params.artifact_path.clone(),
        job_id: Some(params.job_id),
        r#ref: None,
        job: None,
        size: shown.size,
        total_lines: shown.total_lines,
        start_line: shown.start_line,
        end_line: shown.end_line,
        truncated: shown.truncated,
        binary: shown.binary,
        next_start_line: shown.next_start_line,
        content: shown.content,
    })
}

/// `job.artifact_file_by_ref`: the same window, from the job named `job` in the latest
/// successful pipeline of `ref`.
pub async fn artifact_file_by_ref(
    context: &Context,
    params: &artifact_file_by_ref::Params,
) -> Result<artifact_file_by_ref::Output, ActionError> {
    let request = Request::new(Method::Get)
        .at(
            "/projects/{project_id}/jobs/artifacts/{ref}/raw",
            &[&params.project_id, &params.r#ref],
        )
        .query("job", &params.job);
    let request = with_path(
        request,
        "artifact_path",
        "the archive",
        &params.artifact_path,
    )?;
    let start = params.start_line.max(1);
    let shown = shown(
        window(context, request, start, params.max_lines.max(1)).await?,
        start,
    )?;
    Ok(artifact_file_by_ref::Output {
        artifact_path: params.artifact_path.clone(),
        job_id: None,
        r#ref: Some(params.r#ref.clone()),
        job: Some(params.job.clone()),
        size: shown.size,
        total_lines: shown.total_lines,
        start_line: shown.start_line,
        end_line: shown.end_line,
        truncated: shown.truncated,
        binary: shown.binary,
        next_start_line: shown.next_start_line,
        content: shown.content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archive(files: &[(&str, usize)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut zip = rawzip::ZipArchiveWriter::new(&mut out);
        for (path, size) in files {
            let (mut entry, config) = zip.new_file(*path).start().unwrap();
            let mut writer = config.wrap(&mut entry);
            io::Write::write_all(&mut writer, &vec![b'x'; *size]).unwrap();
            let (_, descriptor) = writer.finish().unwrap();
            entry.finish(descriptor).unwrap();
        }
        zip.finish().unwrap();
        out
    }

    fn ends(bytes: &[u8], last: usize) -> (Tail, u64) {
        let total = bytes.len() as u64;
        let start = bytes.len().saturating_sub(last);
        (
            Tail {
                start: start as u64,
                bytes: bytes[start..].to_vec(),
            },
            total,
        )
    }

    #[test]
    fn the_directory_is_read_from_the_archive_end_alone() {
        let bytes = archive(&[("dist/app", 200_000), ("dist/SUMS", 90)]);
        let (tail, total) = ends(&bytes, 4096);
        let files = directory(tail, total).unwrap().unwrap();
        let listed: Vec<(&str, u64)> = files.iter().map(|f| (f.path.as_str(), f.size)).collect();
        assert_eq!(listed, [("dist/app", 200_000), ("dist/SUMS", 90)]);
    }

    #[test]
    fn a_directory_longer_than_the_tail_asks_for_its_start() {
        let names: Vec<String> = (0..400)
            .map(|i| format!("reports/case-{i:04}.xml"))
            .collect();
        let files: Vec<(&str, usize)> = names.iter().map(|n| (n.as_str(), 10)).collect();
        let bytes = archive(&files);
        let (tail, total) = ends(&bytes, 2048);
        let Err(offset) = directory(tail, total).unwrap() else {
            panic!("the directory does not fit in 2 KiB");
        };
        let (tail, total) = ends(&bytes, (total - offset) as usize);
        assert_eq!(directory(tail, total).unwrap().unwrap().len(), 400);
    }

    #[test]
    fn bytes_that_are_not_a_zip_are_refused() {
        let (tail, total) = ends(b"<html>not found</html>", 100);
        assert!(directory(tail, total).is_err());
    }

    #[test]
    fn artifact_paths_keep_their_slashes_and_refuse_dot_segments() {
        let base = || Request::new(Method::Get).segment("a");
        let request = with_path(
            base(),
            "artifact_path",
            "the archive",
            "dist/linux amd64/app",
        )
        .unwrap();
        assert_eq!(request.path().unwrap(), "/a/dist/linux%20amd64/app");
        for bad in ["dist/../secret", "dist//app", "./app", ""] {
            assert!(
                with_path(base(), "artifact_path", "the archive", bad).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn binary_heads_are_told_from_text() {
        assert!(is_binary(b"\x7fELF\x02\x01\x01\x00", true));
        assert!(!is_binary("naïve text".as_bytes(), true));
        // A character cut at the end of an incomplete head is not binary.
        assert!(!is_binary(&"é".as_bytes()[..1], false));
    }
}

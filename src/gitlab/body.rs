//! Reading GitLab's answers with bounds: a byte cap for bodies read whole, and a stream
//! for raw reads (logs, files) that takes only what the caller needs. Every read stops at
//! the call's deadline, and secrets are masked as the bytes arrive.

use std::sync::Arc;

use tokio::time::Instant;

use super::error::{ErrorKind, GitlabError};
use crate::redact::Redactor;

/// A body that arrives in pieces.
pub struct BodyStream {
    response: reqwest::Response,
    deadline: Instant,
    deadline_text: String,
    redactor: Arc<Redactor>,
    /// The end of the last chunk, held back in case a secret straddles two chunks.
    held: Vec<u8>,
    done: bool,
    /// Bytes handed out so far.
    pub read: u64,
    /// The HTTP status: 206 when GitLab honoured a `Range`.
    pub status: u16,
    /// `Content-Length` of this answer, if GitLab sent it.
    pub length: Option<u64>,
    /// The size of the whole resource from `Content-Range: bytes a-b/size` (206 only).
    pub full_size: Option<u64>,
    /// The first byte of this answer within the whole resource.
    pub offset: u64,
    pub content_type: String,
}

impl BodyStream {
    pub(super) fn new(
        response: reqwest::Response,
        deadline: Instant,
        deadline_text: String,
        redactor: Arc<Redactor>,
    ) -> Self {
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let status = response.status().as_u16();
        let (offset, full_size) = match (status, header("content-range")) {
            (206, Some(range)) => parse_content_range(&range),
            _ => (0, None),
        };
        Self {
            length: header("content-length").and_then(|v| v.trim().parse().ok()),
            content_type: header("content-type").unwrap_or_default(),
            status,
            offset,
            full_size,
            response,
            deadline,
            deadline_text,
            redactor,
            held: Vec::new(),
            done: false,
            read: 0,
        }
    }

    /// The next piece of the body, or `None` at its end.
    pub async fn chunk(&mut self) -> Result<Option<Vec<u8>>, GitlabError> {
        loop {
            if self.done {
                if self.held.is_empty() {
                    return Ok(None);
                }
                let rest = std::mem::take(&mut self.held);
                return Ok(Some(self.redactor.bytes(&rest).into_owned()));
            }
            let next = tokio::time::timeout_at(self.deadline, self.response.chunk()).await;
            let piece = match next {
                Err(_) => {
                    return Err(GitlabError::new(ErrorKind::Timeout, &self.deadline_text));
                }
                Ok(Err(error)) => {
                    return Err(GitlabError::new(
                        ErrorKind::Interrupted,
                        super::client::describe(&error),
                    ));
                }
                Ok(Ok(piece)) => piece,
            };
            match piece {
                None => self.done = true,
                Some(bytes) => {
                    self.read += bytes.len() as u64;
                    self.held.extend_from_slice(&bytes);
                    // Mask what is complete, then hold back the last bytes, which may
                    // begin a secret that ends in the next chunk.
                    let mut masked = self.redactor.bytes(&self.held).into_owned();
                    let keep = self.redactor.longest().saturating_sub(1);
                    if masked.len() > keep {
                        self.held = masked.split_off(masked.len() - keep);
                        return Ok(Some(masked));
                    }
                    self.held = masked;
                }
            }
        }
    }

    /// The whole body, refused when it grows past `cap` bytes.
    pub async fn read_capped(mut self, cap: usize) -> Result<Vec<u8>, GitlabError> {
        if let Some(length) = self.length.filter(|&l| l > cap as u64) {
            return Err(too_large(length, cap));
        }
        let mut body = Vec::new();
        while let Some(piece) = self.chunk().await? {
            body.extend_from_slice(&piece);
            if body.len() > cap {
                return Err(too_large(body.len() as u64, cap));
            }
        }
        Ok(body)
    }
}

fn too_large(size: u64, cap: usize) -> GitlabError {
    GitlabError::new(
        ErrorKind::TooLarge,
        format!(
            "more than {} where the limit is {}",
            crate::output::format::size(size as f64),
            crate::output::format::size(cap as f64)
        ),
    )
}

/// `bytes 0-99/1234` → (0, Some(1234)); `bytes 0-99/*` → (0, None).
fn parse_content_range(value: &str) -> (u64, Option<u64>) {
    let Some(rest) = value.trim().strip_prefix("bytes ") else {
        return (0, None);
    };
    let (range, size) = rest.split_once('/').unwrap_or((rest, "*"));
    let start = range
        .split_once('-')
        .and_then(|(start, _)| start.trim().parse().ok())
        .unwrap_or(0);
    (start, size.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges() {
        assert_eq!(parse_content_range("bytes 0-99/1234"), (0, Some(1234)));
        assert_eq!(parse_content_range("bytes 100-199/*"), (100, None));
        assert_eq!(parse_content_range("items 1-2"), (0, None));
    }
}

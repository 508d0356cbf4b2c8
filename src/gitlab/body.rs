//! Reading GitLab's answers with bounds: a byte cap for bodies read whole, a stream for
//! raw reads (logs, files) that takes only what the caller needs, and a JSON list read one
//! item at a time (a GitLab that ignores `per_page` may send megabytes; only the items a
//! result can hold are kept). Every read stops at the call's deadline, and secrets are
//! masked as the bytes arrive.

use std::sync::Arc;

use serde_json::Value;
use tokio::time::Instant;

use super::error::{ErrorKind, GitlabError};
use super::pagination::Pagination;
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
    /// Where a list answer sits among its pages (the `X-Page` headers).
    pub pagination: Pagination,
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
        let pagination = Pagination::from_headers(|name| {
            response.headers().get(name).and_then(|v| v.to_str().ok())
        });
        Self {
            pagination,
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

/// How a JSON list read ended.
#[derive(Debug, PartialEq)]
pub enum ListBody {
    /// Every item was handed out.
    Complete,
    /// The taker had enough before the list's end; the rest was never read.
    Stopped,
    /// The body is not a JSON list: its bytes, read whole up to the cap, for the caller to
    /// read as one value.
    Other(Vec<u8>),
}

impl BodyStream {
    /// Reads a JSON list one item at a time, handing each (pruned of nulls and empty
    /// values, and an object of the fields `keep` accepts only) to `take`, which says
    /// whether to go on. Only the item being read is held, so a list of any length costs
    /// the items kept; an item over `cap` bytes is refused as a body over the cap is, and
    /// the read stops after `cap` bytes in all.
    pub async fn read_list(
        mut self,
        cap: usize,
        keep: &(dyn Fn(&str) -> bool + Sync),
        mut take: impl FnMut(Value) -> bool,
    ) -> Result<ListBody, GitlabError> {
        let mut splitter = ItemSplitter::default();
        while let Some(piece) = self.chunk().await? {
            let mut parsed = Ok(true);
            let step = splitter.feed(&piece, cap, |item| {
                parsed = super::pick::parse_keeping(item, keep).map(|mut value| {
                    super::client::prune(&mut value);
                    take(value)
                });
                matches!(parsed, Ok(true))
            });
            let more = parsed.map_err(|error| {
                GitlabError::new(ErrorKind::BadResponse, format!("not JSON ({error})"))
            })?;
            match step {
                Split::Items if !more || self.read > cap as u64 => return Ok(ListBody::Stopped),
                Split::Items => {}
                Split::End => return Ok(ListBody::Complete),
                Split::TooLarge(size) => return Err(too_large(size as u64, cap)),
                Split::NotAList => {
                    let mut body = splitter.into_bytes();
                    while let Some(piece) = self.chunk().await? {
                        body.extend_from_slice(&piece);
                        if body.len() > cap {
                            return Err(too_large(body.len() as u64, cap));
                        }
                    }
                    return Ok(ListBody::Other(body));
                }
            }
        }
        match splitter.state {
            State::Start => Ok(ListBody::Other(splitter.into_bytes())),
            _ => Err(GitlabError::new(
                ErrorKind::BadResponse,
                "not JSON (the list ended before its closing bracket)",
            )),
        }
    }
}

/// Finds the items of a JSON array in its bytes as they arrive, without parsing them:
/// strings, escapes and nesting are tracked so that only a comma or bracket of the list
/// itself ends an item.
#[derive(Default)]
struct ItemSplitter {
    /// Bytes not yet handed out: the item being read and what follows it.
    buffer: Vec<u8>,
    /// Where scanning resumes in `buffer`.
    at: usize,
    /// Where the item being read starts in `buffer`.
    item: Option<usize>,
    depth: usize,
    in_string: bool,
    escaped: bool,
    state: State,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the opening bracket.
    #[default]
    Start,
    Items,
    NotAList,
    End,
}

/// What a `feed` came to.
#[derive(Debug, PartialEq, Eq)]
enum Split {
    /// Every complete item so far was handed out (or the taker stopped).
    Items,
    /// The closing bracket.
    End,
    NotAList,
    /// An item grew past the cap (its size so far).
    TooLarge(usize),
}

impl ItemSplitter {
    /// Adds bytes and hands each complete item to `take` until it returns false.
    fn feed(&mut self, bytes: &[u8], cap: usize, mut take: impl FnMut(&[u8]) -> bool) -> Split {
        self.buffer.extend_from_slice(bytes);
        let split = self.scan(cap, &mut take);
        // Drop what was handed out; keep the item being read.
        let keep = self.item.unwrap_or(self.at);
        if self.state == State::Items && keep > 0 {
            self.buffer.drain(..keep);
            self.at -= keep;
            self.item = self.item.map(|start| start - keep);
        }
        split
    }

    fn scan(&mut self, cap: usize, take: &mut impl FnMut(&[u8]) -> bool) -> Split {
        while self.at < self.buffer.len() {
            self.skip_string_text(cap);
            let Some(&byte) = self.buffer.get(self.at) else {
                break;
            };
            match self.state {
                State::Start => match byte {
                    b'[' => self.state = State::Items,
                    b' ' | b'\t' | b'\r' | b'\n' => {}
                    _ => {
                        self.state = State::NotAList;
                        return Split::NotAList;
                    }
                },
                State::Items => {
                    if let Some(start) = self.item {
                        if self.item_ends(byte) {
                            self.item = None;
                            let go_on = take(&self.buffer[start..self.at]);
                            if byte == b']' {
                                self.state = State::End;
                                return Split::End;
                            }
                            if !go_on {
                                self.at += 1;
                                return Split::Items;
                            }
                        } else if self.at - start > cap {
                            return Split::TooLarge(self.at - start);
                        }
                    } else {
                        match byte {
                            b']' => {
                                self.state = State::End;
                                return Split::End;
                            }
                            b' ' | b'\t' | b'\r' | b'\n' | b',' => {}
                            _ => {
                                self.item = Some(self.at);
                                let _ = self.item_ends(byte);
                            }
                        }
                    }
                }
                State::NotAList => return Split::NotAList,
                State::End => return Split::End,
            }
            self.at += 1;
        }
        Split::Items
    }

    /// Inside a string of an item, moves to its next quote or backslash at once: most of a
    /// body is string text, where no byte but those two changes anything. It stops where
    /// the byte-by-byte walk would find the item too large, so that it reports the same.
    fn skip_string_text(&mut self, cap: usize) {
        let Some(start) = self.item else {
            return;
        };
        if self.state != State::Items || !self.in_string || self.escaped {
            return;
        }
        let too_large_at = start.saturating_add(cap).saturating_add(1);
        let end = self.buffer.len().min(too_large_at.max(self.at));
        let text = &self.buffer[self.at..end];
        self.at += memchr::memchr2(b'"', b'\\', text).unwrap_or(text.len());
    }

    /// Follows one byte of an item; whether it is the list's comma or bracket after it.
    fn item_ends(&mut self, byte: u8) -> bool {
        if self.in_string {
            match byte {
                _ if self.escaped => self.escaped = false,
                b'\\' => self.escaped = true,
                b'"' => self.in_string = false,
                _ => {}
            }
            return false;
        }
        match byte {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' if self.depth > 0 => self.depth -= 1,
            b']' | b',' if self.depth == 0 => return true,
            _ => {}
        }
        false
    }

    fn into_bytes(self) -> Vec<u8> {
        self.buffer
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

    /// Splits `text` fed in pieces of `step` bytes; the items, and how it ended.
    fn split(text: &str, step: usize, stop_after: usize) -> (Vec<String>, Split) {
        let mut splitter = ItemSplitter::default();
        let mut items = Vec::new();
        for piece in text.as_bytes().chunks(step) {
            let split = splitter.feed(piece, 1000, |item| {
                items.push(String::from_utf8(item.to_vec()).unwrap());
                items.len() < stop_after
            });
            if split != Split::Items || items.len() >= stop_after {
                return (items, split);
            }
        }
        (items, Split::Items)
    }

    #[test]
    fn items_are_found_across_pieces() {
        let text = r#" [ {"a": "x,]}\"y", "b": [1, {"c": 2}]}, 3 ,"s]" ,null, [4,[5]], {"p": "C:\\", "q": "long text, with ] and } and \\\" inside"} ] "#;
        for step in [1, 2, 3, 7, 100] {
            let (items, split) = split(text, step, usize::MAX);
            assert_eq!(split, Split::End, "step {step}");
            assert_eq!(
                items,
                [
                    r#"{"a": "x,]}\"y", "b": [1, {"c": 2}]}"#,
                    "3 ",
                    r#""s]" "#,
                    "null",
                    "[4,[5]]",
                    r#"{"p": "C:\\", "q": "long text, with ] and } and \\\" inside"} "#
                ],
                "step {step}"
            );
        }
        assert_eq!(split("[]", 1, usize::MAX), (vec![], Split::End));
    }

    #[test]
    fn a_taker_stops_the_read_and_big_items_are_refused() {
        let (items, split) = split("[1,2,3,4]", 2, 2);
        assert_eq!((items.len(), split), (2, Split::Items));
        let mut splitter = ItemSplitter::default();
        let long = format!("[\"{}\"]", "x".repeat(50));
        // Refused as soon as the item is longer than the cap (its quote starts at 1).
        assert_eq!(
            splitter.feed(long.as_bytes(), 10, |_| true),
            Split::TooLarge(11)
        );
    }

    #[test]
    fn an_object_is_not_a_list() {
        let mut splitter = ItemSplitter::default();
        assert_eq!(
            splitter.feed(b"  {\"a\": 1}", 100, |_| true),
            Split::NotAList
        );
        assert_eq!(splitter.into_bytes(), b"  {\"a\": 1}");
    }

    #[test]
    fn content_ranges() {
        assert_eq!(parse_content_range("bytes 0-99/1234"), (0, Some(1234)));
        assert_eq!(parse_content_range("bytes 100-199/*"), (100, None));
        assert_eq!(parse_content_range("items 1-2"), (0, None));
    }
}

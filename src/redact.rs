//! Keeps secrets (the GitLab token, a password in `GITLAB_URL`) out of everything we write.
//!
//! A secret can come back from GitLab inside a description, a log or an error, and on its
//! way out it may be escaped for Markdown (`glpat-x9\_-...`), for JSON, or percent-encoded
//! in a URL. `Redactor` finds all of these forms: it matches the secret while skipping
//! backslashes between its characters, and also matches its JSON, URL and form encodings.
//! The client redacts GitLab's bodies as they arrive (so later truncation can never leave
//! half a token), the dispatcher scrubs every outcome again, and the log writer scrubs
//! every log line.

use std::borrow::Cow;
use std::io::Write;
use std::sync::{Arc, RwLock};

/// What a secret is replaced with.
pub const MASK: &str = "[redacted]";

/// Secrets shorter than this are not redacted: they would match ordinary text.
const MIN_SECRET: usize = 4;

/// A set of secrets and the encodings in which each may appear.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Each secret as written (matched with backslashes allowed between characters).
    plain: Vec<String>,
    /// Encoded forms that differ from the plain one: JSON-escaped, percent-encoded, form.
    encoded: Vec<String>,
}

impl Redactor {
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a str>) -> Self {
        let mut redactor = Self::default();
        for secret in secrets {
            redactor.add(secret);
        }
        redactor
    }

    pub fn add(&mut self, secret: &str) {
        if secret.len() < MIN_SECRET || self.plain.iter().any(|s| s == secret) {
            return;
        }
        let json = serde_json::to_string(secret).unwrap_or_default();
        let json = json.trim_matches('"').to_owned();
        let url = crate::gitlab::encode_component(secret);
        let form = url.replace("%20", "+");
        for form in [json, url, form] {
            if form != secret && !self.encoded.contains(&form) {
                self.encoded.push(form);
            }
        }
        self.plain.push(secret.to_owned());
        // Longest first, so a secret that contains another is masked whole.
        self.plain.sort_by_key(|s| std::cmp::Reverse(s.len()));
        self.encoded.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }

    pub fn is_empty(&self) -> bool {
        self.plain.is_empty()
    }

    /// The text with every form of every secret replaced by `MASK`.
    pub fn text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if self.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = Cow::Borrowed(text);
        for encoded in &self.encoded {
            if out.contains(encoded.as_str()) {
                out = Cow::Owned(out.replace(encoded.as_str(), MASK));
            }
        }
        for secret in &self.plain {
            if let Some(replaced) = mask_escaped(&out, secret) {
                out = Cow::Owned(replaced);
            }
        }
        out
    }

    /// Bytes that may not be UTF-8 (a raw GitLab body): secrets are masked where they
    /// appear whole; anything else is left byte for byte.
    pub fn bytes<'b>(&self, bytes: &'b [u8]) -> Cow<'b, [u8]> {
        if self.is_empty() {
            return Cow::Borrowed(bytes);
        }
        let mut out = Cow::Borrowed(bytes);
        for needle in self.plain.iter().chain(&self.encoded) {
            if let Some(replaced) = replace_bytes(&out, needle.as_bytes()) {
                out = Cow::Owned(replaced);
            }
        }
        out
    }

    /// The longest secret in bytes, which a stream must hold back between chunks.
    pub fn longest(&self) -> usize {
        self.plain
            .iter()
            .chain(&self.encoded)
            .map(String::len)
            .max()
            .unwrap_or(0)
    }

    /// Masks secrets in every string of a JSON value, keys included.
    pub fn json(&self, value: &mut serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::String(text) => {
                if let Cow::Owned(clean) = self.text(text) {
                    *text = clean;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.json(item)),
            Value::Object(map) => {
                let keys: Vec<String> = map.keys().cloned().collect();
                for key in keys {
                    let Some(mut item) = map.remove(&key) else {
                        continue;
                    };
                    self.json(&mut item);
                    map.insert(self.text(&key).into_owned(), item);
                }
            }
            _ => {}
        }
    }
}

/// Replaces `secret` in `text`, also where backslashes stand between its characters (a
/// Markdown or shell escape: `glpat-x9\_-Kd`); `None` when it does not occur.
fn mask_escaped(text: &str, secret: &str) -> Option<String> {
    let first = secret.chars().next()?;
    if !text.contains(first) {
        return None;
    }
    let wanted: Vec<char> = secret.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut found = false;
    let mut rest = text;
    while let Some(at) = rest.find(first) {
        out.push_str(&rest[..at]);
        let candidate = &rest[at..];
        match match_escaped(candidate, &wanted) {
            Some(len) => {
                out.push_str(MASK);
                rest = &candidate[len..];
                found = true;
            }
            None => {
                out.push(first);
                rest = &candidate[first.len_utf8()..];
            }
        }
    }
    out.push_str(rest);
    found.then_some(out)
}

/// The byte length of the match of `wanted` at the start of `text`, skipping backslashes
/// before each character after the first.
fn match_escaped(text: &str, wanted: &[char]) -> Option<usize> {
    let mut chars = text.char_indices().peekable();
    for (index, &want) in wanted.iter().enumerate() {
        if index > 0 {
            while chars
                .peek()
                .is_some_and(|&(_, c)| c == '\\' && want != '\\')
            {
                chars.next();
            }
        }
        match chars.next() {
            Some((_, c)) if c == want => {}
            _ => return None,
        }
    }
    Some(chars.peek().map_or(text.len(), |&(at, _)| at))
}

fn replace_bytes(haystack: &[u8], needle: &[u8]) -> Option<Vec<u8>> {
    if needle.is_empty() {
        return None;
    }
    // Every GitLab body passes through here: a vectorised search, not a comparison at
    // every byte (which was a sixth of a 20-item list's CPU).
    let mut found = memchr::memmem::find_iter(haystack, needle).peekable();
    found.peek()?;
    let mut out = Vec::with_capacity(haystack.len());
    let mut start = 0;
    for index in found {
        out.extend_from_slice(&haystack[start..index]);
        out.extend_from_slice(MASK.as_bytes());
        start = index + needle.len();
    }
    out.extend_from_slice(&haystack[start..]);
    Some(out)
}

/// The secrets the log writer masks: process-wide, because logging is.
static LOG_SECRETS: RwLock<Option<Arc<Redactor>>> = RwLock::new(None);

/// Adds secrets for the log writer to mask from now on.
pub fn register_for_logs<'a>(secrets: impl IntoIterator<Item = &'a str>) {
    let mut guard = LOG_SECRETS
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut redactor = guard.as_deref().cloned().unwrap_or_default();
    for secret in secrets {
        redactor.add(secret);
    }
    *guard = Some(Arc::new(redactor));
}

fn log_redactor() -> Option<Arc<Redactor>> {
    LOG_SECRETS
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

/// A `tracing_subscriber` writer to stderr that masks registered secrets in each event.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogWriter;

/// One log event, buffered so it is scrubbed whole before it reaches stderr.
pub struct LogLine(Vec<u8>);

impl Write for LogLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for LogLine {
    fn drop(&mut self) {
        let mut line = match log_redactor() {
            Some(redactor) => redactor.bytes(&self.0).into_owned(),
            None => std::mem::take(&mut self.0),
        };
        let _ = REQUEST_SECRETS.try_with(|redactor| {
            if let Cow::Owned(clean) = redactor.bytes(&line) {
                line = clean;
            }
        });
        let _ = std::io::stderr().write_all(&line);
    }
}

tokio::task_local! {
    /// The secrets of the request this task serves (Streamable HTTP: each request's own
    /// token), masked in its log lines as the process-wide ones are.
    static REQUEST_SECRETS: Arc<Redactor>;
}

/// Runs `work` with `redactor`'s secrets masked in every log line it writes.
pub async fn scoped<F: Future>(redactor: Arc<Redactor>, work: F) -> F::Output {
    REQUEST_SECRETS.scope(redactor, work).await
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogWriter {
    type Writer = LogLine;

    fn make_writer(&'a self) -> Self::Writer {
        LogLine(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "glpat-x9_-Kd2Lm8Qp";

    #[test]
    fn every_encoding_of_the_token_is_masked() {
        let redactor = Redactor::new([TOKEN]);
        for text in [
            format!("plain {TOKEN} end"),
            "markdown glpat-x9\\_-Kd2Lm8Qp end".to_owned(),
            "doubly glpat\\-x9\\_\\-Kd2Lm8Qp end".to_owned(),
            format!(
                "url ?private_token={} end",
                crate::gitlab::encode_component(TOKEN)
            ),
            format!("json {}", serde_json::to_string(TOKEN).unwrap()),
        ] {
            let clean = redactor.text(&text);
            assert!(clean.contains(MASK), "{text} -> {clean}");
            assert!(!clean.contains("Kd2Lm8Qp"), "{text} -> {clean}");
        }
        assert_eq!(redactor.text("nothing here"), "nothing here");
    }

    #[test]
    fn secrets_with_special_characters_are_masked_in_their_encodings() {
        let secret = "p@ss w/rd\"";
        let redactor = Redactor::new([secret]);
        for text in [
            "a p%40ss%20w%2Frd%22 b".to_owned(),
            "a p%40ss+w%2Frd%22 b".to_owned(),
            "a p@ss w/rd\\\" b".to_owned(),
        ] {
            assert!(!redactor.text(&text).contains("rd"), "{text}");
        }
    }

    #[test]
    fn bytes_and_json_are_masked() {
        let redactor = Redactor::new([TOKEN]);
        let body = format!("{{\"description\":\"{TOKEN}\"}}").into_bytes();
        let clean = redactor.bytes(&body);
        assert!(!String::from_utf8_lossy(&clean).contains(TOKEN));
        let twice = format!("{TOKEN}{TOKEN} and {TOKEN}.");
        assert_eq!(
            redactor.bytes(twice.as_bytes()).as_ref(),
            format!("{MASK}{MASK} and {MASK}.").as_bytes()
        );
        assert!(matches!(redactor.bytes(b"nothing here"), Cow::Borrowed(_)));
        let mut value = serde_json::json!({"a": [format!("x{TOKEN}")], TOKEN: 1});
        redactor.json(&mut value);
        assert!(!value.to_string().contains(TOKEN), "{value}");
    }

    #[test]
    fn short_secrets_are_ignored() {
        let redactor = Redactor::new(["abc"]);
        assert!(redactor.is_empty());
        assert_eq!(redactor.text("abc"), "abc");
    }
}

//! The stdio JSON-RPC wire, guarded: every message that cannot be served gets an error
//! reply instead of silence (a client would otherwise wait for its own timeout).
//!
//! rmcp's stdio transport skips lines that are not JSON, drops oversized lines without a
//! word, and reads a `tools/call` whose params have the wrong shape as an unknown method
//! (-32601). This transport reads the lines itself and answers:
//! - -32700 (parse error) for bytes that are not JSON;
//! - -32600 (invalid request) for JSON that is not a message, and for a message over the
//!   size limit, with the request's id when its first bytes show it;
//! - -32602 (invalid params) for a known method whose params do not fit its shape.
//!
//! Everything else goes to rmcp unchanged, and replies are written by rmcp's own writer.

use rmcp::RoleServer;
use rmcp::model::{ClientRequest, ErrorCode, ErrorData, JsonRpcMessage, NumberOrString};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

/// How much of an oversized message is kept to find its id.
const ID_WINDOW: usize = 4096;

/// The methods a client may call on this server, whose params rmcp reads into types.
const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/templates/list",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
];

pub struct GuardedWire<R, W>
where
    W: AsyncWrite + Send + Unpin + 'static,
{
    read: BufReader<R>,
    /// The line being read; survives a cancelled `receive`.
    line: Vec<u8>,
    /// Bytes of the current line beyond the limit, when it is oversized.
    over: Option<usize>,
    limit: usize,
    out: AsyncRwTransport<RoleServer, tokio::io::Empty, W>,
}

impl<R, W> GuardedWire<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub fn new(read: R, write: W, limit: usize) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            over: None,
            limit,
            out: AsyncRwTransport::new_server(tokio::io::empty(), write),
        }
    }

    /// Reads one line, keeping at most `limit` bytes of it (or `ID_WINDOW` once over).
    /// Cancel-safe: bytes are consumed only after they are stored.
    async fn read_line(&mut self) -> Option<std::io::Result<()>> {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(available) => available,
                Err(error) => return Some(Err(error)),
            };
            if available.is_empty() {
                return None;
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let piece = &available[..newline.unwrap_or(take)];
            match &mut self.over {
                Some(extra) => {
                    *extra += piece.len();
                    let room = ID_WINDOW.saturating_sub(self.line.len());
                    self.line.extend_from_slice(&piece[..piece.len().min(room)]);
                }
                None if self.line.len() + piece.len() > self.limit => {
                    self.over = Some(self.line.len() + piece.len());
                    self.line.truncate(ID_WINDOW);
                    let room = ID_WINDOW.saturating_sub(self.line.len());
                    self.line.extend_from_slice(&piece[..piece.len().min(room)]);
                }
                None => self.line.extend_from_slice(piece),
            }
            self.read.consume(take);
            if newline.is_some() {
                return Some(Ok(()));
            }
        }
    }

    /// Writes an error reply without blocking the read loop (a cancelled `receive` must
    /// not leave half a reply on stdout).
    fn reply(&mut self, error: ErrorData, id: Option<NumberOrString>) {
        let message: TxJsonRpcMessage<RoleServer> = JsonRpcMessage::error(error, id);
        let send = self.out.send(message);
        tokio::spawn(async move {
            if let Err(error) = send.await {
                tracing::warn!(%error, "could not write an error reply");
            }
        });
    }
}

/// What to do with one message (a stdio line, or an HTTP request body).
pub(crate) enum Verdict {
    Deliver(Box<RxJsonRpcMessage<RoleServer>>),
    Reply(ErrorData, Option<NumberOrString>),
    Skip,
}

pub(crate) fn judge(line: &[u8]) -> Verdict {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    // The common case in one pass: a message rmcp reads, of a method it knows.
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(JsonRpcMessage::Request(request))
            if matches!(request.request, ClientRequest::CustomRequest(_)) => {}
        Ok(message) => return Verdict::Deliver(Box::new(message)),
        Err(_) => {}
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(error) => {
            return Verdict::Reply(
                ErrorData::new(
                    ErrorCode::PARSE_ERROR,
                    format!("Parse error: the message is not JSON ({error})"),
                    None,
                ),
                None,
            );
        }
    };
    let id = value.get("id").and_then(request_id);
    let method = value
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let known = method.as_deref().is_some_and(|m| METHODS.contains(&m));
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
        Ok(JsonRpcMessage::Request(request))
            if known && matches!(request.request, ClientRequest::CustomRequest(_)) =>
        {
            let method = method.unwrap_or_default();
            Verdict::Reply(invalid_params(&method, &value), Some(request.id))
        }
        Ok(message) => Verdict::Deliver(Box::new(message)),
        // A notification gets no reply, even a broken one (rmcp ignores unknown ones).
        Err(_) if value.get("id").is_none() && method.is_some() => Verdict::Skip,
        Err(_) if known => {
            let method = method.unwrap_or_default();
            Verdict::Reply(invalid_params(&method, &value), id)
        }
        Err(error) => Verdict::Reply(
            ErrorData::invalid_request(
                format!("Invalid request: not a JSON-RPC 2.0 message ({error})"),
                None,
            ),
            id,
        ),
    }
}

/// -32602 with what is wrong; `tools/call` is spelled out, being the one that matters.
fn invalid_params(method: &str, message: &Value) -> ErrorData {
    let params = message.get("params");
    let problem = if method == "tools/call" {
        match params {
            Some(Value::Object(params)) => match (params.get("name"), params.get("arguments")) {
                (None, _) => "`name` is missing".to_owned(),
                (Some(name), _) if !name.is_string() => "`name` must be a string".to_owned(),
                (_, Some(arguments)) if !arguments.is_object() && !arguments.is_null() => {
                    "`arguments` must be an object".to_owned()
                }
                _ => "a field has the wrong type".to_owned(),
            },
            _ => "params must be an object with `name` and `arguments`".to_owned(),
        }
    } else {
        "params do not have the shape this method takes".to_owned()
    };
    ErrorData::invalid_params(format!("Invalid params for {method}: {problem}"), None)
}

fn request_id(value: &Value) -> Option<NumberOrString> {
    match value {
        Value::Number(n) => n.as_i64().map(NumberOrString::Number),
        Value::String(s) => Some(NumberOrString::String(s.as_str().into())),
        _ => None,
    }
}

/// The top-level `"id"` of a message cut short: its first bytes, scanned for the key at
/// depth one (clients usually write `id` before `params`).
fn id_in_prefix(prefix: &[u8]) -> Option<NumberOrString> {
    let text = String::from_utf8_lossy(prefix);
    let bytes = text.as_bytes();
    let mut depth = 0;
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            b'"' => {
                let end = string_end(bytes, index)?;
                let key = &text[index..=end];
                let rest = text[end + 1..].trim_start();
                if depth == 1 && key == "\"id\"" && rest.starts_with(':') {
                    let value = rest[1..].trim_start();
                    let token: String = if value.starts_with('"') {
                        let close = string_end(value.as_bytes(), 0)?;
                        value[..=close].to_owned()
                    } else {
                        value
                            .chars()
                            .take_while(|c| c.is_ascii_digit() || *c == '-')
                            .collect()
                    };
                    return serde_json::from_str::<Value>(&token)
                        .ok()
                        .as_ref()
                        .and_then(request_id);
                }
                index = end;
            }
            _ => {}
        }
        index += 1;
    }
    None
}

/// The index of the quote closing the string that opens at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut index = start + 1;
    while index < bytes.len() {
        match bytes[index] {
            b'\\' => index += 2,
            b'"' => return Some(index),
            _ => index += 1,
        }
    }
    None
}

impl<R, W> Transport<RoleServer> for GuardedWire<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.out.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await? {
                Ok(()) => {}
                Err(error) => {
                    tracing::error!(%error, "reading stdin failed");
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            if let Some(size) = self.over.take() {
                let limit = self.limit;
                tracing::warn!(size, limit, "refused an oversized message");
                self.reply(
                    ErrorData::invalid_request(
                        format!(
                            "Invalid request: the message is {size} bytes, over this server's limit of {limit} bytes (GITLAB_MCP_MAX_MESSAGE_BYTES). Nothing was done; send less at once."
                        ),
                        None,
                    ),
                    id_in_prefix(&line),
                );
                continue;
            }
            match judge(&line) {
                Verdict::Deliver(message) => return Some(*message),
                Verdict::Reply(error, id) => self.reply(error, id),
                Verdict::Skip => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.out.close().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_found_in_a_cut_message() {
        let cut = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":99,"body":"xxxx"#;
        assert_eq!(id_in_prefix(cut), None);
        let cut = br#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"id":7,"body":"xx"#;
        assert_eq!(id_in_prefix(cut), Some(NumberOrString::Number(41)));
        let cut = br#"{"id" : "abc\"d","params":{"#;
        assert_eq!(
            id_in_prefix(cut),
            Some(NumberOrString::String("abc\"d".into()))
        );
    }

    #[test]
    fn verdicts() {
        assert!(
            matches!(judge(b"{nope"), Verdict::Reply(e, None) if e.code == ErrorCode::PARSE_ERROR)
        );
        assert!(matches!(judge(b"  "), Verdict::Skip));
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}"#),
            Verdict::Reply(e, Some(_)) if e.code == ErrorCode::INVALID_PARAMS
        ));
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            Verdict::Deliver(_)
        ));
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","method":"notifications/whatever","params":1}"#),
            Verdict::Skip | Verdict::Deliver(_)
        ));
    }
}

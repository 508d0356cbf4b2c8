//! The stdio JSON-RPC wire, guarded: every message that cannot be served gets an error
//! reply instead of silence (a client would otherwise wait for its own timeout).
//!
//! rmcp's stdio transport skips lines that are not JSON, drops oversized lines without a
//! word, and reads a `tools/call` whose params have the wrong shape as an unknown method
//! (-32601). This transport reads the lines itself and answers:
//! - -32700 (parse error) for bytes that are not JSON, with `"id": null`;
//! - -32600 (invalid request) for JSON that is not a JSON-RPC 2.0 message (not an object,
//!   no `"jsonrpc": "2.0"`, an id that is not a string or an integer, a method that is not
//!   a string), and for a message over the size limit, with the request's id when it can
//!   be read and `"id": null` when it cannot;
//! - -32602 (invalid params) for a known method whose params do not fit its shape.
//!
//! Everything else goes to rmcp unchanged. Replies are written here, one whole line at a
//! time under one lock: rmcp's writer leaves out an id it does not know, where JSON-RPC
//! 2.0 asks for `"id": null`.
//!
//! A `tools/list` answer may arrive with its tools as JSON text prepared in advance
//! (`LISTING_KEY` in its `_meta`, and no tools): the text is written in their place. The
//! individual surface's thousand tools are 1.4 MB that need not be parsed into rmcp's
//! `Tool`s and written out again; everything else about the answer is rmcp's.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    ClientRequest, ErrorCode, ErrorData, JsonRpcMessage, NumberOrString, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The `_meta` key of a `tools/list` answer whose tools are this JSON text (an array),
/// for the wire to write in place of its empty `tools`.
pub const LISTING_KEY: &str = "io.gitlab-mcp/listing";

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
    out: Arc<tokio::sync::Mutex<W>>,
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
            out: Arc::new(tokio::sync::Mutex::new(write)),
        }
    }

    /// Writes one line whole: concurrent replies never interleave.
    fn write_line(&self, line: Vec<u8>) -> impl Future<Output = std::io::Result<()>> + 'static {
        self.write_with(line, None)
    }

    /// Writes one line whole, with `text` put in at a byte offset of `line` when given (a
    /// megabyte of tools is written as it is, not copied into the line first).
    fn write_with(
        &self,
        mut line: Vec<u8>,
        insert: Option<(usize, String)>,
    ) -> impl Future<Output = std::io::Result<()>> + 'static {
        let out = self.out.clone();
        line.push(b'\n');
        async move {
            let mut out = out.lock().await;
            match &insert {
                Some((at, text)) => {
                    out.write_all(&line[..*at]).await?;
                    out.write_all(text.as_bytes()).await?;
                    out.write_all(&line[*at..]).await?;
                }
                None => out.write_all(&line).await?,
            }
            out.flush().await
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
        let send = self.write_line(error_reply(&error, id.as_ref()).to_string().into_bytes());
        tokio::spawn(async move {
            if let Err(error) = send.await {
                tracing::warn!(%error, "could not write an error reply");
            }
        });
    }
}

/// An error reply; JSON-RPC 2.0 writes `"id": null` when the request's id is unknown.
pub(crate) fn error_reply(error: &ErrorData, id: Option<&NumberOrString>) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error})
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
    let Some(fields) = value.as_object() else {
        return invalid_request("a JSON-RPC message is an object", None);
    };
    let id = match fields.get("id") {
        None => None,
        Some(id) => match request_id(id) {
            Some(id) => Some(id),
            None => {
                return invalid_request("`id` must be a string or an integer", None);
            }
        },
    };
    if fields.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid_request("it must say `\"jsonrpc\": \"2.0\"`", id);
    }
    if fields.get("method").is_some_and(|m| !m.is_string()) {
        return invalid_request("`method` must be a string", id);
    }
    let method = fields
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
        Err(error) => invalid_request(&format!("not a JSON-RPC 2.0 message ({error})"), id),
    }
}

/// The tools text of a `tools/list` answer that carries one, taken out of its `_meta`.
fn take_listing(item: &mut TxJsonRpcMessage<RoleServer>) -> Option<String> {
    let JsonRpcMessage::Response(response) = item else {
        return None;
    };
    let ServerResult::ListToolsResult(result) = &mut response.result else {
        return None;
    };
    let meta = result.meta.as_mut()?;
    let Value::String(listing) = meta.0.remove(LISTING_KEY)? else {
        return None;
    };
    if meta.0.is_empty() {
        result.meta = None;
    }
    Some(listing)
}

/// Takes the answer's empty `tools` array (`[]`) out of its line, and says where the tools
/// text goes. `tools` is the last field of the result, which is the last of the answer, so
/// its key is the last `"tools":[]` of the line (inside a JSON string every quote is
/// escaped; a `_meta` entry would come before it).
fn make_room(mut line: Vec<u8>) -> (Vec<u8>, Option<usize>) {
    const KEY: &[u8] = b"\"tools\":";
    let empty = [KEY, b"[]"].concat();
    let Some(found) = memchr::memmem::rfind(&line, &empty) else {
        tracing::error!("a tools/list answer without `tools`: sent as rmcp wrote it");
        return (line, None);
    };
    let at = found + KEY.len();
    line.drain(at..at + 2);
    (line, Some(at))
}

/// -32600: the message is not a JSON-RPC 2.0 request or notification.
fn invalid_request(problem: &str, id: Option<NumberOrString>) -> Verdict {
    Verdict::Reply(
        ErrorData::invalid_request(format!("Invalid request: {problem}"), None),
        id,
    )
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
        let mut item = item;
        let listing = take_listing(&mut item);
        let write = serde_json::to_vec(&item).map(|line| match listing {
            Some(listing) => {
                let (line, at) = make_room(line);
                self.write_with(line, at.map(|at| (at, listing)))
            }
            None => self.write_with(line, None),
        });
        async move { write.map_err(std::io::Error::other)?.await }
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
        self.out.lock().await.shutdown().await
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

    /// -32600 and the id, when it can be read; `None` (written `"id": null`) when not.
    fn invalid(line: &[u8]) -> Option<NumberOrString> {
        match judge(line) {
            Verdict::Reply(error, id) if error.code == ErrorCode::INVALID_REQUEST => id,
            Verdict::Reply(error, _) => panic!("{}: {error:?}", String::from_utf8_lossy(line)),
            _ => panic!("{}: not refused", String::from_utf8_lossy(line)),
        }
    }

    #[test]
    fn what_is_not_a_json_rpc_2_message_is_an_invalid_request() {
        // No `jsonrpc`, or another version: the id is echoed.
        assert_eq!(
            invalid(br#"{"id":7,"method":"tools/list"}"#),
            Some(NumberOrString::Number(7))
        );
        assert_eq!(
            invalid(br#"{"jsonrpc":"1.0","id":"a","method":"tools/call","params":{"name":"x"}}"#),
            Some(NumberOrString::String("a".into()))
        );
        assert_eq!(invalid(br#"{"method":"notifications/initialized"}"#), None);
        // An id that is not a string or an integer cannot be echoed.
        for id in ["[1]", r#"{"a":1}"#, "null", "1.5", "true"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
            assert_eq!(invalid(line.as_bytes()), None, "{line}");
        }
        // Not an object, or a method that is not a string.
        assert_eq!(invalid(b"[1,2]"), None);
        assert_eq!(invalid(b"42"), None);
        assert_eq!(
            invalid(br#"{"jsonrpc":"2.0","id":3,"method":5}"#),
            Some(NumberOrString::Number(3))
        );
    }

    /// A `tools/list` answer with its tools as text is written as the same answer with the
    /// tools themselves, and every other message as it is.
    #[test]
    fn a_listing_is_written_in_place_of_the_tools() {
        use rmcp::model::{JsonRpcResponse, JsonRpcVersion2_0, ListToolsResult, MetaObject, Tool};
        let tools: Vec<Tool> = (0..3)
            .map(|n| {
                let schema = serde_json::json!({"type": "object", "description": format!("\"tools\":[] {n}")});
                Tool::new(format!("tool_{n}"), "A \"tools\":[] tool", schema.as_object().unwrap().clone())
            })
            .collect();
        let answer = |result: ListToolsResult| -> TxJsonRpcMessage<RoleServer> {
            JsonRpcMessage::Response(JsonRpcResponse {
                jsonrpc: JsonRpcVersion2_0,
                id: NumberOrString::String("\"tools\":[]".into()),
                result: ServerResult::ListToolsResult(result),
            })
        };
        // A `_meta` entry that reads like the key comes before it.
        let mut decoy = MetaObject::new();
        decoy.0.insert("tools".into(), serde_json::json!([]));
        let mut typed = ListToolsResult::with_all_items(tools.clone()).with_ttl_ms(5);
        typed.meta = Some(decoy.clone());
        let typed = answer(typed);
        let mut text = ListToolsResult::with_all_items(Vec::new()).with_ttl_ms(5);
        let mut meta = decoy;
        meta.0.insert(
            LISTING_KEY.into(),
            Value::String(serde_json::to_string(&tools).unwrap()),
        );
        text.meta = Some(meta);
        let mut text = answer(text);
        let listing = take_listing(&mut text).expect("a listing");
        let (mut line, at) = make_room(serde_json::to_vec(&text).unwrap());
        let at = at.expect("room for the tools");
        line.splice(at..at, listing.bytes());
        assert_eq!(
            String::from_utf8(line).unwrap(),
            serde_json::to_string(&typed).unwrap()
        );
        let mut other = typed.clone();
        assert_eq!(take_listing(&mut other), None);
    }

    #[test]
    fn an_unknown_id_is_written_as_null() {
        let error = ErrorData::new(ErrorCode::PARSE_ERROR, "Parse error", None);
        let reply = error_reply(&error, None);
        assert_eq!(reply.get("id"), Some(&Value::Null), "{reply}");
        assert_eq!(reply["jsonrpc"], "2.0");
        let reply = error_reply(&error, Some(&NumberOrString::Number(4)));
        assert_eq!(reply["id"], 4);
    }
}

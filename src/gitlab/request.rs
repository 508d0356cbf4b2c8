//! One GitLab REST request, built by generated code and sent by the client.
//!
//! Every path parameter is percent-encoded as exactly one segment: `group/project`,
//! `feature/x?y#z` and `../../x` all stay inside their segment, so no parameter value can
//! change the shape of the URL. Values that are a dot segment (`.` or `..`), which URL
//! parsers resolve even when percent-encoded, are refused before anything is sent.

use std::fmt;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Serialize;
use serde_json::{Map, Value};

/// Characters left as they are in a path segment or query value: RFC 3986 unreserved.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

pub fn encode_component(text: &str) -> String {
    utf8_percent_encode(text, UNRESERVED).to_string()
}

pub use crate::kinds::Method;

impl Method {
    /// Whether a failed attempt may be repeated without changing anything twice.
    pub fn is_idempotent(self) -> bool {
        matches!(self, Self::Get)
    }
}

impl Serialize for Method {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The longest request target (the path from the server's root, and the query) sent to
/// GitLab. nginx in front of GitLab reads a request line into 8 KiB buffers and answers
/// 414 beyond them, Puma refuses a path over 8 KiB, and a proxy may just close the
/// connection: a longer target is refused before sending, naming the parameter to shorten.
pub const MAX_TARGET_BYTES: usize = 8000;

#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Literal(&'static str),
    /// A value, and the template placeholder it fills when it came from one.
    Param(String, Option<&'static str>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub method: Method,
    segments: Vec<Segment>,
    query: Vec<(String, String)>,
    body: Map<String, Value>,
    /// A file to upload: the request is then sent as `multipart/form-data`, the file beside
    /// the body's fields, instead of as JSON.
    upload: Option<Upload>,
    /// Ask for the body as text rather than JSON (job logs, raw files).
    pub raw: bool,
    /// Which of GitLab's APIs the request is for.
    pub api: Api,
}

/// GitLab's two APIs: REST under `/api/v4`, and GraphQL at `/api/graphql`, where every
/// request is a `POST` of `{operationName, query, variables}`; and its OAuth provider
/// beside them, at `/oauth/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Rest,
    Graphql {
        /// A query (not a mutation): it changes nothing, so it may be sent again.
        query: bool,
    },
    /// The instance's OAuth endpoints (`<GITLAB_URL>/oauth/...`).
    Oauth,
}

/// A file sent in a `multipart/form-data` body, under the form field `field`.
#[derive(Clone, PartialEq)]
pub struct Upload {
    pub field: &'static str,
    pub file_name: String,
    pub bytes: Vec<u8>,
}

/// The bytes are left out: they may be large, and they are the user's content.
impl fmt::Debug for Upload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upload")
            .field("field", &self.field)
            .field("file_name", &self.file_name)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

/// A value as it goes on the wire: absent, one value, or a list (`name[]=a&name[]=b`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireText {
    Absent,
    One(String),
    Many(Vec<String>),
}

/// How a parameter value is written into a path segment or a query string (`wire`), and
/// into a JSON body (`json`; `Null` when absent).
pub trait WireValue {
    fn wire(&self) -> WireText;
    fn json(&self) -> Value;
}

impl WireValue for String {
    fn wire(&self) -> WireText {
        WireText::One(self.clone())
    }

    fn json(&self) -> Value {
        Value::String(self.clone())
    }
}

impl WireValue for str {
    fn wire(&self) -> WireText {
        WireText::One(self.to_owned())
    }

    fn json(&self) -> Value {
        Value::String(self.to_owned())
    }
}

/// A JSON value (a nested object such as a diff `position`) goes into a body as it is.
impl WireValue for Value {
    fn wire(&self) -> WireText {
        match self {
            Value::Null => WireText::Absent,
            Value::String(text) => WireText::One(text.clone()),
            other => WireText::One(other.to_string()),
        }
    }

    fn json(&self) -> Value {
        self.clone()
    }
}

impl WireValue for i64 {
    fn wire(&self) -> WireText {
        WireText::One(self.to_string())
    }

    fn json(&self) -> Value {
        Value::from(*self)
    }
}

impl WireValue for f64 {
    fn wire(&self) -> WireText {
        WireText::One(self.to_string())
    }

    fn json(&self) -> Value {
        Value::from(*self)
    }
}

impl WireValue for bool {
    fn wire(&self) -> WireText {
        WireText::One(self.to_string())
    }

    fn json(&self) -> Value {
        Value::Bool(*self)
    }
}

impl<T: WireValue> WireValue for Option<T> {
    fn wire(&self) -> WireText {
        self.as_ref().map_or(WireText::Absent, WireValue::wire)
    }

    fn json(&self) -> Value {
        self.as_ref().map_or(Value::Null, WireValue::json)
    }
}

impl<T: WireValue> WireValue for Vec<T> {
    fn wire(&self) -> WireText {
        if self.is_empty() {
            return WireText::Absent;
        }
        let values = self
            .iter()
            .flat_map(|item| match item.wire() {
                WireText::Absent => Vec::new(),
                WireText::One(value) => vec![value],
                WireText::Many(values) => values,
            })
            .collect();
        WireText::Many(values)
    }

    fn json(&self) -> Value {
        Value::Array(self.iter().map(WireValue::json).collect())
    }
}

/// A `{string}` parameter: string values by key, such as a triggered pipeline's variables.
pub type StringMap = std::collections::BTreeMap<String, String>;

/// A map goes into a JSON body as an object; the manifest keeps it out of paths and
/// queries, where GitLab would want `name[KEY]=value`.
impl WireValue for StringMap {
    fn wire(&self) -> WireText {
        if self.is_empty() {
            return WireText::Absent;
        }
        WireText::One(self.json().to_string())
    }

    fn json(&self) -> Value {
        Value::Object(
            self.iter()
                .map(|(key, value)| (key.clone(), Value::String(value.clone())))
                .collect(),
        )
    }
}

impl<T: WireValue + ?Sized> WireValue for &T {
    fn wire(&self) -> WireText {
        (**self).wire()
    }

    fn json(&self) -> Value {
        (**self).json()
    }
}

/// Sets `name` in a JSON body, unless the value is absent or an empty list.
pub fn put(body: &mut Map<String, Value>, name: &str, value: &(impl WireValue + ?Sized)) {
    match value.json() {
        Value::Null => {}
        Value::Array(items) if items.is_empty() => {}
        value => put_value(body, name, value),
    }
}

/// A dotted name nests in the JSON body (`assets.links`, a GraphQL variable's
/// `input.descriptionWidget.description`), as GitLab reads it.
fn put_value(body: &mut Map<String, Value>, name: &str, value: Value) {
    match name.split_once('.') {
        Some((outer, inner)) => {
            let nested = body
                .entry(outer.to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(nested) = nested {
                put_value(nested, inner, value);
            }
        }
        None => {
            body.insert(name.to_owned(), value);
        }
    }
}

/// Why a request cannot be sent as built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsafePath {
    pub value: String,
}

impl Request {
    pub fn new(method: Method) -> Self {
        Self {
            method,
            segments: Vec::new(),
            query: Vec::new(),
            body: Map::new(),
            upload: None,
            raw: false,
            api: Api::Rest,
        }
    }

    /// The same request as a GraphQL operation: the body built from the parameters
    /// becomes its `variables`, sent as `POST /api/graphql` with the document and its
    /// operation name.
    pub fn into_graphql(self, operation: &str, document: &str, query: bool) -> Self {
        let mut body = Map::new();
        body.insert("operationName".into(), Value::from(operation));
        body.insert("query".into(), Value::from(document));
        body.insert("variables".into(), Value::Object(self.body));
        Self {
            method: Method::Post,
            segments: vec![Segment::Literal("graphql")],
            query: Vec::new(),
            body,
            upload: None,
            raw: false,
            api: Api::Graphql { query },
        }
    }

    /// `GET <GITLAB_URL>/oauth/token/info`: what GitLab says of the OAuth token the request
    /// carries (its application, scopes and remaining lifetime); 401 for a token that is
    /// not a live OAuth token.
    pub fn oauth_token_info() -> Self {
        Self {
            segments: vec![
                Segment::Literal("oauth"),
                Segment::Literal("token"),
                Segment::Literal("info"),
            ],
            api: Api::Oauth,
            ..Self::new(Method::Get)
        }
    }

    /// Sets a variable of a GraphQL request (a dotted name nests: `input.id`); handlers
    /// use it for what they looked up.
    pub fn set_variable(mut self, name: &str, value: impl Into<Value>) -> Self {
        if let Some(Value::Object(variables)) = self.body.get_mut("variables") {
            put_value(variables, name, value.into());
        }
        self
    }

    /// A GraphQL variable as it will be sent (`fullPath`, `input.title`); `""` is all of
    /// them.
    pub fn variable(&self, name: &str) -> Option<&Value> {
        let mut current = self.body.get("variables")?;
        for part in name.split('.').filter(|part| !part.is_empty()) {
            current = current.get(part)?;
        }
        Some(current)
    }

    /// Whether a failed attempt may be repeated without changing anything twice: a GET,
    /// or a GraphQL query.
    pub fn is_idempotent(&self) -> bool {
        self.method.is_idempotent() || self.api == (Api::Graphql { query: true })
    }

    pub fn segment(mut self, literal: &'static str) -> Self {
        self.segments.push(Segment::Literal(literal));
        self
    }

    /// The whole path from a template (`/projects/{project_id}/merge_requests`): literal
    /// segments as written, each `{placeholder}` filled by the next of `params`, in order.
    pub fn at(mut self, template: &'static str, params: &[&dyn WireValue]) -> Self {
        let mut params = params.iter();
        for part in template.split('/').filter(|part| !part.is_empty()) {
            if let Some(name) = part.strip_prefix('{') {
                if let Some(param) = params.next() {
                    self = self.push_param(Some(name.trim_end_matches('}')), *param);
                }
            } else {
                self = self.segment(part);
            }
        }
        self
    }

    /// A parameter that fills one path segment.
    pub fn param(self, value: &(impl WireValue + ?Sized)) -> Self {
        self.push_param(None, value)
    }

    fn push_param(mut self, name: Option<&'static str>, value: &(impl WireValue + ?Sized)) -> Self {
        let text = match value.wire() {
            WireText::One(text) => text,
            WireText::Many(values) => values.join(","),
            WireText::Absent => String::new(),
        };
        self.segments.push(Segment::Param(text, name));
        self
    }

    pub fn query(mut self, name: &str, value: &(impl WireValue + ?Sized)) -> Self {
        match value.wire() {
            WireText::Absent => {}
            WireText::One(text) => self.query.push((name.to_owned(), text)),
            WireText::Many(values) => {
                let key = format!("{name}[]");
                self.query
                    .extend(values.into_iter().map(|value| (key.clone(), value)));
            }
        }
        self
    }

    pub fn body(mut self, name: &str, value: &(impl WireValue + ?Sized)) -> Self {
        put(&mut self.body, name, value);
        self
    }

    /// Moves the entries of the object under `name` to the top of the JSON body, where
    /// GitLab reads them (an integration's settings); a field already there is kept.
    pub fn spread_body(mut self, name: &str) -> Self {
        if let Some(Value::Object(entries)) = self.body.remove(name) {
            for (key, value) in entries {
                self.body.entry(key).or_insert(value);
            }
        }
        self
    }

    /// Sends `bytes` as the file `file_name` in the form field `field`: the request goes
    /// as `multipart/form-data`, every body field a text part beside the file.
    pub fn upload(mut self, field: &'static str, file_name: &str, bytes: Vec<u8>) -> Self {
        self.upload = Some(Upload {
            field,
            file_name: file_name.to_owned(),
            bytes,
        });
        self
    }

    pub fn raw(mut self) -> Self {
        self.raw = true;
        self
    }

    /// Replaces (or adds) a query parameter; handlers use it for follow-up pages.
    pub fn set_query(mut self, name: &str, value: impl Into<String>) -> Self {
        self.query.retain(|(key, _)| key != name);
        self.query.push((name.to_owned(), value.into()));
        self
    }

    /// The value of the path parameter that follows the literal segment `literal`
    /// (`milestones` in `/projects/1/milestones/v1.4`): handlers that resolve a name
    /// to GitLab's id read it here.
    pub fn param_after(&self, literal: &str) -> Option<&str> {
        let at = self
            .segments
            .iter()
            .position(|s| matches!(s, Segment::Literal(l) if *l == literal))?;
        match self.segments.get(at + 1)? {
            Segment::Param(value, _) => Some(value),
            Segment::Literal(_) => None,
        }
    }

    /// The same request with the path parameter after `literal` replaced by `value`.
    pub fn with_param_after(mut self, literal: &str, value: impl Into<String>) -> Self {
        if let Some(at) = self
            .segments
            .iter()
            .position(|s| matches!(s, Segment::Literal(l) if *l == literal))
            && let Some(Segment::Param(slot, _)) = self.segments.get_mut(at + 1)
        {
            *slot = value.into();
        }
        self
    }

    /// A GET of what a state change acts on: the path without its last literal segment
    /// (`/projects/1/labels/bug` for `/projects/1/labels/bug/subscribe`), without query or
    /// body. None when the path does not end in a literal after a parameter.
    pub fn subject(&self) -> Option<Request> {
        let (last, rest) = self.segments.split_last()?;
        if !matches!(last, Segment::Literal(_)) || !matches!(rest.last(), Some(Segment::Param(..)))
        {
            return None;
        }
        Some(Request {
            method: Method::Get,
            segments: rest.to_vec(),
            query: Vec::new(),
            body: Map::new(),
            upload: None,
            raw: false,
            api: Api::Rest,
        })
    }

    /// A GET of the path up to and including the literal segment `literal`, without
    /// query or body: the collection a path parameter is looked up in.
    pub fn collection_of(&self, literal: &str) -> Option<Request> {
        let at = self
            .segments
            .iter()
            .position(|s| matches!(s, Segment::Literal(l) if *l == literal))?;
        Some(Request {
            method: Method::Get,
            segments: self.segments[..=at].to_vec(),
            query: Vec::new(),
            body: Map::new(),
            upload: None,
            raw: false,
            api: Api::Rest,
        })
    }

    pub fn query_value(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The encoded path, relative to `/api/v4` (`/projects/acme%2Fapi/merge_requests`), or
    /// to `/api` for GraphQL (`/graphql`).
    pub fn path(&self) -> Result<String, UnsafePath> {
        let mut path = String::new();
        for segment in &self.segments {
            path.push('/');
            match segment {
                Segment::Literal(text) => path.push_str(text),
                Segment::Param(value, _) => {
                    if value.is_empty() || value == "." || value == ".." {
                        return Err(UnsafePath {
                            value: value.clone(),
                        });
                    }
                    path.push_str(&encode_component(value));
                }
            }
        }
        Ok(path)
    }

    /// The encoded query string, without `?`; empty when there is none.
    pub fn query_string(&self) -> String {
        let pairs: Vec<String> = self
            .query
            .iter()
            .map(|(key, value)| format!("{}={}", encode_component(key), encode_component(value)))
            .collect();
        pairs.join("&")
    }

    /// Path and query together, as they appear in the upstream request line.
    pub fn target(&self) -> Result<String, UnsafePath> {
        let path = self.path()?;
        let query = self.query_string();
        Ok(if query.is_empty() {
            path
        } else {
            format!("{path}?{query}")
        })
    }

    /// The parameter that takes the most bytes of the target, by the name the caller
    /// knows it by (a path placeholder, or a query key without `[]`), with those bytes.
    /// `None` for the name of a path value a handler added.
    pub fn largest_part(&self) -> (Option<String>, usize) {
        let mut parts: Vec<(Option<String>, usize)> = Vec::new();
        for segment in &self.segments {
            if let Segment::Param(value, name) = segment {
                let name = name.map(str::to_owned);
                parts.push((name, encode_component(value).len() + 1));
            }
        }
        for (key, value) in &self.query {
            let name = key.trim_end_matches("[]").to_owned();
            let bytes = encode_component(key).len() + encode_component(value).len() + 2;
            match parts.iter_mut().find(|(n, _)| n.as_deref() == Some(&name)) {
                Some((_, total)) => *total += bytes,
                None => parts.push((Some(name), bytes)),
            }
        }
        parts
            .into_iter()
            .rev()
            .max_by_key(|(_, bytes)| *bytes)
            .unwrap_or((None, 0))
    }

    /// The JSON body, unless the request uploads a file (`form`).
    pub fn json_body(&self) -> Option<&Map<String, Value>> {
        (self.upload.is_none()
            && (!self.body.is_empty() || !matches!(self.method, Method::Get | Method::Delete)))
        .then_some(&self.body)
    }

    /// The file and the text fields of a `multipart/form-data` body, when the request
    /// uploads one. Fields are named as GitLab reads a form: a nested object's as
    /// `outer[inner]`, a list's items each as `name[]`.
    pub fn form(&self) -> Option<(Vec<(String, String)>, &Upload)> {
        let upload = self.upload.as_ref()?;
        let mut fields = Vec::new();
        for (name, value) in &self.body {
            form_fields(name, value, &mut fields);
        }
        Some((fields, upload))
    }
}

fn form_fields(name: &str, value: &Value, fields: &mut Vec<(String, String)>) {
    match value {
        Value::Null => {}
        Value::String(text) => fields.push((name.to_owned(), text.clone())),
        Value::Array(items) => {
            for item in items {
                form_fields(&format!("{name}[]"), item, fields);
            }
        }
        Value::Object(nested) => {
            for (inner, item) in nested {
                form_fields(&format!("{name}[{inner}]"), item, fields);
            }
        }
        other => fields.push((name.to_owned(), other.to_string())),
    }
}

/// A project or group: a numeric id, or a full path such as `group/sub/project`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum PathOrId {
    Id(i64),
    Path(String),
}

impl PathOrId {
    /// A numeric string is an id (`"42"`); anything else, `0`-prefixed or signed numbers
    /// included, is a path.
    pub fn parse(text: &str) -> Self {
        match text.parse::<i64>() {
            Ok(id) if !text.starts_with(['+', '-', '0']) => Self::Id(id),
            _ => Self::Path(text.to_owned()),
        }
    }
}

impl Default for PathOrId {
    fn default() -> Self {
        Self::Path(String::new())
    }
}

impl<'de> serde::Deserialize<'de> for PathOrId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Id(i64),
            Text(String),
        }
        Ok(match Raw::deserialize(deserializer)? {
            Raw::Id(id) => Self::Id(id),
            Raw::Text(text) => Self::parse(&text),
        })
    }
}

impl fmt::Display for PathOrId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Id(id) => write!(f, "{id}"),
            Self::Path(path) => f.write_str(path),
        }
    }
}

impl WireValue for PathOrId {
    fn wire(&self) -> WireText {
        WireText::One(self.to_string())
    }

    fn json(&self) -> Value {
        match self {
            Self::Id(id) => Value::from(*id),
            Self::Path(path) => Value::String(path.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upload_sends_a_form_instead_of_json() {
        let plain = Request::new(Method::Post)
            .segment("uploads")
            .body("branch", "main");
        assert!(plain.form().is_none());
        assert!(plain.json_body().is_some());

        let upload = plain
            .body("labels", &vec!["a".to_owned(), "b".to_owned()])
            .body("options.draft", &true)
            .upload("file", "diagram.png", vec![0x89, b'P', b'N', b'G']);
        assert_eq!(upload.json_body(), None);
        let (fields, file) = upload.form().unwrap();
        assert_eq!(
            fields,
            [
                ("branch".to_owned(), "main".to_owned()),
                ("labels[]".to_owned(), "a".to_owned()),
                ("labels[]".to_owned(), "b".to_owned()),
                ("options[draft]".to_owned(), "true".to_owned()),
            ]
        );
        assert_eq!(
            (file.field, file.file_name.as_str()),
            ("file", "diagram.png")
        );
        assert_eq!(file.bytes, [0x89, b'P', b'N', b'G']);
        // The bytes never reach a log line through Debug.
        assert!(format!("{upload:?}").contains("bytes: 4"));
    }

    #[test]
    fn path_params_stay_in_one_segment() {
        let request = Request::new(Method::Get)
            .segment("projects")
            .param(&PathOrId::Path("group/sub/project".into()))
            .segment("repository")
            .segment("files")
            .param("dir/file name?x=1#frag");
        assert_eq!(
            request.path().unwrap(),
            "/projects/group%2Fsub%2Fproject/repository/files/dir%2Ffile%20name%3Fx%3D1%23frag"
        );
    }

    #[test]
    fn the_largest_part_of_a_target_is_named() {
        let request = Request::new(Method::Get)
            .at("/projects/{project_id}/issues", &[&"acme/api".to_owned()])
            .query("iids", &vec![1_i64, 2, 3])
            .query("search", "x".repeat(40).as_str());
        assert_eq!(request.largest_part(), (Some("search".to_owned()), 48));
        // Each `iids[]=n` counts toward `iids`.
        let many: Vec<i64> = (1000..1100).collect();
        let request = request.query("iids", &many);
        assert_eq!(request.largest_part().0.as_deref(), Some("iids"));
        // A path value from a template is named by its placeholder.
        let long = "g/".repeat(100);
        let request = Request::new(Method::Get).at("/projects/{project_id}", &[&long]);
        assert_eq!(request.largest_part().0.as_deref(), Some("project_id"));
        assert_eq!(
            Request::new(Method::Get).param(&long).largest_part().0,
            None
        );
    }

    #[test]
    fn dot_segments_are_refused() {
        for value in [".", "..", ""] {
            let request = Request::new(Method::Get).segment("projects").param(value);
            assert!(
                request.path().is_err(),
                "{value:?} must not become a segment"
            );
        }
        let traversal = Request::new(Method::Get)
            .segment("projects")
            .param("../../admin");
        assert_eq!(traversal.path().unwrap(), "/projects/..%2F..%2Fadmin");
    }

    #[test]
    fn query_lists_and_absent_values() {
        let request = Request::new(Method::Get)
            .query("state", &Some("opened".to_owned()))
            .query("labels", &None::<String>)
            .query("iids", &vec![1_i64, 2]);
        assert_eq!(
            request.query_string(),
            "state=opened&iids%5B%5D=1&iids%5B%5D=2"
        );
    }

    #[test]
    fn path_or_id_reads_numbers_and_paths() {
        let id: PathOrId = serde_json::from_str("42").unwrap();
        let numeric_text: PathOrId = serde_json::from_str("\"42\"").unwrap();
        let path: PathOrId = serde_json::from_str("\"acme/api\"").unwrap();
        assert_eq!(id, PathOrId::Id(42));
        assert_eq!(numeric_text, PathOrId::Id(42));
        assert_eq!(path, PathOrId::Path("acme/api".into()));
    }
}

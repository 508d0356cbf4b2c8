//! Checks a call's arguments against an action's parameters, once, into typed params.
//!
//! Each action's generated `ActionParams::check` reads every parameter through an
//! `ArgReader`: aliases become canonical names, harmless spellings are coerced (`"12"` for
//! an integer, `group%2Fproject` for a path, `OPENED` for `opened`), and every problem (an
//! unknown, repeated or missing parameter, a wrong type, a value outside its enum or bounds,
//! a path value that would leave its segment) is collected, naming the parameter and what
//! it accepts. Unknown parameters are refused, never dropped. The same pass yields the typed
//! params, the request, and the normalised arguments that placeholders are filled from.

use std::any::Any;
use std::fmt::Write as _;

use percent_encoding::percent_decode_str;
use serde_json::{Map, Number, Value};

use super::{Action, Args, Location, ParamSpec};
use crate::gitlab::{PathOrId, Request};

/// An action's typed parameters, generated from its `params:`.
pub trait ActionParams: Sized + Send + Sync + 'static {
    /// Reads every parameter. When the reader records a problem, the value returned is
    /// discarded, so a parameter that failed may hold its type's default.
    fn check(args: &mut ArgReader) -> Self;

    /// The GitLab request these params describe.
    fn request(&self) -> Request;
}

/// A checked call: what to send, the typed params, and the arguments as normalised.
pub struct Plan {
    pub request: Request,
    /// Canonical names and coerced values of the arguments given (defaults not included).
    pub args: Args,
    /// The action's `Params`, for its handler.
    pub params: Box<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("request", &self.request)
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// Checks `args` for `action` with its params type `P`: the `plan` of every catalog entry.
/// Only reading the params is particular to `P` (with the two small methods of its
/// `CheckedParams` vtable); the rest is `plan_with`, compiled once rather than once for each
/// of the catalog's thousand actions.
pub fn plan<P: ActionParams>(action: &'static Action, args: Args) -> Result<Plan, ParamProblems> {
    plan_with(action, args, check_params::<P>)
}

/// Reads `P` (a function, not a closure, so that no call shim is compiled for each `P`).
fn check_params<P: ActionParams>(reader: &mut ArgReader) -> Box<dyn CheckedParams> {
    Box::new(P::check(reader))
}

/// Checked params of some action, as `plan_with` handles them.
trait CheckedParams: Send + Sync {
    fn request(&self) -> Request;
    fn into_any(self: Box<Self>) -> Box<dyn Any + Send + Sync>;
}

impl<P: ActionParams> CheckedParams for P {
    fn request(&self) -> Request {
        ActionParams::request(self)
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any + Send + Sync> {
        self
    }
}

/// `plan` for any params type, given the one function that reads it.
fn plan_with(
    action: &'static Action,
    args: Args,
    check: fn(&mut ArgReader) -> Box<dyn CheckedParams>,
) -> Result<Plan, ParamProblems> {
    let mut reader = ArgReader::new(action, args);
    let params = check(&mut reader);
    let args = reader.finish()?;
    Ok(Plan {
        request: action.finish_request(params.request()),
        args,
        params: params.into_any(),
    })
}

/// Why arguments were refused: one line per problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamProblems {
    pub action: &'static str,
    pub problems: Vec<String>,
    pub accepted: String,
}

impl ParamProblems {
    pub fn message(&self) -> String {
        let mut out = format!("Invalid parameters for `{}`:", self.action);
        for problem in &self.problems {
            let _ = write!(out, "\n- {problem}");
        }
        let _ = write!(out, "\nAccepted parameters: {}.", self.accepted);
        out
    }
}

/// The arguments of one call (or the fields of one object argument), read parameter by
/// parameter.
pub struct ArgReader {
    /// The parameters read: an action's, or an object parameter's fields.
    specs: &'static [ParamSpec],
    /// The action, named in problems.
    owner: &'static str,
    /// The value given for each parameter (by index in `action.params`) and the key the
    /// caller used for it.
    given: Vec<Option<(String, Value)>>,
    normalized: Args,
    /// Problems with the key the caller used (reported in key order, as the caller wrote
    /// them), then missing parameters (in declaration order).
    problems: Vec<(Option<String>, String)>,
}

impl ArgReader {
    pub fn new(action: &'static Action, args: Args) -> Self {
        Self::over(action.params, action.id, args)
    }

    /// A reader over any parameter list: an object parameter's fields, say.
    pub fn over(specs: &'static [ParamSpec], owner: &'static str, args: Args) -> Self {
        let mut reader = Self {
            specs,
            owner,
            given: vec![None; specs.len()],
            normalized: Map::new(),
            problems: Vec::new(),
        };
        for (key, value) in args {
            let Some(index) = reader.index_of(&key) else {
                let what = if owner.is_empty() { "object" } else { "action" };
                let problem = unknown(specs, &key, what);
                reader.problems.push((Some(key), problem));
                continue;
            };
            if value.is_null() {
                continue;
            }
            let name = specs[index].name;
            if reader.given[index].is_some() {
                reader.problems.push((
                    Some(key.clone()),
                    format!("`{key}` and `{name}` name the same parameter; send only `{name}`"),
                ));
                continue;
            }
            reader.given[index] = Some((key, value));
        }
        reader
    }

    fn index_of(&self, key: &str) -> Option<usize> {
        let params = self.specs;
        params
            .iter()
            .position(|p| p.name == key)
            .or_else(|| params.iter().position(|p| p.aliases.contains(&key)))
    }

    /// Takes and converts the value given for `name`; `None` when absent or refused. Only
    /// the conversion depends on `T`: the rest is shared by every type (`take_given`, `record`).
    fn take<T: FromParam>(&mut self, name: &str) -> Option<T> {
        let (spec, key, value) = self.take_given(name)?;
        let (typed, normalized) = match T::from_param(value) {
            Ok((typed, normalized)) => (Some(typed), Ok(normalized)),
            Err(problem) => (None, Err(problem)),
        };
        if self.record(spec, key, normalized) {
            typed
        } else {
            None
        }
    }

    /// The spec of `name` and the key and value given for it, taken out of the reader.
    fn take_given(&mut self, name: &str) -> Option<(&'static ParamSpec, String, Value)> {
        let index = self.specs.iter().position(|p| p.name == name)?;
        let (key, value) = self.given[index].take()?;
        Some((&self.specs[index], key, value))
    }

    /// Records a converted value after the checks every type shares (bounds and path
    /// safety), or the problem with it; whether it was accepted.
    fn record(&mut self, spec: &ParamSpec, key: String, normalized: Result<Value, String>) -> bool {
        match normalized.and_then(|normalized| checked(spec, normalized)) {
            Ok(normalized) => {
                self.normalized.insert(spec.name.to_owned(), normalized);
                true
            }
            Err(problem) => {
                self.problems
                    .push((Some(key), format!("`{}`: {problem}", spec.name)));
                false
            }
        }
    }

    fn spec(&self, name: &str) -> Option<&'static ParamSpec> {
        self.specs.iter().find(|p| p.name == name)
    }

    /// A required parameter; its absence is a problem.
    pub fn required<T: FromParam + Default>(&mut self, name: &str) -> T {
        let refused = self.problems.len();
        match self.take(name) {
            Some(value) => value,
            None => {
                if self.problems.len() == refused
                    && let Some(spec) = self.spec(name)
                {
                    self.problems.push((
                        None,
                        format!("`{}` is required: {}", spec.name, spec.description),
                    ));
                }
                T::default()
            }
        }
    }

    /// An optional parameter.
    pub fn optional<T: FromParam>(&mut self, name: &str) -> Option<T> {
        self.take(name)
    }

    /// An optional parameter with a default, used (and sent) when none is given.
    pub fn or_default<T: FromParam>(&mut self, name: &str, default: T) -> T {
        self.take(name).unwrap_or(default)
    }

    /// An optional list; empty when none is given.
    pub fn list<T: FromParam>(&mut self, name: &str) -> Vec<T>
    where
        Vec<T>: FromParam,
    {
        self.take(name).unwrap_or_default()
    }

    /// The normalised arguments, or every problem found.
    pub fn finish(mut self) -> Result<Args, ParamProblems> {
        if self.problems.is_empty() {
            return Ok(self.normalized);
        }
        // Problems with a key first, in key order (as the caller's object was read), then
        // the missing parameters in declaration order.
        self.problems.sort_by(|(a, _), (b, _)| match (a, b) {
            (Some(a), Some(b)) => a.cmp(b),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        Err(ParamProblems {
            action: self.owner,
            problems: self.problems.into_iter().map(|(_, p)| p).collect(),
            accepted: accepted_of(self.specs),
        })
    }
}

/// The checks every type shares, on a converted value: bounds and path safety.
fn checked(spec: &ParamSpec, normalized: Value) -> Result<Value, String> {
    bounds(spec, &normalized)?;
    if spec.location == Location::Path {
        path_safe(&normalized)?;
    }
    Ok(normalized)
}

/// A parameter type: how a JSON argument becomes a typed value and its normal JSON form.
pub trait FromParam: Sized {
    fn from_param(value: Value) -> Result<(Self, Value), String>;
}

impl FromParam for String {
    fn from_param(value: Value) -> Result<(Self, Value), String> {
        match value {
            Value::String(text) => Ok((text.clone(), Value::String(text))),
            Value::Number(n) => Ok((n.to_string(), Value::String(n.to_string()))),
            other => Err(format!("expected a string, got {}", describe(&other))),
        }
    }
}

impl FromParam for i64 {
    fn from_param(value: Value) -> Result<(Self, Value), String> {
        let number = match &value {
            Value::Number(n) if n.is_i64() => n.as_i64(),
            Value::Number(n) => n
                .as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                .map(|f| f as i64),
            Value::String(text) => text.trim().trim_start_matches(['!', '#']).parse().ok(),
            _ => None,
        };
        number
            .map(|n| (n, Value::from(n)))
            .ok_or_else(|| format!("expected an integer, got {}", describe(&value)))
    }
}

impl FromParam for f64 {
    fn from_param(value: Value) -> Result<(Self, Value), String> {
        let number = match &value {
            Value::Number(n) => n.as_f64(),
            Value::String(text) => text.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
            _ => None,
        };
        match number.and_then(|f| Number::from_f64(f).map(|n| (f, n))) {
            Some((f, n)) => Ok((f, Value::Number(n))),
            None => Err(format!("expected a number, got {}", describe(&value))),
        }
    }
}

impl FromParam for bool {
    fn from_param(value: Value) -> Result<(Self, Value), String> {
        let flag = match &value {
            Value::Bool(flag) => Some(*flag),
            Value::String(text) if text.eq_ignore_ascii_case("true") => Some(true),
            Value::String(text) if text.eq_ignore_ascii_case("false") => Some(false),
            _ => None,
        };
        flag.map(|f| (f, Value::Bool(f)))
            .ok_or_else(|| format!("expected true or false, got {}", describe(&value)))
    }
}

impl FromParam for PathOrId {
    fn from_param(value: Value) -> Result<(Self, Value), String> {
        match value {
            Value::Number(n) if n.is_i64() => {
                let id = n.as_i64().unwrap_or_default();
                Ok((Self::Id(id), Value::from(id)))
            }
            Value::String(text) => {
                let text = text.trim();
                // A model may send the URL-encoded form GitLab's docs show (`group%2Fproject`).
                let text = if text.contains('%') {
                    percent_decode_str(text)
                        .decode_utf8()
                        .map(|t| t.into_owned())
                        .unwrap_or_else(|_| text.to_owned())
                } else {
                    text.to_owned()
                };
                match Self::parse(&text) {
                    Self::Id(id) => Ok((Self::Id(id), Value::from(id))),
                    Self::Path(_) => {
                        let path = text.trim_matches('/').to_owned();
                        Ok((Self::Path(path.clone()), Value::String(path)))
                    }
                }
            }
            other => Err(format!(
                "expected a numeric id or a path such as `group/project`, got {}",
                describe(&other)
            )),
        }
    }
}

/// A map of strings takes an object whose values are strings (numbers and booleans are
/// written as text, as GitLab reads every variable value).
impl FromParam for crate::gitlab::StringMap {
    fn from_param(value: Value) -> Result<(Self, Value), String> {
        let Value::Object(entries) = value else {
            return Err(format!(
                "expected an object of string values by key, such as {{\"VERSION\": \"2\"}}, got {}",
                describe(&value)
            ));
        };
        let mut map = Self::new();
        for (key, value) in entries {
            let text = match value {
                Value::String(text) => text,
                Value::Number(n) => n.to_string(),
                Value::Bool(flag) => flag.to_string(),
                other => {
                    return Err(format!(
                        "`{key}`: expected a string value, got {}",
                        describe(&other)
                    ));
                }
            };
            map.insert(key, text);
        }
        let normalized = Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), Value::String(value.clone())))
                .collect(),
        );
        Ok((map, normalized))
    }
}

/// A list takes an array, or one value as a list of one.
impl<T: FromParam> FromParam for Vec<T> {
    fn from_param(value: Value) -> Result<(Self, Value), String> {
        let items = match value {
            Value::Array(items) => items,
            single => vec![single],
        };
        let mut typed = Vec::with_capacity(items.len());
        let mut normalized = Vec::with_capacity(items.len());
        for (index, item) in items.into_iter().enumerate() {
            let (value, json) =
                T::from_param(item).map_err(|e| format!("item {}: {e}", index + 1))?;
            typed.push(value);
            normalized.push(json);
        }
        Ok((typed, Value::Array(normalized)))
    }
}

/// An enumerated string parameter; generated enums implement it, and `FromParam` follows.
pub trait ParamEnum: Sized + Copy + PartialEq + 'static {
    /// Every value as GitLab spells it, in declaration order.
    const VALUES: &'static [&'static str];
    /// Every variant, in the same order.
    const ALL: &'static [Self];

    /// The value as GitLab spells it.
    fn as_str(self) -> &'static str {
        let index = Self::ALL.iter().position(|v| *v == self).unwrap_or(0);
        Self::VALUES[index]
    }
}

/// Reads a generated enum: any case of one of its values.
pub fn enum_from_param<E: ParamEnum>(value: Value) -> Result<(E, Value), String> {
    value_index(E::VALUES, value).map(|(index, normalized)| (E::ALL[index], normalized))
}

/// Which of `values` a value is, in any case, with the value as spelt there: the part of
/// reading an enum that is the same for every enum.
fn value_index(values: &'static [&'static str], value: Value) -> Result<(usize, Value), String> {
    let text = value.as_str().unwrap_or_default();
    match values
        .iter()
        .position(|allowed| allowed.eq_ignore_ascii_case(text))
    {
        Some(index) => Ok((index, Value::from(values[index]))),
        None => Err(format!(
            "expected one of {}, got {}",
            values.join(", "),
            describe(&value)
        )),
    }
}

/// Declares a generated enum's parameter behaviour: `FromParam`, wire value, `Default`
/// (its first value, only ever seen when the check already failed).
#[macro_export]
macro_rules! param_enum {
    ($name:ident) => {
        impl $crate::catalog::FromParam for $name {
            fn from_param(
                value: ::serde_json::Value,
            ) -> ::std::result::Result<(Self, ::serde_json::Value), ::std::string::String> {
                $crate::catalog::enum_from_param(value)
            }
        }

        impl $crate::gitlab::WireValue for $name {
            fn wire(&self) -> $crate::gitlab::WireText {
                $crate::gitlab::WireText::One(
                    <Self as $crate::catalog::ParamEnum>::as_str(*self).to_owned(),
                )
            }

            fn json(&self) -> ::serde_json::Value {
                ::serde_json::Value::from(<Self as $crate::catalog::ParamEnum>::as_str(*self))
            }
        }

        impl ::std::default::Default for $name {
            fn default() -> Self {
                <Self as $crate::catalog::ParamEnum>::ALL[0]
            }
        }
    };
}

/// The JSON object of a request body, and of an object parameter's item.
pub type JsonObject = Map<String, Value>;

/// One object of an `[object]` parameter (a commit's file actions, a release's links):
/// generated per parameter, read field by field like an action's own parameters.
pub trait ObjectParam: Sized + 'static {
    const FIELDS: &'static [ParamSpec];

    fn check(fields: &mut ArgReader) -> Self;

    /// Writes the fields into the object GitLab receives, under GitLab's names.
    fn write(&self, body: &mut JsonObject);
}

/// Reads one object of an `[object]` parameter: unknown fields refused, every problem
/// named.
pub fn object_from_param<T: ObjectParam>(value: Value) -> Result<(T, Value), String> {
    let Value::Object(fields) = value else {
        return Err(format!("expected an object, got {}", describe(&value)));
    };
    let mut reader = ArgReader::over(T::FIELDS, "", fields);
    let item = T::check(&mut reader);
    match reader.finish() {
        Ok(normalized) => Ok((item, Value::Object(normalized))),
        Err(problems) => Err(format!(
            "{} (its fields: {})",
            problems.problems.join("; "),
            problems.accepted
        )),
    }
}

/// Declares a generated object parameter's behaviour: `FromParam` and its JSON.
#[macro_export]
macro_rules! object_param {
    ($name:ident) => {
        impl $crate::catalog::FromParam for $name {
            fn from_param(
                value: ::serde_json::Value,
            ) -> ::std::result::Result<(Self, ::serde_json::Value), ::std::string::String> {
                $crate::catalog::object_from_param(value)
            }
        }

        impl $crate::gitlab::WireValue for $name {
            fn wire(&self) -> $crate::gitlab::WireText {
                $crate::gitlab::WireText::One($crate::gitlab::WireValue::json(self).to_string())
            }

            fn json(&self) -> ::serde_json::Value {
                let mut body = $crate::catalog::JsonObject::new();
                <Self as $crate::catalog::ObjectParam>::write(self, &mut body);
                ::serde_json::Value::Object(body)
            }
        }
    };
}

fn describe(value: &Value) -> String {
    let text = crate::output::json::to_text(value);
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

/// "`foo` is not a parameter" plus the closest real name, if one is close.
fn unknown(specs: &[ParamSpec], key: &str, what: &str) -> String {
    // `merge_request_id` is GitLab's global id, a different number from the `!12` the
    // action wants: say so rather than suggest passing it on.
    if let Some(stem) = key.strip_suffix("_id") {
        let iid = format!("{stem}_iid");
        if let Some(param) = specs.iter().find(|p| p.name == iid) {
            return format!(
                "`{key}` is not a parameter of this {what}: it takes `{}`, the number within the project (the `12` in `!12` or `#12`), which is not the global id",
                param.name
            );
        }
    }
    let closest = specs
        .iter()
        .map(|p| (crate::text::edit_distance(key, p.name), p.name))
        .filter(|(distance, name)| *distance <= 2 || name.contains(key) || key.contains(name))
        .min();
    match closest {
        Some((_, name)) => {
            format!("`{key}` is not a parameter of this {what}; did you mean `{name}`?")
        }
        None => format!("`{key}` is not a parameter of this {what}"),
    }
}

/// `project_id` (required, string|integer), `state` (one of opened, closed, ...), ...
pub fn accepted(action: &Action) -> String {
    accepted_of(action.params)
}

fn accepted_of(specs: &[ParamSpec]) -> String {
    let list: Vec<String> = specs
        .iter()
        .map(|p| {
            let mut notes = Vec::new();
            if p.required {
                notes.push("required".to_owned());
            }
            if p.values.is_empty() {
                notes.push(p.ty.json_name().to_owned());
            } else {
                notes.push(format!("one of {}", p.values.join(", ")));
            }
            if !p.aliases.is_empty() {
                notes.push(format!("also `{}`", p.aliases.join("`, `")));
            }
            format!("`{}` ({})", p.name, notes.join(", "))
        })
        .collect();
    if list.is_empty() {
        "none".to_owned()
    } else {
        list.join(", ")
    }
}

fn bounds(param: &ParamSpec, value: &Value) -> Result<(), String> {
    let Some(number) = value.as_f64() else {
        return Ok(());
    };
    match (param.minimum, param.maximum) {
        (Some(min), Some(max)) if number < min as f64 || number > max as f64 => Err(format!(
            "expected a value from {min} to {max}, got {}",
            describe(value)
        )),
        (Some(min), None) if number < min as f64 => {
            Err(format!("expected at least {min}, got {}", describe(value)))
        }
        (None, Some(max)) if number > max as f64 => {
            Err(format!("expected at most {max}, got {}", describe(value)))
        }
        _ => Ok(()),
    }
}

/// A path value must stay a name: no empty value, no `.` or `..` component, no control
/// characters. (Other characters, `/`, `?` and `#` included, are percent-encoded.)
fn path_safe(value: &Value) -> Result<(), String> {
    let Some(text) = value.as_str() else {
        return Ok(());
    };
    if text.is_empty() {
        return Err("must not be empty".into());
    }
    if text.split('/').any(|part| part == "." || part == "..") {
        return Err(format!(
            "{} contains a `.` or `..` path component, which is not allowed",
            describe(value)
        ));
    }
    if text.chars().any(char::is_control) {
        return Err("must not contain control characters".into());
    }
    Ok(())
}

/// A list of words in generated code (`tags: words!["lgtm", "sign off"]`): one line per
/// list, where an array literal would be printed one word a line.
#[macro_export]
macro_rules! words {
    ($($word:literal),* $(,)?) => {
        &[$($word),*]
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;
    use crate::catalog::generated::merge_request;
    use serde_json::json;

    fn args(value: Value) -> Args {
        value.as_object().cloned().unwrap_or_default()
    }

    fn check(id: &str, value: Value) -> Result<Plan, ParamProblems> {
        let action = catalog::find(id).expect("the action exists");
        (action.plan)(action, args(value))
    }

    #[test]
    fn aliases_become_canonical_names_and_typed_params() {
        let plan = check(
            "merge_request.get",
            json!({"project": "acme/platform/api", "mr_iid": "!12"}),
        )
        .unwrap();
        assert_eq!(
            Value::Object(plan.args.clone()),
            json!({"project_id": "acme/platform/api", "merge_request_iid": 12})
        );
        let params = plan
            .params
            .downcast_ref::<merge_request::get::Params>()
            .unwrap();
        assert_eq!(params.merge_request_iid, 12);
        assert_eq!(
            params.project_id,
            PathOrId::Path("acme/platform/api".into())
        );
        assert_eq!(
            plan.request.target().unwrap(),
            "/projects/acme%2Fplatform%2Fapi/merge_requests/12"
        );
    }

    #[test]
    fn url_encoded_paths_are_decoded_and_numeric_text_is_an_id() {
        let plan = check(
            "merge_request.get",
            json!({"project_id": "acme%2Fplatform%2Fapi", "merge_request_iid": 1}),
        )
        .unwrap();
        assert_eq!(plan.args["project_id"], "acme/platform/api");
        let plan = check(
            "merge_request.get",
            json!({"project_id": "42", "merge_request_iid": 1}),
        )
        .unwrap();
        assert_eq!(plan.args["project_id"], 42);
    }

    #[test]
    fn every_problem_is_reported_at_once_in_key_order_then_missing() {
        let message = check(
            "merge_request.get",
            json!({"merge_request_iid": "abc", "colour": "red"}),
        )
        .unwrap_err()
        .message();
        assert!(
            message.starts_with(
                "Invalid parameters for `merge_request.get`:\n\
                 - `colour` is not a parameter of this action\n\
                 - `merge_request_iid`: expected an integer, got \"abc\"\n\
                 - `project_id` is required: Project id or full path, such as `acme/platform/api`.\n\
                 Accepted parameters: `project_id` (required, string|integer, also `project`"
            ),
            "{message}"
        );
    }

    #[test]
    fn a_name_and_its_alias_together_are_refused() {
        let message = check(
            "merge_request.get",
            json!({"project_id": 1, "project": 2, "merge_request_iid": 1}),
        )
        .unwrap_err()
        .message();
        assert!(
            message.contains("`project_id` and `project_id` name the same parameter")
                || message.contains("`project` and `project_id` name the same parameter"),
            "{message}"
        );
    }

    #[test]
    fn a_global_id_is_not_offered_as_the_iid() {
        let message = check(
            "merge_request.get",
            json!({"project_id": 1, "merge_request_id": 4711}),
        )
        .unwrap_err()
        .message();
        assert!(
            message.contains("`merge_request_id` is not a parameter of this action: it takes `merge_request_iid`, the number within the project"),
            "{message}"
        );
        assert!(!message.contains("did you mean"), "{message}");
    }

    #[test]
    fn path_traversal_is_refused() {
        for bad in ["../../etc/passwd", "a/../b", "..", "."] {
            let message = check(
                "repository.file_get",
                json!({"project_id": "acme/platform/api", "file_path": bad}),
            )
            .unwrap_err()
            .message();
            assert!(message.contains("`file_path`"), "{bad}: {message}");
        }
        assert!(
            check(
                "repository.file_get",
                json!({"project_id": 1, "file_path": "dir/a?b#c.md"})
            )
            .is_ok()
        );
    }

    #[test]
    fn enums_defaults_and_bounds() {
        let plan = check(
            "merge_request.list",
            json!({"project_id": 1, "state": "OPENED"}),
        )
        .unwrap();
        assert_eq!(plan.args["state"], "opened");
        assert_eq!(plan.request.query_value("per_page"), Some("20"));
        let message = check(
            "merge_request.list",
            json!({"project_id": 1, "state": "open", "per_page": 500}),
        )
        .unwrap_err()
        .message();
        assert!(
            message.contains("`state`: expected one of opened, closed, locked, merged, all"),
            "{message}"
        );
        assert!(
            message.contains("`per_page`: expected a value from 1 to 100, got 500"),
            "{message}"
        );
    }
}

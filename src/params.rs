//! Checks and normalises call arguments against an action's declared parameters.
//!
//! Runs before anything is sent, on every surface: aliases become canonical names, harmless
//! spellings are coerced (`"12"` for an integer, `group%2Fproject` for a path), and every
//! problem (an unknown or missing parameter, a wrong type, a value outside its enum or
//! bounds, a path value that would leave its segment) is reported at once, naming the
//! parameter and what it accepts. Unknown parameters are refused, never dropped.

use std::fmt::Write as _;

use percent_encoding::percent_decode_str;
use serde_json::{Map, Number, Value};

use crate::catalog::{Action, Args, Location, ParamSpec, ParamType};

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

/// Normalises `args` for `action`, or explains everything that is wrong with them.
pub fn check(action: &Action, args: Args) -> Result<Args, ParamProblems> {
    let mut problems = Vec::new();
    let mut normalized = Map::new();
    let mut refused: Vec<&str> = Vec::new();

    for (key, value) in args {
        let Some(param) = lookup(action, &key) else {
            problems.push(unknown(action, &key));
            continue;
        };
        if value.is_null() {
            continue;
        }
        if normalized.contains_key(param.name) {
            problems.push(format!(
                "`{key}` and `{}` name the same parameter; send only `{}`",
                param.name, param.name
            ));
            continue;
        }
        match coerce(param, value) {
            Ok(value) => {
                normalized.insert(param.name.to_owned(), value);
            }
            Err(problem) => {
                problems.push(format!("`{}`: {problem}", param.name));
                refused.push(param.name);
            }
        }
    }

    for param in action.required_params() {
        if !normalized.contains_key(param.name) && !refused.contains(&param.name) {
            problems.push(format!(
                "`{}` is required: {}",
                param.name, param.description
            ));
        }
    }

    if problems.is_empty() {
        Ok(normalized)
    } else {
        Err(ParamProblems {
            action: action.id,
            problems,
            accepted: accepted(action),
        })
    }
}

fn lookup(action: &Action, key: &str) -> Option<&'static ParamSpec> {
    action
        .params
        .iter()
        .find(|p| p.name == key)
        .or_else(|| action.params.iter().find(|p| p.aliases.contains(&key)))
}

/// "`foo` is not a parameter" plus the closest real name, if one is close.
fn unknown(action: &Action, key: &str) -> String {
    let closest = action
        .params
        .iter()
        .map(|p| (crate::text::edit_distance(key, p.name), p.name))
        .filter(|(distance, name)| *distance <= 2 || name.contains(key) || key.contains(name))
        .min();
    match closest {
        Some((_, name)) => {
            format!("`{key}` is not a parameter of this action; did you mean `{name}`?")
        }
        None => format!("`{key}` is not a parameter of this action"),
    }
}

/// `project_id` (required, string|integer), `state` (one of opened, closed, ...), ...
pub fn accepted(action: &Action) -> String {
    let list: Vec<String> = action
        .params
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

fn coerce(param: &ParamSpec, value: Value) -> Result<Value, String> {
    let value = match param.ty {
        ParamType::String => string(value)?,
        ParamType::PathOrId => path_or_id(value)?,
        ParamType::Integer => integer(value)?,
        ParamType::Number => number(value)?,
        ParamType::Boolean => boolean(value)?,
        ParamType::StringList => list(value, string)?,
        ParamType::IntegerList => list(value, integer)?,
    };
    let value = enumerated(param, value)?;
    bounds(param, &value)?;
    if param.location == Location::Path {
        path_safe(&value)?;
    }
    Ok(value)
}

fn describe(value: &Value) -> String {
    let text = crate::output::json::to_text(value);
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

fn string(value: Value) -> Result<Value, String> {
    match value {
        Value::String(_) => Ok(value),
        Value::Number(n) => Ok(Value::String(n.to_string())),
        other => Err(format!("expected a string, got {}", describe(&other))),
    }
}

fn path_or_id(value: Value) -> Result<Value, String> {
    match value {
        Value::Number(n) if n.is_i64() => Ok(Value::Number(n)),
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
            match text.parse::<i64>() {
                Ok(id) if !text.starts_with(['+', '-', '0']) => Ok(Value::Number(id.into())),
                _ => Ok(Value::String(text.trim_matches('/').to_owned())),
            }
        }
        other => Err(format!(
            "expected a numeric id or a path such as `group/project`, got {}",
            describe(&other)
        )),
    }
}

fn integer(value: Value) -> Result<Value, String> {
    match &value {
        Value::Number(n) if n.is_i64() => Ok(value),
        Value::Number(n)
            if n.as_f64()
                .is_some_and(|f| f.fract() == 0.0 && f.abs() < 9e15) =>
        {
            Ok(Value::Number(
                (n.as_f64().unwrap_or_default() as i64).into(),
            ))
        }
        Value::String(text) => {
            let trimmed = text.trim().trim_start_matches(['!', '#']);
            trimmed
                .parse::<i64>()
                .map(|n| Value::Number(n.into()))
                .map_err(|_| format!("expected an integer, got {}", describe(&value)))
        }
        _ => Err(format!("expected an integer, got {}", describe(&value))),
    }
}

fn number(value: Value) -> Result<Value, String> {
    match &value {
        Value::Number(_) => Ok(value),
        Value::String(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("expected a number, got {}", describe(&value))),
        _ => Err(format!("expected a number, got {}", describe(&value))),
    }
}

fn boolean(value: Value) -> Result<Value, String> {
    match &value {
        Value::Bool(_) => Ok(value),
        Value::String(text) if text.eq_ignore_ascii_case("true") => Ok(Value::Bool(true)),
        Value::String(text) if text.eq_ignore_ascii_case("false") => Ok(Value::Bool(false)),
        _ => Err(format!("expected true or false, got {}", describe(&value))),
    }
}

fn list(value: Value, item: fn(Value) -> Result<Value, String>) -> Result<Value, String> {
    match value {
        Value::Array(items) => items
            .into_iter()
            .map(item)
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array)
            .map_err(|e| format!("an item: {e}")),
        single => item(single).map(|v| Value::Array(vec![v])),
    }
}

fn enumerated(param: &ParamSpec, value: Value) -> Result<Value, String> {
    if param.values.is_empty() {
        return Ok(value);
    }
    let text = value.as_str().unwrap_or_default();
    match param
        .values
        .iter()
        .find(|allowed| allowed.eq_ignore_ascii_case(text))
    {
        Some(allowed) => Ok(Value::String((*allowed).to_owned())),
        None => Err(format!(
            "expected one of {}, got {}",
            param.values.join(", "),
            describe(&value)
        )),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;
    use serde_json::json;

    fn args(value: Value) -> Args {
        value.as_object().cloned().unwrap_or_default()
    }

    fn mr_get() -> &'static Action {
        catalog::find("merge_request.get").expect("merge_request.get exists")
    }

    #[test]
    fn aliases_become_canonical_names() {
        let checked = check(
            mr_get(),
            args(json!({"project": "acme/platform/api", "mr_iid": "12"})),
        )
        .unwrap();
        assert_eq!(
            Value::Object(checked),
            json!({"project_id": "acme/platform/api", "merge_request_iid": 12})
        );
    }

    #[test]
    fn url_encoded_paths_are_decoded() {
        let checked = check(
            mr_get(),
            args(json!({"project_id": "acme%2Fplatform%2Fapi", "merge_request_iid": 1})),
        )
        .unwrap();
        assert_eq!(checked["project_id"], "acme/platform/api");
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let problems = check(
            mr_get(),
            args(json!({"merge_request_iid": "abc", "colour": "red"})),
        )
        .unwrap_err();
        let message = problems.message();
        assert!(message.contains("`colour` is not a parameter"), "{message}");
        assert!(
            message.contains("`merge_request_iid`: expected an integer, got \"abc\""),
            "{message}"
        );
        assert!(message.contains("`project_id` is required"), "{message}");
        assert!(
            message.contains("Accepted parameters: `project_id` (required"),
            "{message}"
        );
    }

    #[test]
    fn path_traversal_is_refused() {
        let action = catalog::find("repository.file_get").expect("repository.file_get exists");
        for bad in ["../../etc/passwd", "a/../b", "..", "."] {
            let result = check(
                action,
                args(json!({"project_id": "acme/platform/api", "file_path": bad})),
            );
            let message = result.unwrap_err().message();
            assert!(message.contains("`file_path`"), "{bad}: {message}");
        }
        assert!(
            check(
                action,
                args(json!({"project_id": 1, "file_path": "dir/a?b#c.md"}))
            )
            .is_ok()
        );
    }

    #[test]
    fn enums_and_bounds() {
        let action = catalog::find("merge_request.list").expect("merge_request.list exists");
        let checked = check(action, args(json!({"project_id": 1, "state": "OPENED"}))).unwrap();
        assert_eq!(checked["state"], "opened");
        let message = check(
            action,
            args(json!({"project_id": 1, "state": "open", "per_page": 500})),
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

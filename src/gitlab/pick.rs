//! Reading a JSON object for some of its fields only.
//!
//! A GitLab list item carries every field of its kind (66 for a merge request) where an
//! action's entity declares a handful (5 for a merge request in a list), and parsing the
//! others into values only to drop them was most of a list call's CPU. Here they are
//! skipped as they are read (still checked as JSON), and only the kept ones are built.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

/// `json` read as `serde_json::from_slice` reads it, except that an object keeps only the
/// fields `keep` accepts (each one's value whole). Anything else is read whole.
pub fn parse_keeping(json: &[u8], keep: &dyn Fn(&str) -> bool) -> serde_json::Result<Value> {
    let first = json
        .iter()
        .find(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r'));
    if first != Some(&b'{') {
        return serde_json::from_slice(json);
    }
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    let value = deserializer.deserialize_map(Keeping(keep))?;
    deserializer.end()?;
    Ok(value)
}

/// Builds an object of the fields it keeps.
struct Keeping<'k>(&'k dyn Fn(&str) -> bool);

impl<'de> Visitor<'de> for Keeping<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut kept = Map::new();
        while let Some(key) = map.next_key_seed(Key)? {
            if (self.0)(&key) {
                // A key said twice keeps its last value, as `Value` does.
                kept.insert(key.into_owned(), map.next_value()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Value::Object(kept))
    }
}

/// An object's key, borrowed from the input unless it has escapes: a skipped field then
/// costs no allocation at all.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a field name")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_owned()))
    }

    fn visit_string<E>(self, key: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keep_ab(key: &str) -> bool {
        matches!(key, "a" | "b")
    }

    #[test]
    fn an_object_keeps_the_fields_asked_for_whole() {
        let json = br#" {"a": {"x": [1, null]}, "c": {"deep": [{"y": "z"}]}, "b\u0022": 2, "b": "t\u00e9"} "#;
        let value = parse_keeping(json, &keep_ab).unwrap();
        assert_eq!(value, json!({"a": {"x": [1, null]}, "b": "t\u{e9}"}));
        // The last of a key said twice, as `Value` reads it.
        let value = parse_keeping(br#"{"a": 1, "a": 2}"#, &keep_ab).unwrap();
        assert_eq!(value, json!({"a": 2}));
    }

    #[test]
    fn what_is_not_an_object_is_read_whole() {
        for json in [&br#"[{"c": 1}]"#[..], b"\n 7", b"null", br#""c""#] {
            let whole: Value = serde_json::from_slice(json).unwrap();
            assert_eq!(parse_keeping(json, &keep_ab).unwrap(), whole);
        }
    }

    #[test]
    fn deep_nesting_is_refused_where_kept_and_costs_no_stack_where_skipped() {
        let deep = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let kept = format!(r#"{{"a": {}}}"#, deep(200));
        assert!(parse_keeping(kept.as_bytes(), &keep_ab).is_err());
        let skipped = format!(r#"{{"a": 1, "c": {}}}"#, deep(100_000));
        assert_eq!(
            parse_keeping(skipped.as_bytes(), &keep_ab).unwrap(),
            json!({"a": 1})
        );
    }

    #[test]
    fn a_skipped_field_is_still_checked_as_json() {
        for json in [
            &br#"{"a": 1, "c": [1,}"#[..],
            br#"{"a": 1, "c": tru}"#,
            br#"{"a": 1} x"#,
            br#"{"a": 1"#,
        ] {
            assert!(parse_keeping(json, &keep_ab).is_err(), "{json:?}");
            assert!(serde_json::from_slice::<Value>(json).is_err());
        }
    }
}

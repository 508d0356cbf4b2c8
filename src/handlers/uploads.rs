//! File uploads (`wiki.attachment_upload`): GitLab takes the file as `multipart/form-data`,
//! which the manifest's JSON bodies cannot say.
//!
//! The file is given inline, as text or base64 `content` with a `file_name`, never as a
//! path: a server that reads files of its own machine on an assistant's word would hand any
//! local secret (an SSH key, a `.env`) to whoever steers the model. The content is decoded
//! here, checked against a size cap, and sent as the form's `file` part beside the action's
//! other body fields.

use base64::Engine as _;
use serde_json::Value;

use crate::call::{ActionError, Context, decode};
use crate::catalog::{Action, Plan};

/// The largest file sent. GitLab's own cap is the instance's attachment size (100 MiB by
/// default); content that large does not belong in a tool call's arguments.
pub const MAX_UPLOAD_BYTES: usize = 10 * 1024 * 1024;

/// The file's bytes from `content`, read as `encoding` says (`text`, the default, or
/// `base64`, which may be wrapped over several lines).
fn file_bytes(content: &str, encoding: Option<&str>) -> Result<Vec<u8>, String> {
    let bytes = match encoding.unwrap_or("text") {
        "base64" => {
            let packed: String = content
                .chars()
                .filter(|c| !c.is_ascii_whitespace())
                .collect();
            base64::engine::general_purpose::STANDARD
                .decode(packed.as_bytes())
                .map_err(|_| {
                    "`content` is not valid base64; send the file's bytes base64-encoded, or its text with `encoding: text`.".to_owned()
                })?
        }
        _ => content.as_bytes().to_vec(),
    };
    if bytes.is_empty() {
        return Err("`content` is empty; an attachment needs at least one byte.".to_owned());
    }
    if bytes.len() > MAX_UPLOAD_BYTES {
        return Err(format!(
            "The file is {} bytes, over the {} MiB this server uploads in one call.",
            bytes.len(),
            MAX_UPLOAD_BYTES / (1024 * 1024)
        ));
    }
    Ok(bytes)
}

/// A file name is one plain name: not a path, no quote that would end the form's
/// `filename="..."`, no control character.
fn check_file_name(name: &str) -> Result<&str, String> {
    let name = name.trim();
    let refused = name.is_empty()
        || name == "."
        || name == ".."
        || name
            .chars()
            .any(|c| matches!(c, '/' | '\\' | '"') || c.is_control());
    if refused {
        return Err(format!(
            "`file_name` must be a plain file name such as `diagram.png` (no folders, quotes or control characters), not {name:?}."
        ));
    }
    Ok(name)
}

/// The file's name: `file_name`, or `name` where GitLab's own parameter is the file's name
/// (`secure_file.create`, whose `name` is sent as a form field too).
fn file_name_of(args: &crate::catalog::Args) -> &str {
    ["file_name", "name"]
        .iter()
        .find_map(|key| args.get(*key).and_then(Value::as_str))
        .unwrap_or_default()
}

/// For a safe-mode preview: the file the call would upload, or why it could not.
pub fn preview(args: &crate::catalog::Args) -> String {
    let text = |name: &str| args.get(name).and_then(Value::as_str);
    let checked = check_file_name(file_name_of(args)).and_then(|name| {
        file_bytes(text("content").unwrap_or_default(), text("encoding")).map(|b| (name, b))
    });
    match checked {
        Ok((name, bytes)) => format!(
            "With the file {name} ({} bytes), as a multipart/form-data upload.",
            bytes.len()
        ),
        Err(problem) => format!("The call would be refused first: {problem}"),
    }
}

/// Uploads the call's inline file with the action's own request, as `multipart/form-data`.
pub async fn upload_file(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let text = |name: &str| plan.args.get(name).and_then(Value::as_str);
    let file_name =
        check_file_name(file_name_of(&plan.args)).map_err(ActionError::InvalidParams)?;
    let bytes = file_bytes(text("content").unwrap_or_default(), text("encoding"))
        .map_err(ActionError::InvalidParams)?;
    let request = plan.request.clone().upload("file", file_name, bytes);
    let response = context.send(request).await?;
    Ok(decode(action, &plan.args, &response)?)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{MAX_UPLOAD_BYTES, check_file_name, file_bytes, preview};

    #[test]
    fn content_is_text_or_wrapped_base64() {
        assert_eq!(file_bytes("# Notes\n", None).unwrap(), b"# Notes\n");
        assert_eq!(file_bytes("aGk=", Some("text")).unwrap(), b"aGk=");
        assert_eq!(
            file_bytes("iVBO\nRw0K\n", Some("base64")).unwrap(),
            [0x89, b'P', b'N', b'G', 0x0d, 0x0a]
        );
        assert!(
            file_bytes("not base64!", Some("base64"))
                .unwrap_err()
                .contains("not valid base64")
        );
        assert!(file_bytes("", None).unwrap_err().contains("empty"));
        let big = "a".repeat(MAX_UPLOAD_BYTES + 1);
        assert!(file_bytes(&big, None).unwrap_err().contains("10 MiB"));
    }

    #[test]
    fn a_preview_names_the_file_or_the_refusal() {
        let args = |value: serde_json::Value| value.as_object().cloned().unwrap();
        let text = preview(&args(
            json!({"file_name": "notes.md", "content": "# Notes"}),
        ));
        assert_eq!(
            text,
            "With the file notes.md (7 bytes), as a multipart/form-data upload."
        );
        let refused = preview(&args(json!({"file_name": "../x", "content": "x"})));
        assert!(
            refused.starts_with("The call would be refused first"),
            "{refused}"
        );
    }

    #[test]
    fn a_file_name_is_never_a_path() {
        assert_eq!(
            check_file_name(" diagram v2.png ").unwrap(),
            "diagram v2.png"
        );
        assert_eq!(check_file_name("übersicht.pdf").unwrap(), "übersicht.pdf");
        for bad in [
            "",
            "..",
            "../../etc/passwd",
            "dir/x.png",
            "c:\\x.png",
            "a\"b.png",
            "a\nb.png",
        ] {
            assert!(check_file_name(bad).is_err(), "{bad:?}");
        }
    }
}

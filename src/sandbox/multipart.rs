//! `multipart/form-data` bodies (uploads), read as GitLab's Rack does: each text part is a
//! parameter, each file part a file parameter. The sandbox keeps what GitLab's
//! `UploadedFile` tells of a file: `{"filename", "size", "content_type"}`, not its bytes.

use serde_json::{Map, Value, json};

/// The parts of `body`, or `None` when it is not a well-formed form with the boundary
/// `content_type` names.
pub fn parse(content_type: &str, body: &[u8]) -> Option<Map<String, Value>> {
    let boundary = content_type.split(';').find_map(|parameter| {
        let (name, value) = parameter.trim().split_once('=')?;
        name.eq_ignore_ascii_case("boundary")
            .then(|| value.trim_matches('"').to_owned())
    })?;
    let delimiter = format!("--{boundary}").into_bytes();
    let mut fields = Map::new();
    let mut rest = body.get(find(body, &delimiter)? + delimiter.len()..)?;
    loop {
        if rest.starts_with(b"--") {
            return Some(fields);
        }
        rest = rest.strip_prefix(b"\r\n")?;
        let end = find(rest, &[b"\r\n".as_slice(), &delimiter].concat())?;
        let (headers, content) = split_part(&rest[..end])?;
        let disposition = header(&headers, "content-disposition")?;
        let name = attribute(disposition, "name")?;
        let value = match attribute(disposition, "filename") {
            Some(filename) => json!({
                "filename": filename,
                "size": content.len(),
                "content_type": header(&headers, "content-type").unwrap_or("application/octet-stream"),
            }),
            None => Value::String(String::from_utf8_lossy(content).into_owned()),
        };
        fields.insert(name, value);
        rest = &rest[end + 2 + delimiter.len()..];
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A part's header lines and its content, split at the first blank line.
fn split_part(part: &[u8]) -> Option<(String, &[u8])> {
    let at = find(part, b"\r\n\r\n")?;
    Some((
        String::from_utf8_lossy(&part[..at]).into_owned(),
        &part[at + 4..],
    ))
}

/// The value of the header `name` among a part's header lines.
fn header<'a>(headers: &'a str, name: &str) -> Option<&'a str> {
    headers.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// `name="value"` in a `Content-Disposition` header; a quoted value may hold `;`.
fn attribute(disposition: &str, name: &str) -> Option<String> {
    let start = disposition.find(&format!("; {name}=\""))? + name.len() + 4;
    let length = disposition[start..].find('"')?;
    Some(disposition[start..start + length].to_owned())
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn text_parts_are_parameters_and_a_file_part_is_described() {
        let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"branch\"\r\n\r\nmain\r\n\
--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"deploy flow; v2.png\"\r\n\r\n\x89PNG\r\n\x1a\n\r\n--XyZ--\r\n";
        let fields = parse("multipart/form-data; boundary=XyZ", body).unwrap();
        assert_eq!(fields["branch"], "main");
        assert_eq!(fields["file"]["filename"], "deploy flow; v2.png");
        assert_eq!(fields["file"]["size"], 8);
        assert_eq!(fields["file"]["content_type"], "application/octet-stream");
    }

    #[test]
    fn a_malformed_form_is_no_form() {
        assert!(parse("multipart/form-data", b"--a\r\n").is_none());
        assert!(parse("multipart/form-data; boundary=a", b"no delimiter").is_none());
        assert!(
            parse(
                "multipart/form-data; boundary=a",
                b"--a\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nunterminated"
            )
            .is_none()
        );
    }
}

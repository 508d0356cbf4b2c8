//! Checks `GITLAB_URL` before anything is sent: a scheme is required, only http and https
//! are accepted, and plain http to a host other than this machine is warned about.

use reqwest::Url;

/// A checked base URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl {
    /// As given, without a trailing slash.
    pub url: String,
    /// A sentence to show at start, if the URL works but is risky.
    pub warning: Option<String>,
    /// A password inside the URL (`https://user:pass@host`), to keep out of logs.
    pub password: Option<String>,
}

pub fn check(text: &str) -> Result<BaseUrl, String> {
    let text = text.trim().trim_end_matches('/');
    if text.is_empty() {
        return Err("GITLAB_URL is empty; set it to your GitLab's address, such as https://gitlab.example.com".into());
    }
    if !text.contains("://") {
        return Err(format!(
            "GITLAB_URL `{text}` has no scheme; write it in full, such as `https://{text}`"
        ));
    }
    let url =
        Url::parse(text).map_err(|error| format!("GITLAB_URL is not a valid URL ({error})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "GITLAB_URL must start with https:// (or http://), not `{}://`",
            url.scheme()
        ));
    }
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        return Err("GITLAB_URL has no host name".into());
    };
    let warning = (url.scheme() == "http" && !is_loopback(host)).then(|| {
        format!(
            "GITLAB_URL uses plain http:// to {host}: the token and every answer travel unencrypted. Use https:// unless this network is trusted."
        )
    });
    let password = url.password().map(|p| {
        percent_encoding::percent_decode_str(p)
            .decode_utf8_lossy()
            .into_owned()
    });
    Ok(BaseUrl {
        url: text.to_owned(),
        warning,
        password,
    })
}

/// `localhost`, `127.0.0.0/8` and `::1`: traffic that never leaves this machine.
pub fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The URL with any `user:password@` removed, for messages and logs.
pub fn without_credentials(text: &str) -> String {
    match Url::parse(text) {
        Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.to_string().trim_end_matches('/').to_owned()
        }
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scheme_is_required() {
        let error = check("gitlab.example.com").unwrap_err();
        assert!(error.contains("https://gitlab.example.com"), "{error}");
        assert!(check("ftp://gitlab.example.com").is_err());
        assert!(check("").is_err());
        assert!(check("https://").is_err());
    }

    #[test]
    fn plain_http_warns_unless_local() {
        assert!(
            check("http://gitlab.example.com")
                .unwrap()
                .warning
                .is_some()
        );
        for local in [
            "http://localhost:8080",
            "http://127.0.0.1:3000",
            "http://[::1]:80",
        ] {
            assert_eq!(check(local).unwrap().warning, None, "{local}");
        }
        let ok = check("https://gitlab.example.com/").unwrap();
        assert_eq!(ok.url, "https://gitlab.example.com");
        assert_eq!(ok.warning, None);
    }

    #[test]
    fn credentials_are_found_and_hidden() {
        let checked = check("https://bot:s3cr%40t@gitlab.example.com").unwrap();
        assert_eq!(checked.password.as_deref(), Some("s3cr@t"));
        assert_eq!(
            without_credentials("https://bot:s3cr%40t@gitlab.example.com/api/v4"),
            "https://gitlab.example.com/api/v4"
        );
    }
}

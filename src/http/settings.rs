//! The settings of `gitlab-mcp serve --http`: where to listen, which `Host` and `Origin`
//! headers to accept, the limits, and which GitLab instances and credentials a request
//! may use. Flags with environment variables, checked once at start into `HttpSettings`.

use std::net::SocketAddr;
use std::time::Duration;

use axum::http::HeaderName;
use clap::builder::BoolishValueParser;

/// The address `--http` listens on when given without one: this machine only.
pub const DEFAULT_ADDRESS: &str = "127.0.0.1:8080";

/// The `Host` names accepted by default: loopback only, so a web page cannot reach a
/// local server through DNS rebinding.
pub const DEFAULT_HOSTS: &str = "localhost,127.0.0.1,::1";

#[derive(Debug, Clone, Default, clap::Args)]
pub struct HttpOptions {
    /// Serve MCP over Streamable HTTP at this address (path /mcp, probes at /health)
    /// instead of stdio [default address: 127.0.0.1:8080].
    #[arg(long, env = "GITLAB_MCP_HTTP", value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_ADDRESS)]
    pub http: Option<SocketAddr>,

    /// Host names (or host:port) the server answers to, comma-separated; `*` for any.
    /// Behind a load balancer, list the name clients use.
    #[arg(long, env = "GITLAB_MCP_ALLOWED_HOSTS", default_value = DEFAULT_HOSTS, value_name = "HOSTS")]
    pub allowed_hosts: String,

    /// Browser origins allowed to call the server (`https://app.example.com`,
    /// `http://localhost:*`), comma-separated; `*` for any. Requests without an Origin
    /// header (every non-browser client) pass [default: the allowed hosts, any scheme
    /// and port].
    #[arg(long, env = "GITLAB_MCP_ALLOWED_ORIGINS", value_name = "ORIGINS")]
    pub allowed_origins: Option<String>,

    /// Requests per minute one token may make to this server (bursts of up to ten
    /// seconds' worth); 0 for no limit.
    #[arg(
        long,
        env = "GITLAB_MCP_RATE_LIMIT",
        default_value_t = 600,
        value_name = "PER_MINUTE"
    )]
    pub rate_limit: u32,

    /// Times GitLab may reject one token in 5 minutes before that token must wait; a
    /// client address may have three times as many failures (missing, malformed or
    /// rejected tokens) before tokens GitLab has not accepted from it must wait, while
    /// tokens GitLab accepted are always served; 0 for no limit.
    #[arg(
        long,
        env = "GITLAB_MCP_AUTH_FAILURE_LIMIT",
        default_value_t = 10,
        value_name = "COUNT"
    )]
    pub auth_failure_limit: u32,

    /// Requests without their own token use GITLAB_TOKEN (on GITLAB_URL only): anyone
    /// who can reach the server acts as that token's user.
    #[arg(long, env = "GITLAB_MCP_SHARED_TOKEN", value_parser = BoolishValueParser::new(), num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub shared_token: bool,

    /// Other GitLab instances a request may name in its `X-GitLab-URL` header,
    /// comma-separated (GITLAB_URL is always allowed, and the default).
    #[arg(
        long,
        env = "GITLAB_MCP_ALLOWED_GITLAB_URLS",
        default_value = "",
        hide_default_value = true,
        value_name = "URLS"
    )]
    pub allowed_gitlab_urls: String,

    /// Behind a reverse proxy: the header holding the client's address (such as
    /// X-Forwarded-For; its last entry is used), for the authentication failure limit.
    #[arg(long, env = "GITLAB_MCP_CLIENT_ADDRESS_HEADER", value_name = "HEADER")]
    pub client_address_header: Option<String>,

    /// Connections open at once; one more is answered 503 with Retry-After and closed.
    #[arg(
        long,
        env = "GITLAB_MCP_MAX_CONNECTIONS",
        default_value_t = 1024,
        value_name = "COUNT",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub max_connections: u32,

    /// Seconds a client has to send a request's headers (an idle connection is closed
    /// after as long), and again its body.
    #[arg(
        long,
        env = "GITLAB_MCP_READ_TIMEOUT",
        default_value = "10",
        value_name = "SECONDS",
        value_parser = read_timeout
    )]
    pub read_timeout: Duration,

    /// Sign-in with GitLab: the ids (client ids) of the GitLab OAuth applications whose
    /// tokens this server accepts, comma-separated. Turns on OAuth: the server publishes
    /// protected-resource metadata naming GITLAB_URL as its authorization server, and
    /// answers a request without a token 401 with a challenge that points at it.
    #[arg(
        long,
        env = "GITLAB_MCP_OAUTH_APPS",
        default_value = "",
        hide_default_value = true,
        value_name = "IDS"
    )]
    pub oauth_apps: String,

    /// This server's address as clients reach it (`https://mcp.example.com`): the OAuth
    /// resource is its `/mcp`. Needed with --oauth-apps.
    #[arg(long, env = "GITLAB_MCP_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,

    /// With --oauth-apps: accept only sign-in with GitLab, not personal access tokens.
    #[arg(long, env = "GITLAB_MCP_OAUTH_ONLY", value_parser = BoolishValueParser::new(), num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub oauth_only: bool,
}

fn read_timeout(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .trim()
        .trim_end_matches('s')
        .parse()
        .map_err(|_| format!("expected seconds, such as 10 or 2.5, not {text:?}"))?;
    if !(0.1..=600.0).contains(&value) {
        return Err("expected between 0.1 and 600 seconds".into());
    }
    Ok(Duration::from_secs_f64(value))
}

/// `HttpOptions`, checked.
#[derive(Debug, Clone)]
pub struct HttpSettings {
    pub listen: SocketAddr,
    pub hosts: Allowed<HostRule>,
    pub origins: Allowed<OriginRule>,
    /// The largest request body (`GITLAB_MCP_MAX_MESSAGE_BYTES`).
    pub max_body_bytes: usize,
    pub rate_limit: u32,
    pub auth_failure_limit: u32,
    pub shared_token: bool,
    /// Base URLs of the other instances a request may name, as `base_url::check` gives them.
    pub gitlab_urls: Vec<String>,
    pub client_address_header: Option<HeaderName>,
    pub max_connections: usize,
    /// The time to send a request's headers, and again its body.
    pub read_timeout: Duration,
    /// Sign-in with GitLab, when the operator lists OAuth applications.
    pub oauth: Option<OAuthSettings>,
    /// Only actions that read are offered (`GITLAB_READ_ONLY`): a token needs `read_api`.
    pub read_only: bool,
}

/// `--oauth-apps` and `--public-url`, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthSettings {
    /// The GitLab OAuth application ids (client ids) whose tokens are accepted.
    pub apps: Vec<String>,
    /// This server's public address, without a trailing slash.
    pub public_url: String,
    /// Personal access tokens are refused (`--oauth-only`).
    pub only: bool,
}

/// A list of rules, or anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allowed<T> {
    Any,
    Only(Vec<T>),
}

/// An allowed `Host`: a name, and a port when the entry gives one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRule {
    pub host: String,
    pub port: Option<u16>,
}

/// An allowed `Origin`: `None` parts match anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginRule {
    pub scheme: Option<String>,
    pub host: String,
    pub port: Option<u16>,
}

impl HttpOptions {
    /// The checked settings; `None` when `--http` is not given (serve stdio).
    pub fn settings(
        &self,
        max_body_bytes: usize,
        read_only: bool,
    ) -> anyhow::Result<Option<HttpSettings>> {
        let Some(listen) = self.http else {
            return Ok(None);
        };
        let hosts = parse_list(&self.allowed_hosts, |entry| {
            parse_host_rule(entry).ok_or_else(|| {
                format!("GITLAB_MCP_ALLOWED_HOSTS: `{entry}` is not a host name or host:port")
            })
        })?;
        let origins = match &self.allowed_origins {
            Some(text) => parse_list(text, |entry| {
                parse_origin_rule(entry).ok_or_else(|| {
                    format!(
                        "GITLAB_MCP_ALLOWED_ORIGINS: `{entry}` is not an origin such as https://app.example.com or http://localhost:*"
                    )
                })
            })?,
            None => match &hosts {
                Allowed::Any => Allowed::Any,
                Allowed::Only(rules) => Allowed::Only(
                    rules
                        .iter()
                        .map(|rule| OriginRule {
                            scheme: None,
                            host: rule.host.clone(),
                            port: None,
                        })
                        .collect(),
                ),
            },
        };
        let mut gitlab_urls = Vec::new();
        for entry in split(&self.allowed_gitlab_urls) {
            let checked = crate::gitlab::base_url::check(entry)
                .map_err(|e| anyhow::anyhow!("GITLAB_MCP_ALLOWED_GITLAB_URLS: {e}"))?;
            if let Some(warning) = checked.warning {
                tracing::warn!("{warning}");
            }
            gitlab_urls.push(instance_key(&checked.url));
        }
        let client_address_header = self
            .client_address_header
            .as_deref()
            .map(|name| {
                HeaderName::try_from(name.trim()).map_err(|_| {
                    anyhow::anyhow!(
                        "GITLAB_MCP_CLIENT_ADDRESS_HEADER: `{name}` is not a header name"
                    )
                })
            })
            .transpose()?;
        Ok(Some(HttpSettings {
            listen,
            hosts,
            origins,
            max_body_bytes,
            rate_limit: self.rate_limit,
            auth_failure_limit: self.auth_failure_limit,
            shared_token: self.shared_token,
            gitlab_urls,
            client_address_header,
            max_connections: self.max_connections as usize,
            read_timeout: self.read_timeout,
            oauth: self.oauth()?,
            read_only,
        }))
    }

    fn oauth(&self) -> anyhow::Result<Option<OAuthSettings>> {
        let apps: Vec<String> = split(&self.oauth_apps).map(str::to_owned).collect();
        if self.oauth_only && apps.is_empty() {
            anyhow::bail!(
                "GITLAB_MCP_OAUTH_ONLY (--oauth-only) needs GITLAB_MCP_OAUTH_APPS (--oauth-apps): the GitLab OAuth applications whose tokens are accepted"
            );
        }
        if self.oauth_only && self.shared_token {
            anyhow::bail!(
                "GITLAB_MCP_OAUTH_ONLY (--oauth-only) and GITLAB_MCP_SHARED_TOKEN contradict each other: every request signs in, or requests without a token act as GITLAB_TOKEN's user"
            );
        }
        match (apps.is_empty(), &self.public_url) {
            (true, None) => Ok(None),
            (true, Some(_)) => anyhow::bail!(
                "GITLAB_MCP_PUBLIC_URL (--public-url) is used only for sign-in with GitLab: set GITLAB_MCP_OAUTH_APPS (--oauth-apps) too, or leave it unset"
            ),
            (false, None) => anyhow::bail!(
                "GITLAB_MCP_OAUTH_APPS (--oauth-apps) needs GITLAB_MCP_PUBLIC_URL (--public-url): the address clients reach this server at (such as https://mcp.example.com), which its OAuth metadata names"
            ),
            (false, Some(url)) => Ok(Some(OAuthSettings {
                apps,
                only: self.oauth_only,
                public_url: public_url(url).map_err(|problem| {
                    anyhow::anyhow!("GITLAB_MCP_PUBLIC_URL (--public-url): {problem}")
                })?,
            })),
        }
    }
}

/// A public URL checked: http or https, a host, no query, fragment or credentials; without
/// a trailing slash. Plain http is for loopback only (a token must not cross a network in
/// the clear; OAuth 2.1 requires TLS).
pub fn public_url(text: &str) -> Result<String, String> {
    let url = reqwest::Url::parse(text.trim())
        .map_err(|error| format!("`{text}` is not a URL ({error})"))?;
    let host = url.host_str().unwrap_or_default();
    let loopback = matches!(host, "localhost" | "127.0.0.1" | "[::1]");
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(format!(
                "`{text}` must be https (plain http only on localhost)"
            ));
        }
        _ => return Err(format!("`{text}` must be an https URL")),
    }
    if host.is_empty()
        || url.query().is_some()
        || url.fragment().is_some()
        || !url.username().is_empty()
        || url.password().is_some()
    {
        return Err(format!(
            "`{text}` must be a plain address such as https://mcp.example.com (a host, and a path if a proxy serves the server under one)"
        ));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// How two spellings of one GitLab compare: without a trailing slash or `/api/v4`, the
/// scheme and host in lower case.
pub fn instance_key(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    let url = url.strip_suffix("/api/v4").unwrap_or(url);
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            format!(
                "{}://{}{path}",
                scheme.to_ascii_lowercase(),
                authority.to_ascii_lowercase()
            )
        }
        None => url.to_owned(),
    }
}

fn split(text: &str) -> impl Iterator<Item = &str> {
    text.split([',', ' ', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn parse_list<T>(
    text: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> anyhow::Result<Allowed<T>> {
    let mut rules = Vec::new();
    for entry in split(text) {
        if entry == "*" {
            return Ok(Allowed::Any);
        }
        rules.push(parse(entry).map_err(|e| anyhow::anyhow!(e))?);
    }
    Ok(Allowed::Only(rules))
}

/// `example.com`, `example.com:8443`, `::1`, `[::1]:8080`.
pub fn parse_host_rule(entry: &str) -> Option<HostRule> {
    let (host, port) = split_host_port(entry)?;
    Some(HostRule { host, port })
}

/// A `Host` header value or an allow-list entry as (lower-case host without brackets,
/// port).
pub fn split_host_port(text: &str) -> Option<(String, Option<u16>)> {
    let text = text.trim();
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?.parse().ok()?),
        };
        (host, port)
    } else if text.matches(':').count() > 1 {
        (text, None)
    } else {
        match text.split_once(':') {
            Some((host, port)) => (host, Some(port.parse().ok()?)),
            None => (text, None),
        }
    };
    let valid = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'));
    valid.then(|| (host.to_ascii_lowercase(), port))
}

/// `https://app.example.com` (its default port), `http://localhost:*`, `http://h:3000`,
/// `null` (sandboxed pages and local files), or a bare host (any scheme and port).
pub fn parse_origin_rule(entry: &str) -> Option<OriginRule> {
    if entry.eq_ignore_ascii_case("null") {
        return Some(OriginRule {
            scheme: Some("null".into()),
            host: String::new(),
            port: None,
        });
    }
    let Some((scheme, rest)) = entry.split_once("://") else {
        let (host, port) = split_host_port(entry)?;
        return Some(OriginRule {
            scheme: None,
            host,
            port,
        });
    };
    let scheme = scheme.to_ascii_lowercase();
    let rest = rest.trim_end_matches('/');
    let (host, port) = match rest.strip_suffix(":*") {
        Some(host) => (split_host_port(host)?.0, None),
        None => {
            let (host, port) = split_host_port(rest)?;
            (host, Some(port.or_else(|| default_port(&scheme))?))
        }
    };
    Some(OriginRule {
        scheme: Some(scheme),
        host,
        port,
    })
}

pub fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_rules() {
        assert_eq!(
            parse_host_rule("Example.COM:8443"),
            Some(HostRule {
                host: "example.com".into(),
                port: Some(8443)
            })
        );
        assert_eq!(parse_host_rule("::1").unwrap().host, "::1");
        assert_eq!(parse_host_rule("[::1]:80").unwrap().port, Some(80));
        assert_eq!(parse_host_rule("evil.com/x"), None);
        assert_eq!(parse_host_rule("host:port"), None);
    }

    #[test]
    fn origin_rules() {
        let rule = parse_origin_rule("https://App.example.com").unwrap();
        assert_eq!(rule.port, Some(443));
        assert_eq!(rule.host, "app.example.com");
        assert_eq!(parse_origin_rule("http://localhost:*").unwrap().port, None);
        assert_eq!(parse_origin_rule("localhost").unwrap().scheme, None);
        assert!(parse_origin_rule("https://").is_none());
    }

    #[test]
    fn instances_compare_without_api_suffix_or_case() {
        assert_eq!(
            instance_key("HTTPS://GitLab.Example.com/api/v4/"),
            "https://gitlab.example.com"
        );
        assert_eq!(
            instance_key("https://example.com/Gitlab"),
            "https://example.com/Gitlab"
        );
    }

    #[test]
    fn defaults_are_loopback_only() {
        let options = HttpOptions {
            http: Some(DEFAULT_ADDRESS.parse().unwrap()),
            allowed_hosts: DEFAULT_HOSTS.into(),
            max_connections: 1024,
            read_timeout: Duration::from_secs(10),
            ..HttpOptions::default()
        };
        let settings = options.settings(1024, false).unwrap().unwrap();
        let Allowed::Only(hosts) = &settings.hosts else {
            panic!("any host by default")
        };
        let names: Vec<&str> = hosts.iter().map(|h| h.host.as_str()).collect();
        assert_eq!(names, ["localhost", "127.0.0.1", "::1"]);
        assert!(matches!(settings.origins, Allowed::Only(ref o) if o.len() == 3));
        assert_eq!(settings.oauth, None);
    }

    #[test]
    fn public_urls() {
        assert_eq!(
            public_url("https://MCP.example.com/").unwrap(),
            "https://mcp.example.com"
        );
        assert_eq!(
            public_url("https://example.com/tools/gitlab/").unwrap(),
            "https://example.com/tools/gitlab"
        );
        assert_eq!(
            public_url("http://127.0.0.1:8080").unwrap(),
            "http://127.0.0.1:8080"
        );
        assert!(public_url("http://mcp.example.com").is_err());
        assert!(public_url("https://mcp.example.com/?a=b").is_err());
        assert!(public_url("https://user:pw@mcp.example.com").is_err());
        assert!(public_url("mcp.example.com").is_err());
    }
}

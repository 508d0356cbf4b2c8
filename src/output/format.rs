//! Plain-text formatting of values: dates, sizes, durations, numbers, status emoji.
//!
//! Pure functions, no Markdown: the writer escapes what these return.

use chrono::{DateTime, NaiveDate, Utc};

/// `2025-01-15T10:30:00.000Z` → `15 Jan 2025 10:30 UTC`; `2025-01-15` → `15 Jan 2025`.
/// Anything else is returned as it is.
pub fn date(value: &str) -> String {
    if let Ok(moment) = DateTime::parse_from_rfc3339(value) {
        return moment
            .with_timezone(&Utc)
            .format("%-d %b %Y %H:%M UTC")
            .to_string();
    }
    if let Ok(day) = NaiveDate::parse_from_str(value, "%Y-%m-%d") {
        return day.format("%-d %b %Y").to_string();
    }
    value.to_owned()
}

/// `1536` → `1.5 KiB`.
pub fn size(bytes: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{} B", bytes.round())
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Seconds as `45s`, `3m 12s` or `1h 02m`.
pub fn duration(seconds: f64) -> String {
    let total = seconds.round().max(0.0) as u64;
    let (hours, minutes, secs) = (total / 3600, (total % 3600) / 60, total % 60);
    match (hours, minutes) {
        (0, 0) => format!("{secs}s"),
        (0, _) => format!("{minutes}m {secs:02}s"),
        _ => format!("{hours}h {minutes:02}m"),
    }
}

/// A number without a trailing `.0`, rounded to two decimals.
pub fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        let text = format!("{value:.2}");
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// The emoji for a GitLab state or CI status, if it has one.
pub fn status_emoji(status: &str) -> Option<&'static str> {
    Some(match status {
        "success" | "passed" => "✅",
        "failed" => "❌",
        "running" | "preparing" | "waiting_for_resource" | "waiting_for_callback" => "⏳",
        "pending" | "awaiting" => "🕐",
        "created" => "🆕",
        "canceled" | "cancelled" | "canceling" => "🚫",
        "skipped" => "⏭️",
        "manual" => "✋",
        "scheduled" => "📅",
        "opened" | "open" | "active" => "🟢",
        "closed" => "🔴",
        "merged" => "🟣",
        "locked" => "🔒",
        "blocked" | "banned" => "⛔",
        "archived" => "📦",
        _ => return None,
    })
}

/// Only http(s) URLs become links.
pub fn is_web_url(value: &str) -> bool {
    value.starts_with("https://") || value.starts_with("http://")
}

/// The fence language for a file path, from its extension.
pub fn language_of(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    match (name, extension.as_deref()) {
        ("Dockerfile", _) => "dockerfile",
        ("Makefile", _) => "makefile",
        (_, Some("rs")) => "rust",
        (_, Some("go")) => "go",
        (_, Some("py")) => "python",
        (_, Some("rb")) => "ruby",
        (_, Some("js" | "mjs" | "cjs")) => "javascript",
        (_, Some("ts" | "tsx")) => "typescript",
        (_, Some("java")) => "java",
        (_, Some("kt")) => "kotlin",
        (_, Some("c" | "h")) => "c",
        (_, Some("cc" | "cpp" | "hpp")) => "cpp",
        (_, Some("sh" | "bash")) => "bash",
        (_, Some("yml" | "yaml")) => "yaml",
        (_, Some("json")) => "json",
        (_, Some("toml")) => "toml",
        (_, Some("md" | "markdown")) => "markdown",
        (_, Some("html" | "htm")) => "html",
        (_, Some("css")) => "css",
        (_, Some("sql")) => "sql",
        (_, Some("xml")) => "xml",
        (_, Some("diff" | "patch")) => "diff",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_readable_and_utc() {
        assert_eq!(date("2025-01-15T10:30:00.000Z"), "15 Jan 2025 10:30 UTC");
        assert_eq!(date("2025-01-15T11:30:00+01:00"), "15 Jan 2025 10:30 UTC");
        assert_eq!(date("2025-03-05"), "5 Mar 2025");
        assert_eq!(date("soon"), "soon");
    }

    #[test]
    fn sizes_durations_numbers() {
        assert_eq!(size(512.0), "512 B");
        assert_eq!(size(1536.0), "1.5 KiB");
        assert_eq!(size(5.0 * 1024.0 * 1024.0), "5.0 MiB");
        assert_eq!(duration(45.4), "45s");
        assert_eq!(duration(192.0), "3m 12s");
        assert_eq!(duration(3725.0), "1h 02m");
        assert_eq!(number(66.666), "66.67");
        assert_eq!(number(12.0), "12");
    }
}

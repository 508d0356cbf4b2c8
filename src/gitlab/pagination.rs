//! Where a list result sits among all pages: GitLab's offset pagination, read from the
//! `X-Page` family of response headers, or a GraphQL connection's cursor.

use serde::{Deserialize, Serialize};

/// Where a list result sits among all pages.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pagination {
    /// Absent for a GraphQL connection, which pages by cursor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<i64>,
    pub per_page: i64,
    /// Absent when GitLab does not count (it stops counting above 10,000 items).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_items: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_pages: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page: Option<i64>,
    pub has_more: bool,
    /// For a GraphQL connection: where the next page starts (its `endCursor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

impl Pagination {
    /// Reads `X-Page`, `X-Per-Page`, `X-Total`, `X-Total-Pages` and `X-Next-Page`.
    pub fn from_headers<'a>(header: impl Fn(&str) -> Option<&'a str>) -> Self {
        let number = |name: &str| header(name).and_then(|v| v.trim().parse::<i64>().ok());
        let next_page = number("x-next-page");
        Self {
            page: Some(number("x-page").unwrap_or(1)),
            per_page: number("x-per-page").unwrap_or(20),
            total_items: number("x-total"),
            total_pages: number("x-total-pages"),
            next_page,
            has_more: next_page.is_some(),
            next_cursor: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_headers() {
        let headers = [
            ("x-page", "2"),
            ("x-per-page", "20"),
            ("x-total", "57"),
            ("x-total-pages", "3"),
            ("x-next-page", "3"),
        ];
        let pagination = Pagination::from_headers(|name| {
            headers.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
        });
        assert_eq!(
            pagination,
            Pagination {
                page: Some(2),
                per_page: 20,
                total_items: Some(57),
                total_pages: Some(3),
                next_page: Some(3),
                has_more: true,
                next_cursor: None,
            }
        );
    }

    #[test]
    fn empty_next_page_means_last_page() {
        let headers = [("x-page", "3"), ("x-next-page", "")];
        let pagination = Pagination::from_headers(|name| {
            headers.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
        });
        assert!(!pagination.has_more);
        assert_eq!(pagination.next_page, None);
    }
}

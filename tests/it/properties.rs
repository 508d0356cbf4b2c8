//! Property tests of the parts that turn arbitrary text into structure: the Markdown
//! writer's escaping, URI template expansion and its inverse, query strings on the wire,
//! search queries, and token redaction. Bounded: 200 cases each.

use gitlab_mcp::dispatch::{Context, Dispatcher};
use gitlab_mcp::gitlab::{GitlabClient, Method, Request, encode_component};
use gitlab_mcp::output::{Markdown, cell};
use gitlab_mcp::policy::Policy;
use gitlab_mcp::redact::Redactor;
use gitlab_mcp::resources::{self, Target};
use proptest::prelude::*;

/// Text mixing Markdown and HTML specials, whitespace, escapes and non-ASCII.
fn tricky() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a", "Z", "0", " ", "\n", "\r", "\t", "|", "\\", "`", "*", "_", "[", "]", "(", ")", "<",
        ">", "&", "#", "-", "+", "=", "1. ", "~", "!", "/", "%", "?", "é", "💡", "\u{2028}", "```",
        "<script>", "glpat-", ":",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|parts| parts.concat())
}

fn unescaped_pipes(line: &str) -> usize {
    let mut count = 0;
    let mut escaped = false;
    for ch in line.chars() {
        match ch {
            '\\' if !escaped => escaped = true,
            '|' if !escaped => count += 1,
            _ => escaped = false,
        }
    }
    count
}

fn dispatcher() -> Dispatcher {
    let client = GitlabClient::new("http://127.0.0.1:9", None);
    Dispatcher::new(Context::new(client), std::sync::Arc::new(Policy::default()))
}

proptest! {
    // Failures are reported, not saved: a fixed case belongs in a named test.
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_table_cell_never_breaks_its_row(a in tricky(), b in tricky()) {
        let mut markdown = Markdown::new();
        let mut table = markdown.table("Things", 1, &["A", "B", "C"]);
        table.row(vec![cell::text(Some(&a)), cell::code(Some(&b)), cell::text(Some("x"))]);
        table.finish(None);
        let out = markdown.into_string();
        let rows: Vec<&str> = out.lines().filter(|l| l.starts_with('|')).collect();
        prop_assert_eq!(rows.len(), 3, "{}", out);
        let columns = unescaped_pipes(rows[0]);
        for row in &rows {
            prop_assert_eq!(unescaped_pipes(row), columns, "{}", out);
        }
    }

    #[test]
    fn a_paragraph_opens_no_block_and_no_tag(text in tricky()) {
        let mut markdown = Markdown::new();
        markdown.paragraph(&text);
        let out = markdown.into_string();
        prop_assert!(!out.contains('<') && !out.contains('>'), "{}", out);
        for line in out.lines() {
            prop_assert!(!line.starts_with(['#', '-', '+', '=']), "{}", out);
            prop_assert!(!line.starts_with("```"), "{}", out);
        }
    }

    #[test]
    fn a_code_block_holds_any_text(text in tricky()) {
        let mut markdown = Markdown::new();
        markdown.code_block("", &text);
        let out = markdown.into_string();
        let fence: String = out.trim_start().chars().take_while(|&c| c == '`').collect();
        prop_assert!(fence.len() >= 3);
        // The fence closes only at the end.
        let closing = out.lines().filter(|l| l.trim_end() == fence).count();
        prop_assert_eq!(closing, 2, "{}", out);
    }

    #[test]
    fn uri_expansion_round_trips(project in tricky(), iid in 1_i64..1_000_000) {
        prop_assume!(!project.is_empty());
        static TEMPLATES: std::sync::OnceLock<Vec<resources::EntityTemplate>> = std::sync::OnceLock::new();
        let templates = TEMPLATES.get_or_init(|| resources::entity_templates(dispatcher().policy()));
        let uri = format!("gitlab://project/{}/mr/{iid}", encode_component(&project));
        prop_assert!(uri.chars().all(|c| c.is_ascii_alphanumeric() || "-._~%:/".contains(c)), "{}", uri);
        match resources::parse(&uri, templates) {
            Some(Target::Entity { action, args }) => {
                prop_assert_eq!(action.id, "merge_request.get");
                prop_assert_eq!(args["project_id"].as_str(), Some(project.as_str()));
                let iid = iid.to_string();
                prop_assert_eq!(args["merge_request_iid"].as_str(), Some(iid.as_str()));
            }
            _ => prop_assert!(false, "{} did not parse", uri),
        }
    }

    #[test]
    fn query_values_arrive_as_sent(search in tricky(), labels in prop::collection::vec(tricky(), 0..4)) {
        let request = Request::new(Method::Get)
            .segment("projects")
            .query("search", &search)
            .query("labels", &labels);
        let target = request.target().unwrap();
        let url = reqwest::Url::parse(&format!("http://x/api/v4{target}")).unwrap();
        let pairs: Vec<(String, String)> = url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        let mut expected = vec![("search".to_owned(), search.clone())];
        expected.extend(labels.iter().filter(|_| !labels.is_empty()).map(|l| ("labels[]".to_owned(), l.clone())));
        prop_assert_eq!(pairs, expected);
        prop_assert_eq!(url.path(), "/api/v4/projects");
    }

    #[test]
    fn any_search_query_is_answered(query in tricky()) {
        static INDEX: std::sync::OnceLock<gitlab_mcp::search::Index> = std::sync::OnceLock::new();
        let index = INDEX.get_or_init(|| gitlab_mcp::search::Index::new(&Policy::default()));
        let found = index.find(&gitlab_mcp::search::FindRequest { query, limit: 5, explain: false });
        prop_assert!(found.hits.len() <= 5);
    }

    #[test]
    fn the_token_never_survives_redaction(before in tricky(), after in tricky(), escape in any::<bool>()) {
        let token = "glpat-x9_-Kd2Lm8QpZz";
        let redactor = Redactor::new([token]);
        let shown = if escape { token.replace('_', "\\_").replace('-', "\\-") } else { token.to_owned() };
        let text = format!("{before}{shown}{after}");
        let clean = redactor.text(&text);
        prop_assert!(!clean.contains("Kd2Lm8QpZz"), "{}", clean);
    }
}

//! Search at scale: `cargo bench --bench search [-- N ...]` builds the find index over the
//! real catalog grown to N actions (copies of its domains under new names and paths, as
//! `.ci/scale-rehearsal` synthesizes them, vocabulary included) and prints, per N, the
//! time to build the index (the first find pays it) and the latency of a find over the
//! known requests (`actions/requests/`) and the holdout, without the process or the protocol around it.
//!
//! With `RANKINGS=<file>` it writes every request's answer instead (each hit's id and
//! score, the ambiguous ids, suggestions and what is missing, one request a line; of the
//! last size asked for) and measures nothing: two such files, before and after a change,
//! show whether it kept the rankings (`diff`).

use std::time::Instant;

use gitlab_mcp::catalog::{self, Action, DomainInfo};
use gitlab_mcp::search::{FindRequest, Index};

mod measure;
use measure::{median, ms, us};

// Only its request files are read here; the trials are the ranking bench's.
#[allow(dead_code)]
#[path = "../search/arrival.rs"]
mod arrival;

const BUILDS: usize = 5;
const ROUNDS: usize = 5;

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![catalog::ACTIONS.len(), 300, 1000]
    } else {
        sizes
    };
    let queries = queries();
    println!("| actions | index build (median of {BUILDS}) | find p50 | find p99 | requests |");
    println!("|---|---|---|---|---|");
    for wanted in sizes {
        let (actions, domains) = grown(wanted);
        let mut builds = Vec::new();
        let mut index = None;
        for _ in 0..BUILDS {
            let start = Instant::now();
            index = Some(Index::build(
                actions.iter().copied(),
                &actions,
                &domains,
                &[&catalog::VOCABULARY],
            ));
            builds.push(start.elapsed());
        }
        let index = index.expect("built");
        if let Ok(path) = std::env::var("RANKINGS") {
            write_rankings(&index, &queries, &path);
            continue;
        }
        let mut finds = Vec::new();
        for _ in 0..ROUNDS {
            for query in &queries {
                let start = Instant::now();
                std::hint::black_box(index.find(&FindRequest {
                    query: query.clone(),
                    limit: gitlab_mcp::search::DEFAULT_LIMIT,
                    explain: false,
                }));
                finds.push(start.elapsed());
            }
        }
        finds.sort();
        let at = |q: f64| finds[((finds.len() - 1) as f64 * q) as usize];
        println!(
            "| {} | {} | {} | {} | {} |",
            actions.len(),
            ms(median(builds)),
            us(at(0.5)),
            us(at(0.99)),
            queries.len()
        );
    }
}

/// Each request's answer, a line each, into `path`.
fn write_rankings(index: &Index, queries: &[String], path: &str) {
    let mut lines = String::new();
    for query in queries {
        let found = index.find(&FindRequest {
            query: query.clone(),
            limit: gitlab_mcp::search::MAX_LIMIT,
            explain: false,
        });
        let hits: Vec<String> = found
            .hits
            .iter()
            .map(|hit| format!("{}:{}", hit.action.id, hit.score))
            .collect();
        lines.push_str(&format!(
            "{query}\t{}\t{:?}\t{:?}\t{:?}\n",
            hits.join(" "),
            found.ambiguous,
            found.suggestions,
            found.missing
        ));
    }
    std::fs::write(path, lines).unwrap_or_else(|e| panic!("writing {path}: {e}"));
}

/// The catalog, with copies of its domains (`s01_merge_request`, paths under `/s01`) until
/// it has at least `wanted` actions.
fn grown(wanted: usize) -> (Vec<&'static Action>, Vec<&'static DomainInfo>) {
    let mut actions: Vec<&'static Action> = catalog::ACTIONS.iter().collect();
    let mut domains: Vec<&'static DomainInfo> = catalog::DOMAINS.iter().collect();
    let leak = |text: String| -> &'static str { Box::leak(text.into_boxed_str()) };
    let mut copy = 0;
    while actions.len() < wanted {
        copy += 1;
        for domain in catalog::DOMAINS {
            if actions.len() >= wanted {
                break;
            }
            let name = leak(format!("s{copy:02}_{}", domain.name));
            domains.push(Box::leak(Box::new(DomainInfo { name, ..*domain })));
            for action in catalog::ACTIONS.iter().filter(|a| a.domain == domain.name) {
                actions.push(Box::leak(Box::new(Action {
                    id: leak(format!("{name}.{}", action.name)),
                    domain: name,
                    path: leak(format!("/s{copy:02}{}", action.path)),
                    aliases: &[],
                    ..*action
                })));
            }
        }
    }
    (actions, domains)
}

/// Every known request, then the holdout's: the same files the ranking bench reads.
fn queries() -> Vec<String> {
    let files = arrival::request_files("actions/requests", |_| true)
        .into_iter()
        .chain(arrival::request_files("tests/search", |name| {
            name == "holdout"
        }));
    let mut found = Vec::new();
    for (_, text) in files {
        found.extend(gitlab_mcp::search::parse_requests(&text).map(|k| k.request.to_owned()));
    }
    found
}

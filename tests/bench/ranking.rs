//! The ranking loop for whoever changes search rules or vocabulary: every figure the
//! search tests hold a floor on, in seconds instead of the debug tests' minutes, and the
//! requests each one misses.
//!
//! `cargo bench --bench ranking -- <what> [--misses]`, where `<what>` is
//! - `known`: the known requests, each ranked as if unseen (`search::ranking_precision_on_the_known_requests`);
//! - `holdout`: the two holdouts of `tests/search/`;
//! - `batch N`: the last N batches of `tests/search/batches.tsv` on arrival;
//! - `domains [N]`: every domain left out in turn (one in N, as the tests sample them);
//! - `explain DOMAIN REQUEST...`: how a search that knows no request for DOMAIN ranks
//!   each REQUEST: its first ten, with the reasons.
//!
//! With `--misses`, each request not ranked first is printed as
//! `MISS<TAB>request<TAB>expected ids<TAB>ids ranked`. Run it before and after a change;
//! the tests then confirm the floors.

#[path = "../search/arrival.rs"]
mod arrival;

use gitlab_mcp::search::{FindRequest, Index, KnownRequest, parse_requests};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let show_misses = args.iter().any(|a| a == "--misses");
    let args: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| *a != "--misses")
        .collect();
    let files = arrival::request_files("actions/requests", |_| true);
    let known: Vec<KnownRequest<'_>> = files
        .iter()
        .flat_map(|(_, text)| parse_requests(text))
        .collect();
    let miss = |known: &KnownRequest<'_>, ids: &[&str]| {
        if show_misses {
            println!(
                "MISS\t{}\t{}\t{}",
                known.request,
                known.actions.join("|"),
                ids.join(" ")
            );
        }
    };
    match args.as_slice() {
        ["known"] => {
            let index = Index::new(&gitlab_mcp::policy::Policy::default());
            let score = arrival::rank_with(&known, |r| index.find_unseen(r), miss);
            print_score("known requests", score);
        }
        ["holdout"] => {
            let index = Index::new(&gitlab_mcp::policy::Policy::default());
            let holdouts = arrival::request_files("tests/search", |name| {
                matches!(name, "holdout" | "holdout-fresh")
            });
            for (name, text) in &holdouts {
                let requests: Vec<_> = parse_requests(text).collect();
                print_score(name, arrival::rank_with(&requests, |r| index.find(r), miss));
            }
        }
        ["batch", last] => {
            let last: usize = last.parse().expect("a number of batches");
            let batches = arrival::batches();
            let trial = arrival::batch(&known, &batches[batches.len().saturating_sub(last)..]);
            print_score(&trial.name, arrival::rank(&trial, miss));
        }
        ["domains", rest @ ..] => {
            let every = rest
                .first()
                .map_or(1, |n| n.parse().expect("a sample size"));
            let mut total = arrival::Score::default();
            for trial in arrival::domains_left_out(&known, every) {
                let score = arrival::rank(&trial, miss);
                print_score(&trial.name, score);
                total.add(score);
            }
            print_score("every domain left out", total);
        }
        ["explain", "--batch", last, requests @ ..] => {
            let last: usize = last.parse().expect("a number of batches");
            let batches = arrival::batches();
            let trial = arrival::batch(&known, &batches[batches.len().saturating_sub(last)..]);
            explain(&trial, requests);
        }
        ["explain", domain, requests @ ..] => {
            let trial = arrival::domains_left_out(&known, 1)
                .find(|trial| trial.name == *domain)
                .expect("a domain with known requests");
            explain(&trial, requests);
        }
        _ => eprintln!(
            "usage: known | holdout | batch N | domains [N] \
             | explain (DOMAIN | --batch N) REQUEST... [--misses]"
        ),
    }
}

/// Prints the ten actions a trial's index ranks first for each request, with why.
fn explain(trial: &arrival::Trial<'_>, requests: &[&str]) {
    for request in requests {
        println!("## {request}");
        let found = trial.index.find(&FindRequest {
            query: (*request).to_owned(),
            limit: 10,
            explain: true,
        });
        for hit in found.hits {
            println!(
                "{} {}: {}",
                hit.score,
                hit.action.id,
                hit.reasons.join("; ")
            );
        }
    }
}

fn print_score(name: &str, score: arrival::Score) {
    println!(
        "{name}: {} requests, P@1 {:.4}, P@5 {:.4}",
        score.total,
        score.at_1(),
        score.at_5()
    );
}

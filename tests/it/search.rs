//! Search quality over the corpus in `tests/search/corpus.tsv`: realistic requests (plain
//! words, synonyms, typos, long multi-intent prompts) with the action ids they expect.

use gitlab_mcp::policy::Policy;
use gitlab_mcp::search::{FindRequest, Index};

/// The floor the ranking must keep; the measured numbers are printed.
const MIN_PRECISION_AT_1: f64 = 0.90;
const MIN_PRECISION_AT_5: f64 = 0.98;

#[test]
fn ranking_precision_on_the_corpus() {
    let corpus = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/search/corpus.tsv"
    ))
    .unwrap();
    let index = Index::new(&Policy::default());
    let mut by_kind: std::collections::BTreeMap<String, (usize, usize, usize)> = Default::default();
    let mut misses = Vec::new();
    let (mut total, mut first, mut top5) = (0, 0, 0);
    for line in corpus.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let columns: Vec<&str> = line.split('\t').collect();
        let (query, expected, kind) = (columns[0], columns[1], columns[2]);
        let expected: Vec<&str> = expected.split('|').collect();
        let found = index.find(&FindRequest {
            query: query.into(),
            limit: 5,
            explain: false,
        });
        let ids: Vec<&str> = found.hits.iter().map(|h| h.action.id).collect();
        let hit1 = ids.first().is_some_and(|id| expected.contains(id));
        let hit5 = ids.iter().any(|id| expected.contains(id));
        total += 1;
        first += usize::from(hit1);
        top5 += usize::from(hit5);
        let entry = by_kind.entry(kind.to_owned()).or_default();
        entry.0 += 1;
        entry.1 += usize::from(hit1);
        entry.2 += usize::from(hit5);
        if !hit1 {
            misses.push(format!(
                "{query:?} expected {expected:?}, got {:?}",
                &ids[..ids.len().min(3)]
            ));
        }
    }
    let p1 = first as f64 / total as f64;
    let p5 = top5 as f64 / total as f64;
    println!("find ranking on {total} requests: P@1 = {p1:.3}, P@5 = {p5:.3}");
    for (kind, (n, a, b)) in &by_kind {
        println!(
            "  {kind:<8} {n:>4} requests  P@1 {:.3}  P@5 {:.3}",
            *a as f64 / *n as f64,
            *b as f64 / *n as f64
        );
    }
    for miss in &misses {
        println!("  miss: {miss}");
    }
    assert!(total >= 150, "the corpus keeps at least 150 requests");
    assert!(
        p1 >= MIN_PRECISION_AT_1,
        "P@1 {p1:.3} is under {MIN_PRECISION_AT_1}"
    );
    assert!(
        p5 >= MIN_PRECISION_AT_5,
        "P@5 {p5:.3} is under {MIN_PRECISION_AT_5}"
    );
}

/// The budget: a find answer at the default limit, content plus structure.
const MAX_MEDIAN_FIND_BYTES: usize = 2_500;

#[test]
fn find_answers_stay_small() {
    let corpus = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/search/corpus.tsv"
    ))
    .unwrap();
    let index = Index::new(&Policy::default());
    let mut sizes: Vec<usize> = corpus
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let query = line.split('\t').next().unwrap_or_default();
            let outcome = gitlab_mcp::surfaces::find(
                &index,
                &FindRequest {
                    query: query.into(),
                    limit: gitlab_mcp::search::DEFAULT_LIMIT,
                    explain: false,
                },
            );
            let structured = serde_json::to_string(&outcome.structured.unwrap()).unwrap();
            outcome.text.len() + structured.len()
        })
        .collect();
    sizes.sort();
    let median = sizes[sizes.len() / 2];
    println!(
        "find answer bytes over {} requests: median {median}, p90 {}, max {}",
        sizes.len(),
        sizes[sizes.len() * 9 / 10],
        sizes[sizes.len() - 1]
    );
    assert!(median <= MAX_MEDIAN_FIND_BYTES, "median {median} bytes");
}

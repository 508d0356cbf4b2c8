//! Ranking on arrival: how actions nobody has asked for yet rank, from their YAML alone.
//! Each trial is a search built without any known request naming some actions, ranking
//! the known requests for them: every domain in turn (what a new domain, or a domain's
//! worth of new actions, meets), and the last batches of actions added to the catalog
//! (`tests/search/batches.tsv`). Shared by the tests (`tests/it/search.rs`) and the
//! report (`tests/bench/main.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use gitlab_mcp::catalog;
use gitlab_mcp::policy::Policy;
use gitlab_mcp::search::{FindRequest, Found, Index, KnownRequest, Prepared};

/// The request files (`*.tsv`) of a folder of this crate (`actions/requests`,
/// `tests/search`) whose name (without `.tsv`) `keep` accepts, as `(name, text)` in name
/// order.
pub fn request_files(folder: &str, keep: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut files: Vec<(String, String)> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "tsv"))
        .map(|path| {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .filter(|(name, _)| keep(name))
        .collect();
    files.sort();
    files
}

/// A search that knows no request for some actions, and the known requests for them.
pub struct Trial<'a> {
    pub name: String,
    pub index: Index,
    pub requests: Vec<&'a KnownRequest<'a>>,
}

/// The actions added to the catalog together (on one day), as `batches.tsv` lists them.
pub struct Batch {
    pub name: String,
    pub actions: Vec<String>,
}

/// The batches of `tests/search/batches.tsv` (`action<TAB>batch` lines), oldest first.
pub fn batches() -> Vec<Batch> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/search/batches.tsv");
    let text = std::fs::read_to_string(path).expect("tests/search/batches.tsv");
    let mut batches: Vec<Batch> = Vec::new();
    for line in text.lines().skip(1) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (action, name) = line.split_once('\t').expect("action<TAB>batch");
        match batches.last_mut() {
            Some(batch) if batch.name == name => batch.actions.push(action.to_owned()),
            _ => batches.push(Batch {
                name: name.to_owned(),
                actions: vec![action.to_owned()],
            }),
        }
    }
    batches
}

/// One trial per domain, in catalog order, each built when it is reached; with
/// `every: n`, about one domain in n, chosen by a hash of its name, so that a domain added
/// to the catalog does not change which of the others are sampled.
pub fn domains_left_out<'a>(
    requests: &'a [KnownRequest<'a>],
    every: usize,
) -> impl Iterator<Item = Trial<'a>> + 'a {
    let domain_of: HashMap<&str, &str> = catalog::ACTIONS
        .iter()
        .map(|action| (action.id, action.domain))
        .collect();
    catalog::DOMAINS
        .iter()
        .filter(move |domain| sampled(domain.name, every))
        .filter_map(move |domain| {
            let in_domain = |id: &str| domain_of.get(id) == Some(&domain.name);
            let trial = trial(domain.name.to_owned(), requests, in_domain);
            (!trial.requests.is_empty()).then_some(trial)
        })
}

/// Whether `domain` is among one in `every` domains (FNV-1a of its name: stable across
/// runs, platforms and catalog changes).
fn sampled(domain: &str, every: usize) -> bool {
    let hash = domain
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    hash % every.max(1) as u64 == 0
}

/// The actions of `batches` ranked by a search that knows no request for any of them.
pub fn batch<'a>(requests: &'a [KnownRequest<'a>], batches: &[Batch]) -> Trial<'a> {
    let ids: Vec<&str> = batches
        .iter()
        .flat_map(|batch| batch.actions.iter().map(String::as_str))
        .collect();
    for id in &ids {
        assert!(
            catalog::ACTIONS.iter().any(|action| action.id == *id),
            "batches.tsv names {id}, which the catalog lacks"
        );
    }
    let names: Vec<&str> = batches.iter().map(|batch| batch.name.as_str()).collect();
    trial(
        format!("{} actions added {}", ids.len(), names.join(" and ")),
        requests,
        |id| ids.contains(&id),
    )
}

/// A search without the requests naming the actions `new` accepts, and those requests.
fn trial<'a>(
    name: String,
    requests: &'a [KnownRequest<'a>],
    new: impl Fn(&str) -> bool,
) -> Trial<'a> {
    let prepared = Prepared::built_in_without_requests_for(|id| !new(id));
    Trial {
        name,
        index: Index::assemble(Policy::default().visible(), Arc::new(prepared)),
        requests: requests
            .iter()
            .filter(|known| known.actions.iter().any(|id| new(id)))
            .collect(),
    }
}

/// How many requests a trial ranked, and how many first and in the first five.
#[derive(Default, Clone, Copy)]
pub struct Score {
    pub total: usize,
    pub first: usize,
    pub five: usize,
}

impl Score {
    pub fn at_1(&self) -> f64 {
        self.first as f64 / self.total.max(1) as f64
    }

    pub fn at_5(&self) -> f64 {
        self.five as f64 / self.total.max(1) as f64
    }

    pub fn add(&mut self, other: Score) {
        self.total += other.total;
        self.first += other.first;
        self.five += other.five;
    }
}

/// Each request of `trial` ranked by its search; `miss` hears each request not ranked
/// first, with the ids ranked.
pub fn rank(trial: &Trial<'_>, miss: impl FnMut(&KnownRequest<'_>, &[&str])) -> Score {
    rank_with(
        trial.requests.iter().copied(),
        |request| trial.index.find(request),
        miss,
    )
}

/// Each request ranked by `find` (its first five hits); `miss` hears each request not
/// ranked first, with the ids ranked.
pub fn rank_with<'a>(
    requests: impl IntoIterator<Item = &'a KnownRequest<'a>>,
    find: impl Fn(&FindRequest) -> Found,
    mut miss: impl FnMut(&KnownRequest<'_>, &[&str]),
) -> Score {
    let mut score = Score::default();
    for known in requests {
        let found = find(&FindRequest {
            query: known.request.to_owned(),
            limit: 5,
            explain: false,
        });
        let ids: Vec<&str> = found.hits.iter().map(|h| h.action.id).collect();
        let expected = |id: &&str| known.actions.contains(id);
        let first = ids.first().is_some_and(expected);
        score.total += 1;
        score.first += usize::from(first);
        score.five += usize::from(ids.iter().any(expected));
        if !first {
            miss(known, &ids);
        }
    }
    score
}

/// What BENCHMARKS.md's "Search on arrival" section measures, above its table (the report
/// bench writes it).
#[allow(dead_code)]
pub const ABOUT: &str = "Each action's known requests ranked by a search that knows none of them, from the YAML alone: every domain's in turn, and the last batches of actions added (`tests/search/batches.tsv`). `cargo test --test it search::ranking_on_arrival_report -- --ignored --nocapture` prints these rows (some 7 minutes of a debug build; `WRITE_BENCHMARKS=1` writes them here), and the report above writes them too.";

/// The rows of BENCHMARKS.md's "Search on arrival" table (requests, P@1, P@5): every
/// domain left out in turn, the last batch and the last two; `each` hears every trial's
/// figures.
#[allow(dead_code)] // the report and the tests use it; the ranking bench does not
pub fn report_rows<'a>(
    requests: &'a [KnownRequest<'a>],
    mut each: impl FnMut(&Trial<'a>, Score),
) -> Vec<[String; 3]> {
    let row = |name: &str, score: Score| {
        [
            format!("{} ({name})", score.total),
            format!("{:.3}", score.at_1()),
            format!("{:.3}", score.at_5()),
        ]
    };
    let mut domains = Score::default();
    for trial in domains_left_out(requests, 1) {
        let score = rank(&trial, |_, _| {});
        each(&trial, score);
        domains.add(score);
    }
    let mut rows = vec![row("each domain left out", domains)];
    let batches = batches();
    for last in [1, 2] {
        let trial = batch(requests, &batches[batches.len() - last..]);
        let score = rank(&trial, |_, _| {});
        each(&trial, score);
        rows.push(row(&trial.name, score));
    }
    rows
}

/// `text` (BENCHMARKS.md) with the table of its "Search on arrival" section replaced by
/// `table`; `None` when it has no such table. (The report bench writes the whole file.)
#[allow(dead_code)]
pub fn with_table(text: &str, table: &str) -> Option<String> {
    let section = text.find("## Search on arrival")?;
    let start = section + text[section..].find("\n|")? + 1;
    let end = text[start..]
        .find("\n\n")
        .map_or(text.len(), |end| start + end + 1);
    Some(format!("{}{table}{}", &text[..start], &text[end..]))
}

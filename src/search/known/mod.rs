//! The known requests (`actions/requests/*.tsv`) as data: their lines (`parse`), their
//! terms (`terms`), and the table search reads them through (`table`: postings, BM25
//! weights and profiles, computed once).
//!
//! build.rs pulls this folder in with `#[path]` (through `src/codegen/`) and writes the
//! table of the whole corpus to `OUT_DIR`; the binary reads it in place (`include_bytes!`),
//! so a start builds nothing and a search allocates nothing for it. Tests that leave a
//! file out build the same table on the heap with the same code. Nothing here depends on
//! the rest of the crate, for that reason.

pub mod table;
pub mod terms;

/// One line of a requests file (`actions/requests/*.tsv`, and the holdouts in the same
/// format).
pub struct KnownRequest<'a> {
    pub request: &'a str,
    /// The actions that answer it, any of them right.
    pub actions: Vec<&'a str>,
    /// `plain`, `synonym`, `typo` or `multi` (empty when the line has no third column).
    pub kind: &'a str,
}

/// The requests of a requests file: after its header line, every line but blank ones and
/// `# ` comments (a request may start with an issue reference such as `#42`), as
/// `request<TAB>ids separated by |<TAB>kind`. build.rs has checked the files it embeds.
pub fn parse(text: &str) -> impl Iterator<Item = KnownRequest<'_>> {
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty() && !line.starts_with("# ") && *line != "#")
        .filter_map(|line| {
            let mut columns = line.split('\t');
            let (request, ids) = (columns.next()?, columns.next()?);
            Some(KnownRequest {
                request,
                actions: ids.split('|').collect(),
                kind: columns.next().unwrap_or_default(),
            })
        })
}

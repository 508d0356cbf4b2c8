//! Where a job log failed: GitLab's collapsible sections, the lines that look like errors,
//! and the excerpt that shows them with context, within a line budget, before the tail.
//!
//! A failing test suite prints hundreds of passing tests and then the failures, often far
//! from the last line (a summary, artifact upload and cleanup come after). The excerpt
//! takes the first error cluster (usually the cause) and then the latest ones, each with a
//! few lines around it, and names the section they are in.

/// One line of a cleaned log, numbered from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub number: i64,
    pub text: String,
}

/// A collapsible section (`section_start:…:step_script` to `section_end:…:step_script`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub start: i64,
    /// `None` while the section is open (the job died inside it).
    pub end: Option<i64>,
}

/// Lines of context shown before and after an error line.
const BEFORE: i64 = 3;
const AFTER: i64 = 8;

/// Whether a line reads as a failure: compiler and runner errors, panics, exceptions,
/// failed tests, non-zero exits. Counts of zero failures are not failures.
pub fn is_error_line(text: &str) -> bool {
    let line = text.to_ascii_lowercase();
    const CALM: &[&str] = &[
        " 0 failed",
        "0 failures",
        "0 errors",
        "failed: 0",
        "errors: 0",
        "no errors",
        "exit code 0",
        "allow_failure",
        "error_count=0",
    ];
    if CALM.iter().any(|calm| line.contains(calm)) {
        return false;
    }
    const LOUD: &[&str] = &[
        "error:",
        "error[",
        "] error",
        "errors:",
        "fatal:",
        "fatal error",
        "panicked at",
        "traceback (most recent call last)",
        "exception",
        "failed",
        "failures:",
        "assertion",
        "npm err!",
        "exit code",
        "exit status",
        "segmentation fault",
        "undefined reference",
        "no such file or directory",
        "command not found",
        "✗",
        "✘",
    ];
    LOUD.iter().any(|loud| line.contains(loud)) || text.contains("FAIL")
}

/// The section a line is in, innermost first.
pub fn section_of(sections: &[Section], line: i64) -> Option<&Section> {
    sections
        .iter()
        .filter(|s| s.start <= line && s.end.is_none_or(|end| line <= end))
        .max_by_key(|s| s.start)
}

/// The line ranges (inclusive) to show before `tail_start`: error lines with context,
/// the first cluster and then the latest ones, at most `budget` lines in all.
pub fn focus(lines: &[Line], tail_start: i64, budget: i64) -> Vec<(i64, i64)> {
    let errors: Vec<i64> = lines
        .iter()
        .filter(|l| l.number < tail_start && is_error_line(&l.text))
        .map(|l| l.number)
        .collect();
    let first_kept = lines.first().map_or(1, |l| l.number);
    let mut clusters: Vec<(i64, i64)> = Vec::new();
    for number in errors {
        let start = (number - BEFORE).max(first_kept);
        let end = (number + AFTER).min(tail_start - 1);
        match clusters.last_mut() {
            Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end),
            _ => clusters.push((start, end)),
        }
    }
    if clusters.is_empty() {
        return Vec::new();
    }
    // The first cluster, then the latest ones, while the budget lasts.
    let mut order = vec![0];
    order.extend((1..clusters.len()).rev());
    let mut chosen = Vec::new();
    let mut used = 0;
    for index in order {
        let (start, end) = clusters[index];
        let room = budget - used;
        if room <= 0 {
            break;
        }
        let end = end.min(start + room - 1);
        used += end - start + 1;
        chosen.push((start, end));
    }
    chosen.sort();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(texts: &[&str]) -> Vec<Line> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Line {
                number: i as i64 + 1,
                text: (*t).to_owned(),
            })
            .collect()
    }

    #[test]
    fn error_lines() {
        for loud in [
            "error[E0308]: mismatched types",
            "thread 'x' panicked at src/lib.rs:3:5",
            "FAILED tests/test_api.py::test_login - AssertionError",
            "ERROR: Job failed: exit code 1",
            "npm ERR! code ELIFECYCLE",
            "--- FAIL: TestLogin (0.00s)",
        ] {
            assert!(is_error_line(loud), "{loud}");
        }
        for calm in [
            "test result: ok. 120 passed; 0 failed; 0 ignored",
            "Running with gitlab-runner 17.0",
            "test api::login ... ok",
            "Job succeeded",
        ] {
            assert!(!is_error_line(calm), "{calm}");
        }
    }

    #[test]
    fn the_first_and_latest_clusters_fit_the_budget() {
        let mut texts = vec!["ok"; 300];
        texts[20] = "error: first cause";
        texts[150] = "error: middle";
        texts[250] = "error: latest";
        let lines = numbered(&texts);
        let ranges = focus(&lines, 280, 24);
        assert_eq!(ranges, vec![(18, 29), (248, 259)]);
        let ranges = focus(&lines, 280, 100);
        assert_eq!(ranges.len(), 3);
        assert!(focus(&numbered(&["ok"; 10]), 5, 50).is_empty());
    }

    #[test]
    fn sections_nest() {
        let sections = vec![
            Section {
                name: "step_script".into(),
                start: 10,
                end: Some(90),
            },
            Section {
                name: "tests".into(),
                start: 20,
                end: None,
            },
        ];
        assert_eq!(section_of(&sections, 15).unwrap().name, "step_script");
        assert_eq!(section_of(&sections, 95).unwrap().name, "tests");
        assert!(section_of(&sections, 5).is_none());
    }
}

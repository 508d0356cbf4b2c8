//! The README's figures, rendered from BENCHMARKS.md: the benchmark table and the Quick
//! start's time estimates. Shared by the benchmark report, which rewrites them in
//! README.md with `--write`, and by `tests/it/first_hour.rs`, which fails when README.md
//! says anything else. No figure in the README is typed by hand.
//!
//! Each block sits between `<!-- BEGIN figures:NAME -->` and `<!-- END figures:NAME -->`.

/// The blocks of the README that come from BENCHMARKS.md, by name.
pub fn blocks(benchmarks: &str) -> Result<Vec<(&'static str, String)>, String> {
    Ok(vec![
        ("benchmarks", benchmark_table(benchmarks)?),
        ("quickstart", quick_start(benchmarks)?),
    ])
}

/// `readme` with every block replaced by its rendering; an error names a missing marker.
pub fn rewrite(readme: &str, blocks: &[(&'static str, String)]) -> Result<String, String> {
    let mut out = readme.to_owned();
    for (name, text) in blocks {
        let begin = format!("<!-- BEGIN figures:{name} -->\n");
        let end = format!("<!-- END figures:{name} -->");
        let start = out
            .find(&begin)
            .ok_or_else(|| format!("README.md has no `{}` marker", begin.trim()))?
            + begin.len();
        let stop = out[start..]
            .find(&end)
            .ok_or_else(|| format!("README.md has no `{end}` marker"))?
            + start;
        out.replace_range(start..stop, &format!("{text}\n"));
    }
    Ok(out)
}

fn benchmark_table(b: &str) -> Result<String, String> {
    let startup = table(b, "Startup")?;
    let sizes = table(b, "tools/list size")?;
    let search = table(b, "Search")?;
    let overhead = table(b, "Per-call overhead")?;
    let memory = table(b, "Memory")?;
    let results = table(b, "Bytes per result")?;
    let build = table(b, "Release build")?;
    let side = table(b, "Side by side").unwrap_or_default();
    let other = side.rows.iter().find(|r| !r[0].starts_with("gitlab-mcp"));
    let ours_sdk = side
        .rows
        .iter()
        .find(|r| r[0].starts_with("gitlab-mcp (dynamic)"));
    let not_measured = || "not measured".to_owned();

    let inits: Vec<f64> = startup
        .rows
        .iter()
        .map(|r| number(&r[1]))
        .collect::<Result<_, _>>()?;
    let (low, high) = inits
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let tools_list = ["dynamic", "meta (opaque)", "individual"]
        .iter()
        .map(|name| {
            let r = sizes.row(name)?;
            Ok(format!(
                "{} {} ({})",
                name.split(' ').next().unwrap_or(name),
                thousands(&r[2])?,
                r[1]
            ))
        })
        .collect::<Result<Vec<_>, String>>()?
        .join(" · ");
    let search_row = &search.rows[0];
    let mr_list = results.row("20-MR list")?;
    // `@zereight/mcp-gitlab@2.1.64` → `@zereight/mcp-gitlab 2.1.64`
    let other_name = other.map_or_else(
        || "another server".to_owned(),
        |r| match r[0].rsplit_once('@') {
            Some((name, version)) if !name.is_empty() => format!("{name} {version}"),
            _ => r[0].clone(),
        },
    );

    let rows: Vec<[String; 3]> = vec![
        [
            "spawn → initialize response (raw pipes)".into(),
            format!("{low:.1}–{high:.1} ms"),
            not_measured(),
        ],
        [
            "spawn → initialized, TypeScript SDK client".into(),
            ours_sdk.map_or_else(|| Ok(not_measured()), |r| milliseconds(&r[1]))?,
            other.map_or_else(|| Ok(not_measured()), |r| milliseconds(&r[1]))?,
        ],
        [
            "tools/list bytes (tools)".into(),
            tools_list,
            other.map_or_else(
                || Ok(not_measured()),
                |r| Ok::<_, String>(format!("{} ({})", thousands(&r[3])?, r[2])),
            )?,
        ],
        [
            "list 20 merge requests: content + structured bytes".into(),
            format!("{} + {}", thousands(&mr_list[1])?, thousands(&mr_list[2])?),
            other.map_or_else(
                || Ok(not_measured()),
                |r| Ok::<_, String>(format!("{} + {}", thousands(&r[5])?, thousands(&r[6])?)),
            )?,
        ],
        [
            format!(
                "`gitlab_find_action` p50 / p99, P@1 / P@5 ({} requests)",
                thousands(&search_row[0])?
            ),
            format!(
                "{:.0} µs / {:.0} µs, {} / {}",
                number(&search_row[3])?,
                number(&search_row[4])?,
                search_row[1],
                search_row[2]
            ),
            not_measured(),
        ],
        [
            "overhead per call over the upstream".into(),
            overhead.rows[0][2].clone(),
            not_measured(),
        ],
        [
            format!(
                "memory (RSS) after tools/list, at rest, after {} calls",
                thousands(
                    memory
                        .header
                        .get(2)
                        .ok_or("the Memory table has no column after the calls")?
                        .trim_start_matches("after ")
                )?
            ),
            memory.rows[0].join(", "),
            not_measured(),
        ],
        [
            "cold release build, stripped binary".into(),
            format!(
                "{}, {}",
                build.rows[0][0],
                build.rows[0][1].split(" (").next().unwrap_or_default()
            ),
            not_measured(),
        ],
    ];
    let mut text = format!("| | gitlab-mcp | {other_name} |\n|---|---|---|\n");
    for [label, ours, theirs] in rows {
        text.push_str(&format!("| {label} | {ours} | {theirs} |\n"));
    }
    Ok(text.trim_end().to_owned())
}

fn quick_start(b: &str) -> Result<String, String> {
    let quick = table(b, "Quick start")?;
    let demo = &quick.rows[0];
    let tests = &quick.rows[1];
    let cores = b
        .lines()
        .find(|l| l.starts_with("Measured by `.ci/bench-quickstart`"))
        .and_then(|l| l.split(" cores").next())
        .and_then(|l| l.rsplit('(').next())
        .ok_or("the Quick start section does not say how many cores")?;
    let again = match tests[3].as_str() {
        "gitlab-mcp" | "none" => {
            "only this one and test-only crates; it rebuilds nothing the first built".to_owned()
        }
        crates => format!("among them {crates}, which the first built too"),
    };
    Ok(format!(
        "On a {cores}-core machine shared with other work, with the dependencies downloaded, the first \
         command takes about {} (it compiles {} crates) and the second about {} more ({} crates: \
         {again}).",
        minutes(&demo[1])?,
        demo[2],
        minutes(&tests[1])?,
        tests[2]
    ))
}

/// One Markdown table of BENCHMARKS.md: its header and rows, each cell trimmed.
#[derive(Default)]
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn row(&self, first: &str) -> Result<&Vec<String>, String> {
        self.rows
            .iter()
            .find(|r| r[0] == first)
            .ok_or_else(|| format!("BENCHMARKS.md has no row `{first}`"))
    }
}

/// The first table under the `## ` heading that starts with `section`.
fn table(benchmarks: &str, section: &str) -> Result<Table, String> {
    let body = benchmarks
        .split("\n## ")
        .skip(1)
        .find(|s| s.starts_with(section))
        .ok_or_else(|| format!("BENCHMARKS.md has no section `{section}`"))?;
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let mut lines = body.lines().filter(|l| l.starts_with('|'));
    let header = cells(
        lines
            .next()
            .ok_or_else(|| format!("`{section}` has no table"))?,
    );
    let rows = lines.skip(1).map(cells).collect::<Vec<_>>();
    if rows.is_empty() {
        return Err(format!("the `{section}` table has no rows"));
    }
    Ok(Table { header, rows })
}

/// The number at the start of a cell: `2.15 ms` → 2.15.
fn number(cell: &str) -> Result<f64, String> {
    cell.split_whitespace()
        .next()
        .and_then(|n| n.replace(',', "").parse().ok())
        .ok_or_else(|| format!("`{cell}` does not start with a number"))
}

/// `541.7 ms` → `542 ms`, `4.7 ms` → `4.7 ms`.
fn milliseconds(cell: &str) -> Result<String, String> {
    let ms = number(cell)?;
    Ok(if ms >= 10.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{ms:.1} ms")
    })
}

/// `129 s` → `2 min`.
fn minutes(cell: &str) -> Result<String, String> {
    let minutes = (number(cell)? / 60.0).round().max(1.0);
    Ok(format!("{minutes:.0} min"))
}

/// `71331` → `71,331`.
fn thousands(cell: &str) -> Result<String, String> {
    let n = number(cell)?;
    let digits = format!("{n:.0}");
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    Ok(out)
}

//! The CLI's snapshot cases (`tests/cmd/*.toml` with their `.stdout`, trycmd): every action's full response on
//! the sandbox, Markdown and structure, reviewed as product output.
//! Re-bless with `TRYCMD=overwrite cargo test --test cli` and review the diff.
//! `CLI_CASES=tag.list,cli-catalog` runs only the cases it names: the loop on one new action
//! takes seconds instead of the minutes every case takes.

use std::path::Path;

#[test]
fn cli_cases() {
    let cases = trycmd::TestCases::new();
    match std::env::var("CLI_CASES") {
        Ok(names) => {
            for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let case = format!("tests/cmd/{name}.toml");
                assert!(
                    Path::new(&case).exists(),
                    "CLI_CASES names {name}, but there is no {case}"
                );
                blessable(Path::new(&case));
                cases.case(case);
            }
        }
        Err(_) => {
            for entry in std::fs::read_dir("tests/cmd").unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "toml") {
                    blessable(&path);
                }
            }
            cases.case("tests/cmd/*.toml");
        }
    }
}

/// When blessing, a new case's `.stdout` and `.stderr` are created empty: trycmd only
/// rewrites files that exist, so a case without them would pass having checked nothing.
fn blessable(case: &Path) {
    if std::env::var("TRYCMD").as_deref() != Ok("overwrite") {
        return;
    }
    for extension in ["stdout", "stderr"] {
        let expected = case.with_extension(extension);
        if !expected.exists() {
            std::fs::write(&expected, "").unwrap();
        }
    }
}

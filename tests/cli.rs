//! The CLI's snapshot cases (`tests/cmd/*.toml` with their `.stdout`, trycmd): every action's full response on
//! the sandbox, Markdown and structure, reviewed as product output.
//! Re-bless with `TRYCMD=overwrite cargo test --test cli` and review the diff.
//! `CLI_CASES=tag.list,cli-catalog` runs only the cases it names: the loop on one new action
//! takes seconds instead of the minutes every case takes.

#[test]
fn cli_cases() {
    let cases = trycmd::TestCases::new();
    match std::env::var("CLI_CASES") {
        Ok(names) => {
            for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let case = format!("tests/cmd/{name}.toml");
                assert!(
                    std::path::Path::new(&case).exists(),
                    "CLI_CASES names {name}, but there is no {case}"
                );
                cases.case(case);
            }
        }
        Err(_) => {
            cases.case("tests/cmd/*.toml");
        }
    }
}

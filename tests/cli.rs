//! The CLI's snapshot cases (`tests/cmd/*.toml` with their `.stdout`, trycmd): every action's full response on
//! the sandbox, Markdown and structure, reviewed as product output.
//! Re-bless with `TRYCMD=overwrite cargo test --test cli` and review the diff.

#[test]
fn cli_cases() {
    trycmd::TestCases::new().case("tests/cmd/*.toml");
}

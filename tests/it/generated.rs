//! `generated/` is kept fresh: the test rewrites stale files (except under CI) and fails,
//! naming the command, as rust-analyzer's sourcegen does.

#[test]
fn generated_files_are_fresh() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("generated");
    let check_only = std::env::var_os("CI").is_some();
    let stale = gitlab_mcp::docs::write_all(&dir, check_only).expect("the docs render");
    assert!(
        stale.is_empty(),
        "generated/ was out of date{}: {:?}. Run `cargo run -- docs` (or this test outside CI) and commit the result.",
        if check_only {
            ""
        } else {
            " and has been rewritten"
        },
        stale
    );
}

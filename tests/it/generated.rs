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

/// A description that points to another action (`repository.commit_list`) names one that
/// exists: a model would otherwise be sent to an unknown action.
#[test]
fn descriptions_name_existing_actions() {
    use gitlab_mcp::catalog::{ACTIONS, DOMAINS};
    let mut unknown = Vec::new();
    for action in ACTIONS.iter() {
        for quoted in action.description.split('`').skip(1).step_by(2) {
            let Some((domain, name)) = quoted.split_once('.') else {
                continue;
            };
            let looks_like_id = !name.is_empty()
                && name.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                && DOMAINS.iter().any(|d| d.name == domain);
            if looks_like_id && !ACTIONS.iter().any(|a| a.id == quoted) {
                unknown.push(format!("{}: `{quoted}`", action.id));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "descriptions name unknown actions: {unknown:?}"
    );
}

//! Every action has a full-response snapshot among the trycmd cases in `tests/cmd/`
//! (a `.toml` case and its `.stdout`), run as the user its example is for.

use gitlab_mcp::catalog::ACTIONS;

#[test]
fn every_action_has_a_cli_snapshot() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd");
    let mut calls = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let case = std::fs::read_to_string(&path).unwrap();
            let has_stdout = path.with_extension("stdout").exists();
            assert!(has_stdout, "{} has no .stdout snapshot", path.display());
            calls.extend(
                case.lines()
                    .filter(|l| l.starts_with("args"))
                    .map(str::to_owned),
            );
        }
    }
    let missing: Vec<&str> = ACTIONS
        .iter()
        .map(|a| a.id)
        .filter(|id| {
            !calls
                .iter()
                .any(|args| args.contains(&format!("\"call\", \"{id}\"")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "actions without a snapshot in tests/cmd/: {missing:?}"
    );
}

/// An action only administrators may call is snapshot with `--sandbox-admin` (alice an
/// administrator), every other as the regular alice (`sandbox::example_needs_admin`), so
/// no snapshot is a refusal and none runs with more rights than it needs.
#[test]
fn each_snapshot_runs_with_its_examples_rights() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd");
    for action in ACTIONS {
        let path = dir.join(format!("{}.toml", action.id));
        let case =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            !case.contains("GITLAB_SANDBOX_TOKEN"),
            "{}: the snapshot runs as another seed user; an admin action runs with `--sandbox-admin`",
            action.id
        );
        let admin = case
            .lines()
            .any(|l| l.starts_with("args") && l.contains("\"--sandbox-admin\""));
        assert_eq!(
            admin,
            gitlab_mcp::sandbox::example_needs_admin(action),
            "{}: an admin action's snapshot passes `--sandbox-admin`, any other does not",
            action.id
        );
    }
}

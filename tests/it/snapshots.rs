//! Every action has a full-response snapshot among the trycmd cases in `tests/cmd/`.

use gitlab_mcp::catalog::ACTIONS;

#[test]
fn every_action_has_a_cli_snapshot() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd");
    let mut cases = String::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            cases.push_str(&std::fs::read_to_string(path).unwrap());
        }
    }
    let missing: Vec<&str> = ACTIONS
        .iter()
        .map(|a| a.id)
        .filter(|id| !cases.lines().any(|line| line.starts_with("$ gitlab-mcp") && line.contains(&format!(" call {id} "))))
        .collect();
    assert!(missing.is_empty(), "actions without a snapshot in tests/cmd/: {missing:?}");
}

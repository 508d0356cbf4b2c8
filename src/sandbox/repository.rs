//! The sandbox's Git repository as history: file versions per branch, commits that change
//! files (create, update, delete, move, chmod) with diffs computed from the bytes, and
//! blame derived from the commits that added each line.
//!
//! A seeded file is on every branch. A write on a branch gives that branch its own version
//! (`_branches: [name]`) and hides the shared one there (`_except: [name]`), so the other
//! branches keep what they had, as in Git.

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::diff::unified;
use super::engine::{Answer, Call};
use super::expr::fake_sha;
use super::store::{Ancestor, Failure, Outcome, Store, text};

const FILES: &str = "projects/repository/files";
const BRANCHES: &str = "projects/repository/branches";
const COMMITS: &str = "projects/repository/commits";

/// GitLab's refusals of a file change, word for word.
const EXISTS: &str = "A file with this name already exists";
const MISSING: &str = "A file with this name doesn't exist";
const CHANGED: &str =
    "You are attempting to update a file that has changed since you started editing it.";
const CHANGED_ONE: &str = "The file has changed since you started editing it: ";
const NOT_ON_BRANCH: &str = "You can only create or edit files when you are on a branch";

pub fn project_scope(call: &Call<'_>) -> Vec<Ancestor> {
    call.ancestors
        .iter()
        .filter(|a| a.collection == "projects")
        .cloned()
        .collect()
}

/// The reference a read names, or the project's default branch.
pub fn reference(call: &Call<'_>) -> String {
    call.query.get("ref").map(str::to_owned).unwrap_or_else(|| {
        call.project()
            .and_then(|p| p["default_branch"].as_str())
            .unwrap_or("main")
            .to_owned()
    })
}

/// The branch a reference names, if it names one (else a tag or a SHA).
fn branch_named(store: &Store, scope: &[Ancestor], reference: &str) -> Option<String> {
    store
        .scoped(BRANCHES, scope)
        .iter()
        .any(|b| b["name"] == reference)
        .then(|| reference.to_owned())
}

fn listed(record: &Value, field: &str, name: &str) -> bool {
    record[field]
        .as_array()
        .is_some_and(|names| names.iter().any(|v| v == name))
}

/// Whether a file version is on `branch`; a tag or a SHA (`None`) sees the seeded versions.
fn on_branch(file: &Value, branch: Option<&str>) -> bool {
    let own = file.get("_branches").is_some_and(Value::is_array);
    match branch {
        Some(name) if own => listed(file, "_branches", name),
        Some(name) => !listed(file, "_except", name),
        None => !own,
    }
}

/// The files at a reference.
pub fn files_at<'s>(store: &'s Store, scope: &[Ancestor], reference: &str) -> Vec<&'s Value> {
    let branch = branch_named(store, scope, reference);
    store
        .scoped(FILES, scope)
        .into_iter()
        .filter(|f| on_branch(f, branch.as_deref()))
        .collect()
}

/// The file at `path` at a reference.
pub fn file_at(store: &Store, scope: &[Ancestor], path: &str, reference: &str) -> Option<Value> {
    files_at(store, scope, reference)
        .into_iter()
        .find(|f| f["file_path"] == path)
        .cloned()
}

/// The bytes of a seeded file: literal text, base64, or generated lines.
pub fn file_bytes(file: &Value) -> Vec<u8> {
    if let Some(text) = file["content"].as_str() {
        return text.as_bytes().to_vec();
    }
    if let Some(encoded) = file["content_base64"].as_str() {
        return base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .unwrap_or_default();
    }
    if let Some(generate) = file.get("_generate") {
        let count = generate["count"].as_u64().unwrap_or(0);
        let line = generate["line"].as_str().unwrap_or("{n}");
        let lines: Vec<String> = (1..=count)
            .map(|n| line.replace("{n}", &n.to_string()))
            .collect();
        return lines.join("\n").into_bytes();
    }
    Vec::new()
}

/// What one commit does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Create,
    Update,
    Delete,
    Move,
    Chmod,
}

#[derive(Debug)]
struct Change {
    kind: Kind,
    path: String,
    previous: Option<String>,
    content: Option<Vec<u8>>,
    last_commit_id: Option<String>,
    executable: Option<bool>,
}

fn string(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key)
        .filter(|v| !v.is_null())
        .map(text)
        .filter(|s| !s.is_empty())
}

/// The new content of a change: text, or base64 with `encoding: base64`.
fn content(map: &Map<String, Value>) -> Outcome<Option<Vec<u8>>> {
    let Some(value) = map.get("content").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let raw = text(value);
    if map.get("encoding").and_then(Value::as_str) == Some("base64") {
        return base64::engine::general_purpose::STANDARD
            .decode(raw.trim())
            .map(Some)
            .map_err(|_| Failure::new(400, "content is not valid base64"));
    }
    Ok(Some(raw.into_bytes()))
}

fn change_of(map: &Map<String, Value>, kind: Kind, path: String) -> Outcome<Change> {
    Ok(Change {
        kind,
        path,
        previous: string(map, "previous_path"),
        content: content(map)?,
        last_commit_id: string(map, "last_commit_id"),
        executable: map.get("execute_filemode").map(|v| match v {
            Value::Bool(flag) => *flag,
            other => text(other) == "true",
        }),
    })
}

/// The changes a request asks for: one file (files API) or `actions` (commits API).
fn changes(call: &Call<'_>) -> Outcome<Vec<Change>> {
    let single = |kind| {
        let path = call.path.get("file_path").map(text).unwrap_or_default();
        if matches!(kind, Kind::Create | Kind::Update) && !call.body.contains_key("content") {
            return Err(Failure::missing("content"));
        }
        change_of(call.body, kind, path)
    };
    match call.action.method {
        crate::gitlab::Method::Post if call.path.contains_key("file_path") => {
            Ok(vec![single(Kind::Create)?])
        }
        crate::gitlab::Method::Put => Ok(vec![single(Kind::Update)?]),
        crate::gitlab::Method::Delete => Ok(vec![single(Kind::Delete)?]),
        _ => {
            let actions = call
                .body
                .get("actions")
                .and_then(Value::as_array)
                .filter(|a| !a.is_empty())
                .ok_or_else(|| Failure::missing("actions"))?;
            actions
                .iter()
                .enumerate()
                .map(|(index, action)| {
                    let map = action.as_object().cloned().unwrap_or_default();
                    let kind = match map.get("action").and_then(Value::as_str) {
                        Some("create") => Kind::Create,
                        Some("update") => Kind::Update,
                        Some("delete") => Kind::Delete,
                        Some("move") => Kind::Move,
                        Some("chmod") => Kind::Chmod,
                        _ => {
                            return Err(Failure {
                                status: 400,
                                body: json!({"error": format!("actions[{index}][action] does not have a valid value")}),
                            });
                        }
                    };
                    let path = string(&map, "file_path").ok_or_else(|| Failure {
                        status: 400,
                        body: json!({"error": format!("actions[{index}][file_path] is missing")}),
                    })?;
                    change_of(&map, kind, path)
                })
                .collect()
        }
    }
}

fn mode(executable: bool) -> &'static str {
    if executable { "100755" } else { "100644" }
}

/// One file of a commit's diff, shaped as GitLab lists it.
fn diff_entry(old: Option<&Value>, new: Option<&Value>, old_path: &str, new_path: &str) -> Value {
    let bytes = |file: Option<&Value>| file.map(file_bytes).unwrap_or_default();
    let executable = |file: Option<&Value>| file.is_some_and(|f| f["execute_filemode"] == true);
    json!({
        "old_path": old_path,
        "new_path": new_path,
        "a_mode": if old.is_some() { mode(executable(old)) } else { "0" },
        "b_mode": if new.is_some() { mode(executable(new)) } else { "0" },
        "new_file": old.is_none(),
        "renamed_file": old_path != new_path,
        "deleted_file": new.is_none(),
        "generated_file": false,
        "too_large": false,
        "collapsed": false,
        "diff": unified(&bytes(old), &bytes(new)),
    })
}

/// Makes `branch` a copy of `start`: its commits, its file versions and its head.
fn fork_branch(store: &mut Store, scope: &[Ancestor], branch: &str, start: &Value) -> Value {
    let from = text(&start["name"]);
    for (collection, field) in [
        (COMMITS, "_branches"),
        (FILES, "_branches"),
        (FILES, "_except"),
    ] {
        let holders: Vec<Value> = store
            .scoped(collection, scope)
            .into_iter()
            .filter(|r| listed(r, field, &from))
            .cloned()
            .collect();
        for current in holders {
            let mut record = current.clone();
            if let Some(names) = record[field].as_array_mut() {
                names.push(json!(branch));
            }
            store.replace(collection, &current, record);
        }
    }
    let web_url =
        text(&start["web_url"]).replace(&format!("/-/tree/{from}"), &format!("/-/tree/{branch}"));
    let mut record = start.clone();
    for (key, value) in [
        ("name", json!(branch)),
        ("default", json!(false)),
        ("protected", json!(false)),
        ("merged", json!(false)),
        ("web_url", json!(web_url)),
        ("_commits", json!([])),
        ("_diffs", json!([])),
    ] {
        record[key] = value;
    }
    store.insert(BRANCHES, scope, record)
}

/// Gives `branch` its own version of `path` (or none, for a deletion), hiding the one it
/// saw before.
fn put_file(store: &mut Store, scope: &[Ancestor], branch: &str, path: &str, new: Option<Value>) {
    if let Some(current) = file_at(store, scope, path, branch) {
        let mut record = current.clone();
        let own = current.get("_branches").is_some_and(Value::is_array);
        if own {
            let others: Vec<Value> = current["_branches"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|v| *v != branch)
                .cloned()
                .collect();
            if others.is_empty() {
                store.remove(FILES, &current);
            } else {
                record["_branches"] = json!(others);
                store.replace(FILES, &current, record);
            }
        } else {
            let mut except = record["_except"].as_array().cloned().unwrap_or_default();
            except.push(json!(branch));
            record["_except"] = json!(except);
            store.replace(FILES, &current, record);
        }
    }
    if let Some(file) = new {
        store.insert(FILES, scope, file);
    }
}

/// A file version written by commit `sha` on `branch`.
fn file_record(
    project_id: &Value,
    branch: &str,
    path: &str,
    bytes: &[u8],
    sha: &str,
    executable: bool,
) -> Value {
    let mut record = json!({
        "file_name": path.rsplit('/').next().unwrap_or(path),
        "file_path": path,
        "blob_id": fake_sha(&format!("blob:{sha}:{path}")),
        "last_commit_id": sha,
        "execute_filemode": executable,
        "_project_id": project_id,
        "_branches": [branch],
    });
    match std::str::from_utf8(bytes) {
        Ok(text) => record["content"] = json!(text),
        Err(_) => {
            record["content_base64"] =
                json!(base64::engine::general_purpose::STANDARD.encode(bytes))
        }
    }
    record
}

fn refuse(message: &str) -> Failure {
    Failure::new(400, message)
}

/// `repository.file_create`, `file_update`, `file_delete` and `commit_create`: one commit
/// on a branch (made from `start_branch` when new) that applies each change to the files
/// the branch sees, refusing as GitLab does (a file that exists or does not, one changed
/// since `last_commit_id`), then moves the branch head.
pub fn commit(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let scope = project_scope(call);
    let branch_name = string(call.body, "branch").ok_or_else(|| Failure::missing("branch"))?;
    let message =
        string(call.body, "commit_message").ok_or_else(|| Failure::missing("commit_message"))?;
    let changes = changes(call)?;
    let start = match store.find(BRANCHES, &scope, &branch_name) {
        Some(branch) => branch,
        None => {
            let start = string(call.body, "start_branch").ok_or_else(|| refuse(NOT_ON_BRANCH))?;
            store
                .find(BRANCHES, &scope, &start)
                .ok_or_else(|| refuse(&format!("Invalid reference name: {start}")))?
        }
    };
    // Check every change against what the branch sees, before changing anything.
    let base = text(&start["name"]);
    let mut seen: Vec<(String, Option<Value>)> = Vec::new();
    let current = |seen: &Vec<(String, Option<Value>)>, path: &str| -> Option<Value> {
        match seen.iter().rev().find(|(p, _)| p == path) {
            Some((_, file)) => file.clone(),
            None => file_at(store, &scope, path, &base),
        }
    };
    for change in &changes {
        let existing = current(&seen, &change.path);
        match change.kind {
            Kind::Create if existing.is_some() => return Err(refuse(EXISTS)),
            Kind::Update | Kind::Delete | Kind::Chmod if existing.is_none() => {
                return Err(refuse(MISSING));
            }
            Kind::Move if existing.is_some() => return Err(refuse(EXISTS)),
            _ => {}
        }
        let source = match change.kind {
            Kind::Move => {
                let previous = change
                    .previous
                    .clone()
                    .ok_or_else(|| Failure::missing("previous_path"))?;
                let source = current(&seen, &previous).ok_or_else(|| refuse(MISSING))?;
                seen.push((previous, None));
                Some(source)
            }
            _ => existing,
        };
        if let (Some(expected), Some(file)) = (&change.last_commit_id, &source)
            && file["last_commit_id"].as_str() != Some(expected.as_str())
        {
            // The commits API names the file; the files API does not.
            return Err(refuse(&match call.path.contains_key("file_path") {
                true => CHANGED.to_owned(),
                false => format!("{CHANGED_ONE}{}", change.path),
            }));
        }
        let after = match change.kind {
            Kind::Delete => None,
            _ => Some(json!({"placeholder": true})),
        };
        seen.push((change.path.clone(), after));
    }

    let now = store.tick();
    let sha = fake_sha(&format!("commit:{now}:{message}"));
    let project = call.project().cloned().unwrap_or(Value::Null);
    let branch = match store.find(BRANCHES, &scope, &branch_name) {
        Some(branch) => branch,
        None => fork_branch(store, &scope, &branch_name, &start),
    };
    let mut diffs = Vec::new();
    for change in &changes {
        let old_path = change
            .previous
            .clone()
            .unwrap_or_else(|| change.path.clone());
        let old = file_at(store, &scope, &old_path, &branch_name);
        let bytes = change
            .content
            .clone()
            .or_else(|| old.as_ref().map(file_bytes))
            .unwrap_or_default();
        let executable = change
            .executable
            .unwrap_or_else(|| old.as_ref().is_some_and(|f| f["execute_filemode"] == true));
        let new = (change.kind != Kind::Delete).then(|| {
            file_record(
                &project["id"],
                &branch_name,
                &change.path,
                &bytes,
                &sha,
                executable,
            )
        });
        diffs.push(diff_entry(
            old.as_ref(),
            new.as_ref(),
            &old_path,
            &change.path,
        ));
        if change.kind == Kind::Move {
            put_file(store, &scope, &branch_name, &old_path, None);
        }
        put_file(store, &scope, &branch_name, &change.path, new);
    }

    let (additions, deletions) = diffs
        .iter()
        .flat_map(|d| {
            d["diff"]
                .as_str()
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .fold((0, 0), |(a, d), line| match line.chars().next() {
            Some('+') => (a + 1, d),
            Some('-') => (a, d + 1),
            _ => (a, d),
        });
    let user = &call.user;
    let author_name = string(call.body, "author_name").unwrap_or_else(|| text(&user["name"]));
    let author_email = string(call.body, "author_email").unwrap_or_else(|| {
        user["public_email"]
            .as_str()
            .filter(|e| !e.is_empty())
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{}@example.com", text(&user["username"])))
    });
    let title = message.lines().next().unwrap_or_default().to_owned();
    let commit = json!({
        "id": sha,
        "short_id": &sha[..8],
        "created_at": now,
        "parent_ids": [branch["commit"]["id"]],
        "title": title,
        "message": message,
        "author_name": author_name,
        "author_email": author_email,
        "authored_date": now,
        "committer_name": author_name,
        "committer_email": author_email,
        "committed_date": now,
        "trailers": {},
        "extended_trailers": {},
        "web_url": format!("{}/-/commit/{sha}", text(&project["web_url"])),
        "stats": {"additions": additions, "deletions": deletions, "total": additions + deletions},
        "project_id": project["id"],
        "_project_id": project["id"],
        "_branches": [branch_name],
        "_diff": diffs,
    });
    store.insert(COMMITS, &scope, commit.clone());
    move_head(store, &scope, &branch, &commit);

    let status = if call.action.method == crate::gitlab::Method::Put {
        200
    } else {
        201
    };
    Ok(
        match (call.action.method, call.path.contains_key("file_path")) {
            (crate::gitlab::Method::Delete, _) => Answer::Empty(204),
            (_, true) => Answer::Json {
                status,
                body: json!({"file_path": changes[0].path, "branch": branch_name}),
            },
            (_, false) => {
                let mut body = super::store::public(&commit);
                body["status"] = Value::Null;
                body["last_pipeline"] = Value::Null;
                Answer::Json { status, body }
            }
        },
    )
}

/// Points a branch at a new commit, which it now contains, with the commit's diffs in its
/// own (what merge requests from it show).
fn move_head(store: &mut Store, scope: &[Ancestor], branch: &Value, commit: &Value) {
    let Some(current) = store.find(BRANCHES, scope, &text(&branch["name"])) else {
        return;
    };
    let mut record = current.clone();
    let mut head = super::store::public(commit);
    if let Some(map) = head.as_object_mut() {
        for field in ["stats", "project_id"] {
            map.remove(field);
        }
    }
    record["commit"] = head;
    let mut commits = record["_commits"].as_array().cloned().unwrap_or_default();
    commits.insert(0, commit["id"].clone());
    record["_commits"] = json!(commits);
    let mut diffs = record["_diffs"].as_array().cloned().unwrap_or_default();
    for diff in commit["_diff"].as_array().into_iter().flatten() {
        diffs.retain(|d| d["new_path"] != diff["new_path"]);
        diffs.push(diff.clone());
    }
    record["_diffs"] = json!(diffs);
    store.replace(BRANCHES, &current, record);
}

/// `repository.file_blame`: each line of the file at the ref, attributed to the newest
/// commit whose diff added it (else the file's first commit), in ranges of consecutive
/// lines, as GitLab answers; `range[start]` and `range[end]` narrow it.
pub fn blame(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let scope = project_scope(call);
    let reference = call
        .query
        .get("ref")
        .ok_or_else(|| Failure::missing("ref"))?
        .to_owned();
    let path = call.path.get("file_path").map(text).unwrap_or_default();
    let head = store
        .find(COMMITS, &scope, &reference)
        .ok_or_else(|| Failure::new(404, "404 Commit Not Found"))?;
    let file = file_at(store, &scope, &path, &reference)
        .ok_or_else(|| Failure::new(404, "404 File Not Found"))?;
    let branch = branch_named(store, &scope, &reference);
    let mut touching: Vec<&Value> = store
        .scoped(COMMITS, &scope)
        .into_iter()
        .filter(|c| text(&c["committed_date"]) <= text(&head["committed_date"]))
        .filter(|c| {
            let exclusive = c["_branches"].as_array().is_some_and(|b| !b.is_empty());
            !exclusive || branch.as_deref().is_none_or(|b| listed(c, "_branches", b))
        })
        .filter(|c| added_lines(c, &path).is_some())
        .collect();
    touching.sort_by_key(|c| text(&c["committed_date"]));
    let first = touching
        .first()
        .cloned()
        .cloned()
        .or_else(|| store.find(COMMITS, &scope, &text(&file["last_commit_id"])))
        .unwrap_or_else(|| head.clone());
    let bytes = file_bytes(&file);
    let content = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = content.lines().collect();
    let number = |name: &str| call.query.get(name).and_then(|v| v.parse::<usize>().ok());
    let from = number("range[start]").unwrap_or(1).max(1);
    let to = number("range[end]").unwrap_or(lines.len()).min(lines.len());
    let mut ranges: Vec<Value> = Vec::new();
    let mut last: Option<String> = None;
    for line in lines.iter().take(to).skip(from - 1) {
        let commit = touching
            .iter()
            .rev()
            .find(|c| added_lines(c, &path).is_some_and(|added| added.iter().any(|a| a == line)))
            .copied()
            .unwrap_or(&first);
        let id = text(&commit["id"]);
        if last.as_deref() == Some(id.as_str())
            && let Some(range) = ranges.last_mut()
            && let Some(lines) = range["lines"].as_array_mut()
        {
            lines.push(json!(line));
            continue;
        }
        last = Some(id);
        ranges.push(json!({
            "commit": {
                "id": commit["id"],
                "parent_ids": commit["parent_ids"],
                "message": commit["message"],
                "authored_date": commit["authored_date"],
                "author_name": commit["author_name"],
                "author_email": commit["author_email"],
                "committed_date": commit["committed_date"],
                "committer_name": commit["committer_name"],
                "committer_email": commit["committer_email"],
            },
            "lines": [line],
        }));
    }
    Ok(Answer::ok(Value::Array(ranges)))
}

/// The lines a commit's diff adds to `path`, if it touches the file.
fn added_lines(commit: &Value, path: &str) -> Option<Vec<String>> {
    let diff = commit["_diff"]
        .as_array()?
        .iter()
        .find(|d| d["new_path"] == path)?;
    Some(
        diff["diff"]
            .as_str()
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
            .map(|l| l[1..].to_owned())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_branch_version_hides_the_shared_one_there_only() {
        let shared = json!({"file_path": "a"});
        let hidden = json!({"file_path": "a", "_except": ["dev"]});
        let own = json!({"file_path": "a", "_branches": ["dev"]});
        assert!(on_branch(&shared, Some("dev")) && on_branch(&shared, None));
        assert!(!on_branch(&hidden, Some("dev")) && on_branch(&hidden, Some("main")));
        assert!(on_branch(&own, Some("dev")) && !on_branch(&own, Some("main")));
        assert!(!on_branch(&own, None));
    }
}

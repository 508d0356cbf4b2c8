//! The hand-written sandbox routes: the few actions whose GitLab behaviour the behaviour
//! data cannot say (`seed/README.md`). `ROUTES` is the one list of them, each with its
//! reason; an action's behaviour names its route with `"route": "<name>"`. Everything else
//! is data (`seed/behaviour/`) run by `engine`.

use base64::Engine as _;
use serde_json::{Value, json};

use super::engine::{Answer, Call};
use super::expr::fake_sha;
use super::instance::strings;
use super::repository::{self, file_at, file_bytes, files_at, project_scope};
use super::store::{Failure, Outcome, Page, Store, text};

/// A hand-written route and why it is not data.
pub struct Route {
    pub name: &'static str,
    pub reason: &'static str,
    pub run: fn(&mut Store, &Call<'_>) -> Outcome<Answer>,
}

/// Every hand-written route. Keep this list short: a new action is data first.
pub const ROUTES: &[Route] = &[
    Route {
        name: "tree",
        reason: "GitLab derives a directory listing (trees and blobs, one level or recursive) from the paths of the files at a ref; the sandbox seeds files, not trees.",
        run: tree,
    },
    Route {
        name: "file",
        reason: "A file's metadata is computed from its bytes (size, base64 content, SHA-256), and seeded files hold literal, base64 or generated content.",
        run: |store, call| file(store, call, false),
    },
    Route {
        name: "file_raw",
        reason: "The raw bytes of a seeded file (literal, base64 or generated content), sent as they are.",
        run: |store, call| file(store, call, true),
    },
    Route {
        name: "compare",
        reason: "A comparison walks the commit history: the commits on `to` that `from` lacks, and their diffs.",
        run: compare,
    },
    Route {
        name: "merge_base",
        reason: "A merge base walks the commit history too: the newest commit every one of the refs (a repeated `refs[]` key) contains.",
        run: merge_base,
    },
    // --- cicd (issue 11)
    Route {
        name: "artifacts_archive",
        reason: "A job's artifacts archive is zip bytes built from the job's seeded files, and honours `Range` (the client reads only its end).",
        run: super::ci_routes::artifacts_archive,
    },
    Route {
        name: "artifacts_tree",
        reason: "GitLab lists an archive's folders and files from its metadata (one folder, or recursive); the sandbox seeds a job's files, not its folders.",
        run: super::ci_routes::artifacts_tree,
    },
    Route {
        name: "artifact_file",
        reason: "One file out of a job's archive (its path keeps its slashes), or out of the job named `job` in the newest successful pipeline of a ref.",
        run: super::ci_routes::artifact_file,
    },
    Route {
        name: "test_report",
        reason: "GitLab builds a pipeline's test report from its jobs' JUnit reports: one suite per job, counts by status and summed times.",
        run: super::ci_routes::test_report,
    },
    Route {
        name: "test_report_summary",
        reason: "The test report's counts per suite and overall, with the jobs behind each suite, computed as for the report.",
        run: super::ci_routes::test_report_summary,
    },
    // --- org (issue 12)
    Route {
        name: "commit",
        reason: "A commit applies file changes (create, update, delete, move, chmod) to the branch's versions of the files, checks each against GitLab's refusals (exists, missing, changed since `last_commit_id`), computes the diffs from the bytes and moves the branch head.",
        run: repository::commit,
    },
    Route {
        name: "blame",
        reason: "Blame attributes each line of the file at a ref to the newest commit whose diff added it, and groups consecutive lines by commit.",
        run: repository::blame,
    },
    Route {
        name: "search",
        reason: "GitLab's search answers one path from a different collection per `scope`, over a project, a group's projects or every visible project; code hits are runs of matching lines computed from the files' bytes.",
        run: super::search_routes::search,
    },
    // --- graphql (issue 13)
    Route {
        name: "graphql",
        reason: "GitLab's GraphQL endpoint is one path for every operation: the sandbox does not interpret GraphQL, it recognises the operations the catalog sends by name and answers them from the work item records (issues included) in the shape their documents select; an unknown operation gets GraphQL's `errors` answer.",
        run: super::graphql_routes::graphql,
    },
    // --- projects (issue 24)
    Route {
        name: "integration_set",
        reason: "Setting up an integration creates it when it was never set up (GitLab's find-or-initialize) and sorts the body's fields by the integration's kind: event flags on the record, secret fields kept but never answered, the rest its `properties`; each of the 50 kinds has its own required fields.",
        run: integration_set,
    },
    // --- issues 24-27, train F
    Route {
        name: "namespace_exists",
        reason: "`GET /namespaces/:id/exists` asks about a path that may name no namespace (the path is the question, not a record to resolve), and suggests the free path GitLab would: the path with the first number after it that is not taken.",
        run: namespace_exists,
    },
];

/// The newest commit on every ref, as `git merge-base` answers: a branch holds its head and
/// the commits that list it in `_branches`; a SHA or tag holds its commit and the older
/// commits of the branches that commit is on. GitLab's refusals: fewer than two refs (400),
/// a ref it cannot find (400, naming them all), no common commit (404).
fn merge_base(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let scope = project_scope(call);
    let refs = call.query.all("refs");
    if refs.len() < 2 {
        return Err(Failure::new(400, "Provide at least 2 refs"));
    }
    let branches_of = |commit: &Value| strings(commit.get("_branches")).unwrap_or_default();
    // Each ref resolved once: its commit, and what holds a commit for it (a branch by name,
    // a SHA or tag by its commit's date and branches).
    let mut heads = Vec::new();
    let mut unknown = Vec::new();
    for reference in &refs {
        match resolve_commit(store, &scope, reference) {
            Some(head) => {
                let holder = if store
                    .find("projects/repository/branches", &scope, reference)
                    .is_some()
                {
                    Holder::Branch(reference.as_str())
                } else {
                    Holder::Commit {
                        date: text(&head["committed_date"]),
                        branches: branches_of(&head),
                    }
                };
                heads.push((head, holder));
            }
            None => unknown.push(reference.as_str()),
        }
    }
    if !unknown.is_empty() {
        let noun = if unknown.len() == 1 { "ref" } else { "refs" };
        return Err(Failure::new(
            400,
            format!("Could not find {noun}: {}", unknown.join(", ")),
        ));
    }
    let holds = |head: &Value, holder: &Holder<'_>, commit: &Value| {
        if commit["id"] == head["id"] {
            return true;
        }
        let on = branches_of(commit);
        match holder {
            Holder::Branch(name) => on.iter().any(|b| b == name),
            Holder::Commit { date, branches } => {
                text(&commit["committed_date"]) <= *date && branches.iter().any(|b| on.contains(b))
            }
        }
    };
    let base = store
        .scoped("projects/repository/commits", &scope)
        .into_iter()
        .filter(|commit| {
            heads
                .iter()
                .all(|(head, holder)| holds(head, holder, commit))
        })
        .max_by(|a, b| text(&a["committed_date"]).cmp(&text(&b["committed_date"])))
        .cloned();
    match base {
        Some(commit) => Ok(Answer::ok(commit)),
        None => Err(Failure::new(404, "404 Merge Base Not Found")),
    }
}

/// What holds the commits of one ref of a merge base.
enum Holder<'a> {
    /// A branch: its head and the commits that list it in `_branches`.
    Branch(&'a str),
    /// A SHA or tag: commits no newer than its commit on a branch that commit is on.
    Commit { date: String, branches: Vec<String> },
}

fn default_branch(call: &Call<'_>) -> String {
    call.project()
        .and_then(|p| p["default_branch"].as_str())
        .unwrap_or("main")
        .to_owned()
}

fn resolve_commit(
    store: &Store,
    ancestors: &[super::store::Ancestor],
    reference: &str,
) -> Option<Value> {
    store.find("projects/repository/commits", ancestors, reference)
}

fn page_of(items: Vec<Value>, call: &Call<'_>) -> Answer {
    Answer::Page(Page::of(items, call.query))
}

/// A ref must name a branch or a commit for file and tree reads.
fn check_ref(store: &Store, call: &Call<'_>, not_found: &str) -> Outcome<String> {
    let reference = repository::reference(call);
    match resolve_commit(store, &project_scope(call), &reference) {
        Some(_) => Ok(reference),
        None => Err(Failure::new(404, not_found.to_owned())),
    }
}

fn tree(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    check_ref(store, call, "404 Tree Not Found")?;
    let base = call
        .query
        .get("path")
        .unwrap_or("")
        .trim_matches('/')
        .to_owned();
    let recursive = call.query.get("recursive") == Some("true");
    let prefix = if base.is_empty() {
        String::new()
    } else {
        format!("{base}/")
    };
    let reference = repository::reference(call);
    let mut entries: Vec<(String, &'static str)> = Vec::new();
    for file in files_at(store, &project_scope(call), &reference) {
        let path = file["file_path"].as_str().unwrap_or_default();
        let Some(rest) = path.strip_prefix(&prefix) else {
            continue;
        };
        let parts: Vec<&str> = rest.split('/').collect();
        let depth = if recursive { parts.len() } else { 1 };
        for level in 1..=depth.min(parts.len()) {
            let entry = format!("{prefix}{}", parts[..level].join("/"));
            let kind = if level == parts.len() { "blob" } else { "tree" };
            if !entries.iter().any(|(p, _)| *p == entry) {
                entries.push((entry, kind));
            }
        }
    }
    if entries.is_empty() && !base.is_empty() {
        return Err(Failure::new(404, "404 Tree Not Found"));
    }
    entries.sort_by(|a, b| (a.1 != "tree", &a.0).cmp(&(b.1 != "tree", &b.0)));
    let items = entries
        .into_iter()
        .map(|(path, kind)| {
            let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
            json!({
                "id": fake_sha(&path),
                "name": name,
                "type": kind,
                "path": path,
                "mode": if kind == "tree" { "040000" } else { "100644" },
            })
        })
        .collect();
    Ok(page_of(items, call))
}

fn file(store: &mut Store, call: &Call<'_>, raw: bool) -> Outcome<Answer> {
    let reference = check_ref(store, call, "404 File Not Found")?;
    let path = call.path.get("file_path").map(text).unwrap_or_default();
    let file = file_at(store, &project_scope(call), &path, &reference)
        .ok_or_else(|| Failure::new(404, "404 File Not Found"))?;
    let bytes = file_bytes(&file);
    if raw {
        return Ok(Answer::Text(bytes));
    }
    let path = file["file_path"].as_str().unwrap_or_default();
    let commit = resolve_commit(store, &project_scope(call), &reference);
    Ok(Answer::ok(json!({
        "file_name": path.rsplit('/').next().unwrap_or(path),
        "file_path": path,
        "size": bytes.len(),
        "encoding": "base64",
        "content_sha256": fake_sha(&format!("sha256:{path}")).repeat(2)[..64].to_owned(),
        "ref": reference,
        "blob_id": file["blob_id"],
        "commit_id": commit.as_ref().map(|c| c["id"].clone()),
        "last_commit_id": file["last_commit_id"],
        "execute_filemode": false,
        "content": base64::engine::general_purpose::STANDARD.encode(&bytes),
    })))
}

fn compare(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let scope = project_scope(call);
    let from = call
        .query
        .get("from")
        .ok_or_else(|| Failure::missing("from"))?;
    let to = call.query.get("to").ok_or_else(|| Failure::missing("to"))?;
    let from_commit = resolve_commit(store, &scope, from)
        .ok_or_else(|| Failure::new(404, "404 Ref Not Found"))?;
    let to_commit =
        resolve_commit(store, &scope, to).ok_or_else(|| Failure::new(404, "404 Ref Not Found"))?;
    let web_url = format!(
        "{}/-/compare/{from}...{to}",
        call.project()
            .and_then(|p| p["web_url"].as_str())
            .unwrap_or_default()
    );
    if from_commit["id"] == to_commit["id"] {
        return Ok(Answer::ok(
            json!({"commit": null, "commits": [], "diffs": [], "compare_timeout": false, "compare_same_ref": true, "web_url": web_url}),
        ));
    }
    // Commits on `to` that `from` lacks: by branch membership in the seeded history.
    let commits = store.scoped("projects/repository/commits", &scope);
    let on = |commit: &Value, reference: &str, head: &Value| {
        commit["id"] == head["id"]
            || commit["_branches"]
                .as_array()
                .is_some_and(|b| b.iter().any(|v| v == reference))
    };
    let mut ahead: Vec<Value> = commits
        .iter()
        .filter(|c| on(c, to, &to_commit) && !on(c, from, &from_commit))
        .map(|c| (*c).clone())
        .collect();
    ahead.sort_by(|a, b| text(&a["committed_date"]).cmp(&text(&b["committed_date"])));
    // A branch's seeded diff against the default branch, else its commits' diffs.
    let branch_diffs = store
        .find("projects/repository/branches", &scope, to)
        .and_then(|branch| branch["_diffs"].as_array().cloned())
        .filter(|diffs| !diffs.is_empty() && !ahead.is_empty() && from == default_branch(call));
    let diffs: Vec<Value> = branch_diffs.unwrap_or_else(|| {
        ahead
            .iter()
            .flat_map(|c| c["_diff"].as_array().cloned().unwrap_or_default())
            .collect()
    });
    let head = ahead.last().cloned().unwrap_or(Value::Null);
    Ok(Answer::ok(
        json!({"commit": head, "commits": ahead, "diffs": diffs, "compare_timeout": false, "compare_same_ref": false, "web_url": web_url}),
    ))
}

/// `PUT /projects/:id/integrations/:slug` and the group's: set up or change the integration
/// and turn it on (`integration_kinds.json` names each kind's title, required and secret
/// fields).
fn integration_set(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let slug = call.path.get("slug").map(text).unwrap_or_default();
    let kind = store
        .find("integration_kinds", &[], &slug)
        .ok_or_else(|| Failure::new(404, "404 Not Found"))?;
    let names = |field: &str| -> Vec<String> {
        kind[field]
            .as_array()
            .map(|items| items.iter().map(text).collect())
            .unwrap_or_default()
    };
    let (required, secret) = (names("required"), names("secret_fields"));
    // The path's own record (when set up before) is not the owner.
    let owner: Vec<super::store::Ancestor> = call
        .ancestors
        .iter()
        .filter(|a| a.collection != call.collection)
        .cloned()
        .collect();
    let existing = store.find(&call.collection, &owner, &slug);
    let now = store.tick();
    let mut record = existing.clone().unwrap_or_else(
        || json!({"slug": slug, "title": kind["title"], "properties": {}, "_secrets": {}}),
    );
    for (field, value) in call.body {
        let flag = field.ends_with("_events") || field == "comment_on_event_enabled";
        if flag {
            record[field] = json!(text(value) == "true");
        } else if field == "use_inherited_settings" {
            record["inherited"] = json!(text(value) == "true");
        } else if secret.contains(field) {
            record["_secrets"][field] = value.clone();
        } else {
            record["properties"][field] = value.clone();
        }
    }
    // A required field must be given, or kept from before (secrets included).
    let has = |field: &str| {
        [&record["properties"][field], &record["_secrets"][field]]
            .iter()
            .any(|v| !v.is_null() && !text(v).is_empty())
    };
    if let Some(field) = required.iter().find(|field| !has(field)) {
        return Err(Failure::missing(field));
    }
    record["active"] = json!(true);
    if record.get("inherited").is_none() {
        record["inherited"] = json!(false);
    }
    record["updated_at"] = json!(now);
    match existing {
        Some(before) => store.replace(&call.collection, &before, record.clone()),
        None => {
            record["id"] = json!(store.next_id(&call.collection));
            store.stamp(&call.collection, &owner, &mut record, &now);
            record = store.insert(&call.collection, &owner, record);
        }
    }
    Ok(Answer::ok(super::store::public(&record)))
}

/// `GET /namespaces/:id/exists`: whether `id` is taken as a path at the top level, or
/// under `parent_id`, matched without regard to case as GitLab does; when it is, the first
/// free path with a number after it is suggested.
fn namespace_exists(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let path = call
        .path
        .get("namespace_id")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let namespaces = store.all("namespaces");
    // An unknown parent has no children: nothing is taken under it.
    let prefix = match call.query.get("parent_id") {
        Some(id) => namespaces
            .iter()
            .find(|n| text(&n["id"]) == id)
            .map(|parent| format!("{}/", text(&parent["full_path"]))),
        None => Some(String::new()),
    };
    let taken = |candidate: &str| {
        prefix.as_ref().is_some_and(|prefix| {
            let full = format!("{prefix}{candidate}");
            namespaces
                .iter()
                .any(|n| text(&n["full_path"]).eq_ignore_ascii_case(&full))
        })
    };
    let exists = taken(path);
    let suggests: Vec<String> = if exists {
        (1..)
            .map(|n| format!("{path}{n}"))
            .find(|candidate| !taken(candidate))
            .into_iter()
            .collect()
    } else {
        Vec::new()
    };
    Ok(Answer::ok(json!({"exists": exists, "suggests": suggests})))
}

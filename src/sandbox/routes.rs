//! The hand-written sandbox routes: where GitLab has real behaviour (merging, approving,
//! retrying, logs, files, trees, comparisons), keyed by catalog action id. Everything
//! else is the generic behaviour in `engine`.

use base64::Engine as _;
use serde_json::{Value, json};

use super::engine::{Answer, Call};
use super::store::{Ancestor, Failure, Outcome, Page, Store, basic_user, get_path, text};

/// A hand-written route for this call's action, if it has one.
pub fn custom(store: &mut Store, call: &Call<'_>) -> Option<Outcome<Answer>> {
    Some(match call.action.id {
        "user.current" => Ok(Answer::ok(call.user.clone())),
        "project.create" => create_project(store, call),
        "project.delete" => delete_project(store, call),
        "project.languages" => Ok(Answer::ok(
            call.project()?
                .get("_languages")
                .cloned()
                .unwrap_or(json!({})),
        )),
        "branch.create" => create_branch(store, call),
        "branch.delete" => delete_branch(store, call),
        "repository.tree" => tree(store, call),
        "repository.file_get" => file(store, call, false),
        "repository.file_raw" => file(store, call, true),
        "repository.commit_list" => commits(store, call),
        "repository.commit_get" => commit(store, call),
        "repository.compare" => compare(store, call),
        "merge_request.create" => create_merge_request(store, call),
        "merge_request.merge" => merge(store, call),
        "merge_request.approve" => approve(store, call),
        "merge_request.diffs" => merge_request_diffs(store, call),
        "merge_request.note_create" | "issue.note_create" => create_note(store, call),
        "pipeline.latest" => latest_pipeline(store, call),
        "pipeline.create" => create_pipeline(store, call),
        "pipeline.retry" => retry_pipeline(store, call),
        "pipeline.cancel" => cancel_pipeline(store, call),
        "job.log" => Ok(job_log(call)),
        "job.retry" => retry_job(store, call),
        "job.play" => play_job(store, call),
        _ => return None,
    })
}

/// Finds the record a path parameter names; commits also answer to a SHA prefix or a
/// branch name, as in GitLab.
pub fn find(store: &Store, collection: &str, ancestors: &[Ancestor], value: &str) -> Option<Value> {
    if let Some(record) = store.find(collection, ancestors, value) {
        return Some(record);
    }
    if collection == "projects/repository/commits" {
        return resolve_commit(store, ancestors, value);
    }
    None
}

fn resolve_commit(store: &Store, ancestors: &[Ancestor], reference: &str) -> Option<Value> {
    let commits = store.scoped("projects/repository/commits", ancestors);
    if reference.len() >= 7
        && let Some(commit) = commits
            .iter()
            .find(|c| c["id"].as_str().is_some_and(|id| id.starts_with(reference)))
    {
        return Some((*commit).clone());
    }
    let branch = store.find("projects/repository/branches", ancestors, reference)?;
    let head = branch.get("commit")?.get("id")?.as_str()?.to_owned();
    commits
        .into_iter()
        .find(|c| c["id"] == head.as_str())
        .cloned()
}

fn project_scope(call: &Call<'_>) -> Vec<Ancestor> {
    call.ancestors
        .iter()
        .filter(|a| a.collection == "projects")
        .cloned()
        .collect()
}

fn default_branch(call: &Call<'_>) -> String {
    call.project()
        .and_then(|p| p["default_branch"].as_str())
        .unwrap_or("main")
        .to_owned()
}

fn body_str<'a>(call: &'a Call<'_>, name: &str) -> Option<&'a str> {
    call.body
        .get(name)
        .and_then(Value::as_str)
        .or_else(|| call.query.get(name))
}

fn body_bool(call: &Call<'_>, name: &str) -> bool {
    match call.body.get(name) {
        Some(Value::Bool(flag)) => *flag,
        Some(other) => text(other) == "true",
        None => call.query.get(name) == Some("true"),
    }
}

fn page_of(items: Vec<Value>, call: &Call<'_>) -> Answer {
    Answer::Page(Page::of(items, call.query))
}

fn create_project(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let name = body_str(call, "name")
        .filter(|n| !n.is_empty())
        .ok_or_else(|| Failure::missing("name"))?
        .to_owned();
    let path = body_str(call, "path")
        .map(str::to_owned)
        .unwrap_or_else(|| slug(&name));
    let namespace = match call
        .body
        .get("namespace_id")
        .and_then(|v| v.as_i64().or_else(|| text(v).parse().ok()))
    {
        Some(id) => store
            .namespaces
            .iter()
            .find(|n| n["id"] == json!(id))
            .cloned()
            .ok_or_else(|| Failure::new(404, "404 Namespace Not Found"))?,
        None => {
            let username = call.user["username"].as_str().unwrap_or_default();
            store
                .namespaces
                .iter()
                .find(|n| n["path"] == json!(username))
                .cloned()
                .unwrap_or(json!({"path": username, "full_path": username, "kind": "user"}))
        }
    };
    let full_path = format!(
        "{}/{path}",
        namespace["full_path"].as_str().unwrap_or_default()
    );
    if store
        .all("projects")
        .iter()
        .any(|p| p["path_with_namespace"] == json!(full_path))
    {
        return Err(Failure::new(
            400,
            json!({"name": ["has already been taken"], "path": ["has already been taken"]}),
        ));
    }
    let id = store.next_id("projects", 100);
    let now = store.tick();
    let web_url = format!("{}/{full_path}", store.external_url);
    let host = store
        .external_url
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .to_owned();
    let mut project = json!({
        "id": id,
        "name": name,
        "path": path,
        "name_with_namespace": format!("{} / {name}", namespace["name"].as_str().unwrap_or_default()),
        "path_with_namespace": full_path,
        "description": body_str(call, "description"),
        "default_branch": body_str(call, "default_branch").unwrap_or("main"),
        "visibility": body_str(call, "visibility").unwrap_or("private"),
        "topics": [],
        "star_count": 0,
        "forks_count": 0,
        "open_issues_count": 0,
        "archived": false,
        "empty_repo": !body_bool(call, "initialize_with_readme"),
        "created_at": now,
        "last_activity_at": now,
        "namespace": namespace,
        "web_url": web_url,
        "http_url_to_repo": format!("{web_url}.git"),
        "ssh_url_to_repo": format!("git@{host}:{full_path}.git"),
        "creator_id": call.user["id"],
        "_members": [call.user["id"]],
        "_owner": call.user["id"],
        "_languages": {},
    });
    if project["description"].is_null() {
        project.as_object_mut().map(|p| p.remove("description"));
    }
    store.all_mut("projects").push(project.clone());
    Ok(Answer::created(project))
}

fn delete_project(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let project = call
        .project()
        .ok_or_else(|| Failure::new(404, "404 Project Not Found"))?
        .clone();
    if project.get("_owner") != Some(&call.user["id"]) {
        return Err(Failure::new(403, "403 Forbidden"));
    }
    store.remove("projects", &project);
    Ok(Answer::Json {
        status: 202,
        body: json!({"message": "202 Accepted"}),
    })
}

fn slug(name: &str) -> String {
    let mut out = String::new();
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

fn create_branch(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let scope = project_scope(call);
    let name = body_str(call, "branch")
        .ok_or_else(|| Failure::missing("branch"))?
        .to_owned();
    let reference = body_str(call, "ref")
        .ok_or_else(|| Failure::missing("ref"))?
        .to_owned();
    if store
        .find("projects/repository/branches", &scope, &name)
        .is_some()
    {
        return Err(Failure::new(400, "Branch already exists"));
    }
    let commit = resolve_commit(store, &scope, &reference)
        .ok_or_else(|| Failure::new(400, "Invalid reference name: ".to_owned() + &reference))?;
    let project = call.project().cloned().unwrap_or_default();
    store.tick();
    let branch = json!({
        "name": name,
        "merged": false,
        "protected": false,
        "default": false,
        "developers_can_push": false,
        "developers_can_merge": false,
        "can_push": true,
        "web_url": format!("{}/-/tree/{name}", project["web_url"].as_str().unwrap_or_default()),
        "commit": super::store::public(&commit),
        "_project_id": project["id"],
        "_commits": [],
        "_diffs": [],
    });
    store
        .all_mut("projects/repository/branches")
        .push(branch.clone());
    // The new branch contains the commit it was made from, so lists by `ref_name` see it.
    for record in store.all_mut("projects/repository/commits").iter_mut() {
        if record["id"] == commit["id"]
            && let Some(branches) = record.get_mut("_branches").and_then(Value::as_array_mut)
        {
            branches.push(json!(name));
        }
    }
    Ok(Answer::created(branch))
}

fn delete_branch(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let branch = call.target_record("404 Branch Not Found")?;
    if branch["default"] == json!(true) {
        return Err(Failure::new(
            400,
            "The default branch of a project cannot be deleted.",
        ));
    }
    if branch["protected"] == json!(true) {
        return Err(Failure::new(
            403,
            "403 Forbidden - Protected branch cannot be deleted",
        ));
    }
    store.remove("projects/repository/branches", &branch);
    Ok(Answer::Empty(204))
}

/// A ref must name a branch or a commit for file and tree reads.
fn check_ref(store: &Store, call: &Call<'_>, not_found: &str) -> Outcome<String> {
    let reference = call
        .query
        .get("ref")
        .map(str::to_owned)
        .unwrap_or_else(|| default_branch(call));
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
    let mut entries: Vec<(String, &'static str)> = Vec::new();
    for file in store.scoped("projects/repository/files", &project_scope(call)) {
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

/// A stable 40-hex id for a tree entry.
fn fake_sha(seed: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut out = String::new();
    for round in 0..3_u64 {
        for byte in seed.bytes().chain(round.to_le_bytes()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        out.push_str(&format!("{hash:016x}"));
    }
    out[..40].to_owned()
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

fn file(store: &mut Store, call: &Call<'_>, raw: bool) -> Outcome<Answer> {
    let reference = check_ref(store, call, "404 File Not Found")?;
    let file = &call
        .target()
        .ok_or_else(|| Failure::new(404, "404 File Not Found"))?
        .record;
    let bytes = file_bytes(file);
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

fn commits(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let mut query = call.query.clone();
    if query.get("ref_name").is_none() {
        query.pairs.push(("ref_name".into(), default_branch(call)));
    }
    Ok(Answer::Page(store.list(
        "projects/repository/commits",
        &project_scope(call),
        &query,
        &call.user,
    )))
}

fn commit(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let mut commit = call.target_record("404 Commit Not Found")?;
    let pipelines = store.scoped("projects/pipelines", &project_scope(call));
    let last = pipelines
        .into_iter()
        .filter(|p| p["sha"] == commit["id"])
        .max_by_key(|p| p["id"].as_i64());
    if let Some(pipeline) = last {
        commit["status"] = pipeline["status"].clone();
        commit["last_pipeline"] = json!({
            "id": pipeline["id"], "iid": pipeline["iid"], "project_id": pipeline["project_id"], "sha": pipeline["sha"],
            "ref": pipeline["ref"], "status": pipeline["status"], "source": pipeline["source"],
            "created_at": pipeline["created_at"], "updated_at": pipeline["updated_at"], "web_url": pipeline["web_url"],
        });
    }
    commit["committer_name"] = commit
        .get("committer_name")
        .cloned()
        .unwrap_or_else(|| commit["author_name"].clone());
    Ok(Answer::ok(commit))
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

fn create_merge_request(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let scope = project_scope(call);
    for field in ["source_branch", "target_branch", "title"] {
        if body_str(call, field).is_none_or(str::is_empty) {
            return Err(Failure::missing(field));
        }
    }
    let source = body_str(call, "source_branch")
        .unwrap_or_default()
        .to_owned();
    let target = body_str(call, "target_branch")
        .unwrap_or_default()
        .to_owned();
    let Some(branch) = store.find("projects/repository/branches", &scope, &source) else {
        return Err(Failure::new(
            400,
            json!([format!("Source branch \"{source}\" does not exist")]),
        ));
    };
    if store
        .find("projects/repository/branches", &scope, &target)
        .is_none()
    {
        return Err(Failure::new(
            400,
            json!([format!("Target branch \"{target}\" does not exist")]),
        ));
    }
    if source == target {
        return Err(Failure::new(
            400,
            json!(["You can't use same project/branch for source and target"]),
        ));
    }
    let existing = store
        .scoped("projects/merge_requests", &scope)
        .into_iter()
        .find(|mr| {
            mr["state"] == "opened"
                && mr["source_branch"] == json!(source)
                && mr["target_branch"] == json!(target)
        });
    if let Some(existing) = existing {
        return Err(Failure::new(
            409,
            json!([format!(
                "Another open merge request already exists for this source branch: !{}",
                existing["iid"]
            )]),
        ));
    }
    let mut created = store.create("projects/merge_requests", &scope, call.body, &call.user)?;
    let project_id = call
        .project()
        .map(|p| p["id"].clone())
        .unwrap_or(Value::Null);
    created["sha"] = branch["commit"]["id"].clone();
    created["source_project_id"] = project_id.clone();
    created["target_project_id"] = project_id;
    created["reference"] = json!(format!("!{}", created["iid"]));
    created["merge_status"] = json!("can_be_merged");
    if created["draft"] == json!(true) {
        created["detailed_merge_status"] = json!("draft_status");
    }
    created["_approved_by"] = json!([]);
    created["_approvals_required"] = json!(1);
    let stored = store
        .all("projects/merge_requests")
        .iter()
        .find(|m| m["id"] == created["id"])
        .cloned();
    if let Some(stored) = stored {
        store.replace("projects/merge_requests", &stored, created.clone());
    }
    Ok(Answer::created(created))
}

fn merge(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let current = call.target_record("404 Not found")?;
    if current["state"] != "opened" || current["draft"] == json!(true) {
        return Err(Failure::new(405, "405 Method Not Allowed"));
    }
    if current["has_conflicts"] == json!(true) {
        return Err(Failure::new(406, "Branch cannot be merged"));
    }
    if let Some(sha) = body_str(call, "sha")
        && current["sha"].as_str() != Some(sha)
    {
        return Err(Failure::new(
            409,
            "SHA does not match HEAD of source branch: ".to_owned()
                + current["sha"].as_str().unwrap_or_default(),
        ));
    }
    let mut merged = current.clone();
    let now = store.tick();
    merged["state"] = json!("merged");
    merged["merged_at"] = json!(now);
    merged["updated_at"] = json!(now);
    merged["merged_by"] = basic_user(&call.user);
    merged["merge_user"] = basic_user(&call.user);
    merged["detailed_merge_status"] = json!("merged");
    merged["merge_status"] = json!("merged");
    merged["merge_commit_sha"] = json!(fake_sha(&format!("merge:{}", current["id"])));
    if body_bool(call, "squash") {
        merged["squash"] = json!(true);
        merged["squash_commit_sha"] = json!(fake_sha(&format!("squash:{}", current["id"])));
    }
    store.replace("projects/merge_requests", &current, merged.clone());
    if body_bool(call, "should_remove_source_branch") {
        let scope = project_scope(call);
        if let Some(branch) = store.find(
            "projects/repository/branches",
            &scope,
            merged["source_branch"].as_str().unwrap_or_default(),
        ) {
            store.remove("projects/repository/branches", &branch);
        }
    }
    Ok(Answer::ok(merged))
}

fn approve(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let current = call.target_record("404 Not found")?;
    if let Some(sha) = body_str(call, "sha")
        && current["sha"].as_str() != Some(sha)
    {
        return Err(Failure::new(
            409,
            "SHA does not match HEAD of source branch",
        ));
    }
    let mut updated = current.clone();
    let mut approved: Vec<Value> = updated["_approved_by"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if !approved.contains(&call.user["id"]) {
        approved.push(call.user["id"].clone());
        store.tick();
    }
    updated["_approved_by"] = json!(approved);
    store.replace("projects/merge_requests", &current, updated.clone());
    let required = updated["_approvals_required"].as_i64().unwrap_or(1);
    let approvers: Vec<Value> = approved
        .iter()
        .filter_map(|id| store.all("users").iter().find(|u| &u["id"] == id))
        .map(|user| json!({"user": basic_user(user)}))
        .collect();
    Ok(Answer::Json {
        status: 201,
        body: json!({
            "id": updated["id"], "iid": updated["iid"], "project_id": updated["project_id"], "title": updated["title"],
            "description": updated["description"], "state": updated["state"], "created_at": updated["created_at"],
            "updated_at": updated["updated_at"], "merge_status": updated["merge_status"],
            "approved": approvers.len() as i64 >= required,
            "approvals_required": required,
            "approvals_left": (required - approvers.len() as i64).max(0),
            "approved_by": approvers,
        }),
    })
}

fn merge_request_diffs(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let merge_request = &call
        .target()
        .ok_or_else(|| Failure::new(404, "404 Not found"))?
        .record;
    let diffs = match merge_request.get("_diffs").and_then(Value::as_array) {
        Some(diffs) => diffs.clone(),
        None => store
            .find(
                "projects/repository/branches",
                &project_scope(call),
                merge_request["source_branch"].as_str().unwrap_or_default(),
            )
            .and_then(|b| b["_diffs"].as_array().cloned())
            .unwrap_or_default(),
    };
    Ok(page_of(diffs, call))
}

fn create_note(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let parent = call
        .target()
        .ok_or_else(|| Failure::new(404, "404 Not found"))?
        .clone();
    let mut note = store.create(&call.collection, &call.ancestors, call.body, &call.user)?;
    note["noteable_id"] = parent.record["id"].clone();
    let stored = store
        .all(&call.collection)
        .iter()
        .find(|n| n["id"] == note["id"])
        .cloned();
    if let Some(stored) = stored {
        store.replace(&call.collection, &stored, note.clone());
    }
    let mut updated = parent.record.clone();
    updated["user_notes_count"] = json!(updated["user_notes_count"].as_i64().unwrap_or(0) + 1);
    store.replace(&parent.collection, &parent.record, updated);
    Ok(Answer::created(note))
}

fn pipelines_of<'s>(store: &'s Store, call: &Call<'_>) -> Vec<&'s Value> {
    store.scoped("projects/pipelines", &project_scope(call))
}

fn latest_pipeline(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let reference = call
        .query
        .get("ref")
        .map(str::to_owned)
        .unwrap_or_else(|| default_branch(call));
    pipelines_of(store, call)
        .into_iter()
        .filter(|p| p["ref"] == json!(reference))
        .max_by_key(|p| p["id"].as_i64())
        .map(|p| Answer::ok(p.clone()))
        .ok_or_else(|| Failure::new(404, "404 Not found"))
}

fn create_pipeline(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let scope = project_scope(call);
    let reference = body_str(call, "ref")
        .ok_or_else(|| Failure::missing("ref"))?
        .to_owned();
    let commit = resolve_commit(store, &scope, &reference)
        .ok_or_else(|| Failure::new(400, json!({"base": ["Reference not found"]})))?;
    let project = call.project().cloned().unwrap_or_default();
    let id = store.next_id("projects/pipelines", 9000);
    let iid = pipelines_of(store, call)
        .iter()
        .filter_map(|p| p["iid"].as_i64())
        .max()
        .unwrap_or(0)
        + 1;
    let now = store.tick();
    let web_url = format!(
        "{}/-/pipelines/{id}",
        project["web_url"].as_str().unwrap_or_default()
    );
    let pipeline = json!({
        "id": id, "iid": iid, "project_id": project["id"], "sha": commit["id"], "ref": reference,
        "status": "pending", "source": "api", "created_at": now, "updated_at": now, "web_url": web_url,
        "before_sha": "0000000000000000000000000000000000000000", "tag": false, "user": basic_user(&call.user),
        "started_at": null, "finished_at": null, "duration": null, "queued_duration": null, "coverage": null,
    });
    store.all_mut("projects/pipelines").push(pipeline.clone());
    let first_job = store.next_id("projects/jobs", 70000);
    for (offset, (stage, name, status)) in [
        ("build", "build", "pending"),
        ("test", "test:unit", "created"),
        ("deploy", "deploy:staging", "manual"),
    ]
    .into_iter()
    .enumerate()
    {
        let job_id = first_job + offset as i64;
        let job = json!({
            "id": job_id, "name": name, "stage": stage, "status": status, "ref": reference, "tag": false,
            "allow_failure": false, "created_at": now, "user": basic_user(&call.user),
            "pipeline": {"id": id, "iid": iid, "project_id": project["id"], "sha": commit["id"], "ref": reference, "status": "pending", "web_url": web_url},
            "web_url": format!("{}/-/jobs/{job_id}", project["web_url"].as_str().unwrap_or_default()),
            "_project_id": project["id"], "_log": ["Waiting for a runner to pick up this job..."],
        });
        store.all_mut("projects/jobs").push(job);
    }
    Ok(Answer::created(pipeline))
}

fn jobs_of_pipeline(store: &Store, pipeline_id: &Value) -> Vec<Value> {
    store
        .all("projects/jobs")
        .iter()
        .filter(|j| get_path(j, "pipeline.id") == Some(pipeline_id))
        .cloned()
        .collect()
}

fn set_pipeline_status(store: &mut Store, pipeline: &Value, status: &str) -> Value {
    let mut updated = pipeline.clone();
    updated["status"] = json!(status);
    updated["updated_at"] = json!(store.now());
    if status == "running" {
        updated["finished_at"] = Value::Null;
        updated["duration"] = Value::Null;
    }
    store.replace("projects/pipelines", pipeline, updated.clone());
    updated
}

/// A new job in place of `job`, as GitLab's retry creates one.
fn clone_job(store: &mut Store, job: &Value, status: &str) -> Value {
    let id = store.next_id("projects/jobs", 70000);
    let now = store.tick();
    let mut retried = job.clone();
    retried["_retried"] = json!(true);
    store.replace("projects/jobs", job, retried);
    let mut fresh = job.clone();
    let web_url = text(&job["web_url"])
        .rsplit_once('/')
        .map(|(base, _)| format!("{base}/{id}"))
        .unwrap_or_default();
    fresh["id"] = json!(id);
    fresh["status"] = json!(status);
    fresh["created_at"] = json!(now);
    fresh["web_url"] = json!(web_url);
    for field in [
        "started_at",
        "finished_at",
        "duration",
        "failure_reason",
        "erased_at",
    ] {
        fresh.as_object_mut().map(|f| f.remove(field));
    }
    fresh["_log"] = json!(["Waiting for a runner to pick up this job..."]);
    store.all_mut("projects/jobs").push(fresh.clone());
    fresh
}

fn retry_pipeline(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let pipeline = call.target_record("404 Not found")?;
    let retryable: Vec<Value> = jobs_of_pipeline(store, &pipeline["id"])
        .into_iter()
        .filter(|j| {
            j.get("_retried").is_none()
                && matches!(j["status"].as_str(), Some("failed" | "canceled"))
        })
        .collect();
    if retryable.is_empty() {
        return Err(Failure::new(
            403,
            "403 Forbidden - Pipeline has no failed or canceled jobs to retry",
        ));
    }
    for job in &retryable {
        clone_job(store, job, "pending");
    }
    Ok(Answer::Json {
        status: 201,
        body: super::store::public(&set_pipeline_status(store, &pipeline, "running")),
    })
}

fn cancel_pipeline(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let pipeline = call.target_record("404 Not found")?;
    let active = [
        "created",
        "pending",
        "running",
        "waiting_for_resource",
        "preparing",
        "scheduled",
    ];
    if !active.contains(&pipeline["status"].as_str().unwrap_or_default()) {
        return Ok(Answer::Json {
            status: 201,
            body: super::store::public(&pipeline),
        });
    }
    store.tick();
    for job in jobs_of_pipeline(store, &pipeline["id"]) {
        if active.contains(&job["status"].as_str().unwrap_or_default()) {
            let mut canceled = job.clone();
            canceled["status"] = json!("canceled");
            store.replace("projects/jobs", &job, canceled);
        }
    }
    Ok(Answer::Json {
        status: 201,
        body: super::store::public(&set_pipeline_status(store, &pipeline, "canceled")),
    })
}

fn job_log(call: &Call<'_>) -> Answer {
    let job = call
        .target()
        .map(|a| &a.record)
        .cloned()
        .unwrap_or_default();
    let lines: Vec<String> = job["_log"]
        .as_array()
        .map(|l| l.iter().map(text).collect())
        .unwrap_or_default();
    Answer::Text(lines.join("\n").into_bytes())
}

fn retry_job(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let job = call.target_record("404 Not found")?;
    if !matches!(
        job["status"].as_str(),
        Some("failed" | "canceled" | "success")
    ) || job.get("_retried").is_some()
    {
        return Err(Failure::new(403, "403 Forbidden - Job is not retryable"));
    }
    let fresh = clone_job(store, &job, "pending");
    Ok(Answer::created(fresh))
}

fn play_job(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let job = call.target_record("404 Not found")?;
    if job["status"] != "manual" {
        return Err(Failure::new(400, "400 Bad request - Unplayable Job"));
    }
    let mut started = job.clone();
    started["status"] = json!("pending");
    started["user"] = basic_user(&call.user);
    started["_log"] = json!(["Waiting for a runner to pick up this job..."]);
    store.tick();
    store.replace("projects/jobs", &job, started.clone());
    Ok(Answer::ok(started))
}

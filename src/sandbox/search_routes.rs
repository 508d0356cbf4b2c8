//! The sandbox's search (listed in `routes::ROUTES` with its reason). GitLab answers
//! `GET /search`, `/groups/:id/search` and `/projects/:id/search` from a different
//! collection per `scope`, over one project, a group's projects (subgroups included) or
//! every visible project; code (`blobs`) and wiki (`wiki_blobs`) hits are computed from the
//! files' and pages' text: one hit per run of matching lines, with a line of context, its
//! first line numbered. `users` finds people by username or name: a project's or group's
//! members, or everyone.

use serde_json::{Value, json};

use super::engine::{Answer, Call};
use super::repository::{file_bytes, files_at};
use super::store::{Ancestor, Failure, Outcome, Page, Store, basic_user, get_path, text};

/// Lines of context GitLab shows around a matching line.
const CONTEXT: usize = 1;

/// The collections a scope searches, and the fields its text is matched in.
fn scope_collections(scope: &str) -> Option<(&'static [&'static str], &'static [&'static str])> {
    Some(match scope {
        "issues" => (&["projects/issues"], &["title", "description"]),
        "merge_requests" => (&["projects/merge_requests"], &["title", "description"]),
        "milestones" => (&["projects/milestones"], &["title", "description"]),
        "notes" => (
            &["projects/issues/notes", "projects/merge_requests/notes"],
            &["body"],
        ),
        "commits" => (&["projects/repository/commits"], &["message", "title"]),
        _ => return None,
    })
}

pub fn search(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let Some(needle) = call.query.get("search").filter(|s| !s.trim().is_empty()) else {
        return Err(Failure::missing("search"));
    };
    let scope = call.query.get("scope").unwrap_or_default();
    let projects = projects_in(store, call);
    let items = match scope {
        "blobs" => blobs(store, call, &projects, needle),
        "wiki_blobs" => wiki_blobs(store, &projects, needle),
        "users" => users(store, call, needle),
        _ => match scope_collections(scope) {
            Some((collections, fields)) => {
                records(store, call, &projects, collections, fields, needle)
            }
            None => {
                return Err(Failure {
                    status: 400,
                    body: json!({"error": "scope does not have a valid value"}),
                });
            }
        },
    };
    Ok(Answer::Page(Page::of(items, call.query)))
}

/// The projects searched: the path's project, the group's projects (subgroups included),
/// or every project the caller can see.
fn projects_in(store: &Store, call: &Call<'_>) -> Vec<Value> {
    if let Some(project) = call.project() {
        return vec![project.clone()];
    }
    let group = call
        .ancestors
        .iter()
        .find(|a| a.collection == "groups")
        .map(|a| a.record["id"].clone());
    store
        .all("projects")
        .iter()
        .filter(|p| store.visible_project(p, &call.user))
        .filter(|p| match &group {
            None => true,
            Some(id) => store.all("groups").iter().any(|g| {
                g["id"] == p["namespace"]["id"]
                    && g["_lineage"]
                        .as_array()
                        .is_some_and(|lineage| lineage.contains(id))
            }),
        })
        .cloned()
        .collect()
}

fn contains(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

/// Issues, merge requests, milestones, notes or commits whose text contains the search,
/// newest first, narrowed by `state`, `confidential` and (commits) `ref`.
fn records(
    store: &Store,
    call: &Call<'_>,
    projects: &[Value],
    collections: &[&str],
    fields: &[&str],
    needle: &str,
) -> Vec<Value> {
    let state = call.query.get("state").filter(|s| *s != "all");
    let confidential = call.query.get("confidential");
    let mut items: Vec<Value> = Vec::new();
    for project in projects {
        let reference = call
            .query
            .get("ref")
            .map(str::to_owned)
            .unwrap_or_else(|| text(&project["default_branch"]));
        for collection in collections {
            let parent = store
                .spec(collection)
                .parents
                .first()
                .cloned()
                .unwrap_or_else(|| "_project_id".into());
            items.extend(
                store
                    .all(collection)
                    .iter()
                    .filter(|r| {
                        get_path(r, &parent).is_some_and(|id| text(id) == text(&project["id"]))
                    })
                    .filter(|r| {
                        fields
                            .iter()
                            .any(|f| r[*f].as_str().is_some_and(|t| contains(t, needle)))
                    })
                    .filter(|r| state.is_none_or(|s| r["state"].as_str() == Some(s)))
                    .filter(|r| confidential.is_none_or(|c| text(&r["confidential"]) == c))
                    .filter(|r| match r["_branches"].as_array() {
                        Some(branches) => branches.iter().any(|b| b == reference.as_str()),
                        None => true,
                    })
                    // GitLab's hits name their project, as hits across projects must.
                    .map(|r| {
                        let mut hit = r.clone();
                        if hit.get("project_id").is_none_or(Value::is_null) {
                            hit["project_id"] = project["id"].clone();
                        }
                        hit
                    }),
            );
        }
    }
    let date = |r: &Value| {
        text(
            r.get("created_at")
                .or(r.get("committed_date"))
                .unwrap_or(&Value::Null),
        )
    };
    items.sort_by_key(|r| std::cmp::Reverse(date(r)));
    items
}

/// What a code search asks for: words to find, and `filename:`, `path:`, `extension:`
/// filters GitLab reads out of the search text.
struct CodeQuery {
    term: String,
    filename: Option<String>,
    path: Option<String>,
    extension: Option<String>,
}

impl CodeQuery {
    fn parse(search: &str) -> Self {
        let mut query = Self {
            term: String::new(),
            filename: None,
            path: None,
            extension: None,
        };
        let mut words = Vec::new();
        for word in search.split_whitespace() {
            if let Some(v) = word.strip_prefix("filename:") {
                query.filename = Some(v.to_owned());
            } else if let Some(v) = word.strip_prefix("path:") {
                query.path = Some(v.to_owned());
            } else if let Some(v) = word.strip_prefix("extension:") {
                query.extension = Some(v.trim_start_matches('.').to_owned());
            } else {
                words.push(word);
            }
        }
        query.term = words.join(" ");
        query
    }

    fn wants(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.filename.as_ref().is_none_or(|f| glob(f, name))
            && self
                .path
                .as_ref()
                .is_none_or(|p| contains(path, p.trim_end_matches('*')))
            && self
                .extension
                .as_ref()
                .is_none_or(|e| name.rsplit_once('.').is_some_and(|(_, ext)| ext == e))
    }
}

/// `filename:` takes `*` wildcards (`*.rs`, `Docker*`); otherwise it is the whole name.
fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern.eq_ignore_ascii_case(name);
    }
    let name = name.to_lowercase();
    let mut rest = name.as_str();
    for (i, part) in parts.iter().enumerate() {
        let part = part.to_lowercase();
        if i == 0 {
            let Some(after) = rest.strip_prefix(part.as_str()) else {
                return false;
            };
            rest = after;
        } else if i == parts.len() - 1 {
            return rest.ends_with(part.as_str());
        } else {
            let Some(at) = rest.find(part.as_str()) else {
                return false;
            };
            rest = &rest[at + part.len()..];
        }
    }
    true
}

/// Code hits: for each text file at the ref whose lines contain the term, one hit per
/// run of matching lines (with context), as GitLab's basic search answers.
fn blobs(store: &Store, call: &Call<'_>, projects: &[Value], search: &str) -> Vec<Value> {
    let query = CodeQuery::parse(search);
    let mut hits = Vec::new();
    for project in projects {
        let scope = [Ancestor {
            collection: "projects".into(),
            record: project.clone(),
        }];
        let reference = call
            .query
            .get("ref")
            .map(str::to_owned)
            .unwrap_or_else(|| text(&project["default_branch"]));
        let mut files = files_at(store, &scope, &reference);
        files.sort_by_key(|f| text(&f["file_path"]));
        for file in files {
            let path = text(&file["file_path"]);
            if !query.wants(&path) {
                continue;
            }
            let Ok(content) = String::from_utf8(file_bytes(file)) else {
                continue;
            };
            let lines: Vec<&str> = content.lines().collect();
            let matching: Vec<usize> = if query.term.is_empty() {
                vec![0]
            } else {
                (0..lines.len())
                    .filter(|&i| contains(lines[i], &query.term))
                    .collect()
            };
            let name = path.rsplit('/').next().unwrap_or(&path);
            let basename = match path.rsplit_once('.') {
                Some((stem, _)) if !name.starts_with('.') || name.matches('.').count() > 1 => stem,
                _ => &path,
            };
            let at = Place {
                path: &path,
                basename,
                reference: &reference,
                project: &project["id"],
            };
            hits.extend(line_hits(&lines, &matching, &at));
        }
    }
    hits
}

/// Wiki hits: for each page of the projects' wikis whose lines contain the text, one hit
/// per run of matching lines, as for code; the path is the page's file (`slug.md`).
fn wiki_blobs(store: &Store, projects: &[Value], needle: &str) -> Vec<Value> {
    let mut hits = Vec::new();
    for project in projects {
        let mut pages: Vec<&Value> = store
            .all("projects/wikis")
            .iter()
            .filter(|p| text(&p["_project_id"]) == text(&project["id"]))
            .collect();
        pages.sort_by_key(|p| text(&p["slug"]));
        for page in pages {
            let content = text(&page["content"]);
            let lines: Vec<&str> = content.lines().collect();
            let matching: Vec<usize> = (0..lines.len())
                .filter(|&i| contains(lines[i], needle))
                .collect();
            let slug = text(&page["slug"]);
            let at = Place {
                path: &format!("{slug}.md"),
                basename: &slug,
                reference: "main",
                project: &project["id"],
            };
            hits.extend(line_hits(&lines, &matching, &at));
        }
    }
    hits
}

/// Users whose username or name contains the text: the project's or the group's members
/// when the search is in one, else every user; by username.
fn users(store: &Store, call: &Call<'_>, needle: &str) -> Vec<Value> {
    let members = match call.project() {
        Some(project) => Some(project["_members"].clone()),
        None => call
            .ancestors
            .iter()
            .find(|a| a.collection == "groups")
            .map(|a| a.record["_members"].clone()),
    };
    let mut found: Vec<Value> = store
        .all("users")
        .iter()
        .filter(|u| match &members {
            Some(Value::Array(ids)) => ids.contains(&u["id"]),
            Some(_) => false,
            None => true,
        })
        .filter(|u| contains(&text(&u["username"]), needle) || contains(&text(&u["name"]), needle))
        .map(basic_user)
        .collect();
    found.sort_by_key(|u| text(&u["username"]));
    found
}

/// Where a file's or page's hits are: GitLab's `path`, `basename`, `ref` and project.
struct Place<'a> {
    path: &'a str,
    basename: &'a str,
    reference: &'a str,
    project: &'a Value,
}

/// One hit per run of matching lines (`chunks`), as GitLab's basic search answers for code
/// and wiki pages alike.
fn line_hits(lines: &[&str], matching: &[usize], at: &Place<'_>) -> Vec<Value> {
    chunks(matching, lines.len())
        .into_iter()
        .map(|(start, end)| {
            json!({
                "basename": at.basename,
                "data": lines[start..end].iter().map(|l| format!("{l}\n")).collect::<String>(),
                "path": at.path,
                "filename": at.path,
                "id": null,
                "ref": at.reference,
                "startline": start + 1,
                "project_id": at.project,
            })
        })
        .collect()
}

/// Runs of lines to show: each matching line with `CONTEXT` lines either side, runs that
/// touch merged. Half-open ranges of line indexes.
fn chunks(matching: &[usize], count: usize) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &line in matching {
        let start = line.saturating_sub(CONTEXT);
        let end = (line + CONTEXT + 1).min(count.max(1));
        match runs.last_mut() {
            Some(last) if start <= last.1 => last.1 = end.max(last.1),
            _ => runs.push((start, end)),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_of_close_matches_is_one_chunk_with_context() {
        assert_eq!(chunks(&[3, 5], 20), vec![(2, 7)]);
        assert_eq!(chunks(&[0, 12], 13), vec![(0, 2), (11, 13)]);
    }

    #[test]
    fn filters_come_out_of_the_search_text() {
        let q = CodeQuery::parse("token filename:*.rs path:src/");
        assert_eq!(q.term, "token");
        assert!(q.wants("src/auth.rs"));
        assert!(!q.wants("docs/auth.rs"));
        assert!(!q.wants("src/auth.md"));
        let q = CodeQuery::parse("PORT extension:toml");
        assert!(q.wants("Cargo.toml") && !q.wants("src/main.rs"));
    }

    #[test]
    fn filename_wildcards() {
        assert!(glob("Docker*", "Dockerfile"));
        assert!(glob("*.rs", "main.rs"));
        assert!(!glob("*.rs", "main.rsx"));
        assert!(glob("README.md", "readme.md"));
    }
}

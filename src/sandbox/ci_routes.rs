//! Hand-written sandbox routes of the CI/CD actions (listed in `routes::ROUTES` with their
//! reasons): a job's artifacts archive as zip bytes, its folders, one file from it, and a pipeline's
//! test report computed from its jobs' JUnit cases.
//!
//! Seed data: a job's `_artifacts` is a list of `{"path", "content"}` (or
//! `"content_base64"`, or `"_generate": {"count", "line"}`, as repository files), and its
//! `_junit` is `{"cases": [...], "passing": {"count", "classname", "name"}}`: the failing
//! and notable cases written out, the passing bulk generated (`{n}` in `name`).

use chrono::DateTime;
use rawzip::time::UtcDateTime;
use rawzip::{CompressionMethod, ZipArchiveWriter};
use serde_json::{Map, Value, json};

use super::engine::{Answer, Call};
use super::repository::file_bytes;
use super::store::{Ancestor, Failure, Outcome, Page, Store, get_path, text};

const NO_ARTIFACTS: &str = "404 Not Found";

fn job<'c>(call: &'c Call<'_>) -> Outcome<&'c Value> {
    call.ancestors
        .iter()
        .rev()
        .find(|a| a.collection == "projects/jobs")
        .map(|a| &a.record)
        .ok_or_else(|| Failure::new(404, "404 Not found"))
}

fn project_scope(call: &Call<'_>) -> Vec<Ancestor> {
    call.ancestors
        .iter()
        .filter(|a| a.collection == "projects")
        .cloned()
        .collect()
}

/// The files a job stored; a job erased or whose artifacts were deleted has none.
fn artifacts(job: &Value) -> Outcome<&Vec<Value>> {
    job.get("_artifacts")
        .and_then(Value::as_array)
        .filter(|files| !files.is_empty())
        .ok_or_else(|| Failure::new(404, NO_ARTIFACTS))
}

/// The zip of a job's artifacts, stored (not deflated), each entry dated when the job
/// finished, as a runner uploads it.
pub fn archive(job: &Value) -> Outcome<Vec<u8>> {
    let files = artifacts(job)?;
    let finished = job["finished_at"]
        .as_str()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map_or(0, |t| t.timestamp());
    let broken = |e: rawzip::Error| Failure::new(500, format!("500 Internal Server Error ({e})"));
    let mut out = Vec::new();
    let mut zip = ZipArchiveWriter::new(&mut out);
    for file in files {
        let path = file["path"].as_str().unwrap_or_default();
        let (mut entry, config) = zip
            .new_file(path)
            .compression_method(CompressionMethod::STORE)
            .last_modified(UtcDateTime::from_unix(finished))
            .start()
            .map_err(broken)?;
        let mut writer = config.wrap(&mut entry);
        std::io::Write::write_all(&mut writer, &file_bytes(file))
            .map_err(|e| Failure::new(500, format!("500 Internal Server Error ({e})")))?;
        let (_, descriptor) = writer.finish().map_err(broken)?;
        entry.finish(descriptor).map_err(broken)?;
    }
    zip.finish().map_err(broken)?;
    Ok(out)
}

/// `GET /projects/:id/jobs/:job_id/artifacts`: the archive, as a download; for
/// `jobs/artifacts/:ref/download`, that of the job named `job` in the newest successful
/// pipeline of `ref`.
pub fn artifacts_archive(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let bytes = match call.path.get("ref").and_then(Value::as_str) {
        None => archive(job(call)?)?,
        Some(reference) => archive(&latest_successful_job(store, call, reference)?)?,
    };
    Ok(Answer::Bytes {
        bytes,
        content_type: "application/zip",
    })
}

/// `GET /projects/:id/jobs/:job_id/artifacts/tree`: the entries of one folder of the
/// archive (`path`, default the root), or everything below it with `recursive`, folders
/// first, as GitLab reads them from the archive's metadata; a folder's path ends with `/`.
pub fn artifacts_tree(_store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let files = artifacts(job(call)?)?;
    let base = call.query.get("path").unwrap_or("").trim_matches('/');
    let prefix = if base.is_empty() {
        String::new()
    } else {
        format!("{base}/")
    };
    let recursive = call.query.get("recursive") == Some("true");
    // (path, size of a file or None for a folder)
    let mut entries: Vec<(String, Option<usize>)> = Vec::new();
    for file in files {
        let path = file["path"].as_str().unwrap_or_default();
        let Some(rest) = path.strip_prefix(&prefix) else {
            continue;
        };
        let parts: Vec<&str> = rest.split('/').collect();
        let depth = if recursive { parts.len() } else { 1 };
        for level in 1..=depth {
            let is_file = level == parts.len();
            let entry = if is_file {
                format!("{prefix}{rest}")
            } else {
                format!("{prefix}{}/", parts[..level].join("/"))
            };
            if !entries.iter().any(|(p, _)| *p == entry) {
                entries.push((entry, is_file.then(|| file_bytes(file).len())));
            }
        }
    }
    if entries.is_empty() && !base.is_empty() {
        return Err(Failure::new(404, "404 Not Found"));
    }
    entries.sort_by(|a, b| (a.1.is_some(), &a.0).cmp(&(b.1.is_some(), &b.0)));
    let items = entries
        .into_iter()
        .map(|(path, size)| {
            let name = path
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_owned();
            match size {
                Some(size) => json!({"name": name, "path": path, "type": "file", "size": size, "mode": "100644"}),
                None => json!({"name": name, "path": path, "type": "directory", "mode": "040755"}),
            }
        })
        .collect();
    Ok(Answer::Page(Page::of(items, call.query)))
}

/// One file of a job's artifacts, by the job in the path or, for `jobs/artifacts/:ref/raw`,
/// by the job named `job` in the newest successful pipeline of `ref`.
pub fn artifact_file(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let found;
    let job = match call.path.get("ref").and_then(Value::as_str) {
        None => job(call)?,
        Some(reference) => {
            found = latest_successful_job(store, call, reference)?;
            &found
        }
    };
    let wanted = call
        .path
        .get("artifact_path")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let file = artifacts(job)?
        .iter()
        .find(|f| f["path"].as_str() == Some(wanted))
        .ok_or_else(|| Failure::new(404, "404 Not Found"))?;
    Ok(Answer::Bytes {
        bytes: file_bytes(file),
        content_type: "application/octet-stream",
    })
}

/// GitLab looks for the job among the newest successful pipeline's jobs on the ref.
fn latest_successful_job(store: &Store, call: &Call<'_>, reference: &str) -> Outcome<Value> {
    let name = call
        .query
        .get("job")
        .ok_or_else(|| Failure::missing("job"))?;
    let scope = project_scope(call);
    let pipeline = store
        .scoped("projects/pipelines", &scope)
        .into_iter()
        .filter(|p| p["ref"].as_str() == Some(reference) && p["status"] == "success")
        .max_by_key(|p| p["id"].as_i64())
        .cloned()
        .ok_or_else(|| Failure::new(404, "404 Not Found"))?;
    store
        .scoped("projects/jobs", &scope)
        .into_iter()
        .find(|j| j["name"].as_str() == Some(name) && same_pipeline(j, &pipeline))
        .cloned()
        .ok_or_else(|| Failure::new(404, "404 Not Found"))
}

fn same_pipeline(job: &Value, pipeline: &Value) -> bool {
    get_path(job, "pipeline.id") == pipeline.get("id")
}

/// One suite: a job's JUnit cases, the passing bulk generated.
struct Suite {
    name: String,
    job_id: Value,
    cases: Vec<Value>,
}

fn suites(store: &Store, call: &Call<'_>) -> Outcome<Vec<Suite>> {
    let pipeline = call
        .ancestors
        .iter()
        .find(|a| a.collection == "projects/pipelines")
        .map(|a| a.record.clone())
        .ok_or_else(|| Failure::new(404, "404 Not found"))?;
    let mut jobs: Vec<&Value> = store
        .scoped("projects/jobs", &project_scope(call))
        .into_iter()
        .filter(|j| same_pipeline(j, &pipeline) && j.get("_junit").is_some())
        .filter(|j| j.get("_retried").is_none())
        .collect();
    jobs.sort_by_key(|j| j["id"].as_i64());
    Ok(jobs
        .into_iter()
        .map(|job| {
            let junit = &job["_junit"];
            let mut cases: Vec<Value> = junit["cases"].as_array().cloned().unwrap_or_default();
            let passing = &junit["passing"];
            let classname = passing["classname"].as_str().unwrap_or_default();
            let pattern = passing["name"].as_str().unwrap_or("test_{n}");
            let time = passing["execution_time"].as_f64().unwrap_or(0.01);
            for n in 1..=passing["count"].as_u64().unwrap_or(0) {
                cases.push(json!({
                    "status": "success",
                    "name": pattern.replace("{n}", &n.to_string()),
                    "classname": classname,
                    "file": passing["file"],
                    "execution_time": time,
                    "system_output": null,
                    "stack_trace": null,
                    "recent_failures": null,
                }));
            }
            Suite {
                name: text(&job["name"]),
                job_id: job["id"].clone(),
                cases,
            }
        })
        .collect())
}

/// Counts by status and the summed time of some cases.
fn counts(cases: &[Value]) -> Map<String, Value> {
    let count = |status: &str| cases.iter().filter(|c| c["status"] == status).count();
    let time: f64 = cases
        .iter()
        .filter_map(|c| c["execution_time"].as_f64())
        .sum();
    let mut out = Map::new();
    out.insert("total_time".into(), json!((time * 1000.0).round() / 1000.0));
    out.insert("total_count".into(), json!(cases.len()));
    for status in ["success", "failed", "skipped", "error"] {
        out.insert(format!("{status}_count"), json!(count(status)));
    }
    out
}

/// `GET .../pipelines/:id/test_report`: every suite with every case, as GitLab sends it.
pub fn test_report(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let suites = suites(store, call)?;
    let all: Vec<Value> = suites.iter().flat_map(|s| s.cases.clone()).collect();
    let mut report = counts(&all);
    let test_suites: Vec<Value> = suites
        .into_iter()
        .map(|suite| {
            let mut entry = Map::new();
            entry.insert("name".into(), json!(suite.name));
            entry.extend(counts(&suite.cases));
            entry.insert("suite_error".into(), Value::Null);
            entry.insert("test_cases".into(), Value::Array(suite.cases));
            Value::Object(entry)
        })
        .collect();
    report.insert("test_suites".into(), Value::Array(test_suites));
    Ok(Answer::ok(Value::Object(report)))
}

/// `GET .../pipelines/:id/test_report_summary`: the same counts, without the cases.
pub fn test_report_summary(store: &mut Store, call: &Call<'_>) -> Outcome<Answer> {
    let suites = suites(store, call)?;
    let all: Vec<Value> = suites.iter().flat_map(|s| s.cases.clone()).collect();
    let totals = counts(&all);
    let total = json!({
        "time": totals["total_time"],
        "count": totals["total_count"],
        "success": totals["success_count"],
        "failed": totals["failed_count"],
        "skipped": totals["skipped_count"],
        "error": totals["error_count"],
        "suite_error": null,
    });
    let test_suites: Vec<Value> = suites
        .into_iter()
        .map(|suite| {
            let mut entry = Map::new();
            entry.insert("name".into(), json!(suite.name));
            entry.extend(counts(&suite.cases));
            entry.insert("build_ids".into(), json!([suite.job_id]));
            entry.insert("suite_error".into(), Value::Null);
            Value::Object(entry)
        })
        .collect();
    Ok(Answer::ok(
        json!({"total": total, "test_suites": test_suites}),
    ))
}

//! Waiting for a pipeline or a job to finish (`pipeline.wait_for`, `job.wait_for`).
//!
//! The action's own request (the same read as `pipeline.get` / `job.get`) is sent again
//! with growing pauses (half a second, then half as long again each time, at most ten
//! seconds) until the status is final or `timeout` seconds have passed; each read
//! reports progress (seconds waited of the timeout, and the status) when the caller
//! asked for it. Cancelling the call drops this future mid-pause, so the wait stops at
//! once. The answer is the entity as the get action answers it, with how long the wait
//! took, whether it timed out, and for a pipeline the jobs that failed.

use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::job::wait_for as job;
use crate::catalog::generated::pipeline::wait_for as pipeline;
use crate::gitlab::{GitlabError, Method, Request};

/// The first pause between two reads.
const FIRST_PAUSE: Duration = Duration::from_millis(500);
/// Each pause is this much longer than the one before ...
const GROWTH: f64 = 1.5;
/// ... up to this.
const LONGEST_PAUSE: Duration = Duration::from_secs(10);
/// Statuses after which nothing happens unless someone acts: a manual job (or a pipeline
/// stopped at one) waits for a person.
const FINAL: &[&str] = &["success", "failed", "canceled", "skipped", "manual"];
/// The failed jobs a pipeline's answer lists at most.
const FAILED_JOBS: usize = 20;

pub async fn pipeline_wait(
    context: &Context,
    params: &pipeline::Params,
) -> Result<pipeline::Output, ActionError> {
    let what = format!("Pipeline #{}", params.pipeline_id);
    let (mut record, waited) = wait(context, params.request(), params.timeout, &what).await?;
    let jobs = Request::new(Method::Get)
        .at(
            "/projects/{project_id}/pipelines/{pipeline_id}/jobs",
            &[&params.project_id, &params.pipeline_id],
        )
        .query("scope[]", "failed")
        .query("per_page", &FAILED_JOBS.to_string());
    let failed = context.for_call().send(jobs).await?.list()?;
    record.insert("failed_jobs".into(), Value::Array(failed));
    typed(record, &waited)
}

pub async fn job_wait(context: &Context, params: &job::Params) -> Result<job::Output, ActionError> {
    let what = format!("Job #{}", params.job_id);
    let (record, waited) = wait(context, params.request(), params.timeout, &what).await?;
    typed(record, &waited)
}

/// How a wait went.
struct Waited {
    seconds: f64,
    polls: u64,
    timed_out: bool,
}

/// Reads `request` until its `status` is final or `timeout` seconds have passed: the last
/// record read, and how the wait went.
async fn wait(
    context: &Context,
    request: Request,
    timeout: i64,
    what: &str,
) -> Result<(Map<String, Value>, Waited), ActionError> {
    let started = Instant::now();
    let timeout = u64::try_from(timeout).unwrap_or(1).max(1);
    let limit = started + Duration::from_secs(timeout);
    let mut pause = FIRST_PAUSE;
    let mut polls = 0;
    loop {
        // Each read has a deadline of its own: the wait is longer than one request's.
        let record: Map<String, Value> = context.for_call().send(request.clone()).await?.json()?;
        polls += 1;
        let status = record
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_owned();
        let seconds = started.elapsed().as_secs_f64();
        let finished = FINAL.contains(&status.as_str());
        let now = Instant::now();
        let timed_out = !finished && now >= limit;
        let message = match (finished, timed_out) {
            (true, _) => format!("{what} is {status} (after {seconds:.0} s)."),
            (false, true) => {
                format!("{what} is still {status} after {timeout} s: stopped waiting.")
            }
            (false, false) => {
                format!("{what} is {status} ({seconds:.0} s of at most {timeout} s).")
            }
        };
        context.report(seconds, Some(timeout as f64), message).await;
        if finished || timed_out {
            let waited = Waited {
                seconds,
                polls,
                timed_out,
            };
            return Ok((record, waited));
        }
        tokio::time::sleep(pause.min(limit - now)).await;
        pause = pause.mul_f64(GROWTH).min(LONGEST_PAUSE);
    }
}

/// The record read, with the wait's own fields, as the action's output type.
fn typed<T: serde::de::DeserializeOwned>(
    mut record: Map<String, Value>,
    waited: &Waited,
) -> Result<T, ActionError> {
    record.insert("timed_out".into(), Value::Bool(waited.timed_out));
    // Whole seconds: the pauses are half a second and more, and a finished one reads 0.
    record.insert("waited".into(), serde_json::json!(waited.seconds.round()));
    record.insert("polls".into(), Value::from(waited.polls));
    serde_json::from_value(Value::Object(record)).map_err(|error| {
        GitlabError::new(
            crate::gitlab::ErrorKind::BadResponse,
            format!("a field is missing or has the wrong type ({error})"),
        )
        .into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_grow_to_the_longest_and_stay_there() {
        let mut pause = FIRST_PAUSE;
        let mut pauses = Vec::new();
        for _ in 0..12 {
            pauses.push(pause.as_millis());
            pause = pause.mul_f64(GROWTH).min(LONGEST_PAUSE);
        }
        assert_eq!(&pauses[..4], &[500, 750, 1125, 1687]);
        assert_eq!(pauses[11], 10_000);
        // Ten minutes of waiting is fewer than seventy reads.
        let mut total = Duration::ZERO;
        let mut pause = FIRST_PAUSE;
        let mut reads = 0;
        while total < Duration::from_secs(600) {
            total += pause;
            pause = pause.mul_f64(GROWTH).min(LONGEST_PAUSE);
            reads += 1;
        }
        assert!(reads < 70, "{reads}");
    }
}

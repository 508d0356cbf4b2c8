//! `pipeline.wait_for` and `job.wait_for` (issue 28; also named `pipeline.wait`, `job.wait`) over MCP, with the binary on stdio against an
//! in-process sandbox whose request log shows every read: the sandbox moves an unfinished
//! pipeline on a minute after each read (`timelines` in seed/behaviour/pipeline.json), so
//! the wait is real there. A client that sends a progress token (the rmcp client sends one
//! with every request) hears of every read; a timeout ends the wait with the state it had;
//! cancelling stops the reads at once. That a call without a token hears nothing is
//! tests/clients/node/waits.test.mjs (the TypeScript SDK sends a token only when asked).

use std::time::{Duration, Instant};

use gitlab_mcp::sandbox::{self, Sandbox};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientConfig,
    GetTaskParams, Implementation, ProgressNotificationParam, TaskPayload, TaskStatus,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::support::{self, Listener, text};

/// The binary on stdio, on the dynamic surface, against `gitlab` as alice.
async fn connect<H: ClientHandler>(gitlab: &Sandbox, client: H) -> RunningService<RoleClient, H> {
    let command = tokio::process::Command::new(support::BINARY).configure(|command| {
        command
            .args(["--tool-surface", "dynamic", "serve"])
            .env("GITLAB_URL", gitlab.url())
            .env("GITLAB_TOKEN", sandbox::TOKEN)
            .env("GITLAB_FIT_CATALOG", "false");
    });
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the binary starts");
    client.serve(transport).await.expect("the MCP handshake")
}

fn wait(action: &str, params: Value) -> CallToolRequestParams {
    let arguments = json!({"action": action, "params": params});
    CallToolRequestParams::new("gitlab_execute_action")
        .with_arguments(arguments.as_object().unwrap().clone())
}

fn reads_of(gitlab: &Sandbox, path: &str) -> usize {
    gitlab
        .requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path == path)
        .count()
}

fn structured(result: &CallToolResult) -> &serde_json::Map<String, Value> {
    result
        .structured_content
        .as_ref()
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("no structure: {}", text(result)))
}

/// Pipeline #9014 is running, one of its jobs bound to fail: the wait reads it until it
/// has failed (the sandbox moves it on after each read), telling the client of each read,
/// and ends with its card and the job that failed.
#[tokio::test]
async fn pipeline_wait_reports_each_read_and_ends_with_what_failed() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let listener = Listener::default();
    let client = connect(&gitlab, listener.clone()).await;
    let started = Instant::now();
    let params = json!({"project_id": "acme/platform/api", "pipeline_id": 9014, "timeout": 60});
    let result = client
        .call_tool(wait("pipeline.wait", params))
        .await
        .unwrap();
    let elapsed = started.elapsed();
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    let found = structured(&result);
    assert_eq!(found["status"], "failed", "{}", text(&result));
    assert_eq!(found["timed_out"], false);
    let failed: Vec<&str> = found["failed_jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|job| job["name"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["test:integration"], "{}", text(&result));
    let reads = reads_of(
        &gitlab,
        "/api/v4/projects/acme%2Fplatform%2Fapi/pipelines/9014",
    );
    assert_eq!(found["polls"], reads as u64, "one read per poll");
    assert!(reads >= 2, "it was read until it finished: {reads}");
    let markdown = text(&result);
    assert!(
        markdown.contains("failed") && markdown.contains("test:integration"),
        "{markdown}"
    );
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");

    let heard = listener.heard.lock().unwrap().clone();
    assert_eq!(heard.len(), reads, "one notification per read: {heard:?}");
    for pair in heard.windows(2) {
        assert!(
            pair[1].progress > pair[0].progress,
            "progress grows: {heard:?}"
        );
    }
    for params in &heard {
        assert_eq!(
            params.progress_token, heard[0].progress_token,
            "one call's token"
        );
        assert_eq!(params.total, Some(60.0));
        assert!(
            params
                .message
                .as_deref()
                .unwrap()
                .starts_with("Pipeline #9014 is "),
            "{params:?}"
        );
    }
    assert!(
        heard
            .last()
            .unwrap()
            .message
            .as_deref()
            .unwrap()
            .contains("failed"),
        "{heard:?}"
    );
    client.cancel().await.unwrap();
}

/// A job's wait follows the job (the sandbox moves its pipeline on) until it ends.
#[tokio::test]
async fn job_wait_follows_the_job_until_it_fails() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let listener = Listener::default();
    let client = connect(&gitlab, listener.clone()).await;
    let params = json!({"project_id": "acme/platform/api", "job_id": 70067});
    let result = client
        .call_tool(wait("job.wait_for", params))
        .await
        .unwrap();
    let found = structured(&result);
    assert_eq!(found["status"], "failed", "{}", text(&result));
    assert_eq!(found["failure_reason"], "script_failure");
    assert_eq!(found["name"], "test:integration");
    assert!(found["polls"].as_u64().unwrap() >= 2, "{}", text(&result));
    let heard = listener.heard.lock().unwrap().clone();
    assert_eq!(heard.len() as u64, found["polls"].as_u64().unwrap());
    assert!(
        heard[0]
            .message
            .as_deref()
            .unwrap()
            .starts_with("Job #70067 is running"),
        "{heard:?}"
    );
    client.cancel().await.unwrap();
}

/// A pipeline that does not move (scheduled) is waited for until the timeout: the answer
/// says it timed out, with the state it had.
#[tokio::test]
async fn a_wait_ends_at_its_timeout_with_the_state_it_had() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let client = connect(&gitlab, Listener::default()).await;
    let started = Instant::now();
    let params = json!({"project_id": "acme/platform/api", "pipeline_id": 9002, "timeout": 2});
    let result = client
        .call_tool(wait("pipeline.wait", params))
        .await
        .unwrap();
    let elapsed = started.elapsed();
    let found = structured(&result);
    assert_eq!(found["timed_out"], true, "{}", text(&result));
    assert_eq!(found["status"], "scheduled");
    assert!(
        elapsed >= Duration::from_secs(2) && elapsed < Duration::from_secs(10),
        "{elapsed:?}"
    );
    assert!(text(&result).contains("Wait longer"), "{}", text(&result));
    client.cancel().await.unwrap();
}

/// Cancelling the call (`notifications/cancelled`, which rmcp sends when the call is
/// dropped) stops the reads within a second.
#[tokio::test]
async fn cancelling_a_wait_stops_its_reads_at_once() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let listener = Listener::default();
    let client = connect(&gitlab, listener.clone()).await;
    let path = "/api/v4/projects/acme%2Fplatform%2Fapi/pipelines/9002";
    let params = json!({"project_id": "acme/platform/api", "pipeline_id": 9002, "timeout": 600});
    let call = client.call_tool_once(wait("pipeline.wait_for", params));
    let stopped = tokio::time::timeout(Duration::from_millis(1800), call).await;
    assert!(stopped.is_err(), "still waiting after 1.8 s");
    let heard = listener.heard.lock().unwrap().len();
    assert!(heard >= 2, "progress was reported while it waited: {heard}");
    // The cancellation reaches the server; within a second it reads no more.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let reads = reads_of(&gitlab, path);
    // Without cancellation the next pauses (1.7, 2.5 s) would bring two more reads.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(
        reads_of(&gitlab, path),
        reads,
        "no read after the cancellation"
    );
    // The server goes on answering.
    let result = client
        .call_tool(wait(
            "pipeline.get",
            json!({"project_id": "acme/platform/api", "pipeline_id": 9002}),
        ))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    client.cancel().await.unwrap();
}

/// A client that declares the Tasks extension (SEP-2663) and keeps the progress it hears.
#[derive(Clone, Default)]
struct Tasker {
    listener: Listener,
}

impl ClientHandler for Tasker {
    fn get_info(&self) -> ClientConfig {
        let capabilities = json!({"extensions": {rmcp::model::TASKS_EXTENSION_ID: {}}});
        ClientConfig::new(
            serde_json::from_value(capabilities).unwrap(),
            Implementation::new("tasks-test", "1"),
        )
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        context: NotificationContext<RoleClient>,
    ) {
        self.listener.on_progress(params, context).await;
    }
}

/// The server offers tasks; a wait still running after two seconds comes back as one.
async fn started_task(
    client: &RunningService<RoleClient, Tasker>,
    params: Value,
) -> rmcp::model::Task {
    let info = client.peer_info().expect("initialized");
    assert!(info.capabilities.supports_tasks(), "{info:?}");
    let started = Instant::now();
    let response = client
        .call_tool_once(wait("pipeline.wait_for", params))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = response else {
        panic!("a task, not {response:?}");
    };
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_secs(2) && elapsed < Duration::from_secs(10),
        "{elapsed:?}"
    );
    assert_eq!(created.task.status, TaskStatus::Working);
    assert_eq!(created.task.poll_interval_ms, Some(1000));
    created.task
}

/// For a client that declared the Tasks extension, a wait that outlives its request goes on
/// as a task: the same wait (GitLab is not asked again from the start), its progress as the
/// task's status message, and in the end the wait's own result through `tasks/get`.
#[tokio::test]
async fn a_long_wait_goes_on_as_a_task_the_client_polls() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let client = connect(&gitlab, Tasker::default()).await;
    let path = "/api/v4/projects/acme%2Fplatform%2Fapi/pipelines/9002";
    let params = json!({"project_id": "acme/platform/api", "pipeline_id": 9002, "timeout": 5});
    let task = started_task(&client, params).await;
    let reads_at_handoff = reads_of(&gitlab, path);
    let mut messages = Vec::new();
    let done = loop {
        let polled = client
            .get_task(GetTaskParams::new(task.task_id.clone()))
            .await
            .unwrap()
            .task;
        messages.extend(polled.task.status_message.clone());
        if polled.status().is_terminal() {
            break polled;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    let TaskPayload::Completed { result } = &done.payload else {
        panic!("completed: {done:?}");
    };
    let result: CallToolResult = serde_json::from_value(Value::Object(result.clone())).unwrap();
    let found = structured(&result);
    assert_eq!(found["timed_out"], true, "{}", text(&result));
    assert_eq!(found["status"], "scheduled");
    assert_eq!(
        found["polls"],
        reads_of(&gitlab, path) as u64,
        "one wait, read on after the handoff"
    );
    assert!(reads_of(&gitlab, path) > reads_at_handoff);
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("Pipeline #9002 is scheduled")),
        "its progress is the task's status: {messages:?}"
    );
    client.cancel().await.unwrap();
}

/// `tasks/cancel` stops the wait within a second: the task ends `cancelled` and GitLab is
/// read no more. An id the server never gave is refused.
#[tokio::test]
async fn cancelling_a_task_stops_its_wait() {
    let gitlab = Sandbox::start_local().await.unwrap();
    let client = connect(&gitlab, Tasker::default()).await;
    let path = "/api/v4/projects/acme%2Fplatform%2Fapi/pipelines/9002";
    let params = json!({"project_id": "acme/platform/api", "pipeline_id": 9002, "timeout": 600});
    let task = started_task(&client, params).await;
    client
        .cancel_task(CancelTaskParams::new(task.task_id.clone()))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let polled = client
        .get_task(GetTaskParams::new(task.task_id.clone()))
        .await
        .unwrap()
        .task;
    assert_eq!(polled.status(), TaskStatus::Cancelled, "{polled:?}");
    let reads = reads_of(&gitlab, path);
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(reads_of(&gitlab, path), reads, "no read after the cancel");
    let unknown = client
        .get_task(GetTaskParams::new("not-a-task"))
        .await
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("No task not-a-task"), "{unknown}");
    client.cancel().await.unwrap();
}

//! MCP Tasks (SEP-2663, `io.modelcontextprotocol/tasks`): a tool call that is still running
//! after `HANDOFF` becomes a task, for a client that declared the extension.
//!
//! The call is not started again: the very future that was running (a wait, a slow read)
//! is handed to rmcp's `TaskManager`, and the client polls `tasks/get` for its state and
//! result or stops it with `tasks/cancel`. Its progress, which went to the client as
//! `notifications/progress` while the request was open, becomes the task's status message
//! (`Relay`). A client that did not declare the extension never gets a task: its call runs
//! to the end in the request, as before.
//!
//! Tasks belong to the credentials that started them: over Streamable HTTP, another token
//! asking for a task id is told that no such task exists, exactly as for an unknown id.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, DetailedTask, Task};
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};

use crate::call::Progress;
use crate::gitlab::GitlabClient;

/// How long a call runs in its request before it becomes a task. Reads and writes answer
/// well within it; a wait, or a GitLab that is slow today, does not.
pub const HANDOFF: Duration = Duration::from_secs(2);

/// How long a task is kept, from its start (and as long again once it has ended, for the
/// last polls): a wait may take up to 30 minutes.
const TTL: Duration = Duration::from_secs(3600);

/// How often the client is asked to poll: a wait reads GitLab every 0.5 to 10 s.
const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// A call's work, still running, as the request held it.
pub type Work = Pin<Box<dyn Future<Output = Result<CallToolResult, McpError>> + Send>>;

/// The server's tasks and whose each one is.
pub struct Tasks {
    manager: TaskManager,
    owners: Mutex<HashMap<String, Owner>>,
    keys: std::collections::hash_map::RandomState,
}

/// Whose credentials a task runs with: a keyed hash of instance and token, never the token.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Owner(u64);

impl Default for Tasks {
    fn default() -> Self {
        Self {
            manager: TaskManager::new(),
            owners: Mutex::new(HashMap::new()),
            keys: Default::default(),
        }
    }
}

impl Tasks {
    /// The owner a request with `gitlab`'s credentials is.
    pub fn owner(&self, gitlab: &GitlabClient) -> Owner {
        let token = gitlab.token().map(|t| t.expose()).unwrap_or_default();
        Owner(self.keys.hash_one((gitlab.api_url(), token)))
    }

    /// Goes on with `work` as a task of `owner`'s; from now on `relay` reports to the task.
    pub fn hand_off(&self, owner: Owner, work: Work, relay: &Relay) -> Task {
        let options = TaskOptions::new()
            .with_ttl_ms(TTL.as_millis() as u64)
            .with_poll_interval_ms(POLL_INTERVAL.as_millis() as u64)
            .with_status_message("Still running; its progress follows here.");
        let task = self.manager.spawn(options, |context| {
            relay.to_task(context.clone());
            Box::pin(async move {
                tokio::select! {
                    result = work => result.map_err(TaskExit::Error),
                    () = context.cancelled() => Err(TaskExit::Cancelled),
                }
            })
        });
        let mut owners = self.owners.lock().expect("task owners");
        // Forget the owners of tasks the manager has let go (it sweeps on every use).
        owners.retain(|id, _| self.manager.get_task(id).is_ok());
        owners.insert(task.task_id.clone(), owner);
        task
    }

    /// `tasks/get`, for the task's owner only.
    pub fn get(&self, owner: Owner, task_id: &str) -> Result<DetailedTask, McpError> {
        self.check(owner, task_id)?;
        self.manager.get_task(task_id)
    }

    /// `tasks/update`: this server's tasks ask nothing mid-way, so answers are acknowledged
    /// and dropped, as the extension says of answers to questions not asked.
    pub fn update(
        &self,
        owner: Owner,
        task_id: &str,
        answers: impl IntoIterator<Item = (String, serde_json::Value)>,
    ) -> Result<(), McpError> {
        self.check(owner, task_id)?;
        self.manager.update_task(task_id, answers)
    }

    /// `tasks/cancel`: the task's work is dropped at its next await (a wait mid-pause, a
    /// GitLab request in flight), and the task ends `cancelled`.
    pub fn cancel(&self, owner: Owner, task_id: &str) -> Result<(), McpError> {
        self.check(owner, task_id)?;
        self.manager.cancel_task(task_id)
    }

    fn check(&self, owner: Owner, task_id: &str) -> Result<(), McpError> {
        let owners = self.owners.lock().expect("task owners");
        match owners.get(task_id) {
            Some(found) if *found == owner => Ok(()),
            // Another caller's task reads as an unknown one: its id tells them nothing.
            _ => Err(McpError::invalid_params(
                format!("No task {task_id} (it may have ended more than an hour ago)."),
                None,
            )),
        }
    }
}

/// Where a call's progress goes: to the request's client while the request is open (when
/// it sent a progress token), to the task's status message once the call became a task.
#[derive(Default)]
pub struct Relay {
    target: Mutex<Target>,
}

#[derive(Default)]
enum Target {
    #[default]
    Nowhere,
    Request(Arc<dyn Progress>),
    Task(TaskContext),
}

impl Relay {
    /// A relay reporting to `request` until the call is handed off.
    pub fn new(request: Option<Arc<dyn Progress>>) -> Self {
        Self {
            target: Mutex::new(request.map_or(Target::Nowhere, Target::Request)),
        }
    }

    fn to_task(&self, task: TaskContext) {
        *self.target.lock().expect("relay target") = Target::Task(task);
    }
}

impl Progress for Relay {
    fn report(
        &self,
        progress: f64,
        total: Option<f64>,
        message: String,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let request = match &*self.target.lock().expect("relay target") {
            Target::Nowhere => None,
            Target::Request(request) => Some(request.clone()),
            Target::Task(task) => {
                task.set_status_message(message.clone());
                None
            }
        };
        Box::pin(async move {
            if let Some(request) = request {
                request.report(progress, total, message).await;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gitlab::Token;

    fn client(token: &str) -> GitlabClient {
        GitlabClient::new("https://gitlab.example.com", Some(Token::new(token)))
    }

    /// A task is its owner's alone: another token's `tasks/get` and `tasks/cancel` read it
    /// as unknown, and its owner's work goes on untouched.
    #[tokio::test]
    async fn a_task_answers_only_its_owner() {
        let tasks = Tasks::default();
        let (alice, bob) = (tasks.owner(&client("alice")), tasks.owner(&client("bob")));
        assert_ne!(alice, bob);
        assert_eq!(alice, tasks.owner(&client("alice")));
        let work: Work = Box::pin(std::future::pending());
        let task = tasks.hand_off(alice, work, &Relay::new(None));
        let refused = tasks.get(bob, &task.task_id).unwrap_err();
        assert_eq!(
            refused.message,
            tasks
                .get(bob, "no-such-task")
                .unwrap_err()
                .message
                .replace("no-such-task", &task.task_id)
        );
        assert!(tasks.cancel(bob, &task.task_id).is_err());
        let found = tasks.get(alice, &task.task_id).unwrap();
        assert_eq!(found.status(), rmcp::model::TaskStatus::Working);
        tasks.cancel(alice, &task.task_id).unwrap();
    }

    /// Progress goes to the request until the hand-off, then becomes the task's status.
    #[tokio::test]
    async fn progress_follows_the_call_into_its_task() {
        let tasks = Tasks::default();
        let relay = Arc::new(Relay::new(None));
        let owner = tasks.owner(&client("alice"));
        let reporter = relay.clone();
        let work: Work = Box::pin(async move {
            reporter.report(1.0, None, "read 1".to_owned()).await;
            std::future::pending().await
        });
        let task = tasks.hand_off(owner, work, &relay);
        for _ in 0..50 {
            let found = tasks.get(owner, &task.task_id).unwrap();
            if found.task.status_message.as_deref() == Some("read 1") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the status never said read 1");
    }
}

//! Approving destructive calls by asking the person (issue 28): a client that declares
//! elicitation is asked before `branch.delete` runs without `confirm`, through
//! `elicitation/create` (2025-11-25) or an `input_required` result it fulfils and retries
//! (2026-07-28, which the rmcp client does by itself); declining or dismissing keeps the
//! branch, accepting deletes it, on every surface. A client without the capability still
//! needs `confirm: true`. Over Streamable HTTP: `http::input_required_*`.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, ProtocolVersion,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, RoleClient};
use serde_json::{Value, json};

use crate::support::{self, text};

const PROJECT: &str = "acme/platform/api";
const BRANCH: &str = "fix/login-pipe";

/// A person behind an MCP client: answers each question as told, and remembers them.
#[derive(Clone)]
struct Person {
    /// Whether the client declares the elicitation capability at all.
    declares: bool,
    answer: Arc<Mutex<(ElicitationAction, Option<Value>)>>,
    asked: Arc<Mutex<Vec<(String, Value)>>>,
}

impl Person {
    fn new(declares: bool) -> Self {
        Self {
            declares,
            answer: Arc::new(Mutex::new((ElicitationAction::Decline, None))),
            asked: Arc::default(),
        }
    }

    fn will(&self, action: ElicitationAction, content: Option<Value>) {
        *self.answer.lock().unwrap() = (action, content);
    }

    fn questions(&self) -> Vec<(String, Value)> {
        self.asked.lock().unwrap().clone()
    }
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.declares {
            json!({"elicitation": {"form": {}}})
        } else {
            json!({})
        };
        ClientConfig::new(
            serde_json::from_value(capabilities).unwrap(),
            Implementation::new("elicitation-test", "1"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            panic!("a form is asked, not a URL: {request:?}");
        };
        self.asked
            .lock()
            .unwrap()
            .push((message, serde_json::to_value(requested_schema).unwrap()));
        let (action, content) = self.answer.lock().unwrap().clone();
        let mut result = ElicitResult::new(action);
        result.content = content;
        Ok(result)
    }
}

/// How a surface calls an action: the tool and its arguments.
fn call(surface: &str, id: &str, params: Value) -> CallToolRequestParams {
    let (domain, action) = id.split_once('.').unwrap();
    let (name, arguments) = match surface {
        "individual" => (format!("gitlab_{domain}_{action}"), params),
        "meta" => (
            format!("gitlab_{domain}"),
            json!({"action": action, "params": params}),
        ),
        _ => (
            "gitlab_execute_action".to_owned(),
            json!({"action": id, "params": params}),
        ),
    };
    CallToolRequestParams::new(name).with_arguments(arguments.as_object().unwrap().clone())
}

fn delete(surface: &str) -> CallToolRequestParams {
    call(
        surface,
        "branch.delete",
        json!({"project_id": PROJECT, "branch_name": BRANCH}),
    )
}

async fn branch_exists(client: &RunningService<RoleClient, Person>, surface: &str) -> bool {
    let read = call(
        surface,
        "branch.get",
        json!({"project_id": PROJECT, "branch_name": BRANCH}),
    );
    let result = client.call_tool(read).await.expect("branch.get answers");
    result.is_error != Some(true)
}

async fn run(
    client: &RunningService<RoleClient, Person>,
    request: CallToolRequestParams,
) -> CallToolResult {
    client.call_tool(request).await.expect("the call answers")
}

fn accepted() -> (ElicitationAction, Option<Value>) {
    (ElicitationAction::Accept, Some(json!({"confirm": true})))
}

/// Declining, dismissing and accepting with `false` keep the branch and say nothing was
/// done; accepting with `true` deletes it, on each surface, through the one dispatcher.
#[tokio::test]
async fn the_person_decides_on_every_surface() {
    for surface in ["individual", "meta", "dynamic"] {
        let person = Person::new(true);
        let client = support::client_as(person.clone(), &[("TOOL_SURFACE", surface)]).await;
        assert!(branch_exists(&client, surface).await, "{surface}: seeded");

        for (action, content, said) in [
            (ElicitationAction::Decline, None, "the user declined"),
            (ElicitationAction::Cancel, None, "dismissed the approval"),
            (
                ElicitationAction::Accept,
                Some(json!({"confirm": false})),
                "the user declined",
            ),
        ] {
            person.will(action.clone(), content);
            let result = run(&client, delete(surface)).await;
            let text = text(&result);
            assert_eq!(result.is_error, Some(false), "{surface} {action:?}: {text}");
            assert!(
                text.starts_with("Nothing was done") && text.contains(said),
                "{surface} {action:?}: {text}"
            );
            assert_eq!(
                result.structured_content.as_ref().unwrap()["message"],
                text.as_str(),
                "{surface}: the message is the structure"
            );
            assert!(
                branch_exists(&client, surface).await,
                "{surface} {action:?}: kept"
            );
        }

        let questions = person.questions();
        assert_eq!(questions.len(), 3, "{surface}: asked once per call");
        let (message, schema) = &questions[0];
        assert_eq!(
            message,
            &format!(
                "`branch.delete` is destructive (delete a branch) on project_id `{PROJECT}`, branch_name `{BRANCH}`, and may not be possible to undo. Approve it?"
            ),
            "{surface}"
        );
        assert_eq!(schema["required"], json!(["confirm"]), "{surface}");
        assert_eq!(
            schema["properties"]["confirm"]["type"], "boolean",
            "{surface}"
        );

        let (action, content) = accepted();
        person.will(action, content);
        let result = run(&client, delete(surface)).await;
        assert_eq!(result.is_error, Some(false), "{surface}: {}", text(&result));
        assert!(
            text(&result).contains("Deleted branch"),
            "{surface}: {}",
            text(&result)
        );
        assert!(!branch_exists(&client, surface).await, "{surface}: deleted");
        client.cancel().await.unwrap();
    }
}

/// `confirm: true` needs no question; a client without the capability is never asked and
/// still needs it.
#[tokio::test]
async fn confirm_still_approves_and_without_the_capability_is_needed() {
    let person = Person::new(false);
    let (action, content) = accepted();
    person.will(action, content);
    let client = support::client_as(person.clone(), &[("TOOL_SURFACE", "dynamic")]).await;
    let result = run(&client, delete("dynamic")).await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("`confirm: true`"),
        "{}",
        text(&result)
    );
    assert!(branch_exists(&client, "dynamic").await);
    assert!(person.questions().is_empty(), "never asked");
    client.cancel().await.unwrap();

    let person = Person::new(true);
    let client = support::client_as(person.clone(), &[("TOOL_SURFACE", "individual")]).await;
    let confirmed = call(
        "individual",
        "branch.delete",
        json!({"project_id": PROJECT, "branch_name": BRANCH, "confirm": true}),
    );
    let result = run(&client, confirmed).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert!(person.questions().is_empty(), "confirm: true asks no one");
    assert!(!branch_exists(&client, "individual").await);
    client.cancel().await.unwrap();
}

/// A 2026-07-28 client (no initialize; capabilities in every request's `_meta`) gets an
/// `input_required` result, asks the person and calls again with the answer: the rmcp
/// client does it by itself. Declined keeps the branch, accepted deletes it.
#[tokio::test]
async fn protocol_2026_asks_through_input_required() {
    let person = Person::new(true);
    let command = support::server_command(&[("TOOL_SURFACE", "meta")]);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let client = person
        .clone()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover succeeds");
    support::fitted(&client).await;

    let once = client
        .call_tool_once(delete("meta"))
        .await
        .expect("the first round answers");
    let rmcp::model::CallToolResponse::InputRequired(required) = once else {
        panic!("input_required expected: {once:?}");
    };
    let requests = serde_json::to_value(&required.input_requests).unwrap();
    assert_eq!(
        requests["confirm"]["method"], "elicitation/create",
        "{requests}"
    );
    assert!(
        requests["confirm"]["params"]["message"]
            .as_str()
            .unwrap()
            .contains(BRANCH),
        "{requests}"
    );
    assert!(branch_exists(&client, "meta").await, "asking does nothing");

    let result = run(&client, delete("meta")).await;
    assert!(
        text(&result).starts_with("Nothing was done"),
        "{}",
        text(&result)
    );
    assert!(branch_exists(&client, "meta").await);

    let (action, content) = accepted();
    person.will(action, content);
    let result = run(&client, delete("meta")).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert!(!branch_exists(&client, "meta").await);
    assert_eq!(person.questions().len(), 2, "asked on each call");
    client.cancel().await.unwrap();
}

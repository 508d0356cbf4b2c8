//! Shared helpers: the binary as an MCP server, an in-process sandbox, schema checks.

use std::sync::Arc;

use gitlab_mcp::dispatch::{Context, Dispatcher};
use gitlab_mcp::gitlab::{GitlabClient, Token};
use gitlab_mcp::policy::Policy;
use gitlab_mcp::sandbox::{self, Sandbox};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Map, Value};

pub const BINARY: &str = env!("CARGO_BIN_EXE_gitlab-mcp");

pub type Client = RunningService<RoleClient, ()>;

/// The binary serving MCP over stdio on its own sandbox, with extra environment.
pub async fn client(env: &[(&str, &str)]) -> Client {
    client_as((), env).await
}

/// The binary serving MCP over stdio on its own sandbox to a client answering as
/// `handler` does (elicitation, progress), on the initialize lifecycle.
pub async fn client_as<H: ClientHandler>(
    handler: H,
    env: &[(&str, &str)],
) -> RunningService<RoleClient, H> {
    let command = server_command(env);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the binary starts");
    let client = handler
        .serve(transport)
        .await
        .expect("the MCP handshake succeeds");
    if !env.contains(&("GITLAB_FIT_CATALOG", "false")) {
        fitted(&client).await;
    }
    client
}

/// The binary serving MCP over stdio on its own sandbox, with extra environment (and none
/// of the settings the test run's own environment may carry).
pub fn server_command(env: &[(&str, &str)]) -> tokio::process::Command {
    tokio::process::Command::new(BINARY).configure(|command| {
        command.args(["--sandbox", "serve"]);
        for name in [
            "TOOL_SURFACE",
            "META_TOOLS",
            "GITLAB_READ_ONLY",
            "GITLAB_SAFE_MODE",
            "GITLAB_YOLO_MODE",
            "GITLAB_EXCLUDE_ACTIONS",
            "GITLAB_MCP_EMBEDDED_RESOURCES",
            "CAPABILITY_SURFACE",
            "META_PARAM_SCHEMA",
            "GITLAB_FIT_CATALOG",
            "GITLAB_SANDBOX_EDITION",
            "GITLAB_SANDBOX_TOKEN",
            "GITLAB_SANDBOX_ADMIN",
        ] {
            command.env_remove(name);
        }
        for (name, value) in env {
            command.env(name, value);
        }
    })
}

/// Waits until the server has fitted its catalog to the sandbox (the catalog resource
/// then says what it learned), so that a test sees the fitted tools however loaded the
/// machine is: before that, requests are answered with the catalog as known unfitted.
pub async fn fitted<H: ClientHandler>(client: &RunningService<RoleClient, H>) {
    let started = std::time::Instant::now();
    loop {
        let manifest = client
            .read_resource(rmcp::model::ReadResourceRequestParams::new(
                "gitlab://tools",
            ))
            .await
            .expect("the catalog resource reads");
        if serde_json::to_string(&manifest)
            .unwrap()
            .contains("\\\"instance\\\"")
        {
            return;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "the catalog was not fitted to the sandbox"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The sandbox setting that runs `action`'s example: `--sandbox-admin` for an action only
/// administrators may call, alice as a regular user for every other
/// (`sandbox::example_needs_admin`).
pub fn example_user(action: &gitlab_mcp::catalog::Action) -> (&'static str, &'static str) {
    if sandbox::example_needs_admin(action) {
        ADMIN
    } else {
        ("GITLAB_SANDBOX_ADMIN", "false")
    }
}

/// `--sandbox-admin` as a client setting: the session's user, alice, is an administrator.
pub const ADMIN: (&str, &str) = ("GITLAB_SANDBOX_ADMIN", "true");

/// Asserts that none of `actions` is offered among `tools`: no individual tool, and no
/// action in its meta tool's enum.
pub fn assert_not_offered<'a>(
    surface: &str,
    tools: &[rmcp::model::Tool],
    actions: impl IntoIterator<Item = &'a gitlab_mcp::catalog::Action>,
) {
    let listed = serde_json::to_string(tools).unwrap();
    for action in actions {
        assert!(
            !listed.contains(&format!("\"{}\"", action.tool_name())),
            "{surface}: {} listed",
            action.id
        );
        if surface == "meta"
            && let Some(tool) = tools
                .iter()
                .find(|t| t.name == format!("gitlab_{}", action.domain))
        {
            let names = &tool.input_schema["properties"]["action"]["enum"];
            assert!(
                !names
                    .as_array()
                    .is_some_and(|names| names.contains(&Value::from(action.name))),
                "meta: {} in the enum",
                action.id
            );
        }
    }
}

/// A dispatcher talking to an in-process sandbox.
pub async fn dispatcher(policy: Policy) -> (Dispatcher, Sandbox) {
    dispatcher_with_token(policy, sandbox::TOKEN).await
}

/// A dispatcher as alice on a sandbox where she is an administrator (`--sandbox-admin`).
pub async fn admin_dispatcher(policy: Policy) -> (Dispatcher, Sandbox) {
    let (dispatcher, sandbox) = dispatcher(policy).await;
    sandbox.make_token_user_admin();
    (dispatcher, sandbox)
}

pub async fn dispatcher_with_token(policy: Policy, token: &str) -> (Dispatcher, Sandbox) {
    let sandbox = Sandbox::start_local().await.expect("the sandbox starts");
    let client = GitlabClient::new(sandbox.url(), Some(Token::new(token)));
    (
        Dispatcher::new(Context::new(client), Arc::new(policy)),
        sandbox,
    )
}

pub fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("arguments are an object")
}

/// Fails with every violation when `instance` does not validate against `schema`.
pub fn assert_valid(schema: &Value, instance: &Value, what: &str) {
    let validator =
        jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{what}: invalid schema: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what}: structuredContent does not match outputSchema:\n{}\n{}",
        errors.join("\n"),
        instance
    );
}

/// The text of a tool result's first content block.
pub fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .find_map(|c| c.as_text().map(|t| t.text.clone()))
        .unwrap_or_default()
}

/// The TLS crypto provider, for test servers built on rustls.
pub fn install_crypto() {
    gitlab_mcp::tls::install_crypto_provider();
}

/// A client that keeps every progress notification it is sent.
#[derive(Clone, Default)]
pub struct Listener {
    pub heard: Arc<std::sync::Mutex<Vec<rmcp::model::ProgressNotificationParam>>>,
}

impl ClientHandler for Listener {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.heard.lock().unwrap().push(params);
    }
}

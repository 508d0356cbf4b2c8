//! The MCP server glue: the only module that implements rmcp's `ServerHandler`.
//!
//! It turns `tools/list` into the surface's tools, `tools/call` into a `Route` for the
//! dispatcher, an `Outcome` into a `CallToolResult` (Markdown text with its annotation,
//! `structuredContent`, the resource link, `isError`), and serves the catalog and entity
//! resources, the workflow prompts (`prompts.rs`) and completions (`complete.rs`). GitLab
//! failures are always tool results, never JSON-RPC errors.
//!
//! Over stdio every request runs with the process's dispatcher, and no request waits for
//! fitting longer than `fit::GRACE` (the dynamic surface's `tools/list` not at all): until
//! fitting has finished a request is answered with what is known, and a client that was
//! shown tools fitting changed gets `notifications/tools/list_changed` (on a
//! `subscriptions/listen` stream for 2026-07-28 clients). Over Streamable HTTP each
//! request runs with its own caller's credentials and sees the catalog fitted to them
//! (`views.rs`).

use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use rmcp::model::{
    Annotations, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock, CreateTaskResult,
    ElicitRequestParams, EmbeddedResource, ErrorCode, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, GetTaskParams, GetTaskResult, Implementation, InputRequest,
    InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken, Prompt,
    PromptArgument, PromptMessage, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Reference, Resource, ResourceContents,
    ResourceTemplate, Role, ServerCapabilities, ServerConfig, SubscriptionFilter, TextContent,
    Tool, UpdateTaskParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler};
use serde_json::Value;

use crate::approval::{self, Answer, Approval, Asker};
use crate::call::Progress;
use crate::catalog::ContentKind;
use crate::dispatch::{Context, Dispatcher, Outcome};
use crate::gitlab::GitlabClient;
use crate::resources::{self, CapabilitySurface, EntityTemplate, Target};
use crate::surfaces::{Route, Surface, SurfaceKind};
use crate::tasks::{Owner, Relay, Tasks};
use crate::views::{Current, View, Views};
use crate::vocabulary::Vocabulary;

/// The largest JSON-RPC message accepted on stdio by default: far above any real call
/// (GitLab's own limit for a comment is 1,000,000 characters), far below what would hurt.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// The MCP server. Everything shared between requests is immutable catalog data (the
/// views); whose credentials a request runs with, and which view it sees, is `Access`.
#[derive(Clone)]
pub struct GitlabServer {
    inner: Arc<Inner>,
}

struct Inner {
    access: Access,
    kind: SurfaceKind,
    capability: CapabilitySurface,
    /// Repair sentences name what this client can call: only the dynamic surface has a
    /// search tool.
    vocabulary: Vocabulary,
    /// A client on the initialize lifecycle that listed tools, to tell when they change
    /// (2026-07-28 clients subscribe with `subscriptions/listen` instead).
    listener: OnceLock<Peer<RoleServer>>,
    /// Whether the transport writes a `tools/list` answer's tools from their JSON text
    /// (`wire::LISTING_KEY`): the stdio wire does, rmcp's HTTP transport does not.
    lists_from_text: std::sync::atomic::AtomicBool,
    /// Recent `completion/complete` answers, per token.
    completions: crate::complete::Completions,
    /// Calls that outlived their request (`tasks.rs`).
    tasks: Tasks,
}

/// Whose credentials a request runs with.
enum Access {
    /// stdio: the process's one dispatcher, with the token of the user who started it,
    /// and the view its policy gives: what is known until fitting has finished, then the
    /// fitted one.
    Fixed {
        dispatcher: Dispatcher,
        current: Current,
    },
    /// Streamable HTTP: each request brings its `Caller` (attached by `http::gate`) and
    /// gets a dispatcher of its own, with the view fitted to its token (`Views`). A
    /// request without a caller is refused; nothing of one caller is used for another.
    PerRequest { result_budget: usize, views: Views },
}

/// What the HTTP layer attaches to a request: the caller's own GitLab client (their token,
/// and the instance they named, on the server's connection pool).
#[derive(Clone)]
pub struct Caller {
    pub gitlab: GitlabClient,
}

/// What one request runs with: its dispatcher, and the view of the catalog it is offered.
struct Serving {
    dispatcher: Dispatcher,
    view: Arc<View>,
}

impl GitlabServer {
    /// A server whose every request runs with `dispatcher` (stdio). `surface` lists what
    /// the dispatcher runs: it is built on the dispatcher's policy.
    pub fn new(dispatcher: Dispatcher, surface: Surface, capability: CapabilitySurface) -> Self {
        let kind = surface.kind;
        let vocabulary = vocabulary(kind);
        let dispatcher = dispatcher.speaking(vocabulary);
        let current = Current::new(surface, dispatcher.is_fitted());
        Self::with_access(
            Access::Fixed {
                dispatcher,
                current,
            },
            kind,
            capability,
        )
    }

    /// A server whose requests each carry their own `Caller` (Streamable HTTP), each seeing
    /// the view `views` gives its token.
    pub fn per_request(
        views: Views,
        result_budget: usize,
        kind: SurfaceKind,
        capability: CapabilitySurface,
    ) -> Self {
        Self::with_access(
            Access::PerRequest {
                result_budget,
                views,
            },
            kind,
            capability,
        )
    }

    fn with_access(access: Access, kind: SurfaceKind, capability: CapabilitySurface) -> Self {
        Self {
            inner: Arc::new(Inner {
                access,
                kind,
                capability,
                vocabulary: vocabulary(kind),
                listener: OnceLock::new(),
                lists_from_text: std::sync::atomic::AtomicBool::new(false),
                completions: crate::complete::Completions::default(),
                tasks: Tasks::default(),
            }),
        }
    }

    /// Fits the catalog in the background, then builds the search index of the dynamic
    /// surface off the async runtime, so that the first `gitlab_find_action` does not pay
    /// for it (at 1,000 actions building it takes longer than a search); the individual
    /// surface's schemas are parsed the same way, and every surface's tools are written
    /// out once fitted, so that its first `tools/list` only sends them. A find that
    /// arrives first builds it itself; the index is built once either way. Over HTTP (one
    /// view per token) it only reads the catalog's texts, which every token's index shares.
    /// Nothing waits for this: the process may exit at any point of it.
    pub async fn prepare(&self) {
        // Reading the catalog's texts for search does not depend on the instance: it runs
        // while fitting waits for GitLab, and the index after it only assembles.
        let reading = (self.inner.kind == SurfaceKind::Dynamic)
            .then(|| crate::background::spawn_yielding(crate::search::Prepared::built_in));
        // Likewise the individual surface's thousand schemas, which fitting only filters,
        // unless its tools are listed as text (stdio) and nothing else needs them parsed.
        let parsing = (self.inner.kind == SurfaceKind::Individual).then(|| {
            tokio::task::spawn_blocking(if self.lists_from_text() {
                crate::surfaces::warm_individual_listing
            } else {
                crate::surfaces::warm_individual
            })
        });
        if let Access::Fixed {
            dispatcher,
            current,
        } = &self.inner.access
        {
            dispatcher.fitted().await;
            self.settle().await;
            // The text the first `tools/list` sends, written before it is asked for.
            if self.lists_from_text() {
                let view = current.view();
                let _ = tokio::task::spawn_blocking(move || view.surface().listing().len()).await;
            }
        }
        if let Some(reading) = reading {
            let _ = reading.await;
        }
        if let Some(parsing) = parsing {
            let _ = parsing.await;
        }
        if let (Access::Fixed { current, .. }, SurfaceKind::Dynamic) =
            (&self.inner.access, self.inner.kind)
        {
            let view = current.view();
            let _ = tokio::task::spawn_blocking(move || {
                view.index();
                crate::memory::release_freed();
            })
            .await;
        }
    }

    /// Once fitting has finished, offers the fitted view; a client on the initialize
    /// lifecycle that was shown tools which changed is told so. Whoever sees fitting
    /// finished first does it (once).
    async fn settle(&self) {
        let Access::Fixed {
            dispatcher,
            current,
        } = &self.inner.access
        else {
            return;
        };
        if !dispatcher.is_fitted() || !current.settle() {
            return;
        }
        if let Some(peer) = self.inner.listener.get() {
            tracing::info!("the tools changed with fitting; telling the client");
            // Before the answer of the request that noticed it.
            if let Err(error) = peer.notify_tool_list_changed().await {
                tracing::debug!(%error, "could not send notifications/tools/list_changed");
            }
        }
    }

    fn lists_from_text(&self) -> bool {
        self.inner
            .lists_from_text
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether tools fitting may change are listed: over stdio, on the meta and individual
    /// surfaces, with fitting on.
    fn tools_may_change(&self) -> bool {
        self.inner.kind != SurfaceKind::Dynamic
            && matches!(&self.inner.access, Access::Fixed { current, .. } if current.may_change())
    }

    /// The dispatcher and view this request runs with: the process's, or those of the
    /// request's own caller, waiting for fitting as `wait` says, then taking what is known.
    /// Over HTTP a request without a caller is refused, never run with another request's
    /// credentials.
    async fn serving(
        &self,
        context: &RequestContext<RoleServer>,
        wait: Wait,
    ) -> Result<Serving, McpError> {
        match &self.inner.access {
            Access::Fixed {
                dispatcher,
                current,
            } => {
                if wait == Wait::Grace {
                    dispatcher.fitted_within(crate::fit::GRACE).await;
                }
                self.settle().await;
                Ok(Serving {
                    dispatcher: dispatcher.clone(),
                    view: current.view(),
                })
            }
            Access::PerRequest {
                result_budget,
                views,
            } => {
                let gitlab = &Self::caller(context)?.gitlab;
                let grace = match wait {
                    Wait::Never => std::time::Duration::ZERO,
                    Wait::Call | Wait::Grace => crate::fit::GRACE,
                };
                let view = views.of(gitlab, grace).await;
                let context = Context::new(gitlab.clone()).with_result_budget(*result_budget);
                let dispatcher =
                    Dispatcher::new(context, view.policy().clone()).speaking(self.inner.vocabulary);
                Ok(Serving { dispatcher, view })
            }
        }
    }

    /// Runs `work` so that every log line it writes is scrubbed of this request's token
    /// too (over stdio the token is registered for the whole process at start).
    /// The caller a Streamable HTTP request carries (attached by `http::gate`).
    fn caller(context: &RequestContext<RoleServer>) -> Result<&Caller, McpError> {
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>())
            .ok_or_else(|| {
                McpError::invalid_request("This request carries no GitLab credentials.", None)
            })
    }

    /// Whose tasks this request may see: those started with its credentials.
    fn task_owner(&self, context: &RequestContext<RoleServer>) -> Result<Owner, McpError> {
        let gitlab = match &self.inner.access {
            Access::Fixed { dispatcher, .. } => dispatcher.context().gitlab(),
            Access::PerRequest { .. } => &Self::caller(context)?.gitlab,
        };
        Ok(self.inner.tasks.owner(gitlab))
    }

    async fn scoped<T>(&self, dispatcher: &Dispatcher, work: impl Future<Output = T>) -> T {
        match &self.inner.access {
            Access::Fixed { .. } => work.await,
            Access::PerRequest { .. } => {
                let redactor = dispatcher.context().gitlab().shared_redactor();
                crate::redact::scoped(redactor, work).await
            }
        }
    }

    /// Answers one tool call with this request's dispatcher and view. Neither waits for
    /// fitting longer than `fit::GRACE`: a call is then judged by what is known (GitLab
    /// refuses what the token cannot do), and a find searches the catalog before fitting.
    async fn call(
        &self,
        serving: &Serving,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Option<Outcome> {
        Some(match serving.view.surface().route(tool, arguments)? {
            Route::Execute {
                action,
                args,
                confirm,
            } => serving.dispatcher.call(&action, args, confirm).await,
            Route::Find(request) => {
                let view = match &self.inner.access {
                    Access::Fixed { current, .. } if !serving.dispatcher.is_fitted() => {
                        serving.dispatcher.fitted_within(crate::fit::GRACE).await;
                        self.settle().await;
                        current.view()
                    }
                    _ => serving.view.clone(),
                };
                crate::surfaces::find(view.index(), &request)
            }
            Route::Repair(message) => Outcome::error(message),
        })
    }

    /// How a destructive call of this request can be approved: by asking the person when
    /// the client declares form elicitation; on 2026-07-28 by an `input_required` result
    /// (or with the answer its retry carries), before that by `elicitation/create`, which
    /// only a stdio connection can carry (over HTTP each POST is answered on its own).
    fn approval(
        &self,
        context: &RequestContext<RoleServer>,
        responses: Option<&rmcp::model::InputResponses>,
    ) -> Approval {
        let elicits = context
            .client_capabilities()
            .and_then(|capabilities| capabilities.elicitation)
            .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none());
        if !elicits {
            return Approval::Flag;
        }
        if !is_legacy(context) {
            return match responses.and_then(|r| r.get(approval::FIELD)) {
                Some(answer) => Approval::Answered(approval::answer_of(answer)),
                None => Approval::Defer,
            };
        }
        match &self.inner.access {
            Access::Fixed { .. } => Approval::Ask(Arc::new(PeerAsker(context.peer.clone()))),
            Access::PerRequest { .. } => Approval::Flag,
        }
    }

    fn instructions(&self) -> String {
        let common = "Projects are named by full path (`group/sub/project`) or numeric id. Results end with next steps that name action ids (`merge_request.get`). Destructive actions need `confirm: true`, and only after the user approves.";
        let how = match self.inner.kind {
            SurfaceKind::Dynamic => {
                "Call `gitlab_find_action` with the task in plain words: it returns matching action ids with their exact parameters and an example. Then call `gitlab_execute_action` with `action` and `params`."
            }
            SurfaceKind::Meta => {
                "Each tool covers one GitLab domain: call it with `{\"action\": ..., \"params\": {...}}`. A domain's actions with their titles are in resource `gitlab://tools/<domain>`, an action's parameters in `gitlab://tools/<domain>.<action>`."
            }
            SurfaceKind::Individual => {
                "Each tool is one GitLab action: action `merge_request.list` is tool `gitlab_merge_request_list`."
            }
        };
        format!("GitLab over MCP. {how} {common}")
    }
}

/// How long a request waits for fitting before it is answered with what is known.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// Not at all: the dynamic surface's two tools do not depend on fitting.
    Never,
    /// A tool call: over stdio the dispatcher waits itself (at most `fit::GRACE`).
    Call,
    /// At most `fit::GRACE`.
    Grace,
}

fn vocabulary(kind: SurfaceKind) -> Vocabulary {
    match kind {
        SurfaceKind::Dynamic => Vocabulary::MCP_DYNAMIC,
        SurfaceKind::Meta | SurfaceKind::Individual => Vocabulary::MCP_LISTED,
    }
}

/// Asks the person through the client's `elicitation/create` and waits for the answer.
struct PeerAsker(Peer<RoleServer>);

impl Asker for PeerAsker {
    fn ask(&self, message: String) -> Pin<Box<dyn Future<Output = Option<Answer>> + Send + '_>> {
        Box::pin(async move {
            let params: ElicitRequestParams =
                serde_json::from_value(approval::form(&message)).ok()?;
            match self.0.create_elicitation(params).await {
                Ok(result) => Some(approval::answer_of(&serde_json::to_value(result).ok()?)),
                Err(error) => {
                    tracing::info!(%error, "the client could not ask the user: confirm: true is needed");
                    None
                }
            }
        })
    }
}

/// Sends a call's progress to the client that asked for it with a progress token.
struct PeerProgress {
    peer: Peer<RoleServer>,
    token: ProgressToken,
}

impl PeerProgress {
    /// Progress to the request's client, when it sent a progress token.
    fn of(context: &RequestContext<RoleServer>) -> Option<Arc<dyn Progress>> {
        let token = context.meta.get_progress_token()?;
        Some(Arc::new(PeerProgress {
            peer: context.peer.clone(),
            token,
        }))
    }
}

impl Progress for PeerProgress {
    fn report(
        &self,
        progress: f64,
        total: Option<f64>,
        message: String,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            let mut params =
                ProgressNotificationParam::new(self.token.clone(), progress).with_message(message);
            params.total = total;
            if let Err(error) = self.peer.notify_progress(params).await {
                tracing::debug!(%error, "could not send notifications/progress");
            }
        })
    }
}

/// The 2026-07-28 answer that has the client ask the person `question` (a form with one
/// boolean, `confirm`) and call again with the answer.
fn input_required(question: &str) -> Result<InputRequiredResult, McpError> {
    let request: InputRequest = serde_json::from_value(serde_json::json!({
        "method": "elicitation/create",
        "params": approval::form(question),
    }))
    .map_err(|error| McpError::internal_error(format!("elicitation request: {error}"), None))?;
    Ok(InputRequiredResult::from_input_requests(
        [(approval::FIELD.to_owned(), request)].into(),
    ))
}

/// The MCP result for an outcome: Markdown with its annotation, the structure, the link.
pub fn call_result(outcome: &Outcome) -> CallToolResult {
    let priority = match outcome.kind {
        Some(ContentKind::List) => 0.4,
        Some(ContentKind::Detail) => 0.6,
        Some(ContentKind::Mutation) => 0.8,
        None => 1.0,
    };
    let annotations = Annotations::default()
        .with_audience(vec![Role::Assistant])
        .with_priority(priority);
    let mut content = vec![ContentBlock::Text(
        TextContent::new(outcome.text.clone()).with_annotations(annotations),
    )];
    if let Some(resource) = &outcome.resource {
        content.push(match &resource.embedded {
            Some(json) => ContentBlock::Resource(EmbeddedResource::new(
                ResourceContents::text(json.clone(), resource.uri.clone())
                    .with_mime_type("application/json"),
            )),
            None => ContentBlock::resource_link(
                Resource::new(resource.uri.clone(), resource.name.clone())
                    .with_mime_type("application/json"),
            ),
        });
    }
    let mut result = if outcome.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = outcome.structured.clone().map(Value::Object);
    result
}

impl ServerHandler for GitlabServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools();
        let capabilities = if self.tools_may_change() {
            capabilities.enable_tool_list_changed()
        } else {
            capabilities
        };
        ServerConfig::new(
            capabilities
                .enable_resources()
                .enable_prompts()
                .enable_completions()
                .enable_tasks()
                .build(),
        )
        .with_server_info(server_info())
        .with_instructions(self.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let view = match &self.inner.access {
            Access::Fixed {
                dispatcher,
                current,
            } => {
                // The dynamic surface's two tools do not depend on fitting: never wait.
                if self.inner.kind != SurfaceKind::Dynamic {
                    dispatcher.fitted_within(crate::fit::GRACE).await;
                }
                self.settle().await;
                // Known before the list is marked shown, so that fitting finishing in
                // between still finds whom to tell.
                if current.may_change() && is_legacy(&context) {
                    let _ = self.inner.listener.set(context.peer.clone());
                }
                current.listed()
            }
            Access::PerRequest { .. } => {
                let wait = if self.inner.kind == SurfaceKind::Dynamic {
                    Wait::Never
                } else {
                    Wait::Grace
                };
                self.serving(&context, wait).await?.view
            }
        };
        let tools = if self.lists_from_text() {
            let mut tools = ListToolsResult::with_all_items(Vec::new());
            let listing = Value::String(view.surface().listing().to_owned());
            let mut meta = rmcp::model::MetaObject::new();
            meta.0.insert(crate::wire::LISTING_KEY.to_owned(), listing);
            tools.meta = Some(meta);
            tools
        } else {
            ListToolsResult::with_all_items(view.surface().tools().to_vec())
        };
        // Fixed for this token once fitted; the dynamic surface's two tools always are.
        let fixed = self.inner.kind == SurfaceKind::Dynamic
            || matches!(&self.inner.access, Access::Fixed { dispatcher, .. } if dispatcher.is_fitted());
        Ok(if fixed {
            tools
                .with_ttl_ms(TOOLS_TTL_MS)
                .with_cache_scope(rmcp::model::CacheScope::Private)
        } else {
            tools
        })
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        match &self.inner.access {
            Access::Fixed { current, .. } => current.view().surface().tool(name).cloned(),
            // Only for checking `Mcp-Param-*` headers against the tool's input schema, which
            // fitting does not change; whether the caller may call it is decided with their
            // own view.
            Access::PerRequest { views, .. } => views.full().surface().tool(name).cloned(),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let approval = self.approval(&context, request.input_responses.as_ref());
        let arguments = request.arguments.unwrap_or_default();
        let relay = Arc::new(Relay::new(PeerProgress::of(&context)));
        // Owned, so that the call can go on as a task after its request has been answered.
        let work = {
            let (this, context, relay) = (self.clone(), context.clone(), relay.clone());
            let name = request.name.to_string();
            async move {
                let mut serving = this.serving(&context, Wait::Call).await?;
                serving.dispatcher = serving
                    .dispatcher
                    .with_approval(approval)
                    .with_progress(relay);
                let outcome = this
                    .scoped(&serving.dispatcher, this.call(&serving, &name, arguments))
                    .await;
                match outcome {
                    Some(outcome) => Ok(outcome),
                    None => Err(McpError::invalid_params(
                        format!("Unknown tool: {name}"),
                        None,
                    )),
                }
            }
        };
        let mut work = Box::pin(work);
        let tasks_declared = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        let handoff = async {
            match tasks_declared {
                true => tokio::time::sleep(crate::tasks::HANDOFF).await,
                false => std::future::pending().await,
            }
        };
        // `notifications/cancelled` fires the token; dropping the call drops its GitLab
        // request, which closes the connection.
        let outcome = tokio::select! {
            outcome = &mut work => outcome?,
            () = context.ct.cancelled() => {
                tracing::info!(tool = %request.name, "call cancelled by the client");
                return Err(McpError::new(ErrorCode(-32800), "Request cancelled", None));
            }
            () = handoff => {
                let owner = self.task_owner(&context)?;
                let rest: crate::tasks::Work = Box::pin(async move {
                    // A 2026-07-28 confirmation question comes at once, before GitLab is
                    // asked anything; were one to come later, the task ends with the
                    // refusal that says nothing was done. Over stdio the person's answer
                    // to `elicitation/create` is simply awaited.
                    work.await.map(|outcome| call_result(&outcome))
                });
                let task = self.inner.tasks.hand_off(owner, rest, &relay);
                tracing::info!(tool = %request.name, task = %task.task_id, "call goes on as a task");
                return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
            }
        };
        match outcome {
            Outcome {
                question: Some(question),
                ..
            } => Ok(input_required(&question)?.into()),
            outcome => Ok(call_result(&outcome).into()),
        }
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let owner = self.task_owner(&context)?;
        Ok(GetTaskResult::new(
            self.inner.tasks.get(owner, &request.task_id)?,
        ))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let owner = self.task_owner(&context)?;
        self.inner
            .tasks
            .update(owner, &request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let owner = self.task_owner(&context)?;
        self.inner.tasks.cancel(owner, &request.task_id)
    }

    /// 2026-07-28 clients ask for `notifications/tools/list_changed` on a
    /// `subscriptions/listen` stream; granted where the tools may change.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        if requested.tools_list_changed == Some(true) && self.tools_may_change() {
            accepted.tools_list_changed = Some(true);
        }
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        if let Access::Fixed { current, .. } = &self.inner.access
            && context.accepted().tools_list_changed == Some(true)
        {
            tokio::select! {
                changed = current.settled() => {
                    if changed {
                        let _ = context.sink().notify_tool_list_changed().await;
                    }
                }
                () = context.cancelled() => return Ok(()),
            }
        }
        context.cancelled().await;
        Ok(())
    }

    /// The workflow prompts this instance offers (`prompts/*.yaml`): those whose first
    /// action the caller's view offers.
    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let serving = self.serving(&context, Wait::Grace).await?;
        let prompts = crate::prompts::all()
            .iter()
            .filter(|prompt| crate::prompts::offered(prompt, serving.view.policy()))
            .map(mcp_prompt)
            .collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    /// Gathers a prompt's material through the dispatcher, as tool calls would, and
    /// renders it within its budget; the client's cancellation stops it.
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let mut serving = self.serving(&context, Wait::Grace).await?;
        // A prompt runs several reads: a client that sent a progress token hears of each.
        if let Some(progress) = PeerProgress::of(&context) {
            serving.dispatcher = serving.dispatcher.with_progress(progress);
        }
        let prompt = crate::prompts::find(&request.name)
            .filter(|prompt| crate::prompts::offered(prompt, serving.view.policy()))
            .ok_or_else(|| {
                McpError::invalid_params(format!("Unknown prompt: {}", request.name), None)
            })?;
        let arguments: serde_json::Map<String, Value> =
            request.arguments.unwrap_or_default().into_iter().collect();
        let work = self.scoped(
            &serving.dispatcher,
            crate::prompts::render(&serving.dispatcher, prompt, &arguments),
        );
        let rendered = tokio::select! {
            rendered = work => rendered,
            () = context.ct.cancelled() => {
                tracing::info!(prompt = %request.name, "prompt cancelled by the client");
                return Err(McpError::new(ErrorCode(-32800), "Request cancelled", None));
            }
        };
        match rendered {
            Ok(rendered) => Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                rendered.text,
            )])
            .with_description(prompt.description.clone())
            .into()),
            Err(error @ crate::prompts::PromptError::Arguments(_)) => {
                Err(McpError::invalid_params(error.to_string(), None))
            }
            Err(error) => Err(McpError::internal_error(error.to_string(), None)),
        }
    }

    /// Values for a prompt's argument (as its YAML declares) or a resource template's
    /// parameter (by its name): at most ten, one GitLab call, kept briefly per token.
    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let serving = self.serving(&context, Wait::Grace).await?;
        let name = &request.argument.name;
        let (kind, titled) = match &request.r#ref {
            Reference::Prompt(reference) => {
                let prompt = crate::prompts::find(&reference.name)
                    .filter(|prompt| crate::prompts::offered(prompt, serving.view.policy()))
                    .ok_or_else(|| {
                        McpError::invalid_params(
                            format!("Unknown prompt: {}", reference.name),
                            None,
                        )
                    })?;
                let argument = prompt.arguments.iter().find(|a| a.name == *name);
                (argument.and_then(|a| a.complete), true)
            }
            Reference::Resource(reference) if reference.uri == resources::ACTION_TEMPLATE => {
                let values =
                    crate::complete::action_ids(serving.view.policy(), &request.argument.value);
                return Ok(completed(values));
            }
            Reference::Resource(reference) => {
                let offered = self.inner.capability == CapabilitySurface::Full
                    && serving
                        .view
                        .templates()
                        .iter()
                        .any(|t| t.uri == reference.uri);
                if !offered {
                    return Err(McpError::invalid_params(
                        format!("No resource template {} on this server.", reference.uri),
                        None,
                    ));
                }
                (crate::complete::parameter_kind(name), false)
            }
            // A kind of reference this version does not know: nothing to offer.
            _ => (None, false),
        };
        let Some(kind) = kind else {
            return Ok(completed(crate::complete::Values::default()));
        };
        let chosen = request
            .context
            .and_then(|c| c.arguments)
            .unwrap_or_default();
        let values = self
            .scoped(
                &serving.dispatcher,
                self.inner.completions.complete(
                    &serving.dispatcher,
                    kind,
                    &request.argument.value,
                    &chosen,
                    titled,
                ),
            )
            .await;
        Ok(completed(values))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let manifest = Resource::new(resources::MANIFEST_URI, "tools")
            .with_title("GitLab actions on this server")
            .with_description("The visible tools and every action id this server can execute.")
            .with_mime_type("application/json");
        Ok(ListResourcesResult::with_all_items(vec![manifest]))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let serving = self.serving(&context, Wait::Grace).await?;
        let mut templates = vec![
            ResourceTemplate::new(resources::ACTION_TEMPLATE, "action")
                .with_title("One GitLab action")
                .with_description(
                    "How to call one action on this surface, with its input and output schema.",
                )
                .with_mime_type("application/json"),
        ];
        if self.inner.capability == CapabilitySurface::Full {
            for template in serving.view.templates() {
                templates.push(
                    ResourceTemplate::new(template.uri, template.action.id)
                        .with_title(resources::template_title(template))
                        .with_description(format!("Read with `{}`.", template.action.id))
                        .with_mime_type("application/json"),
                );
            }
        }
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let Serving { dispatcher, view } = self.serving(&context, Wait::Grace).await?;
        let uri = request.uri;
        let templates: &[EntityTemplate] = if self.inner.capability == CapabilitySurface::Full {
            view.templates()
        } else {
            &[]
        };
        let text = match resources::parse(&uri, templates) {
            Some(Target::Manifest) => {
                resources::pretty(&resources::manifest(view.surface(), view.policy()))
            }
            Some(Target::Action(action)) if view.policy().allows(action) => {
                resources::pretty(&resources::action(view.surface(), action))
            }
            Some(Target::Domain(domain)) => {
                resources::pretty(&resources::domain(view.surface(), view.policy(), domain))
            }
            Some(Target::Entity { action, args }) => {
                let outcome = self
                    .scoped(&dispatcher, dispatcher.run(action, args, false))
                    .await;
                match (&outcome.structured, outcome.is_error) {
                    (Some(structured), false) => resources::entity_text(structured),
                    _ => {
                        return Err(McpError::resource_not_found(
                            format!("{uri}: {}", first_line(&outcome.text)),
                            None,
                        ));
                    }
                }
            }
            _ => {
                return Err(McpError::resource_not_found(
                    format!("No resource {uri} on this server."),
                    None,
                ));
            }
        };
        let contents = ResourceContents::text(text, uri).with_mime_type("application/json");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

/// Who this server is: name, title, description, icon and, once the package names one,
/// its website.
fn server_info() -> Implementation {
    let icons = serde_json::from_value(crate::surfaces::icons()).unwrap_or_default();
    let info = Implementation::new("gitlab-mcp", env!("CARGO_PKG_VERSION"))
        .with_title("GitLab MCP server")
        .with_description(env!("CARGO_PKG_DESCRIPTION"))
        .with_icons(icons);
    match env!("CARGO_PKG_REPOSITORY") {
        "" => info,
        website => info.with_website_url(website),
    }
}

/// How long a client may keep a tools/list whose tools are fixed for its token.
const TOOLS_TTL_MS: u64 = 5 * 60 * 1000;

/// The MCP answer for completed values.
fn completed(values: crate::complete::Values) -> CompleteResult {
    let mut info = CompletionInfo::new(values.values).unwrap_or_default();
    info.has_more = Some(values.has_more);
    CompleteResult::new(info)
}

/// A prompt as `prompts/list` shows it.
fn mcp_prompt(prompt: &crate::prompts::PromptDef) -> Prompt {
    let arguments = prompt
        .arguments
        .iter()
        .map(|argument| {
            PromptArgument::new(argument.name.clone())
                .with_description(argument.description.clone())
                .with_required(argument.required)
        })
        .collect();
    let mut listed = Prompt::new(
        prompt.name.clone(),
        Some(prompt.description.clone()),
        Some(arguments),
    );
    listed.title = Some(prompt.title.clone());
    listed
}

/// Whether the request comes from a client on the initialize lifecycle (before
/// 2026-07-28), to whom notifications go unasked.
fn is_legacy(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version() != Some(ProtocolVersion::V_2026_07_28)
}

fn first_line(text: &str) -> &str {
    text.lines()
        .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .unwrap_or(text)
}

/// The process's stop signals: Ctrl-C (SIGINT), and SIGTERM on Unix. A command that runs
/// until it is stopped listens for them as the first thing it does (`Stop::listen`) and
/// keeps this one listener for its whole life, so that no signal is lost during start-up:
/// until a listener exists a signal keeps the disposition the process inherited, and one
/// started from a script's background job inherits SIGINT ignored; and a listener made
/// later would miss a signal caught before it (tokio handles a signal from its first
/// listener on, and tells only the listeners that exist when it arrives).
pub struct Stop {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Stop {
    /// Listens for the stop signals from now on (inside the async runtime). A signal that
    /// cannot be listened for (the system refused) is warned about, and never arrives.
    pub fn listen() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let listen = |kind: SignalKind, name: &str| {
                signal(kind)
                    .inspect_err(|error| {
                        tracing::warn!(%error, "cannot listen for {name}: it will not stop the server");
                    })
                    .ok()
            };
            Self {
                interrupt: listen(SignalKind::interrupt(), "SIGINT (Ctrl-C)"),
                terminate: listen(SignalKind::terminate(), "SIGTERM"),
            }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// Resolves when the process is asked to stop (at once if it was asked already).
    pub async fn requested(&mut self) {
        #[cfg(unix)]
        {
            async fn next(signal: Option<&mut tokio::signal::unix::Signal>) {
                match signal {
                    Some(signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending().await,
                }
            }
            tokio::select! {
                () = next(self.interrupt.as_mut()) => {}
                () = next(self.terminate.as_mut()) => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// Serves MCP over stdio until stdin closes or a signal arrives, then exits the process
/// at once: a blocked stdin read, fitting waiting for GitLab or the search index being
/// built would otherwise hold the runtime open. Messages over `max_message_bytes` are
/// refused with an error reply (`wire.rs`).
pub async fn serve_stdio(
    server: GitlabServer,
    max_message_bytes: usize,
    mut stop: Stop,
) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let wire =
        crate::wire::GuardedWire::new(tokio::io::stdin(), tokio::io::stdout(), max_message_bytes);
    server
        .inner
        .lists_from_text
        .store(true, std::sync::atomic::Ordering::Relaxed);
    // Learn the instance and token while the client initializes (no request waits for it
    // longer than `fit::GRACE`), then build the search index before the first find.
    let early = server.clone();
    tokio::spawn(async move { early.prepare().await });
    let running = tokio::select! {
        running = server.serve(wire) => running.map_err(|error| {
            anyhow::anyhow!(
                "no MCP session ({error}): gitlab-mcp talks JSON-RPC with an MCP client over stdin and stdout, and the first message must be an `initialize` request. To try it by hand: `gitlab-mcp demo`; every command: `gitlab-mcp --help`."
            )
        })?,
        () = stop.requested() => {
            tracing::info!("stopping on signal");
            exit_now();
        }
    };
    tokio::select! {
        result = running.waiting() => {
            if let Err(error) = result {
                tracing::warn!(%error, "the MCP session ended with an error");
            }
        }
        () = stop.requested() => tracing::info!("stopping on signal"),
    }
    exit_now();
}

/// Ends the process now, whatever start-up work is still running (it holds nothing that
/// must be written). Every reply was written and flushed line by line (`wire.rs`).
fn exit_now() -> ! {
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    std::process::exit(0);
}

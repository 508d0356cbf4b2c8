//! The MCP server glue: the only module that implements rmcp's `ServerHandler`.
//!
//! It turns `tools/list` into the surface's tools, `tools/call` into a `Route` for the
//! dispatcher, an `Outcome` into a `CallToolResult` (Markdown text with its annotation,
//! `structuredContent`, the resource link, `isError`), and serves the catalog and entity
//! resources. GitLab failures are always tool results, never JSON-RPC errors.

use std::sync::{Arc, OnceLock};

use rmcp::model::{
    Annotations, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    EmbeddedResource, ErrorCode, Implementation, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role, ServerCapabilities,
    ServerConfig, TextContent, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use crate::catalog::ContentKind;
use crate::dispatch::{Dispatcher, Outcome};
use crate::resources::{self, CapabilitySurface, EntityTemplate, Target};
use crate::search::Index;
use crate::surfaces::{Route, Surface, SurfaceKind};
use crate::vocabulary::Vocabulary;

/// The largest JSON-RPC message accepted on stdio by default: far above any real call
/// (GitLab's own limit for a comment is 1,000,000 characters), far below what would hurt.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

#[derive(Clone)]
pub struct GitlabServer {
    inner: Arc<Inner>,
}

struct Inner {
    dispatcher: Dispatcher,
    surface: Surface,
    capability: CapabilitySurface,
    /// Built once the catalog is fitted, like the surface's tools and the search index.
    templates: OnceLock<Vec<EntityTemplate>>,
    index: OnceLock<Index>,
}

impl GitlabServer {
    pub fn new(dispatcher: Dispatcher, surface: Surface, capability: CapabilitySurface) -> Self {
        // Repair sentences name what this client can call: only the dynamic surface has a
        // search tool.
        let dispatcher = dispatcher.speaking(match surface.kind {
            SurfaceKind::Dynamic => Vocabulary::MCP_DYNAMIC,
            SurfaceKind::Meta | SurfaceKind::Individual => Vocabulary::MCP_LISTED,
        });
        Self {
            inner: Arc::new(Inner {
                dispatcher,
                surface,
                capability,
                templates: OnceLock::new(),
                index: OnceLock::new(),
            }),
        }
    }

    /// Waits until the catalog is fitted to the instance and token (at once when fitting is
    /// off or done); tools, search and resources are built from the fitted policy.
    pub async fn fitted(&self) {
        self.inner.dispatcher.fitted().await;
    }

    fn templates(&self) -> &[EntityTemplate] {
        self.inner
            .templates
            .get_or_init(|| resources::entity_templates(&self.inner.dispatcher))
    }

    pub fn surface(&self) -> &Surface {
        &self.inner.surface
    }

    pub fn dispatcher(&self) -> &Dispatcher {
        &self.inner.dispatcher
    }

    fn index(&self) -> &Index {
        self.inner
            .index
            .get_or_init(|| Index::new(self.inner.dispatcher.policy()))
    }

    /// Answers one tool call: the same path for the server and for `gitlab-mcp call`.
    pub async fn call(
        &self,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Option<Outcome> {
        self.fitted().await;
        Some(match self.inner.surface.route(tool, arguments)? {
            Route::Execute {
                action,
                args,
                confirm,
            } => self.inner.dispatcher.call(&action, args, confirm).await,
            Route::Find(request) => crate::surfaces::find(self.index(), &request),
            Route::Repair(message) => Outcome::error(message),
        })
    }

    fn instructions(&self) -> String {
        let common = "Projects are named by full path (`group/sub/project`) or numeric id. Results end with next steps that name action ids (`merge_request.get`). Destructive actions need `confirm: true`, and only after the user approves.";
        let how = match self.inner.surface.kind {
            SurfaceKind::Dynamic => {
                "Call `gitlab_find_action` with the task in plain words: it returns matching action ids with their exact parameters and an example. Then call `gitlab_execute_action` with `action` and `params`."
            }
            SurfaceKind::Meta => {
                "Each tool covers one GitLab domain: call it with `{\"action\": ..., \"params\": {...}}`. An action's parameters are in resource `gitlab://tools/<domain>.<action>`."
            }
            SurfaceKind::Individual => {
                "Each tool is one GitLab action: action `merge_request.list` is tool `gitlab_merge_request_list`."
            }
        };
        format!("GitLab over MCP. {how} {common}")
    }
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
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("gitlab-mcp", env!("CARGO_PKG_VERSION")))
        .with_instructions(self.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.fitted().await;
        Ok(ListToolsResult::with_all_items(
            self.inner.surface.tools().to_vec(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        // Before fitting has finished the tools are not final: build them, do not keep them.
        if self.inner.dispatcher.is_fitted() {
            self.inner.surface.tool(name).cloned()
        } else {
            self.inner
                .surface
                .build_tools()
                .into_iter()
                .find(|t| t.name == name)
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        // `notifications/cancelled` fires the token; dropping the call drops its GitLab
        // request, which closes the connection.
        let outcome = tokio::select! {
            outcome = self.call(&request.name, arguments) => outcome,
            () = context.ct.cancelled() => {
                tracing::info!(tool = %request.name, "call cancelled by the client");
                return Err(McpError::new(ErrorCode(-32800), "Request cancelled", None));
            }
        };
        match outcome {
            Some(outcome) => Ok(call_result(&outcome).into()),
            None => Err(McpError::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            )),
        }
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
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        self.fitted().await;
        let mut templates = vec![
            ResourceTemplate::new(resources::ACTION_TEMPLATE, "action")
                .with_title("One GitLab action")
                .with_description(
                    "How to call one action on this surface, with its input and output schema.",
                )
                .with_mime_type("application/json"),
        ];
        if self.inner.capability == CapabilitySurface::Full {
            for template in self.templates() {
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
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.fitted().await;
        let uri = request.uri;
        let templates: &[EntityTemplate] = if self.inner.capability == CapabilitySurface::Full {
            self.templates()
        } else {
            &[]
        };
        let text = match resources::parse(&uri, templates) {
            Some(Target::Manifest) => resources::pretty(&resources::manifest(
                &self.inner.surface,
                &self.inner.dispatcher,
            )),
            Some(Target::Action(action)) if self.inner.dispatcher.policy().allows(action) => {
                resources::pretty(&resources::action(&self.inner.surface, action))
            }
            Some(Target::Entity { action, args }) => {
                let outcome = self.inner.dispatcher.run(action, args, false).await;
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

fn first_line(text: &str) -> &str {
    text.lines()
        .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .unwrap_or(text)
}

/// Resolves when the process is asked to stop: Ctrl-C, or SIGTERM on Unix.
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}

/// Serves MCP over stdio until stdin closes or a signal arrives, then exits the process
/// at once (a blocked stdin read would otherwise hold the runtime open). Messages over
/// `max_message_bytes` are refused with an error reply (`wire.rs`).
pub async fn serve_stdio(server: GitlabServer, max_message_bytes: usize) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let wire =
        crate::wire::GuardedWire::new(tokio::io::stdin(), tokio::io::stdout(), max_message_bytes);
    // Learn the instance and token while the client initializes; requests that need the
    // fitted catalog wait for it.
    let early = server.clone();
    tokio::spawn(async move { early.fitted().await });
    let running = server.serve(wire).await.map_err(|error| {
        anyhow::anyhow!(
            "no MCP session ({error}): gitlab-mcp talks JSON-RPC with an MCP client over stdin and stdout, and the first message must be an `initialize` request. To try it by hand: `gitlab-mcp demo`; every command: `gitlab-mcp --help`."
        )
    })?;
    tokio::select! {
        result = running.waiting() => {
            if let Err(error) = result {
                tracing::warn!(%error, "the MCP session ended with an error");
            }
        }
        () = shutdown_signal() => tracing::info!("stopping on signal"),
    }
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    std::process::exit(0);
}

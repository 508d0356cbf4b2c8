//! `gitlab-mcp demo`: a short, real MCP session against the sandbox, printed for a person.
//!
//! It starts this same binary as an MCP server over stdio (`--sandbox serve`, on the
//! surface asked for, dynamic by default), connects as an MCP client, and walks through
//! what an assistant does: find an action, run it, follow the next steps, and meet the
//! safety rails. Each step names an action; `SurfaceKind::call` says how the surface calls it.

use std::process::{ExitCode, Stdio};

use anyhow::{Context, anyhow};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::catalog;
use crate::config::Options;
use crate::output::json::to_text;
use crate::resources::CapabilitySurface;
use crate::surfaces::{FIND_TOOL, SurfaceKind};

/// A setting's value as its environment variable takes it (the name clap parses).
fn setting(value: &impl clap::ValueEnum) -> String {
    value
        .to_possible_value()
        .map(|possible| possible.get_name().to_owned())
        .unwrap_or_default()
}

pub async fn run(options: &Options) -> anyhow::Result<ExitCode> {
    let surface = options.surface()?;
    let mut command = Command::new(std::env::current_exe()?);
    command
        .arg("--sandbox")
        .arg("serve")
        .env("TOOL_SURFACE", surface.name())
        .env("META_PARAM_SCHEMA", setting(&options.meta_param_schema))
        .env("CAPABILITY_SURFACE", setting(&options.capability_surface))
        .env_remove("GITLAB_TOKEN");
    let mut server = Server::spawn(command)?;

    let info = server
        .request(
            "initialize",
            json!({
                "protocolVersion": rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE,
                "capabilities": {},
                "clientInfo": {"name": "gitlab-mcp demo", "version": env!("CARGO_PKG_VERSION")},
            }),
        )
        .await?;
    server.notify("notifications/initialized").await?;
    section(&format!(
        "Connected to {} {} over stdio (MCP {}), talking to the embedded sandbox GitLab",
        text_at(&info, "/serverInfo/name"),
        text_at(&info, "/serverInfo/version"),
        text_at(&info, "/protocolVersion"),
    ))?;
    let tools = server.list_tools().await?;
    // Measured as BENCHMARKS.md measures it: the bytes of the JSON-RPC result,
    // `{"tools":[...]}`, so the figure here is the one in the README.
    let bytes = serde_json::to_vec(&json!({ "tools": tools }))?.len();
    say!(
        "tools/list: {} tools, {} bytes: {}",
        tools.len(),
        thousands(bytes),
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(", ")
    )?;

    if matches!(surface, SurfaceKind::Dynamic) {
        section("Find the action for a task, in plain words")?;
        let arguments = json!({"query": "show the open merge requests of a project", "limit": 3});
        call(&mut server, FIND_TOOL, &arguments).await?;
    } else {
        // Meta and individual tools have no search: their actions are read from the catalog.
        section("Look up a domain's actions in the catalog")?;
        read(&mut server, "gitlab://tools/merge_request").await?;
    }
    let steps: &[(&str, &str, Value)] = &[
        (
            "Run it",
            "merge_request.list",
            json!({"project_id": "acme/platform/api", "per_page": 5}),
        ),
        (
            "Open one merge request (note the resource link)",
            "merge_request.get",
            json!({"project": "acme/platform/api", "mr_iid": 56}),
        ),
        (
            "Is the default branch green?",
            "pipeline.latest",
            json!({"project_id": "acme/platform/api"}),
        ),
        (
            "Which jobs failed?",
            "job.list",
            json!({"project_id": "acme/platform/api", "pipeline_id": 9012, "scope": ["failed"]}),
        ),
        (
            "Why: the end of the failed job's log",
            "job.log",
            json!({"project_id": "acme/platform/api", "job_id": 70042, "lines": 12}),
        ),
        (
            "A destructive action without confirmation is refused",
            "branch.delete",
            json!({"project_id": "acme/platform/api", "branch_name": "fix/login-pipe"}),
        ),
        (
            "A typo in a parameter gets a repairable error",
            "issue.get",
            json!({"project_id": "acme/platform/api", "issue": 17, "colour": "red"}),
        ),
    ];
    for (title, action, params) in steps {
        section(title)?;
        let action = catalog::find(action).with_context(|| format!("no action {action}"))?;
        let (tool, arguments) = surface.call(action, params.clone());
        call(&mut server, &tool, &arguments).await?;
    }

    // With the minimal capability surface there are no entity resources to read.
    if matches!(options.capability_surface, CapabilitySurface::Full) {
        section("Read the merge request as a resource")?;
        read(&mut server, "gitlab://project/acme%2Fplatform%2Fapi/mr/56").await?;
    }
    server.close().await?;
    say!()?;
    Ok(ExitCode::SUCCESS)
}

/// Calls a tool and prints the call and its result.
async fn call(server: &mut Server, tool: &str, arguments: &Value) -> anyhow::Result<()> {
    say!("→ {tool} {}\n", to_text(arguments))?;
    let result = server
        .request("tools/call", json!({"name": tool, "arguments": arguments}))
        .await?;
    Ok(print_result(&result)?)
}

/// Reads a resource and prints the start of its text.
async fn read(server: &mut Server, uri: &str) -> anyhow::Result<()> {
    say!("→ resources/read {uri}\n")?;
    let resource = server
        .request("resources/read", json!({"uri": uri}))
        .await?;
    for contents in resource["contents"].as_array().into_iter().flatten() {
        if let Some(text) = contents["text"].as_str() {
            let shown: String = text.chars().take(300).collect();
            say!(
                "{} ({} bytes): {shown}…",
                text_at(contents, "/mimeType"),
                text.len()
            )?;
        }
    }
    Ok(())
}

/// The server under demonstration, spoken to as an MCP client speaks over stdio: one
/// JSON-RPC message per line. Written out here rather than through rmcp's client, whose
/// service loop and typed results, compiled into the product for this command alone,
/// were a sixteenth of the library's machine code (the tests' clients are rmcp's).
struct Server {
    child: Child,
    input: ChildStdin,
    output: Lines<BufReader<ChildStdout>>,
    next_id: u64,
}

impl Server {
    fn spawn(mut command: Command) -> anyhow::Result<Server> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let input = child.stdin.take().context("the server's stdin")?;
        let output = child.stdout.take().context("the server's stdout")?;
        Ok(Server {
            child,
            input,
            output: BufReader::new(output).lines(),
            next_id: 1,
        })
    }

    /// The result of one request; what else the server writes on the way is passed over.
    async fn request(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        loop {
            let line = self.output.next_line().await?.with_context(|| {
                format!("the server closed its output before answering {method}")
            })?;
            let mut message: Value = serde_json::from_str(&line)
                .with_context(|| format!("the server wrote a line that is not JSON: {line}"))?;
            // A notification, or a request of the server's own, whose ids are its own.
            if message["id"] != json!(id) || message.get("method").is_some() {
                continue;
            }
            if let Some(error) = message.get("error") {
                return Err(anyhow!("{method}: {}", to_text(error)));
            }
            return Ok(message["result"].take());
        }
    }

    async fn notify(&mut self, method: &str) -> anyhow::Result<()> {
        self.send(json!({"jsonrpc": "2.0", "method": method})).await
    }

    /// Every tool, following `nextCursor` as a client does.
    async fn list_tools(&mut self) -> anyhow::Result<Vec<Value>> {
        let mut tools = Vec::new();
        let mut params = json!({});
        loop {
            let mut page = self.request("tools/list", params).await?;
            if let Value::Array(more) = page["tools"].take() {
                tools.extend(more);
            }
            match page.get("nextCursor") {
                Some(Value::String(cursor)) => params = json!({"cursor": cursor}),
                _ => return Ok(tools),
            }
        }
    }

    async fn send(&mut self, message: Value) -> anyhow::Result<()> {
        let mut line = serde_json::to_vec(&message)?;
        line.push(b'\n');
        self.input.write_all(&line).await?;
        Ok(self.input.flush().await?)
    }

    /// Closes the server's stdin, which ends it, and waits for it to go.
    async fn close(self) -> anyhow::Result<()> {
        let Server {
            mut child, input, ..
        } = self;
        drop(input);
        child.wait().await?;
        Ok(())
    }
}

/// The text at a JSON pointer, or nothing.
fn text_at<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// `2346` as `2,346`, as the README writes figures.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// The text with every run of blank lines made one, and none at the start or the end:
/// job logs and descriptions carry runs of them, which a reader only scrolls past.
fn without_blank_runs(text: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for line in text.lines() {
        let blank = line.trim().is_empty();
        if blank && out.last().is_none_or(|last| last.trim().is_empty()) {
            continue;
        }
        out.push(line);
    }
    while out.last().is_some_and(|last| last.trim().is_empty()) {
        out.pop();
    }
    out.join("\n")
}

fn section(title: &str) -> std::io::Result<()> {
    say!("\n━━ {title} ━━")
}

fn print_result(result: &Value) -> std::io::Result<()> {
    if result["isError"] == json!(true) {
        say!("isError: true")?;
    }
    for block in result["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") => say!("{}", without_blank_runs(text_at(block, "/text")))?,
            Some("resource_link") => say!("\n[resource_link] {}", text_at(block, "/uri"))?,
            _ => {}
        }
    }
    if let Some(structured) = result.get("structuredContent") {
        say!("\n(structuredContent: {} bytes)", to_text(structured).len())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_and_blank_lines() {
        assert_eq!(thousands(2346), "2,346");
        assert_eq!(thousands(71331), "71,331");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(without_blank_runs("\na\n\n\n\nb\n\n"), "a\n\nb");
    }
}

//! `gitlab-mcp demo`: a short, real MCP session against the sandbox, printed for a person.
//!
//! It starts this same binary as an MCP server over stdio (`--sandbox serve`, default
//! dynamic surface), connects as an MCP client, and walks through what an assistant does:
//! find an action, run it, follow the next steps, and meet the safety rails.

use std::process::ExitCode;

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ReadResourceRequestParams, ResourceContents,
};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Map, Value, json};

use crate::config::Options;
use crate::output::json::to_text;

pub async fn run(options: &Options) -> anyhow::Result<ExitCode> {
    let binary = std::env::current_exe()?;
    let surface = options.surface()?;
    let command = tokio::process::Command::new(binary).configure(|command| {
        command.arg("--sandbox").arg("serve");
        command.env("TOOL_SURFACE", surface.name());
        command.env(
            "META_PARAM_SCHEMA",
            clap::ValueEnum::to_possible_value(&options.meta_param_schema)
                .map(|v| v.get_name().to_owned())
                .unwrap_or_default(),
        );
        command.env(
            "CAPABILITY_SURFACE",
            clap::ValueEnum::to_possible_value(&options.capability_surface)
                .map(|v| v.get_name().to_owned())
                .unwrap_or_default(),
        );
        command.env_remove("GITLAB_TOKEN");
    });
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()?;
    let client = ().serve(transport).await?;

    if let Some(info) = client.peer_info() {
        let (name, version) = info
            .server_info
            .as_ref()
            .map(|s| (s.name.clone(), s.version.clone()))
            .unwrap_or_default();
        section(&format!(
            "Connected to {name} {version} over stdio (MCP {}), talking to the embedded sandbox GitLab",
            info.protocol_version
        ))?;
    }
    let tools = client.list_all_tools().await?;
    // Measured as BENCHMARKS.md measures it: the bytes of the JSON-RPC result,
    // `{"tools":[...]}`, so the figure here is the one in the README.
    let bytes = serde_json::to_vec(&json!({ "tools": tools }))?.len();
    say!(
        "tools/list: {} tools, {} bytes: {}",
        tools.len(),
        thousands(bytes),
        tools
            .iter()
            .map(|t| t.name.as_ref())
            .collect::<Vec<_>>()
            .join(", ")
    )?;

    let steps: &[(&str, &str, Value)] = &[
        (
            "Find the action for a task, in plain words",
            "gitlab_find_action",
            json!({"query": "show the open merge requests of a project", "limit": 3}),
        ),
        (
            "Run it",
            "gitlab_execute_action",
            json!({"action": "merge_request.list", "params": {"project_id": "acme/platform/api", "per_page": 5}}),
        ),
        (
            "Open one merge request (note the resource link)",
            "gitlab_execute_action",
            json!({"action": "merge_request.get", "params": {"project": "acme/platform/api", "mr_iid": 56}}),
        ),
        (
            "Is the default branch green?",
            "gitlab_execute_action",
            json!({"action": "pipeline.latest", "params": {"project_id": "acme/platform/api"}}),
        ),
        (
            "Which jobs failed?",
            "gitlab_execute_action",
            json!({"action": "job.list", "params": {"project_id": "acme/platform/api", "pipeline_id": 9012, "scope": ["failed"]}}),
        ),
        (
            "Why: the end of the failed job's log",
            "gitlab_execute_action",
            json!({"action": "job.log", "params": {"project_id": "acme/platform/api", "job_id": 70042, "lines": 12}}),
        ),
        (
            "A destructive action without confirmation is refused",
            "gitlab_execute_action",
            json!({"action": "branch.delete", "params": {"project_id": "acme/platform/api", "branch_name": "fix/login-pipe"}}),
        ),
        (
            "A typo in a parameter gets a repairable error",
            "gitlab_execute_action",
            json!({"action": "issue.get", "params": {"project_id": "acme/platform/api", "issue": 17, "colour": "red"}}),
        ),
    ];
    for (title, tool, arguments) in steps {
        section(title)?;
        say!("→ {tool} {}\n", to_text(arguments))?;
        let arguments: Map<String, Value> = arguments.as_object().cloned().unwrap_or_default();
        let result = client
            .call_tool(CallToolRequestParams::new(*tool).with_arguments(arguments))
            .await?;
        print_result(&result)?;
    }

    section("Read the merge request as a resource")?;
    let uri = "gitlab://project/acme%2Fplatform%2Fapi/mr/56";
    say!("→ resources/read {uri}\n")?;
    let resource = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await?;
    for contents in resource.contents {
        if let ResourceContents::TextResourceContents {
            text, mime_type, ..
        } = contents
        {
            let shown: String = text.chars().take(300).collect();
            say!(
                "{} ({} bytes): {shown}…",
                mime_type.unwrap_or_default(),
                text.len()
            )?;
        }
    }
    client.cancel().await?;
    say!()?;
    Ok(ExitCode::SUCCESS)
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

fn print_result(result: &CallToolResult) -> std::io::Result<()> {
    if result.is_error == Some(true) {
        say!("isError: true")?;
    }
    for block in &result.content {
        if let Some(text) = block.as_text() {
            say!("{}", without_blank_runs(&text.text))?;
        } else if let Some(link) = block.as_resource_link() {
            say!("\n[resource_link] {}", link.uri)?;
        }
    }
    if let Some(structured) = &result.structured_content {
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

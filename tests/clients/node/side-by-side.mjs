// Optional: gitlab-mcp beside another GitLab MCP server from npm (@zereight/mcp-gitlab),
// both against the same sandbox GitLab served over loopback, measured by the same MCP
// client. Prints one Markdown table. Run from this folder: `npm run side-by-side`
// (it installs the other server into target/side-by-side the first time).

import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const binary = process.env.GITLAB_MCP_BIN ?? path.join(root, "target/release/gitlab-mcp");
const OTHER = "@zereight/mcp-gitlab@2.1.64";
const RUNS = 20;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function startSandbox() {
  const child = spawn(binary, ["sandbox", "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "ignore"] });
  const line = await new Promise((resolve) => readline.createInterface({ input: child.stdout }).once("line", resolve));
  return { child, url: line.trim() };
}

function installOther() {
  const prefix = path.join(root, "target/side-by-side");
  const entry = path.join(prefix, "node_modules/@zereight/mcp-gitlab/build/index.js");
  if (!existsSync(entry)) {
    mkdirSync(prefix, { recursive: true });
    execFileSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", OTHER], { stdio: "inherit" });
  }
  return entry;
}

async function measure(name, params, call) {
  const startups = [];
  let client;
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const transport = new StdioClientTransport({ ...params, stderr: "ignore" });
    const candidate = new Client({ name: "side-by-side", version: "1.0.0" });
    await candidate.connect(transport);
    startups.push(performance.now() - start);
    if (client) await candidate.close();
    else client = candidate;
  }
  const { tools } = await client.listTools();
  const listBytes = Buffer.byteLength(JSON.stringify({ tools }));
  const latencies = [];
  let result;
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    result = await client.callTool(call);
    latencies.push(performance.now() - start);
  }
  const text = result.content.filter((c) => c.type === "text").map((c) => c.text).join("");
  const structured = result.structuredContent ? JSON.stringify(result.structuredContent) : "";
  await client.close();
  return {
    name,
    startup: median(startups),
    tools: tools.length,
    listBytes,
    latency: median(latencies),
    content: Buffer.byteLength(text),
    structured: Buffer.byteLength(structured),
    error: result.isError === true,
  };
}

const sandbox = await startSandbox();
try {
  const other = installOther();
  const rows = [];
  for (const surface of ["dynamic", "meta", "individual"]) {
    rows.push(
      await measure(
        `gitlab-mcp (${surface})`,
        { command: binary, args: ["serve"], env: { ...process.env, TOOL_SURFACE: surface, GITLAB_URL: sandbox.url, GITLAB_TOKEN: "sandbox-token" } },
        surface === "dynamic"
          ? { name: "gitlab_execute_action", arguments: { action: "merge_request.list", params: { project_id: "acme/platform/api" } } }
          : surface === "meta"
            ? { name: "gitlab_merge_request", arguments: { action: "list", params: { project_id: "acme/platform/api" } } }
            : { name: "gitlab_merge_request_list", arguments: { project_id: "acme/platform/api" } },
      ),
    );
  }
  rows.push(
    await measure(
      OTHER,
      {
        command: process.execPath,
        args: [other],
        env: {
          ...process.env,
          GITLAB_API_URL: `${sandbox.url}/api/v4`,
          GITLAB_PERSONAL_ACCESS_TOKEN: "sandbox-token",
          GITLAB_DISABLE_VERSION_CHECK: "true",
        },
      },
      { name: "list_merge_requests", arguments: { project_id: "acme/platform/api", state: "opened", per_page: 20 } },
    ),
  );
  const lines = [
    `| server | spawn → initialized, SDK client (median of ${RUNS}) | tools | tools/list bytes | list 20 MRs: latency | content bytes | structured bytes |`,
    "|---|---|---|---|---|---|---|",
    ...rows.map(
      (row) =>
        `| ${row.name} | ${row.startup.toFixed(1)} ms | ${row.tools} | ${row.listBytes} | ${row.latency.toFixed(2)} ms${row.error ? " (error)" : ""} | ${row.content} | ${row.structured} |`,
    ),
  ];
  console.log(lines.join("\n"));
  // Kept for `cargo bench --bench report -- --write`, which appends it to BENCHMARKS.md.
  const report = [
    "",
    "## Side by side with another GitLab MCP server",
    "",
    `Produced by \`npm run side-by-side\` in \`tests/clients/node\` (optional; it installs ${OTHER} from npm). Both servers talk to the same sandbox GitLab over loopback and are measured by the same TypeScript SDK client, so startup here includes the client's own work.`,
    "",
    ...lines,
    "",
  ];
  writeFileSync(path.join(root, "target/side-by-side.md"), report.join("\n"));
} finally {
  sandbox.child.kill();
}

// Optional: gitlab-mcp beside another GitLab MCP server from npm (@zereight/mcp-gitlab),
// both against the same sandbox GitLab served over loopback, measured by the same MCP
// client. Prints Markdown tables. Run from this folder: `npm run side-by-side`
// (it installs the other server into target/side-by-side the first time).
//
// It also scripts a session of four everyday tasks on each of gitlab-mcp's surfaces and
// counts the bytes a model reads: tools/list plus every response (content and structure).
// `node side-by-side.mjs --sessions` runs only that part (no npm install).

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

const PROJECT = "acme/platform/api";

/// One call per surface: the tool and arguments that run `action` with `params`.
function callOf(surface, action, params) {
  const [domain, name] = action.split(".");
  if (surface === "dynamic") return { name: "gitlab_execute_action", arguments: { action, params } };
  if (surface === "meta") return { name: `gitlab_${domain}`, arguments: { action: name, params } };
  return { name: `gitlab_${domain}_${name}`, arguments: params };
}

function bytesOf(result) {
  const text = result.content.filter((c) => c.type === "text").map((c) => c.text).join("");
  const structured = result.structuredContent ? JSON.stringify(result.structuredContent) : "";
  return Buffer.byteLength(text) + Buffer.byteLength(structured);
}

/// The four tasks: each starts from words (a find on the dynamic surface, whose top hit must
/// be the action the other surfaces call directly) and ends with the answer.
const TASKS = [
  {
    name: "open MRs, then the newest",
    query: "list the open merge requests of a project",
    action: "merge_request.list",
    params: { project_id: PROJECT, state: "opened" },
    then: (listed) => ({
      action: "merge_request.get",
      params: { project_id: PROJECT, merge_request_iid: listed.structuredContent.merge_requests[0].iid },
    }),
  },
  { name: "README.md on main", query: "read README.md on main", action: "repository.file_get", params: { project_id: PROJECT, file_path: "README.md", ref: "main" } },
  { name: "latest pipeline on main", query: "latest pipeline on main", action: "pipeline.latest", params: { project_id: PROJECT, ref: "main" } },
  { name: "open issues labelled bug", query: "open issues labelled bug", action: "issue.list", params: { project_id: PROJECT, state: "opened", labels: "bug" } },
];

async function session(surface, url) {
  const transport = new StdioClientTransport({
    command: binary,
    args: ["serve"],
    env: { ...process.env, TOOL_SURFACE: surface, GITLAB_URL: url, GITLAB_TOKEN: "sandbox-token" },
    stderr: "ignore",
  });
  const client = new Client({ name: "side-by-side", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const row = { surface, list: Buffer.byteLength(JSON.stringify({ tools })), find: 0, tasks: [] };
  for (const task of TASKS) {
    let bytes = 0;
    if (surface === "dynamic") {
      const found = await client.callTool({ name: "gitlab_find_action", arguments: { query: task.query } });
      const top = found.structuredContent.results[0]?.id;
      if (top !== task.action) throw new Error(`find "${task.query}" ranked ${top} first, not ${task.action}`);
      row.find += bytesOf(found);
      bytes += bytesOf(found);
    }
    let result = await client.callTool(callOf(surface, task.action, task.params));
    if (result.isError) throw new Error(`${surface} ${task.action}: ${JSON.stringify(result.content)}`);
    bytes += bytesOf(result);
    if (task.then) {
      const next = task.then(result);
      result = await client.callTool(callOf(surface, next.action, next.params));
      if (result.isError) throw new Error(`${surface} ${next.action}: ${JSON.stringify(result.content)}`);
      bytes += bytesOf(result);
    }
    row.tasks.push(bytes);
  }
  await client.close();
  row.total = row.list + row.tasks.reduce((a, b) => a + b, 0);
  return row;
}

async function sessions(url) {
  const rows = [];
  for (const surface of ["dynamic", "meta", "individual"]) rows.push(await session(surface, url));
  return [
    `| surface | tools/list | ${TASKS.map((t) => t.name).join(" | ")} | of which find answers | session total |`,
    `|---|---|${TASKS.map(() => "---").join("|")}|---|---|`,
    ...rows.map((r) => `| ${r.surface} | ${r.list} | ${r.tasks.join(" | ")} | ${r.find} | ${r.total} |`),
  ];
}

const sandbox = await startSandbox();
try {
  const sessionLines = await sessions(sandbox.url);
  console.log(sessionLines.join("\n"));
  const sessionReport = [
    "",
    "## A session of four everyday tasks, per surface (bytes a model reads)",
    "",
    "Produced by `npm run side-by-side` (or `node side-by-side.mjs --sessions`) in `tests/clients/node`: tools/list plus every response (content text and structuredContent) of a scripted session on the sandbox. On the dynamic surface each task starts with `gitlab_find_action` (default limit) and runs its top hit; the other surfaces call the action directly, with the parameters the dynamic surface's find answer shows.",
    "",
    ...sessionLines,
    "",
  ];
  writeFileSync(path.join(root, "target/sessions.md"), sessionReport.join("\n"));
  // Issue 8's target: the default surface costs no more than meta for the same session.
  const total = (surface) => Number(sessionLines.find((l) => l.startsWith(`| ${surface} |`)).split("|").at(-2));
  if (total("dynamic") > total("meta")) {
    console.error(`the dynamic surface's session (${total("dynamic")} B) costs more than meta's (${total("meta")} B)`);
    process.exitCode = 1;
  }
  if (!process.argv.includes("--sessions")) await sideBySide();
} finally {
  sandbox.child.kill();
}

async function sideBySide() {
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
}

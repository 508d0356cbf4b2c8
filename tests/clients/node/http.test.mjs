// gitlab-mcp over Streamable HTTP, driven by the official MCP TypeScript SDK client: one
// client whose requests alternate between two server processes (stateless replicas behind
// a load balancer) gets exactly the results a client of one process gets, writes included,
// with its token sent on every request. Every structuredContent is validated by the SDK
// against the tool's outputSchema.
//
// Run from this folder: `npm test`. GITLAB_MCP_BIN names the binary (default: the debug build).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const binary = process.env.GITLAB_MCP_BIN ?? path.resolve(here, "../../../target/debug/gitlab-mcp");
const children = [];

/** Starts the binary and resolves with the first URL it prints on `stream`. */
function start(args, env, stream) {
  // No token of the environment's: each request brings its own.
  const inherited = { ...process.env };
  delete inherited.GITLAB_TOKEN;
  delete inherited.GITLAB_MCP_SHARED_TOKEN;
  const child = spawn(binary, args, {
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child[stream] });
    lines.on("line", (line) => {
      const url = line.match(/http:\/\/\S+/);
      if (url) resolve(url[0]);
    });
    child.on("exit", (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

const sandbox = () => start(["sandbox", "--listen", "127.0.0.1:0"], {}, "stdout");
const server = (gitlab) => start(["serve", "--http", "127.0.0.1:0"], { GITLAB_URL: gitlab }, "stderr");

/** A client whose every HTTP request goes to the next of `endpoints`, in turn. */
async function connect(endpoints, hits) {
  let next = 0;
  const roundRobin = (_url, init) => {
    const target = endpoints[next++ % endpoints.length];
    hits.set(target, (hits.get(target) ?? 0) + 1);
    return fetch(target, init);
  };
  const transport = new StreamableHTTPClientTransport(new URL(endpoints[0]), {
    fetch: roundRobin,
    requestInit: { headers: { "PRIVATE-TOKEN": "sandbox-token" } },
  });
  const client = new Client({ name: "gitlab-mcp-http-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const execute = (client, action, params) =>
  client.callTool({ name: "gitlab_execute_action", arguments: { action, params } });

/** The same session against `replicas` processes sharing one fresh sandbox GitLab. */
async function session(replicas) {
  const gitlab = await sandbox();
  const endpoints = [];
  for (let i = 0; i < replicas; i++) endpoints.push(await server(gitlab));
  const hits = new Map();
  const client = await connect(endpoints, hits);
  const api = "acme/platform/api";
  const results = [];
  try {
    results.push(await client.listTools());
    results.push(await execute(client, "issue.create", { project_id: api, title: "Replicas agree" }));
    results.push(await execute(client, "issue.list", { project_id: api, search: "Replicas agree" }));
    results.push(await execute(client, "issue.note_create", { project_id: api, issue_iid: 17, body: "Seen from a replica" }));
    results.push(await execute(client, "issue.note_list", { project_id: api, issue_iid: 17 }));
    results.push(await execute(client, "merge_request.get", { project_id: api, merge_request_iid: 42 }));
    results.push(await client.readResource({ uri: "gitlab://project/acme%2Fplatform%2Fapi/mr/42" }));
    results.push(await execute(client, "user.current", {}));
    results.push(await client.callTool({ name: "gitlab_find_action", arguments: { query: "close an issue" } }));
  } finally {
    await client.close();
  }
  return { results, hits: [...hits.values()] };
}

test("two stateless processes answer one client as one process does", async () => {
  try {
    const one = await session(1);
    const two = await session(2);
    assert.equal(two.hits.length, 2, "requests went to both processes");
    assert.ok(two.hits.every((n) => n >= 5), `each process answered several requests: ${two.hits}`);
    for (const [at, result] of one.results.entries()) {
      assert.notEqual(result.isError, true, `step ${at}: ${JSON.stringify(result)}`);
    }
    assert.deepEqual(two.results, one.results);
    const listed = JSON.stringify(two.results[2]);
    assert.match(listed, /Replicas agree/, "the issue created via one process is listed via the other");
  } finally {
    for (const child of children) child.kill();
  }
});

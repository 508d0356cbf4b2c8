// pipeline.wait_for with the official MCP TypeScript SDK over stdio (issue 28): a call with
// `onprogress` (the SDK then sends a progress token) hears of every read of the running
// pipeline until it fails, and resets its request timeout on each; a call without one
// hears nothing. The sandbox moves an unfinished pipeline on a minute after each read.
//
// Run from this folder: `npm test`. GITLAB_MCP_BIN names the binary (default: the debug build).

import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const binary = process.env.GITLAB_MCP_BIN ?? path.resolve(here, "../../../target/debug/gitlab-mcp");

async function connect() {
  const transport = new StdioClientTransport({
    command: binary,
    args: ["--sandbox", "serve"],
    env: { ...process.env, TOOL_SURFACE: "individual", GITLAB_TOKEN: "" },
    stderr: "ignore",
  });
  const client = new Client({ name: "gitlab-mcp-waits-test", version: "1.0.0" });
  const errors = [];
  client.onerror = (error) => errors.push(String(error));
  await client.connect(transport);
  return { client, errors };
}

test("pipeline.wait reports each read to a client that asks, and nothing to one that does not", async () => {
  const { client, errors } = await connect();
  try {
    const heard = [];
    const result = await client.callTool(
      { name: "gitlab_pipeline_wait_for", arguments: { project_id: "acme/platform/api", pipeline_id: 9014, timeout: 60 } },
      undefined,
      { onprogress: (progress) => heard.push(progress), resetTimeoutOnProgress: true, timeout: 20000 },
    );
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.equal(result.structuredContent.status, "failed");
    assert.equal(result.structuredContent.timed_out, false);
    assert.deepEqual(result.structuredContent.failed_jobs.map((job) => job.name), ["test:integration"]);
    assert.equal(heard.length, result.structuredContent.polls, JSON.stringify(heard));
    assert.ok(heard.length >= 2, JSON.stringify(heard));
    for (const progress of heard) {
      assert.equal(progress.total, 60);
      assert.match(progress.message, /^Pipeline #9014 is /);
    }
    assert.match(heard.at(-1).message, /is failed/);

    // Without onprogress the SDK sends no token, and the server sends no notification
    // (the SDK reports one for an unknown token through onerror).
    const silent = await client.callTool({
      name: "gitlab_job_wait_for",
      arguments: { project_id: "acme/platform/api", job_id: 70061, timeout: 60 },
    });
    assert.notEqual(silent.isError, true, JSON.stringify(silent));
    assert.equal(silent.structuredContent.status, "success");
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
  }
});

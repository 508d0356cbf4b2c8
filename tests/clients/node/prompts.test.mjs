// The built gitlab-mcp binary's workflow prompts, driven by the official MCP TypeScript SDK
// over stdio: prompts/list shows every prompt with its arguments, prompts/get renders each
// on the sandbox within its stated budget, ending with what it left out, and
// completion/complete offers project paths and the chosen project's branches.
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

/** Each prompt with sandbox arguments, and a line its text must hold. */
const PROMPTS = {
  review_merge_request: [{ project_id: "acme/platform/api", merge_request_iid: "42" }, "Merge Request !42"],
  triage_failed_pipeline: [{ project_id: "acme/platform/api" }, "test:unit"],
  my_day: [{}, "as @alice"],
  what_changed: [{ project_id: "acme/platform/api", from: "main", to: "develop" }, "main...develop"],
  release_notes: [{ project_id: "acme/platform/api", from_tag: "v1.2.0", to_tag: "v1.3.0" }, "Tag v1.3.0"],
  stale_work: [{ project_id: "acme/platform/api" }, "least recently updated first"],
  onboard_project: [{ project_id: "acme/platform/api" }, "## CI configuration"],
};

test("prompts list and render through the TypeScript SDK", async () => {
  const transport = new StdioClientTransport({
    command: binary,
    args: ["--sandbox", "serve"],
    env: { ...process.env, GITLAB_TOKEN: "" },
    stderr: "ignore",
  });
  const client = new Client({ name: "gitlab-mcp-node-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    assert.ok(client.getServerCapabilities().prompts, "the server declares prompts");
    const { prompts } = await client.listPrompts();
    assert.ok(prompts.length >= 7, `${prompts.length} prompts`);
    for (const [name, [args, expected]] of Object.entries(PROMPTS)) {
      const listed = prompts.find((p) => p.name === name);
      assert.ok(listed, `${name} is listed`);
      assert.ok(listed.title && listed.description, `${name} has a title and description`);
      for (const required of (listed.arguments ?? []).filter((a) => a.required)) {
        assert.ok(required.name in args, `${name}: the test gives ${required.name}`);
      }
      const result = await client.getPrompt({ name, arguments: args });
      assert.equal(result.messages.length, 1);
      assert.equal(result.messages[0].role, "user");
      const text = result.messages[0].content.text;
      assert.ok(text.includes(expected), `${name}: ${expected} in\n${text}`);
      const budget = Number(/budget (?:is |of )(\d+) bytes/.exec(text)?.[1]);
      assert.ok(budget > 0, `${name} states its budget`);
      assert.ok(Buffer.byteLength(text) <= budget, `${name}: ${Buffer.byteLength(text)} bytes over ${budget}`);
    }
    // completion/complete: project paths as typed, then the chosen project's branches.
    assert.ok(client.getServerCapabilities().completions, "the server declares completions");
    const projects = await client.complete({
      ref: { type: "ref/prompt", name: "review_merge_request" },
      argument: { name: "project_id", value: "acme/pla" },
    });
    assert.ok(projects.completion.values.includes("acme/platform/api"), projects.completion.values.join());
    assert.ok(projects.completion.values.every((v) => v.startsWith("acme/platform/")));
    const branches = await client.complete({
      ref: { type: "ref/prompt", name: "what_changed" },
      argument: { name: "from", value: "docs/" },
      context: { arguments: { project_id: "acme/platform/api" } },
    });
    const values = branches.completion.values;
    assert.ok(values.length >= 2 && values.length <= 10, values.join());
    assert.ok(values.every((v) => v.startsWith("docs/")), values.join());
    await assert.rejects(
      client.getPrompt({ name: "review_merge_request", arguments: { project_id: "acme/platform/api" } }),
      /merge_request_iid/,
    );
  } finally {
    await client.close();
  }
});

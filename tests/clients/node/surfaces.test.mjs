// The built gitlab-mcp binary, driven by the official MCP TypeScript SDK over stdio, on
// each tool surface: list the tools, call one read action per domain, validate every
// structuredContent against the tool's outputSchema with Ajv (as the SDK itself does, and
// once more explicitly), check the text is Markdown and not a JSON dump, and check that a
// 404 and a bad parameter come back as isError results.
//
// Run from this folder: `npm test`. GITLAB_MCP_BIN names the binary (default: the debug build).

import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv2020 from "ajv/dist/2020.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const binary = process.env.GITLAB_MCP_BIN ?? path.resolve(here, "../../../target/debug/gitlab-mcp");
const ajv = new Ajv2020({ strict: false, allErrors: true });

/** One read call per domain, as `{id, params}`. */
const READS = [
  { id: "project.get", params: { project_id: "acme/platform/api" } },
  { id: "branch.list", params: { project_id: "acme/platform/api" } },
  { id: "repository.file_get", params: { project_id: "acme/platform/api", file_path: "src/main.rs" } },
  { id: "merge_request.list", params: { project_id: "acme/platform/api", state: "opened" } },
  { id: "issue.get", params: { project_id: "acme/platform/api", issue_iid: 17 } },
  { id: "pipeline.latest", params: { project_id: "acme/platform/api" } },
  { id: "job.log", params: { project_id: "acme/platform/api", job_id: 70042, lines: 20 } },
  { id: "tag.list", params: { project_id: "acme/platform/api" } },
  { id: "user.current", params: {} },
];

async function connect(surface) {
  const transport = new StdioClientTransport({
    command: binary,
    args: ["--sandbox", "serve"],
    env: { ...process.env, TOOL_SURFACE: surface, GITLAB_TOKEN: "" },
    stderr: "ignore",
  });
  const client = new Client({ name: "gitlab-mcp-node-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** How a surface calls an action: the tool name and its arguments. */
function callShape(surface, id, params) {
  const [domain, action] = id.split(".");
  if (surface === "individual") return { name: `gitlab_${domain}_${action}`, arguments: params };
  if (surface === "meta") return { name: `gitlab_${domain}`, arguments: { action, params } };
  return { name: "gitlab_execute_action", arguments: { action: id, params } };
}

function textOf(result) {
  return result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

for (const surface of ["dynamic", "meta", "individual"]) {
  test(`${surface} surface: reads validate, errors repair`, async () => {
    const client = await connect(surface);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.length > 0, "tools are listed");
      const byName = new Map(tools.map((t) => [t.name, t]));
      for (const tool of tools) {
        assert.equal(tool.inputSchema.type, "object", `${tool.name}: input schema is an object`);
        // All four hints on every tool of every surface, and an icon.
        for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
          assert.equal(typeof tool.annotations?.[hint], "boolean", `${tool.name}: ${hint}`);
        }
        assert.ok(tool.icons?.[0]?.src.startsWith("data:image/svg+xml,"), `${tool.name}: icon`);
      }

      for (const { id, params } of READS) {
        const call = callShape(surface, id, params);
        const result = await client.callTool(call);
        const text = textOf(result);
        assert.notEqual(result.isError, true, `${surface} ${id}: ${text}`);
        assert.match(text, /^## /, `${surface} ${id}: the text is Markdown with a heading`);
        assert.doesNotMatch(text.trim(), /^[{[]/, `${surface} ${id}: the text is not a JSON dump`);
        assert.equal(typeof result.structuredContent, "object", `${surface} ${id}: structuredContent`);
        // A meta tool's results differ by action: each action's output schema is in
        // gitlab://tools/<id>, which the result must validate against.
        const schema = surface === "meta"
          ? JSON.parse((await client.readResource({ uri: `gitlab://tools/${id}` })).contents[0].text).output_schema
          : byName.get(call.name).outputSchema;
        assert.ok(schema, `${surface} ${call.name}: declares an outputSchema`);
        const validate = ajv.compile(schema);
        assert.ok(validate(result.structuredContent), `${surface} ${id}: ${ajv.errorsText(validate.errors)}`);
      }

      const missing = await client.callTool(
        callShape(surface, "merge_request.get", { project_id: "acme/platform/api", merge_request_iid: 999 }),
      );
      assert.equal(missing.isError, true, "a 404 is an isError result");
      assert.match(textOf(missing), /Not Found/);
      assert.equal(missing.structuredContent, undefined, "no success-shaped structure on errors");

      const bad = await client.callTool(
        callShape(surface, "issue.get", { project_id: "acme/platform/api", issue_iid: "seventeen" }),
      );
      assert.equal(bad.isError, true, "a bad parameter is an isError result");
      assert.match(textOf(bad), /`issue_iid`: expected an integer/);

      const resource = await client.readResource({ uri: "gitlab://tools/merge_request.get" });
      assert.match(resource.contents[0].text, /"merge_request.get"/);
    } finally {
      await client.close();
    }
  });
}

test("dynamic surface: find returns executable examples", async () => {
  const client = await connect("dynamic");
  try {
    const found = await client.callTool({ name: "gitlab_find_action", arguments: { query: "why did the last pipeline fail", limit: 5 } });
    assert.notEqual(found.isError, true);
    const ids = found.structuredContent.results.map((r) => r.id);
    assert.ok(ids.includes("pipeline.latest"), ids.join(", "));
    const first = found.structuredContent.results[0];
    const run = await client.callTool({ name: first.example.tool, arguments: first.example.arguments });
    assert.notEqual(run.isError, true, textOf(run));
  } finally {
    await client.close();
  }
});

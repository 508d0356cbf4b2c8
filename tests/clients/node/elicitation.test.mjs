// Approving a destructive call by asking the person (issue 28), with the official MCP
// TypeScript SDK over stdio: a client that declares elicitation is sent
// `elicitation/create` (a form with one boolean, `confirm`) when `branch.delete` comes
// without `confirm`; declining or dismissing keeps the branch and says nothing was done,
// accepting deletes it, on every surface. A client without the capability still needs
// `confirm: true`.
//
// Run from this folder: `npm test`. GITLAB_MCP_BIN names the binary (default: the debug build).

import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const binary = process.env.GITLAB_MCP_BIN ?? path.resolve(here, "../../../target/debug/gitlab-mcp");

const TARGET = { project_id: "acme/platform/api", branch_name: "fix/login-pipe" };

/** A client on `surface`; with `answer` it declares elicitation and answers with it. */
async function connect(surface, answer) {
  const transport = new StdioClientTransport({
    command: binary,
    args: ["--sandbox", "serve"],
    env: { ...process.env, TOOL_SURFACE: surface, GITLAB_TOKEN: "" },
    stderr: "ignore",
  });
  const capabilities = answer ? { elicitation: { form: {} } } : {};
  const client = new Client({ name: "gitlab-mcp-elicitation-test", version: "1.0.0" }, { capabilities });
  const asked = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return answer.current;
    });
  }
  await client.connect(transport);
  return { client, asked };
}

function callShape(surface, id, params) {
  const [domain, action] = id.split(".");
  if (surface === "individual") return { name: `gitlab_${domain}_${action}`, arguments: params };
  if (surface === "meta") return { name: `gitlab_${domain}`, arguments: { action, params } };
  return { name: "gitlab_execute_action", arguments: { action: id, params } };
}

function textOf(result) {
  return result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

async function branchExists(client, surface) {
  const result = await client.callTool(callShape(surface, "branch.get", TARGET));
  return result.isError !== true;
}

for (const surface of ["individual", "meta", "dynamic"]) {
  test(`${surface} surface: the person approves or refuses branch.delete`, async () => {
    const answer = { current: { action: "decline" } };
    const { client, asked } = await connect(surface, answer);
    try {
      assert.ok(await branchExists(client, surface), "seeded");
      for (const given of [
        { action: "decline" },
        { action: "cancel" },
        { action: "accept", content: { confirm: false } },
      ]) {
        answer.current = given;
        const result = await client.callTool(callShape(surface, "branch.delete", TARGET));
        const text = textOf(result);
        assert.notEqual(result.isError, true, `${surface} ${given.action}: ${text}`);
        assert.match(text, /^Nothing was done: the user (declined|dismissed)/, `${surface}: ${text}`);
        assert.equal(result.structuredContent?.message, text, `${surface}: the message is the structure`);
        assert.ok(await branchExists(client, surface), `${surface} ${given.action}: kept`);
      }
      assert.equal(asked.length, 3, "asked once per call");
      const form = asked[0];
      assert.match(form.message, /^`branch\.delete` is destructive \(delete a branch\) on project_id `acme\/platform\/api`, branch_name `fix\/login-pipe`/);
      assert.deepEqual(form.requestedSchema.required, ["confirm"]);
      assert.equal(form.requestedSchema.properties.confirm.type, "boolean");

      answer.current = { action: "accept", content: { confirm: true } };
      const result = await client.callTool(callShape(surface, "branch.delete", TARGET));
      assert.notEqual(result.isError, true, textOf(result));
      assert.match(textOf(result), /Deleted branch fix\/login-pipe/);
      assert.ok(!(await branchExists(client, surface)), `${surface}: deleted`);
    } finally {
      await client.close();
    }
  });
}

test("without the capability, confirm: true is still needed", async () => {
  const { client } = await connect("dynamic", null);
  try {
    const refused = await client.callTool(callShape("dynamic", "branch.delete", TARGET));
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /`confirm: true`/);
    assert.ok(await branchExists(client, "dynamic"), "kept");
    const done = await client.callTool(callShape("dynamic", "branch.delete", { ...TARGET, confirm: true }));
    assert.notEqual(done.isError, true, textOf(done));
    assert.ok(!(await branchExists(client, "dynamic")), "deleted");
  } finally {
    await client.close();
  }
});

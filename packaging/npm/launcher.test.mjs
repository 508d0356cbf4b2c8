// The npm launcher is invisible: an MCP session through `npx gitlab-mcp` is byte for byte
// the session with the binary itself (stdout and stderr), a failure ends with the
// binary's exit code and message, and a signal sent to it ends the binary, and then the
// launcher as the binary ended. Run by packaging/check-npm.sh after it installs the packages:
//
//   GITLAB_MCP_BIN=target/debug/gitlab-mcp GITLAB_MCP_NPM_DIR=<install dir> \
//     node --test packaging/npm/launcher.test.mjs

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import test from "node:test";

const binary = process.env.GITLAB_MCP_BIN;
const installDir = process.env.GITLAB_MCP_NPM_DIR;
assert.ok(binary && installDir, "set GITLAB_MCP_BIN and GITLAB_MCP_NPM_DIR");
const launcher = path.join(installDir, "node_modules/gitlab-mcp/bin/gitlab-mcp.js");

/** The caller's environment without GITLAB_* settings (a developer's shell may have some). */
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GITLAB_")));
env.npm_config_update_notifier = "false";

const commands = {
  binary: (args) => spawn(binary, args, { env }),
  npx: (args) => spawn("npx", ["--offline", "gitlab-mcp", ...args], { cwd: installDir, env }),
  launcher: (args) => spawn(process.execPath, [launcher, ...args], { env }),
};

/** Collects a stream's bytes. */
function bytes(stream) {
  const chunks = [];
  stream.on("data", (chunk) => chunks.push(chunk));
  return () => Buffer.concat(chunks);
}

function exited(child) {
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
}

/** Reads stdout line by line; `next()` resolves with the next whole line. */
function lines(stream) {
  let buffered = "";
  const waiting = [];
  const ready = [];
  stream.setEncoding("utf8");
  stream.on("data", (text) => {
    buffered += text;
    let end;
    while ((end = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (waiting.length) waiting.shift()(line);
      else ready.push(line);
    }
  });
  return () => (ready.length ? Promise.resolve(ready.shift()) : new Promise((resolve) => waiting.push(resolve)));
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "launcher-test", version: "1" } },
};

/**
 * One MCP session over stdio, a request at a time as a client makes them: initialize,
 * tools/list, a search with non-ASCII words, an action's call, then stdin closes.
 * Returns every byte the process wrote and how it ended.
 */
async function session(start) {
  const child = start(["--sandbox"]);
  const stdout = bytes(child.stdout);
  const stderr = bytes(child.stderr);
  const messages = [
    initialize,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
    {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "gitlab_find_action", arguments: { query: "fusionner la demande de fusion « !42 » 🦊" } },
    },
    {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "gitlab_execute_action", arguments: { action: "project.list", params: {} } },
    },
  ];
  const answerCount = () => stdout().toString("utf8").split("\n").length - 1;
  for (const message of messages) {
    const before = answerCount();
    child.stdin.write(`${JSON.stringify(message)}\n`);
    // A request's answer is one line: wait for it before the next request.
    while ("id" in message && answerCount() === before) {
      await new Promise((resolve) => child.stdout.once("data", resolve));
    }
  }
  child.stdin.end();
  const status = await exited(child);
  return { stdout: stdout(), stderr: stderr(), status };
}

test("an MCP session through npx is byte for byte the session with the binary", async () => {
  const direct = await session(commands.binary);
  const viaNpx = await session(commands.npx);
  const answers = direct.stdout.toString("utf8").trim().split("\n");
  assert.equal(answers.length, 4, "one answer per request");
  assert.ok(answers.every((line) => JSON.parse(line).result), "every request answered");
  assert.ok(direct.stdout.includes("acme/platform/api"), "the sandbox's projects");
  assert.ok(viaNpx.stdout.equals(direct.stdout), "stdout differs through npx");
  assert.equal(viaNpx.stderr.toString(), direct.stderr.toString());
  assert.deepEqual(viaNpx.status, direct.status);
});

test("a failure ends with the binary's exit code and message, and nothing on stdout", async () => {
  for (const start of [commands.npx, commands.launcher]) {
    const child = start(["--no-such-flag"]);
    const stdout = bytes(child.stdout);
    const stderr = bytes(child.stderr);
    child.stdin.end();
    const status = await exited(child);
    const direct = commands.binary(["--no-such-flag"]);
    const directStderr = bytes(direct.stderr);
    direct.stdin.end();
    const directStatus = await exited(direct);
    assert.equal(directStatus.code, 2);
    assert.deepEqual(status, directStatus);
    assert.equal(stdout().length, 0);
    assert.equal(stderr().toString(), directStderr().toString());
  }
});

/** The pids of a process's children (Linux). */
function children(pid) {
  const tasks = fs.readdirSync(`/proc/${pid}/task`);
  return tasks.flatMap((task) =>
    fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number),
  );
}

// The binary stops cleanly (exit code 0) on SIGINT and SIGTERM once its handlers are in
// place, and is killed by them just before; SIGHUP always kills it. Either way the
// launcher must end as its binary did, and never leave it running.
const outcomes = {
  SIGTERM: [{ code: 0, signal: null }, { code: null, signal: "SIGTERM" }],
  SIGINT: [{ code: 0, signal: null }, { code: null, signal: "SIGINT" }],
  SIGHUP: [{ code: null, signal: "SIGHUP" }],
};

for (const [signal, expected] of Object.entries(outcomes)) {
  test(`${signal} to the launcher ends the binary, and the launcher as the binary ended`, {
    skip: process.platform !== "linux" && "reads /proc",
  }, async () => {
    const child = commands.launcher(["--sandbox"]);
    const next = lines(child.stdout);
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    assert.match(await next(), /"serverInfo"/);
    const [binaryPid] = children(child.pid);
    assert.ok(binaryPid, "the launcher started the binary as its child");
    child.kill(signal);
    const end = await exited(child);
    // Before stdin closes: an orphaned binary would still be waiting for input.
    const orphan = fs.existsSync(`/proc/${binaryPid}`);
    child.stdin.destroy();
    assert.ok(!orphan, "the binary ended with the launcher");
    assert.ok(
      expected.some((outcome) => outcome.code === end.code && outcome.signal === end.signal),
      `ended with ${JSON.stringify(end)}`,
    );
  });
}

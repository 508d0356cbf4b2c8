#!/usr/bin/env node
// `npx gitlab-mcp`: starts the native gitlab-mcp binary from the platform package npm
// installed beside this one (`@gitlab-mcp/<platform>-<arch>`, an optional dependency that
// npm installs only where its `os` and `cpu` match).
//
// The binary gets this process's stdin, stdout and stderr themselves (stdio "inherit"),
// so an MCP client's JSON-RPC reaches it byte for byte and this script never reads or
// writes them: it writes nothing at all while the binary runs (its own messages, before
// the binary starts, go to stderr with fs.writeSync, which leaves the shared descriptors'
// modes alone). Signals sent to this process are passed on, and it ends the way the
// binary ended: the same exit code, or the same signal.
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const launcher = require("../package.json");
const platformPackage = `@gitlab-mcp/${process.platform}-${process.arch}`;

function fail(message) {
  fs.writeSync(2, `gitlab-mcp: ${message}\n`);
  process.exit(1);
}

function binaryPath() {
  const published = Object.keys(launcher.optionalDependencies || {});
  if (!published.includes(platformPackage)) {
    fail(
      `no binary is published for ${process.platform} ${process.arch} ` +
        `(there are: ${published.map((name) => name.split("/")[1]).join(", ")}). ` +
        "Build it from source with `cargo install --locked --path .` in a clone of the repository.",
    );
  }
  let manifest;
  try {
    manifest = require.resolve(`${platformPackage}/package.json`);
  } catch {
    fail(
      `${platformPackage}, the package that holds the binary for this platform, is not installed. ` +
        "npm leaves optional dependencies out with --omit=optional (or --no-optional): " +
        `install again without it, or install ${platformPackage}@${launcher.version} too.`,
    );
  }
  const exe = process.platform === "win32" ? "gitlab-mcp.exe" : "gitlab-mcp";
  return path.join(path.dirname(manifest), "bin", exe);
}

const binary = binaryPath();
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });

// Not SIGUSR1: Node.js keeps it for its inspector.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR2", "SIGBREAK"];
const handlers = new Map();
for (const signal of forwarded) {
  const handler = () => {
    try {
      child.kill(signal);
    } catch {
      // The binary has already ended; its exit decides how this process ends.
    }
  };
  try {
    process.on(signal, handler);
    handlers.set(signal, handler);
  } catch {
    // A signal this platform does not have.
  }
}

child.on("error", (error) => {
  fail(`cannot start ${binary}: ${error.message}`);
});

child.on("exit", (code, signal) => {
  for (const [name, handler] of handlers) {
    process.removeListener(name, handler);
  }
  if (signal) {
    // End by the same signal, so whoever started this process sees what the binary got.
    process.kill(process.pid, signal);
    // A signal whose default action is not to end the process (none of the above).
    setTimeout(() => process.exit(1), 1000).unref();
  } else {
    process.exit(code ?? 1);
  }
});

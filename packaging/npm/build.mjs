#!/usr/bin/env node
// Builds the npm packages: one platform package per target that holds the binary
// (`@gitlab-mcp/linux-x64`; its `os` and `cpu` let npm install only the one that fits this
// machine), and the launcher `gitlab-mcp`, whose `bin` starts the installed one
// (launcher/bin/gitlab-mcp.js) and which lists every platform package as an optional
// dependency. Each is staged under target/packaging/npm/ and packed with `npm pack`.
//
//   node packaging/npm/build.mjs platform --binary PATH [--target TRIPLE] [--out DIR]
//   node packaging/npm/build.mjs launcher [--out DIR]
//   node packaging/npm/build.mjs targets      (the release targets, one per line)
//
// --target defaults to this machine's platform; --out to target/packaging/npm/dist.
// Version, description, license and repository come from Cargo.toml.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const scope = "@gitlab-mcp";

/** The targets the release workflow builds (its matrix must list the same: check-workflow.sh). */
export const releaseTargets = [
  "x86_64-unknown-linux-musl",
  "aarch64-unknown-linux-musl",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

/** Node.js's names (`process.platform`, `process.arch`) for a Rust target triple. */
export function platformOf(target) {
  const cpu = { x86_64: "x64", aarch64: "arm64" }[target.split("-")[0]];
  const os = target.includes("-linux-")
    ? "linux"
    : target.includes("-apple-darwin")
      ? "darwin"
      : target.includes("-windows-")
        ? "win32"
        : undefined;
  if (!cpu || !os) throw new Error(`no npm platform for the target ${target}`);
  return { os, cpu, name: `${scope}/${os}-${cpu}`, exe: os === "win32" ? "gitlab-mcp.exe" : "gitlab-mcp" };
}

const osNames = { linux: "Linux", darwin: "macOS", win32: "Windows" };

/** [package] fields of Cargo.toml. */
function cargoPackage() {
  const manifest = fs.readFileSync(path.join(root, "Cargo.toml"), "utf8");
  const table = manifest.split(/^\[package\]$/m)[1].split(/^\[/m)[0];
  const field = (key) => table.match(new RegExp(`^${key} = "(.*)"$`, "m"))?.[1];
  return {
    version: field("version"),
    description: field("description"),
    license: field("license"),
    repository: field("repository"),
  };
}

function common(cargo) {
  return {
    version: cargo.version,
    license: cargo.license,
    ...(cargo.repository ? { repository: { type: "git", url: `git+${cargo.repository}.git` } } : {}),
  };
}

/** Copies the files every package carries and writes its package.json. */
function stage(dir, manifest) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  for (const file of ["LICENSE-MIT", "LICENSE-APACHE", "README.md"]) {
    fs.copyFileSync(path.join(root, file), path.join(dir, file));
  }
  fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

function pack(dir, out) {
  fs.mkdirSync(out, { recursive: true });
  const [result] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", path.resolve(out)], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      shell: process.platform === "win32",
    }),
  );
  console.log(`${path.join(out, result.filename)}: ${result.size.toLocaleString("en")} bytes`);
}

function hostTarget() {
  return execFileSync("rustc", ["-vV"], { encoding: "utf8" }).match(/^host: (.*)$/m)[1];
}

function buildPlatform({ binary, target, out }) {
  if (!binary) throw new Error("platform needs --binary PATH");
  const cargo = cargoPackage();
  const platform = platformOf(target ?? hostTarget());
  const dir = path.join(root, "target/packaging/npm", platform.name.replace("/", "-"));
  stage(dir, {
    name: platform.name,
    ...common(cargo),
    description: `The gitlab-mcp binary for ${osNames[platform.os]} ${platform.cpu}; install the gitlab-mcp package, which runs it.`,
    os: [platform.os],
    cpu: [platform.cpu],
    preferUnplugged: true,
  });
  const installed = path.join(dir, "bin", platform.exe);
  fs.copyFileSync(binary, installed);
  fs.chmodSync(installed, 0o755);
  pack(dir, out);
}

function buildLauncher({ out }) {
  const cargo = cargoPackage();
  const dir = path.join(root, "target/packaging/npm/gitlab-mcp");
  const optionalDependencies = Object.fromEntries(
    releaseTargets.map((target) => [platformOf(target).name, cargo.version]),
  );
  stage(dir, {
    name: "gitlab-mcp",
    ...common(cargo),
    description: cargo.description,
    keywords: ["mcp", "model-context-protocol", "gitlab", "llm"],
    bin: { "gitlab-mcp": "bin/gitlab-mcp.js" },
    engines: { node: ">=18" },
    optionalDependencies,
  });
  const script = path.join(dir, "bin/gitlab-mcp.js");
  fs.copyFileSync(path.join(root, "packaging/npm/launcher/bin/gitlab-mcp.js"), script);
  fs.chmodSync(script, 0o755);
  pack(dir, out);
}

function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      binary: { type: "string" },
      target: { type: "string" },
      out: { type: "string", default: path.join(root, "target/packaging/npm/dist") },
    },
  });
  switch (positionals[0]) {
    case "platform":
      return buildPlatform(values);
    case "launcher":
      return buildLauncher(values);
    case "targets":
      return console.log(releaseTargets.join("\n"));
    default:
      throw new Error("usage: build.mjs platform --binary PATH [--target TRIPLE] [--out DIR] | launcher [--out DIR] | targets");
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    console.error(`build.mjs: ${error.message}`);
    process.exit(1);
  }
}

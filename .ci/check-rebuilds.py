#!/usr/bin/env python3
"""The README's second command compiles nothing the first already built.

Runs `cargo build` (what `cargo run -- demo` compiles), then `cargo test --no-run`, and
fails when the test build compiles a dependency that the first build also compiled: a
dev-dependency that turns on a feature of a normal dependency (or of a build-time one)
makes Cargo build that crate, and everything above it, a second time. The fix is in
Cargo.toml (the feature-unification lines); the message names the crates.

Meant for a fresh clone (CI): on a warm target directory, a crate the tests built earlier
counts as already built, so the check can miss a problem but never invents one. Usage:
    python3 .ci/check-rebuilds.py
"""

import json
import subprocess
import sys


def artifacts(args):
    """The compiler-artifact messages of one cargo invocation."""
    process = subprocess.run(
        ["cargo", *args, "--locked", "--message-format=json-render-diagnostics"],
        stdout=subprocess.PIPE,
        check=True,
        text=True,
    )
    found = []
    for line in process.stdout.splitlines():
        if not line.startswith("{"):
            continue
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact":
            found.append(message)
    return found


def is_local(message):
    return message["package_id"].startswith("path+")


def name(message):
    # `registry+https://...#serde@1.0.229` -> `serde@1.0.229`
    return message["package_id"].rsplit("#", 1)[-1]


def main():
    built = {m["package_id"] for m in artifacts(["build"]) if not is_local(m)}
    tested = artifacts(["test", "--no-run"])
    again = sorted(
        {
            f"{name(m)} ({m['target']['name']})"
            for m in tested
            if not is_local(m) and not m["fresh"] and m["package_id"] in built
        }
    )
    new = sorted({name(m) for m in tested if not is_local(m) and not m["fresh"]})
    if again:
        print(
            f"`cargo test` compiled {len(again)} crate(s) that `cargo build` had already built:",
            file=sys.stderr,
        )
        for entry in again:
            print(f"  {entry}", file=sys.stderr)
        print(
            "A dev-dependency turns on features the build does not use: see the "
            "feature-unification lines in Cargo.toml.",
            file=sys.stderr,
        )
        return 1
    print(
        f"`cargo test` compiled no crate `cargo build` had built ({len(new)} test-only crate(s) compiled)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

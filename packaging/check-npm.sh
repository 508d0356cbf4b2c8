#!/usr/bin/env bash
# The npm packages install and run: the platform package and the launcher from DIR
# (build-target.sh's and `build.mjs launcher`'s tarballs), installed into an empty project
# with no registry (--offline; the other platforms' packages are optional and left out).
# `npx gitlab-mcp` there must answer --version with Cargo.toml's version and
# `--sandbox call project.list` with what the binary in $GITLAB_MCP_BIN prints, and
# npm/launcher.test.mjs checks the launcher is invisible on stdio (bytes, exit codes,
# signals).
#
#   GITLAB_MCP_BIN=target/debug/gitlab-mcp packaging/check-npm.sh DIR
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

dist="$(cd "${1:?usage: packaging/check-npm.sh DIR}" && pwd)"
: "${GITLAB_MCP_BIN:?set GITLAB_MCP_BIN to the binary the platform package holds}"
version="$(cargo_version)"
tarballs=("$dist/gitlab-mcp-$version.tgz" "$dist"/gitlab-mcp-*-*-"$version".tgz)
for tarball in "${tarballs[@]}"; do [ -f "$tarball" ] || die "no $tarball"; done

project="$root/target/packaging/check-npm"
rm -rf "$project"
# The installed platform package holds a copy of the binary: gone when this ends, however
# it ends (as check-wheel.sh's venv).
trap 'rm -rf "$project"' EXIT
mkdir -p "$project"
echo '{ "private": true }' >"$project/package.json"
(cd "$project" && npm install --offline --no-audit --no-fund --loglevel=error "${tarballs[@]}")
export npm_config_update_notifier=false
(cd "$project" && expect_installed "npx gitlab-mcp" npx --offline gitlab-mcp)
GITLAB_MCP_NPM_DIR="$project" node --test packaging/npm/launcher.test.mjs

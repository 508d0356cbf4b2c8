#!/usr/bin/env bash
# CI's check of the packaging (.ci/run), on the debug build the tests made, for this
# machine's platform: what the release workflow does for each target and then for the
# release (build-target.sh, the launcher package, SHA256SUMS), then the wheel and the npm
# packages installed as users install them (check-wheel.sh, check-npm.sh), then the
# workflow's lint (check-workflow.sh). Prints how long each step took.
#
#   packaging/check.sh        (after `cargo build`; PyPI for the tools, no other network)
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

dist="$root/target/packaging/dist"
rm -rf "$dist"
GITLAB_MCP_BIN="$root/$(binary_path "" dev)"
export GITLAB_MCP_BIN
[ -x "$GITLAB_MCP_BIN" ] || die "no $GITLAB_MCP_BIN: run \`cargo build\` first"

step() {
  local name="$1" start=$SECONDS
  shift
  echo "-- $name"
  "$@"
  echo "-- $name: $((SECONDS - start)) s"
}
step "build-target.sh (wheel, smoke test, archive, npm platform package)" \
  bash packaging/build-target.sh --profile dev --no-compile --out "$dist"
step "the npm launcher and SHA256SUMS" \
  bash -c 'node packaging/npm/build.mjs launcher --out "$1" && bash packaging/checksums.sh "$1" && (cd "$1" && sha256sum --check --quiet SHA256SUMS)' _ "$dist"
step "check-wheel.sh (pip in a fresh venv, uvx)" bash packaging/check-wheel.sh "$dist"
step "check-npm.sh (npx, launcher tests)" bash packaging/check-npm.sh "$dist"
step "check-workflow.sh (actionlint)" bash packaging/check-workflow.sh

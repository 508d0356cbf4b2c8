# shellcheck shell=bash
# Shared by the packaging scripts (sourced, never run): the repository root, the version
# from Cargo.toml, the pinned Python tools, and the checks an installed `gitlab-mcp` must
# pass. Every script here runs the same by hand, in CI (.ci/run) and in the release
# workflow (.github/workflows/release.yml).

set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Python 3 by the name this machine gives it (Windows has no `python3`).
PYTHON="${PYTHON:-$(command -v python3 || command -v python || echo python3)}"

die() {
  echo "$(basename "$0"): $*" >&2
  exit 1
}

# The version in Cargo.toml's [package] table: the one source of every package's version.
cargo_version() {
  sed -n '/^\[package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml"
}

# `repository` in Cargo.toml's [package] table, or nothing.
cargo_repository() {
  sed -n '/^\[package\]/,/^\[/s/^repository = "\(.*\)"$/\1/p' "$root/Cargo.toml"
}

# Installs the named tools, at the versions packaging/tools.txt pins, into one virtual
# environment (target/packaging/tools), and puts its bin directory first on PATH.
tools() {
  local venv="$root/target/packaging/tools" bin requirements=()
  [ -d "$venv/bin" ] && bin="$venv/bin" || bin="$venv/Scripts"
  if [ ! -x "$bin/python" ] && [ ! -x "$bin/python.exe" ]; then
    "$PYTHON" -m venv "$venv"
    [ -d "$venv/bin" ] && bin="$venv/bin" || bin="$venv/Scripts"
  fi
  for name in "$@"; do
    requirements+=("$(grep -E "^$name==" "$root/packaging/tools.txt")") || die "$name is not pinned in packaging/tools.txt"
  done
  "$bin/python" -m pip install --quiet --disable-pip-version-check "${requirements[@]}"
  PATH="$bin:$PATH"
}

# The target triple rustc builds for by default on this machine.
host_target() {
  rustc -vV | sed -n 's/^host: //p'
}

# Where cargo leaves the binary for a target triple ('' = the host, no --target) and a
# profile (dev or release).
binary_path() {
  local target="$1" profile="$2" dir exe=""
  [ "$profile" = dev ] && dir=debug || dir="$profile"
  case "${target:-$(host_target)}" in *windows*) exe=.exe ;; esac
  if [ -n "$target" ]; then
    echo "target/$target/$dir/gitlab-mcp$exe"
  else
    echo "target/$dir/gitlab-mcp$exe"
  fi
}

# `expect_installed LABEL COMMAND...`: the installed command answers `--version` with
# Cargo.toml's version and `--sandbox call project.list` with the sandbox's projects,
# exactly as the binary in $GITLAB_MCP_BIN prints them. Runs with no GITLAB_* settings
# from the caller's shell.
expect_installed() {
  local label="$1" version want got
  shift
  version="$(cargo_version)"
  got="$(clean_env "$@" --version)" || die "$label: \`$* --version\` failed"
  [ "$got" = "gitlab-mcp $version" ] || die "$label: \`$* --version\` printed '$got', Cargo.toml says $version"
  want="$(clean_env "$GITLAB_MCP_BIN" --sandbox call project.list)"
  got="$(clean_env "$@" --sandbox call project.list)" || die "$label: \`$* --sandbox call project.list\` failed"
  [ "$got" = "$want" ] || die "$label: \`$* --sandbox call project.list\` printed something else than the binary:
$got"
  grep -q '^## Projects (' <<<"$got" && grep -q 'acme/platform/api' <<<"$got" \
    || die "$label: \`$* --sandbox call project.list\` did not list the sandbox's projects:
$got"
  echo "$label: $got" | head -1
  echo "$label: --version is $version, and the sandbox's projects match the binary's ($(wc -l <<<"$got") lines)"
}

# Runs a command without the GITLAB_* settings of the caller's shell.
clean_env() {
  local unset=() name
  for name in $(env | sed -n 's/^\(GITLAB_[A-Z_]*\)=.*/\1/p'); do unset+=(-u "$name"); done
  env ${unset[@]+"${unset[@]}"} "$@"
}

#!/usr/bin/env bash
# A built binary works where it was built: `--version` is Cargo.toml's, the sandbox lists
# its projects, and a Linux musl binary is static (no program interpreter, no shared
# libraries). The release workflow runs it on each binary its runner can execute.
#
#   packaging/smoke.sh BINARY [TARGET]
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

binary="${1:?usage: packaging/smoke.sh BINARY [TARGET]}"
target="${2:-}"
export GITLAB_MCP_BIN="$binary"
expect_installed "$binary" "$binary"
case "$target" in
  *-linux-musl*)
    if readelf --program-headers --dynamic "$binary" | grep -E 'INTERP|\(NEEDED\)'; then
      die "$binary is not static: it names a program interpreter or shared libraries (above)"
    fi
    echo "$binary: static (no INTERP, no NEEDED)"
    ;;
esac

#!/usr/bin/env bash
# Everything the release ships for one target, built on one machine: the binary and its
# wheel (build-wheel.sh), a smoke test where this machine can run it (smoke.sh), the
# archive for the GitHub release (archive.sh) and the npm platform package (npm/build.mjs),
# all in one folder. The release workflow runs it once per target; .ci/run runs it for
# this machine with --profile dev on the tests' build.
#
#   packaging/build-target.sh [--target TRIPLE] [--profile release|dev] [--out DIR] [--no-compile]
#
# --target defaults to this machine's; --profile to release; --out to dist;
# --no-compile: see build-wheel.sh.
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

target="" profile=release out=dist wheel_flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --profile) profile="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-compile) wheel_flags+=(--no-compile); shift ;;
    *) die "unknown argument '$1' (see the comment at the top)" ;;
  esac
done
target_flags=()
[ -n "$target" ] && target_flags=(--target "$target")
triple="${target:-$(host_target)}"

bash packaging/build-wheel.sh ${target_flags[@]+"${target_flags[@]}"} --profile "$profile" --out "$out" ${wheel_flags[@]+"${wheel_flags[@]}"}
binary="$(binary_path "$target" "$profile")"

# Runs here when it is for this machine's processor and system (a musl binary is static).
system() { case "$1" in *-linux-*) echo linux ;; *-apple-darwin) echo darwin ;; *-windows-*) echo windows ;; esac; }
host="$(host_target)"
if [ "${triple%%-*}" = "${host%%-*}" ] && [ "$(system "$triple")" = "$(system "$host")" ]; then
  bash packaging/smoke.sh "$binary" "$triple"
else
  echo "not run: $triple binaries do not run on this $host machine"
fi

bash packaging/archive.sh --target "$triple" --binary "$binary" --out "$out"
node packaging/npm/build.mjs platform --target "$triple" --binary "$binary" --out "$out"

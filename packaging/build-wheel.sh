#!/usr/bin/env bash
# The PyPI wheel for one target: maturin (pyproject.toml, bindings = "bin") has cargo
# build the binary and wraps it with its metadata, so `pip install`, `pipx` and `uvx` put
# the native `gitlab-mcp` on PATH with no Python in the call. The binary in the wheel is
# checked byte for byte against the one cargo left in target/, which the archives and
# npm packages then take (wheel_contents.py).
#
#   packaging/build-wheel.sh [--target TRIPLE] [--profile release|dev] [--out DIR] [--no-compile]
#
# --target: a Rust target triple (default: this machine's). A musl target is linked
#   statically and tagged for glibc and musl Linux alike (manylinux2014 + musllinux_1_1).
# --profile: release (default) or dev.
# --out: where the wheel goes (default: dist).
# --no-compile: fail when cargo compiled anything. CI reuses the debug build its tests
#   made: maturin runs cargo with the same profile and flags, so everything is fresh.
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

target="" profile=release out=dist no_compile=""
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --profile) profile="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-compile) no_compile=1; shift ;;
    *) die "unknown argument '$1' (see the comment at the top)" ;;
  esac
done

# maturin writes into a folder of its own; the one wheel then moves to --out.
staging="$root/target/packaging/maturin"
args=(build --locked --profile "$profile" --out "$staging")
[ -n "$target" ] && args+=(--target "$target")
case "$target" in
  *-linux-musl*) args+=(--compatibility manylinux2014 musllinux_1_1) ;;
esac

tools maturin
rm -rf "$staging"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
maturin "${args[@]}" 2>&1 | tee "$log"
if [ -n "$no_compile" ] && grep -E '^ *Compiling ' "$log" >/dev/null; then
  die "maturin had cargo compile again what the $profile build had built:
$(grep -E '^ *Compiling ' "$log")
maturin must run cargo with the flags of that build (profile, features, target)."
fi

wheels=("$staging"/gitlab_mcp_server-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || die "expected one wheel from maturin, found: ${wheels[*]}"
python packaging/wheel_contents.py "${wheels[0]}" "$(binary_path "$target" "$profile")"
mkdir -p "$out"
mv "${wheels[0]}" "$out/"
echo "$out/$(basename "${wheels[0]}")"

#!/usr/bin/env bash
# The GitHub release's download for one target: the binary with the licenses and the
# README, as gitlab-mcp-VERSION-TARGET.tar.gz (.zip for Windows), whose one folder
# unpacks beside the others.
#
#   packaging/archive.sh --target TARGET --binary PATH [--out DIR]
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

target="" binary="" out=dist/release
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --binary) binary="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[ -n "$target" ] && [ -f "$binary" ] || die "usage: packaging/archive.sh --target TARGET --binary PATH [--out DIR]"

name="gitlab-mcp-$(cargo_version)-$target"
stage="target/packaging/archive/$name"
rm -rf "$stage"
mkdir -p "$stage" "$out"
exe=gitlab-mcp
case "$target" in *windows*) exe=gitlab-mcp.exe ;; esac
cp "$binary" "$stage/$exe"
cp LICENSE-MIT LICENSE-APACHE README.md "$stage/"
out="$(cd "$out" && pwd)"
case "$target" in
  *windows*)
    (cd "$stage/.." && "$PYTHON" -m zipfile -c "$out/$name.zip" "$name")
    echo "$out/$name.zip"
    ;;
  *)
    tar -C "$stage/.." -czf "$out/$name.tar.gz" "$name"
    echo "$out/$name.tar.gz"
    ;;
esac

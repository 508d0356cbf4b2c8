#!/usr/bin/env bash
# Prepares a release build machine for one target: the Rust toolchain Cargo.toml's
# rust-version names, with the target's standard library, as the default toolchain; and
# for musl targets the musl C compiler ring's C code needs (Debian's and Ubuntu's
# musl-tools, which the release workflow's Linux runners install with sudo).
#
#   packaging/setup-rust.sh TARGET
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

target="${1:?usage: packaging/setup-rust.sh TARGET}"
toolchain="$(sed -n '/^\[package\]/,/^\[/s/^rust-version = "\(.*\)"$/\1/p' Cargo.toml)"
rustup toolchain install "$toolchain" --profile minimal --target "$target"
rustup default "$toolchain"
case "$target" in
  *-linux-musl*)
    compiler="${target%%-*}-linux-musl-gcc"
    if ! command -v "$compiler" >/dev/null; then
      sudo=""
      [ "$(id -u)" = 0 ] || sudo=sudo
      $sudo apt-get update -qq
      $sudo apt-get install -y -qq musl-tools
    fi
    command -v "$compiler" >/dev/null || die "no $compiler after installing musl-tools"
    ;;
esac
rustc --version

#!/usr/bin/env bash
# What must hold before anything is published (the release workflow's first job): the tag
# is `v` + Cargo.toml's version, Cargo.toml's `repository` is the repository releasing
# (npm's provenance checks package.json's repository against it, and PyPI shows it), and
# the README's container lines name the image this repository publishes.
#
#   packaging/check-release.sh TAG        (GITHUB_SERVER_URL and GITHUB_REPOSITORY set,
#                                          as in GitHub Actions)
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

tag="${1:?usage: packaging/check-release.sh TAG}"
version="$(cargo_version)"
[ "$tag" = "v$version" ] || die "the tag is $tag but Cargo.toml's version is $version: tag v$version, or change the version first"

: "${GITHUB_REPOSITORY:?set GITHUB_REPOSITORY (owner/name), as GitHub Actions does}"
expected="${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY"
repository="$(cargo_repository)"
[ "$repository" = "$expected" ] || die "Cargo.toml's [package] repository is '${repository}', not $expected: add \`repository = \"$expected\"\` there (the wheel's and npm packages' metadata, and npm's provenance, take it)"

image="ghcr.io/$(tr '[:upper:]' '[:lower:]' <<<"$GITHUB_REPOSITORY")"
grep -qF "$image" README.md || die "README.md's container lines do not name $image, the image this repository publishes"
echo "release $tag: version $version, repository $repository, image $image"

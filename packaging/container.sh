#!/usr/bin/env bash
# The multi-arch container image from the release's static Linux binaries: the
# Dockerfile's `release` stage on distroless/static, linux/amd64 and linux/arm64 in one
# manifest list, with no compiler in the build (the binaries come in as the `prebuilt`
# build context) and nothing run, so no emulation either. Needs docker with a buildx
# builder that builds for several platforms (docker/setup-buildx-action in the workflow).
#
#   packaging/container.sh [--dist DIR] [--image NAME] [--push]
#
# --dist: where build-target.sh left the two Linux musl archives (default: dist).
# --image defaults to ghcr.io/<owner>/<repository> from $GITHUB_REPOSITORY, lowercased.
# The image is tagged with Cargo.toml's version and `latest`. Without --push it is only
# built (a check); with --push it goes to the registry (log in first) and its digest is
# printed as `digest=sha256:...`, and with `image=NAME`, appended to $GITHUB_OUTPUT too.
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

dist=dist image="" push=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dist) dist="$2"; shift 2 ;;
    --image) image="$2"; shift 2 ;;
    --push) push=1; shift ;;
    *) die "unknown argument '$1' (see the comment at the top)" ;;
  esac
done
if [ -z "$image" ]; then
  [ -n "${GITHUB_REPOSITORY:-}" ] || die "--image NAME, or GITHUB_REPOSITORY, is needed"
  image="ghcr.io/$(tr '[:upper:]' '[:lower:]' <<<"$GITHUB_REPOSITORY")"
fi
version="$(cargo_version)"

context=target/packaging/container
rm -rf "$context"
for pair in amd64:x86_64 arm64:aarch64; do
  platform="${pair%%:*}" name="gitlab-mcp-$version-${pair#*:}-unknown-linux-musl"
  [ -f "$dist/$name.tar.gz" ] || die "no $dist/$name.tar.gz (packaging/build-target.sh --target ${pair#*:}-unknown-linux-musl)"
  mkdir -p "$context/prebuilt/$platform"
  tar -xzf "$dist/$name.tar.gz" -C "$context/prebuilt/$platform" --strip-components 1 "$name/gitlab-mcp"
  chmod 755 "$context/prebuilt/$platform/gitlab-mcp"
done
args=(
  buildx build .
  --target release
  --build-arg RUNTIME=gcr.io/distroless/static-debian12:nonroot
  --build-context "prebuilt=$context/prebuilt"
  --platform "linux/amd64,linux/arm64"
  --tag "$image:$version" --tag "$image:latest"
  --label "org.opencontainers.image.version=$version"
  --label "org.opencontainers.image.licenses=MIT OR Apache-2.0"
  --label "org.opencontainers.image.revision=$(git rev-parse HEAD)"
  --metadata-file "$context/metadata.json"
)
repository="$(cargo_repository)"
[ -n "$repository" ] && args+=(--label "org.opencontainers.image.source=$repository")
if [ -n "$push" ]; then
  args+=(--push)
else
  args+=(--output type=cacheonly)
fi
docker "${args[@]}"

if [ -n "$push" ]; then
  digest="$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["containerimage.digest"])' "$context/metadata.json")"
  echo "digest=$digest"
  echo "image=$image"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    { echo "digest=$digest"; echo "image=$image"; } >>"$GITHUB_OUTPUT"
  fi
fi

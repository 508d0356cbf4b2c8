#!/usr/bin/env bash
# Uploads the wheels in DIR to PyPI with uv. In GitHub Actions uv uses trusted publishing
# (the workflow's OIDC identity, `id-token: write`; the project must name this workflow
# as a trusted publisher on PyPI); by hand, set UV_PUBLISH_TOKEN.
#
#   packaging/publish-pypi.sh DIR
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

dir="${1:?usage: packaging/publish-pypi.sh DIR}"
wheels=("$dir"/gitlab_mcp_server-"$(cargo_version)"-*.whl)
[ ${#wheels[@]} -eq "$(node packaging/npm/build.mjs targets | wc -l)" ] || die "expected a wheel per release target in $dir, found ${#wheels[@]}"
tools uv
uv publish "${wheels[@]}"

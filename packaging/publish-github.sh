#!/usr/bin/env bash
# The GitHub release for TAG with every file in DIR (archives, wheels, npm tarballs,
# SHA256SUMS), its notes generated from the commits since the last tag. Run again, it
# uploads the files anew. Needs the GitHub CLI and GH_TOKEN (contents: write).
#
#   packaging/publish-github.sh TAG DIR
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

tag="${1:?usage: packaging/publish-github.sh TAG DIR}"
dir="${2:?usage: packaging/publish-github.sh TAG DIR}"
if gh release view "$tag" >/dev/null 2>&1; then
  gh release upload "$tag" "$dir"/* --clobber
else
  gh release create "$tag" "$dir"/* --verify-tag --title "gitlab-mcp ${tag#v}" --generate-notes
fi

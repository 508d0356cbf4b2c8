#!/usr/bin/env bash
# Publishes the npm packages in DIR: every platform package first, then the launcher
# `gitlab-mcp` (whose optional dependencies they are). A version already on the registry
# is skipped, so a failed run can be run again. In GitHub Actions each gets a provenance
# statement (npm publish --provenance; needs `id-token: write`); by hand, log in first.
#
#   packaging/publish-npm.sh DIR
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

dir="${1:?usage: packaging/publish-npm.sh DIR}"
launcher=()
platforms=()
for tarball in "$dir"/*.tgz; do
  name="$(tar -xOzf "$tarball" package/package.json | node -p 'JSON.parse(require("fs").readFileSync(0)).name')"
  if [ "$name" = gitlab-mcp ]; then launcher+=("$tarball"); else platforms+=("$tarball"); fi
done
[ ${#launcher[@]} -eq 1 ] || die "expected one launcher package (gitlab-mcp) in $dir"
[ ${#platforms[@]} -eq "$(node packaging/npm/build.mjs targets | wc -l)" ] || die "expected a platform package per release target in $dir, found ${#platforms[@]}"

flags=(--access public)
if [ "${GITHUB_ACTIONS:-}" = true ]; then
  # Trusted publishing (the workflow's OIDC identity instead of a token) needs npm 11.5.1+.
  node -e 'const [a, b, c] = process.argv[1].split(".").map(Number); process.exit(a > 11 || (a === 11 && (b > 5 || (b === 5 && c >= 1))) ? 0 : 1)' "$(npm --version)" \
    || npm install --global npm@11
  flags+=(--provenance)
fi
for tarball in "${platforms[@]}" "${launcher[@]}"; do
  manifest="$(tar -xOzf "$tarball" package/package.json)"
  spec="$(node -p 'const m = JSON.parse(process.argv[1]); `${m.name}@${m.version}`' "$manifest")"
  if [ -n "$(npm view "$spec" version 2>/dev/null)" ]; then
    echo "$spec is already published"
    continue
  fi
  npm publish "${flags[@]}" "$tarball"
done

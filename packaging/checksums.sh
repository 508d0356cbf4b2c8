#!/usr/bin/env bash
# SHA256SUMS for every file in a release folder (in the format `sha256sum -c` reads, which
# the release's provenance attestation also takes as its list of subjects).
#
#   packaging/checksums.sh DIR
# shellcheck source=packaging/lib.sh
source "$(dirname "$0")/lib.sh"

dir="${1:?usage: packaging/checksums.sh DIR}"
cd "$dir" || exit
rm -f SHA256SUMS
files=()
while IFS= read -r file; do files+=("$file"); done < <(find . -maxdepth 1 -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort)
[ ${#files[@]} -gt 0 ] || die "no files in $dir"
if command -v sha256sum >/dev/null; then
  sha256sum "${files[@]}" >SHA256SUMS
else
  shasum -a 256 "${files[@]}" >SHA256SUMS
fi
cat SHA256SUMS

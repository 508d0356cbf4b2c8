#!/usr/bin/env python3
"""The wheel is the binary plus its metadata, nothing else.

Checks that WHEEL holds exactly one script, `gitlab-mcp` (`gitlab-mcp.exe` on Windows),
byte for byte equal to BINARY, and that every other entry is package metadata under
`*.dist-info/` (METADATA, WHEEL, RECORD, the licenses, the SBOM maturin writes). Prints
the sizes. Usage: python3 packaging/wheel_contents.py WHEEL BINARY
"""

import hashlib
import os
import sys
import zipfile


def main(wheel_path, binary_path):
    with open(binary_path, "rb") as f:
        binary = f.read()
    name = os.path.basename(binary_path)
    with zipfile.ZipFile(wheel_path) as wheel:
        entries = wheel.infolist()
        scripts = [e for e in entries if ".data/scripts/" in e.filename]
        other = [e for e in entries if e not in scripts]
        if [e.filename.rsplit("/", 1)[-1] for e in scripts] != [name]:
            sys.exit(f"{wheel_path}: scripts {[e.filename for e in scripts]}, expected one {name}")
        stray = [e.filename for e in other if not e.filename.split("/", 1)[0].endswith(".dist-info")]
        if stray:
            sys.exit(f"{wheel_path}: entries that are neither the binary nor metadata: {stray}")
        inside = wheel.read(scripts[0])
        if hashlib.sha256(inside).digest() != hashlib.sha256(binary).digest():
            sys.exit(f"{wheel_path}: its {name} differs from {binary_path}")
    metadata = sum(e.file_size for e in other)
    metadata_zipped = sum(e.compress_size for e in other)
    print(f"{os.path.basename(wheel_path)}: {os.path.getsize(wheel_path):,} bytes")
    print(f"  {name}: {len(binary):,} bytes, {scripts[0].compress_size:,} compressed, identical to {binary_path}")
    print(f"  metadata: {len(other)} files, {metadata:,} bytes ({metadata_zipped:,} compressed):")
    for e in other:
        print(f"    {e.filename.split('/', 1)[1]}: {e.file_size:,}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])

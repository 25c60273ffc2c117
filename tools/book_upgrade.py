#!/usr/bin/env python3
"""Rewrites a version-3 vier book as version 4 by changing its header alone.

Version 4 differs from version 3 only in what the checksum covers: the whole file but the
checksum field (bytes 0-15 and 24 to the end) instead of the entries alone, so that a damaged
size, depth or count is caught. The entries are not touched: the version-3 checksum is
verified first, and the bytes from offset 24 on are written back unchanged.

    python3 tools/book_upgrade.py old.book [new.book]    # in place without new.book
"""

import os
import sys

MAGIC = b"VIERBOOK"
HEADER = 24
FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK = (1 << 64) - 1


def fnv1a(data, h=FNV_OFFSET):
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK
    return h


def upgrade(image):
    """The version-4 image of a version-3 book image; ValueError says why not."""
    if len(image) < HEADER or image[:8] != MAGIC:
        raise ValueError("not a vier book (no VIERBOOK header)")
    version = image[8]
    if version == 4:
        raise ValueError("already version 4")
    if version != 3:
        raise ValueError(f"version {version}: only version 3 converts; rebuild the book")
    body = image[HEADER:]
    stored = int.from_bytes(image[16:24], "little")
    if fnv1a(body) != stored:
        raise ValueError("the version-3 checksum does not match: the book is damaged")
    head = bytearray(image[:16])
    head[8] = 4
    total = fnv1a(body, fnv1a(head))
    return bytes(head) + total.to_bytes(8, "little") + body


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    src = argv[1]
    dst = argv[2] if len(argv) == 3 else src
    with open(src, "rb") as f:
        image = f.read()
    try:
        new = upgrade(image)
    except ValueError as e:
        print(f"{src}: {e}", file=sys.stderr)
        return 1
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(new)
    os.replace(tmp, dst)
    print(f"{dst}: version 4, {len(new) - HEADER} entry bytes unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

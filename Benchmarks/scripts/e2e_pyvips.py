#!/usr/bin/env python3
"""End-to-end peer: aiohttp + pyvips (libvips from the prebuilt `pyvips-binary` wheel, the
libvips build sharp bundles), driven by e2e_peer.py (see there for the usage).

A thumbnail is `thumbnail_buffer(bytes, size)` right after a download, or `thumbnail(path, size)`
from the kept original: shrink-on-load, EXIF orientation applied, fitted inside size x size; then
`jpegsave(Q=quality)` without metadata. libvips keeps its default threading and operation cache,
as an application would.
"""
import sys

import e2e_peer


def versions():
    import pyvips

    return "pyvips %s libvips %d.%d.%d (%s)" % (
        pyvips.__version__, pyvips.version(0), pyvips.version(1), pyvips.version(2),
        "API mode" if pyvips.API_mode else "ABI mode")


def thumbnail(data, original, out, size, quality):
    import pyvips

    if data is not None:
        image = pyvips.Image.thumbnail_buffer(data, size)
    else:
        image = pyvips.Image.thumbnail(original, size)
    # `keep` is libvips >= 8.15; Debian's 8.14 (a fallback without the wheel) has `strip`.
    if pyvips.at_least_libvips(8, 15):
        image.jpegsave(out, Q=quality, keep="none")
    else:
        image.jpegsave(out, Q=quality, strip=True)


if __name__ == "__main__":
    sys.exit(e2e_peer.main(thumbnail, versions))

#!/usr/bin/env python3
"""End-to-end peer: aiohttp + Pillow, driven by e2e_peer.py (see there for the usage).

A thumbnail is `Image.open` + `draft("RGB", (size, size))` (JPEG shrink-on-load in the DCT
domain) + `thumbnail((size, size))`, then `ImageOps.exif_transpose` (on the small image) so that
the output is upright, then `save(JPEG, quality)`, which writes no metadata.
"""
import io
import sys

import e2e_peer


def versions():
    import PIL

    return "Pillow %s" % PIL.__version__


def thumbnail(data, original, out, size, quality):
    from PIL import Image, ImageOps

    with Image.open(io.BytesIO(data) if data is not None else original) as image:
        image.draft("RGB", (size, size))
        image.thumbnail((size, size))
        upright = ImageOps.exif_transpose(image)
        if upright.mode != "RGB":
            upright = upright.convert("RGB")
        upright.save(out, "JPEG", quality=quality)


if __name__ == "__main__":
    sys.exit(e2e_peer.main(thumbnail, versions))

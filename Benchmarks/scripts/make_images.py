#!/usr/bin/env python3
"""Generates the benchmark's test images from the real photos in ../shared/corpus, seeded.

Each image is a random crop of a corpus photo, Lanczos-resized to the target size, tinted, with
sigma=3 grain added (the recipe of performance.md §0), saved as JPEG q85, PNG and WebP q80.

usage: make_images.py CORPUS_DIR OUT_DIR  (writes OUT_DIR/<set>/<n>.<ext> and OUT_DIR/done)
"""
import os
import random
import sys

from PIL import Image, ImageChops

SETS = [  # name, size, format, count, save options
    ("jpeg1024", (1024, 768), "JPEG", 40, {"quality": 85}),
    ("jpeg3000", (3000, 2000), "JPEG", 6, {"quality": 85}),
    ("png1024", (1024, 768), "PNG", 6, {}),
    ("png3000", (3000, 2000), "PNG", 2, {}),
    ("webp1024", (1024, 768), "WEBP", 6, {"quality": 80}),
    ("webp3000", (3000, 2000), "WEBP", 2, {"quality": 80}),
]
EXT = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}


def photos(corpus):
    folder = os.path.join(corpus, "exif-orientation")
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".jpg"))


def make(source, size, rng):
    w, h = source.size
    cw, ch = int(w * rng.uniform(0.6, 1.0)), int(h * rng.uniform(0.6, 1.0))
    x, y = rng.randint(0, w - cw), rng.randint(0, h - ch)
    img = source.crop((x, y, x + cw, y + ch)).resize(size, Image.LANCZOS)
    tint = [rng.uniform(0.85, 1.15) for _ in range(3)]
    img = Image.merge("RGB", [band.point(lambda v, t=t: min(255, int(v * t))) for band, t in zip(img.split(), tint)])
    noise = Image.effect_noise(size, 3).convert("RGB")
    return ImageChops.add(img, noise, scale=1.0, offset=-128)


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    rng = random.Random(20261130)
    sources = [Image.open(p).convert("RGB") for p in photos(corpus)]
    for name, size, fmt, count, opts in SETS:
        os.makedirs(os.path.join(out, name), exist_ok=True)
        for i in range(count):
            img = make(sources[i % len(sources)], size, rng)
            img.save(os.path.join(out, name, "%03d.%s" % (i, EXT[fmt])), fmt, **opts)
    open(os.path.join(out, "done"), "w").write("ok\n")


if __name__ == "__main__":
    main()

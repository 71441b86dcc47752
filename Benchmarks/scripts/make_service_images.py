#!/usr/bin/env python3
"""Makes the service rows' sources: 2,000-px JPEGs q85 from the real photos in ../shared/corpus,
seeded, by the recipe of make_images.py (a random crop, Lanczos-resized, tinted, sigma=3 grain).
Three landscape (2000x1333) and one portrait (1333x2000), so that fit meets both orientations.

usage: make_service_images.py CORPUS_DIR OUT_DIR   (writes OUT_DIR/0.jpg … 3.jpg)
"""
import os
import random
import sys

from PIL import Image, ImageChops

SIZES = [(2000, 1333), (2000, 1333), (1333, 2000), (2000, 1333)]


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    rng = random.Random(20261206)
    folder = os.path.join(corpus, "exif-orientation")
    # Orientation 1 (or none) only: the photos are then upright as stored, whatever the decoder.
    names = sorted(f for f in os.listdir(folder) if f.endswith(("_0.jpg", "_1.jpg")))
    os.makedirs(out, exist_ok=True)
    for i, size in enumerate(SIZES):
        source = Image.open(os.path.join(folder, names[i % len(names)])).convert("RGB")
        if (source.width > source.height) != (size[0] > size[1]):
            source = source.rotate(90, expand=True)
        w, h = source.size
        cw, ch = int(w * rng.uniform(0.8, 1.0)), int(h * rng.uniform(0.8, 1.0))
        x, y = rng.randint(0, w - cw), rng.randint(0, h - ch)
        img = source.crop((x, y, x + cw, y + ch)).resize(size, Image.LANCZOS)
        tint = [rng.uniform(0.85, 1.15) for _ in range(3)]
        img = Image.merge("RGB", [band.point(lambda v, t=t: min(255, int(v * t))) for band, t in zip(img.split(), tint)])
        noise = Image.effect_noise(size, 3).convert("RGB")
        img = ImageChops.add(img, noise, scale=1.0, offset=-128)
        img.save(os.path.join(out, "%d.jpg" % i), "JPEG", quality=85)


if __name__ == "__main__":
    main()

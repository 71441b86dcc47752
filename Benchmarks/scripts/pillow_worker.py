#!/usr/bin/env python3
"""The Pillow side of the thumbnail benchmark, kept alive so that A/B rounds interleave.

Reads commands on stdin, one per line, answers one line each:
  load <set> <path>...   reads the files into memory under the name <set>   -> "ok <count>"
  pass <set>             one 256-px thumbnail of every file of <set>        -> "<elapsed ns>"
  quit
A thumbnail is Image.open(BytesIO) + draft("RGB", (256, 256)) + thumbnail((256, 256)): draft
mode lets libjpeg decode at 1/2, 1/4 or 1/8 scale (shrink-on-load); thumbnail() keeps the
aspect ratio inside the 256 x 256 box, Pillow's default reducing_gap and resampling.
"""
import io
import sys
import time

from PIL import Image

sets = {}
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "load":
        sets[words[1]] = [open(p, "rb").read() for p in words[2:]]
        print("ok %d" % len(sets[words[1]]), flush=True)
    elif words[0] == "pass":
        start = time.perf_counter_ns()
        for data in sets[words[1]]:
            im = Image.open(io.BytesIO(data))
            im.draft("RGB", (256, 256))
            im.thumbnail((256, 256))
        print(time.perf_counter_ns() - start, flush=True)
    elif words[0] == "quit":
        break

#!/usr/bin/env python3
"""Writes the URL list of one prefetch run of scripts/soak.sh on standard output.

    urls.py --run I --nginx PORT --fault PORT --corpus DIR

About 300 distinct URLs, about 70 % clean and 30 % injected faults, in a shuffled order
(seeded by I, so a run's list can be made again):

- clean: every decodable JPEG, PNG and WebP of the corpus's MANIFEST.tsv (3 kB to 400 kB) from
  nginx, half under `?soak=I` (new in this run) and half under `?soak=I mod 3` (seen before: a
  hit or, once evicted, a download again), and 60 of the fault server's `/image?pad=N` under
  keys of this run;
- injected: the fault server's stalls that end (`/delay`, `/drip`, `/slow`), resets,
  truncations, 5xx, 404, redirects (chains, a loop, one to a 500), `429` + `Retry-After`,
  non-images, broken heads and a gzip body; every third run also a `/stall` and a
  `/no-headers`, which cost the client its idle timeout (30 s) and a retry.

A URL is clean exactly when it is on the nginx port or is the fault server's `/image`: the
summary classifies the report's lines by that rule (see `is_clean`).
"""

import argparse
import os
import random
import urllib.parse

FAULTS = [
    "/delay?ms=1500",
    "/drip?chunks=4&ms=400&size=30000",
    "/slow?bps=1000&size=4000",
    "/truncated?send=200&pad=40000",
    "/reset",
    "/reset-after-headers",
    "/status?code=500",
    "/status?code=503",
    "/status?code=404",
    "/flaky?fail=1&code=502",
    "/retry-after?fail=1&after=1",
    "/redirect?n=2&final=" + urllib.parse.quote("/image?pad=5000", safe=""),
    "/redirect?n=1&code=301&final=" + urllib.parse.quote("/status?code=500", safe=""),
    "/loop?hop=0",
    "/html",
    "/empty",
    "/raw?kind=midhead",
    "/raw?kind=dupcl",
    "/raw?kind=badgzip",
    "/raw?kind=http09",
    "/encoded?enc=gzip",
    "/encoded?enc=gzip&type=zeros&size=200000",
]
STALLS = ["/stall?declare=50000", "/no-headers"]


def corpus_files(corpus):
    """Relative paths of the corpus's decodable JPEG, PNG and WebP files of 3 kB to 400 kB."""
    paths = []
    with open(os.path.join(corpus, "MANIFEST.tsv"), encoding="utf-8") as f:
        next(f)
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 4 or cols[2] != "ok" or cols[3] not in ("jpeg", "png", "webp"):
                continue
            if 3000 < int(cols[1]) < 400000 and os.path.isfile(os.path.join(corpus, cols[0])):
                paths.append(cols[0])
    return sorted(paths)


def is_clean(url, nginx_port):
    """Whether `url` is one of the list's clean URLs (see the module's docstring)."""
    parts = urllib.parse.urlsplit(url)
    return parts.port == nginx_port or parts.path == "/image"


def make_list(run, nginx, fault, corpus):
    rng = random.Random(run)
    urls = []
    for n, path in enumerate(corpus_files(corpus)):
        version = run if n % 2 == 0 else run % 3
        urls.append("http://127.0.0.1:%d/%s?soak=%d" % (nginx, urllib.parse.quote(path), version))
    for j in range(60):
        urls.append("http://127.0.0.1:%d/image?pad=%d&key=r%dc%d" % (fault, rng.randint(2000, 60000), run, j))
    clean = len(urls)
    faults = int(round(clean * 0.3 / 0.7))
    for j in range(faults):
        route = FAULTS[j % len(FAULTS)]
        sep = "&" if "?" in route else "?"
        urls.append("http://127.0.0.1:%d%s%skey=r%df%d" % (fault, route, sep, run, j))
    if run % 3 == 0:
        for route in STALLS:
            sep = "&" if "?" in route else "?"
            urls.append("http://127.0.0.1:%d%s%skey=r%dstall" % (fault, route, sep, run))
    rng.shuffle(urls)
    return urls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", type=int, required=True)
    parser.add_argument("--nginx", type=int, required=True)
    parser.add_argument("--fault", type=int, required=True)
    parser.add_argument("--corpus", required=True)
    args = parser.parse_args()
    for url in make_list(args.run, args.nginx, args.fault, args.corpus):
        print(url)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The driver the end-to-end peers share (e2e_pyvips.py, e2e_pillow.py): a URL list to 256-px
JPEG thumbnails in a folder, originals kept on disk, as a small Python service would do it.

usage: e2e_<engine>.py LIST --originals DIR --out DIR [--size 256] [--quality 85]
                       [--concurrency 8] [--threads N]
       e2e_<engine>.py --check          (prints the versions; exit 0 when everything imports)

- At most `--concurrency` images are in flight at once (download, then thumbnail), as
  `pictor prefetch --concurrency` counts them. Downloads use one aiohttp session (keep-alive,
  at most that many connections).
- An original is kept in `--originals` under the hex SHA-256 of its URL. When the file is
  there already, it is read from disk and nothing is downloaded (a warm run).
- Decoding and encoding run on a thread pool of `--threads` threads (default: one per core);
  the engine's own code releases the GIL while it works.
- Thumbnail i (1-based position in the list) is written to `--out/<i>.jpg`.
- Prints one line: `ok N downloaded D from-disk K failed F`; exits 1 when any image failed.
"""
import argparse
import asyncio
import hashlib
import os
import sys
from concurrent.futures import ThreadPoolExecutor


def parse(argv):
    p = argparse.ArgumentParser()
    p.add_argument("list", nargs="?")
    p.add_argument("--originals")
    p.add_argument("--out")
    p.add_argument("--size", type=int, default=256)
    p.add_argument("--quality", type=int, default=85)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--check", action="store_true")
    args = p.parse_args(argv)
    if not args.check and not (args.list and args.originals and args.out):
        p.error("LIST, --originals and --out are required")
    return args


def write_atomically(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


async def run(args, urls, thumbnail):
    import aiohttp

    os.makedirs(args.originals, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    loop = asyncio.get_running_loop()
    pool = ThreadPoolExecutor(max_workers=args.threads)
    slots = asyncio.Semaphore(args.concurrency)
    counts = {"downloaded": 0, "disk": 0, "failed": 0}

    def work(data, original, out):
        # On the pool: keep the original (cold), then decode, resize and encode.
        if data is not None:
            write_atomically(original, data)
        thumbnail(data, original, out, args.size, args.quality)

    connector = aiohttp.TCPConnector(limit=args.concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(index, url):
            original = os.path.join(args.originals, hashlib.sha256(url.encode()).hexdigest())
            out = os.path.join(args.out, "%d.jpg" % index)
            async with slots:
                try:
                    data = None
                    if os.path.exists(original):
                        counts["disk"] += 1
                    else:
                        async with session.get(url) as response:
                            response.raise_for_status()
                            data = await response.read()
                        counts["downloaded"] += 1
                    await loop.run_in_executor(pool, work, data, original, out)
                except Exception as error:  # noqa: BLE001 (counted and reported, like a failed load)
                    counts["failed"] += 1
                    print("failed %s: %s" % (url, error), file=sys.stderr)

        await asyncio.gather(*(one(i + 1, url) for i, url in enumerate(urls)))
    pool.shutdown(wait=True)
    return counts


def main(thumbnail, versions, argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.check:
        import aiohttp

        print("%s aiohttp %s" % (versions(), aiohttp.__version__))
        return 0
    with open(args.list) as f:
        urls = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    counts = asyncio.run(run(args, urls, thumbnail))
    ok = len(urls) - counts["failed"]
    print("ok %d downloaded %d from-disk %d failed %d" % (ok, counts["downloaded"], counts["disk"], counts["failed"]))
    return 1 if counts["failed"] else 0

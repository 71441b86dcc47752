#!/usr/bin/env python3
"""Time to the first progressive preview against the time to the final image.

Makes a 3000-px progressive JPEG with `vips` (libvips-tools, bootstrap.sh bench) from an image
of ../shared/corpus, serves it from 127.0.0.1 at a fixed rate (1 MB/s by default), runs
`pictor fetch URL -o OUT --previews DIR --no-cache` and watches DIR: prints, per run, the
seconds from the start of the command to each preview file and to the final file, and the
median over the runs. Loopback only; the server is this process's own thread.

    scripts/previews-bench.py [--pictor PATH] [--rate BYTES_PER_S] [--runs N] [--resize N|none]

Each preview and the final image are written as PNG files: at full size (`--resize none`,
6 megapixels) that encoding, not the decoding, takes most of the time.
"""
import argparse, http.server, os, shutil, socketserver, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")


def make_image(directory):
    source = os.path.join(CORPUS, "exif-orientation", "Landscape_1.jpg")
    path = os.path.join(directory, "big.jpg")
    # 3000 px wide, progressive (interlaced), quality 85.
    subprocess.run(["vips", "resize", source, os.path.join(directory, "wide.v"), str(3000 / 1800)], check=True)
    subprocess.run(["vips", "jpegsave", os.path.join(directory, "wide.v"), path, "--Q", "85", "--interlace"], check=True)
    return path


def serve(path, rate):
    body = open(path, "rb").read()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            chunk = max(1, rate // 50)
            start = time.monotonic()
            for offset in range(0, len(body), chunk):
                self.wfile.write(body[offset:offset + chunk])
                self.wfile.flush()
                due = start + (offset + chunk) / rate
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)

        def log_message(self, *args):
            pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, len(body)


def run(pictor, url, directory, resize):
    previews = os.path.join(directory, "previews")
    shutil.rmtree(previews, ignore_errors=True)
    os.makedirs(previews)
    final = os.path.join(directory, "final.png")
    if os.path.exists(final):
        os.remove(final)
    seen = {}
    start = time.monotonic()
    extra = [] if resize == "none" else ["--resize", resize]
    process = subprocess.Popen([pictor, "fetch", url, "-o", final, "--previews", previews, "--no-cache", "-q"] + extra)
    final_at = None
    while True:
        now = time.monotonic() - start
        for name in os.listdir(previews):
            seen.setdefault(name, now)
        if final_at is None and os.path.exists(final):
            final_at = now
        if process.poll() is not None:
            break
        time.sleep(0.005)
    for name in os.listdir(previews):
        seen.setdefault(name, time.monotonic() - start)
    if process.returncode != 0:
        sys.exit(f"pictor exited {process.returncode}")
    final_at = final_at if final_at is not None else time.monotonic() - start
    return sorted(seen.values()), final_at


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pictor", default=os.path.join(ROOT, ".build", "release", "pictor"))
    parser.add_argument("--rate", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--resize", default="512", help="fetch's --resize (previews are made at that size); 'none' for full size")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="pictor-previews-")
    try:
        image = make_image(directory)
        server, size = serve(image, args.rate)
        url = f"http://127.0.0.1:{server.server_address[1]}/big.jpg"
        print(f"image: 3000 px progressive JPEG, {size} bytes, served at {args.rate} B/s (transfer {size / args.rate:.2f} s); "
              f"--resize {args.resize}")
        firsts, finals, counts = [], [], []
        for index in range(args.runs):
            previews, final = run(args.pictor, url, directory, args.resize)
            firsts.append(previews[0] if previews else float("nan"))
            finals.append(final)
            counts.append(len(previews))
            print(f"run {index + 1}: {len(previews)} previews, first at {firsts[-1]:.3f} s, final at {final:.3f} s")
        print(f"median: first preview {statistics.median(firsts):.3f} s, final image {statistics.median(finals):.3f} s, "
              f"ratio {statistics.median(firsts) / statistics.median(finals):.2f}, previews {statistics.median(counts):.0f}")
        server.shutdown()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()

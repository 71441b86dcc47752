#!/usr/bin/env python3
"""Load for `pictor serve` in scripts/soak.sh: normal GETs and clients that hang up (loopback).

    serve_load.py --serve PORT --nginx PORT --fault PORT --corpus DIR --counters FILE --errors FILE

Runs until SIGTERM, with three threads on raw sockets (HTTP/1.1, one request per connection):

- *normal*: GET of a result, about 70 % from a clean source (a corpus file from nginx under one
  of 40 `?v=` values, so results repeat and some are answered from the caches, or the fault
  server's `/image?pad=N`), 30 % from an injected fault (5xx, 404, reset, truncation, redirect,
  delay, HTML). The whole response is read and checked: a clean source must give 200 with the
  body its Content-Length announces, else it is an unexpected error; a fault may give anything
  but a broken connection.
- *hang-up mid-body*: a large result (a corpus JPEG as PNG at full size, megabytes) read through
  a 4 KiB receive buffer; the client closes after the head and up to 16 KiB of body, so the
  server is still writing.
- *hang-up early*: closes right after sending the request (the result is being made), or after
  reading the head; a quarter of these ask for a source that stalls (`/stall`), so the source's
  download is in flight when the client leaves.

Every 2 s, and at exit, FILE is replaced by one line of tab-separated counters: normal requests,
200s, clean non-200s, clean 5xx, clean connection errors, fault answers, fault connection
errors, hang-ups mid-body, hang-ups early. Each unexpected error is appended to the errors file
with its URL and what happened.
"""

import argparse
import base64
import os
import random
import signal
import socket
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from urls import corpus_files  # noqa: E402

FIELDS = ["requests", "ok", "clean_non200", "clean_5xx", "clean_conn_errors", "fault_answers",
          "fault_conn_errors", "hangups_mid_body", "hangups_early"]
FAULTS = ["/status?code=500", "/status?code=503", "/status?code=404", "/reset", "/truncated?send=100&pad=20000",
          "/reset-after-headers", "/redirect?n=2", "/delay?ms=800", "/html", "/empty", "/raw?kind=midhead",
          "/flaky?fail=1&code=502"]
OPTIONS = ["rs:fit:256:256", "rs:fit:128:128/q:70", "rs:fill:200:200", "rs:fit:512:0/q:80"]

stop = threading.Event()
lock = threading.Lock()
counts = dict.fromkeys(FIELDS, 0)


def bump(name):
    with lock:
        counts[name] += 1


def path_for(source, options, extension=""):
    b64 = base64.urlsafe_b64encode(source.encode()).decode().rstrip("=")
    return "/insecure/%s/%s%s" % (options, b64, extension)


def connect(port, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(120)
    s.connect(("127.0.0.1", port))
    return s


def send_get(s, path):
    s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % path).encode())


def read_head(s):
    """(status, headers dict, body bytes already read) or raises OSError/ValueError."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise ValueError("closed before the end of the head (%d bytes)" % len(data))
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, rest


def get(port, path):
    """(status, body length, declared length) of a whole response."""
    with connect(port) as s:
        send_get(s, path)
        status, headers, body = read_head(s)
        total = len(body)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            total += len(chunk)
        declared = int(headers["content-length"]) if "content-length" in headers else None
        return status, total, declared


def error(errors, what):
    with lock:
        with open(errors, "a", encoding="utf-8") as f:
            f.write("%s\tserve\t%s\n" % (time.strftime("%H:%M:%S"), what))


def normal(args, corpus, rng):
    n = 0
    while not stop.is_set():
        n += 1
        clean = rng.random() < 0.7
        if clean and rng.random() < 0.8:
            source = "http://127.0.0.1:%d/%s?v=%d" % (args.nginx, urllib.parse.quote(rng.choice(corpus)),
                                                      rng.randint(0, 39))
        elif clean:
            source = "http://127.0.0.1:%d/image?pad=%d&key=s%d" % (args.fault, rng.randint(2000, 40000),
                                                                   rng.randint(0, 199))
        else:
            route = rng.choice(FAULTS)
            source = "http://127.0.0.1:%d%s%skey=sf%d" % (args.fault, route, "&" if "?" in route else "?", n)
        path = path_for(source, rng.choice(OPTIONS))
        bump("requests")
        try:
            status, length, declared = get(args.serve, path)
        except (OSError, ValueError) as e:
            if clean:
                bump("clean_conn_errors")
                error(args.errors, "%s: %s (%s)" % (path, type(e).__name__, e))
            else:
                bump("fault_conn_errors")
                error(args.errors, "fault source, broken connection: %s: %s (%s)" % (path, type(e).__name__, e))
            continue
        if status == 200:
            bump("ok")
        if clean and (status != 200 or (declared is not None and declared != length)):
            bump("clean_5xx" if status >= 500 else "clean_non200")
            error(args.errors, "%s: %d, %d of %s bytes (source %s)" % (path, status, length, declared, source))
        elif not clean:
            bump("fault_answers")
        stop.wait(args.pause)


def hang_up_mid_body(args, corpus, rng):
    big = [p for p in corpus if p.endswith(".jpg")] or corpus
    while not stop.is_set():
        source = "http://127.0.0.1:%d/%s?v=%d" % (args.nginx, urllib.parse.quote(rng.choice(big)), rng.randint(0, 9))
        path = path_for(source, "q:90", ".png")
        try:
            with connect(args.serve, rcvbuf=4096) as s:
                send_get(s, path)
                _, _, body = read_head(s)
                got = len(body)
                while got < 16384:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    got += len(chunk)
            bump("hangups_mid_body")
        except (OSError, ValueError) as e:
            error(args.errors, "hang-up client: %s: %s (%s)" % (path, type(e).__name__, e))
        stop.wait(args.pause * 4)


def hang_up_early(args, corpus, rng):
    n = 0
    while not stop.is_set():
        n += 1
        if n % 4 == 0:
            source = "http://127.0.0.1:%d/stall?declare=50000&key=sh%d" % (args.fault, n)
        else:
            source = "http://127.0.0.1:%d/%s?h=%d" % (args.nginx, urllib.parse.quote(rng.choice(corpus)), n)
        path = path_for(source, rng.choice(OPTIONS))
        try:
            with connect(args.serve) as s:
                send_get(s, path)
                if n % 2 == 0:
                    time.sleep(0.2 if n % 4 else 1.0)
                else:
                    read_head(s)
            bump("hangups_early")
        except (OSError, ValueError) as e:
            error(args.errors, "early hang-up client: %s: %s (%s)" % (path, type(e).__name__, e))
        stop.wait(args.pause * 4)


def write_counters(path):
    with lock:
        line = "\t".join(str(counts[f]) for f in FIELDS)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(line + "\n")
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve", type=int, required=True)
    parser.add_argument("--nginx", type=int, required=True)
    parser.add_argument("--fault", type=int, required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--counters", required=True)
    parser.add_argument("--errors", required=True)
    parser.add_argument("--pause", type=float, default=0.05, help="seconds between a thread's requests")
    args = parser.parse_args()
    corpus = corpus_files(args.corpus)
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threads = [threading.Thread(target=f, args=(args, corpus, random.Random(i)), daemon=True)
               for i, f in enumerate([normal, hang_up_mid_body, hang_up_early])]
    for t in threads:
        t.start()
    while not stop.wait(2):
        write_counters(args.counters)
    for t in threads:
        t.join(5)
    write_counters(args.counters)


if __name__ == "__main__":
    main()

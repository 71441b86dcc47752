#!/usr/bin/env python3
"""Pictor's HTTP fault server for tests (loopback only).

Starts a ThreadingHTTPServer on 127.0.0.1, on the port given by --port (0 = any free port),
and prints exactly one line "PORT <n>" on stdout once it is listening. Every request is recorded
before it is answered, so a client that got a response can count it at once (see /_requests).

Image bodies are a small valid PNG (or the file given with --image); `pad=N` appends N bytes
after the image (image decoders ignore trailing bytes; format sniffing only reads the start).

Routes (all GET/HEAD; `key` query parameters isolate per-test state):
  /image?type=T&pad=N          200 image; Content-Type T ("none" = no header; default image/png)
  /octet                       200 image as application/octet-stream
  /delay?ms=N                  wait N ms, then 200 image
  /truncated?send=N            Content-Length = full image + pad, only N bytes sent, then close
  /reset                       connection reset (RST) without any response
  /reset-after-headers         headers with Content-Length, some body, then RST
  /status?code=C               C with an image body (e.g. 404 with an image)
  /flaky?key=K&fail=N&code=C   the first N requests for K answer C (default 500), then 200 image
  /retry-after?key=K&fail=N&after=S  429 with Retry-After: S for the first N, then 200 image
  /html                        200 text/html page
  /empty                       200 with an empty body
  /drip?chunks=N&ms=M&size=B   200 image padded to at least B bytes, sent in N chunks M ms apart
  /huge                        Content-Length 10 GiB, sends 64 KiB then stalls until closed
  /big?key=K&declare=N&send=M&chunked=1&stall=1  image then zeros: up to M bytes (default 1 GiB)
                               in 64 KiB writes, Content-Length N (default M) or chunked; stops
                               when the client hangs up and records the body bytes written under
                               K; with stall=1, after M bytes waits (at most 60 s) for the hang-up
  /stall?key=K&declare=N       headers (Content-Length N, default 1 MiB) and 1 KiB of body, then
                               silence until the client hangs up (at most 60 s); records under K
  /_written?key=K              waits (at most 60 s) until /big or /stall for K has ended, then
                               JSON {"written": body bytes written, "finished": true|false,
                               "hungUp": whether the client closed the connection first}
  /redirect?n=N&code=C&final=P N hops (code C, default 302) then P (default /image); the hops
                               carry cc= / expires= / vary= like /cache
  /loop?hop=I                  redirect loop /loop?hop=0 -> 1 -> 0 ...
  /absolute-redirect?to=URL    one redirect to an absolute URL
  /etag?key=K&cc=CC&tag=T      ETag T (default "v1"); If-None-Match match -> 304; optional Cache-Control;
                               tag304=U sends ETag U on the 304 instead; changes=1 makes the tag
                               "v<N>" for the N-th request for K (a target that changed each time)
  /lastmod?key=K&cc=CC         Last-Modified fixed date; If-Modified-Since equal -> 304
  /cache?cc=CC&expires=E&vary=V  image with Cache-Control CC, optional Expires E and Vary V (raw)
  /user?cc=CC&vary=V           a per-user image: the image, then "user:" and the request's
                               Authorization and Cookie values (an origin that serves each
                               signed-in user their own picture), with cc= / vary= like /cache
  any route: dateoff=S         the Date header is the server's clock moved by S seconds (a
                               server whose clock is off); Expires given as expoff=S is Date + S
  /hold?key=K                  waits (at most 30 s) until /_release?key=K, then 200 image
  /encoded?enc=E&type=T&size=N body compressed with E (gzip, deflate = zlib stream, br, identity)
                               with Content-Encoding E (none for identity) and Content-Length the
                               encoded size; T is png (the image, which grows when compressed),
                               svg (an 8 KiB SVG text, which shrinks) or zeros (N zero bytes,
                               default 1 MiB: a decompression bomb); br answers 501 when the
                               brotli module is missing (see /_features)
  /raw?kind=K                  raw bytes, then close: http09 (an image with no status line), midhead
                               (a status line and one header), dupcl (two different
                               Content-Lengths), badgzip (Content-Encoding gzip on a plain body),
                               switch101 (101 Switching Protocols, then close),
                               hugeheader (a 150 kB header line, then an image), manyheaders
                               (5000 header lines of 100 bytes, then an image)
  /no-headers?key=K            reads the request, then sends nothing until the client hangs up (at
                               most 60 s); records under K like /stall (written 0)
  /slow?key=K&bps=B&size=N     headers (Content-Length N, default 1000), then B bytes (default 1)
                               every second until N were sent, the client hangs up, or 60 s
                               passed; records under K like /stall
  /echo                        (POST, PUT, any method) 200 with the request body as the body
  /_release?key=K              releases every request held under K (and later ones at once)
  /_requests?prefix=P          JSON list of recorded requests whose target starts with P; each
                               has method, target, headers (lower-case names), client (the
                               client's "address:port", one per TCP connection), bodySize
  /_connections?prefix=P       JSON {"connections": distinct client ports, "requests": count} of
                               the recorded requests whose target starts with P
  /_features                   JSON {"brotli": whether br bodies can be made}
  /_reset                      forget recorded requests and counters
"""

import argparse
import gzip
import json
import os
import socket
import struct
import sys
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def make_png(width=4, height=4):
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    # Rows: filter byte 0, then RGB pixels.
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            row += bytes([(x * 50) % 256, (y * 50) % 256, 200])
        rows.append(bytes(row))
    raw = b"".join(rows)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def load_brotli():
    """The brotli module, or None. python3 on PATH may be an interpreter of its own (pyenv) that
    does not see Debian's python3-brotli; its dist-packages folder is tried as a fallback (the
    extension only loads into the same Python version it was built for)."""
    try:
        import brotli
        return brotli
    except ImportError:
        pass
    debian = "/usr/lib/python3/dist-packages"
    if not os.path.isdir(debian):
        return None
    sys.path.append(debian)
    try:
        import brotli
        return brotli
    except ImportError:
        return None
    finally:
        sys.path.remove(debian)


BROTLI = load_brotli()
IMAGE = make_png()
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64">\n'
       + "".join('<rect x="%d" y="%d" width="4" height="4" fill="#%02x%02x%02x"/>\n'
                 % (4 * (i % 16), 4 * (i // 16), (i * 37) % 256, (i * 11) % 256, 200) for i in range(128))
       + "</svg>\n").encode()
LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"
HTML = b"<!DOCTYPE html><html><head><title>Not an image</title></head><body>hello</body></html>"

lock = threading.Lock()
recorded = []          # list of dicts
counters = {}          # key -> int
holds = {}             # key -> threading.Event
written = {}           # key -> body bytes written by /big or /stall
ended = {}             # key -> threading.Event set when that handler returned
hangups = {}           # key -> whether the client closed the connection before the end


def hold_event(key):
    with lock:
        if key not in holds:
            holds[key] = threading.Event()
        return holds[key]


def ended_event(key):
    with lock:
        if key not in ended:
            ended[key] = threading.Event()
        return ended[key]


def bump(key):
    with lock:
        counters[key] = counters.get(key, 0) + 1
        return counters[key]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "PictorFaultServer/1"

    def log_message(self, fmt, *args):  # quiet
        pass

    # -- helpers -----------------------------------------------------------------------------
    def q(self, name, default=None):
        v = self.query.get(name)
        return v[0] if v else default

    def qi(self, name, default):
        try:
            return int(self.q(name, default))
        except (TypeError, ValueError):
            return default

    def body_image(self):
        return IMAGE + b"\x00" * max(0, self.qi("pad", 0))

    def send(self, code, body=b"", ctype="image/png", headers=None):
        self.send_response(code)
        if ctype is not None:
            self.send_header("Content-Type", ctype)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def reset_connection(self):
        try:
            self.wfile.flush()
        except OSError:
            pass
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    # -- dispatch ----------------------------------------------------------------------------
    def do_HEAD(self):
        self.do_GET()

    def do_POST(self):
        self.do_GET()

    def do_PUT(self):
        self.do_GET()

    def do_GET(self):
        parsed = urllib.parse.urlsplit(self.path)
        self.query = urllib.parse.parse_qs(parsed.query)
        route = parsed.path
        length = int(self.headers.get("Content-Length") or 0)
        self.request_body = self.rfile.read(length) if length > 0 else b""
        if not route.startswith("/_"):
            with lock:
                recorded.append({
                    "method": self.command,
                    "target": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "client": "%s:%d" % self.client_address[:2],
                    "bodySize": len(self.request_body),
                    "time": time.time(),
                })
        handler = getattr(self, "route_" + route.strip("/").replace("-", "_"), None)
        if handler is None:
            self.send(404, b"no such route", "text/plain")
            return
        try:
            handler()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    # -- routes ------------------------------------------------------------------------------
    def route_image(self):
        t = self.q("type", "image/png")
        self.send(200, self.body_image(), None if t == "none" else t)

    def route_octet(self):
        self.send(200, self.body_image(), "application/octet-stream")

    def route_delay(self):
        time.sleep(self.qi("ms", 1000) / 1000.0)
        self.send(200, self.body_image())

    def route_truncated(self):
        body = self.body_image()
        send = min(self.qi("send", len(body) // 2), len(body))
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[:send])
        self.wfile.flush()
        self.close_connection = True

    def route_reset(self):
        self.reset_connection()

    def route_reset_after_headers(self):
        body = self.body_image()
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(body) + 100000))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        time.sleep(0.05)
        self.reset_connection()

    def route_status(self):
        self.send(self.qi("code", 404), self.body_image())

    def route_flaky(self):
        n = bump("flaky:" + self.q("key", ""))
        if n <= self.qi("fail", 1):
            self.send(self.qi("code", 500), b"temporary failure", "text/plain")
        else:
            self.send(200, self.body_image())

    def route_retry_after(self):
        n = bump("retry-after:" + self.q("key", ""))
        if n <= self.qi("fail", 1):
            self.send(429, b"slow down", "text/plain", {"Retry-After": self.q("after", "1")})
        else:
            self.send(200, self.body_image())

    def route_html(self):
        self.send(200, HTML, "text/html; charset=utf-8")

    def route_empty(self):
        self.send(200, b"", "image/png")

    def route_drip(self):
        body = IMAGE + b"\x00" * max(0, self.qi("size", 0) - len(IMAGE))
        chunks = max(1, self.qi("chunks", 10))
        pause = self.qi("ms", 100) / 1000.0
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        step = (len(body) + chunks - 1) // chunks
        for i in range(0, len(body), step):
            self.wfile.write(body[i:i + step])
            self.wfile.flush()
            if i + step < len(body):
                time.sleep(pause)

    def route_huge(self):
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(10 * 1024 ** 3))
        self.end_headers()
        self.wfile.write(IMAGE + b"\x00" * (65536 - len(IMAGE)))
        self.wfile.flush()
        # Stall (bounded) until the client gives up.
        deadline = time.time() + 30
        self.connection.settimeout(0.2)
        while time.time() < deadline:
            try:
                if self.connection.recv(1) == b"":
                    break
            except socket.timeout:
                continue
            except OSError:
                break
        self.close_connection = True

    def route_big(self):
        key = self.q("key", "")
        done = ended_event(key)
        total = self.qi("send", 1024 ** 3)
        chunked = self.q("chunked") == "1"
        count = 0
        hung_up = False
        try:
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Content-Length", str(self.qi("declare", total)))
            self.end_headers()
            block = IMAGE + b"\x00" * (65536 - len(IMAGE))
            while count < total:
                piece = block[:min(len(block), total - count)]
                if chunked:
                    self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                else:
                    self.wfile.write(piece)
                count += len(piece)
                block = b"\x00" * 65536
            self.wfile.flush()
            if self.q("stall") == "1":
                hung_up = self.wait_for_hang_up(60)
            elif chunked:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
        except OSError:
            hung_up = True
        finally:
            self.record_end(key, count, hung_up, done)

    def record_end(self, key, count, hung_up, done):
        """Records the body bytes written under `key` and whether the client hung up first."""
        with lock:
            written[key] = count
            hangups[key] = hung_up
        self.close_connection = True
        done.set()

    def route_stall(self):
        key = self.q("key", "")
        done = ended_event(key)
        count = 0
        hung_up = False
        try:
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(self.qi("declare", 1024 * 1024)))
            self.end_headers()
            body = IMAGE + b"\x00" * (1024 - len(IMAGE))
            self.wfile.write(body)
            self.wfile.flush()
            count = len(body)
            hung_up = self.wait_for_hang_up(60)
        except OSError:
            hung_up = True
        finally:
            self.record_end(key, count, hung_up, done)

    def wait_for_hang_up(self, seconds):
        """True once the client closed the connection, False after `seconds` without that."""
        self.connection.settimeout(0.2)
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                if self.connection.recv(65536) == b"":
                    return True
            except socket.timeout:
                continue
            except OSError:
                return True
        return False

    def route__written(self):
        key = self.q("key", "")
        finished = ended_event(key).wait(60)
        with lock:
            n = written.get(key, 0)
            hung_up = hangups.get(key, False)
        self.send(200, json.dumps({"written": n, "finished": finished, "hungUp": hung_up}).encode(), "application/json")

    def route_redirect(self):
        n = self.qi("n", 1)
        code = self.qi("code", 302)
        final = self.q("final", "/image")
        headers = self.cc_headers()
        if n <= 0:
            headers["Location"] = final
            self.send(code, b"", None, headers)
            return
        rest = dict((k, v[0]) for k, v in self.query.items())
        rest["n"] = str(n - 1)
        if n - 1 == 0:
            location = final
        else:
            location = "/redirect?" + urllib.parse.urlencode(rest)
        headers["Location"] = location
        self.send(code, b"", None, headers)

    def route_loop(self):
        hop = self.qi("hop", 0)
        self.send(302, b"", None, {"Location": "/loop?hop=%d" % ((hop + 1) % 2)})

    def route_absolute_redirect(self):
        self.send(302, b"", None, {"Location": self.q("to", "/image")})

    def date_time_string(self, timestamp=None):
        # A server whose clock is off: every Date header (and expoff's Expires) moves with it.
        if timestamp is None:
            timestamp = time.time() + (self.qi("dateoff", 0) if hasattr(self, "query") else 0)
        return super().date_time_string(timestamp)

    def cc_headers(self):
        h = {}
        if self.q("cc") is not None:
            h["Cache-Control"] = self.q("cc")
        if self.q("expires") is not None:
            h["Expires"] = self.q("expires")
        if self.q("expoff") is not None:
            h["Expires"] = self.date_time_string(time.time() + self.qi("dateoff", 0) + self.qi("expoff", 0))
        if self.q("vary") is not None:
            h["Vary"] = self.q("vary")
        return h

    def route_etag(self):
        tag = '"%s"' % self.q("tag", "v1")
        if self.q("changes") == "1":
            tag = '"v%d"' % bump("etag-changes-" + self.q("key", ""))
        h = self.cc_headers()
        h["ETag"] = tag
        inm = self.headers.get("If-None-Match")
        if inm is not None and tag in [t.strip() for t in inm.split(",")]:
            # tag304=U: the 304 names another representation (a broken or racing server)
            if self.q("tag304", ""):
                h["ETag"] = '"%s"' % self.q("tag304", "")
            self.send(304, b"", None, h)
        else:
            self.send(200, self.body_image(), "image/png", h)

    def route_lastmod(self):
        h = self.cc_headers()
        h["Last-Modified"] = LAST_MODIFIED
        if self.headers.get("If-Modified-Since") == LAST_MODIFIED:
            self.send(304, b"", None, h)
        else:
            self.send(200, self.body_image(), "image/png", h)

    def route_cache(self):
        self.send(200, self.body_image(), "image/png", self.cc_headers())

    def route_user(self):
        who = "user:%s|%s" % (self.headers.get("Authorization", ""), self.headers.get("Cookie", ""))
        self.send(200, self.body_image() + who.encode("utf-8"), "image/png", self.cc_headers())

    def route_hold(self):
        hold_event(self.q("key", "")).wait(30)
        self.send(200, self.body_image())

    def route_encoded(self):
        kind = self.q("type", "png")
        if kind == "svg":
            raw, ctype = SVG, "image/svg+xml"
        elif kind == "zeros":
            raw, ctype = b"\x00" * max(0, self.qi("size", 1024 * 1024)), "application/octet-stream"
        else:
            raw, ctype = IMAGE, "image/png"
        enc = self.q("enc", "gzip")
        if enc == "gzip":
            body = gzip.compress(raw)
        elif enc == "deflate":
            body = zlib.compress(raw)
        elif enc == "br":
            if BROTLI is None:
                self.send(501, b"brotli module missing", "text/plain")
                return
            body = BROTLI.compress(raw)
        elif enc == "identity":
            body = raw
        else:
            self.send(400, b"unknown encoding", "text/plain")
            return
        headers = {} if enc == "identity" else {"Content-Encoding": enc}
        self.send(200, body, ctype, headers)

    def route_raw(self):
        """Answers that are not (valid) HTTP, written straight to the socket, then closed."""
        kind = self.q("kind", "http09")
        if kind == "http09":            # no status line at all (HTTP/0.9 style)
            raw = IMAGE
        elif kind == "midhead":         # a status line and a header, then the connection closes
            raw = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n"
        elif kind == "dupcl":           # two different Content-Lengths (RFC 9112 section 6.3)
            raw = (b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\n"
                   b"Content-Length: 10\r\n\r\n" % len(IMAGE)) + IMAGE
        elif kind == "badgzip":         # labelled gzip, but not gzip
            raw = (b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Encoding: gzip\r\n"
                   b"Content-Length: %d\r\n\r\n" % len(IMAGE)) + IMAGE
        elif kind == "switch101":       # 101 to a request that asked for no upgrade, then close
            raw = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        elif kind == "manyheaders":     # 5000 header lines of 100 bytes: a 500 kB head
            raw = (b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n" +
                   b"".join(b"X-Filler-%04d: %s\r\n" % (i, b"f" * 84) for i in range(5000)) +
                   b"Content-Length: %d\r\n\r\n" % len(IMAGE)) + IMAGE
        elif kind == "hugeheader":      # one header line of 150 kB (libcurl takes at most 100 kB)
            raw = (b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nX-Padding: " + b"a" * 150_000 +
                   b"\r\nContent-Length: %d\r\n\r\n" % len(IMAGE)) + IMAGE
        else:
            raw = b""
        try:
            self.wfile.write(raw)
            self.wfile.flush()
        except OSError:
            pass
        self.close_connection = True

    def route_no_headers(self):
        key = self.q("key", "")
        done = ended_event(key)
        hung_up = False
        try:
            hung_up = self.wait_for_hang_up(60)
        finally:
            self.record_end(key, 0, hung_up, done)

    def route_slow(self):
        key = self.q("key", "")
        done = ended_event(key)
        size = max(0, self.qi("size", 1000))
        step = max(1, self.qi("bps", 1))
        count = 0
        hung_up = False
        try:
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            self.wfile.flush()
            body = IMAGE + b"\x00" * max(0, size - len(IMAGE))
            deadline = time.time() + 60
            while count < size and time.time() < deadline:
                time.sleep(1)
                piece = body[count:count + step]
                self.wfile.write(piece)
                self.wfile.flush()
                count += len(piece)
        except OSError:
            hung_up = True
        finally:
            self.record_end(key, count, hung_up, done)

    def route_echo(self):
        self.send(200, self.request_body, "application/octet-stream")

    def route__connections(self):
        prefix = self.q("prefix", "")
        with lock:
            items = [r for r in recorded if r["target"].startswith(prefix)]
        answer = {"connections": len({r["client"] for r in items}), "requests": len(items)}
        self.send(200, json.dumps(answer).encode(), "application/json")

    def route__features(self):
        self.send(200, json.dumps({"brotli": BROTLI is not None}).encode(), "application/json")

    def route__release(self):
        hold_event(self.q("key", "")).set()
        self.send(204, b"", None)

    def route__requests(self):
        prefix = self.q("prefix", "")
        with lock:
            items = [r for r in recorded if r["target"].startswith(prefix)]
        self.send(200, json.dumps(items).encode(), "application/json")

    def route__reset(self):
        with lock:
            recorded.clear()
            counters.clear()
        self.send(204, b"", None)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256


def main():
    global IMAGE
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--image", default=None)
    args = parser.parse_args()
    if args.image:
        with open(args.image, "rb") as f:
            IMAGE = f.read()
    server = Server(("127.0.0.1", args.port), Handler)
    sys.stdout.write("PORT %d\n" % server.server_address[1])
    sys.stdout.flush()
    # Exit when the parent closes our stdin (the test process died).
    def watch_stdin():
        try:
            while sys.stdin.buffer.read(1):
                pass
        finally:
            import os
            os._exit(0)
    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    main()

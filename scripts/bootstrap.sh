#!/usr/bin/env bash
# Installs, with apt-get, the system packages Pictor builds, tests, demos and benchmarks with.
#
#   scripts/bootstrap.sh                    every group below
#   scripts/bootstrap.sh build [test|demo|bench|docs|deploy ...]   only the groups named
#
#   build  the C libraries' headers and pkg-config: what `swift build` needs (and `pictor` at run time)
#   test   build + the servers and tools the test suite starts (nginx, redis, python3, openssl, chromium)
#   demo   build + what scripts/demo.sh runs (nginx, vips, python3, curl)
#   bench  build + what scripts/bench.sh runs (nginx and its image_filter module, redis, curl, wrk,
#          GNU time, openssl, a Python venv)
#   docs   build (DocC itself ships with the Swift toolchain)
#   deploy build + what scripts/deploy-check.sh runs (nginx with TLS and HTTP/2, openssl, curl,
#          python3; systemd-analyze when present, which a machine with systemd has)
#
# Idempotent: packages already present are not touched, and apt-get update runs at most once.
# It never stops, starts or kills a service or process. Packages such as nginx-light and
# redis-server start a system service when installed; while apt-get runs, a temporary
# /usr/sbin/policy-rc.d that answers 101 ("action forbidden") keeps them from starting (both
# invoke-rc.d and deb-systemd-invoke ask it). It is written only when none exists, and removed
# as soon as apt-get is done. Pictor's tests, demo and benchmarks start their own servers on
# free loopback ports.
# Debian 12 (bookworm) package names; run as root (or with sudo available).
set -euo pipefail

BUILD=(
  pkg-config        # SwiftPM reads the C libraries' flags through it
  libvips-dev       # PictorVips: decode, thumbnail, process, encode
  libssl-dev        # PictorCrypto: SHA-256, HMAC, HKDF, AES-256-GCM (libcrypto)
  libsqlite3-dev    # PictorDiskCache: the cache index
  libturbojpeg0-dev # PictorVips: TurboJPEG header probes / JPEG fast path
  libjpeg62-turbo-dev # PictorVips: progressive JPEG previews (libjpeg's buffered-image mode, CJPEGShim)
  libspng-dev       # PictorVips: PNG fast path (header chunks, palette/16-bit/interlaced decode)
  libdeflate-dev    # PictorVips: PNG fast path (whole-buffer inflate, ~1.5x zlib 1.2 here)
  libpng-dev        # PictorVips: incremental PNG previews (libpng's progressive reader, CPNGShim)
  libwebp-dev       # PictorVips: WebP fast path (libwebp scaled decode, libwebpdemux container)
  libcurl4-openssl-dev # PictorCurl: HTTP(S) on libcurl's multi interface (headers, pkg-config)
  libhiredis-dev    # PictorRedis: the Redis client (hiredis 0.14 on Debian 12: no TLS)
  libmicrohttpd-dev # PictorServer: the image service's HTTP/1.1 server (`pictor serve`)
  ca-certificates   # HTTPS: the certificates libcurl verifies servers with
)
TEST=(
  redis-server      # PictorRedis tests start their own single-node and cluster servers
  redis-tools       # `redis-cli --cluster create` joins the test cluster
  nginx-light       # tests serve images from 127.0.0.1
  python3           # the fault-injection HTTP server used by the loader tests
  python3-brotli    # the fault server's br-encoded bodies (the br decoding test skips without it)
  openssl           # a private CA and its certificates for the TLS tests (transport and CLI)
  chromium          # headless screenshots of the demo's contact sheet (ContactSheetTests; runs as root with --no-sandbox)
  fonts-dejavu-core # a font for those screenshots' text
)
DEMO=(
  nginx-light       # serves the demo's images from 127.0.0.1
  libvips-tools     # `vips` CLI: the demo generates images with it when the corpus is absent
  python3           # a free port, and the contact sheet
  curl              # waits for nginx to answer
)
BENCH=(
  nginx-light       # the download and fleet rows serve images from 127.0.0.1
  redis-server      # the fleet rows' Redis and Redis Cluster
  redis-tools
  curl              # the download reference
  time              # GNU time: peak RSS of whole processes
  openssl           # a certificate for the HTTP/2 (TLS) rows
  python3           # the Pillow reference runs in a virtual environment
  python3-venv
  libvips-tools     # vipsthumbnail: an end-to-end peer (rows e2e.*)
  wrk               # the service rows' load generator (a Lua request() gives each request its own URL)
  libnginx-mod-http-image-filter # nginx image_filter (libgd): a peer of the service rows
)
DEPLOY=(
  nginx-light       # docs/deploy/nginx.conf in front of serve: TLS and HTTP/2 (nginx-light has both)
  openssl           # the check's self-signed certificate
  curl              # HTTP/2 requests to that nginx (Debian's curl has nghttp2)
  python3           # free ports and the URL signer
)

groups=("$@")
[ ${#groups[@]} -eq 0 ] && groups=(build test demo bench docs deploy)

PACKAGES=()
for group in "${groups[@]}"; do
  case "$group" in
    build|docs) PACKAGES+=("${BUILD[@]}") ;;
    test) PACKAGES+=("${BUILD[@]}" "${TEST[@]}") ;;
    demo) PACKAGES+=("${BUILD[@]}" "${DEMO[@]}") ;;
    bench) PACKAGES+=("${BUILD[@]}" "${BENCH[@]}") ;;
    deploy) PACKAGES+=("${BUILD[@]}" "${DEPLOY[@]}") ;;
    *) echo "bootstrap: unknown group '$group' (build, test, demo, bench, docs, deploy)" >&2; exit 64 ;;
  esac
done

missing=()
for p in "${PACKAGES[@]}"; do
  [[ " ${missing[*]-} " == *" $p "* ]] && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all system packages present (${groups[*]})"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Keep the packages' services from starting: a policy-rc.d of our own for the length of apt-get,
# only when the machine has none (one that exists is the machine's policy and is left alone).
POLICY=/usr/sbin/policy-rc.d
wrote_policy=0
remove_policy() {
  if [ "$wrote_policy" = 1 ]; then
    $SUDO rm -f "$POLICY"
    wrote_policy=0
  fi
}
if [ ! -e "$POLICY" ]; then
  trap remove_policy EXIT
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 143' TERM
  wrote_policy=1
  printf '%s\n' '#!/bin/sh' \
    '# Written by Pictor scripts/bootstrap.sh while apt-get runs: no service starts at install.' \
    'exit 101' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod 755 "$POLICY"
fi

echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
remove_policy
echo "bootstrap: done"

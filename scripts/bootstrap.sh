#!/usr/bin/env bash
# Installs, with apt-get, the system packages Pictor builds, tests and demos with. Idempotent:
# packages already present are not touched, and apt-get update runs at most once.
# Debian 12 (bookworm) package names; run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  pkg-config        # SwiftPM reads the C libraries' flags through it
  libvips-dev       # PictorVips: decode, thumbnail, process, encode
  libvips-tools     # `vips` CLI: the demo generates images with it when the corpus is absent
  libssl-dev        # PictorCrypto: SHA-256, HMAC, HKDF, AES-256-GCM (libcrypto)
  libsqlite3-dev    # PictorDiskCache: the cache index
  libturbojpeg0-dev # PictorVips: TurboJPEG header probes / JPEG fast path
  libcurl4-openssl-dev # PictorCurl: HTTP(S) on libcurl's multi interface (headers, pkg-config)
  libhiredis-dev    # PictorRedis: the Redis client (hiredis 0.14 on Debian 12: no TLS)
  redis-server      # PictorRedis tests start their own single-node and cluster servers
  redis-tools       # `redis-cli --cluster create` joins the test cluster
  nginx-light       # tests, demo and benchmarks serve images from 127.0.0.1
  python3           # the fault-injection HTTP server used by the loader tests
  python3-brotli    # the fault server's br-encoded bodies (the br decoding test skips without it)
  curl              # the download reference in the benchmark suite
  time              # GNU time: peak RSS of whole processes in the benchmark suite
  openssl           # a certificate for the benchmark suite's HTTP/2 (TLS) rows
  ca-certificates
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all system packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
# nginx-light's package starts a system nginx on port 80 when this script installs it; Pictor
# starts its own on free ports. Stop that one alone: the service, else the PID its package wrote.
if [[ " ${missing[*]} " == *" nginx-light "* ]]; then
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet nginx 2>/dev/null; then
    $SUDO systemctl stop nginx >/dev/null 2>&1 || true
  elif [ -s /run/nginx.pid ]; then
    $SUDO kill "$(cat /run/nginx.pid)" >/dev/null 2>&1 || true
  fi
fi
# redis-server's package likewise starts a system redis on port 6379 when this script installs
# it; the tests start their own on free ports. Stop that one alone, the same way.
if [[ " ${missing[*]} " == *" redis-server "* ]]; then
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet redis-server 2>/dev/null; then
    $SUDO systemctl stop redis-server >/dev/null 2>&1 || true
  elif [ -s /run/redis/redis-server.pid ]; then
    $SUDO kill "$(cat /run/redis/redis-server.pid)" >/dev/null 2>&1 || true
  fi
fi
echo "bootstrap: done"

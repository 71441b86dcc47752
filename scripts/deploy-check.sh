#!/usr/bin/env bash
# Checks the deployment files in docs/deploy, on loopback only:
#   1. `systemd-analyze verify` on docs/deploy/pictor.service (skipped, with a message, where
#      the command does not exist);
#   2. starts `pictor serve` with the unit's own ExecStart line (the binary, port and cache
#      directory replaced by this run's) and an environment file as the unit reads one;
#   3. starts nginx (its own prefix in a temporary directory) with docs/deploy/nginx.conf, its
#      port, certificate paths and upstream replaced, a self-signed certificate made with
#      openssl, and an origin on another loopback port serving one small JPEG;
#   4. checks that a signed request over HTTPS and HTTP/2 (curl --http2 -k) gets 200 and JPEG
#      bytes, the same request with the ETag in If-None-Match gets 304, /health answers 200
#      ok with the disk tier, and /metrics is not served by the front;
#   5. stops serve with SIGTERM (it must drain and exit 0) and nginx, each by its own PID.
#
#   scripts/deploy-check.sh              builds pictor (debug) when PICTOR is not set
#   PICTOR=/path/to/pictor scripts/deploy-check.sh
#
# Needs nginx (with ssl and http_v2, as Debian's nginx-light), openssl, curl and python3
# (scripts/bootstrap.sh deploy). Takes about 2 s here once pictor is built.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s.%N)

UNIT=docs/deploy/pictor.service
SITE=docs/deploy/nginx.conf
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
# imgproxy's documentation key and salt: a check, not a secret.
KEY=943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881
SALT=520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pictor-deploy-check.XXXXXX")
# nginx's workers run as nobody when the master is root: they read the origin's file.
chmod 0755 "$WORK"
SERVE_PID=""
cleanup() {
  if [ -n "$SERVE_PID" ]; then kill -TERM "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; fi
  if [ -s "$WORK/nginx/nginx.pid" ]; then kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "deploy-check: FAIL: $*" >&2
  for log in "$WORK/serve.log" "$WORK/nginx/error.log"; do
    [ -s "$log" ] && { echo "--- $log" >&2; tail -n 20 "$log" >&2; }
  done
  exit 1
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

if [ -z "${PICTOR:-}" ]; then
  nice -n 10 swift build --product pictor >/dev/null
  PICTOR="$(swift build --show-bin-path)/pictor"
fi
[ -x "$PICTOR" ] || fail "no pictor binary at $PICTOR"

echo "== systemd unit: $UNIT"
sed "s#/usr/local/bin/pictor#$PICTOR#" "$UNIT" > "$WORK/pictor.service"
if command -v systemd-analyze >/dev/null; then
  systemd-analyze verify "$WORK/pictor.service" || fail "systemd-analyze verify $UNIT"
  echo "systemd-analyze verify: ok"
else
  echo "systemd-analyze not found: the unit is not verified (install systemd to check it)"
fi

SERVE_PORT=$(free_port); ORIGIN_PORT=$(free_port); TLS_PORT=$(free_port)
mkdir -p "$WORK/nginx/origin" "$WORK/tls"
# A 16×16 JPEG, so that the check needs no image tool.
echo "/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAQABADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwCOiiigD//Z" | base64 -d > "$WORK/nginx/origin/tiny.jpg"
chmod 0755 "$WORK/nginx" "$WORK/nginx/origin"; chmod 0644 "$WORK/nginx/origin/tiny.jpg"

echo "== pictor serve on 127.0.0.1:$SERVE_PORT, with the unit's ExecStart"
EXEC=$(sed -n 's/^ExecStart=//p' "$UNIT")
[ -n "$EXEC" ] || fail "no ExecStart in $UNIT"
for shipped in /usr/local/bin/pictor 127.0.0.1:8080 '${CACHE_DIRECTORY}'; do
  [[ "$EXEC" == *"$shipped"* ]] || fail "the unit's ExecStart no longer has $shipped: update this script"
done
EXEC=${EXEC//\/usr\/local\/bin\/pictor/$PICTOR}
EXEC=${EXEC//127.0.0.1:8080/127.0.0.1:$SERVE_PORT}
EXEC=${EXEC//'${CACHE_DIRECTORY}'/$WORK/cache}
read -ra ARGS <<< "$EXEC"
# The environment file, as EnvironmentFile= reads it. The origin is on loopback, which serve
# refuses by default: this check allows private networks, as no deployment should.
cat > "$WORK/pictor.env" <<ENV
PICTOR_KEY=$KEY
PICTOR_SALT=$SALT
PICTOR_ALLOW_SOURCE=http://127.0.0.1:$ORIGIN_PORT/
PICTOR_ALLOW_PRIVATE_NETWORK=1
ENV
mkdir -p "$WORK/cache"
( set -a; . "$WORK/pictor.env"; set +a; exec "${ARGS[@]}" ) > "$WORK/serve.out" 2> "$WORK/serve.log" &
SERVE_PID=$!
for _ in $(seq 1 100); do
  grep -q '^listening on' "$WORK/serve.out" 2>/dev/null && break
  kill -0 "$SERVE_PID" 2>/dev/null || fail "pictor serve exited"
  sleep 0.1
done
grep -q '^listening on' "$WORK/serve.out" || fail "pictor serve did not listen"

echo "== nginx on 127.0.0.1:$TLS_PORT (TLS, HTTP/2) with $SITE"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$WORK/tls/key.pem" -out "$WORK/tls/cert.pem" 2>/dev/null || fail "openssl could not make a certificate"
sed -e "s#listen 443 ssl http2;#listen 127.0.0.1:$TLS_PORT ssl http2;#" \
    -e '/listen \[::\]:443/d' \
    -e "s#/etc/ssl/pictor/fullchain.pem#$WORK/tls/cert.pem#" \
    -e "s#/etc/ssl/pictor/privkey.pem#$WORK/tls/key.pem#" \
    -e "s#server 127.0.0.1:8080;#server 127.0.0.1:$SERVE_PORT;#" \
    "$SITE" > "$WORK/nginx/pictor.conf"
for replaced in "127.0.0.1:$TLS_PORT ssl http2" "$WORK/tls/cert.pem" "$WORK/tls/key.pem" "server 127.0.0.1:$SERVE_PORT;"; do
  grep -qF "$replaced" "$WORK/nginx/pictor.conf" || fail "$SITE changed shape (no '$replaced' after templating): update this script"
done
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 256; }
http {
    access_log $WORK/nginx/access.log;
    client_body_temp_path $WORK/nginx/client_body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    types { image/jpeg jpg; }
    # The origin.
    server {
        listen 127.0.0.1:$ORIGIN_PORT;
        root $WORK/nginx/origin;
    }
    include $WORK/nginx/pictor.conf;
}
CONF
"$NGINX" -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" 2>> "$WORK/nginx/error.log" || fail "nginx did not start"
for _ in $(seq 1 50); do
  [ -s "$WORK/nginx/nginx.pid" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$ORIGIN_PORT/tiny.jpg")" = 200 ] && break
  sleep 0.1
done

echo "== a signed request over HTTPS and HTTP/2"
TARGET=$(python3 - "$KEY" "$SALT" "/rs:fit:8:8/plain/http://127.0.0.1:$ORIGIN_PORT/tiny.jpg" <<'PY'
import base64, hashlib, hmac, sys
key, salt, path = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2]), sys.argv[3]
signature = base64.urlsafe_b64encode(hmac.new(key, salt + path.encode(), hashlib.sha256).digest()).rstrip(b"=").decode()
print(f"/{signature}{path}")
PY
)
URL="https://127.0.0.1:$TLS_PORT$TARGET"
status_line() { head -n 1 "$1" | awk '{ print $1, $2 }'; }
header() { grep -i "^$2:" "$1" | head -n 1 | cut -d' ' -f2- | tr -d '\r'; }
curl --http2 -k -sS -D "$WORK/first.head" -o "$WORK/first.body" "$URL" || fail "curl $URL"
[ "$(status_line "$WORK/first.head")" = "HTTP/2 200" ] || fail "first request: $(status_line "$WORK/first.head"), expected HTTP/2 200"
[ "$(header "$WORK/first.head" content-type)" = image/jpeg ] || fail "first request: Content-Type $(header "$WORK/first.head" content-type)"
[ "$(head -c 2 "$WORK/first.body" | od -An -tx1 | tr -d ' ')" = ffd8 ] || fail "first request: the body is not a JPEG"
ETAG=$(header "$WORK/first.head" etag)
[ -n "$ETAG" ] || fail "first request: no ETag"
echo "200, $(wc -c < "$WORK/first.body") bytes of JPEG, ETag $ETAG"
curl --http2 -k -sS -D "$WORK/second.head" -o "$WORK/second.body" -H "If-None-Match: $ETAG" "$URL" || fail "curl $URL (revalidation)"
[ "$(status_line "$WORK/second.head")" = "HTTP/2 304" ] || fail "revalidation: $(status_line "$WORK/second.head"), expected HTTP/2 304"
[ ! -s "$WORK/second.body" ] || fail "revalidation: a 304 with a body"
echo "If-None-Match: 304"
curl --http2 -k -sS -D "$WORK/health.head" -o "$WORK/health.body" "https://127.0.0.1:$TLS_PORT/health" || fail "curl /health"
[ "$(status_line "$WORK/health.head")" = "HTTP/2 200" ] && [ "$(cat "$WORK/health.body")" = "$(printf 'ok\ndisk: ok')" ] \
  || fail "/health: $(status_line "$WORK/health.head") $(cat "$WORK/health.body")"
echo "/health: 200 ok, disk: ok"
metrics=$(curl --http2 -k -sS -o /dev/null -w '%{http_code}' "https://127.0.0.1:$TLS_PORT/metrics")
[ "$metrics" = 404 ] || fail "/metrics through nginx: $metrics, expected 404"
echo "/metrics: not served by the front (404)"

echo "== SIGTERM: serve drains and exits 0"
kill -TERM "$SERVE_PID"
code=0; wait "$SERVE_PID" || code=$?
SERVE_PID=""
[ "$code" = 0 ] || fail "pictor serve exited $code after SIGTERM"
echo "exit 0"
echo "deploy-check: ok ($(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$started" "$(date +%s.%N)") s)"

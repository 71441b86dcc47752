#!/usr/bin/env bash
# The soak (a benchmark, never a CI test): for N minutes at once, on loopback only,
#   1. a loop of `pictor prefetch LIST --resize 256 --cache-dir C --size-limit 4M` (release
#      build) over about 300 distinct URLs a run, about 30 % of them injected faults from the
#      fault server (stalls, resets, truncations, 5xx, redirects, …) and 70 % clean images
#      (nginx serving ../shared/corpus read only, and the fault server's /image?pad=N); the
#      limit is a fraction of one run's bytes, so eviction runs all the time;
#   2. a second process reading the same cache: `pictor cache stats`, `cache list`,
#      `cache verify` and `pictor fetch` of clean URLs the last run loaded, in a loop;
#   3. `pictor serve --insecure-unsigned --allow-private-network` (its own cache, 8M) on
#      127.0.0.1 with the same origins, under scripts/soak/serve_load.py: normal GETs and
#      clients that hang up mid-body or before the answer.
# Every 5 s it samples serve's RSS, open descriptors and threads (/proc) and requests in flight
# (/metrics), both caches' entry files (what the limit counts) and whole directory (du), and
# the counters; each prefetch run's peak RSS (GNU time %M) and exit code go to a
# second table. Errors other than the injected ones (a clean URL that failed, an exit code that
# is not 0 or "some URLs failed", a verify that found bad entries, a non-200 from serve for a
# clean source, a crash) are listed; the target is none. The summary gives, after the first
# minute, the least-squares slope per minute of each series, and the same over the run's second
# half (scripts/soak/summarize.py).
#
#   scripts/soak.sh [--minutes N] [--warmup S] [--out FILE] [--keep] [--pictor FILE]
#     --minutes N   how long the load runs (default 10)
#     --warmup S    seconds the fits leave out (default 60); the summary also gives each
#                   series' slope over the run's second half
#     --out FILE    the markdown summary (default out/soak.md); beside it FILE's stem with
#                   .tsv (samples), -runs.tsv (prefetch runs) and -errors.log
#     --keep        keep the temporary directory (caches, logs, reports) and print its path
#     --pictor FILE use this pictor binary instead of building the release one
#
# Needs python3, curl, nginx, GNU time (/usr/bin/time) and a release build of pictor, which it makes
# (scripts/bootstrap.sh bench installs the packages). Every process runs under nice 10; every
# process it starts is stopped by its PID on exit. About N + 1 minutes, plus the build.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

MINUTES=10
WARMUP=60
OUT=out/soak.md
KEEP=0
PICTOR=
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES=${2:?--minutes needs a number}; shift 2 ;;
    --warmup) WARMUP=${2:?--warmup needs seconds}; shift 2 ;;
    --out) OUT=${2:?--out needs a file}; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --pictor) PICTOR=${2:?--pictor needs a file}; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak: unknown argument '$1' (--minutes N, --warmup S, --out FILE, --keep, --pictor FILE)" >&2; exit 64 ;;
  esac
done
case "$MINUTES" in ''|*[!0-9]*|0) echo "soak: --minutes takes a whole number of minutes ≥ 1" >&2; exit 64 ;; esac
case "$WARMUP" in ''|*[!0-9]*) echo "soak: --warmup takes a whole number of seconds" >&2; exit 64 ;; esac

fail() {
  echo "soak: ERROR: $*" >&2
  exit 1
}

for tool in python3 curl /usr/bin/time; do command -v "$tool" >/dev/null || fail "$tool is missing (scripts/bootstrap.sh bench)"; done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || fail "nginx is missing (scripts/bootstrap.sh bench)"
CORPUS=$(cd "$ROOT/../shared/corpus" 2>/dev/null && pwd) || fail "no corpus at ../shared/corpus"
renice -n 10 $$ >/dev/null

if [ -z "$PICTOR" ]; then
  echo "== building pictor (release)"
  swift build -c release --static-swift-stdlib --product pictor 2>&1 | { grep -v "prohibited flag" || true; }
  [ "${PIPESTATUS[0]}" = 0 ] || fail "the pictor build failed (see above)"
  PICTOR="$(swift build -c release --show-bin-path)/pictor"
fi
[ -x "$PICTOR" ] || fail "no pictor binary at $PICTOR"

mkdir -p "$(dirname "$OUT")"
STEM="${OUT%.md}"
SAMPLES="$STEM.tsv"
RUNS="$STEM-runs.tsv"
ERRORS="$STEM-errors.log"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pictor-soak.XXXXXX")
CACHE="$TMP/cache"
SERVE_CACHE="$TMP/serve-cache"
LIMIT=4M
LIMIT_BYTES=$((4 * 1024 * 1024))
SERVE_LIMIT=8M
SERVE_LIMIT_BYTES=$((8 * 1024 * 1024))
: > "$ERRORS"

# Every PID this script starts; stopped on exit, each by its own PID (never by name).
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  [ -s "$TMP/prefetch.pid" ] && kill "$(cat "$TMP/prefetch.pid")" 2>/dev/null
  [ -s "$TMP/nginx/nginx.pid" ] && kill "$(cat "$TMP/nginx/nginx.pid")" 2>/dev/null
  sleep 0.5
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; done
  if [ "$KEEP" = 1 ]; then echo "soak: kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The origin, part 1: nginx serving the corpus, read only.
NGINX_PORT=$(free_port)
mkdir -p "$TMP/nginx"
sed -e "s|@PORT@|$NGINX_PORT|g" -e "s|@ROOT@|$CORPUS|g" -e "s|@RUNDIR@|$TMP/nginx|g" \
  scripts/nginx/demo.conf.template > "$TMP/nginx/nginx.conf"
"$NGINX" -c "$TMP/nginx/nginx.conf" -p "$TMP/nginx" 2>"$TMP/nginx/start.log" \
  || fail "nginx did not start ($(cat "$TMP/nginx/start.log"))"

# The origin, part 2: the fault server. It exits when its standard input closes, so it reads
# a FIFO this script holds open; its recorded requests are forgotten every minute (/_reset).
mkfifo "$TMP/fault.in"
exec 7<>"$TMP/fault.in"
python3 Tests/Servers/fault_server.py --port 0 < "$TMP/fault.in" > "$TMP/fault.out" 2>"$TMP/fault.err" &
PIDS+=($!)
FAULT_PID=$!
for _ in $(seq 100); do grep -q '^PORT ' "$TMP/fault.out" 2>/dev/null && break; sleep 0.1; done
FAULT_PORT=$(awk '/^PORT /{print $2}' "$TMP/fault.out")
[ -n "$FAULT_PORT" ] || fail "the fault server did not start ($(cat "$TMP/fault.err"))"

# The service: its own cache, loopback only.
"$PICTOR" serve --listen 127.0.0.1:0 --insecure-unsigned --allow-private-network \
  --cache-dir "$SERVE_CACHE" --size-limit "$SERVE_LIMIT" > "$TMP/serve.out" 2>"$TMP/serve.log" &
SERVE_PID=$!
PIDS+=("$SERVE_PID")
for _ in $(seq 300); do grep -q '^listening on ' "$TMP/serve.out" 2>/dev/null && break; sleep 0.1; done
SERVE_PORT=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$TMP/serve.out")
[ -n "$SERVE_PORT" ] || fail "pictor serve did not start ($(tail -5 "$TMP/serve.log"))"

echo "== origin: nginx 127.0.0.1:$NGINX_PORT, fault server 127.0.0.1:$FAULT_PORT; serve 127.0.0.1:$SERVE_PORT (pid $SERVE_PID)"
echo "== soak for $MINUTES min from $(date -u '+%H:%M:%S') UTC; load average $(cut -d' ' -f1-3 /proc/loadavg)"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
START=$(date +%s)
END=$((START + MINUTES * 60))

note_error() { printf '%s\t%s\t%s\n' "$(date -u +%H:%M:%S)" "$1" "$2" >> "$ERRORS"; }

# 1. The prefetch loop. Each run's peak RSS (kB) and wall time come from GNU time; the run's
# own PID goes to prefetch.pid so that the end of the soak can interrupt it (exit 130).
prefetch_loop() {
  local run=0 rc peak secs started urls failed clean_failed
  printf 'run\tstart_s\tend_s\texit\tpeak_rss_kib\tseconds\turls\tfailed\tclean_failed\n' > "$RUNS"
  while [ "$(date +%s)" -lt "$END" ]; do
    run=$((run + 1))
    python3 scripts/soak/urls.py --run "$run" --nginx "$NGINX_PORT" --fault "$FAULT_PORT" --corpus "$CORPUS" \
      > "$TMP/list.txt"
    started=$(( $(date +%s) - START ))
    /usr/bin/time -f '%M %e' -o "$TMP/time.txt" \
      sh -c 'echo $$ > "$1"; shift; exec "$@"' sh "$TMP/prefetch.pid" \
      "$PICTOR" prefetch "$TMP/list.txt" --resize 256 --cache-dir "$CACHE" --size-limit "$LIMIT" -q \
      --report "$TMP/report.tsv" > "$TMP/prefetch.out" 2> "$TMP/prefetch.err"
    rc=$?
    : > "$TMP/prefetch.pid"
    read -r peak secs < <(tail -1 "$TMP/time.txt")
    urls=$(wc -l < "$TMP/list.txt")
    failed=$(awk -F'\t' 'NR > 1 && $2 != "ok"' "$TMP/report.tsv" | wc -l)
    # A clean URL is on nginx's port or is the fault server's /image (scripts/soak/urls.py).
    clean_failed=$(awk -F'\t' -v n=":$NGINX_PORT/" 'NR > 1 && $2 != "ok" && (index($1, n) || $1 ~ /\/image\?/)' \
      "$TMP/report.tsv" | tee -a "$TMP/clean-failures.tsv" | wc -l)
    if [ "$clean_failed" -gt 0 ]; then
      awk -F'\t' -v n=":$NGINX_PORT/" -v r="$run" 'NR > 1 && $2 != "ok" && (index($1, n) || $1 ~ /\/image\?/) \
        { print r "\t" $1 "\t" $2 "\t" $10 }' "$TMP/report.tsv" | while IFS= read -r line; do
        note_error prefetch "run $line"; done
    fi
    if [ "$rc" = 130 ] && [ "$(date +%s)" -ge "$END" ]; then
      : # interrupted by the end of the soak: not an error
    elif [ "$rc" = 1 ] && [ "$failed" -gt 0 ]; then
      : # "some URLs failed": the injected faults
    elif [ "$rc" != 0 ] || [ "$failed" -gt 0 ]; then
      note_error prefetch "run $run: exit $rc with $failed failed URLs: $(tail -3 "$TMP/prefetch.err" | tr '\n' ' ')"
    fi
    if grep -qi 'fatal error\|crash\|sanitizer' "$TMP/prefetch.err"; then
      note_error prefetch "run $run: $(grep -i -m1 'fatal error\|crash\|sanitizer' "$TMP/prefetch.err")"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$started" "$(( $(date +%s) - START ))" "$rc" \
      "$peak" "$secs" "$urls" "$failed" "$clean_failed" >> "$RUNS"
    # The next run's readers fetch clean URLs this one loaded.
    awk -F'\t' -v n=":$NGINX_PORT/" 'NR > 1 && $2 == "ok" && (index($1, n) || $1 ~ /\/image\?/) { print $1 }' \
      "$TMP/report.tsv" > "$TMP/loaded.tmp" && mv "$TMP/loaded.tmp" "$TMP/loaded.txt"
  done
}

# 2. The second process's readers: run one command, note an unexpected exit code.
reader() {
  local name=$1 rc
  shift
  "$PICTOR" "$@" > "$TMP/reader.out" 2> "$TMP/reader.err"
  rc=$?
  echo "$name $rc" >> "$TMP/readers.log"
  if [ "$rc" != 0 ]; then
    note_error reader "$name: exit $rc: $(head -c 400 "$TMP/reader.err" | tr '\n' ' ') $(grep -v '^checked' "$TMP/reader.out" | head -3 | tr '\n' ' ')"
  fi
}
readers_loop() {
  # The cache exists once the first run opened it.
  while [ ! -e "$CACHE/index.sqlite" ] && [ "$(date +%s)" -lt "$END" ]; do sleep 1; done
  while [ "$(date +%s)" -lt "$END" ]; do
    reader stats cache stats --cache-dir "$CACHE"
    reader list cache list --cache-dir "$CACHE"
    reader verify cache verify --cache-dir "$CACHE"
    if [ -s "$TMP/loaded.txt" ]; then
      # shellcheck disable=SC2046
      reader fetch fetch $(shuf -n 3 "$TMP/loaded.txt") --resize 256 --cache-dir "$CACHE" --size-limit "$LIMIT" -q
    fi
    sleep 1
  done
}

# 3. The service's clients.
python3 scripts/soak/serve_load.py --serve "$SERVE_PORT" --nginx "$NGINX_PORT" --fault "$FAULT_PORT" \
  --corpus "$CORPUS" --counters "$TMP/serve-counters.tsv" --errors "$ERRORS" &
LOAD_PID=$!
PIDS+=("$LOAD_PID")
prefetch_loop &
PREFETCH_LOOP_PID=$!
PIDS+=("$PREFETCH_LOOP_PID")
readers_loop &
READERS_PID=$!
PIDS+=("$READERS_PID")

# The bytes of a cache's entry files (named by a 64-hex digest): what its size limit counts.
# du counts more: the SQLite index and its write-ahead log (up to about 4 MB between
# checkpoints), and files being written in tmp/.
entry_bytes() {
  find "$1" -maxdepth 1 -type f -regextype posix-extended -regex '.*/[0-9a-f]{64}' -printf '%s\n' 2>/dev/null \
    | awk '{ s += $1 } END { print s + 0 }'
}

# The samples, every 5 s.
printf 't_s\tserve_rss_kib\tserve_fds\tserve_threads\tserve_in_flight\tcache_entry_bytes\tcache_du_bytes\tcache_limit\tserve_cache_entry_bytes\tserve_cache_du_bytes\tserve_cache_limit\tprefetch_runs\treader_commands\tserve_requests\tserve_ok\tserve_hangups\terrors\tload1\n' > "$SAMPLES"
SERVE_ALIVE=1
while :; do
  now=$(date +%s)
  t=$((now - START))
  if [ "$SERVE_ALIVE" = 1 ] && [ ! -d "/proc/$SERVE_PID" ]; then
    SERVE_ALIVE=0
    wait "$SERVE_PID"
    note_error serve "pictor serve exited (status $?): $(tail -3 "$TMP/serve.log" | tr '\n' ' ')"
  fi
  if [ "$SERVE_ALIVE" = 1 ]; then
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$SERVE_PID/status")
    threads=$(awk '/^Threads:/ {print $2}' "/proc/$SERVE_PID/status")
    fds=$(ls "/proc/$SERVE_PID/fd" | wc -l)
  else
    rss=; threads=; fds=
  fi
  cache=$(du -sb "$CACHE" 2>/dev/null | cut -f1)
  scache=$(du -sb "$SERVE_CACHE" 2>/dev/null | cut -f1)
  entries=$(entry_bytes "$CACHE")
  sentries=$(entry_bytes "$SERVE_CACHE")
  inflight=$(curl -s --max-time 5 "http://127.0.0.1:$SERVE_PORT/metrics" | awk '/^pictor_server_in_flight_requests / {print $2}')
  runs=$(($(cat "$RUNS" 2>/dev/null | wc -l) - 1))
  readers=$(cat "$TMP/readers.log" 2>/dev/null | wc -l)
  read -r sreq sok _ _ _ _ _ hmid hearly 2>/dev/null < "$TMP/serve-counters.tsv" || { sreq=0; sok=0; hmid=0; hearly=0; }
  errors=$(wc -l < "$ERRORS")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$rss" "$fds" "$threads" \
    "$inflight" "$entries" "${cache:-0}" "$LIMIT_BYTES" "$sentries" "${scache:-0}" "$SERVE_LIMIT_BYTES" "$runs" \
    "$readers" "$sreq" "$sok" "$((hmid + hearly))" "$errors" "$(cut -d' ' -f1 /proc/loadavg)" >> "$SAMPLES"
  [ $((t % 60)) -lt 5 ] && [ "$t" -ge 60 ] && curl -s --max-time 5 -o /dev/null "http://127.0.0.1:$FAULT_PORT/_reset"
  [ "$now" -ge "$END" ] && break
  sleep $((5 - ($(date +%s) - START) % 5))
done

echo "== stopping the load"
# The prefetch run in flight is interrupted (Ctrl-C: exit 130, not counted as an error).
[ -s "$TMP/prefetch.pid" ] && kill -INT "$(cat "$TMP/prefetch.pid")" 2>/dev/null
kill "$LOAD_PID" 2>/dev/null
for pid in "$PREFETCH_LOOP_PID" "$READERS_PID" "$LOAD_PID"; do
  for _ in $(seq 60); do [ -d "/proc/$pid" ] || break; sleep 0.5; done
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$SERVE_ALIVE" = 1 ]; then
  kill -TERM "$SERVE_PID"
  wait "$SERVE_PID"
  rc=$?
  [ "$rc" = 0 ] || note_error serve "pictor serve exited $rc on SIGTERM (want 0)"
fi
read -r sreq sok cnon200 c5xx cconn fans fconn hmid hearly < "$TMP/serve-counters.tsv"

python3 scripts/soak/summarize.py --samples "$SAMPLES" --runs "$RUNS" --errors "$ERRORS" \
  --minutes "$MINUTES" --warmup "$WARMUP" --out "$OUT" \
  --context "started $(date -u -d "@$START" '+%Y-%m-%d %H:%M') UTC; load average $LOAD_START at the start, $LOAD_END at the end; $(nproc) CPUs; pictor $(git rev-parse --short HEAD)" \
  --serve-counters "requests=$sreq ok=$sok clean_non200=$cnon200 clean_5xx=$c5xx clean_conn_errors=$cconn fault_answers=$fans fault_conn_errors=$fconn hangups_mid_body=$hmid hangups_early=$hearly" \
  --readers "$TMP/readers.log"
echo "== wrote $OUT, $SAMPLES, $RUNS, $ERRORS"
cat "$OUT"

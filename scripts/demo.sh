#!/usr/bin/env bash
# The main job end to end, with no network needed:
#   1. installs what is missing (bootstrap.sh's demo group) and builds `pictor` in release mode;
#   2. serves a folder of images with nginx on a free 127.0.0.1 port (../shared/corpus when
#      present, else images generated with `vips`);
#   3. runs `pictor prefetch` over every image URL twice — cold, then warm (all from the cache);
#   4. writes 256-px thumbnails and demo-out/index.html, a contact sheet (scripts/contact_sheet.py):
#      a summary per run, then each thumbnail with its layer and timing, failures with reasons;
#   5. prints both summaries and stops the nginx it started (by the PID in its own pid file).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT_DIR=$(pwd)
OUT="$ROOT_DIR/demo-out"
CORPUS="${PICTOR_DEMO_CORPUS:-$ROOT_DIR/../shared/corpus}"   # override to try another folder

bash scripts/bootstrap.sh demo
echo "== building pictor (release)"
swift build -c release --static-swift-stdlib --product pictor
PICTOR="$(swift build -c release --show-bin-path)/pictor"

rm -rf "$OUT"
mkdir -p "$OUT/run" "$OUT/thumbs-cold" "$OUT/thumbs-warm"

if [ -d "$CORPUS" ] && [ -f "$CORPUS/MANIFEST.tsv" ]; then
  IMAGES="$(cd "$CORPUS" && pwd)"
  # Only the images a decoder must accept (expect = ok); the corpus also holds broken files.
  awk -F'\t' 'NR > 1 && $3 == "ok" { print $1 }' "$IMAGES/MANIFEST.tsv" > "$OUT/paths.txt"
  echo "== serving $(wc -l < "$OUT/paths.txt") images from $IMAGES"
else
  IMAGES="$OUT/images"
  mkdir -p "$IMAGES"
  echo "== corpus not found: generating images with vips"
  : > "$OUT/paths.txt"
  for i in $(seq 1 24); do
    w=$((640 + 40 * i)); h=$((480 + 20 * (i % 7)))
    vips gaussnoise "$OUT/run/n.v" "$w" "$h" --mean 128 --sigma $((20 + i))
    vips linear "$OUT/run/n.v" "$OUT/run/c.v" "1 0.8 0.6" "$((i * 5)) 20 40" --uchar
    ext=jpg; [ $((i % 3)) -eq 1 ] && ext=png; [ $((i % 3)) -eq 2 ] && ext=webp
    vips copy "$OUT/run/c.v" "$IMAGES/generated-$i.$ext"
    echo "generated-$i.$ext" >> "$OUT/paths.txt"
  done
  rm -f "$OUT/run/"*.v
fi

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -e "s#@PORT@#$PORT#g" -e "s#@ROOT@#$IMAGES#g" -e "s#@RUNDIR@#$OUT/run#g" \
  scripts/nginx/demo.conf.template > "$OUT/run/nginx.conf"
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
# Stops only the nginx this script started: the master's PID from the demo's own pid file.
stop_nginx() {
  if [ -s "$OUT/run/nginx.pid" ]; then kill "$(cat "$OUT/run/nginx.pid")" 2>/dev/null || true; fi
}
trap stop_nginx EXIT
"$NGINX" -c "$OUT/run/nginx.conf" -p "$OUT/run" || { echo "demo: nginx did not start ($OUT/run/error.log)" >&2; exit 1; }
for _ in $(seq 1 50); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")" != "000" ] && break
  sleep 0.1
done

sed "s#^#http://127.0.0.1:$PORT/#" "$OUT/paths.txt" > "$OUT/urls.txt"
export XDG_CACHE_HOME="$OUT/xdg"   # keep the demo's cache out of ~/.cache

echo
echo "== cold run: every image from the network"
"$PICTOR" prefetch "$OUT/urls.txt" --resize 256 --out "$OUT/thumbs-cold" --report "$OUT/cold.tsv" --concurrency 6
echo
echo "== warm run: the same URLs again, served from the disk cache"
"$PICTOR" prefetch "$OUT/urls.txt" --resize 256 --out "$OUT/thumbs-warm" --report "$OUT/warm.tsv" --concurrency 6

python3 scripts/contact_sheet.py "$OUT" > "$OUT/index.html"
echo
echo "== contact sheet: $OUT/index.html ($(ls "$OUT/thumbs-warm" | wc -l) thumbnails)"

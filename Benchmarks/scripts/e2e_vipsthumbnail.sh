#!/usr/bin/env bash
# End-to-end peer: a shell pipeline. Cold: `curl --parallel --parallel-max 8` downloads every URL
# of a curl config (written by the benchmark: one `url`/`output` pair per URL, the output named
# by the hex SHA-256 of the URL in ORIGINALS); warm (the originals are there already): no
# download. Then `vipsthumbnail --size SIZE` (Debian's libvips-tools: shrink-on-load, EXIF
# orientation applied, fitted inside SIZE x SIZE) over every original, PER files per process and
# 2 processes at a time (xargs -P 2), writing OUT/<sha256>.jpg without metadata.
#
# usage: e2e_vipsthumbnail.sh cold|warm CURL_CONFIG ORIGINALS OUT SIZE QUALITY PER
set -euo pipefail
mode=$1 config=$2 originals=$3 out=$4 size=$5 quality=$6 per=$7
mkdir -p "$originals" "$out"
out=$(cd "$out" && pwd)   # vipsthumbnail reads a relative -o against each input's folder
if [ "$mode" = cold ]; then
  curl --parallel --parallel-max 8 --fail -s -K "$config"
fi
find "$originals" -type f -print0 \
  | xargs -0 -P 2 -n "$per" vipsthumbnail --size "$size" -o "$out/%s.jpg[Q=$quality,strip]"

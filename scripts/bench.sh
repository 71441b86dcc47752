#!/usr/bin/env bash
# Runs the benchmark suite in release mode: every figure side by side with its reference, as
# ratios (see docs/benchmarks.md and ../shared/design/performance.md §3).
#
#   scripts/bench.sh                 full run; rewrites docs/benchmarks.md and out/benchmarks.json
#   scripts/bench.sh --quick         short run (< ~3 min); writes out/benchmarks-quick.{md,json}
#                                    only, and always exits 0 (CI runs this; timings never fail it)
#   scripts/bench.sh --filter disk   any other arguments go to the PictorBenchmarks executable
#
# The Pillow reference runs in a virtual environment the script creates under Benchmarks/.venv
# (pip install Pillow from PyPI); without it the thumbnail comparisons are listed as not measured.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

QUICK=0
for arg in "$@"; do [ "$arg" = "--quick" ] && QUICK=1; done

run() {
  set -e
  VENV="$ROOT/Benchmarks/.venv"
  if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import PIL' 2>/dev/null; then
    echo "== creating $VENV with Pillow"
    { python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet --disable-pip-version-check Pillow; } \
      || echo "bench: could not set up Pillow; thumbnail references will be skipped"
  fi

  echo "== building PictorBenchmarks (release)"
  (cd Benchmarks && swift build -c release --product PictorBenchmarks 2>&1 | grep -v "prohibited flag" || true)
  BIN="$(cd Benchmarks && swift build -c release --show-bin-path)/PictorBenchmarks"
  [ -x "$BIN" ] || { echo "bench: build failed"; return 1; }
  echo "== building pictor (release) for the whole-CLI rows"
  swift build -c release --product pictor 2>&1 | grep -v "prohibited flag" || true
  PICTOR_BIN="$(swift build -c release --show-bin-path)/pictor"

  export PICTOR_BENCH_SWIFT="$(swift --version 2>/dev/null | head -1)"
  mkdir -p out
  if [ "$QUICK" = 1 ]; then
    "$BIN" "$@" --python "$VENV/bin/python" --pictor "$PICTOR_BIN" --json out/benchmarks-quick.json --markdown out/benchmarks-quick.md
  else
    "$BIN" "$@" --python "$VENV/bin/python" --pictor "$PICTOR_BIN" --json out/benchmarks.json --markdown docs/benchmarks.md
    echo "== wrote docs/benchmarks.md"
  fi
}

if [ "$QUICK" = 1 ]; then
  (run "$@") || echo "bench: quick run failed (timings and benchmark failures never fail CI)"
  exit 0
fi
(run "$@")

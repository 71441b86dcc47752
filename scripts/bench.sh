#!/usr/bin/env bash
# Runs the benchmark suite in release mode: every figure side by side with its reference, as
# ratios (see docs/benchmarks.md and ../shared/design/performance.md §3).
#
#   scripts/bench.sh                 full run; rewrites docs/benchmarks.md and out/benchmarks.json
#   scripts/bench.sh --quick         short run (< ~3 min); writes out/benchmarks-quick.{md,json}
#                                    only; CI runs this. Timings and benchmark failures never fail
#                                    it (exit 0), but a build that fails does (exit 1), loudly:
#                                    the numbers of a stale binary would be worse than none
#   scripts/bench.sh --filter disk   any other arguments go to the PictorBenchmarks executable
#
# The Pillow reference runs in a virtual environment the script creates under Benchmarks/.venv
# (pip install Pillow from PyPI); without it the thumbnail comparisons are listed as not measured.
# The end-to-end peers (rows e2e.*) need aiohttp, pyvips and pyvips-binary (libvips 8.18, the
# build sharp bundles) in that venv too; a peer that cannot be installed or imported is left
# out of those rows, with a note in the report.
# The service rows (service.*) run thumbor 7.8 from a second venv the script creates,
# Benchmarks/.venv-thumbor (pip install 'thumbor==7.8.*'; a venv of its own, since thumbor pins
# its own Pillow); without it thumbor is listed as not measured. They need wrk and nginx's
# image_filter module (bootstrap.sh bench). In --quick mode each of their load runs lasts 3 s,
# once (about 50 s in all).
# In every mode, a failed build of PictorBenchmarks or pictor stops the script with exit 1.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

QUICK=0
for arg in "$@"; do [ "$arg" = "--quick" ] && QUICK=1; done

fail() {
  echo "bench: ERROR: $*" >&2
  exit 1
}

# Runs a build and hides SwiftPM's harmless "prohibited flag" warnings (libvips' and hiredis'
# pkg-config flags); the status is the build's own, not grep's.
build() {
  "$@" 2>&1 | { grep -v "prohibited flag" || true; }
  return "${PIPESTATUS[0]}"
}

bash scripts/bootstrap.sh bench || fail "could not install the benchmark suite's system packages"

VENV="$ROOT/Benchmarks/.venv"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import PIL' 2>/dev/null; then
  echo "== creating $VENV with Pillow"
  { python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet --disable-pip-version-check Pillow; } \
    || echo "bench: could not set up Pillow; thumbnail references will be skipped"
fi
# pyvips must run on the wheel's libvips, not build its own binding against Debian's (8.14):
# with pkg-config blind to vips, pyvips installs without compiling and loads pyvips-binary's
# module (--no-cache-dir: not a binding pip built and cached elsewhere); pyvips-binary goes in
# again last, since replacing a compiled pyvips removes the module file that both ship.
PEERS_OK='import aiohttp, PIL, pyvips; assert pyvips.at_least_libvips(8, 18)'
if [ -x "$VENV/bin/python" ] && ! "$VENV/bin/python" -c "$PEERS_OK" 2>/dev/null; then
  echo "== installing the end-to-end peers into $VENV (aiohttp, pyvips, pyvips-binary)"
  { "$VENV/bin/pip" install --quiet --disable-pip-version-check --timeout 30 --retries 2 aiohttp pyvips-binary \
      && PKG_CONFIG_LIBDIR=/nonexistent "$VENV/bin/pip" install --quiet --disable-pip-version-check --timeout 30 \
           --retries 2 --no-cache-dir --force-reinstall --no-deps pyvips \
      && "$VENV/bin/pip" install --quiet --disable-pip-version-check --timeout 30 --retries 2 \
           --force-reinstall --no-deps pyvips-binary \
      && "$VENV/bin/python" -c "$PEERS_OK"; } \
    || echo "bench: could not install the end-to-end peers (PyPI unreachable?); the e2e rows will say which are missing"
fi

THUMBOR_VENV="$ROOT/Benchmarks/.venv-thumbor"
if ! "$THUMBOR_VENV/bin/thumbor" --version 2>/dev/null | grep -q 'v7\.8\.'; then
  echo "== creating $THUMBOR_VENV with thumbor 7.8 (a peer of the service rows)"
  { python3 -m venv "$THUMBOR_VENV" \
      && "$THUMBOR_VENV/bin/pip" install --quiet --disable-pip-version-check --timeout 30 --retries 2 'thumbor==7.8.*' \
      && "$THUMBOR_VENV/bin/thumbor" --version >/dev/null; } \
    || echo "bench: could not install thumbor 7.8 (PyPI unreachable?); the service rows will list it as not measured"
fi

echo "== building PictorBenchmarks (release)"
(cd Benchmarks && build swift build -c release --product PictorBenchmarks && build swift build -c release --product curl-multi-floor) \
  || fail "the PictorBenchmarks build failed (see above); no benchmark was run"
BIN="$(cd Benchmarks && swift build -c release --show-bin-path)/PictorBenchmarks"
[ -x "$BIN" ] || fail "no PictorBenchmarks binary at $BIN after the build"
echo "== building pictor (release) for the whole-CLI rows"
build swift build -c release --static-swift-stdlib --product pictor \
  || fail "the pictor build failed (see above); no benchmark was run"
PICTOR_BIN="$(swift build -c release --show-bin-path)/pictor"
[ -x "$PICTOR_BIN" ] || fail "no pictor binary at $PICTOR_BIN after the build"

export PICTOR_BENCH_SWIFT="$(swift --version 2>/dev/null | head -1)"
mkdir -p out
if [ "$QUICK" = 1 ]; then
  "$BIN" "$@" --python "$VENV/bin/python" --pictor "$PICTOR_BIN" --thumbor "$THUMBOR_VENV/bin/thumbor" \
    --json out/benchmarks-quick.json --markdown out/benchmarks-quick.md \
    || echo "bench: quick run failed (timings and benchmark failures never fail CI)"
  exit 0
fi
"$BIN" "$@" --python "$VENV/bin/python" --pictor "$PICTOR_BIN" --thumbor "$THUMBOR_VENV/bin/thumbor" \
  --json out/benchmarks.json --markdown docs/benchmarks.md \
  || fail "the benchmark run failed; docs/benchmarks.md may be incomplete"
echo "== wrote docs/benchmarks.md"

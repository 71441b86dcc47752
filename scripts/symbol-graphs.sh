#!/usr/bin/env bash
# Extracts the symbol graphs of Pictor's modules from a finished debug build, with
# `swift symbolgraph-extract`, as any package that depends on Pictor can:
#
#   bash scripts/symbol-graphs.sh BIN_DIR OUT_DIR MODULE...
#
#   BIN_DIR   the build's binary folder (`swift build --show-bin-path`): its `Modules/` holds the
#             compiled Swift modules, Pictor's among them
#   OUT_DIR   where the graphs go (created): MODULE.symbols.json for the module's own public
#             symbols, MODULE@Other.symbols.json for its extensions of another module's types
#   MODULE    Pictor's public modules to extract (PictorCore, Pictor, …)
#
# PICTOR_ROOT, when set, is the Pictor checkout whose build it is (default: this script's
# checkout); for a package that depends on Pictor through git, `.build/checkouts/pictor`.
#
# Why the C flags: a Swift module built without library evolution (SwiftPM's default) makes its
# clients load every module it imports, `internal import` included, since the layout of its
# types may depend on them. So loading `PictorVips` needs `CVips`, `CVipsShim`, `CTurboJPEG`, …
# A system-library target's module map is its folder (`Sources/CVips/module.modulemap`) and a
# C target's is its `include/module.modulemap` (shipped, so that `-I` finds it: SwiftPM's own
# would be generated into its build folder, which only SwiftPM passes); `-I` on each, and the
# headers' include paths from pkg-config (GLib's, for libvips' headers), are all it takes.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BIN_DIR OUT_DIR MODULE..." >&2; exit 64; }
BIN_DIR=$1
OUT_DIR=$2
shift 2
ROOT="${PICTOR_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}"

[ -d "$BIN_DIR/Modules" ] || { echo "symbol-graphs: no Modules/ in $BIN_DIR (build first)" >&2; exit 1; }
flags=(-I "$BIN_DIR/Modules")
for target in "$ROOT"/Sources/C*; do
  [ -f "$target/module.modulemap" ] && flags+=(-I "$target")
  [ -f "$target/include/module.modulemap" ] && flags+=(-I "$target/include")
done
# The pkg-config packages of Package.swift's system libraries: their headers' include paths.
# One call per package, so that a missing one is named (a single call prints nothing at all).
for package in glib-2.0 libcrypto sqlite3 libturbojpeg spng libdeflate libwebpdemux libcurl hiredis libmicrohttpd; do
  cflags="$(pkg-config --cflags "$package")" || {
    echo "symbol-graphs: pkg-config knows no '$package' (install it: bash scripts/bootstrap.sh build)" >&2
    exit 1
  }
  for cflag in $cflags; do flags+=(-Xcc "$cflag"); done
done
triple="$(swift -print-target-info | sed -n 's/^ *"triple": "\(.*\)",$/\1/p' | head -1)"

mkdir -p "$OUT_DIR"
for module in "$@"; do
  if ! swift symbolgraph-extract -module-name "$module" -target "$triple" "${flags[@]}" \
      -minimum-access-level public -emit-extension-block-symbols \
      -module-cache-path "$BIN_DIR/ModuleCache" -output-dir "$OUT_DIR" >&2; then
    echo "symbol-graphs: swift symbolgraph-extract failed for $module" >&2
    exit 1
  fi
  [ -s "$OUT_DIR/$module.symbols.json" ] || { echo "symbol-graphs: no graph for $module" >&2; exit 1; }
done

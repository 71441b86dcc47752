#!/usr/bin/env bash
# Checks that a package depending on Pictor can build Pictor's API reference: it makes a
# throwaway package in a temporary folder, with a path dependency on this checkout and every
# public library product, builds it, and runs `swift symbolgraph-extract` (through
# scripts/symbol-graphs.sh, with the flags any such package would pass) for each module named.
#
#   bash scripts/docs-dependent-check.sh [MODULE...]   # default: every public library module
#
# The build folder is .build/dependent-check in this checkout, kept between runs: the first run
# builds Pictor once more in debug mode (minutes on a cold cache), later runs only what changed.
# The temporary package and its graphs are removed at the end. Exit 1 when the build or an
# extraction fails.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in
  -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
PUBLIC=(PictorCore PictorCrypto PictorDiskCache PictorVips PictorCurl PictorRedis PictorService PictorServer PictorTestSupport Pictor)
for module in "$@"; do
  [[ " ${PUBLIC[*]} " == *" $module "* ]] || { echo "docs-dependent-check: '$module' is not a public module (${PUBLIC[*]})" >&2; exit 64; }
done
MODULES=("$@")
[ ${#MODULES[@]} -gt 0 ] || MODULES=("${PUBLIC[@]}")

APP="$(mktemp -d "${TMPDIR:-/tmp}/pictor-dependent.XXXXXX")"
trap 'rm -rf "$APP"' EXIT
SCRATCH="$ROOT/.build/dependent-check"

mkdir -p "$APP/Sources/DocsClient"
cat > "$APP/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "DocsClient",
    dependencies: [.package(name: "Pictor", path: "$ROOT")],
    targets: [
        .target(name: "DocsClient", dependencies: [
            .product(name: "Pictor", package: "Pictor"),
            .product(name: "PictorService", package: "Pictor"),
            .product(name: "PictorServer", package: "Pictor"),
            .product(name: "PictorTestSupport", package: "Pictor"),
        ]),
    ]
)
EOF
cat > "$APP/Sources/DocsClient/DocsClient.swift" <<'EOF'
import Pictor
import PictorServer
import PictorService
import PictorTestSupport

/// Uses one symbol of each product, so that every module is built and linked.
public func pipelineForDocs() -> (ImagePipeline, ImageService.Type, ImageServer.Type, MockDataLoader) {
    (ImagePipeline(configuration: .default), ImageService.self, ImageServer.self, MockDataLoader())
}
EOF

echo "dependent-check: swift build of a package that depends on $ROOT (build folder $SCRATCH)"
if ! swift build --package-path "$APP" --scratch-path "$SCRATCH" > "$APP/build.log" 2>&1; then
  grep -v "prohibited flag" "$APP/build.log" >&2 || true
  echo "dependent-check: the dependent package does not build" >&2
  exit 1
fi
BIN="$(swift build --package-path "$APP" --scratch-path "$SCRATCH" --show-bin-path)"
bash "$ROOT/scripts/symbol-graphs.sh" "$BIN" "$APP/graphs" "${MODULES[@]}"
echo "dependent-check: ok: symbol graphs of ${MODULES[*]} extracted from a dependent's build"

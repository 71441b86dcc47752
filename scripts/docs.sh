#!/usr/bin/env bash
# Builds Pictor's API reference as a static DocC website, with the Swift toolchain's own tools
# only (SwiftPM, `swift symbolgraph-extract` and `docc`; no swift-docc-plugin, nothing fetched):
#
#   1. `swift build -Xswiftc -warnings-as-errors` builds the library modules in debug mode with
#      CI's flags, tests NOT included (a no-op where CI's build already ran); then
#      `scripts/symbol-graphs.sh` runs `swift symbolgraph-extract` for each public module
#      (public symbols; extensions of other modules' types as extension blocks, so the umbrella
#      `Pictor` module's additions are documented too), with the flags any package that
#      depends on Pictor would pass (see that script);
#   2. `docc convert` turns each public library module's catalog (Sources/<Module>/<Module>.docc)
#      and symbol graphs into an archive, dependencies first, so that a page can link to another
#      module's symbols (``/PictorCore/ImagePipeline``);
#   3. `docc merge` combines the archives into one site with a landing page listing the modules;
#   4. `scripts/docs-dependent-check.sh` builds a throwaway package that depends on Pictor
#      (a path dependency on this checkout) and extracts every public module's symbol graph
#      from its build, as a user building the reference from their own app would. It has a
#      build folder of its own (.build/dependent-check), so its first run builds Pictor once
#      more (minutes) and later runs only what changed; PICTOR_DOCS_SKIP_DEPENDENT=1 skips it.
#
# Output: out/docs/index.html (a page linking each module) and out/docs/api/ (the DocC site).
# Browse it with `python3 -m http.server --bind 127.0.0.1 -d out/docs` and http://localhost:8000/.
#
# Fails (exit 1) when the build fails, when a module has no symbol graph, or on any DocC warning
# (`--warnings-as-errors`, and every line of DocC's output is checked for warnings as well).
#
#   PICTOR_DOCS_BASE_PATH=/pictor bash scripts/docs.sh   # the site will be served under /pictor/
#
# Installs nothing beyond bootstrap.sh's `docs` group (the C libraries the build needs; DocC
# ships with the toolchain), and starts no server.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

# The public library products, dependencies before dependents (each archive can link to the
# ones built before it).
MODULES=(PictorCore PictorCrypto PictorDiskCache PictorVips PictorCurl PictorRedis PictorService PictorServer PictorTestSupport Pictor)
declare -A SUMMARIES=(
  [Pictor]="the whole Linux stack with one import, and the articles: getting started, the pipeline, reused views, writing a processor, prefetching, the shared tier, errors and retries, the encrypted cache, the command-line tool"
  [PictorCore]="the pipeline, requests and tasks, the memory cache, the loader, every protocol; no C dependency"
  [PictorCrypto]="SHA-256, HMAC, HKDF, AES-256-GCM and keys, on OpenSSL's libcrypto"
  [PictorDiskCache]="the disk cache: one file per entry, a SQLite index, optional encryption"
  [PictorVips]="decoding, encoding and pixel work on libvips"
  [PictorCurl]="HTTP(S) on libcurl's multi interface"
  [PictorRedis]="the shared fleet tier on Redis or Redis Cluster"
  [PictorService]="imgproxy's URL grammar, presets and signatures for an image service; no C"
  [PictorServer]="the image service's HTTP/1.1 server on libmicrohttpd: keep-alive, health, metrics, access log, drain"
  [PictorTestSupport]="fakes, loopback servers and headless Chromium screenshots for tests"
)
OUT="$ROOT/out/docs"
WORK="$ROOT/.build/docs"
SITE_DIR=api
BASE_PATH="${PICTOR_DOCS_BASE_PATH:-}"
BASE_PATH="${BASE_PATH#/}"
BASE_PATH="${BASE_PATH%/}"
HOSTING_BASE_PATH="${BASE_PATH:+$BASE_PATH/}$SITE_DIR"

fail() {
  echo "docs: ERROR: $*" >&2
  exit 1
}

DOCC="$(command -v docc || true)"
if [ -z "$DOCC" ]; then
  # Next to the `swift` driver in the toolchain.
  DOCC="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi
[ -x "$DOCC" ] || fail "no docc in this Swift toolchain (expected at $DOCC)"

bash scripts/bootstrap.sh docs || fail "could not install the packages the build needs"

start=$SECONDS
rm -rf "$WORK" "$OUT"
mkdir -p "$WORK/archives" "$OUT"

echo "== debug build, library modules only (swift build -Xswiftc -warnings-as-errors)"
if ! swift build -Xswiftc -warnings-as-errors > "$WORK/build.log" 2>&1; then
  grep -v "prohibited flag" "$WORK/build.log" >&2 || true
  fail "the build failed (see above)"
fi

echo "== symbol graphs (swift symbolgraph-extract, through scripts/symbol-graphs.sh)"
SYMBOL_GRAPHS="$WORK/symbol-graphs-all"
if ! bash scripts/symbol-graphs.sh "$(swift build --show-bin-path)" "$SYMBOL_GRAPHS" "${MODULES[@]}" \
    > "$WORK/symbol-graphs.log" 2>&1; then
  cat "$WORK/symbol-graphs.log" >&2
  fail "the symbol-graph extraction failed (see above)"
fi
grep -E "(^|: )(error|warning):" "$WORK/symbol-graphs.log" >&2 \
  && fail "swift symbolgraph-extract reported problems (see above)"

converted=()
for module in "${MODULES[@]}"; do
  catalog="Sources/$module/$module.docc"
  [ -d "$catalog" ] || fail "no documentation catalog at $catalog"
  [ -s "$SYMBOL_GRAPHS/$module.symbols.json" ] || fail "no symbol graph for $module in $SYMBOL_GRAPHS"
  # The module's own graph and its extensions of other modules' types (Module@Other).
  graphs="$WORK/symbol-graphs/$module"
  mkdir -p "$graphs"
  cp "$SYMBOL_GRAPHS/$module.symbols.json" "$graphs/"
  for extension in "$SYMBOL_GRAPHS/$module"@*.symbols.json; do
    [ -e "$extension" ] && cp "$extension" "$graphs/"
  done
  dependencies=()
  for archive in "${converted[@]}"; do dependencies+=(--dependency "$archive"); done

  echo "== docc convert $module"
  archive="$WORK/archives/$module.doccarchive"
  if ! "$DOCC" convert "$catalog" \
      --additional-symbol-graph-dir "$graphs" \
      --fallback-display-name "$module" \
      --fallback-bundle-identifier "pictor.$module" \
      --output-path "$archive" \
      --transform-for-static-hosting \
      --hosting-base-path "$HOSTING_BASE_PATH" \
      --enable-experimental-external-link-support \
      "${dependencies[@]}" \
      --warnings-as-errors \
      > "$WORK/docc-$module.log" 2>&1; then
    cat "$WORK/docc-$module.log" >&2
    fail "docc convert failed for $module (warnings are errors)"
  fi
  if grep -qiE "(^|: )(warning|error):" "$WORK/docc-$module.log"; then
    cat "$WORK/docc-$module.log" >&2
    fail "DocC reported warnings for $module"
  fi
  converted+=("$archive")
done

echo "== docc merge"
# The umbrella module first: the site's navigation lists the modules in this order.
merge_order=("$WORK/archives/Pictor.doccarchive")
for archive in "${converted[@]}"; do
  [ "$archive" = "${merge_order[0]}" ] || merge_order+=("$archive")
done
"$DOCC" merge "${merge_order[@]}" \
  --synthesized-landing-page-name Pictor \
  --synthesized-landing-page-kind Package \
  --output-path "$WORK/Pictor.doccarchive" > "$WORK/docc-merge.log" 2>&1 \
  || { cat "$WORK/docc-merge.log" >&2; fail "docc merge failed"; }
if grep -qiE "(^|: )(warning|error):" "$WORK/docc-merge.log"; then
  cat "$WORK/docc-merge.log" >&2
  fail "docc merge reported warnings"
fi
cp -R "$WORK/Pictor.doccarchive" "$OUT/$SITE_DIR"

# The front page: one link per module, relative so that it works under any base path.
{
  cat <<'HTML'
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pictor API reference</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem; }
  li { margin: 0.3rem 0; }
  code { font-size: 0.95em; }
</style>
</head>
<body>
<h1>Pictor API reference</h1>
<p>Image loading and caching for Swift on Linux. Start with
<a href="@SITE@/documentation/pictor/">Pictor</a> (the whole stack, with the articles), or open a
module:</p>
<ul>
HTML
  # The umbrella first, then the modules in dependency order.
  for module in Pictor "${MODULES[@]}"; do
    [ "$module" = Pictor ] && [ -n "${listed_umbrella:-}" ] && continue
    listed_umbrella=1
    lower=$(printf '%s' "$module" | tr '[:upper:]' '[:lower:]')
    summary="${SUMMARIES[$module]}"
    echo "  <li><a href=\"@SITE@/documentation/$lower/\"><code>$module</code></a>: $summary</li>"
  done
  cat <<'HTML'
</ul>
<p>All modules on one page: <a href="@SITE@/documentation/">the package overview</a>.
Built by <code>scripts/docs.sh</code>.</p>
</body>
</html>
HTML
} | sed "s#@SITE@#$SITE_DIR#g" > "$OUT/index.html"

for module in "${MODULES[@]}"; do
  lower=$(printf '%s' "$module" | tr '[:upper:]' '[:lower:]')
  [ -f "$OUT/$SITE_DIR/documentation/$lower/index.html" ] || fail "the site has no page for $module"
done
echo "== API docs: $OUT/index.html ($(du -sh "$OUT" | cut -f1), $((SECONDS - start)) s)"
echo "   browse: python3 -m http.server --bind 127.0.0.1 -d out/docs  →  http://localhost:8000/"

if [ "${PICTOR_DOCS_SKIP_DEPENDENT:-0}" = 1 ]; then
  echo "== dependent package check skipped (PICTOR_DOCS_SKIP_DEPENDENT=1)"
else
  echo "== a package that depends on Pictor can extract every module's symbol graph"
  bash scripts/docs-dependent-check.sh "${MODULES[@]}" || fail "the dependent package check failed (see above)"
fi

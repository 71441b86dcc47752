#!/usr/bin/env bash
# Builds the README's "Library usage" code as a new package would: the manifest and main.swift
# are the README's code blocks marked `<!-- readme-check: PATH -->` (blocks marked with the same
# PATH are joined in order), so the README cannot drift from the API. The checkout is reached
# through a folder of another name (`some-other-name`, a symlink), since SwiftPM names a path
# dependency after its folder unless the manifest names it: the README's manifest must build
# whatever the checkout is called.
#
# A full debug build of Pictor (minutes on a cold cache); it works in .build/readme-check, so a
# second run only rebuilds what changed. Skipped, with a note, when `swift` is not on PATH.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

if ! command -v swift >/dev/null 2>&1; then
  echo "readme-check: skipped: swift is not on PATH"
  exit 0
fi

WORK="$ROOT/.build/readme-check"
APP="$WORK/MyApp"
mkdir -p "$WORK"
ln -sfn "$ROOT" "$WORK/some-other-name"
rm -rf "$APP/Package.swift" "$APP/Sources"
mkdir -p "$APP"

python3 - "$ROOT/README.md" "$APP" <<'PY'
import os, re, sys
readme, app = sys.argv[1], sys.argv[2]
text = open(readme, encoding="utf-8").read()
blocks = re.findall(r"<!-- readme-check: (\S+) -->\s*\n```swift\n(.*?)\n```", text, re.S)
files = {}
for path, code in blocks:
    files.setdefault(path, []).append(code)
for required in ("Package.swift", "Sources/MyApp/main.swift"):
    if required not in files:
        sys.exit(f"readme-check: README.md has no block marked '<!-- readme-check: {required} -->'")
manifest = "\n".join(files["Package.swift"])
# The README's path is the usual "../pictor"; here the checkout's folder is called otherwise.
if 'path: "../pictor"' not in manifest:
    sys.exit("readme-check: the README's manifest no longer depends on path \"../pictor\"")
files["Package.swift"] = [manifest.replace('path: "../pictor"', 'path: "../some-other-name"')]
for path, codes in files.items():
    target = os.path.join(app, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        f.write("\n".join(codes) + "\n")
    print(f"readme-check: {path}: {len(codes)} block(s) from README.md")
PY

echo "readme-check: swift build in $APP (the checkout as ../some-other-name)"
swift build --package-path "$APP"
echo "readme-check: ok"

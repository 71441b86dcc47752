#!/usr/bin/env bash
# Reads the output of a `swift test` run (Swift Testing's lines) and prints how many tests ran
# beside how many were declared, then each skipped test with its reason, so that nothing in a
# run is skipped quietly. .ci/run calls it after the suite; the suite itself (with CI=true)
# fails when a server or tool it needs is missing (CIRequirementsTests).
#
#   scripts/test-summary.sh LOG
set -euo pipefail
log="${1:?usage: scripts/test-summary.sh LOG (the output of swift test)}"
declared=$(grep -aoE 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -oE '[0-9]+' || true)
if [ -z "$declared" ]; then
  echo "test-summary: no 'Test run with N tests' line in $log" >&2
  exit 1
fi
skipped=$(grep -aE '^➜ Test .* skipped' "$log" | sort -u || true)
count=$(printf '%s' "$skipped" | grep -c . || true)
echo "tests: $declared declared, $((declared - count)) ran, $count skipped"
if [ "$count" -gt 0 ]; then
  echo "skipped (each needs what its reason names):"
  printf '%s\n' "$skipped" | sed -E 's/^➜ Test /  /'
fi

#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing (bootstrap.sh's test group), builds with
# warnings as errors, then runs `swift test` (never --parallel, which hides the runners' summary
# lines). The suite is written with Swift Testing; its closing line reads
# `✔ Test run with N tests in M suites passed …`.
# Tests start their own nginx, redis-server and Python servers on 127.0.0.1 and stop them by PID.
# Then, for the whole suite, scripts/readme-check.sh builds the README's library snippet as a new
# package.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh test
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build "$@"
# The README's library snippet, built as a new package would build it (a full build of its own,
# minutes when cold): only for the whole suite, not for a filtered run.
if [ $# -eq 0 ]; then
  bash scripts/readme-check.sh
else
  echo "readme-check: not run for a filtered test run (bash scripts/readme-check.sh runs it alone)"
fi

#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing (bootstrap.sh's test group), builds with
# warnings as errors, then runs `swift test` (never --parallel, which hides the runners' summary
# lines). The suite is written with Swift Testing; its closing line reads
# `✔ Test run with N tests in M suites passed …`.
# Tests start their own nginx, redis-server and Python servers on 127.0.0.1 and stop them by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh test
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build "$@"

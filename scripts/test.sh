#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, then `swift test` (not --parallel, so that
# XCTest prints its summary line). Tests start their own nginx and Python servers on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build "$@"

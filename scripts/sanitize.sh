#!/usr/bin/env bash
# Runs test suites under a sanitizer (docs/sanitizers.md).
#
#   scripts/sanitize.sh thread  [--filter REGEX]… [--skip-build]
#   scripts/sanitize.sh address [--filter REGEX]… [--skip-build]
#
# thread:  ThreadSanitizer over the suites that exercise concurrency: the pipeline, fetching,
#          shared work and the prefetcher (PictorCoreTests), the disk cache, the Redis tier,
#          CurlTransport, and previews over libcurl, libjpeg and zlib (two integration
#          suites). Built with -DPICTOR_TSAN, which swaps Synchronization's Mutex (invisible
#          to TSan on Linux) for a pthread one (Sources/PictorCore/Pipeline/Internal/
#          ThreadSanitizerMutex.swift). Build path .build-tsan.
# address: AddressSanitizer (with LeakSanitizer) over the suites that cross into C: the decoders
#          and the PNG shim (PictorVips), libcurl, hiredis, OpenSSL (PictorCrypto) and SQLite
#          (PictorDiskCache). Build path .build-asan.
#
# Each sanitizer has its own build path, so the normal .build is never invalidated. The first
# build is a full debug build of the package and its tests (minutes on a busy 2-core machine);
# iterate with --skip-build. --filter replaces the default suites (Swift Testing's regular
# expression over `Target.Suite/test()`; repeat it for several, each runs alone). The run fails when a test
# fails or when the sanitizer reported anything, in the test process or in a child it started
# (the `pictor` binary, DiskCacheCrashWriter): reports go to .build-*/reports/ and are counted
# after the run. Suppressions: TSan's are scripts/sanitizers/tsan.supp, LeakSanitizer's
# Fuzz/lsan.supp and scripts/sanitizers/lsan.supp, each entry with its proof that the report is
# not a race or a leak of Pictor's.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

[ $# -ge 1 ] || { sed -n '2,24p' "$0"; exit 2; }
KIND=$1; shift
FILTERS=()
SKIP_BUILD=0
while [ $# -gt 0 ]; do
    case "$1" in
        --filter) FILTERS+=("$2"); shift 2 ;;
        --filter=*) FILTERS+=("${1#*=}"); shift ;;
        --skip-build) SKIP_BUILD=1; shift ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) echo "sanitize.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

case "$KIND" in
    thread)
        SCRATCH=$ROOT/.build-tsan
        FLAGS=(--sanitize=thread -Xswiftc -DPICTOR_TSAN)
        # Whole targets: every suite in them is about the pipeline's, the loader's, the caches'
        # or the transports' concurrency, or is cheap next to those.
        # Previews: body pieces arrive on libcurl's thread while the pipeline's tasks take them.
        DEFAULT=('^PictorCoreTests\.' '^PictorDiskCacheTests\.' '^PictorRedisTests\.' '^PictorCurlTests\.'
                 '^PictorIntegrationTests\.(Progressive|Incremental)PreviewIntegrationTests')
        ;;
    address)
        SCRATCH=$ROOT/.build-asan
        FLAGS=(--sanitize=address)
        DEFAULT=('^PictorVipsTests\.' '^PictorCryptoTests\.' '^PictorDiskCacheTests\.' '^PictorRedisTests\.' '^PictorCurlTests\.')
        ;;
    *) echo "sanitize.sh: thread or address, not '$KIND'" >&2; exit 2 ;;
esac
[ ${#FILTERS[@]} -gt 0 ] || FILTERS=("${DEFAULT[@]}")

REPORTS=$SCRATCH/reports
# The Swift runtime's backtracer would catch a sanitizer's abort first and spend minutes
# symbolicating an instrumented binary.
export SWIFT_BACKTRACE=enable=no
# log_path: one file per process (the test runner and every instrumented child it starts), so
# a report from a child that the test does not read is still counted.
export TSAN_OPTIONS="log_path=$REPORTS/tsan:suppressions=$ROOT/scripts/sanitizers/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
export ASAN_OPTIONS="log_path=$REPORTS/asan:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# LeakSanitizer reads one suppressions file: the fuzzers' (a false report) and the suites' own.
mkdir -p "$SCRATCH"
cat Fuzz/lsan.supp scripts/sanitizers/lsan.supp > "$SCRATCH/lsan.supp"
export LSAN_OPTIONS="suppressions=$SCRATCH/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

if [ "$SKIP_BUILD" = 0 ]; then
    echo "== build ($KIND sanitizer) into ${SCRATCH#$ROOT/}"
    start=$(date +%s)
    set +e
    nice -n 10 swift build --build-tests --scratch-path "$SCRATCH" "${FLAGS[@]}" 2>&1 |
        grep -Ev '^\[[0-9]+/[0-9]+\]'
    build_status=${PIPESTATUS[0]}
    set -e
    [ "$build_status" = 0 ] || { echo "sanitize.sh: build failed" >&2; exit 1; }
    echo "   built in $(( $(date +%s) - start )) s"
fi

rm -rf "$REPORTS"; mkdir -p "$REPORTS"
# One `swift test` per filter, one after the other: Swift Testing runs a process's suites in
# parallel, and with all four TSan targets in one process on 2 cores, RedisHealthTests' PING
# (10 s deadline) timed out in two runs of two; it passes with its own target alone.
# --disable-xctest: the suites are Swift Testing's; the XCTest pass `swift test` runs besides
# finds no test and leaks its own suite objects at exit (LeakSanitizer: 144 bytes from libXCTest's
# XCTMain), which is not Pictor's to fix or to suppress.
status=0
for filter in "${FILTERS[@]}"; do
    echo "== tests under the $KIND sanitizer: $filter"
    start=$(date +%s)
    set +e
    nice -n 10 swift test --skip-build --disable-xctest --scratch-path "$SCRATCH" "${FLAGS[@]}" --filter "$filter"
    run_status=$?
    set -e
    echo "   ran in $(( $(date +%s) - start )) s (swift test exit $run_status)"
    [ "$run_status" = 0 ] || status=$run_status
done

reports=$(cat "$REPORTS"/* 2>/dev/null | grep -cE '^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: (Address|Leak)Sanitizer)' || true)
if [ "$reports" -gt 0 ]; then
    echo "== $reports sanitizer report(s), in $(ls "$REPORTS" | wc -l) process log(s) under ${REPORTS#$ROOT/}:"
    grep -hE '^SUMMARY:' "$REPORTS"/* | sort | uniq -c | sort -rn | head -40
    exit 1
fi
echo "== $KIND sanitizer: no reports"
exit $status

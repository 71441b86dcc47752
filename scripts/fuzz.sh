#!/usr/bin/env bash
# Coverage-guided fuzzing of Pictor's parsers with libFuzzer (docs/fuzzing.md).
#
#   scripts/fuzz.sh [TARGET…] [--seconds N] [--rss-mb M] [--list]
#
# Builds Fuzz/PictorFuzz in release with -sanitize=fuzzer,address into .build-fuzz (the
# normal .build is untouched), makes each target's seed corpus in .build-fuzz/seeds/TARGET
# from ../shared/corpus (read only) and Fuzz/seeds/TARGET, and runs the targets one after the
# other for N seconds each (default 60): the machine is shared, so one process at a time,
# under nice. Inputs that found new coverage are kept in .build-fuzz/corpus/TARGET and reused
# by the next run. A crash or failed invariant saves its input under .build-fuzz/artifacts/
# and makes the script exit 1. Prints, per target, executions and coverage (libFuzzer's
# `cov:` edges and `ft:` features from its last status line), also written to
# .build-fuzz/report.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$ROOT/.build-fuzz
SHARED_CORPUS=${PICTOR_CORPUS:-$ROOT/../shared/corpus}
SECONDS_PER_TARGET=60
RSS_MB=2048
TARGETS=()
LIST=0
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) SECONDS_PER_TARGET=$2; shift 2 ;;
        --seconds=*) SECONDS_PER_TARGET=${1#*=}; shift ;;
        --rss-mb) RSS_MB=$2; shift 2 ;;
        --list) LIST=1; shift ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
        *) TARGETS+=("$1"); shift ;;
    esac
done

# A failed invariant aborts: libFuzzer, not the Swift runtime's backtracer (which can take
# minutes to symbolicate an ASan binary), must handle the signal and save the input.
export SWIFT_BACKTRACE=enable=no
# Leak checking stays on; Fuzz/lsan.supp says which reports are false and why.
export LSAN_OPTIONS=suppressions=$ROOT/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}

echo "== build (release, -sanitize=fuzzer,address) into .build-fuzz"
start=$(date +%s)
# `-Xswiftc -sanitize=fuzzer,address` as well: SwiftPM passes `-sanitize=fuzzer -sanitize=address`
# to swiftc, which keeps only the last `-sanitize=`, so without it the Swift modules get
# AddressSanitizer but no coverage counters (only the C shims would guide libFuzzer).
# The build's own status decides: a failed build leaves the last binary in place, and fuzzing
# that would report on code that is not the tree's.
mkdir -p "$BUILD"
build_status=0
nice -n 10 swift build -c release --build-path "$BUILD" --sanitize fuzzer --sanitize address \
    --product PictorFuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DPICTOR_FUZZING > "$BUILD/build.log" 2>&1 || build_status=$?
grep -Ev '^\[[0-9]+/[0-9]+\]' "$BUILD/build.log" || true
BIN=$BUILD/release/PictorFuzz
[ "$build_status" -eq 0 ] && [ -x "$BIN" ] || { echo "fuzz.sh: build failed (status $build_status)" >&2; exit 1; }
# The binary must carry coverage counters for the Swift code, not only the C shims' (objdump
# is binutils', which Swift on Linux needs for its linker).
counters=$(( 16#$(objdump -h "$BIN" | awk '$2 == "__sancov_cntrs" { print $3 }')0 / 16 ))
if [ "${counters:-0}" -lt 5000 ]; then
    echo "fuzz.sh: the binary has ${counters:-0} coverage counters; the Swift modules are not instrumented" >&2
    exit 1
fi
echo "   $counters coverage counters"
echo "   built in $(( $(date +%s) - start )) s"

# The list comes from the sources, so the script never drifts from Driver.swift.
ALL=($(grep -o 'FuzzTarget(name: "[a-z-]*"' Fuzz/PictorFuzz/Driver.swift | sed 's/.*"\(.*\)"/\1/'))
if [ "$LIST" = 1 ]; then printf '%s\n' "${ALL[@]}"; exit 0; fi
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")
for t in "${TARGETS[@]}"; do
    printf '%s\n' "${ALL[@]}" | grep -qx "$t" || { echo "fuzz.sh: unknown target '$t' (${ALL[*]})" >&2; exit 2; }
done

# seeds TARGET DIR: fills DIR with the target's seed inputs.
seeds() {
    local target=$1 dir=$2
    rm -rf "$dir"; mkdir -p "$dir"
    [ -d "Fuzz/seeds/$target" ] && cp Fuzz/seeds/"$target"/* "$dir"/
    local pattern=""
    case "$target" in
        sniff) pattern='.*\.(jpg|png|gif|webp|avif|heif)$' ;;
        jpeg-markers) pattern='.*\.jpg$' ;;
        gif-header) pattern='.*\.gif$' ;;
        png-check) pattern='.*\.png$' ;;
        webp-gif-canvas) pattern='.*\.(gif|webp)$' ;;
    esac
    if [ -n "$pattern" ] && [ -d "$SHARED_CORPUS" ]; then
        # Files over 64 kB only slow the fuzzer down: their first 16 kB are what -max_len reads.
        find "$SHARED_CORPUS" -type f -size -64k -regextype posix-extended -regex "$pattern" -print0 |
            while IFS= read -r -d '' f; do cp "$f" "$dir/$(basename "$(dirname "$f")")-$(basename "$f")"; done
    fi
    python3 - "$target" "$dir" "$SHARED_CORPUS" <<'PY'
import os, struct, sys, glob
target, out, corpus = sys.argv[1], sys.argv[2], sys.argv[3]
def write(name, data):
    open(os.path.join(out, name), 'wb').write(data)
if target == 'exif':
    # The TIFF block of every JPEG's EXIF APP1 segment in the corpus.
    for path in sorted(glob.glob(os.path.join(corpus, '**', '*.jpg'), recursive=True)):
        b = open(path, 'rb').read(65536)
        i = b.find(b'\xff\xe1')
        if i > 0 and b[i + 4:i + 10] == b'Exif\0\0':
            n = b[i + 2] << 8 | b[i + 3]
            write('exif-' + os.path.basename(path), b[i + 10:i + 2 + n])
    write('tiny-le', b'II*\0\x08\0\0\0\x01\0\x12\x01\x03\0\x01\0\0\0\x06\0\0\0')
if target == 'icon':
    # Selector byte (even: ICO, odd: CUR), then a BMP entry: BITMAPINFOHEADER, palette, rows, mask.
    for bpp in (1, 4, 8, 24, 32):
        w, h = 3, 2
        header = struct.pack('<IiiHHIIiiII', 40, w, 2 * h, 1, bpp, 0, 0, 0, 0, 0, 0)
        palette = bytes(i % 256 for i in range(4 * (1 << bpp))) if bpp <= 8 else b''
        row = (w * bpp + 31) // 32 * 4
        mask = (w + 31) // 32 * 4
        write(f'dib-{bpp}', b'\0' + header + palette + bytes(i % 256 for i in range(row * h)) + b'\x40' * (mask * h))
if target == 'png-rows':
    # A few small PNGs of the suite (grey of 1 and 16 bits, RGB, palettes, alpha, tRNS,
    # interlaced), each behind piece sizes: a count byte, then that many sizes (see
    # PNGRowsTarget.split).
    names = ['basn0g01', 'basi0g16', 'basn2c08', 'basi3p04', 'basn3p08', 'basn4a08', 'basi6a16', 'tbrn2c08',
             'tbbn0g04', 's05i3p02']
    prefixes = [b'\x00\x01', b'\x01\x07\x40', b'\x02\x03\x81\x00', b'\x03\x01\x0d\x82\x21']
    for i, name in enumerate(names):
        path = os.path.join(corpus, 'pngsuite', name + '.png')
        if os.path.exists(path):
            write('rows-' + name, prefixes[i % len(prefixes)] + open(path, 'rb').read())
if target == 'entry-container' or target == 'shared-entry':
    # Entry files: payload, metadata fields (tag, UInt32 LE length, bytes), footer.
    def field(tag, data): return bytes([tag]) + struct.pack('<I', len(data)) + data
    payload = b'\xff\xd8\xff\xe0payload'
    meta = field(1, struct.pack('<d', 1.7e9)) + field(3, b'"etag"') + field(5, b'max-age=60') + field(6, b'jpeg') \
        + field(8, b'Accept') + field(9, bytes(range(32))) + field(13, struct.pack('<d', 640.0))
    write('entry', payload + meta + struct.pack('<QI', len(payload), len(meta)) + b'PDC1')
    write('fields', b'https://example.org/a.jpg\0bytes\0"tag"\0max-age=60\0Accept\0\x01\x02')
PY
}

mkdir -p "$BUILD/corpus" "$BUILD/artifacts"
REPORT=$BUILD/report.tsv
printf 'target\tseconds\texecutions\texec/s\tcov\tft\tcorpus\tresult\n' > "$REPORT"
failed=()
total_execs=0
for t in "${TARGETS[@]}"; do
    seeddir=$BUILD/seeds/$t corpus=$BUILD/corpus/$t artifacts=$BUILD/artifacts/$t/ log=$BUILD/$t.log
    seeds "$t" "$seeddir"
    mkdir -p "$corpus" "$artifacts"
    maxlen=4096
    case "$t" in sniff|jpeg-markers|gif-header|png-check|webp-gif-canvas|jpeg-preview|png-rows) maxlen=16384 ;; esac
    echo "== $t: ${SECONDS_PER_TARGET} s ($(ls "$seeddir" | wc -l) seeds, $(ls "$corpus" | wc -l) kept inputs)"
    set +e
    PICTOR_FUZZ_TARGET=$t nice -n 10 "$BIN" -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb="$RSS_MB" \
        -max_len="$maxlen" -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts" \
        "$corpus" "$seeddir" > "$log" 2>&1
    status=$?
    set -e
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    # A target that fails on a seed stops before its first status line.
    line=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$line")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$line")
    corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<< "$line")
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    result=ok
    if [ $status -ne 0 ]; then
        result="FAILED (exit $status; $(ls -t "$artifacts" | head -1))"
        failed+=("$t")
        grep -E 'invariant failed|ERROR: AddressSanitizer|Fatal error|ERROR: libFuzzer|SUMMARY' "$log" | head -5 || true
    fi
    total_execs=$(( total_execs + ${execs:-0} ))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$SECONDS_PER_TARGET" "${execs:-0}" "${rate:-0}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result" >> "$REPORT"
    printf '   %s executions (%s/s), cov %s edges, ft %s, corpus %s: %s\n' "${execs:-0}" "${rate:-0}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done
echo "== report ($REPORT)"
column -t -s $'\t' "$REPORT"
echo "total executions: $total_execs"
if [ ${#failed[@]} -gt 0 ]; then
    echo "failed: ${failed[*]} (inputs under .build-fuzz/artifacts/; replay with a plain build:" \
         "swift run PictorFuzz TARGET FILE)" >&2
    exit 1
fi

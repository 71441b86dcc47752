import Foundation

/// One fuzz target: a name (`scripts/fuzz.sh TARGET`) and a function that checks what must
/// hold for one input, stopping the process (`abort`, which libFuzzer reports as a crash and
/// saves the input of) when it does not.
struct FuzzTarget: Sendable {
    let name: String
    /// What is fuzzed and which invariants are checked, one line (`PictorFuzz --list`).
    let summary: String
    let run: @Sendable (UnsafeRawBufferPointer) -> Void
}

/// Every target, in the order `scripts/fuzz.sh` runs them.
let allTargets: [FuzzTarget] = [
    FuzzTarget(name: "sniff", summary: "ImageFormat.sniff, FileStructure, AnimationStructure (repairs rescan whole)", run: ImageTargets.sniff),
    FuzzTarget(name: "jpeg-markers", summary: "JPEGMarkers, scan markers, EXIF orientation in JPEG APP1", run: ImageTargets.jpegMarkers),
    FuzzTarget(name: "exif", summary: "EXIFOrientation over a TIFF block, with and without the Exif header", run: ImageTargets.exif),
    FuzzTarget(name: "gif-header", summary: "GIFHeader.largestFrame against the GIF's own block walk", run: ImageTargets.gifHeader),
    FuzzTarget(name: "icon", summary: "ICO/CUR sniffing and IconDecoder.dib (pixel buffer matches the size)", run: ImageTargets.icon),
    FuzzTarget(name: "png-check", summary: "PNGImageData checks (libspng + CPNGShim inflate and unfilter)", run: ImageTargets.pngCheck),
    FuzzTarget(name: "png-rows", summary: "PNG previews (libpng progressive) in chosen pieces: sizes, limit, last = final decode", run: PNGRowsTarget.run),
    FuzzTarget(name: "http-head", summary: "ResponseHeadParser against a model; the head re-serialises to the same fields", run: HTTPTargets.responseHead),
    FuzzTarget(name: "http-date", summary: "HTTPDate.parse / format round trips", run: HTTPTargets.httpDate),
    FuzzTarget(name: "cache-control", summary: "Cache-Control directives re-serialise to the same directives and flags", run: HTTPTargets.cacheControl),
    FuzzTarget(name: "vary", summary: "Vary selection is independent of order, ASCII case and spacing", run: HTTPTargets.vary),
    FuzzTarget(name: "url-normalization", summary: "URLNormalization is idempotent and leaves only allowed bytes", run: HTTPTargets.urlNormalization),
    FuzzTarget(name: "service-path", summary: "ProcessingURLParser; a parsed path's canonical form parses back equal", run: ServiceTargets.path),
    FuzzTarget(name: "request-framing", summary: "pictor serve's Content-Length / Transfer-Encoding check: one way to delimit, or 400/501", run: ServiceTargets.requestFraming),
    FuzzTarget(name: "signature", summary: "SignaturePolicy: a signed path verifies, a changed signature does not", run: ServiceTargets.signature),
    FuzzTarget(name: "shared-entry", summary: "SharedEntryCodec plain and sealed: round trip, key binding, damage is a miss", run: CacheTargets.sharedEntry),
    FuzzTarget(name: "entry-container", summary: "EntryContainer.decode/decodeTail: re-encoding is a fixpoint, binding kept", run: CacheTargets.entryContainer),
    FuzzTarget(name: "cli-grammar", summary: "--resize and --name grammars: a parsed value prints and parses back", run: CLITargets.grammar),
    FuzzTarget(name: "url-list", summary: "URLList.lines: URL candidates only; the ASCII fast path agrees with the Unicode split", run: ListAndRedisTargets.urlList),
    FuzzTarget(name: "redis-reply", summary: "hiredis reader + copy: RESP round trip, MOVED/ASK and CLUSTER SLOTS checked", run: ListAndRedisTargets.redisReply),
    FuzzTarget(name: "key-record", summary: "KeyCheck records and entry key bindings: accepted for their key only, damage refused", run: KeyRecordTargets.keyRecord),
    FuzzTarget(name: "png-shim", summary: "CPNGShim directly: inflate and unfilter against the specification's rows, any size, depth, interlacing", run: ShimTargets.pngShim),
    FuzzTarget(name: "jpeg-preview", summary: "CJPEGShim previews in any pieces: sizes from the header, pixel limit, the same end as whole", run: ShimTargets.jpegPreview),
    FuzzTarget(name: "webp-gif-canvas", summary: "GIF canvas and frame sizes, WebP canvas and frame rectangles (libwebpdemux) inside the canvas", run: ImageTargets.webpGIFCanvas),
]

/// Stops the process with `message` when `condition` is false: a failed invariant is a
/// finding, saved by libFuzzer like a crash.
func check(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("invariant failed (\(file):\(line)): \(message())\n".utf8))
    abort()
}

/// Splits fuzz input into parts at a separator byte, so one input can carry several fields.
func fields(_ b: UnsafeRawBufferPointer, count: Int, separator: UInt8 = 0) -> [ArraySlice<UInt8>] {
    var parts = Array(b).split(separator: separator, maxSplits: count - 1, omittingEmptySubsequences: false)
    while parts.count < count { parts.append([]) }
    return parts
}

/// Bytes of the input as `Data` without copying them, so that AddressSanitizer sees a read
/// past their end (the fuzzer's buffer is exactly the input's size).
func dataNoCopy(_ b: UnsafeRawBufferPointer) -> Data {
    guard let base = b.baseAddress, b.count > 0 else { return Data() }
    return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: b.count, deallocator: .none)
}

#if PICTOR_FUZZING
/// The target named by `PICTOR_FUZZ_TARGET`, chosen once.
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["PICTOR_FUZZ_TARGET"] ?? ""
    guard let target = allTargets.first(where: { $0.name == name }) else {
        FileHandle.standardError.write(Data("PICTOR_FUZZ_TARGET must name a target: \(allTargets.map(\.name).joined(separator: " "))\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
/// Without the fuzzer: `PictorFuzz --list`, or `PictorFuzz TARGET FILE…` to replay inputs (a
/// crash file libFuzzer saved, a corpus) through one target.
@main
enum Replay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, name != "--list" else {
            for target in allTargets { print("\(target.name)\t\(target.summary)") }
            return
        }
        guard let target = allTargets.first(where: { $0.name == name }) else {
            FileHandle.standardError.write(Data("unknown target '\(name)'\n".utf8))
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(1)
            }
            bytes.withUnsafeBytes { target.run($0) }
            print("\(path): ok")
        }
    }
}
#endif

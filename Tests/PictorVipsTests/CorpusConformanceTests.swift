import Foundation
import PictorCore
import PictorVips
import Testing

/// Every row of `../shared/corpus/MANIFEST.tsv` through the default registry
/// (``ImageDecoderRegistry/vips``: the libjpeg-turbo, libspng and libwebp decoders for the files
/// they accept, libvips for the rest) and through ``VipsDecoder`` alone.
///
/// Tolerance: each signature value may differ from the manifest by at most
/// ``signatureTolerance`` (2, in 8-bit units). The manifest's values come from libvips 8.14, so
/// a correct decode lands within rounding (observed: 0 on 352 rows, 1 on 54, through both the
/// libvips and the TurboJPEG paths); a wrong orientation, inverted CMYK or unscaled 16-bit
/// sample is tens of units off. The test prints the per-folder pass counts and a histogram of
/// the differences.
@Suite("Corpus conformance")
struct CorpusConformanceTests {
    static let signatureTolerance = 2

    enum Outcome: Equatable { case pass(signatureDifference: Int), fail(String) }

    /// The decoders every row goes through.
    enum Decoder: String, CaseIterable, CustomTestStringConvertible {
        case registry, libvips
        var decoder: any ImageDecoding { self == .registry ? ImageDecoderRegistry.vips : VipsDecoder() }
        var testDescription: String { rawValue }
    }

    static func check(_ row: Corpus.Row, with decoder: any ImageDecoding) -> Outcome {
        let data: Data
        do { data = try Corpus.data(row.path) } catch { return .fail("unreadable: \(error)") }
        let result = Result { try decoder.decode(data, options: ImageDecodingOptions()) }
        switch (row.expect, result) {
        case (.any, _):
            if case .failure(let error) = result, !(error is ImageDecodingError) { return .fail("untyped error \(error)") }
            return .pass(signatureDifference: 0)
        case (.error, .success(let image)):
            return .fail("decoded \(image.width)x\(image.height) but expected an error")
        case (.error, .failure(let error)):
            return error is ImageDecodingError ? .pass(signatureDifference: 0) : .fail("untyped error \(error)")
        case (.ok, .failure(let error)):
            return .fail("error: \(error)")
        case (.ok, .success(let image)):
            var problems: [String] = []
            var difference = 0
            if image.sourceFormat?.rawValue != row.format { problems.append("format \(image.sourceFormat?.rawValue ?? "nil") != \(row.format)") }
            if image.width != row.width || image.height != row.height {
                problems.append("size \(image.width)x\(image.height) != \(row.width ?? 0)x\(row.height ?? 0)")
            }
            if image.hasAlpha != row.alpha { problems.append("alpha \(image.hasAlpha) != \(row.alpha)") }
            if image.sourceFrameCount != row.frames { problems.append("frames \(image.sourceFrameCount) != \(row.frames ?? 0)") }
            if problems.isEmpty, !row.signature.isEmpty, !row.note.contains("pixels unchecked") {
                let signature = Signature.of(image, alpha: row.alpha)
                let worst = zip(signature, row.signature).map { abs($0 - $1) }.max() ?? 0
                difference = worst
                if signature.count != row.signature.count || worst > signatureTolerance {
                    problems.append("signature off by \(worst): \(signature.map(String.init).joined(separator: ","))")
                }
            }
            return problems.isEmpty ? .pass(signatureDifference: difference) : .fail(problems.joined(separator: "; "))
        }
    }

    @Test("every manifest row decodes as the manifest says", arguments: Decoder.allCases)
    func manifest(decoder: Decoder) throws {
        guard Corpus.isAvailable else {
            print("CorpusConformanceTests: corpus not found at \(Corpus.root.path); skipped")
            return
        }
        let rows = try Corpus.rows()
        var passed: [String: Int] = [:], total: [String: Int] = [:]
        var failures: [String] = []
        var differences: [Int: Int] = [:]
        for row in rows {
            total[row.folder, default: 0] += 1
            switch Self.check(row, with: decoder.decoder) {
            case .pass(let difference):
                passed[row.folder, default: 0] += 1
                differences[difference, default: 0] += 1
            case .fail(let why): failures.append("\(row.path): \(why)")
            }
        }
        for folder in total.keys.sorted() {
            print("corpus \(decoder) \(folder): \(passed[folder, default: 0])/\(total[folder]!) pass")
        }
        let histogram = differences.keys.sorted().map { "\($0): \(differences[$0]!)" }.joined(separator: ", ")
        print("corpus signature differences (largest per passing row → rows): \(histogram)")
        for failure in failures { print("corpus mismatch: \(failure)") }
        #expect(failures.isEmpty, "\(failures.count) corpus rows did not conform")
    }

    /// Every row again as a 64-px-wide thumbnail (shrink-on-load): `ok` rows give the manifest's
    /// format and alpha and the fitted size (±1 px for rounding), `error` rows a typed error.
    @Test("every manifest row as a thumbnail", arguments: Decoder.allCases)
    func thumbnails(decoder: Decoder) throws {
        guard Corpus.isAvailable else {
            print("CorpusConformanceTests: corpus not found at \(Corpus.root.path); skipped")
            return
        }
        var passed: [String: Int] = [:], total: [String: Int] = [:]
        var failures: [String] = []
        for row in try Corpus.rows() {
            total[row.folder, default: 0] += 1
            let data = try Corpus.data(row.path)
            let result = Result { try decoder.decoder.decode(data, options: ImageDecodingOptions(thumbnail: .init(width: 64))) }
            var problem: String? = nil
            switch (row.expect, result) {
            case (.any, .failure(let error)), (.error, .failure(let error)):
                if !(error is ImageDecodingError) { problem = "untyped error \(error)" }
            case (.any, .success):
                break
            case (.error, .success):
                problem = "decoded but expected an error"
            case (.ok, .failure(let error)):
                problem = "error: \(error)"
            case (.ok, .success(let image)):
                let w = row.width ?? 0, h = row.height ?? 0
                let expectedWidth = min(w, 64)
                let expectedHeight = w <= 64 ? h : max(1, Int((Double(h) * 64 / Double(w)).rounded()))
                if image.width != expectedWidth || abs(image.height - expectedHeight) > 1 {
                    problem = "size \(image.width)x\(image.height), expected \(expectedWidth)x\(expectedHeight)"
                } else if image.hasAlpha != row.alpha || image.sourceFormat?.rawValue != row.format {
                    problem = "alpha \(image.hasAlpha) format \(image.sourceFormat?.rawValue ?? "-")"
                }
            }
            if let problem { failures.append("\(row.path): \(problem)") } else { passed[row.folder, default: 0] += 1 }
        }
        for folder in total.keys.sorted() {
            print("corpus \(decoder) thumbnails \(folder): \(passed[folder, default: 0])/\(total[folder]!) pass")
        }
        for failure in failures { print("corpus thumbnail mismatch: \(failure)") }
        #expect(failures.isEmpty, "\(failures.count) corpus rows did not conform as thumbnails")
    }
}

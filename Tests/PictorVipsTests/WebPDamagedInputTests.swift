import Foundation
import PictorCore
import PictorTestSupport
@testable import PictorVips
import Testing

/// Cut and corrupted copies of corpus WebPs (lossy, lossless, lossy + ALPH, EXIF), written to a
/// temporary folder and read back: the fast path and libvips agree on whether each one decodes
/// (but where libvips returns tiles its loader failed to write, the fast path refuses); a
/// refusal is a typed ``ImageDecodingError``; a decoded image is the same on both paths and from
/// one decode to the next (no pixel left unwritten).
@Suite("libwebp fast path: damaged input")
struct WebPDamagedInputTests {
    static let files = [
        "pillow/hopper.webp", "webp/lossless1.webp", "webp/lossy_alpha2.webp", "webp/lossless_vec_2_3.webp",
        "webp/alpha_filter_2_method_1.webp", "webp/vp80-03-segmentation-1437.webp", "pillow/hopper_orientation_5.webp",
    ]

    /// Prefixes (some with the RIFF size patched to match, so they reach the decoder as whole
    /// files) and copies with random bytes replaced, header kept so the format is still sniffed.
    static func variants(of data: Data, seed: UInt64) -> [Data] {
        let n = data.count
        let cuts = [13, 20, 30, 40, n / 4, n / 2, n * 3 / 4, n - 9, n - 1].filter { $0 > 12 && $0 < n }
        var out = cuts.map { Data(data.prefix($0)) }
        out += cuts.map { cut in
            var whole = Data(data.prefix(cut))
            let size = UInt32(cut - 8)
            whole.replaceSubrange(4..<8, with: [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)])
            return whole
        }
        var generator = SplitMix64(seed: seed)
        out += DecoderTestFixtures.byteReplacements(
            of: data, flips: [1, 1, 1, 2, 2, 4, 4, 8, 16, 32], keptPrefix: 12, generator: &generator)
        return out
    }

    @Test(arguments: files)
    func damagedCopiesFailTypedOrDecodeAsLibvipsDoes(path: String) throws {
        guard Corpus.isAvailable else { return }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-webp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let optionSets: [ImageDecodingOptions] = [.init(), .init(thumbnail: .init(width: 48)), .init(allowsTruncatedData: true)]
        var refused = 0, taken = 0
        for (index, variant) in Self.variants(of: try Corpus.data(path), seed: UInt64(path.utf8.count * 7919)).enumerated() {
            let file = folder.appendingPathComponent("\(index).webp")
            try variant.write(to: file)
            let data = try Data(contentsOf: file)
            for options in optionSets {
                let name = "\(path) variant \(index) \(options.thumbnail?.identifier ?? "full")"
                if (try? WebPFastPathTests.taken(data, options)) != false { taken += 1 }
                let fast = Result { try WebPFastPathTests.fast.decode(data, options: options) }
                let slow = Result { try WebPFastPathTests.slow.decode(data, options: options) }
                switch (fast, slow) {
                case let (.success(a), .success(b)):
                    let again = try WebPFastPathTests.fast.decode(data, options: options)
                    #expect(a.frames.map(\.pixels) == again.frames.map(\.pixels), "\(name): differs between decodes")
                    #expect(a.width == b.width && a.height == b.height && a.layout == b.layout, "\(name): shape differs from libvips")
                    guard a.width == b.width, a.height == b.height, a.layout == b.layout else { continue }
                    let worst = WebPFastPathTests.worstSample(a, b)
                    #expect(worst <= (options.thumbnail == nil ? WebPFastPathTests.fullSizeTolerance : 8), "\(name): off by \(worst)")
                case let (.failure(a), .failure(b)):
                    #expect(a is ImageDecodingError && b is ImageDecodingError, "\(name): \(a) / \(b)")
                    refused += 1
                case let (.failure(error), .success):
                    // libvips' thumbnail and rotation pipelines turn its loader's failure into a
                    // warning and return tiles they never wrote; its plain load refuses the data.
                    guard let decoding = error as? ImageDecodingError, decoding.kind == .corrupt, decoding.format == .webp else { Issue.record("\(name): \(error)"); continue }
                    #expect(throws: ImageDecodingError.self, "\(name): libvips' plain load decodes what libwebp refuses") {
                        try WebPFastPathTests.slow.decode(Self.withoutEXIF(data), options: .init())
                    }
                    refused += 1
                case let (.success, .failure(error)):
                    Issue.record("\(name): the fast path decodes what libvips refuses (\(error))")
                }
            }
        }
        #expect(refused > 0 && taken > 0, "\(refused) refused, \(taken) through the fast path")
    }

    /// `data` with the VP8X EXIF flag cleared, so that libvips neither reads the orientation nor rotates.
    static func withoutEXIF(_ data: Data) -> Data {
        var copy = data
        if copy.count > 20, copy[12..<16].elementsEqual("VP8X".utf8) { copy[20] &= ~0x08 }
        return copy
    }

    /// A file whose chunks claim more data than it holds (RIFF size patched to the cut) fails
    /// with a typed error on the fast path itself, never with an image.
    @Test func dataEndingInsideItsBitstreamIsCorrupt() throws {
        guard Corpus.isAvailable else { return }
        for path in ["pillow/hopper.webp", "webp/lossless1.webp", "webp/lossy_alpha2.webp"] {
            var data = try Corpus.data(path)
            let cut = data.count / 2
            data = data.prefix(cut)
            let size = UInt32(cut - 8)
            data.replaceSubrange(4..<8, with: [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)])
            let result = Result { try WebPDecoder().decode(data, options: .init()) }
            switch result {
            case .success: Issue.record("\(path): an image from half a bitstream")
            case .failure(let error): #expect(error is ImageDecodingError, "\(path): \(error)")
            }
            #expect(throws: ImageDecodingError.self) { try WebPFastPathTests.fast.decode(data, options: .init()) }
        }
    }

    /// A WebP cut short keeps libvips' rules: `truncated` by default, an image that says so
    /// when truncated data is allowed; the same whichever path is on.
    @Test func truncatedWebPsKeepTheLibvipsRules() throws {
        guard Corpus.isAvailable else { return }
        let full = try Corpus.data("webp/lossless1.webp")
        let cut = full.prefix(full.count - 9)
        for decoder in [WebPFastPathTests.fast, WebPFastPathTests.slow] as [any ImageDecoding] {
            #expect(throws: ImageDecodingError.truncated(.webp)) { try decoder.decode(cut, options: .init(thumbnail: .init(width: 64))) }
            #expect(throws: ImageDecodingError.truncated(.webp)) { try decoder.decode(cut, options: .init()) }
        }
    }
}

import Foundation
import PictorCore
import PictorVips
import Testing

/// The TurboJPEG thumbnail fast path against libvips' own thumbnail on every JPEG of the corpus:
/// same size, and a 4×4 signature within ``tolerance`` levels (the two resample with different
/// filters, so a few levels apart is expected; a wrong orientation is tens of levels off).
@Suite("TurboJPEG fast path")
struct TurboJPEGFastPathTests {
    static let tolerance = 10
    static let targets: [ThumbnailOptions] = [
        .init(width: 64), .init(width: 100, height: 100), .init(width: 90, height: 60, contentMode: .aspectFill),
        .init(width: 40, height: 70, contentMode: .stretch), .init(width: 4000, allowsUpscaling: false),
    ]

    @Test(arguments: targets)
    func matchesLibvipsOnTheCorpus(target: ThumbnailOptions) throws {
        guard Corpus.isAvailable else { print("TurboJPEGFastPathTests: corpus absent; skipped"); return }
        let fast = ImageDecoderRegistry.vips, slow = VipsDecoder()
        var compared = 0
        for row in try Corpus.rows() where row.format == "jpeg" && row.expect == .ok {
            let data = try Corpus.data(row.path)
            let options = ImageDecodingOptions(thumbnail: target)
            let a: Image, b: Image
            do { a = try fast.decode(data, options: options) } catch { Issue.record("fast \(row.path): \(error)"); continue }
            do { b = try slow.decode(data, options: options) } catch { Issue.record("slow \(row.path): \(error)"); continue }
            #expect(a.width == b.width && a.height == b.height, "\(row.path) \(target.identifier): \(a.width)x\(a.height) vs \(b.width)x\(b.height)")
            #expect(a.layout == b.layout, "\(row.path)")
            guard a.width == b.width, a.height == b.height else { continue }
            let sa = Signature.of(a, alpha: false), sb = Signature.of(b, alpha: false)
            let worst = zip(sa, sb).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= Self.tolerance, "\(row.path) \(target.identifier): off by \(worst)")
            compared += 1
        }
        #expect(compared > 30)
    }

    /// Full size, both paths run the same libjpeg-turbo: the pixels must agree exactly (±1 for
    /// rounding in libvips' colour handling).
    @Test func fullSizeDecodesMatchLibvipsPixelForPixel() throws {
        guard Corpus.isAvailable else { return }
        var compared = 0
        for row in try Corpus.rows() where row.format == "jpeg" && row.expect == .ok {
            let data = try Corpus.data(row.path)
            let a = try ImageDecoderRegistry.vips.decode(data, options: .init())
            let b = try VipsDecoder().decode(data, options: .init())
            #expect(a.width == b.width && a.height == b.height && a.layout == b.layout, "\(row.path)")
            guard a.width == b.width, a.height == b.height, a.layout == b.layout else { continue }
            let worst = Self.maxDifference(a.pixels, b.pixels)
            #expect(worst <= 1, "\(row.path): off by \(worst)")
            compared += 1
        }
        #expect(compared > 30)
    }

    static func maxDifference(_ a: Data, _ b: Data) -> Int {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                var worst: UInt8 = 0
                for i in 0..<min(a.count, b.count) {
                    let x = a[i], y = b[i]
                    worst = max(worst, x > y ? x - y : y - x)
                }
                return Int(worst)
            }
        }
    }

    @Test func truncatedJPEGStillFailsThroughTheFastPath() throws {
        guard Corpus.isAvailable else { return }
        let full = try Corpus.data("exif-orientation/Landscape_5.jpg")
        #expect(throws: ImageDecodingError.truncated(.jpeg)) {
            try ImageDecoderRegistry.vips.decode(full.prefix(full.count / 2), options: .init(thumbnail: .init(width: 64)))
        }
        let accepted = try ImageDecoderRegistry.vips.decode(full.prefix(full.count / 2), options: .init(thumbnail: .init(width: 64), allowsTruncatedData: true))
        #expect(accepted.width == 64 && accepted.height == 43, "\(accepted.width)x\(accepted.height)")
    }
}

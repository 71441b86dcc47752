import Foundation
import PictorCore
import PictorVips
import PictorTestSupport
import Testing

/// Cut and corrupted copies of corpus files: each decode either succeeds or throws an
/// ``ImageDecodingError``; nothing crashes. Deterministic (a fixed-seed generator).
@Suite("Damaged input")
struct DamagedInputTests {
    static let files = [
        "pillow/hopper.jpg", "exif-orientation/Portrait_6.jpg", "pillow/pil_sample_cmyk.jpg", "libjpeg-turbo/testimgari.jpg",
        "pillow/hopper.png", "pngsuite/basi6a16.png", "pngsuite/tbbn0g04.png", "pillow/chi.gif", "pillow/hopper.gif",
        "pillow/hopper.webp", "webp/lossless_vec_1_0.webp", "pillow/iss634.webp", "pillow/avif_hopper.avif", "pillow/avif_hopper.heif",
    ]

    static func variants(of data: Data, seed: UInt64) -> [Data] {
        let n = data.count
        var out = [1, 3, 8, 16, 33, 100, n / 3, n / 2, n - 2].filter { $0 > 0 && $0 < n }.map { Data(data.prefix($0)) }
        var generator = SplitMix64(seed: seed)
        // Keep the first 4 bytes so the format is still recognised and the decoder runs.
        out += DecoderTestFixtures.byteReplacements(
            of: data, flips: [1, 1, 2, 4, 4, 8, 32, 32], keptPrefix: min(4, n - 1), generator: &generator)
        return out
    }

    @Test(arguments: files)
    func damagedCopiesNeverCrash(path: String) throws {
        guard Corpus.isAvailable else { return }
        let data = try Corpus.data(path)
        let optionSets: [ImageDecodingOptions] = [
            .init(), .init(thumbnail: .init(width: 48)), .init(allFrames: true, allowsTruncatedData: true),
        ]
        var decoded = 0, refused = 0
        for (index, variant) in Self.variants(of: data, seed: UInt64(path.utf8.count * 7919)).enumerated() {
            for options in optionSets {
                do {
                    let image = try ImageDecoderRegistry.vips.decode(variant, options: options)
                    #expect(image.frames.allSatisfy { $0.pixels.count == image.bytesPerRow * image.height })
                    decoded += 1
                } catch is ImageDecodingError {
                    refused += 1
                } catch {
                    Issue.record("\(path) variant \(index): untyped error \(error)")
                }
            }
        }
        #expect(decoded + refused > 0)
    }
}

import Foundation
import PictorCore
import PictorTestSupport

/// What several decoder suites share: the thumbnail boxes the fast-path suites (libspng,
/// libwebp) compare with libvips, and the random damage the damaged-input suites apply.
enum DecoderTestFixtures {
    /// Fitted, square, filled, stretched, larger than any corpus file without upscaling, and
    /// upscaled: one box per way a thumbnail's size is decided.
    static let thumbnailTargets: [ThumbnailOptions] = [
        .init(width: 64), .init(width: 100, height: 100), .init(width: 90, height: 60, contentMode: .aspectFill),
        .init(width: 40, height: 70, contentMode: .stretch), .init(width: 4000, allowsUpscaling: false),
        .init(width: 77, allowsUpscaling: true),
    ]

    /// One copy of `data` per entry of `flips`, each with that many bytes replaced by random
    /// values at random positions from `keptPrefix` on (so the format is still sniffed and the
    /// decoder runs), drawn from `generator` in order.
    static func byteReplacements(of data: Data, flips: [Int], keptPrefix: Int, generator: inout SplitMix64) -> [Data] {
        flips.map { count in
            var bytes = [UInt8](data)
            for _ in 0..<count {
                let index = Int.random(in: keptPrefix..<data.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            return Data(bytes)
        }
    }
}

import Foundation
import PictorCore
import PictorTestSupport
@testable import PictorVips
import Testing

/// What several decoder and encoder suites share: the thumbnail boxes the fast-path suites
/// (libspng, libwebp) compare with libvips, the corpus images the encoder suites write, and the
/// random damage the damaged-input suites apply.
enum DecoderTestFixtures {
    /// Fitted, square, filled, stretched, larger than any corpus file without upscaling, and
    /// upscaled: one box per way a thumbnail's size is decided.
    static let thumbnailTargets: [ThumbnailOptions] = [
        .init(width: 64), .init(width: 100, height: 100), .init(width: 90, height: 60, contentMode: .aspectFill),
        .init(width: 40, height: 70, contentMode: .stretch), .init(width: 4000, allowsUpscaling: false),
        .init(width: 77, allowsUpscaling: true),
    ]

    /// The corpus' still images in the folders whose files Pictor decodes to every layout: what
    /// the encoder suites (libspng, libwebp) encode, each as ``decodedAsPrefetchKeepsIt(_:)`` gives it.
    static let stillCorpusPaths: [String] = ((try? Corpus.rows()) ?? []).filter {
        $0.expect == .ok && $0.frames == 1 && ["webp", "pngsuite", "pillow", "libjpeg-turbo", "exif-orientation"].contains($0.folder)
    }.map(\.path)

    /// The corpus file at `path` as Pictor decodes it: those over 1024 px as 256-px thumbnails,
    /// the size `pictor prefetch` keeps; the others at full size.
    static func decodedAsPrefetchKeepsIt(_ path: String) throws -> Image {
        let row = try #require(try Corpus.rows().first { $0.path == path })
        let large = (row.width ?? 0) > 1024 || (row.height ?? 0) > 1024
        let options = ImageDecodingOptions(thumbnail: large ? ThumbnailOptions(width: 256, height: 256) : nil)
        return try ImageDecoderRegistry.vips.decode(try Corpus.data(path), options: options)
    }

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

import Foundation
import PictorCore
import PictorVips
import Testing

@Suite("VipsDecoder concurrency")
struct VipsConcurrencyTests {
    @Test func parallelDecodesGiveTheSameImagesAsSerialOnes() async throws {
        guard Corpus.isAvailable else { return }
        let paths = ["pillow/hopper.jpg", "pillow/hopper.png", "pillow/hopper.webp", "pillow/pil_sample_cmyk.jpg",
                     "pngsuite/basn6a16.png", "exif-orientation/Portrait_6.jpg", "pillow/avif_hopper.avif", "pillow/chi.gif"]
        let inputs = try paths.map { try Corpus.data($0) }
        let options = ImageDecodingOptions(thumbnail: .init(width: 100))
        let serial = try inputs.map { try ImageDecoderRegistry.vips.decode($0, options: options) }
        let parallel = try await withThrowingTaskGroup(of: (Int, Image).self) { group in
            for round in 0..<4 {
                for (index, data) in inputs.enumerated() {
                    group.addTask { (index, try ImageDecoderRegistry.vips.decode(data, options: options)) }
                }
                _ = round
            }
            var results: [(Int, Image)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(parallel.count == inputs.count * 4)
        for (index, image) in parallel { #expect(image == serial[index], "\(paths[index])") }
    }
}

import Foundation
import PictorCore
import PictorVips
import Testing

/// An animation cut short: by default a ``ImageDecodingError/truncated(_:)`` error; with
/// ``ImageDecodingOptions/allowsTruncatedData`` only the frames the data holds completely, and
/// the image says it is truncated. A partly decoded frame is never presented as complete.
@Suite("Truncated animations")
struct TruncatedAnimationTests {
    static let files: [(path: String, format: ImageFormat)] = [("pillow/iss634.gif", .gif), ("pillow/iss634.webp", .webp), ("pillow/chi.gif", .gif)]
    let decoder = ImageDecoderRegistry.vips

    @Test(arguments: files.map(\.path))
    func defaultOptionsThrowTruncated(path: String) throws {
        guard Corpus.isAvailable else { return }
        let format = Self.files.first { $0.path == path }!.format
        let data = try Corpus.data(path)
        for fraction in [0.3, 0.6, 0.95] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            for options in [ImageDecodingOptions(), .init(allFrames: true), .init(thumbnail: .init(width: 40), allFrames: true)] {
                #expect(throws: ImageDecodingError.truncated(format), "\(path) cut at \(fraction)") {
                    try decoder.decode(cut, options: options)
                }
            }
        }
    }

    @Test(arguments: files.map(\.path))
    func allowingTruncationGivesOnlyCompleteFramesAndSaysSo(path: String) throws {
        guard Corpus.isAvailable else { return }
        let data = try Corpus.data(path)
        let whole = try decoder.decode(data, options: .init(allFrames: true))
        #expect(!whole.isTruncated)
        for fraction in [0.3, 0.6, 0.95] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            let partial = try decoder.decode(cut, options: .init(allFrames: true, allowsTruncatedData: true))
            #expect(partial.isTruncated, "\(path) at \(fraction)")
            #expect(partial.frames.count >= 1 && partial.frames.count < whole.frames.count, "\(path) at \(fraction): \(partial.frames.count) frames")
            #expect(partial.width == whole.width && partial.height == whole.height && partial.layout == whole.layout)
            for (index, frame) in partial.frames.enumerated() where index < whole.frames.count {
                #expect(frame.pixels == whole.frames[index].pixels, "\(path) at \(fraction): frame \(index) differs from the complete file's")
                #expect(frame.duration == whole.frames[index].duration)
            }
            let first = try decoder.decode(cut, options: .init(allowsTruncatedData: true))
            #expect(first.isTruncated && first.frames.count == 1 && first.pixels == whole.pixels, "\(path) at \(fraction): first frame")
            let thumbnail = try decoder.decode(cut, options: .init(thumbnail: .init(width: 40), allFrames: true, allowsTruncatedData: true))
            #expect(thumbnail.isTruncated && thumbnail.frames.count == partial.frames.count && thumbnail.width == 40)
        }
    }

    @Test func aCompleteStillImageIsNotTruncated() throws {
        guard Corpus.isAvailable else { return }
        #expect(try !decoder.decode(try Corpus.data("pillow/hopper.gif"), options: .init(allowsTruncatedData: true)).isTruncated)
        let jpeg = try Corpus.data("pillow/hopper.jpg")
        #expect(try !decoder.decode(jpeg, options: .init(allowsTruncatedData: true)).isTruncated)
        #expect(try decoder.decode(jpeg.prefix(jpeg.count / 2), options: .init(allowsTruncatedData: true)).isTruncated)
    }
}

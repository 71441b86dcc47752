import Foundation
import PictorCore
import PictorVips
import Testing

/// An animation cut short: by default (and with ``ImageDecodingOptions/allowsTruncatedData``)
/// only the frames the data holds completely, and the image says it is truncated; strict
/// decoding (``ImageDecodingOptions/TruncatedData/fail``) throws
/// ``ImageDecodingError/truncated(_:)``. A partly decoded frame is never presented as complete.
@Suite("Truncated animations")
struct TruncatedAnimationTests {
    static let files: [(path: String, format: ImageFormat)] = [("pillow/iss634.gif", .gif), ("pillow/iss634.webp", .webp), ("pillow/chi.gif", .gif)]
    let decoder = ImageDecoderRegistry.vips

    @Test(arguments: files.map(\.path))
    func strictDecodingThrowsTruncated(path: String) throws {
        guard Corpus.isAvailable else { return }
        let format = Self.files.first { $0.path == path }!.format
        let data = try Corpus.data(path)
        for fraction in [0.3, 0.6, 0.95] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            for options in [ImageDecodingOptions(truncatedData: .fail), .init(allFrames: true, truncatedData: .fail),
                            .init(thumbnail: .init(width: 40), allFrames: true, truncatedData: .fail), .init(allowsTruncatedData: false)] {
                #expect(throws: ImageDecodingError.truncated(format), "\(path) cut at \(fraction)") {
                    try decoder.decode(cut, options: options)
                }
            }
        }
    }

    @Test(arguments: files.map(\.path), [ImageDecodingOptions.TruncatedData.completeFrames, .anyPart])
    func allowingTruncationGivesOnlyCompleteFramesAndSaysSo(path: String, policy: ImageDecodingOptions.TruncatedData) throws {
        guard Corpus.isAvailable else { return }
        let data = try Corpus.data(path)
        let whole = try decoder.decode(data, options: .init(allFrames: true))
        #expect(!whole.isTruncated)
        for fraction in [0.3, 0.6, 0.95] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            let partial = try decoder.decode(cut, options: .init(allFrames: true, truncatedData: policy))
            #expect(partial.isTruncated, "\(path) at \(fraction)")
            #expect(partial.frames.count >= 1 && partial.frames.count < whole.frames.count, "\(path) at \(fraction): \(partial.frames.count) frames")
            #expect(partial.width == whole.width && partial.height == whole.height && partial.layout == whole.layout)
            for (index, frame) in partial.frames.enumerated() where index < whole.frames.count {
                #expect(frame.pixels == whole.frames[index].pixels, "\(path) at \(fraction): frame \(index) differs from the complete file's")
                #expect(frame.duration == whole.frames[index].duration)
            }
            let first = try decoder.decode(cut, options: .init(truncatedData: policy))
            #expect(first.isTruncated && first.frames.count == 1 && first.pixels == whole.pixels, "\(path) at \(fraction): first frame")
            let thumbnail = try decoder.decode(cut, options: .init(thumbnail: .init(width: 40), allFrames: true, truncatedData: policy))
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

    /// The GIF's whole bytes without their trailer byte, and cut at the places that matter.
    @Test(arguments: ["pillow/iss634.gif", "pillow/chi.gif", "pillow/dispose_bgnd_rgba.gif"])
    func aGIFLackingOnlyItsTrailerIsWholeAndEveryCutGivesItsCompleteFrames(path: String) throws {
        guard Corpus.isAvailable else { return }
        let data = try Corpus.data(path)
        let whole = try decoder.decode(data, options: .init(allFrames: true))
        #expect(data.last == 0x3B)
        let noTrailer = data.dropLast()
        for options in [ImageDecodingOptions(allFrames: true), .init(allFrames: true, truncatedData: .fail)] {
            let image = try decoder.decode(noTrailer, options: options)
            #expect(!image.isTruncated && image.frames.count == whole.frames.count, "\(path) without its trailer")
            #expect(image.frames.map(\.pixels) == whole.frames.map(\.pixels))
        }
        // Each frame's descriptor (0x2C) offset, from the container's own walk.
        let starts = Self.imageDescriptorOffsets(data)
        #expect(starts.count == whole.frames.count)
        guard starts.count >= 3 else { return }
        let cuts: [(String, Int, Int)] = [
            ("inside the second frame's descriptor", starts[1] + 5, 1),
            ("inside the second frame's LZW data", starts[1] + 14, 1),
            ("inside the last frame", (starts[starts.count - 1] + data.count) / 2, starts.count - 1),
        ]
        for (label, at, frames) in cuts {
            let cut = data.prefix(at)
            let image = try decoder.decode(cut, options: .init(allFrames: true))
            #expect(image.isTruncated && image.frames.count == frames, "\(path) cut \(label): \(image.frames.count) frames")
            // One frame left is a still GIF, which libvips reads without an alpha band when it
            // has no transparency: compared on colour alone.
            #expect(image.frames.map { Self.rgb($0.pixels, image.layout) } == whole.frames.prefix(frames).map { Self.rgb($0.pixels, whole.layout) },
                    "\(path) cut \(label)")
            #expect(throws: ImageDecodingError.truncated(.gif)) { try decoder.decode(cut, options: .init(truncatedData: .fail)) }
        }
    }

    @Test func aCutStillImageStillFailsByDefault() throws {
        guard Corpus.isAvailable else { return }
        for (path, format) in [("pillow/hopper.gif", ImageFormat.gif), ("pillow/hopper.webp", .webp), ("pillow/hopper.jpg", .jpeg)] {
            let data = try Corpus.data(path)
            #expect(throws: ImageDecodingError.truncated(format), "\(path)") { try decoder.decode(data.prefix(data.count / 2), options: .init()) }
        }
    }

    /// The colour bands of `pixels` laid out as `layout`.
    static func rgb(_ pixels: Data, _ layout: Image.PixelLayout) -> [UInt8] {
        guard layout == .rgba else { return [UInt8](pixels) }
        return pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
    }

    /// Offsets of the image descriptors of a GIF, walking its blocks.
    static func imageDescriptorOffsets(_ data: Data) -> [Int] {
        let b = [UInt8](data)
        var i = 13, offsets: [Int] = []
        if b[10] & 0x80 != 0 { i += 3 << (Int(b[10] & 0x07) + 1) }
        func skipSubBlocks(_ start: Int) -> Int {
            var j = start
            while j < b.count, b[j] != 0 { j += Int(b[j]) + 1 }
            return j + 1
        }
        while i < b.count {
            switch b[i] {
            case 0x21: i = skipSubBlocks(i + 2)
            case 0x2C:
                offsets.append(i)
                var j = i + 10
                if b[i + 9] & 0x80 != 0 { j += 3 << (Int(b[i + 9] & 0x07) + 1) }
                i = skipSubBlocks(j + 1)
            default: return offsets
            }
        }
        return offsets
    }
}

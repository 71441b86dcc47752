import Foundation
import PictorCore
import PictorVips
import Testing

/// Headers that declare far more pixels than they carry: refused from the header, naming the size.
@Suite("Decompression bombs")
struct DecompressionBombTests {

    /// A PNG whose IHDR says `width × height` RGB, followed by a tiny IDAT and IEND.
    static func png(width: UInt32, height: UInt32) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return HandMadeFiles.be32(UInt32(body.count)) + typed + HandMadeFiles.be32(HandMadeFiles.crc32(typed))
        }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", HandMadeFiles.be32(width) + HandMadeFiles.be32(height) + [8, 2, 0, 0, 0])
        bytes += chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        bytes += chunk("IEND", [])
        return Data(bytes)
    }

    @Test func pngHeaderClaimingTenGigapixels() {
        let data = Self.png(width: 100_000, height: 100_000)
        #expect(throws: ImageDecodingError.tooManyPixels(width: 100_000, height: 100_000, limit: ImageDecodingOptions.defaultMaximumPixelCount)) {
            try ImageDecoderRegistry.vips.decode(data, options: .init())
        }
        #expect(throws: ImageDecodingError.tooManyPixels(width: 100_000, height: 100_000, limit: ImageDecodingOptions.defaultMaximumPixelCount)) {
            try ImageDecoderRegistry.vips.decode(data, options: .init(thumbnail: .init(width: 64)))
        }
    }

    @Test func jpegHeaderClaimingFourGigapixels() throws {
        guard Corpus.isAvailable else { return }
        var bytes = [UInt8](try Corpus.data("pillow/hopper.jpg"))
        // Patch the SOF0 frame size (height, width at offsets 5...8 after the marker) to 65500.
        let sof = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = 0xFF; bytes[sof + 6] = 0xDC; bytes[sof + 7] = 0xFF; bytes[sof + 8] = 0xDC
        for decoder in [ImageDecoderRegistry.vips, VipsDecoder()] as [any ImageDecoding] {
            for thumbnail in [nil, ThumbnailOptions(width: 64)] {
                #expect(throws: ImageDecodingError.tooManyPixels(width: 65500, height: 65500, limit: ImageDecodingOptions.defaultMaximumPixelCount)) {
                    try decoder.decode(Data(bytes), options: .init(thumbnail: thumbnail))
                }
            }
        }
    }

    /// A GIF with a logical screen of `screen` and one frame of `frame` (left, top, width,
    /// height) whose image data is a clear code and the end code.
    static func gif(screen: (Int, Int), frame: (Int, Int, Int, Int)) -> Data {
        var bytes = Array("GIF89a".utf8) + HandMadeFiles.le16(screen.0) + HandMadeFiles.le16(screen.1) + [0x80, 0, 0, 0, 0, 0, 255, 255, 255]
        bytes += [0x2C] + HandMadeFiles.le16(frame.0) + HandMadeFiles.le16(frame.1) + HandMadeFiles.le16(frame.2) + HandMadeFiles.le16(frame.3) + [0]
        bytes += [0x02, 0x02, 0x4C, 0x01, 0x00, 0x3B]
        return Data(bytes)
    }

    /// libvips grows the logical screen side by side to hold the first frame (a 1000 × 1 screen
    /// and a 1 × 1000 first frame make a 1000 × 1000 canvas): the size checked before libvips
    /// is that canvas, not the larger by area of the screen and the frame's extent.
    @Test func aGIFCanvasGrowsSideBySideToHoldTheFirstFrame() throws {
        let size = try #require(GIFHeader.largestFrame(in: Self.gif(screen: (1000, 1), frame: (0, 0, 1, 1000))))
        #expect(size.width == 1000 && size.height == 1000)
        // Found by the fuzzer: a 1 × 1 screen and a frame 0 wide and 1,032 high, 256 rows down.
        let found: [UInt8] = [0x47, 0x49, 0x46, 0x38, 0x37, 0x61, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00,
                              0x00, 0x01, 0x00, 0x00, 0x08, 0x04, 0x00, 0x01, 0x04, 0x04, 0x00, 0x3B]
        let grown = try #require(GIFHeader.largestFrame(in: Data(found)))
        #expect(grown.width == 1 && grown.height == 1_288)
    }
}

import Foundation
import PictorCore
@testable import PictorVips
import Testing

/// The libjpeg-turbo encoding path writes what libvips' `jpegsave` writes: the same pixels once
/// decoded, the same chroma subsampling, and it declines what libvips must do (alpha).
@Suite("TurboJPEG encoder")
struct TurboJPEGEncoderTests {
    let fast = VipsEncoder()
    let vips = VipsEncoder(usesTurboJPEG: false)
    let decoder = VipsDecoder()

    /// (horizontal, vertical) sampling factors of each component in the frame header (SOF0).
    static func sampling(_ jpeg: Data) -> [[Int]] {
        let bytes = [UInt8](jpeg)
        var i = 2
        while i + 9 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xC0 || marker == 0xC1 || marker == 0xC2 {
                let components = Int(bytes[i + 9])
                return (0..<components).map { c in
                    let factors = bytes[i + 11 + c * 3]
                    return [Int(factors >> 4), Int(factors & 0x0F)]
                }
            }
            i += 2 + length
        }
        return []
    }

    static func grey(width: Int, height: Int) -> Image {
        var pixels = Data(count: width * height)
        for y in 0..<height { for x in 0..<width { pixels[y * width + x] = UInt8((x * 7 + y * 3) % 256) } }
        return Image(width: width, height: height, layout: .gray, pixels: pixels)
    }

    @Test(arguments: [30, 75, 85, 89, 90, 100])
    func rgbMatchesLibvips(quality: Int) throws {
        let source = TestImages.gradient(width: 123, height: 77)
        let ours = try #require(TurboJPEGEncoder.encode(source, quality: Int32(quality)))
        let theirs = try vips.encode(source, as: .jpeg, quality: quality)
        #expect(Self.sampling(ours) == Self.sampling(theirs), "quality \(quality)")
        #expect(Self.sampling(ours) == (quality >= 90 ? [[1, 1], [1, 1], [1, 1]] : [[2, 2], [1, 1], [1, 1]]))
        let a = try decoder.decode(ours, options: .init()), b = try decoder.decode(theirs, options: .init())
        #expect(a.width == 123 && a.height == 77 && a.layout == .rgb)
        #expect(a.pixels == b.pixels, "quality \(quality): decoded pixels differ from libvips' jpegsave")
    }

    @Test func greyStaysOneBandAndMatchesLibvips() throws {
        let source = Self.grey(width: 64, height: 40)
        let ours = try fast.encode(source, as: .jpeg, quality: 80)
        let theirs = try vips.encode(source, as: .jpeg, quality: 80)
        #expect(Self.sampling(ours) == [[1, 1]])
        let a = try decoder.decode(ours, options: .init()), b = try decoder.decode(theirs, options: .init())
        #expect(a.layout == .gray && a.pixels == b.pixels)
    }

    @Test func declinesAlphaSoLibvipsFlattensIt() throws {
        let rgba = TestImages.solid(width: 8, height: 8, layout: .rgba, [10, 20, 30, 0])
        #expect(TurboJPEGEncoder.encode(rgba, quality: 80) == nil)
        let flattened = try decoder.decode(try fast.encode(rgba, as: .jpeg, quality: 80), options: .init())
        #expect(TestImages.pixel(flattened, 4, 4).allSatisfy { $0 >= 250 }, "transparent pixels become white")
    }
}

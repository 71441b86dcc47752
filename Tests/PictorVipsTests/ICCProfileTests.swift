import Foundation
import PictorCore
import PictorVips
import Testing

/// An embedded ICC profile that does not fit the pixels (another colour space, truncated,
/// corrupt) is ignored: the image decodes as if it had none, with its own band count. Profiles
/// that fit are converted to sRGB.
@Suite("ICC profiles")
struct ICCProfileTests {
    typealias ICC = HandMadeFiles.ICC
    static let adobe = ICC.rgb("Adobe RGB (1998)", colorants: ICC.adobeRGB, gamma: 563.0 / 256)
    static let p3 = ICC.rgb("Display P3", colorants: ICC.displayP3, gamma: 2.2)

    let decoder = ImageDecoderRegistry.vips
    static let full = ImageDecodingOptions()
    static let thumbnail = ImageDecodingOptions(thumbnail: .init(width: 8))

    /// Decodes full size and as a thumbnail; both must have `layout` and every pixel within
    /// `tolerance` of `pixel`.
    func expectDecodes(_ data: Data, as layout: Image.PixelLayout, _ pixel: [UInt8], tolerance: Int = 1,
                       _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for options in [Self.full, Self.thumbnail] {
            let kind = options.thumbnail == nil ? "full" : "thumbnail"
            do {
                let image = try decoder.decode(data, options: options)
                #expect(image.layout == layout, "\(label) \(kind): \(image.layout)", sourceLocation: sourceLocation)
                guard image.layout == layout else { continue }
                let p = TestImages.pixel(image, image.width / 2, image.height / 2)
                let off = zip(p, pixel).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(off <= tolerance, "\(label) \(kind): \(p), expected \(pixel)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(label) \(kind): \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    static let rgbImage = TestImages.solid(width: 16, height: 16, layout: .rgb, [200, 100, 50])
    static let greyImage = TestImages.solid(width: 16, height: 16, layout: .gray, [90])
    static let greyAlphaImage = TestImages.solid(width: 16, height: 16, layout: .grayAlpha, [90, 200])
    static let rgbaImage = TestImages.solid(width: 16, height: 16, layout: .rgba, [200, 100, 50, 200])

    @Test func aGreyProfileOnRGBDataIsIgnored() {
        expectDecodes(HandMadeFiles.png(Self.rgbImage, profile: ICC.gray()), as: .rgb, [200, 100, 50], "png rgb")
        expectDecodes(HandMadeFiles.png(Self.rgbaImage, profile: ICC.gray()), as: .rgba, [200, 100, 50, 200], "png rgba")
    }

    @Test func anRGBProfileOnGreyDataIsIgnored() {
        expectDecodes(HandMadeFiles.png(Self.greyImage, profile: Self.adobe), as: .gray, [90], "png grey")
        expectDecodes(HandMadeFiles.png(Self.greyAlphaImage, profile: Self.adobe), as: .grayAlpha, [90, 200], "png grey+alpha")
    }

    @Test func jpegsWithAProfileOfAnotherColourSpaceAreIgnored() throws {
        let encoder = VipsEncoder()
        let grey = try encoder.encode(Self.greyImage, as: .jpeg, quality: 95)
        expectDecodes(HandMadeFiles.jpeg(grey, profile: Self.adobe), as: .gray, [90], tolerance: 3, "jpeg grey")
        let rgb = try encoder.encode(Self.rgbImage, as: .jpeg, quality: 95)
        expectDecodes(HandMadeFiles.jpeg(rgb, profile: ICC.gray()), as: .rgb, [200, 100, 50], tolerance: 6, "jpeg rgb")
    }

    @Test func truncatedAndCorruptProfilesAreIgnored() {
        let truncated = Array(Self.adobe.prefix(200))
        var corrupt = Self.adobe
        for i in 132..<corrupt.count { corrupt[i] = 0xA5 }
        let noise = (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for (name, profile) in [("truncated", truncated), ("corrupt tags", corrupt), ("noise", noise)] {
            expectDecodes(HandMadeFiles.png(Self.rgbImage, profile: profile), as: .rgb, [200, 100, 50], "\(name) on rgb")
            expectDecodes(HandMadeFiles.png(Self.greyImage, profile: profile), as: .gray, [90], "\(name) on grey")
        }
    }

    @Test(arguments: ["Adobe RGB", "Display P3"])
    func fittingProfilesAreConvertedToSRGB(name: String) throws {
        let profile = name == "Adobe RGB" ? Self.adobe : Self.p3
        let source = TestImages.solid(width: 16, height: 16, layout: .rgb, [60, 180, 60])
        let data = HandMadeFiles.png(source, profile: profile)
        for options in [Self.full, Self.thumbnail] {
            let image = try decoder.decode(data, options: options)
            #expect(image.layout == .rgb)
            let p = TestImages.pixel(image, image.width / 2, image.height / 2)
            // A wide-gamut green is more saturated in sRGB numbers: red and blue go down.
            #expect(p[0] < 50 && p[2] < 55 && p[1] > 170, "\(name): \(p)")
        }
        // Grey stays grey (the profiles share the D50 white point).
        let grey = try decoder.decode(HandMadeFiles.png(TestImages.solid(width: 16, height: 16, layout: .rgb, [128, 128, 128]), profile: profile), options: Self.full)
        let g = TestImages.pixel(grey, 8, 8)
        #expect(g.max()! - g.min()! <= 2, "\(name): \(g)")
    }

    @Test func cmykIsStillConverted() throws {
        guard Corpus.isAvailable else { return }
        let data = try Corpus.data("pillow/pil_sample_cmyk.jpg")
        for options in [Self.full, Self.thumbnail] {
            #expect(try decoder.decode(data, options: options).layout == .rgb)
        }
    }
}

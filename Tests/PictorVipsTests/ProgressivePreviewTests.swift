import Foundation
import PictorCore
@testable import PictorVips
import Testing

/// Previews of progressive JPEGs fed in pieces (``JPEGPreviews`` over CJPEGShim).
@Suite struct ProgressivePreviewTests {
    /// A textured opaque image, so that every scan adds visible detail.
    static func texture(_ width: Int, _ height: Int) -> Image {
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * 3)
        var seed: UInt32 = 12345
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 1_103_515_245 &+ 12345
                let noise = Int(seed >> 27)
                let r = 128 + Int(100 * sin(Double(x) / 7) * cos(Double(y) / 11)) + noise
                let g = (x * 255 / max(1, width - 1) + (x ^ y) % 23)
                let b = ((x / 8 + y / 8) % 2 == 0 ? 200 : 40) + noise
                bytes += [UInt8(clamping: r), UInt8(clamping: g & 0xFF), UInt8(clamping: b)]
            }
        }
        return Image(width: width, height: height, layout: .rgb, pixels: Data(bytes))
    }

    /// Where each scan's SOS marker starts, after the header.
    static func scanStarts(_ data: Data) -> [Int] {
        let bytes = [UInt8](data)
        return (2..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
    }

    /// The mean absolute difference of two images of one size, per sample.
    static func distance(_ a: Image, _ b: Image) -> Double {
        let x = [UInt8](a.pixels), y = [UInt8](b.pixels)
        precondition(x.count == y.count)
        var sum = 0
        for i in 0..<x.count { sum += abs(Int(x[i]) - Int(y[i])) }
        return Double(sum) / Double(max(1, x.count))
    }

    /// Feeds `data` cut at `cuts` and returns the previews made after each piece.
    static func previews(of data: Data, cutAt cuts: [Int], options: ImageDecodingOptions = ImageDecodingOptions()) throws -> [Image] {
        let decoder = try #require(TurboJPEGDecoder().makePreviewDecoder(format: .jpeg, options: options, kinds: .progressive))
        var previews: [Image] = []
        var start = 0
        for end in cuts + [data.count] where end > start {
            if let preview = try decoder.preview(appending: data.subdata(in: start..<end)) { previews.append(preview) }
            start = end
        }
        return previews
    }

    @Test func oneMoreDetailedPreviewPerScan() throws {
        let data = try #require(Self.texture(160, 120).progressiveJPEG(quality: 90))
        let scans = Self.scanStarts(data)
        #expect(scans.count >= 6)
        // A scan is complete once the marker after it is visible: cut just past each next SOS.
        let previews = try Self.previews(of: data, cutAt: scans.dropFirst().map { $0 + 2 })
        let final = try TurboJPEGDecoder().decode(data, options: ImageDecodingOptions())
        #expect(previews.count == scans.count)
        for preview in previews {
            #expect(preview.width == 160 && preview.height == 120 && preview.layout == .rgb)
        }
        let distances = previews.map { Self.distance($0, final) }
        #expect(distances.first! > distances.last!)
        #expect(distances.last! < 2, "the last preview is the whole file (IFAST DCT against ISLOW)")
        for (earlier, later) in zip(distances, distances.dropFirst()) { #expect(later <= earlier + 0.5) }
    }

    @Test func smallPiecesGiveTheSamePreviewsAsWholeScans() throws {
        let data = try #require(Self.texture(64, 48).progressiveJPEG(quality: 80))
        let previews = try Self.previews(of: data, cutAt: Array(stride(from: 7, to: data.count, by: 7)))
        // Several scans may complete within one piece; never more previews than scans.
        #expect(previews.count >= 2 && previews.count <= Self.scanStarts(data).count)
    }

    @Test func previewsHaveTheThumbnailsSize() throws {
        let data = try #require(Self.texture(400, 300).progressiveJPEG())
        var options = ImageDecodingOptions()
        options.thumbnail = ThumbnailOptions(width: 90)
        let previews = try Self.previews(of: data, cutAt: Self.scanStarts(data).dropFirst().map { $0 + 2 }, options: options)
        let final = try TurboJPEGDecoder().decode(data, options: options)
        #expect(!previews.isEmpty)
        for preview in previews { #expect(preview.width == final.width && preview.height == final.height) }
    }

    @Test func baselineJPEGsMakeNoPreviews() throws {
        let data = try #require(TurboJPEGEncoder.encode(Self.texture(64, 48), quality: 80))
        let decoder = try #require(TurboJPEGDecoder().makePreviewDecoder(format: .jpeg, options: ImageDecodingOptions(), kinds: .progressive))
        #expect(throws: ImageDecodingError.self) { _ = try decoder.preview(appending: data) }
        #expect(TurboJPEGDecoder().makePreviewDecoder(format: .png, options: ImageDecodingOptions(), kinds: .progressive) == nil)
    }

    @Test func theRegistryAsksItsJPEGDecoder() {
        #expect(ImageDecoderRegistry.vips.makePreviewDecoder(format: .jpeg, options: ImageDecodingOptions(), kinds: .progressive) != nil)
        #expect(ImageDecoderRegistry.vips.makePreviewDecoder(format: .png, options: ImageDecodingOptions(), kinds: .progressive) == nil)
    }

    /// Found by fuzzing (`jpeg-preview`): libjpeg's arithmetic decoder cannot suspend, so a
    /// progressive arithmetic-coded JPEG (SOF10) fed in pieces died with "Suspension not allowed
    /// here" at the first piece that ended inside a scan, and whole gave previews; a baseline
    /// one (SOF9) would give rows the same way. Both are now refused at their header, in pieces
    /// or whole, as a kind of JPEG previews are not made of.
    @Test func arithmeticCodedJPEGsAreRefusedAtTheirHeader() throws {
        let refused = ImageDecodingError.unsupportedVariant(.jpeg, detail: "no previews of this kind of JPEG")
        for (encoded, marker, arithmetic) in [(Self.texture(64, 48).progressiveJPEG(quality: 80), UInt8(0xC2), UInt8(0xCA)),
                                              (TurboJPEGEncoder.encode(Self.texture(64, 48), quality: 80), 0xC0, 0xC9)] {
            var bytes = [UInt8](try #require(encoded))
            let sof = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == marker })
            bytes[sof + 1] = arithmetic
            for cuts in [[], Array(stride(from: 7, to: bytes.count, by: 7))] {
                let decoder = try #require(TurboJPEGDecoder().makePreviewDecoder(format: .jpeg, options: ImageDecodingOptions(),
                                                                                 kinds: [.progressive, .incremental]))
                #expect(throws: refused) {
                    var start = 0
                    for end in cuts + [bytes.count] where end > start {
                        _ = try decoder.preview(appending: Data(bytes[start..<end]))
                        start = end
                    }
                }
            }
        }
    }

    @Test func tooManyPixelsStopPreviewsBeforeAnyScan() throws {
        let data = try #require(Self.texture(200, 100).progressiveJPEG())
        var options = ImageDecodingOptions()
        options.maximumPixelCount = 10_000
        let decoder = try #require(TurboJPEGDecoder().makePreviewDecoder(format: .jpeg, options: options, kinds: .progressive))
        #expect(throws: ImageDecodingError.self) { _ = try decoder.preview(appending: data) }
    }

    @Test func damagedScansStopPreviewsWithoutReadingPastTheBytes() throws {
        let data = try #require(Self.texture(96, 64).progressiveJPEG())
        let scans = Self.scanStarts(data)
        var bytes = [UInt8](data)
        // Garbage in the entropy data of the later scans, and a cut in the middle.
        var seed: UInt32 = 7
        for i in (scans[2] + 12)..<bytes.count - 2 where i % 3 == 0 {
            seed = seed &* 1_103_515_245 &+ 12345
            bytes[i] = UInt8(truncatingIfNeeded: seed >> 24)
        }
        let damaged = Data(bytes.prefix(bytes.count - 40))
        let decoder = try #require(TurboJPEGDecoder().makePreviewDecoder(format: .jpeg, options: ImageDecodingOptions(), kinds: .progressive))
        var previews = 0
        for start in stride(from: 0, to: damaged.count, by: 100) {
            do {
                if try decoder.preview(appending: damaged.subdata(in: start..<min(damaged.count, start + 100))) != nil { previews += 1 }
            } catch {
                break
            }
        }
        #expect(previews >= 1)
    }

    @Test func greyProgressiveJPEGsGiveGreyPreviews() throws {
        let grey = Image(width: 48, height: 32, layout: .gray, pixels: Data((0..<(48 * 32)).map { UInt8(truncatingIfNeeded: $0 * 7) }))
        let data = try #require(grey.progressiveJPEG())
        let previews = try Self.previews(of: data, cutAt: Self.scanStarts(data).dropFirst().map { $0 + 2 })
        #expect(!previews.isEmpty)
        #expect(previews.allSatisfy { $0.layout == .gray && $0.width == 48 && $0.height == 32 })
    }
}

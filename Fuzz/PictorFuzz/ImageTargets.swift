import Foundation
import PictorCore
import PictorVips

/// Targets over image bytes: the parsers that run before any decoder does.
enum ImageTargets {
    @Sendable static func sniff(_ b: UnsafeRawBufferPointer) {
        let format = ImageFormat.sniff(b)
        // The sniffer reads a window at the start: what follows it changes nothing.
        let window = UnsafeRawBufferPointer(rebasing: b[0..<min(b.count, ImageFormat.svgSniffLength)])
        check(ImageFormat.sniff(window) == format, "sniff read past its window")
        let data = dataNoCopy(b)
        for candidate in [ImageFormat.jpeg, .png, .webp, .gif] {
            _ = FileStructure.isTruncated(data, format: candidate)
        }
        if let precision = FileStructure.jpegPrecision(data) { check((0...255).contains(precision), "precision \(precision)") }
        for candidate in [ImageFormat.gif, .webp] {
            guard let structure = AnimationStructure.scan(data, format: candidate) else {
                check(false, "no structure for \(candidate)")
                return
            }
            check(structure.completeFrames >= 0, "negative frame count")
            if candidate == .gif {
                check(structure.isTruncated == FileStructure.isTruncated(data, format: .gif), "GIF truncation disagrees")
            }
            // A repaired file is whole and holds exactly the complete frames.
            if let repaired = structure.repaired {
                check(structure.completeFrames > 0, "repaired with no complete frame")
                guard let again = AnimationStructure.scan(repaired, format: candidate) else { return }
                check(!again.isTruncated, "\(candidate) repair is still truncated")
                check(again.completeFrames == structure.completeFrames,
                      "\(candidate) repair has \(again.completeFrames) frames, not \(structure.completeFrames)")
                check(again.repaired == nil || candidate == .gif, "a repaired WebP needs repair again")
                if candidate == .gif { check(repaired.last == 0x3B, "repaired GIF without trailer") }
            }
        }
    }

    @Sendable static func jpegMarkers(_ b: UnsafeRawBufferPointer) {
        guard let markers = JPEGMarkers(b) else { return }
        check((1...8).contains(markers.orientation), "orientation \(markers.orientation)")
        if let scan = markers.firstScan {
            check(scan >= 2 && scan + 1 < b.count && b[scan] == 0xFF && b[scan + 1] == 0xDA, "first scan \(scan) is no SOS")
        }
        _ = markers.scanMarkersAreExpected(b)
        _ = FileStructure.isTruncated(dataNoCopy(b), format: .jpeg)
    }

    @Sendable static func exif(_ b: UnsafeRawBufferPointer) {
        let tiff = EXIFOrientation.value(tiff: b)
        if let tiff { check((1...8).contains(tiff), "orientation \(tiff)") }
        // The same block behind the `Exif\0\0` header reads the same.
        let withHeader = Array("Exif\0\0".utf8) + Array(b)
        withHeader.withUnsafeBytes { check(EXIFOrientation.value(exif: $0) == tiff, "Exif header changes the orientation") }
        _ = EXIFOrientation.value(exif: b)
    }

    @Sendable static func gifHeader(_ b: UnsafeRawBufferPointer) {
        let data = dataNoCopy(b)
        guard let frame = GIFHeader.largestFrame(in: data) else { return }
        check(frame.width >= 0 && frame.height >= 0 && frame.width <= 131_070 && frame.height <= 131_070,
              "frame \(frame.width)×\(frame.height)")
        // The canvas is never smaller than the logical screen.
        if b.count >= 10 {
            let screen = (Int(b[6]) | Int(b[7]) << 8) * (Int(b[8]) | Int(b[9]) << 8)
            check(frame.width * frame.height >= screen, "largest frame smaller than the screen")
        }
        _ = AnimationStructure.scan(data, format: .gif)
    }

    @Sendable static func icon(_ b: UnsafeRawBufferPointer) {
        let format = ImageFormat.sniff(b)
        if format == .ico || format == .cur {
            check(b.count >= 22 && b[0] == 0 && b[1] == 0, "icon sniffed from \(b.count) bytes")
        }
        guard let first = b.first else { return }
        let body = Array(b.dropFirst())
        var options = ImageDecodingOptions()
        options.maximumPixelCount = 1 << 20
        guard let image = try? IconDecoder.dib(body, format: first & 1 == 0 ? .ico : .cur, options: options) else { return }
        check(image.width > 0 && image.height > 0, "empty icon image")
        check(image.frames.count == 1 && image.frames[0].pixels.count == image.width * image.height * 4,
              "pixel buffer does not match \(image.width)×\(image.height) RGBA")
    }

    @Sendable static func pngCheck(_ b: UnsafeRawBufferPointer) {
        // A PNG signature first, so that every input reaches libspng's chunk reader.
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let bytes = b.starts(with: signature) ? Array(b) : signature + Array(b)
        var options = ImageDecodingOptions()
        options.maximumPixelCount = 1 << 22
        bytes.withUnsafeBufferPointer { buffer in
            let raw = UnsafeRawBufferPointer(buffer)
            _ = PNGImageData.chunkProblem(raw)
            do {
                try PNGImageData.checkBeforeLibvips(dataNoCopy(raw), options: options)
            } catch let error as ImageDecodingError {
                check([.corrupt, .tooManyPixels].contains(error.kind), "unexpected error kind \(error.kind)")
            } catch {
                check(false, "unexpected error \(error)")
            }
        }
    }
}

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

    /// A GIF's logical screen and the rectangles (left, top, width, height) of the frames among
    /// its first 64 blocks, read plainly from the block structure.
    static func gifLayout(_ b: UnsafeRawBufferPointer) -> (screen: (Int, Int), frames: [(Int, Int, Int, Int)])? {
        guard b.count >= 13, Array(b[0..<3]) == Array("GIF".utf8) else { return nil }
        func u16(_ i: Int) -> Int { i + 1 < b.count ? Int(b[i]) | Int(b[i + 1]) << 8 : 0 }
        func colourTable(_ flags: UInt8) -> Int { flags & 0x80 != 0 ? 3 * (2 << Int(flags & 7)) : 0 }
        func afterSubBlocks(_ start: Int) -> Int {
            var j = start
            while j < b.count, b[j] != 0 { j += Int(b[j]) + 1 }
            return j + 1
        }
        var frames: [(Int, Int, Int, Int)] = []
        var i = 13 + colourTable(b[10])
        for _ in 0..<64 where i < b.count {
            if b[i] == 0x2C {
                frames.append((u16(i + 1), u16(i + 3), u16(i + 5), u16(i + 7)))
                i = afterSubBlocks(i + 11 + colourTable(i + 9 < b.count ? b[i + 9] : 0))
            } else if b[i] == 0x21 {
                i = afterSubBlocks(i + 2)
            } else {
                break
            }
        }
        return ((u16(6), u16(8)), frames)
    }

    @Sendable static func webpGIFCanvas(_ b: UnsafeRawBufferPointer) {
        let data = dataNoCopy(b)
        // GIF: the pixel count checked before libvips covers the canvas libvips makes (the
        // logical screen, grown side by side to hold the first frame's rectangle) and every
        // frame's own rectangle, which the decoder fills before clipping it to the canvas.
        if let layout = gifLayout(b) {
            guard let largest = GIFHeader.largestFrame(in: data) else { check(false, "a GIF without a size"); return }
            var canvas = layout.screen
            if let (x, y, w, h) = layout.frames.first { canvas = (max(canvas.0, x + w), max(canvas.1, y + h)) }
            check(largest.width * largest.height >= canvas.0 * canvas.1,
                  "largest frame \(largest.width)×\(largest.height) holds less than the \(canvas.0)×\(canvas.1) canvas")
            for (_, _, w, h) in layout.frames {
                check(largest.width * largest.height >= w * h, "largest frame \(largest.width)×\(largest.height) holds less than a \(w)×\(h) frame")
            }
        } else {
            check(GIFHeader.largestFrame(in: data) == nil, "a size for what is not a GIF")
        }
        // WebP: every frame libwebpdemux reports lies inside the canvas and its bitstream inside
        // the file, or the container is refused; a file WebPDecoder takes is one frame that is
        // the canvas; the chunk walk that repairs cut animations counts the same frames.
        guard let layout = WebPDecoder.containerLayout(data) else {
            check(!WebPDecoder().accepts(data, format: .webp, options: ImageDecodingOptions()), "WebPDecoder takes a container libwebpdemux refuses")
            return
        }
        check(layout.canvasWidth >= 1 && layout.canvasHeight >= 1 && layout.canvasWidth <= 1 << 24 && layout.canvasHeight <= 1 << 24,
              "canvas \(layout.canvasWidth)×\(layout.canvasHeight)")
        for frame in layout.frames {
            check(frame.x >= 0 && frame.y >= 0 && frame.width >= 1 && frame.height >= 1
                  && frame.x + frame.width <= layout.canvasWidth && frame.y + frame.height <= layout.canvasHeight,
                  "frame \(frame.width)×\(frame.height) at (\(frame.x), \(frame.y)) outside the \(layout.canvasWidth)×\(layout.canvasHeight) canvas")
            check(frame.bitstream.lowerBound >= 0 && frame.bitstream.upperBound <= b.count, "a frame's bitstream outside the file")
        }
        if WebPDecoder().accepts(data, format: .webp, options: ImageDecodingOptions()) {
            check(!layout.isAnimated && layout.frames.count == 1, "WebPDecoder takes \(layout.frames.count) frames")
            if let frame = layout.frames.first {
                check(frame.x == 0 && frame.y == 0 && frame.width == layout.canvasWidth && frame.height == layout.canvasHeight,
                      "WebPDecoder takes a frame that is not the canvas")
            }
        }
        // The repair of a cut animation: libwebpdemux reads only complete frames in it. (Frame
        // counts may differ on a damaged file: libwebpdemux reads frames nested in an ANMF chunk
        // whose size covers them, which the chunk walk skips with that chunk; the repair keeps
        // such a chunk whole, so its frames are complete either way.)
        if let repaired = AnimationStructure.scan(data, format: .webp)?.repaired, let fixed = WebPDecoder.containerLayout(repaired) {
            check(fixed.frames.allSatisfy(\.isComplete), "a repaired WebP has an incomplete frame")
        }
    }
}

import Foundation
import PictorCore
internal import CSpng
internal import CPNGShim

/// The PNG fast path, beside libvips: libspng reads and checks the header chunks; the pixels of
/// plain 8-bit images (grey, grey + alpha, RGB, RGBA; not interlaced, no palette, no tRNS) are
/// inflated by libdeflate in one call and unfiltered by `CPNGShim`. Thumbnails are then
/// resampled with ``PixelResampler`` (alpha premultiplied, as libvips does).
///
/// It skips libvips' per-image thread-pool hand-offs and Debian's zlib 1.2 + libpng. Everything
/// else goes to libvips: an embedded ICC profile (iCCP), an eXIf chunk (libvips applies its
/// orientation), APNG (acTL), palette, tRNS, interlaced and other depths (libspng 0.7.3 gives
/// damaged such files undefined pixels without an error), a thumbnail larger than the image, a
/// file without IEND (truncation has its own rules there), and any libspng, CRC or zlib-format
/// error. Image data that passed its checksums but has unknown filter types, too few rows or a
/// damaged stream is refused (``ImageDecodingError/corrupt(_:message:)``), here and before any
/// file goes to libvips (interlaced ones pass by pass), which would return such a file with
/// rows it never wrote. gAMA, cHRM and sRGB chunks are ignored, as libvips 8.14's PNG loader ignores them.
enum SpngDecoder {
    /// The image (a thumbnail when `target` is set) of the PNG in `raw`, or `nil` when libvips must do it.
    ///
    /// - Throws: ``ImageDecodingError/tooManyPixels(width:height:limit:)`` from the header,
    ///   before any pixel buffer is allocated.
    static func decode(_ raw: UnsafeRawBufferPointer, thumbnail target: ThumbnailOptions?, options: ImageDecodingOptions) throws -> Image? {
        try withContext(reading: raw) { context, base in try decode(context, base, raw, thumbnail: target, options: options) }
    }

    /// Runs `body` with a libspng context reading `raw` (and `raw`'s first byte), under the limits
    /// libvips gives libpng: no chunk over 50 MB (zTXt bombs), a bounded chunk cache. `nil` when
    /// `raw` is empty or libspng cannot be set up.
    private static func withContext<T>(
        reading raw: UnsafeRawBufferPointer, _ body: (OpaquePointer, UnsafeRawPointer) throws -> T?
    ) rethrows -> T? {
        guard let base = raw.baseAddress, let context = spng_ctx_new(0) else { return nil }
        defer { spng_ctx_free(context) }
        guard spng_set_png_buffer(context, base, raw.count) == 0,
              spng_set_chunk_limits(context, 50 << 20, 100 << 20) == 0 else { return nil }
        return try body(context, base)
    }

    private static func decode(
        _ context: OpaquePointer, _ base: UnsafeRawPointer, _ raw: UnsafeRawBufferPointer, thumbnail target: ThumbnailOptions?,
        options: ImageDecodingOptions
    ) throws -> Image? {
        var header = spng_ihdr()
        guard spng_get_ihdr(context, &header) == 0, header.width > 0, header.height > 0 else { return nil }
        let width = Int(header.width), height = Int(header.height)
        try VipsDecoder.checkPixelCount(width: width, height: height, options: options)

        // Reading one ancillary chunk makes libspng read and check every chunk before IDAT.
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var profile = spng_iccp()
        let iccp = spng_get_iccp(context, &profile)
        // Every file left to libvips from here has its image data checked first: a profile, eXIf
        // or animation, and also a chunk libspng refuses that libpng only warns about (a palette
        // longer than the bit depth allows), which libvips then decodes.
        func leftToLibvips() throws -> Image? {
            try checkImageData(context, header, png: bytes, length: raw.count)
            return nil
        }
        // A profile, or an error.
        guard iccp == Int32(SPNG_ECHUNKAVAIL.rawValue) else { return try leftToLibvips() }
        var exif = spng_exif()
        let exifStatus = spng_get_exif(context, &exif)
        guard exifStatus == Int32(SPNG_ECHUNKAVAIL.rawValue) else { return try leftToLibvips() }
        guard cpng_has_chunk_before_idat(bytes, raw.count, "acTL") == 0 else { return try leftToLibvips() }
        var transparency = spng_trns()
        let trnsStatus = spng_get_trns(context, &transparency)
        guard trnsStatus == 0 || trnsStatus == Int32(SPNG_ECHUNKAVAIL.rawValue) else { return try leftToLibvips() }

        // Only plain 8-bit images (grey, grey + alpha, RGB, RGBA; not interlaced, no palette or
        // tRNS) are decoded here: libspng 0.7.3 gives damaged palette and interlaced files
        // undefined pixels without an error, so those go to libvips.
        guard let shape = Shape(header, hasTRNS: trnsStatus == 0), shape.plainChannels != nil else {
            return try leftToLibvips()
        }
        let plan = target.map { TurboJPEGDecoder.Plan(width: width, height: height, orientation: 1, target: $0) }
        // Enlarging is libvips' (its interpolator, not this triangle filter, shapes the edges).
        if let plan, plan.resizedSourceWidth > width || plan.resizedSourceHeight > height { return try leftToLibvips() }
        // libspng reads past a bad IDAT CRC; libpng, so libvips, stops there.
        guard shape.plainChannels != nil || cpng_check_idat(bytes, raw.count) == CPNG_OK.rawValue else { return nil }
        let count = width * height * shape.layout.bands
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        // CPNGShim writes every byte; libspng 0.7.3 leaves some pixels of damaged interlaced
        // low-bit-depth files unwritten without an error, so its buffer starts cleared.
        if shape.plainChannels == nil { pixels.initialize(repeating: 0, count: count) }
        var owner: UnsafeMutablePointer<UInt8>? = pixels
        defer { owner?.deallocate() }
        switch shape.decode(context: context, png: bytes, length: raw.count, width: width, height: height, into: pixels) {
        case .decoded: break
        case .declined: return nil
        case .invalid(let problem): throw ImageDecodingError.corrupt(.png, message: problem)
        }

        guard let plan else {
            // Full size: the buffer becomes the image's, without a copy.
            owner = nil
            let data = Data(bytesNoCopy: pixels, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
            return Image(width: width, height: height, layout: shape.layout, frames: [Image.Frame(pixels: data)],
                         sourceFrameCount: 1, sourceFormat: .png)
        }
        let thumbnail = PixelResampler.thumbnail(pixels, width: width, height: height, bands: shape.layout.bands,
                                                 resizedTo: plan.resizedSourceWidth, plan.resizedSourceHeight,
                                                 orientation: 1, croppedTo: plan.outputWidth, plan.outputHeight)
        return Image(width: plan.outputWidth, height: plan.outputHeight, layout: shape.layout,
                     frames: [Image.Frame(pixels: thumbnail)], sourceFrameCount: 1, sourceFormat: .png)
    }

    /// Why image data that passed its checksums cannot give defined pixels, or `nil` for any
    /// other status: rows with an unknown filter type, fewer rows than the header declares, or a
    /// damaged compressed stream.
    /// libpng stops at such data, but libvips 8.14 then returns the image anyway with rows it
    /// never wrote (different from one call to the next); such files are refused here instead.
    static func invalidData(cpng status: Int32) -> String? {
        switch status {
        case CPNG_EFILTER.rawValue: "a row of the image data has an unknown filter type"
        case CPNG_ESHORT.rawValue: "the image data ends before the last row"
        case CPNG_EZLIB.rawValue: "the compressed image data is damaged"
        default: nil
        }
    }

    /// What is wrong with a PNG's chunks, in words, or `nil` when its header and the chunks
    /// before and of the image data read cleanly: libspng's reason for a header or chunk it
    /// refuses (a bad checksum, a width of 0, an unknown colour type, …), else a damaged image
    /// data (`IDAT`) chunk. The words for a PNG libvips refused without a message (it gives none
    /// for a bad header, or for a bad CRC in an interlaced file).
    static func chunkProblem(_ raw: UnsafeRawBufferPointer) -> String? {
        withContext(reading: raw) { context, base in chunkProblem(context, base, length: raw.count) }
    }

    private static func chunkProblem(_ context: OpaquePointer, _ base: UnsafeRawPointer, length: Int) -> String? {
        var header = spng_ihdr()
        var status = spng_get_ihdr(context, &header)
        if status == 0 {
            // Reading one ancillary chunk makes libspng read and check every chunk before IDAT.
            var palette = spng_plte()
            status = spng_get_plte(context, &palette)
            if status == Int32(SPNG_ECHUNKAVAIL.rawValue) { status = 0 }
        }
        if status != 0, let text = spng_strerror(status) { return String(cString: text) }
        switch cpng_check_idat(base.assumingMemoryBound(to: UInt8.self), length) {
        case CPNG_ECRC.rawValue: return "an image data (IDAT) chunk's CRC does not match its bytes"
        case CPNG_ESTRUCTURE.rawValue: return "the image data (IDAT) chunks are missing, not consecutive, or run past the end"
        default: return nil
        }
    }

    /// ``invalidData(cpng:)`` for libspng's status codes.
    static func invalidData(spng status: Int32) -> String? {
        switch status {
        case Int32(SPNG_EFILTER.rawValue): invalidData(cpng: CPNG_EFILTER.rawValue)
        case Int32(SPNG_EIDAT_TOO_SHORT.rawValue): invalidData(cpng: CPNG_ESHORT.rawValue)
        case Int32(SPNG_EZLIB.rawValue), Int32(SPNG_EIDAT_STREAM.rawValue): invalidData(cpng: CPNG_EZLIB.rawValue)
        default: nil
        }
    }

    /// Checks the image data of a file left to libvips (a profile, EXIF, a palette, interlacing,
    /// other depths, an enlarged thumbnail), so that libvips never returns undefined pixels for
    /// it: the data is inflated and its filter types read, pass by pass for an interlaced file;
    /// no pixel is decoded.
    ///
    /// - Throws: ``/PictorCore/ImageDecodingError/corrupt(_:message:)`` for ``invalidData(cpng:)``.
    private static func checkImageData(_ context: OpaquePointer, _ header: spng_ihdr, png: UnsafePointer<UInt8>, length: Int) throws {
        let channels: UInt32
        switch Int(header.color_type) {
        case Int(SPNG_COLOR_TYPE_GRAYSCALE.rawValue), Int(SPNG_COLOR_TYPE_INDEXED.rawValue): channels = 1
        case Int(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue): channels = 2
        case Int(SPNG_COLOR_TYPE_TRUECOLOR.rawValue): channels = 3
        default: channels = 4
        }
        let status = cpng_check_image_data(png, length, channels * UInt32(header.bit_depth), header.width, header.height,
                                           header.interlace_method == 0 ? 0 : 1)
        if let problem = invalidData(cpng: status) { throw ImageDecodingError.corrupt(.png, message: problem) }
    }

    /// How one PNG's samples become the image's: the layout libvips gives it, and the decoder.
    private struct Shape {
        var layout: Image.PixelLayout
        /// Channels of a plain 8-bit, non-interlaced image (no palette, no tRNS), decoded by
        /// `cpng_decode_8bit`; `nil` for the variants libspng decodes.
        var plainChannels: Int?
        /// libspng's output format, and whether it expands tRNS to alpha.
        var spngFormat: spng_format = SPNG_FMT_RGBA8
        var usesTRNS = false

        init?(_ header: spng_ihdr, hasTRNS: Bool) {
            let depth = Int(header.bit_depth)
            let interlaced = header.interlace_method != 0
            switch Int(header.color_type) {
            case Int(SPNG_COLOR_TYPE_GRAYSCALE.rawValue):
                // libvips brings 16-bit grey to 8 bits through its colour pipeline, not by
                // keeping the high byte: those files are left to it.
                guard depth <= 8 else { return nil }
                layout = hasTRNS ? .grayAlpha : .gray
                spngFormat = hasTRNS ? SPNG_FMT_GA8 : SPNG_FMT_G8
            case Int(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue):
                guard depth == 8 else { return nil }
                layout = .grayAlpha   // interlaced: RGBA8, then narrowed
            case Int(SPNG_COLOR_TYPE_TRUECOLOR.rawValue), Int(SPNG_COLOR_TYPE_INDEXED.rawValue):
                layout = hasTRNS ? .rgba : .rgb
                if !hasTRNS { spngFormat = SPNG_FMT_RGB8 }
            case Int(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue):
                layout = .rgba
            default:
                return nil
            }
            usesTRNS = hasTRNS
            if depth == 8, !interlaced, !hasTRNS, header.color_type != UInt8(SPNG_COLOR_TYPE_INDEXED.rawValue) {
                plainChannels = layout.bands
            }
        }

        /// Whether libspng's format gives more bands than the layout (grey + alpha read as RGBA8).
        private var narrows: Bool { layout.bands <= 2 && spngFormat == SPNG_FMT_RGBA8 }

        /// What a decode gave: the pixels, a file left to libvips, or image data whose pixels
        /// cannot be known (see ``SpngDecoder/invalidData(_:)``).
        enum Outcome: Equatable { case decoded, declined, invalid(String) }

        /// Decodes into `out` (`width × height × layout.bands` bytes).
        func decode(context: OpaquePointer, png: UnsafePointer<UInt8>, length: Int, width: Int, height: Int,
                    into out: UnsafeMutablePointer<UInt8>) -> Outcome {
            if let plainChannels {
                let status = cpng_decode_8bit(png, length, UInt32(width), UInt32(height), Int32(plainChannels), out)
                if status == CPNG_OK.rawValue { return .decoded }
                return SpngDecoder.invalidData(cpng: status).map { .invalid($0) } ?? .declined
            }
            let format = Int32(spngFormat.rawValue), flags = usesTRNS ? Int32(SPNG_DECODE_TRNS.rawValue) : 0
            var size = 0
            guard spng_decoded_image_size(context, format, &size) == 0 else { return .declined }
            func outcome(_ status: Int32) -> Outcome {
                status == 0 ? .decoded : SpngDecoder.invalidData(spng: status).map { .invalid($0) } ?? .declined
            }
            guard narrows else {
                guard size == width * height * layout.bands else { return .declined }
                return outcome(spng_decode_image(context, out, size, format, flags))
            }
            // Interlaced grey + alpha: RGBA8 (libspng's GA8 is for colour type 0 only), then the
            // grey and alpha samples kept.
            guard size == width * height * 4 else { return .declined }
            let rgba = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
            defer { rgba.deallocate() }
            let status = outcome(spng_decode_image(context, rgba, size, format, flags))
            guard status == .decoded else { return status }
            let bands = layout.bands
            for i in 0..<(width * height) {
                out[i * bands] = rgba[i * 4]
                if bands == 2 { out[i * bands + 1] = rgba[i * 4 + 3] }
            }
            return .decoded
        }
    }
}

import Foundation
import PictorCore
internal import CSpng
internal import CPNGShim

/// The PNG fast path, beside libvips: libspng reads and checks the header chunks; the pixels of
/// plain 8-bit images (grey, grey + alpha, RGB, RGBA, not interlaced, no tRNS) are inflated by
/// libdeflate in one call and unfiltered by `CPNGShim`, and the other variants (palette, tRNS,
/// 1/2/4-bit grey, 16-bit RGB and RGBA, interlaced) are decoded by libspng (16-bit colour keeps
/// its high byte, as libvips' conversion does). Thumbnails are then resampled with
/// ``PixelResampler`` (alpha premultiplied, as libvips does).
///
/// It skips libvips' per-image thread-pool hand-offs and Debian's zlib 1.2 + libpng. It takes
/// only what libvips 8.14 would decode to the same pixels and returns `nil` for the rest, which
/// then goes through libvips: an embedded ICC profile (iCCP, converted to sRGB there), an eXIf
/// chunk (libvips applies its orientation), APNG (acTL), 16-bit grey (libvips' grey conversion
/// rounds differently), a thumbnail larger than the image on either side, a file without IEND
/// (truncation has its own rules there), and any error from libspng, a CRC or the zlib stream. gAMA, cHRM and
/// sRGB chunks are ignored, as libvips 8.14's PNG loader ignores them.
enum SpngDecoder {
    /// The image (a thumbnail when `target` is set) of the PNG in `raw`, or `nil` when libvips must do it.
    ///
    /// - Throws: ``ImageDecodingError/tooManyPixels(width:height:limit:)`` from the header,
    ///   before any pixel buffer is allocated.
    static func decode(_ raw: UnsafeRawBufferPointer, thumbnail target: ThumbnailOptions?, options: ImageDecodingOptions) throws -> Image? {
        guard let base = raw.baseAddress, let context = spng_ctx_new(0) else { return nil }
        defer { spng_ctx_free(context) }
        // The limits libvips gives libpng: no chunk over 50 MB (zTXt bombs), a bounded cache.
        guard spng_set_png_buffer(context, base, raw.count) == 0,
              spng_set_chunk_limits(context, 50 << 20, 100 << 20) == 0 else { return nil }
        var header = spng_ihdr()
        guard spng_get_ihdr(context, &header) == 0, header.width > 0, header.height > 0 else { return nil }
        let width = Int(header.width), height = Int(header.height)
        try VipsDecoder.checkPixelCount(width: width, height: height, options: options)

        // Reading one ancillary chunk makes libspng read and check every chunk before IDAT.
        var profile = spng_iccp()
        let iccp = spng_get_iccp(context, &profile)
        guard iccp == Int32(SPNG_ECHUNKAVAIL.rawValue) else { return nil }   // a profile, or an error
        var exif = spng_exif()
        guard spng_get_exif(context, &exif) == Int32(SPNG_ECHUNKAVAIL.rawValue) else { return nil }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        guard cpng_has_chunk_before_idat(bytes, raw.count, "acTL") == 0 else { return nil }
        var transparency = spng_trns()
        let trnsStatus = spng_get_trns(context, &transparency)
        guard trnsStatus == 0 || trnsStatus == Int32(SPNG_ECHUNKAVAIL.rawValue) else { return nil }

        guard let shape = Shape(header, hasTRNS: trnsStatus == 0) else { return nil }
        let plan = target.map { TurboJPEGDecoder.Plan(width: width, height: height, orientation: 1, target: $0) }
        // Enlarging is libvips' (its interpolator, not this triangle filter, shapes the edges).
        if let plan, plan.resizedSourceWidth > width || plan.resizedSourceHeight > height { return nil }
        // libspng reads past a bad IDAT CRC; libpng, so libvips, stops there.
        guard shape.plainChannels != nil || cpng_check_idat(bytes, raw.count) == CPNG_OK.rawValue else { return nil }
        let count = width * height * shape.layout.bands
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        var owner: UnsafeMutablePointer<UInt8>? = pixels
        defer { owner?.deallocate() }
        guard shape.decode(context: context, png: bytes, length: raw.count, width: width, height: height, into: pixels) else {
            return nil
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

        /// Decodes into `out` (`width × height × layout.bands` bytes); `false` on any error.
        func decode(context: OpaquePointer, png: UnsafePointer<UInt8>, length: Int, width: Int, height: Int,
                    into out: UnsafeMutablePointer<UInt8>) -> Bool {
            if let plainChannels {
                return cpng_decode_8bit(png, length, UInt32(width), UInt32(height), Int32(plainChannels), out) == CPNG_OK.rawValue
            }
            let format = Int32(spngFormat.rawValue), flags = usesTRNS ? Int32(SPNG_DECODE_TRNS.rawValue) : 0
            var size = 0
            guard spng_decoded_image_size(context, format, &size) == 0 else { return false }
            guard narrows else {
                guard size == width * height * layout.bands else { return false }
                return spng_decode_image(context, out, size, format, flags) == 0
            }
            // Interlaced grey + alpha: RGBA8 (libspng's GA8 is for colour type 0 only), then the
            // grey and alpha samples kept.
            guard size == width * height * 4 else { return false }
            let rgba = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
            defer { rgba.deallocate() }
            guard spng_decode_image(context, rgba, size, format, flags) == 0 else { return false }
            let bands = layout.bands
            for i in 0..<(width * height) {
                out[i * bands] = rgba[i * 4]
                if bands == 2 { out[i * bands + 1] = rgba[i * 4 + 3] }
            }
            return true
        }
    }
}

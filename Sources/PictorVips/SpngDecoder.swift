import Foundation
import PictorCore
internal import CSpng
internal import CPNGShim

/// Decodes plain PNGs beside ``VipsDecoder``: libspng reads and checks the header chunks; the
/// pixels are inflated by libdeflate in one call and unfiltered by `CPNGShim`. Thumbnails are
/// then resampled with `PixelResampler` (alpha premultiplied, as libvips does). It skips
/// libvips' per-image thread-pool hand-offs and Debian's zlib 1.2 + libpng.
///
/// It takes (``accepts(_:format:options:)``, from the chunks before the image data alone) an
/// 8-bit grey, grey + alpha, RGB or RGBA image, not interlaced, whose header and chunks libspng
/// reads cleanly, whose image data chunks are there, follow one another and match their CRCs,
/// that ends with IEND, shown at its size or smaller. It refuses an embedded ICC profile (iCCP) and an eXIf
/// chunk (libvips converts the one and applies the other's orientation), APNG (acTL), palette,
/// tRNS, interlaced files and other depths (libspng 0.7.3 gives damaged such files undefined
/// pixels without an error), a thumbnail larger than the image (libvips' interpolator shapes
/// enlarged edges), a file without IEND (truncation has libvips' rules), and image data chunks
/// out of place or with a bad CRC (libvips fails on some and decodes others).
///
/// Fidelity: full-size pixels are the same as libvips'; thumbnails match within a few levels.
/// gAMA, cHRM and sRGB chunks are ignored, as libvips 8.14's PNG loader ignores them. Image
/// data after the last row is ignored, as libpng (so libvips) does, up to four times the image:
/// a longer stream throws.
///
/// Damage found while decoding throws ``/PictorCore/ImageDecodingError/corrupt(_:message:)``:
/// rows with unknown filter types, too few rows, or a damaged compressed stream, for which
/// libvips would return rows it never wrote.
///
/// - Important: thread-safe; a value type with no state.
public struct SpngDecoder: ImageDecoding {
    /// Creates the decoder.
    public init() {}

    /// Whether `data` is a PNG this decoder takes (see the type's discussion); reads the chunks
    /// before the image data and checks the image data chunks' CRCs, inflates nothing.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - format: their sniffed format; only ``/PictorCore/ImageFormat/png`` is accepted.
    ///   - options: the decode's options; invalid ones are refused.
    /// - Returns: `true` when ``decode(_:format:options:)`` decodes `data` itself.
    public func accepts(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) -> Bool {
        guard format == .png, options.isValid else { return false }
        return (try? Self.header(of: data, options: options).get()) != nil
    }

    /// Decodes `data`, which must be a PNG this decoder accepts; see ``decode(_:format:options:)``.
    ///
    /// - Throws: ``/PictorCore/ImageDecodingError/emptyData``, ``/PictorCore/ImageDecodingError/unknownFormat``,
    ///   ``/PictorCore/ImageDecodingError/unsupportedFormat(_:)`` for another format, or as
    ///   ``decode(_:format:options:)``.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        guard !data.isEmpty else { throw ImageDecodingError.emptyData }
        guard let format = ImageFormat.sniff(data) else { throw ImageDecodingError.unknownFormat }
        return try decode(data, format: format, options: options)
    }

    /// Decodes `data`, sniffed as `format`, at full size or as the thumbnail `options` asks for.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - format: their sniffed format (``/PictorCore/ImageFormat/png``).
    ///   - options: the thumbnail and the pixel limit.
    /// - Throws: ``/PictorCore/ImageDecodingError/invalidOptions(detail:)``;
    ///   ``/PictorCore/ImageDecodingError/unsupportedFormat(_:)`` for another format;
    ///   for a file ``accepts(_:format:options:)`` refuses,
    ///   ``/PictorCore/ImageDecodingError/truncated(_:)`` (no IEND) or
    ///   ``/PictorCore/ImageDecodingError/unsupportedVariant(_:detail:)`` naming the reason;
    ///   ``/PictorCore/ImageDecodingError/tooManyPixels(width:height:limit:)`` from the header,
    ///   before any pixel buffer is allocated;
    ///   ``/PictorCore/ImageDecodingError/corrupt(_:message:)`` for damaged image data.
    public func decode(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) throws -> Image {
        guard format == .png else { throw ImageDecodingError.unsupportedFormat(format) }
        try options.validate()
        let header = try Self.header(of: data, options: options).get()
        return try data.withUnsafeBytes { try Self.decode($0, header: header, options: options) }
    }

    /// What the decoder needs from a PNG it takes: its size and samples, and the thumbnail plan.
    struct Header {
        var width: Int, height: Int, layout: Image.PixelLayout, plan: TurboJPEGDecoder.Plan?
    }

    /// The header of `data`, or the error that says why this decoder refuses it: every refusal is
    /// known from the chunks before the image data and the image data chunks' headers and CRCs.
    static func header(of data: Data, options: ImageDecodingOptions) -> Result<Header, ImageDecodingError> {
        func refuse(_ detail: String) -> Result<Header, ImageDecodingError> { .failure(.unsupportedVariant(.png, detail: detail)) }
        guard !FileStructure.isTruncated(data, format: .png) else { return .failure(.truncated(.png)) }
        return data.withUnsafeBytes { raw in
            PNGImageData.withContext(reading: raw) { context, base -> Result<Header, ImageDecodingError> in
                var ihdr = spng_ihdr()
                guard spng_get_ihdr(context, &ihdr) == 0, ihdr.width > 0, ihdr.height > 0 else {
                    return refuse("a header libspng does not read")
                }
                // Reading one ancillary chunk makes libspng read and check every chunk before IDAT.
                var profile = spng_iccp()
                guard spng_get_iccp(context, &profile) == Int32(SPNG_ECHUNKAVAIL.rawValue) else {
                    return refuse("an embedded ICC profile, or a chunk libspng does not read")
                }
                var exif = spng_exif()
                guard spng_get_exif(context, &exif) == Int32(SPNG_ECHUNKAVAIL.rawValue) else { return refuse("an eXIf chunk") }
                let bytes = base.assumingMemoryBound(to: UInt8.self)
                guard cpng_has_chunk_before_idat(bytes, raw.count, "acTL") == 0 else { return refuse("an animation (APNG)") }
                var transparency = spng_trns()
                guard spng_get_trns(context, &transparency) == Int32(SPNG_ECHUNKAVAIL.rawValue) else {
                    return refuse("a tRNS chunk")
                }
                guard ihdr.bit_depth == 8, ihdr.interlace_method == 0, let layout = plainLayout(ihdr.color_type) else {
                    return refuse("a palette, interlacing or samples of other than 8 bits")
                }
                // libvips' answer for a bad CRC depends on where it is and on the thumbnail (it
                // fails, or returns what libpng decoded): such files are left to it. The CRCs
                // cost one pass of libdeflate's CRC-32 over the image data.
                guard cpng_check_idat(bytes, raw.count) == CPNG_OK.rawValue else {
                    return refuse("image data chunks that are missing, not consecutive, run past the end or fail their CRC")
                }
                let width = Int(ihdr.width), height = Int(ihdr.height)
                let plan = options.thumbnail.map { TurboJPEGDecoder.Plan(width: width, height: height, orientation: 1, target: $0) }
                if let plan, plan.resizedSourceWidth > width || plan.resizedSourceHeight > height {
                    return refuse("a thumbnail larger than the image")
                }
                return .success(Header(width: width, height: height, layout: layout, plan: plan))
            } ?? refuse("libspng could not be set up")
        }
    }

    /// The layout of a plain 8-bit colour type (grey, grey + alpha, RGB, RGBA); `nil` for a palette.
    private static func plainLayout(_ colourType: UInt8) -> Image.PixelLayout? {
        switch Int(colourType) {
        case Int(SPNG_COLOR_TYPE_GRAYSCALE.rawValue): .gray
        case Int(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue): .grayAlpha
        case Int(SPNG_COLOR_TYPE_TRUECOLOR.rawValue): .rgb
        case Int(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue): .rgba
        default: nil
        }
    }

    private static func decode(_ raw: UnsafeRawBufferPointer, header: Header, options: ImageDecodingOptions) throws -> Image {
        let width = header.width, height = header.height, layout = header.layout
        try VipsDecoder.checkPixelCount(width: width, height: height, options: options)
        let count = width * height * layout.bands
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        var owner: UnsafeMutablePointer<UInt8>? = pixels
        defer { owner?.deallocate() }
        let status = cpng_decode_8bit(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count, UInt32(width), UInt32(height),
                                      Int32(layout.bands), pixels)
        if let error = failure(status) { throw error }

        guard let plan = header.plan else {
            // Full size: the buffer becomes the image's, without a copy.
            owner = nil
            let data = Data(bytesNoCopy: pixels, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
            return Image(width: width, height: height, layout: layout, frames: [Image.Frame(pixels: data)],
                         sourceFrameCount: 1, sourceFormat: .png)
        }
        let thumbnail = PixelResampler.thumbnail(pixels, width: width, height: height, bands: layout.bands,
                                                 resizedTo: plan.resizedSourceWidth, plan.resizedSourceHeight,
                                                 orientation: 1, croppedTo: plan.outputWidth, plan.outputHeight)
        return Image(width: plan.outputWidth, height: plan.outputHeight, layout: layout,
                     frames: [Image.Frame(pixels: thumbnail)], sourceFrameCount: 1, sourceFormat: .png)
    }

    /// The error for a `cpng_decode_8bit` status, `nil` for success. Every failure left after
    /// ``accepts(_:format:options:)`` is one libvips would also fail on, or would turn into
    /// rows it never wrote.
    static func failure(_ status: Int32) -> ImageDecodingError? {
        switch status {
        case CPNG_OK.rawValue: nil
        case CPNG_ECRC.rawValue: .corrupt(.png, message: PNGImageData.badCRC)
        case CPNG_EMEMORY.rawValue: .corrupt(.png, message: "out of memory")
        case CPNG_EINFLATE.rawValue: .corrupt(.png, message: "the image data inflates to more than four times the image")
        default: .corrupt(.png, message: PNGImageData.invalidData(cpng: status) ?? "the compressed image data cannot be inflated")
        }
    }
}

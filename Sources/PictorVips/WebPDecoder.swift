import Foundation
import PictorCore
internal import CWebP

/// Decodes still WebPs with libwebp directly, beside ``VipsDecoder``: lossy (VP8) or lossless
/// (VP8L), with or without alpha (ALPH), straight into a buffer Pictor owns. Thumbnails use
/// libwebp's scaled decode at the resized size, libvips' shrink-on-load for WebP (its loader's
/// `scale`), so the decode itself gives the thumbnail; `PixelResampler` then only orients and
/// crops. It skips libvips' per-image thread pool and its full-size RGBA frame buffer.
///
/// It takes (``accepts(_:format:options:)``, from the RIFF container and the bitstream header
/// alone) a still image whose container libwebpdemux reads, as long as its RIFF size says, with
/// no ICC profile, one frame covering the canvas, shown at its size or smaller. It refuses
/// animations (libvips reads their frames and timing), an embedded ICC profile (libvips converts
/// it to sRGB), a thumbnail larger than the image (libvips' interpolator shapes enlarged edges),
/// a file shorter than its RIFF size (truncation has libvips' rules), and any container
/// libwebpdemux rejects.
///
/// Fidelity: the frame is decoded with the options libvips 8.14's loader uses (RGBA, fancy
/// upsampling) and at the size it asks for, so full-size pixels and fitted or filled thumbnails
/// are libvips' own. A stretch is decoded at its own two scales (libvips decodes at the smaller
/// shrink and resizes the other axis without premultiplying alpha); it matches within a few
/// levels. Alpha follows the container's alpha flag, as libvips does; EXIF orientation is
/// applied.
///
/// Damage found while decoding throws ``/PictorCore/ImageDecodingError/corrupt(_:message:)``
/// (`failure(_:)`), where libvips' thumbnail would return tiles it failed to decode.
///
/// - Important: thread-safe; a value type with no state.
public struct WebPDecoder: ImageDecoding {
    /// Creates the decoder.
    public init() {}

    /// Whether `data` is a WebP this decoder takes (see the type's discussion); reads the
    /// container and the bitstream header, decodes nothing.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - format: their sniffed format; only ``/PictorCore/ImageFormat/webp`` is accepted.
    ///   - options: the decode's options; invalid ones are refused.
    /// - Returns: `true` when ``decode(_:format:options:)`` decodes `data` itself.
    public func accepts(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) -> Bool {
        guard format == .webp, options.isValid else { return false }
        return data.withUnsafeBytes { raw in (try? Self.withHeader(of: data, raw, options: options) { _ in () }) != nil }
    }

    /// Decodes `data`, which must be a WebP this decoder accepts; see ``decode(_:format:options:)``.
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
    ///   - format: their sniffed format (``/PictorCore/ImageFormat/webp``).
    ///   - options: the thumbnail and the pixel limit.
    /// - Throws: ``/PictorCore/ImageDecodingError/invalidOptions(detail:)``;
    ///   ``/PictorCore/ImageDecodingError/unsupportedFormat(_:)`` for another format;
    ///   for a file ``accepts(_:format:options:)`` refuses,
    ///   ``/PictorCore/ImageDecodingError/truncated(_:)`` (shorter than its RIFF size) or
    ///   ``/PictorCore/ImageDecodingError/unsupportedVariant(_:detail:)`` naming the reason;
    ///   ``/PictorCore/ImageDecodingError/tooManyPixels(width:height:limit:)`` from the header,
    ///   before any pixel buffer is allocated;
    ///   ``/PictorCore/ImageDecodingError/corrupt(_:message:)`` for a bitstream libwebp cannot decode.
    public func decode(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) throws -> Image {
        guard format == .webp else { throw ImageDecodingError.unsupportedFormat(format) }
        try options.validate()
        return try data.withUnsafeBytes { raw in
            try Self.withHeader(of: data, raw, options: options) { try Self.decode($0, options: options) }
        }
    }

    /// What the decoder needs from a WebP it takes. The pointers are valid inside ``withHeader(of:_:options:_:)``.
    struct Header {
        var width: Int, height: Int, orientation: Int, layout: Image.PixelLayout
        var bitstream: UnsafePointer<UInt8>, bitstreamLength: Int
        var plan: TurboJPEGDecoder.Plan
    }

    /// Runs `body` with the header of `data` (whose bytes are `raw`), or throws the error that
    /// says why this decoder refuses it: every refusal is known from the container and the
    /// bitstream header.
    static func withHeader<T>(
        of data: Data, _ raw: UnsafeRawBufferPointer, options: ImageDecodingOptions, _ body: (Header) throws -> T
    ) throws -> T {
        func refuse(_ detail: String) -> ImageDecodingError { .unsupportedVariant(.webp, detail: detail) }
        guard !FileStructure.isTruncated(data, format: .webp) else { throw ImageDecodingError.truncated(.webp) }
        guard let base = raw.baseAddress else { throw refuse("no data") }
        var container = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: raw.count)
        guard let demux = WebPDemux(&container) else { throw refuse("a container libwebpdemux does not read") }
        defer { WebPDemuxDelete(demux) }
        let flags = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS)
        guard flags & ANIMATION_FLAG.rawValue == 0 else { throw refuse("an animation") }
        guard flags & ICCP_FLAG.rawValue == 0 else { throw refuse("an embedded ICC profile (colour management is libvips')") }
        let width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH)), height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
        guard width > 0, height > 0 else { throw refuse("an empty canvas") }
        var frame = WebPIterator()
        guard WebPDemuxGetFrame(demux, 1, &frame) != 0 else { throw refuse("no frame") }
        defer { WebPDemuxReleaseIterator(&frame) }
        // The frame's ALPH and VP8/VP8L chunks: one still image covering the canvas.
        var features = WebPBitstreamFeatures()
        guard let bitstream = frame.fragment.bytes, WebPGetFeatures(bitstream, frame.fragment.size, &features) == VP8_STATUS_OK,
              features.has_animation == 0, Int(features.width) == width, Int(features.height) == height else {
            throw refuse("a frame that does not cover the canvas")
        }
        let orientation = flags & EXIF_FLAG.rawValue != 0 ? exifOrientation(demux) : 1
        let plan = TurboJPEGDecoder.Plan(width: width, height: height, orientation: orientation, target: options.thumbnail)
        guard plan.resizedSourceWidth <= width, plan.resizedSourceHeight <= height else { throw refuse("a thumbnail larger than the image") }
        let layout: Image.PixelLayout = flags & ALPHA_FLAG.rawValue != 0 ? .rgba : .rgb
        return try body(Header(width: width, height: height, orientation: orientation, layout: layout, bitstream: bitstream,
                               bitstreamLength: frame.fragment.size, plan: plan))
    }

    private static func decode(_ header: Header, options: ImageDecodingOptions) throws -> Image {
        try VipsDecoder.checkPixelCount(width: header.width, height: header.height, options: options)
        let plan = header.plan, layout = header.layout, orientation = header.orientation
        let decodedWidth = plan.resizedSourceWidth, decodedHeight = plan.resizedSourceHeight
        let count = decodedWidth * decodedHeight * layout.bands
        guard let memory = malloc(max(1, count)) else { throw ImageDecodingError.corrupt(.webp, message: "out of memory") }
        var owner: UnsafeMutableRawPointer? = memory
        defer { free(owner) }
        let pixels = memory.bindMemory(to: UInt8.self, capacity: count)
        let status = decodeFrame(header.bitstream, header.bitstreamLength, into: pixels, count: count, width: decodedWidth,
                                 height: decodedHeight, layout: layout,
                                 scaled: decodedWidth != header.width || decodedHeight != header.height)
        if let error = failure(status) { throw error }

        if plan.outputWidth == decodedWidth, plan.outputHeight == decodedHeight, orientation == 1 {
            // Nothing to orient or crop: libwebp's buffer becomes the image's, without a copy.
            owner = nil
            let data = Data(bytesNoCopy: memory, count: count, deallocator: .free)
            return Image(width: decodedWidth, height: decodedHeight, layout: layout, frames: [Image.Frame(pixels: data)],
                         sourceFrameCount: 1, sourceFormat: .webp)
        }
        let result = PixelResampler.thumbnail(pixels, width: decodedWidth, height: decodedHeight, bands: layout.bands,
                                              resizedTo: decodedWidth, decodedHeight,
                                              orientation: orientation, croppedTo: plan.outputWidth, plan.outputHeight)
        return Image(width: plan.outputWidth, height: plan.outputHeight, layout: layout,
                     frames: [Image.Frame(pixels: result)], sourceFrameCount: 1, sourceFormat: .webp)
    }

    /// Decodes one frame's bitstream into `pixels` (`width × height`, packed RGB or RGBA), scaled
    /// by libwebp's rescaler when `scaled`.
    private static func decodeFrame(_ bitstream: UnsafePointer<UInt8>, _ length: Int, into pixels: UnsafeMutablePointer<UInt8>,
                                    count: Int, width: Int, height: Int, layout: Image.PixelLayout, scaled: Bool) -> VP8StatusCode {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { return VP8_STATUS_INVALID_PARAM }
        if scaled {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(width)
            config.options.scaled_height = Int32(height)
        }
        // libvips decodes RGBA and drops a solid alpha; RGB straight away gives the same samples
        // (the same YUV conversion) and no copy.
        config.output.colorspace = layout == .rgba ? MODE_RGBA : MODE_RGB
        config.output.is_external_memory = 1
        config.output.width = Int32(width)
        config.output.height = Int32(height)
        config.output.u.RGBA.rgba = pixels
        config.output.u.RGBA.stride = Int32(width * layout.bands)
        config.output.u.RGBA.size = count
        defer { WebPFreeDecBuffer(&config.output) }
        return WebPDecode(bitstream, length, &config)
    }

    /// The decode error for a libwebp status, `nil` for `VP8_STATUS_OK`.
    ///
    /// Every failure of the data is ``/PictorCore/ImageDecodingError/corrupt(_:message:)``, as
    /// libvips reports it: files shorter than their RIFF size are refused before decoding, so
    /// data that ends early lies about its own chunk sizes. Any other status (memory, a
    /// parameter) is corrupt too, with libwebp's status number.
    static func failure(_ status: VP8StatusCode) -> ImageDecodingError? {
        switch status {
        case VP8_STATUS_OK: nil
        case VP8_STATUS_BITSTREAM_ERROR: .corrupt(.webp, message: "the compressed image data is damaged")
        case VP8_STATUS_NOT_ENOUGH_DATA: .corrupt(.webp, message: "the image data ends before the image does")
        case VP8_STATUS_UNSUPPORTED_FEATURE: .corrupt(.webp, message: "the bitstream uses a feature libwebp does not decode")
        case VP8_STATUS_OUT_OF_MEMORY: .corrupt(.webp, message: "out of memory")
        default: .corrupt(.webp, message: "libwebp failed with status \(status.rawValue)")
        }
    }

    /// The orientation in the EXIF chunk (1 when there is none or it is malformed).
    private static func exifOrientation(_ demux: OpaquePointer) -> Int {
        var chunk = WebPChunkIterator()
        defer { WebPDemuxReleaseChunkIterator(&chunk) }
        guard WebPDemuxGetChunk(demux, "EXIF", 1, &chunk) != 0, let bytes = chunk.chunk.bytes else { return 1 }
        return EXIFOrientation.value(exif: UnsafeRawBufferPointer(start: bytes, count: chunk.chunk.size)) ?? 1
    }
}

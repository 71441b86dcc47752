import Foundation
import PictorCore
internal import CVips
internal import CVipsShim

/// Decodes every format libvips 8.14 reads (JPEG, PNG, GIF, WebP, AVIF/HEIF, TIFF, JPEG XL, SVG,
/// …) into an 8-bit sRGB ``/PictorCore/Image`` in display orientation.
///
/// What it guarantees:
/// - the pixel count declared in the header is checked against
///   ``/PictorCore/ImageDecodingOptions/maximumPixelCount`` before any pixel is decoded
///   (``/PictorCore/ImageDecodingError/tooManyPixels(width:height:limit:)``); with
///   ``/PictorCore/ImageDecodingOptions/allFrames`` the limit covers all frames together (the error then
///   names the width and the height of the strip of frames, height × frames);
/// - ``/PictorCore/ImageDecodingOptions/thumbnail`` decodes at the target size (libvips `thumbnail_buffer`:
///   JPEG DCT scaling, WebP scaled decode, …), never full size then shrink; an SVG is rendered at
///   the target size, larger or smaller than its own, with the aspect ratio of its `viewBox`
///   ("never upscale" is for raster images); PDF and other vector formats are not read;
/// - EXIF orientation is applied exactly once, then dropped;
/// - CMYK/YCCK becomes sRGB through the embedded ICC profile (libvips' CMYK profile when none);
///   other embedded ICC profiles are converted to sRGB; a profile that does not fit the pixels
///   (another colour space, truncated, corrupt) is ignored, as if the file had none, and the
///   image keeps its own bands; 16-bit samples are scaled to 8 bits;
/// - a truncated file throws ``/PictorCore/ImageDecodingError/truncated(_:)`` unless
///   ``/PictorCore/ImageDecodingOptions/allowsTruncatedData``; bytes after the end marker are ignored. A
///   GIF or WebP is checked for truncation from its blocks before decoding (even when only its
///   first frame is asked for). With ``/PictorCore/ImageDecodingOptions/allowsTruncatedData`` the result
///   says so (``/PictorCore/Image/isTruncated``): a truncated animation gives only its complete frames (the
///   file is cut after the last of them and closed again, so no partly decoded frame is ever
///   returned); a still image, or an animation without one complete frame, gives what libvips
///   decodes, missing parts filled;
/// - ICO and CUR: the largest entry, with its transparency, stored as PNG or as an uncompressed
///   1-, 4-, 8-, 24- or 32-bit BMP (other BMP entries are
///   ``/PictorCore/ImageDecodingError/unsupportedVariant(_:detail:)``);
/// - animations: first frame by default; every frame with its duration and the loop count when
///   ``/PictorCore/ImageDecodingOptions/allFrames`` is set.
///
/// This decoder is libvips alone (and Pictor's own reader for ICO and CUR). The libjpeg-turbo,
/// libspng and libwebp decoders (``TurboJPEGDecoder``, ``SpngDecoder``, ``WebPDecoder``) are
/// decoders of their own, registered before it in `ImageDecoderRegistry.vips`; it
/// decodes every file they refuse. Only formats ``/PictorCore/ImageFormat/sniff(_:)-(Data)``
/// recognises reach libvips, so its other loaders (PDF, FITS, CSV, …) are never used.
///
/// Before libvips reads a file, the checks that libvips gets wrong are made from the data:
/// 12-bit JPEG, a truncated JPEG (libvips 8.14 returns a rotated one mostly black), a GIF
/// frame over the pixel limit, a truncated animation, and a PNG's image data (libvips returns
/// rows it never wrote when their filter types are unknown, rows are missing or the stream is
/// damaged: ``/PictorCore/ImageDecodingError/corrupt(_:message:)``).
///
/// ```swift
/// let image = try VipsDecoder().decode(data, options: .init(thumbnail: .init(width: 256)))
/// ```
///
/// - Important: thread-safe; a value type with no state.
public struct VipsDecoder: ImageDecoding {
    /// No effect: this decoder is libvips alone. It said whether JPEGs took the libjpeg-turbo
    /// path, which is now ``TurboJPEGDecoder``, registered by `ImageDecoderRegistry.vips`.
    @available(*, deprecated, message: "VipsDecoder is libvips only: register TurboJPEGDecoder before it (ImageDecoderRegistry.vips does)")
    public var usesTurboJPEG: Bool { get { false } set {} }

    /// No effect: this decoder is libvips alone. It said whether PNGs took the libspng path,
    /// which is now ``SpngDecoder``, registered by `ImageDecoderRegistry.vips`.
    @available(*, deprecated, message: "VipsDecoder is libvips only: register SpngDecoder before it (ImageDecoderRegistry.vips does)")
    public var usesSpng: Bool { get { false } set {} }

    /// No effect: this decoder is libvips alone. It said whether WebPs took the libwebp path,
    /// which is now ``WebPDecoder``, registered by `ImageDecoderRegistry.vips`.
    @available(*, deprecated, message: "VipsDecoder is libvips only: register WebPDecoder before it (ImageDecoderRegistry.vips does)")
    public var usesLibwebp: Bool { get { false } set {} }

    /// Creates the decoder (libvips is loaded and started on its first decode).
    public init() {}

    /// Creates the libvips decoder; the arguments are ignored. The fast paths they chose are
    /// decoders of their own: `ImageDecoderRegistry.vips` registers them before
    /// this one, `ImageDecoderRegistry.vips(fastPaths:)` with `false` leaves them out.
    ///
    /// - Parameters:
    ///   - usesTurboJPEG: ignored.
    ///   - usesSpng: ignored.
    ///   - usesLibwebp: ignored.
    @available(*, deprecated, message: "VipsDecoder is libvips only: use ImageDecoderRegistry.vips for the fast decoders, or VipsDecoder()")
    public init(usesTurboJPEG: Bool = true, usesSpng: Bool = true, usesLibwebp: Bool = true) {}

    /// The libvips loader of each format Pictor may hand to libvips.
    private static let loaders: [ImageFormat: String] = [
        .jpeg: "jpegload_buffer", .png: "pngload_buffer", .gif: "gifload_buffer", .webp: "webpload_buffer",
        .avif: "heifload_buffer", .heic: "heifload_buffer", .tiff: "tiffload_buffer", .bmp: "magickload_buffer",
        .jxl: "jxlload_buffer", .svg: "svgload_buffer",
    ]

    /// The formats this decoder may read, known without loading libvips: every format with a
    /// libvips loader, plus ICO and CUR. Which of them this machine's libvips build reads is
    /// ``supportedFormats``; decoding one it lacks throws
    /// ``/PictorCore/ImageDecodingError/unsupportedFormat(_:)``.
    public static let candidateFormats: Set<ImageFormat> = Set(loaders.keys).union([.ico, .cur])

    /// The formats this libvips build decodes, found by asking libvips for each loader
    /// (`jpegload_buffer`, `heifload_buffer`, `jxlload_buffer`, `svgload_buffer`, …). On Debian 12:
    /// every ``/PictorCore/ImageFormat`` except BMP (libvips reads BMP only through ImageMagick). ICO and CUR
    /// are read by Pictor itself (the largest entry; see ``/PictorCore/ImageFormat/ico``), with libvips for
    /// their PNG entries. Empty when libvips cannot be loaded. Reading it loads libvips.
    public static let supportedFormats: Set<ImageFormat> = {
        guard (try? VipsRuntime.start()) != nil else { return [] }
        var formats = Set(loaders.filter { cvs_has_operation($0.value) != 0 }.keys)
        // Icons are parsed by Pictor (IconDecoder); their PNG entries need libvips' PNG loader.
        if formats.contains(.png) { formats.formUnion([.ico, .cur]) }
        return formats
    }()

    /// Decodes `data`; see the type's discussion for the guarantees.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes; the format is sniffed from them.
    ///   - options: the thumbnail size, whether to decode every frame, the pixel limit and whether
    ///     truncated data is accepted.
    /// - Throws: ``/PictorCore/ImageDecodingError/emptyData``, ``/PictorCore/ImageDecodingError/unknownFormat``,
    ///   ``/PictorCore/ImageDecodingError/tooManyPixels(width:height:limit:)``,
    ///   ``/PictorCore/ImageDecodingError/truncated(_:)``, ``/PictorCore/ImageDecodingError/unsupportedFormat(_:)``,
    ///   ``/PictorCore/ImageDecodingError/unsupportedVariant(_:detail:)`` (12-bit JPEG),
    ///   ``/PictorCore/ImageDecodingError/invalidOptions(detail:)`` (a thumbnail size ≤ 0) or ``/PictorCore/ImageDecodingError/corrupt(_:message:)`` with libvips' text.
    ///   Truncation is recognised from the data's structure (a JPEG without EOI after its last
    ///   SOS, a PNG without IEND, …), not from libvips' text: libvips 8.14 keeps one process-wide
    ///   error buffer, so under concurrent failures the `message` may include another thread's
    ///   text.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        guard !data.isEmpty else { throw ImageDecodingError.emptyData }
        // Only formats Pictor recognises reach libvips: its other loaders (PDF, FITS, CSV, …) stay shut.
        guard let format = ImageFormat.sniff(data) else { throw ImageDecodingError.unknownFormat }
        return try decode(data, format: format, options: options)
    }

    /// ``decode(_:options:)`` for bytes already sniffed as `format` (by
    /// ``/PictorCore/ImageDecoderRegistry``): the same checks and decoders, without sniffing again.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - format: the format ``/PictorCore/ImageFormat/sniff(_:)-(Data)`` found in them.
    ///   - options: as for ``decode(_:options:)``.
    /// - Throws: as ``decode(_:options:)``.
    public func decode(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) throws -> Image {
        guard !data.isEmpty else { throw ImageDecodingError.emptyData }
        guard Self.candidateFormats.contains(format) else { throw ImageDecodingError.unsupportedFormat(format) }
        if format == .jpeg, let precision = FileStructure.jpegPrecision(data), precision != 8 {
            throw ImageDecodingError.unsupportedVariant(.jpeg, detail: "\(precision)-bit samples (only 8-bit JPEG is decoded)")
        }
        try options.validate()
        if format == .ico || format == .cur {
            return try IconDecoder.decode(data, format: format, options: options, vips: self)
        }
        if format == .gif, let size = GIFHeader.largestFrame(in: data) {
            try Self.checkPixelCount(width: size.width, height: size.height, options: options)
        }
        if let structure = AnimationStructure.scan(data, format: format) {
            if structure.isTruncated {
                // Found before decoding: libvips would decode a cut frame partly and say nothing.
                guard options.truncatedData.accepts(cut: data, format: format) else { throw ImageDecodingError.truncated(format) }
                if let repaired = structure.repaired {
                    var image = try decode(repaired, options: options)
                    image.isTruncated = true
                    return image
                }
            } else if let repaired = structure.repaired {
                // A GIF lacking only its trailer: whole, decoded with the trailer restored.
                return try decode(repaired, options: options)
            }
        }
        var image = try decodeWhole(data, format: format, options: options)
        if options.allowsTruncatedData, FileStructure.isTruncated(data, format: format) { image.isTruncated = true }
        return image
    }

    /// Decodes `data` of a sniffed, supported `format` as it is.
    private func decodeWhole(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) throws -> Image {
        if format == .png { try PNGImageData.checkBeforeLibvips(data, options: options) }
        // libvips 8.14 loads a JPEG it must rotate (EXIF orientation 5 to 8, at full size) with
        // random access, and then does not fail on a cut scan: it returned such files mostly
        // black. The file's structure decides for every JPEG, whichever way libvips reads it.
        if format == .jpeg, !options.allowsTruncatedData, FileStructure.isTruncated(data, format: .jpeg) {
            throw ImageDecodingError.truncated(.jpeg)
        }
        try Self.prepareLibvips(for: format)
        do {
            return try data.withUnsafeBytes { raw in
                try decode(raw, format: format, options: options)
            }
        } catch let error as ImageDecodingError {
            throw error
        } catch let error as VipsError {
            if !options.allowsTruncatedData, FileStructure.isTruncated(data, format: format) {
                throw ImageDecodingError.truncated(format)
            }
            if error.hasNoText, format == .png, let problem = data.withUnsafeBytes(PNGImageData.chunkProblem) {
                throw ImageDecodingError.corrupt(format, message: problem)
            }
            throw ImageDecodingError.corrupt(format, message: error.message)
        }
    }

    private func decode(_ raw: UnsafeRawBufferPointer, format: ImageFormat, options: ImageDecodingOptions) throws -> Image {
        let failOnTruncated: Int32 = options.allowsTruncatedData ? 0 : 1
        let header = try VipsImageHandle.make("load_buffer") {
            cvs_load_buffer(raw.baseAddress, raw.count, failOnTruncated, 1, 0, $0)
        }
        try Self.checkPixelCount(width: header.width, height: header.height, options: options)
        let declaredFrames = max(1, header.int("n-pages", default: 1))
        let pages: Int32 = options.allFrames && declaredFrames > 1 ? -1 : 1
        if pages == -1 {
            // Every frame is held at once: the limit covers the whole strip of frames.
            let (strip, overflow) = header.height.multipliedReportingOverflow(by: declaredFrames)
            try Self.checkPixelCount(width: header.width, height: overflow ? Int.max : strip, options: options)
        }
        let makeImage: (Bool) throws -> VipsImageHandle
        if let thumbnail = options.thumbnail {
            makeImage = { exportSRGB in
                try Self.thumbnail(raw, thumbnail, isVector: format == .svg, failOnTruncated: failOnTruncated, pages: pages,
                                   exportSRGB: exportSRGB)
            }
        } else {
            // Rotating needs random access; an upright image streams sequentially.
            let rotates = header.int("orientation", default: 1) > 1
            makeImage = { _ in
                let loaded = pages == 1 && !rotates ? header : try VipsImageHandle.make("load_buffer") {
                    cvs_load_buffer(raw.baseAddress, raw.count, failOnTruncated, pages, rotates ? 1 : 0, $0)
                }
                return try loaded.apply("autorot") { cvs_autorot($0, $1) }
            }
        }
        do {
            return try render(makeImage(header.hasFittingICCProfile), declaredFrames: declaredFrames, format: format)
        } catch let error as VipsError where header.hasFittingICCProfile && options.thumbnail != nil {
            // A broken embedded profile fails the thumbnail's sRGB export at evaluation time:
            // ignore the profile, as the full decode does.
            guard let image = try? render(makeImage(false), declaredFrames: declaredFrames, format: format) else { throw error }
            return image
        }
    }

    /// Evaluates `decoded` into an ``Image``: colour normalised, frames split. Decode errors surface here.
    private func render(_ decoded: VipsImageHandle, declaredFrames: Int, format: ImageFormat) throws(VipsError) -> Image {
        let pageHeight = decoded.int("page-height", default: decoded.height)
        let delays = decoded.ints("delay", capacity: 4096)
        let loop = decoded.int("loop", default: -1)
        let srgb = try VipsColour.normalize(decoded)
        let pixels = try srgb.pixels()
        return try VipsColour.image(
            from: srgb, pixels: pixels, pageHeight: pageHeight, delays: delays,
            loop: declaredFrames > 1 ? max(loop, 0) : nil, declaredFrames: declaredFrames, format: format)
    }

    private static func thumbnail(
        _ raw: UnsafeRawBufferPointer, _ options: ThumbnailOptions, isVector: Bool, failOnTruncated: Int32, pages: Int32,
        exportSRGB: Bool
    ) throws(VipsError) -> VipsImageHandle {
        guard options.width > 0, (options.height ?? 1) > 0 else {
            throw VipsError(operation: "thumbnail", message: "thumbnail size must be positive")
        }
        let height = options.height ?? 0
        // A vector image has no pixel size to stay under: it is rendered at the size asked
        // (libvips' SVG loader scales the drawing), so "never upscale" does not apply to it.
        let upscales = options.allowsUpscaling || isVector
        let size: VipsSize
        switch options.contentMode {
        case .stretch: size = options.height == nil ? (upscales ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN) : VIPS_SIZE_FORCE
        default: size = upscales ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN
        }
        let crop: Int32 = options.contentMode == .aspectFill && options.height != nil ? 1 : 0
        return try VipsImageHandle.make("thumbnail_buffer") {
            cvs_thumbnail_buffer(raw.baseAddress, raw.count, Int32(options.width), Int32(height), Int32(size.rawValue),
                                 crop, failOnTruncated, pages, exportSRGB ? 1 : 0, $0)
        }
    }

    /// Loads libvips if needed (an ICO of BMP entries never does) and checks that this build
    /// reads `format`.
    private static func prepareLibvips(for format: ImageFormat) throws(ImageDecodingError) {
        do { try VipsRuntime.start() } catch { throw ImageDecodingError.corrupt(nil, message: error.message) }
        guard supportedFormats.contains(format) else { throw ImageDecodingError.unsupportedFormat(format) }
        // Warnings of earlier, successful decodes stay in libvips' process-wide error buffer;
        // without this a later failure would report them as its own reason.
        cvs_error_clear()
    }

    static func checkPixelCount(width: Int, height: Int, options: ImageDecodingOptions) throws(ImageDecodingError) {
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || count > options.maximumPixelCount {
            throw ImageDecodingError.tooManyPixels(width: width, height: height, limit: options.maximumPixelCount)
        }
    }
}

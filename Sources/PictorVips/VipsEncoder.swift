import Foundation
import PictorCore
internal import CVips
internal import CVipsShim

/// Encodes an ``/PictorCore/Image`` to JPEG, PNG, WebP, AVIF or GIF with libvips (opaque JPEGs with
/// libjpeg-turbo directly, see ``usesTurboJPEG``; PNGs with libspng directly, see ``usesSpng``;
/// still WebPs with libwebp directly, see ``usesLibwebp``).
///
/// WebP and GIF keep every decoded frame of an animation with its duration and loop count; the
/// other formats write the first frame. JPEG has no alpha, so
/// transparent pixels are flattened over white. Metadata is not written (the pixels are
/// already oriented and in sRGB), except the EXIF chunk libvips 8.14.1 adds to the WebPs it
/// writes itself, animations or with ``usesLibwebp`` off (it ignores `strip` there).
///
/// ```swift
/// let jpeg = try VipsEncoder().encode(image, as: .jpeg, quality: 80)
/// ```
///
/// - Important: thread-safe; a value type with no state besides its settings.
public struct VipsEncoder: ImageEncoding {
    /// zlib compression level for PNG, 0...9; default 6 (libpng's and libvips' default).
    public var pngCompression: Int
    /// Whether WebP is written lossless (then `quality` only sets effort); default `false`.
    public var webpLossless: Bool
    /// Whether opaque grey and RGB images are written as JPEG by libjpeg-turbo directly, with the
    /// settings libvips' `jpegsave` uses (baseline, standard Huffman tables, 4:2:0 chroma below
    /// quality 90, 4:4:4 from 90 on), skipping libvips' copy of the pixels and its thread pool;
    /// default `true`. Images with alpha always go through libvips, which flattens them.
    public var usesTurboJPEG: Bool
    /// Whether still (one-frame) WebPs are written by libwebp directly, configured as libvips
    /// 8.14's `webpsave` is for the same quality and ``webpLossless`` (default preset, effort 4,
    /// alpha quality 100; grey written as RGB), so the bitstream is libvips' own; default `true`.
    /// Unlike libvips 8.14.1, which ignores its `strip` option for WebP and adds an EXIF chunk
    /// with orientation 1 and the pixel size, this path writes no metadata. Animations and images
    /// wider or taller than 16,383 pixels always go through libvips.
    public var usesLibwebp: Bool
    /// Whether PNGs are written by libspng directly, in the colour type of the image's layout at
    /// ``pngCompression``, with no metadata (as libvips' `pngsave` with `strip`); default `true`.
    /// The file decodes to exactly the pixels encoded but is not libvips' byte for byte: libspng
    /// filters and compresses rows its own way.
    public var usesSpng: Bool
    /// How hard the WebP encoder searches for a smaller file, 0 (fastest) ... 6 (smallest),
    /// clamped: libwebp's `method`, which libvips' `webpsave` calls `effort`; default 4, the
    /// default of both. Each step down roughly trades encode time for a file a little larger at
    /// the same quality (on 256-px photo thumbnails at quality 90, effort 2 took about half the
    /// time of effort 4 for files about 1 % larger).
    public var webpEffort: Int

    /// Creates an encoder; see each property for its default.
    ///
    /// - Parameters:
    ///   - pngCompression: zlib level for PNG, 0...9; 6 by default.
    ///   - webpLossless: whether WebP is written lossless; `false` by default.
    ///   - webpEffort: libwebp's `method`, 0...6; 4 by default.
    ///   - usesTurboJPEG: whether opaque JPEGs are written by libjpeg-turbo directly; `true` by
    ///     default.
    ///   - usesLibwebp: whether still WebPs are written by libwebp directly; `true` by default.
    ///   - usesSpng: whether PNGs are written by libspng directly; `true` by default.
    public init(
        pngCompression: Int = 6, webpLossless: Bool = false, webpEffort: Int = 4, usesTurboJPEG: Bool = true,
        usesLibwebp: Bool = true, usesSpng: Bool = true
    ) {
        self.pngCompression = pngCompression
        self.webpLossless = webpLossless
        self.webpEffort = webpEffort
        self.usesTurboJPEG = usesTurboJPEG
        self.usesLibwebp = usesLibwebp
        self.usesSpng = usesSpng
    }

    /// The encoder of the Linux pipeline's processed variants (the resized images kept on disk
    /// beside their originals, `ImagePipeline.Configuration.diskCachePolicy`): PNG at zlib
    /// level 2 and WebP at effort 2, the defaults otherwise. A variant is a cache entry, written
    /// on the cold path of every image and read back by the same software: a file a few per cent
    /// larger costs less than encoding twice as long each time (on 256-px photo thumbnails,
    /// PNG level 6 took about twice the time of level 2 for files about 5 % smaller, WebP
    /// effort 4 about twice the time of effort 2 for files about 1 % smaller).
    public static let processedVariants = VipsEncoder(pngCompression: 2, webpEffort: 2)

    /// The quality used when none is given: 80, on the 1...100 scale of JPEG, WebP and AVIF
    /// (libvips' own default is 75; sharp, also on libvips, uses 80). ``encode(_:as:quality:)``
    /// and `Image.encoded(as:quality:)` default to it.
    public static let defaultQuality = 80

    /// The formats ``encode(_:as:quality:)`` writes.
    public static let supportedFormats: Set<ImageFormat> = [.jpeg, .png, .webp, .avif, .gif]

    /// Encodes `image` as `format`: every frame for WebP and GIF, the first frame otherwise.
    ///
    /// - Parameters:
    ///   - image: the image to write; a JPEG of an image with alpha is flattened over white.
    ///   - format: one of ``supportedFormats``.
    ///   - quality: 1...100 (clamped) for JPEG, WebP and AVIF; ignored by PNG and GIF. Default
    ///     ``defaultQuality`` (80; the pipeline's processed variants use
    ///     `ImagePipeline.Configuration.processedVariantQuality`, 90 by default; the CLI's
    ///     `--quality` defaults to 85).
    /// - Returns: the encoded bytes.
    /// - Throws: ``/PictorCore/ImageEncodingError/unsupportedFormat(_:)`` for formats other than JPEG, PNG,
    ///   WebP, AVIF and GIF; ``/PictorCore/ImageEncodingError/failed(_:message:)`` with libvips' text.
    public func encode(_ image: Image, as format: ImageFormat, quality: Int = VipsEncoder.defaultQuality) throws -> Data {
        guard Self.supportedFormats.contains(format) else { throw ImageEncodingError.unsupportedFormat(format) }
        let q = Int32(min(max(quality, 1), 100))
        let effort = Int32(min(max(webpEffort, 0), 6))
        if usesTurboJPEG, format == .jpeg, let data = TurboJPEGEncoder.encode(image, quality: q) { return data }
        if usesSpng, format == .png, let data = SpngEncoder.encode(image, compression: Int32(min(max(pngCompression, 0), 9))) {
            return data
        }
        if usesLibwebp, format == .webp, let data = LibwebpEncoder.encode(image, quality: q, lossless: webpLossless, effort: effort) { return data }
        do {
            try VipsRuntime.start()
            // An earlier call's text in libvips' process-wide error buffer is not this encode's reason.
            cvs_error_clear()
            let animated = image.frames.count > 1 && (format == .webp || format == .gif)
            var input = try animated ? VipsImageHandle.animation(image) : VipsImageHandle.from(image)
            var buffer: UnsafeMutableRawPointer? = nil
            var length = 0
            let result: Int32
            switch format {
            case .jpeg:
                if image.hasAlpha { input = try input.apply("flatten") { cvs_flatten($0, 255, $1) } }
                result = cvs_jpegsave_buffer(input.pointer, q, &buffer, &length)
            case .png:
                result = cvs_pngsave_buffer(input.pointer, Int32(min(max(pngCompression, 0), 9)), &buffer, &length)
            case .webp:
                result = cvs_webpsave_buffer(input.pointer, q, webpLossless ? 1 : 0, effort, &buffer, &length)
            case .gif:
                result = cvs_gifsave_buffer(input.pointer, &buffer, &length)
            default:
                if image.bands < 3 {
                    input = try input.apply("colourspace") { cvs_colourspace($0, VIPS_INTERPRETATION_sRGB, $1) }
                }
                result = cvs_avifsave_buffer(input.pointer, q, &buffer, &length)
            }
            guard result == 0, let buffer else { throw VipsError.last("\(format.rawValue)save_buffer") }
            return Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in cvs_free(pointer) })
        } catch let error as VipsError {
            throw ImageEncodingError.failed(format, message: error.message)
        }
    }
}

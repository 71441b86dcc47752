import Foundation

/// Decodes encoded bytes into an ``Image``.
///
/// Implementations must be thread-safe: the pipeline calls them from several tasks at once.
/// They must check the pixel count declared in the header against
/// ``ImageDecodingOptions/maximumPixelCount`` before decoding any pixel, apply EXIF orientation
/// exactly once, and honour ``ImageDecodingOptions/thumbnail`` by decoding at the target size
/// (shrink-on-load) rather than decoding full size and shrinking.
public protocol ImageDecoding: Sendable {
    /// Decodes `data`.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes, whole.
    ///   - options: the thumbnail size, whether to decode every frame, the pixel limit and whether
    ///     truncated data is accepted.
    /// - Throws: ``ImageDecodingError``.
    func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image

    /// Decodes `data`, whose format the caller has already sniffed (``ImageFormat/sniff(_:)-(Data)``):
    /// ``ImageDecoderRegistry`` calls this, so the bytes are sniffed once on the decode path.
    /// The default implementation calls ``decode(_:options:)``.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes, whole.
    ///   - format: their sniffed format.
    ///   - options: as for ``decode(_:options:)``.
    /// - Throws: ``ImageDecodingError``.
    func decode(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) throws -> Image

    /// Whether this decoder takes `data`: a cheap check of the header (markers, chunks,
    /// container flags), made before any pixel is decoded. ``ImageDecoderRegistry`` asks the
    /// decoders registered for the sniffed format in turn and hands the data to the first that
    /// says yes; that decoder's image or error is final, so a decoder that accepts a file must
    /// not give up on it later (a failure then throws).
    ///
    /// Refuse what this decoder does not handle as well as the next one would (a variant it
    /// lacks, a colour profile it ignores, a thumbnail it cannot make faithfully), not what is
    /// damaged: damage found while decoding is an ``ImageDecodingError``. The default
    /// implementation accepts everything.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes, whole.
    ///   - format: their sniffed format.
    ///   - options: the decode's options, already valid (``ImageDecodingOptions/validate()``).
    /// - Returns: `true` when this decoder decodes `data` with `options`; `true` by default.
    func accepts(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) -> Bool

    /// A decoder of previews for a file of `format` that is still arriving, or `nil` when this
    /// decoder makes none for it (the default). ``ImagePipeline`` asks once per download that a
    /// caller wants previews of (``ImageRequest/Options/progressivePreviews``,
    /// ``ImageRequest/Options/incrementalPreviews``, or the pipeline's
    /// ``ImagePipeline/Configuration/isProgressiveDecodingEnabled`` and
    /// ``ImagePipeline/Configuration/isIncrementalDecodingEnabled``), when the first bytes have
    /// shown the format.
    ///
    /// - Parameters:
    ///   - format: the format sniffed from the first bytes.
    ///   - options: the final decode's options: its ``ImageDecodingOptions/thumbnail`` is the
    ///     size previews are made at (or above: a decoder may stop at a cheaper scale that
    ///     still covers it), its ``ImageDecodingOptions/maximumPixelCount`` the limit they obey.
    ///   - kinds: the kinds of previews the download's callers want (never empty); a decoder
    ///     makes no preview of another kind (its ``ImagePreviewDecoding/kind``).
    /// - Returns: a fresh preview decoder, or `nil`.
    func makePreviewDecoder(format: ImageFormat, options: ImageDecodingOptions, kinds: ImagePreviewKinds) -> (any ImagePreviewDecoding)?
}

extension ImageDecoding {
    /// Accepts everything: a decoder without a narrower rule is the one that answers for its formats.
    public func accepts(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) -> Bool { true }

    /// ``decode(_:options:)``, which sniffs again: a decoder that can use the sniffed format
    /// implements ``ImageDecoding/decode(_:format:options:)`` itself.
    public func decode(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) throws -> Image {
        try decode(data, options: options)
    }
}

/// The size a thumbnail is decoded at, and how the image fits it.
public struct ThumbnailOptions: Sendable, Hashable, Codable {
    /// How the source fills the target box.
    public enum ContentMode: String, Sendable, Hashable, Codable {
        /// Scale to fit inside `width × height`, keeping the aspect ratio (the default).
        case aspectFit
        /// Scale to cover `width × height` and crop the centre to exactly that size.
        case aspectFill
        /// Scale to exactly `width × height`, ignoring the aspect ratio.
        case stretch
    }

    /// Target width in pixels (> 0).
    public var width: Int
    /// Target height in pixels; `nil` means "derived from the width and the aspect ratio".
    public var height: Int?
    /// How the image is fitted; default ``ContentMode/aspectFit``.
    public var contentMode: ContentMode
    /// Whether an image smaller than the target is enlarged; default `false` (never upscale).
    /// A vector image (SVG) is always rendered at the target size, up or down: it has no
    /// resolution to lose.
    public var allowsUpscaling: Bool

    /// Creates thumbnail options; sizes in pixels.
    public init(width: Int, height: Int? = nil, contentMode: ContentMode = .aspectFit, allowsUpscaling: Bool = false) {
        self.width = width
        self.height = height
        self.contentMode = contentMode
        self.allowsUpscaling = allowsUpscaling
    }

    /// A stable identifier that enters the cache key, e.g. `thumb(256x-,aspectFit,noup)`.
    public var identifier: String {
        "thumb(\(width)x\(height.map(String.init) ?? "-"),\(contentMode.rawValue),\(allowsUpscaling ? "up" : "noup"))"
    }
}

/// Options for one decode.
public struct ImageDecodingOptions: Sendable, Hashable {
    /// Decode at this size (shrink-on-load) instead of full size; `nil` decodes full size.
    public var thumbnail: ThumbnailOptions?
    /// Decode every frame of an animated image with its timing; default `false` (first frame).
    public var allFrames: Bool
    /// Largest pixel count (width × height, of one frame, as declared in the header) accepted
    /// before any pixel is decoded. Default 100,000,000 (100 MP, ≈ 400 MB as RGBA), in line with
    /// libvips' and Pillow's order of magnitude for decompression-bomb limits (Pillow warns at
    /// 89,478,485 pixels).
    public var maximumPixelCount: Int
    /// What a decode does with data that ends before the image does; default
    /// ``TruncatedData/completeFrames``: an animation cut short gives the frames it holds
    /// completely, as browsers show it, and anything else cut short fails with
    /// ``ImageDecodingError/truncated(_:)``. An image decoded from cut data says so
    /// (``Image/isTruncated``), and ``ImagePipeline`` delivers it but never caches it (nor the
    /// bytes it came from).
    public var truncatedData: TruncatedData

    /// Whether any truncated file is accepted (``TruncatedData/anyPart``) instead of failing with
    /// ``ImageDecodingError/truncated(_:)``: a still image then has its missing rows filled, an
    /// animation holds only its complete frames (a partly decoded frame is never returned).
    /// Setting it to `false` makes decoding strict (``TruncatedData/fail``), for animations
    /// too.
    public var allowsTruncatedData: Bool {
        get { truncatedData == .anyPart }
        set { truncatedData = newValue ? .anyPart : .fail }
    }

    /// What a decode makes of data that ends before the image does.
    public enum TruncatedData: String, Sendable, Hashable, Codable {
        /// Every cut file fails with ``ImageDecodingError/truncated(_:)``: the strict behaviour.
        case fail
        /// A GIF or animated WebP cut after at least one complete frame gives those frames (the
        /// first of them without ``ImageDecodingOptions/allFrames``), never a partly decoded
        /// one; every other cut file fails with ``ImageDecodingError/truncated(_:)``. The
        /// default. A GIF whose frames are all present but which lacks only its trailer byte
        /// (`0x3B`) is not truncated at all.
        case completeFrames
        /// Every cut file that the decoder can read in part is accepted: a still image has its
        /// missing rows filled by the decoder, an animation holds its complete frames.
        case anyPart
    }

    /// Default maximum pixel count: 100 megapixels.
    public static let defaultMaximumPixelCount = 100_000_000

    /// Creates decoding options; see each property for its default.
    public init(
        thumbnail: ThumbnailOptions? = nil, allFrames: Bool = false,
        maximumPixelCount: Int = ImageDecodingOptions.defaultMaximumPixelCount, truncatedData: TruncatedData = .completeFrames
    ) {
        self.thumbnail = thumbnail
        self.allFrames = allFrames
        self.maximumPixelCount = maximumPixelCount
        self.truncatedData = truncatedData
    }

    /// Creates decoding options that accept any truncated file (`true`, ``TruncatedData/anyPart``)
    /// or none (`false`, ``TruncatedData/fail``); see each property for the other defaults.
    public init(
        thumbnail: ThumbnailOptions? = nil, allFrames: Bool = false,
        maximumPixelCount: Int = ImageDecodingOptions.defaultMaximumPixelCount, allowsTruncatedData: Bool
    ) {
        self.init(thumbnail: thumbnail, allFrames: allFrames, maximumPixelCount: maximumPixelCount,
                  truncatedData: allowsTruncatedData ? .anyPart : .fail)
    }
}

import Foundation

/// What ``ImagePipeline/encodedResult(for:)`` makes: the final image of an ``ImageRequest``
/// encoded in a format and at a quality the caller chooses, within the caller's limits.
///
/// ```swift
/// var result = EncodedResultRequest(imageRequest: ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 512)), format: .webp, quality: 80)
/// result.maximumDimension = 8192
/// let response = try await pipeline.encodedResult(for: result)
/// send(response.image.data, type: response.image.format.mimeType)
/// ```
///
/// Callers asking at the same time for the same ``ImagePipeline/encodedResultKey(for:format:quality:)``,
/// with the same request options and limits, share one job, started with the first caller's
/// request: the ``automaticFormat`` rule of the callers that join it is not consulted, so give
/// one key one rule.
public struct EncodedResultRequest: Sendable {
    /// The image to encode: its URL, thumbnail, processors, priority and cache options, as for
    /// ``ImagePipeline/image(for:)-(ImageRequest)``.
    public var imageRequest: ImageRequest
    /// The format to encode in; `nil` for the source's own, chosen from the image by
    /// ``automaticFormat`` (and spelled `auto` in the key). Default `nil`.
    public var format: ImageFormat?
    /// The encoder quality, 1...100 (ignored by lossless formats); passed to
    /// ``ImagePipeline/Configuration/encoder`` as is, and part of the key.
    public var quality: Int
    /// The format of a result whose ``format`` is `nil`, given the image about to be encoded.
    /// Default ``sourceFormatOrPNG``.
    public var automaticFormat: @Sendable (Image) -> ImageFormat
    /// The widest and tallest image encoded, in pixels; a larger final image fails with
    /// ``ImagePipeline/Error/resultTooLarge(width:height:limit:)`` before it is encoded. Default
    /// `nil` (no limit).
    public var maximumDimension: Int?
    /// The largest original, in bytes, checked on the bytes the load read (a load answered by
    /// the memory cache or a processed variant reads none, and is not checked); a larger one
    /// fails with ``ImagePipeline/Error/loadingFailed(_:)`` wrapping
    /// ``DataLoadingError/responseTooLarge(limit:)`` before anything is encoded. The loader's
    /// own limit stops a body while it arrives; this one applies whichever tier had the bytes.
    /// Default `nil` (no limit).
    public var maximumSourceByteCount: Int?

    /// Creates a request; see each property.
    ///
    /// - Parameters:
    ///   - imageRequest: the image to encode.
    ///   - format: the format, or `nil` (the default) for ``automaticFormat``'s choice.
    ///   - quality: the encoder quality, 1...100.
    ///   - maximumDimension: the widest and tallest result in pixels; `nil` (the default) for none.
    ///   - maximumSourceByteCount: the largest original in bytes; `nil` (the default) for none.
    ///   - automaticFormat: the format of a result whose `format` is `nil`; default
    ///     ``sourceFormatOrPNG``.
    public init(
        imageRequest: ImageRequest, format: ImageFormat? = nil, quality: Int, maximumDimension: Int? = nil,
        maximumSourceByteCount: Int? = nil,
        automaticFormat: @escaping @Sendable (Image) -> ImageFormat = EncodedResultRequest.sourceFormatOrPNG
    ) {
        self.imageRequest = imageRequest
        self.format = format
        self.quality = quality
        self.maximumDimension = maximumDimension
        self.maximumSourceByteCount = maximumSourceByteCount
        self.automaticFormat = automaticFormat
    }

    /// The default ``automaticFormat``: the image's source format when it is JPEG, PNG, WebP,
    /// GIF or AVIF, else PNG (lossless, with alpha), as for a processed variant when
    /// ``ImagePipeline/Configuration/processedVariantFormat`` is `nil`.
    public static let sourceFormatOrPNG: @Sendable (Image) -> ImageFormat = { ImagePipeline.variantFormat(of: $0) }
}

/// The result of ``ImagePipeline/encodedResult(for:)``: the encoded bytes, what is known of
/// their source, where they came from, and whether this caller shared another's work.
public struct EncodedResultResponse: Sendable, Hashable {
    /// Where an encoded result came from.
    public enum Layer: Sendable, Hashable, CustomStringConvertible {
        /// The disk tier's stored encoded result: read, nothing decoded or encoded.
        case storedResult
        /// Encoded now from the final image, which the pipeline had from this layer.
        case encoded(from: CacheLayer)

        /// `stored-result`, or `encoded-from-` and the image's layer.
        public var description: String {
            switch self {
            case .storedResult: "stored-result"
            case .encoded(let layer): "encoded-from-\(layer)"
            }
        }
    }

    /// The encoded bytes, their format, quality and size in pixels.
    public var image: EncodedImage
    /// The source's `Last-Modified` header, verbatim, when its response had one and the disk
    /// tier keeps it.
    public var sourceLastModified: String?
    /// Until when the source is fresh for the pipeline's cache scope (see
    /// ``ImagePipeline/StoredEncodedResult/sourceFreshUntil``); `nil` when unknown.
    public var sourceFreshUntil: Date?
    /// Where the bytes came from.
    public var layer: Layer
    /// Whether this caller joined a job another caller had started (and so cost no load or
    /// encode of its own).
    public var wasShared: Bool

    /// Creates a response; see each property.
    public init(image: EncodedImage, sourceLastModified: String? = nil, sourceFreshUntil: Date? = nil, layer: Layer, wasShared: Bool = false) {
        self.image = image
        self.sourceLastModified = sourceLastModified
        self.sourceFreshUntil = sourceFreshUntil
        self.layer = layer
        self.wasShared = wasShared
    }
}

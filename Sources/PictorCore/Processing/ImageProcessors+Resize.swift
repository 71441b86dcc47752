import Foundation

extension ImageProcessors {
    /// Scales the image to fit, fill (centre crop) or exactly match a size in pixels; never
    /// enlarges unless asked.
    ///
    /// At the head of a request's processors, the pipeline folds it into decoding
    /// (``decodeTimeThumbnail``), so the image is decoded at the target size.
    public struct Resize: ImageProcessing, Hashable {
        /// The target size and fitting; see ``ThumbnailOptions``.
        public var options: ThumbnailOptions

        /// Creates a resize to `width × height` pixels (`height` `nil`: from the aspect ratio).
        public init(width: Int, height: Int? = nil, contentMode: ThumbnailOptions.ContentMode = .aspectFit,
                    allowsUpscaling: Bool = false) {
            options = ThumbnailOptions(width: width, height: height, contentMode: contentMode, allowsUpscaling: allowsUpscaling)
        }

        /// `resize(<w>x<h or ->,<mode>,<up|noup>)`, for example `resize(256x-,aspectFit,noup)`.
        public var identifier: String {
            "resize(\(options.width)x\(options.height.map(String.init) ?? "-"),\(options.contentMode.rawValue),\(options.allowsUpscaling ? "up" : "noup"))"
        }

        /// The same size as a decode-time thumbnail.
        public var decodeTimeThumbnail: ThumbnailOptions? { options }

        /// Resizes through the renderer.
        ///
        /// - Throws: ``ImageProcessingError/invalidParameter(processor:message:)`` for a size
        ///   ≤ 0, or the renderer's error.
        public func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
            guard options.width > 0, (options.height ?? 1) > 0 else {
                throw ImageProcessingError.invalidParameter(processor: identifier, message: "width and height must be > 0")
            }
            if !options.allowsUpscaling, options.contentMode != .stretch,
               image.width <= options.width, image.height <= (options.height ?? Int.max) {
                return image
            }
            return try context.renderer.resize(image, to: options)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Resize {
    /// Resizes to `width × height` pixels; `height` `nil` keeps the aspect ratio; no upscaling
    /// unless `allowsUpscaling` (default `false`); `contentMode` default
    /// ``ThumbnailOptions/ContentMode/aspectFit``.
    ///
    /// - Parameters:
    ///   - width: the target width, in pixels (> 0).
    ///   - height: the target height, in pixels; `nil` (the default) derives it from the aspect
    ///     ratio.
    ///   - contentMode: how the image fits `width × height`;
    ///     ``ThumbnailOptions/ContentMode/aspectFit`` by default.
    ///   - allowsUpscaling: whether a smaller image is enlarged; `false` by default.
    public static func resize(width: Int, height: Int? = nil, contentMode: ThumbnailOptions.ContentMode = .aspectFit,
                              allowsUpscaling: Bool = false) -> ImageProcessors.Resize {
        ImageProcessors.Resize(width: width, height: height, contentMode: contentMode, allowsUpscaling: allowsUpscaling)
    }
}

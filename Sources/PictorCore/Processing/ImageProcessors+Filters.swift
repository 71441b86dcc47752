import Foundation

extension ImageProcessors {
    /// Gaussian blur with a standard deviation of ``sigma`` pixels.
    public struct GaussianBlur: ImageProcessing, Hashable {
        /// Standard deviation in pixels (> 0).
        public var sigma: Double

        /// Creates the blur; `sigma` in pixels.
        public init(sigma: Double) { self.sigma = sigma }

        /// `gaussianBlur(<sigma>)`, for example `gaussianBlur(2.0)`.
        public var identifier: String { "gaussianBlur(\(ImageProcessors.number(sigma)))" }

        /// Blurs through the renderer.
        ///
        /// - Throws: ``ImageProcessingError/invalidParameter(processor:message:)`` for
        ///   `sigma ≤ 0`, or the renderer's error.
        public func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
            guard sigma.isFinite, sigma > 0 else {
                throw ImageProcessingError.invalidParameter(processor: identifier, message: "sigma must be > 0")
            }
            return try context.renderer.gaussianBlur(image, sigma: sigma)
        }
    }

    /// Converts to grey, keeping alpha.
    public struct Grayscale: ImageProcessing, Hashable {
        /// Creates the processor.
        public init() {}

        /// `grayscale`.
        public var identifier: String { "grayscale" }

        /// Converts through the renderer.
        public func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
            try context.renderer.grayscale(image)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.GaussianBlur {
    /// Gaussian blur; `sigma` in pixels (> 0).
    ///
    /// - Parameter sigma: the standard deviation, in pixels (> 0).
    public static func gaussianBlur(sigma: Double) -> ImageProcessors.GaussianBlur {
        ImageProcessors.GaussianBlur(sigma: sigma)
    }
}

extension ImageProcessing where Self == ImageProcessors.Grayscale {
    /// Converts to grey, keeping alpha.
    public static var grayscale: ImageProcessors.Grayscale { ImageProcessors.Grayscale() }
}

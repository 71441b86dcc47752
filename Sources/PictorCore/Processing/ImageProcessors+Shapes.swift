import Foundation

extension ImageProcessors {
    /// Makes the corners transparent outside quarter circles of ``radius`` pixels (adds alpha).
    public struct RoundedCorners: ImageProcessing, Hashable {
        /// Corner radius in pixels (≥ 0; capped at half the shorter side).
        public var radius: Double

        /// Creates the processor with a corner radius in pixels.
        public init(radius: Double) { self.radius = radius }

        /// `roundedCorners(<radius>)`, for example `roundedCorners(8.0)`.
        public var identifier: String { "roundedCorners(\(ImageProcessors.number(radius)))" }

        /// Rounds the corners through the renderer.
        ///
        /// - Throws: ``ImageProcessingError/invalidParameter(processor:message:)`` for a negative
        ///   radius, or the renderer's error.
        public func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
            guard radius.isFinite, radius >= 0 else {
                throw ImageProcessingError.invalidParameter(processor: identifier, message: "radius must be ≥ 0")
            }
            return try context.renderer.roundCorners(image, radius: radius)
        }
    }

    /// Centre-crops to a square and clears everything outside the inscribed circle (adds alpha).
    public struct Circle: ImageProcessing, Hashable {
        /// Creates the processor.
        public init() {}

        /// `circle`.
        public var identifier: String { "circle" }

        /// Cuts the circle through the renderer.
        public func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
            try context.renderer.circle(image)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.RoundedCorners {
    /// Rounds the corners with a radius in pixels.
    ///
    /// - Parameter radius: the corner radius, in pixels.
    public static func roundedCorners(radius: Double) -> ImageProcessors.RoundedCorners {
        ImageProcessors.RoundedCorners(radius: radius)
    }
}

extension ImageProcessing where Self == ImageProcessors.Circle {
    /// Centre-crops to a square and masks it to a circle.
    public static var circle: ImageProcessors.Circle { ImageProcessors.Circle() }
}

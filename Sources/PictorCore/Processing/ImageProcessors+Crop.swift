import Foundation

extension ImageProcessors {
    /// Cuts out a rectangle, or the centre of the image at a given size (pixels).
    public struct Crop: ImageProcessing, Hashable {
        /// What to cut.
        public enum Region: Hashable, Sendable {
            /// The rectangle at `x, y` (top-left origin) of `width × height`, clamped to the image.
            case rect(x: Int, y: Int, width: Int, height: Int)
            /// `width × height` from the centre (at most the image's own size).
            case center(width: Int, height: Int)
        }

        /// The region cut out.
        public var region: Region

        /// Creates a crop of `region`.
        public init(_ region: Region) { self.region = region }

        /// `crop(<x>,<y>,<w>x<h>)` or `crop(center,<w>x<h>)`.
        public var identifier: String {
            switch region {
            case .rect(let x, let y, let w, let h): "crop(\(x),\(y),\(w)x\(h))"
            case .center(let w, let h): "crop(center,\(w)x\(h))"
            }
        }

        /// Crops through the renderer.
        ///
        /// - Throws: ``ImageProcessingError/invalidParameter(processor:message:)`` for a size ≤ 0
        ///   or a rectangle outside the image, or the renderer's error.
        public func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
            switch region {
            case .rect(let x, let y, let w, let h):
                guard w > 0, h > 0 else {
                    throw ImageProcessingError.invalidParameter(processor: identifier, message: "width and height must be > 0")
                }
                return try context.renderer.crop(image, x: x, y: y, width: w, height: h)
            case .center(let w, let h):
                guard w > 0, h > 0 else {
                    throw ImageProcessingError.invalidParameter(processor: identifier, message: "width and height must be > 0")
                }
                let cw = min(w, image.width), ch = min(h, image.height)
                if cw == image.width, ch == image.height { return image }
                return try context.renderer.crop(image, x: (image.width - cw) / 2, y: (image.height - ch) / 2, width: cw, height: ch)
            }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Crop {
    /// Cuts out the rectangle `x, y, width × height` (pixels, top-left origin, clamped).
    ///
    /// - Parameters:
    ///   - x: the left edge, in pixels.
    ///   - y: the top edge, in pixels.
    ///   - width: the width, in pixels.
    ///   - height: the height, in pixels.
    public static func crop(x: Int, y: Int, width: Int, height: Int) -> ImageProcessors.Crop {
        ImageProcessors.Crop(.rect(x: x, y: y, width: width, height: height))
    }

    /// Cuts `width × height` pixels out of the centre.
    ///
    /// - Parameters:
    ///   - width: the width kept, in pixels.
    ///   - height: the height kept, in pixels.
    public static func centerCrop(width: Int, height: Int) -> ImageProcessors.Crop {
        ImageProcessors.Crop(.center(width: width, height: height))
    }
}

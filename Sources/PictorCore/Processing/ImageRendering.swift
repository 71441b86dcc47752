import Foundation

/// The pixel engine behind the built-in processors. The `Pictor` product supplies a libvips
/// implementation; the core alone has ``UnavailableImageRenderer``.
///
/// All sizes are in pixels. Implementations keep the image's layout where they can (a
/// ``grayscale(_:)`` result keeps alpha) and add alpha where the operation needs it
/// (``roundCorners(_:radius:)``, ``circle(_:)``).
public protocol ImageRendering: Sendable {
    /// Resizes following `options` (fit, fill with centre crop, or stretch; no upscaling unless
    /// allowed).
    ///
    /// - Parameters:
    ///   - image: the image to resize.
    ///   - options: the target size and how the image fits it.
    func resize(_ image: Image, to options: ThumbnailOptions) throws -> Image
    /// Cuts out the rectangle `x, y, width, height` (clamped to the image).
    ///
    /// - Parameters:
    ///   - image: the image to crop.
    ///   - x: the left edge of the rectangle, in pixels.
    ///   - y: the top edge of the rectangle, in pixels.
    ///   - width: the rectangle's width, in pixels.
    ///   - height: the rectangle's height, in pixels.
    func crop(_ image: Image, x: Int, y: Int, width: Int, height: Int) throws -> Image
    /// Makes the corners transparent outside a quarter circle of `radius` pixels.
    ///
    /// - Parameters:
    ///   - image: the image.
    ///   - radius: the corner radius, in pixels.
    func roundCorners(_ image: Image, radius: Double) throws -> Image
    /// Centre-crops to a square and makes everything outside the inscribed circle transparent.
    ///
    /// - Parameter image: the image.
    func circle(_ image: Image) throws -> Image
    /// Gaussian blur with standard deviation `sigma` in pixels (> 0).
    ///
    /// - Parameters:
    ///   - image: the image.
    ///   - sigma: the standard deviation, in pixels.
    func gaussianBlur(_ image: Image, sigma: Double) throws -> Image
    /// Converts to grey (keeping alpha).
    ///
    /// - Parameter image: the image.
    func grayscale(_ image: Image) throws -> Image
}

/// A renderer that fails every operation with ``ImageProcessingError/noRenderer``; the default
/// of the core product, which has no C pixel library.
public struct UnavailableImageRenderer: ImageRendering {
    /// Creates the renderer.
    public init() {}
    /// Throws ``ImageProcessingError/noRenderer``.
    public func resize(_ image: Image, to options: ThumbnailOptions) throws -> Image { throw ImageProcessingError.noRenderer }
    /// Throws ``ImageProcessingError/noRenderer``.
    public func crop(_ image: Image, x: Int, y: Int, width: Int, height: Int) throws -> Image { throw ImageProcessingError.noRenderer }
    /// Throws ``ImageProcessingError/noRenderer``.
    public func roundCorners(_ image: Image, radius: Double) throws -> Image { throw ImageProcessingError.noRenderer }
    /// Throws ``ImageProcessingError/noRenderer``.
    public func circle(_ image: Image) throws -> Image { throw ImageProcessingError.noRenderer }
    /// Throws ``ImageProcessingError/noRenderer``.
    public func gaussianBlur(_ image: Image, sigma: Double) throws -> Image { throw ImageProcessingError.noRenderer }
    /// Throws ``ImageProcessingError/noRenderer``.
    public func grayscale(_ image: Image) throws -> Image { throw ImageProcessingError.noRenderer }
}

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
    func resize(_ image: Image, to options: ThumbnailOptions) throws -> Image
    /// Cuts out the rectangle `x, y, width, height` (clamped to the image).
    func crop(_ image: Image, x: Int, y: Int, width: Int, height: Int) throws -> Image
    /// Makes the corners transparent outside a quarter circle of `radius` pixels.
    func roundCorners(_ image: Image, radius: Double) throws -> Image
    /// Centre-crops to a square and makes everything outside the inscribed circle transparent.
    func circle(_ image: Image) throws -> Image
    /// Gaussian blur with standard deviation `sigma` in pixels (> 0).
    func gaussianBlur(_ image: Image, sigma: Double) throws -> Image
    /// Converts to grey (keeping alpha).
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

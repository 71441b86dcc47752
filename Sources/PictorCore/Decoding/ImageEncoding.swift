import Foundation

/// Encodes an ``Image`` into a file format.
public protocol ImageEncoding: Sendable {
    /// Encodes the first frame of `image` (all frames where the format supports animation and
    /// the encoder does).
    ///
    /// - Parameters:
    ///   - image: the image to encode.
    ///   - format: target format; JPEG, PNG, WebP and AVIF at least.
    ///   - quality: 1...100 for lossy formats, ignored by PNG. The requirement has no default:
    ///     the pipeline passes ``ImagePipeline/Configuration/processedVariantQuality`` (90 by
    ///     default); `VipsEncoder`'s own `encode` defaults to 80 (`VipsEncoder.defaultQuality`).
    /// - Returns: the encoded bytes.
    /// - Throws: ``ImageEncodingError``.
    func encode(_ image: Image, as format: ImageFormat, quality: Int) throws -> Data
}

import Foundation
import PictorCore

extension Image {
    /// This image encoded as `format` by ``VipsEncoder`` with its default settings (PNG zlib
    /// level 6, lossy WebP): every frame for WebP and GIF, the first frame otherwise.
    ///
    /// ```swift
    /// let webp = try response.image.encoded(as: .webp)              // quality 80
    /// let jpeg = try response.image.encoded(as: .jpeg, quality: 90)
    /// ```
    ///
    /// - Parameters:
    ///   - format: `.jpeg`, `.png`, `.webp`, `.avif` or `.gif` (``VipsEncoder/supportedFormats``).
    ///   - quality: 1...100 (clamped) for JPEG, WebP and AVIF; ignored by PNG and GIF. Default
    ///     ``VipsEncoder/defaultQuality`` (80).
    /// - Returns: the encoded bytes.
    /// - Throws: ``/PictorCore/ImageEncodingError/unsupportedFormat(_:)`` for any other format;
    ///   ``/PictorCore/ImageEncodingError/failed(_:message:)`` with libvips' text.
    public func encoded(as format: ImageFormat, quality: Int = VipsEncoder.defaultQuality) throws -> Data {
        try VipsEncoder().encode(self, as: format, quality: quality)
    }
}

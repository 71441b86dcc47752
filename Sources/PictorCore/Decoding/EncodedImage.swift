import Foundation

/// An image as encoded bytes, with what was recorded when it was encoded: the format, the
/// quality and the size in pixels. ``ImagePipeline/storedVariant(for:)`` returns a processed
/// variant so, for callers that can use the bytes as they are.
public struct EncodedImage: Sendable, Hashable {
    /// The encoded bytes.
    public var data: Data
    /// Their format.
    public var format: ImageFormat
    /// The quality they were encoded at (1...100; it matters for JPEG, WebP and AVIF), when
    /// recorded.
    public var quality: Int?
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a value; see each property.
    public init(data: Data, format: ImageFormat, quality: Int?, width: Int, height: Int) {
        self.data = data
        self.format = format
        self.quality = quality
        self.width = width
        self.height = height
    }

    /// Whether these bytes are what encoding the same image as `format` at `quality` gives (with
    /// the same encoder): the same format and, for lossy formats, the same quality; PNG and GIF
    /// are lossless, so their quality does not matter.
    ///
    /// - Parameters:
    ///   - format: the format the caller would encode.
    ///   - quality: the quality the caller would encode at.
    public func matches(format: ImageFormat, quality: Int) -> Bool {
        guard format == self.format else { return false }
        return format == .png || format == .gif || self.quality == quality
    }
}

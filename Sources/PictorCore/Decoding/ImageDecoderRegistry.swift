import Foundation

/// Picks a decoder by the format sniffed from the data's magic bytes, and is itself an
/// ``ImageDecoding`` that dispatches to it.
///
/// Decoders are tried in registration order: the first one registered for the sniffed format
/// wins.
///
/// ```swift
/// var registry = ImageDecoderRegistry()
/// registry.register(MyWebPDecoder(), for: [.webp])
/// registry.register(VipsDecoder(), for: VipsDecoder.supportedFormats)
/// let image = try registry.decode(data, options: ImageDecodingOptions())
/// ```
public struct ImageDecoderRegistry: ImageDecoding {
    /// One registration: a decoder and the formats it takes.
    public struct Entry: Sendable {
        /// The formats this decoder is used for.
        public var formats: Set<ImageFormat>
        /// The decoder.
        public var decoder: any ImageDecoding
    }

    /// The registrations, first registered first.
    public private(set) var entries: [Entry] = []

    /// Creates an empty registry (every decode throws ``ImageDecodingError/unsupportedFormat(_:)``
    /// until a decoder is registered).
    public init() {}

    /// Creates a registry with `decoder` registered for `formats`.
    ///
    /// - Parameters:
    ///   - decoder: the decoder.
    ///   - formats: the formats it is used for.
    public init(_ decoder: any ImageDecoding, for formats: Set<ImageFormat>) {
        register(decoder, for: formats)
    }

    /// Registers `decoder` for `formats`, after every earlier registration.
    ///
    /// - Parameters:
    ///   - decoder: the decoder.
    ///   - formats: the formats it is used for, unless an earlier registration takes them.
    public mutating func register(_ decoder: any ImageDecoding, for formats: Set<ImageFormat>) {
        entries.append(Entry(formats: formats, decoder: decoder))
    }

    /// The decoder used for `format`: the first registered for it, or `nil`.
    ///
    /// - Parameter format: a format, as ``ImageFormat/sniff(_:)-(Data)`` returns it.
    public func decoder(for format: ImageFormat) -> (any ImageDecoding)? {
        entries.first { $0.formats.contains(format) }?.decoder
    }

    /// Sniffs the format of `data` and decodes it with ``decoder(for:)``.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - options: thumbnail, frames and pixel limit, passed to the decoder.
    /// - Throws: ``ImageDecodingError/emptyData``, ``ImageDecodingError/unknownFormat`` when the
    ///   magic bytes match no format, ``ImageDecodingError/unsupportedFormat(_:)`` when no
    ///   decoder is registered for it, or the decoder's own error.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        guard !data.isEmpty else { throw ImageDecodingError.emptyData }
        guard let format = ImageFormat.sniff(data) else { throw ImageDecodingError.unknownFormat }
        guard let decoder = decoder(for: format) else { throw ImageDecodingError.unsupportedFormat(format) }
        return try decoder.decode(data, format: format, options: options)
    }
}

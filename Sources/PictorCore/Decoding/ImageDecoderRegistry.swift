import Foundation

/// Picks one decoder for each image, and is itself an ``ImageDecoding`` that dispatches to it.
///
/// The rule, in this order:
/// 1. the format is sniffed from the data's magic bytes, once (``ImageFormat/sniff(_:)-(Data)``);
/// 2. the options are checked (``ImageDecodingOptions/validate()``);
/// 3. of the decoders registered for that format, in registration order, the first whose
///    ``ImageDecoding/accepts(_:format:options:)`` says yes is chosen;
/// 4. that decoder's image or error is the answer. No other decoder is tried after it started:
///    a decoder that fails throws, it does not hand the file on.
///
/// Register narrow decoders (a fast path for the plain cases of one format) before a broad one
/// that accepts everything of its formats, so that every file has a decoder:
///
/// ```swift
/// var registry = ImageDecoderRegistry()
/// registry.register(MyWebPDecoder(), for: [.webp])      // accepts only still WebPs
/// registry.register(VipsDecoder(), for: VipsDecoder.candidateFormats)
/// let image = try registry.decode(data, options: ImageDecodingOptions())
/// ```
public struct ImageDecoderRegistry: ImageDecoding {
    /// One registration: a decoder and the formats it takes.
    public struct Entry: Sendable {
        /// The formats this decoder is asked about.
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
    ///   - formats: the formats it is asked about.
    public init(_ decoder: any ImageDecoding, for formats: Set<ImageFormat>) {
        register(decoder, for: formats)
    }

    /// Registers `decoder` for `formats`, after every earlier registration: it is asked about a
    /// file of these formats only when every earlier decoder for that format refused it.
    ///
    /// - Parameters:
    ///   - decoder: the decoder.
    ///   - formats: the formats it is asked about.
    public mutating func register(_ decoder: any ImageDecoding, for formats: Set<ImageFormat>) {
        entries.append(Entry(formats: formats, decoder: decoder))
    }

    /// The first decoder registered for `format`, whether or not it would accept a given file;
    /// `nil` when none is.
    ///
    /// - Parameter format: a format, as ``ImageFormat/sniff(_:)-(Data)`` returns it.
    public func decoder(for format: ImageFormat) -> (any ImageDecoding)? {
        entries.first { $0.formats.contains(format) }?.decoder
    }

    /// The decoder chosen for `data` (rule 3 of the type's discussion): the first registered
    /// for `format` that accepts it; `nil` when none does.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - format: their sniffed format.
    ///   - options: the decode's options, valid.
    public func decoder(for data: Data, format: ImageFormat, options: ImageDecodingOptions) -> (any ImageDecoding)? {
        for entry in entries where entry.formats.contains(format) {
            if entry.decoder.accepts(data, format: format, options: options) { return entry.decoder }
        }
        return nil
    }

    /// Whether a decoder registered for `format` accepts `data`; lets a registry be registered
    /// inside another.
    public func accepts(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) -> Bool {
        decoder(for: data, format: format, options: options) != nil
    }

    /// Sniffs the format of `data` and decodes it with the decoder the type's rule picks.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - options: thumbnail, frames and pixel limit, passed to the decoder.
    /// - Throws: ``ImageDecodingError/emptyData``, ``ImageDecodingError/unknownFormat`` when the
    ///   magic bytes match no format, and otherwise as ``decode(_:format:options:)``.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        guard !data.isEmpty else { throw ImageDecodingError.emptyData }
        guard let format = ImageFormat.sniff(data) else { throw ImageDecodingError.unknownFormat }
        return try decode(data, format: format, options: options)
    }

    /// Decodes `data`, already sniffed as `format`, with the decoder the type's rule picks.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - format: their sniffed format.
    ///   - options: thumbnail, frames and pixel limit, passed to the decoder.
    /// - Throws: ``ImageDecodingError/emptyData``,
    ///   ``ImageDecodingError/invalidOptions(detail:)`` (from ``ImageDecodingOptions/validate()``),
    ///   ``ImageDecodingError/unsupportedFormat(_:)`` when no decoder is registered for the
    ///   format, ``ImageDecodingError/unsupportedVariant(_:detail:)`` when decoders are but none
    ///   accepts the file, or the chosen decoder's own error.
    public func decode(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) throws -> Image {
        guard !data.isEmpty else { throw ImageDecodingError.emptyData }
        try options.validate()
        guard let decoder = decoder(for: data, format: format, options: options) else {
            guard decoder(for: format) != nil else { throw ImageDecodingError.unsupportedFormat(format) }
            throw ImageDecodingError.unsupportedVariant(format, detail: "no registered decoder accepts this file")
        }
        return try decoder.decode(data, format: format, options: options)
    }

    /// The first preview decoder that a decoder registered for `format` makes, in registration
    /// order; `nil` when none makes one.
    ///
    /// - Parameters:
    ///   - format: the format sniffed from the first bytes.
    ///   - options: the final decode's options.
    ///   - kinds: the kinds of previews wanted.
    public func makePreviewDecoder(
        format: ImageFormat, options: ImageDecodingOptions, kinds: ImagePreviewKinds
    ) -> (any ImagePreviewDecoding)? {
        for entry in entries where entry.formats.contains(format) {
            if let previews = entry.decoder.makePreviewDecoder(format: format, options: options, kinds: kinds) { return previews }
        }
        return nil
    }
}

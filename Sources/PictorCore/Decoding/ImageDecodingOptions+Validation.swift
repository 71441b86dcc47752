import Foundation

extension ImageDecodingOptions {
    /// Checks the options that no decoder can honour, before any decoder is chosen or any byte
    /// read: ``ImageDecoderRegistry`` calls it first, and a decoder used on its own calls it in
    /// its decode.
    ///
    /// - Throws: ``ImageDecodingError/invalidOptions(detail:)`` when ``thumbnail`` has a width,
    ///   or a height when given, of 0 or less.
    public func validate() throws(ImageDecodingError) {
        if let thumbnail, thumbnail.width <= 0 || (thumbnail.height ?? 1) <= 0 {
            throw ImageDecodingError.invalidOptions(
                detail: "thumbnail size must be positive, got \(thumbnail.width)×\(thumbnail.height.map(String.init) ?? "auto")")
        }
    }

    /// Whether ``validate()`` passes.
    package var isValid: Bool { (try? validate()) != nil }
}

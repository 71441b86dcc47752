import PictorCore

extension ImageDecoderRegistry {
    /// A registry with ``VipsDecoder`` for every format it may read
    /// (``VipsDecoder/candidateFormats``). Making it does not load libvips; a format this
    /// machine's libvips build lacks (BMP on Debian 12) throws
    /// ``/PictorCore/ImageDecodingError/unsupportedFormat(_:)`` when decoded.
    public static var vips: ImageDecoderRegistry {
        ImageDecoderRegistry(VipsDecoder(), for: VipsDecoder.candidateFormats)
    }
}

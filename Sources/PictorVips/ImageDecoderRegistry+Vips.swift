import PictorCore

extension ImageDecoderRegistry {
    /// A registry with ``VipsDecoder`` for every format this libvips build reads
    /// (``VipsDecoder/supportedFormats``).
    public static var vips: ImageDecoderRegistry {
        ImageDecoderRegistry(VipsDecoder(), for: VipsDecoder.supportedFormats)
    }
}

import PictorCore

extension ImageDecoderRegistry {
    /// The default registry: ``TurboJPEGDecoder`` for JPEG, ``SpngDecoder`` for PNG and
    /// ``WebPDecoder`` for WebP, each for the files it accepts, then ``VipsDecoder`` for every
    /// format it may read (``VipsDecoder/candidateFormats``) and every file the others refuse.
    /// Making it does not load libvips; a format this machine's libvips build lacks (BMP on
    /// Debian 12) throws ``/PictorCore/ImageDecodingError/unsupportedFormat(_:)`` when decoded.
    public static var vips: ImageDecoderRegistry { vips(fastPaths: true) }

    /// ``vips``, or with `fastPaths` `false` ``VipsDecoder`` alone (every file through libvips,
    /// as a reference to compare the fast decoders with, or to measure them against).
    ///
    /// - Parameter fastPaths: whether ``TurboJPEGDecoder``, ``SpngDecoder`` and ``WebPDecoder``
    ///   are registered before ``VipsDecoder``.
    public static func vips(fastPaths: Bool) -> ImageDecoderRegistry {
        var registry = ImageDecoderRegistry()
        if fastPaths {
            registry.register(TurboJPEGDecoder(), for: [.jpeg])
            registry.register(SpngDecoder(), for: [.png])
            registry.register(WebPDecoder(), for: [.webp])
        }
        registry.register(VipsDecoder(), for: VipsDecoder.candidateFormats)
        return registry
    }
}

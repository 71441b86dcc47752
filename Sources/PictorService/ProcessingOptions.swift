import PictorCore

/// What to do to the source image: the processing options of one request, after the `default`
/// preset, the path's options (and the presets they name) and the extension were applied in
/// that order.
///
/// Each property is one imgproxy option (long and short names in its documentation) with
/// imgproxy's default, except ``stripMetadata``, on by default as imgproxy's own
/// `IMGPROXY_STRIP_METADATA` is. Two requests that mean the same image have equal values and
/// the same ``canonicalString``, however they were spelled.
public struct ProcessingOptions: Sendable, Hashable {
    /// How to fit the source into ``width`` × ``height`` (`resizing_type`/`rt`). Default ``ResizingType/fit``.
    public var resizingType: ResizingType
    /// The result width in pixels, before ``dpr`` (`width`/`w`); 0 (default) derives it from
    /// ``height`` and the source's aspect ratio (with ``ResizingType/force``: keeps the
    /// source width). At most ``ServiceLimits/maxDimension``.
    public var width: Int
    /// The result height in pixels, before ``dpr`` (`height`/`h`); 0 (default) as for ``width``.
    public var height: Int
    /// Scale a source smaller than the requested size up to it (`enlarge`/`el`). Default off.
    public var enlarge: Bool
    /// Pad a smaller result to the requested size (`extend`/`ex`). Default off, centred.
    public var extend: Extend
    /// Where to anchor a crop (`gravity`/`g`). Default centre, no offsets.
    public var gravity: Gravity
    /// The device pixel ratio: the requested size (and gravity offsets) are multiplied by it
    /// (`dpr`). Default 1; above 0, at most ``ServiceLimits/maxDPR``.
    public var dpr: Double
    /// The encoder quality, 1...100 (`quality`/`q`); 0 (default) means the service's default
    /// for the output format, as `q:0` does in imgproxy.
    public var quality: Int
    /// The output format (`format`/`f`/`ext`, or the path's extension, which wins); `nil`
    /// (default) leaves it to the service (the source's format, or negotiation).
    public var format: ImageFormat?
    /// The colour alpha is flattened onto (`background`/`bg`); `nil` (default) leaves the
    /// background alone.
    public var background: RGBColor?
    /// Remove EXIF, IPTC and XMP metadata from the result (`strip_metadata`/`sm`). Default on.
    public var stripMetadata: Bool
    /// An opaque string that changes the URL, and so the cache key, without changing the
    /// processing (`cachebuster`/`cb`); `nil` (default) when absent or empty.
    public var cacheBuster: String?

    /// Options with every default: fit, 0 × 0, no enlarge, no extend, centre gravity, dpr 1,
    /// quality 0 (the service's), format and background unset, metadata stripped, no cache buster.
    public init() {
        resizingType = .fit
        width = 0
        height = 0
        enlarge = false
        extend = Extend()
        gravity = Gravity()
        dpr = 1
        quality = 0
        format = nil
        background = nil
        stripMetadata = true
        cacheBuster = nil
    }
}

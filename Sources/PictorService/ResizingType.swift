/// How the source is fitted to the requested width and height (imgproxy's `resizing_type`).
///
/// The raw value is the spelling in the URL (`rt:fill-down`). Default: ``fit``.
public enum ResizingType: String, Sendable, Hashable, CaseIterable {
    /// Keeps the aspect ratio; the result fits inside width × height.
    case fit
    /// Keeps the aspect ratio; the result fills width × height and the rest is cropped.
    case fill
    /// As ``fill``, but a result smaller than the requested size is cropped to the requested
    /// aspect ratio instead of being enlarged.
    case fillDown = "fill-down"
    /// Ignores the aspect ratio: the result is exactly width × height.
    case force
    /// ``fill`` when the source and the result have the same orientation (both portrait or
    /// both landscape), ``fit`` otherwise.
    case auto
}

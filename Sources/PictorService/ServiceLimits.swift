/// Bounds on what one request path may ask for, checked while parsing so that a hostile path
/// costs at most linear time in ``maxPathLength`` and a bounded amount of memory.
///
/// imgproxy bounds none of these in its URL parser (it limits source pixels and bytes later);
/// Pictor refuses earlier, with the statuses in ``ServiceError/Kind``.
public struct ServiceLimits: Sendable, Hashable {
    /// The longest accepted path, in UTF-8 bytes, query included. Default 8,192 (nginx's default
    /// header buffer size); longer paths are refused with 414 before anything else is read.
    public var maxPathLength: Int
    /// The most processing options one path may spell out (`rs:…/q:…` counts 2). Default 32.
    public var maxOptions: Int
    /// The most options one request may apply once presets are expanded (the path's own, the
    /// `default` preset's and every nested preset's). Default 256; bounds the work a preset
    /// that names other presets many times can cause.
    public var maxAppliedOptions: Int
    /// The largest `width` and `height`, in pixels. Default 16,384 (WebP's own limit is 16,383,
    /// JPEG's 65,535); `0` stays "unset" as in imgproxy.
    public var maxDimension: Int
    /// The largest `dpr` (device pixel ratio, a multiplier of the requested size). Default 8.
    /// The smallest is any value above 0, as imgproxy requires.
    public var maxDPR: Double

    /// Limits with the defaults above, each overridable.
    public init(
        maxPathLength: Int = 8192,
        maxOptions: Int = 32,
        maxAppliedOptions: Int = 256,
        maxDimension: Int = 16384,
        maxDPR: Double = 8
    ) {
        self.maxPathLength = maxPathLength
        self.maxOptions = maxOptions
        self.maxAppliedOptions = maxAppliedOptions
        self.maxDimension = maxDimension
        self.maxDPR = maxDPR
    }

    /// The most arguments one option may carry (`resize` takes 8: type, width, height, enlarge,
    /// extend, extend gravity and its two offsets; `preset` takes up to this many names); a
    /// segment with more `:` is refused without being split further.
    static let maxArguments = 16
    /// The longest numeric argument, in bytes; longer is refused before conversion.
    static let maxNumberLength = 32
}

/// Where a crop (or, for ``ProcessingOptions/extend``, the added border) is anchored: a
/// compass point with offsets, smart (libvips' `smartcrop` attention), or a focus point.
///
/// Default: ``Kind/center`` with offsets 0, imgproxy's `ce:0:0`.
public struct Gravity: Sendable, Hashable {
    /// The anchor; the raw value is the spelling in the URL (`g:noea`).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Centre (`ce`).
        case center = "ce"
        /// Top edge (`no`).
        case north = "no"
        /// Bottom edge (`so`).
        case south = "so"
        /// Right edge (`ea`).
        case east = "ea"
        /// Left edge (`we`).
        case west = "we"
        /// Top-right corner (`noea`).
        case northEast = "noea"
        /// Top-left corner (`nowe`).
        case northWest = "nowe"
        /// Bottom-right corner (`soea`).
        case southEast = "soea"
        /// Bottom-left corner (`sowe`).
        case southWest = "sowe"
        /// The most "interesting" region, as libvips' `smartcrop` with the attention strategy
        /// finds it (`sm`). Takes no offsets; not allowed for `extend`.
        case smart = "sm"
        /// A focus point (`fp:x:y`): the offsets are its coordinates, each in 0...1 (0 is the
        /// left or top edge).
        case focusPoint = "fp"
    }

    /// The anchor.
    public var kind: Kind
    /// The horizontal offset: pixels when ≥ 1, a fraction of the width when below 1; for
    /// ``Kind/focusPoint`` the x coordinate in 0...1. Always 0 for ``Kind/smart``.
    public var xOffset: Double
    /// The vertical offset, as ``xOffset``.
    public var yOffset: Double

    /// A gravity; the defaults are imgproxy's (`ce:0:0`).
    public init(_ kind: Kind = .center, xOffset: Double = 0, yOffset: Double = 0) {
        self.kind = kind
        self.xOffset = xOffset
        self.yOffset = yOffset
    }
}

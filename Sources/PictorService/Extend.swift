/// Whether a result smaller than the requested size is padded up to it, and where the image
/// sits in the padding (imgproxy's `extend`/`ex`, also the last arguments of `resize`/`size`).
///
/// Default: off, ``Gravity/Kind/center`` without offsets (`false:ce:0:0`).
public struct Extend: Sendable, Hashable {
    /// Pad to the requested size.
    public var enabled: Bool
    /// Where the image sits; any kind except ``Gravity/Kind/smart``.
    public var gravity: Gravity

    /// An extend setting; the defaults are imgproxy's.
    public init(enabled: Bool = false, gravity: Gravity = Gravity()) {
        self.enabled = enabled
        self.gravity = gravity
    }
}

import Foundation

/// The time source for cache expiry: a number of seconds since an arbitrary fixed origin.
///
/// Inject a manual clock in tests so that TTLs can be exercised without sleeping.
public protocol CacheClock: Sendable {
    /// The current time in seconds; never decreases between calls.
    func now() -> Double
}

/// The system's monotonic clock (`CLOCK_MONOTONIC`): seconds since boot, not affected by
/// changes to the wall-clock time. The default ``CacheClock`` of the memory caches.
public struct MonotonicCacheClock: CacheClock {
    /// Creates the clock; it holds no state.
    public init() {}

    /// Seconds since an unspecified point (boot on Linux), with nanosecond resolution.
    public func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }
}

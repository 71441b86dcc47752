import Foundation

/// The overall deadline of one ``DataLoader`` request: `seconds` after its creation, on a
/// monotonic clock (`ContinuousClock`), shared by every attempt and backoff wait.
struct Deadline: Sendable {
    /// The configured length, in seconds (reported in ``DataLoadingError/timedOut(seconds:)``).
    let seconds: Double
    private let end: ContinuousClock.Instant

    init(seconds: Double) {
        self.seconds = seconds
        let clamped = seconds.isFinite ? max(0, min(seconds, 1e9)) : 1e9
        end = ContinuousClock.now.advanced(by: .milliseconds(Int64((clamped * 1000).rounded(.up))))
    }

    /// Seconds left, negative once passed.
    var remaining: Double {
        ContinuousClock.now.duration(to: end).seconds
    }
}

import Synchronization
import PictorCore

/// A clock that moves only when a test advances it.
final class ManualCacheClock: CacheClock {
    private let seconds: Mutex<Double>

    init(_ start: Double = 1_000) { seconds = Mutex(start) }

    func now() -> Double { seconds.withLock { $0 } }

    func advance(by delta: Double) { seconds.withLock { $0 += delta } }
}

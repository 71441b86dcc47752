import Foundation
import Synchronization

/// Remembers URLs that failed permanently (by default HTTP 404 and 410) for a while, so they are
/// not requested again. URLs are told apart by their bytes (a failure of one spelling says
/// nothing about another).
final class FailedURLMemory: Sendable {
    private let entries = Mutex<[ByteString: (status: Int, until: ContinuousClock.Instant)]>([:])
    let policy: DataLoader.FailedURLPolicy

    init(policy: DataLoader.FailedURLPolicy) { self.policy = policy }

    /// The remembered status for `url`, if still within its time to live.
    func status(for url: String, now: ContinuousClock.Instant = .now) -> Int? {
        let url = ByteString(url)
        return entries.withLock { e in
            guard let entry = e[url] else { return nil }
            if entry.until <= now { e[url] = nil; return nil }
            return entry.status
        }
    }

    /// Records a failure when `status` is one of the policy's codes.
    func record(_ status: Int, for url: String, now: ContinuousClock.Instant = .now) {
        guard policy.statusCodes.contains(status) else { return }
        let until = now.advanced(by: .milliseconds(Int64((policy.timeToLive * 1000).rounded())))
        entries.withLock { e in
            if e.count >= policy.maximumCount { e.removeAll(keepingCapacity: true) }
            e[ByteString(url)] = (status, until)
        }
    }

    /// Forgets every URL.
    func removeAll() { entries.withLock { $0.removeAll() } }
}

import Synchronization

/// The slots ``ImageService/Configuration/maxWorkInFlight`` bounds: one per result being made,
/// taken by the first request for its key and given back when the work itself ends, not when
/// its requests leave.
///
/// A request that runs out of time, or whose client leaves, is answered at once and the
/// pipeline's job is cancelled with its last request; but a decode, resize or encode already
/// running on the processing queue runs to its end (libvips cannot be stopped half-way), and
/// until then its CPU and memory are still spent. So the slot is a ``Token`` that every request
/// for the key binds as a task-local value while it asks the pipeline: the pipeline's jobs
/// are tasks started inside that call, which inherit the value and hold the token until they
/// end, and the slot is given back when the last holder lets go of it.
final class WorkSlots: Sendable {
    /// One result's slot; given back when the last reference to it goes.
    final class Token: Sendable {
        private let slots: WorkSlots
        fileprivate init(_ slots: WorkSlots) { self.slots = slots }
        deinit { slots.state.withLock { $0.taken -= 1 } }
    }

    /// Carried by the tasks working for a result (see the type's documentation); never read.
    @TaskLocal static var current: Token?

    private struct State {
        /// Requests waiting, by key, and the slot their result holds.
        var waiting: [String: (count: Int, token: Token)] = [:]
        /// Slots whose token is alive: results being made, and work whose requests all left
        /// but that still runs.
        var taken = 0
    }
    private let state = Mutex(State())
    private let limit: Int

    /// Slots for at most `limit` results at once.
    init(limit: Int) { self.limit = limit }

    /// Slots taken now (for tests and metrics).
    var taken: Int { state.withLock { $0.taken } }

    /// Counts a request for `key` as waiting, and returns its result's slot: the one already
    /// taken for `key` while other requests wait for it (the request joins that result), else
    /// a new one while fewer than the limit are taken; `nil` when none is free. Pair a token
    /// with one ``leave(_:)``.
    func enter(_ key: String) -> Token? {
        state.withLock { s in
            if let entry = s.waiting[key] {
                s.waiting[key] = (entry.count + 1, entry.token)
                return entry.token
            }
            guard s.taken < limit else { return nil }
            s.taken += 1
            let token = Token(self)
            s.waiting[key] = (1, token)
            return token
        }
    }

    /// Ends a request's wait for `key`. After the last one, the slot stays taken while the
    /// work's tasks hold its token.
    func leave(_ key: String) {
        // The entry leaves the lock before it is dropped: dropping the last reference to a
        // token takes the lock again.
        let removed: (count: Int, token: Token)? = state.withLock { s in
            guard let entry = s.waiting[key] else { return nil }
            if entry.count > 1 {
                s.waiting[key] = (entry.count - 1, entry.token)
                return nil
            }
            return s.waiting.removeValue(forKey: key)
        }
        _ = removed
    }
}

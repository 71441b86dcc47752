import Foundation
import PictorCore

extension DiskCache {
    /// Why entries are evicted.
    enum EvictionReason { case size, age }

    /// Removes entries not used for ``Configuration/maxAge`` seconds, except pinned ones
    /// (``pin(_:)``); waits for staged writes first. Returns the number removed.
    ///
    /// - Complexity: proportional to the entries removed (an index range scan).
    @discardableResult
    public func removeExpired() -> Int {
        queue.sync {
            drain()
            return writer.withLock { resources in
                guard let resources, !isReadOnly else { return 0 }
                return expire(resources.index)
            }
        }
    }

    /// Trims the cache down to ``Configuration/trimRatio`` × ``Configuration/sizeLimit`` when it
    /// is over the limit, least recently used first; waits for staged writes first. Returns the
    /// number of entries removed. Pinned entries (``pin(_:)``) are never removed but their
    /// bytes count, so the others are trimmed harder; when pinned bytes alone exceed the limit,
    /// every unpinned entry goes and one warning says so. The cache also does this by itself after writes and on its
    /// sweep timer.
    ///
    /// - Complexity: proportional to the entries removed.
    @discardableResult
    public func trim() -> Int {
        queue.sync {
            drain()
            return writer.withLock { resources in
                guard let resources, !isReadOnly else { return 0 }
                return trimToLimit(resources.index)
            }
        }
    }

    /// The total size of the entry files, in bytes (envelopes when encrypted), after staged
    /// writes are done. O(1): the index keeps a running total.
    public var totalSize: Int { totals().size }

    /// The number of entries, after staged writes are done. O(1).
    public var count: Int { totals().count }

    private func totals() -> (size: Int, count: Int) {
        queue.sync {
            drain()
            return writer.withLock { (try? $0?.index.totals()) ?? (0, 0) }
        }
    }

    /// Runs on ``queue``: expiry by age (unless `sizeOnly`) and the size trim.
    func enforceLimits(sizeOnly: Bool) {
        writer.withLock { resources in
            guard let resources, !isReadOnly else { return }
            if !sizeOnly { expire(resources.index) }
            trimToLimit(resources.index)
        }
    }

    /// Runs from `init`, before the cache is handed out: the sweep's age expiry, once, when the
    /// cache sweeps at all (a ``Configuration/maxAge`` and a ``Configuration/sweepInterval``).
    func removeExpiredAtOpen() {
        guard configuration.maxAge != nil, configuration.sweepInterval != nil else { return }
        queue.sync {
            writer.withLock { resources in
                guard let resources, !isReadOnly else { return }
                expire(resources.index)
            }
        }
    }

    /// The timer's work: record access times, expire, trim.
    func sweep() {
        drain()
        enforceLimits(sizeOnly: false)
    }

    @discardableResult
    private func expire(_ index: EntryIndex) -> Int {
        guard let maxAge = configuration.maxAge else { return 0 }
        let cutoff = configuration.now() - maxAge
        var removed = 0
        while let victims = try? index.leastRecentlyUsed(limit: 512, accessedBefore: cutoff), !victims.isEmpty {
            guard evict(victims.map(\.digest), from: index) else { break }
            removed += victims.count
        }
        if removed > 0 { state.withLock { $0.statistics.evictedByAge += removed } }
        return removed
    }

    @discardableResult
    private func trimToLimit(_ index: EntryIndex) -> Int {
        guard var size = try? index.totals().size, size > configuration.sizeLimit else { return 0 }
        let target = Int((Double(configuration.sizeLimit) * configuration.trimRatio).rounded())
        var removed = 0
        while size > target {
            guard let candidates = try? index.leastRecentlyUsed(limit: 512), !candidates.isEmpty else { break }
            var victims: [String] = []
            for candidate in candidates where size > target {
                victims.append(candidate.digest)
                size -= candidate.size
            }
            guard evict(victims, from: index) else { break }
            removed += victims.count
        }
        if removed > 0 {
            state.withLock { $0.statistics.evictedBySize += removed }
            configuration.logger.log(.debug, "disk cache trimmed \(removed) entries")
        }
        // Only pinned entries are left over the target: they stay. Said once per instance,
        // when they alone exceed the limit (not merely the trim target).
        if size > target, let pinned = try? index.pinnedTotals(), pinned.size > configuration.sizeLimit {
            let first = state.withLock { s in
                defer { s.warnedPinnedOverLimit = true }
                return !s.warnedPinnedOverLimit
            }
            if first {
                configuration.logger.log(.warning, "disk cache: \(pinned.count) pinned entries hold \(pinned.size) bytes, "
                    + "more than the size limit of \(configuration.sizeLimit) bytes; they are kept (unpin some or raise the limit)")
            }
        }
        return removed
    }

    /// Deletes rows (recording intents), then files, then the intents. `false` on an index error.
    func evict(_ digests: [String], from index: EntryIndex) -> Bool {
        do {
            try index.connection.transaction { () throws(SQLiteError) in
                for digest in digests {
                    try index.addIntent(digest)
                    try index.delete(digest)
                }
            }
        } catch {
            configuration.logger.log(.warning, "disk cache eviction failed: \(error)")
            return false
        }
        for digest in digests { files.remove(digest) }
        try? index.connection.transaction { () throws(SQLiteError) in
            for digest in digests { try index.removeIntent(digest) }
        }
        return true
    }

    /// Deletes every row (as intents) and, after ``rotateKey(to:)``, records the new key
    /// setting, in one transaction; then deletes the files, then the intents. This is what moves
    /// the directory to the new key: the record never names a key whose entries are not all
    /// gone or going. A plain clear writes no record (one page less to write on a full disk,
    /// and it never overrides a setting another process recorded).
    func clearAll(_ resources: WriterResources) {
        let index = resources.index
        let keyCheck = KeyCheck(currentCipher)
        let rotated = keyCheck != resources.keyCheck
        func clearIndex() throws(SQLiteError) {
            try index.connection.transaction { () throws(SQLiteError) in
                try index.clearAllIntoIntents()
                if rotated { try index.setKeyCheck(keyCheck, replacing: true) }
            }
        }
        do {
            do {
                try clearIndex()
            } catch let error where error.isFull {
                // A full disk leaves no room for the intents: delete the entry files first to
                // free it, then record the clear. A crash in between leaves rows without files,
                // which read as misses and are dropped on the next open.
                for file in files.scanEntries() { files.remove(file.digest) }
                try clearIndex()
            }
            resources.keyCheck = keyCheck
            try index.replayIntents(files: files)
            // Damaged indexes kept for inspection list the entries that are now gone.
            for path in Self.damagedIndexes(beside: indexPath) + [indexPath + ".corrupt"] {
                unlink(path)
                unlink(path + "-wal")
            }
        } catch {
            configuration.logger.log(.warning, "disk cache clear failed: \(error)")
        }
    }

    /// Starts the sweep timer on the writer queue.
    func startTimer() {
        guard let interval = configuration.sweepInterval else { return }
        let queue = self.queue
        timer.withLock { slot in
            // Built inside the lock: a timer source is not Sendable.
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(1))
            source.setEventHandler { [weak self] in self?.sweep() }
            source.resume()
            slot = source
        }
    }
}

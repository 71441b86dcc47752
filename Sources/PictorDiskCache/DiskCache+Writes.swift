import Foundation
import PictorCore

extension DiskCache {
    /// Stores `data` for `key`, replacing any previous entry; returns at once.
    ///
    /// The bytes are readable through ``entry(for:)`` immediately; a background queue writes
    /// them (temporary file + rename, then the index row). When more than
    /// ``Configuration/maxPendingBytes`` are staged, the call waits for the writer. A failed
    /// write (disk full) is counted in ``Statistics/writeFailures`` and the entry is absent.
    ///
    /// - Parameters:
    ///   - data: the bytes to store, as they are.
    ///   - key: the cache key; only its digest reaches the disk.
    ///   - metadata: validators, freshness, format and user data, stored in the entry file (sealed
    ///     with it when encrypted).
    public func store(_ data: Data, for key: String, metadata: DataCacheMetadata) {
        store(data, for: key, metadata: metadata, source: nil)
    }

    /// Stores `data` for `key`, made from the entry of `source` (a processed variant or an
    /// encoded result and its original), so that ``removeEntry(for:includingVariants:)`` of
    /// `source` removes it too. Otherwise as ``store(_:for:metadata:)``.
    ///
    /// The index records the source's digest (its entry's file name: keyed when encrypted),
    /// never the key itself. The relation lives in the index only: an index rebuilt from the
    /// entry files has none.
    ///
    /// - Parameters:
    ///   - data: the bytes to store, as they are.
    ///   - key: the cache key; only its digest reaches the disk.
    ///   - metadata: as for ``store(_:for:metadata:)``.
    ///   - source: the cache key of the entry `data` was made from; `nil` for an original.
    public func store(_ data: Data, for key: String, metadata: DataCacheMetadata, source: String?) {
        guard let digest = digest(for: key) else { return }
        let sourceDigest = source.flatMap { self.digest(for: $0) }
        let created = configuration.now()
        let binding = KeyBinding(key: key)
        let (needsDrain, overLimit) = state.withLock { s -> (Bool, Bool) in
            guard s.acceptsWrites else { return (false, false) }
            let operation = PendingOperation.Kind.store(data, metadata, created: created, binding: binding, source: sourceDigest)
            return (s.stage(operation, for: digest), s.pendingBytes > configuration.maxPendingBytes)
        }
        if needsDrain { scheduleDrain() }
        if overLimit { flush() }
    }

    /// Replaces the metadata of the entry for `key` (after an HTTP 304); no-op on a miss.
    ///
    /// - Parameters:
    ///   - metadata: the new metadata.
    ///   - key: the cache key.
    public func updateMetadata(_ metadata: DataCacheMetadata, for key: String) {
        guard let digest = digest(for: key) else { return }
        let binding = KeyBinding(key: key)
        let needsDrain = state.withLock { s -> Bool in
            guard s.acceptsWrites else { return false }
            switch s.operations[digest]?.kind {
            case .store(let data, _, let created, let staged, let source):
                // Another key's bytes under the same name (a colliding key hashing) keep theirs.
                guard staged == binding else { return false }
                return s.stage(.store(data, metadata, created: created, binding: binding, source: source), for: digest)
            case .remove: return false
            case .metadata, nil: return s.stage(.metadata(metadata, binding: binding), for: digest)
            }
        }
        if needsDrain { scheduleDrain() }
    }

    /// Removes the entry for `key`, if any; a read right after misses.
    ///
    /// - Parameter key: the cache key.
    public func removeData(for key: String) {
        guard let digest = digest(for: key) else { return }
        let needsDrain = state.withLock { s in s.acceptsWrites ? s.stage(.remove, for: digest) : false }
        if needsDrain { scheduleDrain() }
    }

    /// Removes every entry; reads miss at once, and the clear survives a restart even if the
    /// process dies before the files are gone (they are listed as intents first). Damaged
    /// indexes kept for inspection (`index.sqlite.damaged-…`) are deleted too.
    ///
    /// - Complexity: O(n) in the entries, from the index (no directory scan).
    public func removeAll() {
        let needsDrain = state.withLock { s -> Bool in
            guard s.acceptsWrites else { return false }
            s.operations.removeAll()
            s.pendingBytes = 0
            s.accesses.removeAll()
            s.pendingClears += 1
            return s.scheduleDrain()
        }
        if needsDrain { scheduleDrain() }
    }

    /// Waits until every staged write, removal and access time is on disk and in the index.
    /// Call it before a process exits (the CLI does) and in tests.
    public func flush() {
        queue.sync { drain() }
    }

    func scheduleDrain() {
        // Weak: a queued drain must not keep the cache (its directory lock and index connection)
        // alive after its last user let go; `deinit` drains what is still staged instead.
        queue.async { [weak self] in self?.drain() }
    }

    /// Runs on ``queue``: performs staged work until none is left.
    func drain() {
        while let batch = state.withLock({ $0.takeBatch() }) {
            let outcome = writer.withLock { resources -> BatchOutcome in
                guard let resources else { return BatchOutcome() }
                return perform(batch, with: resources)
            }
            state.withLock { s in
                s.finish(batch)
                s.statistics.writes += outcome.writes
                s.statistics.bytesWritten += outcome.bytesWritten
                s.statistics.writeFailures += outcome.failures
            }
            if outcome.readOnly { enterReadOnly(reason: "the cache directory became read-only") }
            if outcome.keyChanged {
                disable(reason: "another process switched this cache to another key; this instance stops writing so that entries under two keys never mix")
            }
            if outcome.corruptIndex { rebuildIndex() }
            if outcome.crossedLimit { enforceLimits(sizeOnly: true) }
        }
    }

    struct BatchOutcome {
        var writes = 0
        var bytesWritten = 0
        var failures = 0
        var readOnly = false
        var crossedLimit = false
        var corruptIndex = false
        /// The index records another key setting than this instance writes under.
        var keyChanged = false
    }

    private func perform(_ batch: WriterBatch, with resources: WriterResources) -> BatchOutcome {
        var outcome = BatchOutcome()
        // Only a write recreates a deleted directory; a clear, removal or access time does not.
        if batch.operations.contains(where: { if case .remove = $0.operation.kind { false } else { true } }) {
            reopenIfDirectoryVanished(resources)
        }
        let index = resources.index
        if batch.clears > 0 { clearAll(resources) }

        // 1. Intents for every file about to change, committed before any file is touched; not
        //    when another process recorded another key setting (its entries and ours must not
        //    mix). Checked again when the rows are committed.
        do {
            if !batch.operations.isEmpty {
                let keyChanged = try index.connection.transaction { () throws(SQLiteError) -> Bool in
                    guard try index.keyCheck() == resources.keyCheck else { return true }
                    for item in batch.operations { try index.addIntent(item.digest) }
                    return false
                }
                if keyChanged {
                    outcome.failures = batch.operations.count
                    outcome.keyChanged = true
                    return outcome
                }
            }
        } catch {
            outcome.failures = batch.operations.count
            outcome.corruptIndex = error.isCorruption
            noteFailure(error.description, readOnly: error.isReadOnly, outcome: &outcome)
            return outcome
        }

        // 2. Files: encode (+ seal), write to tmp/, rename; unlink removals.
        var rows: [IndexRow] = []
        var removals: [String] = []
        let now = configuration.now()
        for (digest, operation) in batch.operations {
            guard let (payload, metadata, created, binding, source) = contents(of: operation.kind, digest: digest) else {
                if case .remove = operation.kind {
                    files.remove(digest)
                    removals.append(digest)
                }
                continue
            }
            let trailer = EntryContainer.trailer(payloadCount: payload.count, metadata: metadata, created: created, binding: binding)
            var parts = [payload, trailer]
            let cipher = currentCipher
            if let cipher {
                guard let sealed = try? cipher.seal(payload + trailer, associatedData: Data(digest.utf8)) else {
                    outcome.failures += 1
                    files.remove(digest)
                    removals.append(digest)
                    continue
                }
                parts = [sealed]
            }
            let size = parts.reduce(0) { $0 + $1.count }
            switch files.write(parts, to: digest, fsync: configuration.durability == .fsync) {
            case .success:
                rows.append(IndexRow(digest: digest, size: size, created: created, accessed: now,
                                     metadata: IndexRow.indexed(metadata, payload: payload, encrypted: cipher != nil),
                                     source: source.digest, replacesSource: source.replaces))
            case .failure(.posix(let code)):
                outcome.failures += 1
                // Never leave an older version readable after a store that did not land.
                files.remove(digest)
                removals.append(digest)
                noteFailure("writing entry \(digest) failed: \(String(cString: strerror(code)))",
                            readOnly: code == EROFS || code == EACCES || code == EPERM, outcome: &outcome)
            }
        }

        // 3. Rows and access times; intents dropped in the same transaction.
        do {
            let keyChanged = try index.connection.transaction { () throws(SQLiteError) -> Bool in
                var keyChanged = false
                if !rows.isEmpty { keyChanged = try index.keyCheck() != resources.keyCheck }
                if !keyChanged { for row in rows { try index.upsert(row) } }
                for digest in removals { try index.delete(digest) }
                for (digest, time) in batch.accesses { try index.touch(digest, at: time) }
                for item in batch.operations { try index.removeIntent(item.digest) }
                return keyChanged
            }
            if keyChanged {
                for row in rows { files.remove(row.digest) }
                outcome.failures += rows.count
                outcome.keyChanged = true
                return outcome
            }
            outcome.writes = rows.count
            outcome.bytesWritten = rows.reduce(0) { $0 + $1.size }
            if !rows.isEmpty, let totals = try? index.totals(), totals.size > configuration.sizeLimit {
                outcome.crossedLimit = true
            }
        } catch {
            // The files are in place but unindexed: remove them (their intents stay, so a crash
            // now is still recovered on the next open).
            for row in rows { files.remove(row.digest) }
            outcome.failures += rows.count
            outcome.corruptIndex = error.isCorruption
            noteFailure(error.description, readOnly: error.isReadOnly, outcome: &outcome)
        }
        return outcome
    }

    /// What to write for a staged change: the new bytes for a store; the current bytes with new
    /// metadata for a metadata update (`nil` when the entry is gone or its file is bound to
    /// another key, which the next read removes); `nil` for a removal. With them, the source
    /// digest the row records, and whether it replaces the row's (a metadata update keeps it).
    private func contents(
        of kind: PendingOperation.Kind, digest: String
    ) -> (Data, DataCacheMetadata, Double, KeyBinding, (digest: String?, replaces: Bool))? {
        switch kind {
        case .store(let data, let metadata, let created, let binding, let source):
            return (data, metadata, created, binding, (source, true))
        case .metadata(let metadata, let binding):
            guard case .data(let file) = files.read(digest), let current = decode(file, digest: digest),
                  current.binding == binding else { return nil }
            return (current.payload, metadata, current.created, binding, (nil, false))
        case .remove:
            return nil
        }
    }

    private func noteFailure(_ message: String, readOnly: Bool, outcome: inout BatchOutcome) {
        if readOnly {
            outcome.readOnly = true
            return
        }
        let first = state.withLock { s in
            defer { s.warnedWriteFailure = true }
            return !s.warnedWriteFailure
        }
        configuration.logger.log(first ? .warning : .debug, "disk cache write failed (further failures are logged at debug level): \(message)")
    }

    /// Turns the cache off after the directory turned out read-only; logs one warning.
    func disable(reason: String) {
        let first = state.withLock { s -> Bool in
            defer { s.disabled = true; s.operations.removeAll(); s.pendingBytes = 0; s.accesses.removeAll() }
            return !s.disabled
        }
        if first { configuration.logger.log(.warning, "disk cache disabled: \(reason) (\(files.directory))") }
    }
}

import Foundation
import PictorCore

/// A change staged for the writer queue; readers see it at once (read-your-writes).
struct PendingOperation: Sendable {
    enum Kind: Sendable {
        /// Write these plaintext bytes, bound to the key of `binding`; `created` is when the
        /// store was called; `source` is the digest of the entry they were made from, if any.
        case store(Data, DataCacheMetadata, created: Double, binding: KeyBinding, source: String?)
        /// Remove the entry.
        case remove
        /// Replace the metadata of an existing entry, if its file is bound to the key of `binding`.
        case metadata(DataCacheMetadata, binding: KeyBinding)
    }

    var kind: Kind
    /// Increases with every staged change; the writer drops an operation after committing it
    /// only when no newer one replaced it meanwhile.
    var sequence: UInt64
    /// Handed to the writer already (still visible to readers until committed).
    var taken = false

    /// Bytes held in memory by this operation.
    var byteCount: Int {
        if case .store(let data, _, _, _, _) = kind { return data.count }
        return 0
    }
}

/// A unit of work taken by the writer queue in one pass.
struct WriterBatch {
    /// How many `removeAll()` calls to perform first (they collapse into one clear).
    var clears = 0
    /// Changes by digest, in no particular order (one per digest).
    var operations: [(digest: String, operation: PendingOperation)] = []
    /// Last-access times to record, seconds since 1970.
    var accesses: [String: Double] = [:]

    var isEmpty: Bool { clears == 0 && operations.isEmpty && accesses.isEmpty }
}

/// Everything a ``DiskCache`` guards with its state lock.
struct CacheState: Sendable {
    var operations: [String: PendingOperation] = [:]
    var nextSequence: UInt64 = 0
    /// `removeAll()` calls the writer has not finished; while positive, index rows are invisible.
    var pendingClears = 0
    /// Batched last-access times (digest → seconds since 1970).
    var accesses: [String: Double] = [:]
    /// When this process last recorded each entry's access (bounded; see ``recordAccess``).
    var recordedAccesses: [String: Double] = [:]
    /// Whether a drain is queued or running on the writer queue.
    var drainScheduled = false
    /// Bytes of staged stores.
    var pendingBytes = 0
    var statistics = DiskCache.Statistics()
    /// Set once when the cache must stop (another process switched the key setting, or the
    /// directory cannot even be read); every call is then a miss or a no-op.
    var disabled = false
    /// Set once when the directory turns out not writable: reads go on, writes are dropped.
    var readOnly = false
    /// Whether stores, removals and clears are staged (neither disabled nor read-only).
    var acceptsWrites: Bool { !disabled && !readOnly }
    /// Whether a write failure was already logged as a warning (later ones go to `.debug`).
    var warnedWriteFailure = false
    /// Whether pinned entries over the size limit were already logged as a warning.
    var warnedPinnedOverLimit = false

    /// Stages `kind` for `digest`; returns whether the caller must schedule a drain.
    mutating func stage(_ kind: PendingOperation.Kind, for digest: String) -> Bool {
        if let previous = operations[digest] { pendingBytes -= previous.byteCount }
        nextSequence += 1
        let operation = PendingOperation(kind: kind, sequence: nextSequence)
        operations[digest] = operation
        pendingBytes += operation.byteCount
        return scheduleDrain()
    }

    /// Buffers an access time unless this entry's was recorded less than `resolution` seconds
    /// ago; `true` when buffered.
    mutating func recordAccess(_ digest: String, at now: Double, resolution: Double) -> Bool {
        if let last = recordedAccesses[digest], now - last < resolution, now >= last { return false }
        if recordedAccesses.count >= 65_536 { recordedAccesses.removeAll(keepingCapacity: true) }
        recordedAccesses[digest] = now
        accesses[digest] = now
        return true
    }

    /// Marks a drain as scheduled; `true` when none was.
    mutating func scheduleDrain() -> Bool {
        if drainScheduled { return false }
        drainScheduled = true
        return true
    }

    /// Takes the work not yet handed to the writer; clears `drainScheduled` when there is none.
    mutating func takeBatch() -> WriterBatch? {
        var batch = WriterBatch(clears: pendingClears)
        for (digest, operation) in operations where !operation.taken {
            batch.operations.append((digest, operation))
            operations[digest]?.taken = true
        }
        swap(&batch.accesses, &accesses)
        if batch.isEmpty {
            drainScheduled = false
            return nil
        }
        return batch
    }

    /// Forgets the operations of a finished batch (unless replaced since) and its clears.
    mutating func finish(_ batch: WriterBatch) {
        pendingClears -= batch.clears
        for (digest, operation) in batch.operations where operations[digest]?.sequence == operation.sequence {
            operations[digest] = nil
            pendingBytes -= operation.byteCount
        }
    }
}

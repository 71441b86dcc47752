import Foundation
import PictorCore

/// Entries made from other entries, and pins: what a source's removal takes with it, and what the
/// limits never take.
extension DiskCache {
    /// Removes the entry for `key` and, with `includingVariants`, every entry stored as made
    /// from it (``store(_:for:metadata:source:)``: the pipeline's processed variants and encoded
    /// results of that original). Waits for staged writes first; a read right after misses.
    ///
    /// Crash-safe as evictions are: the rows become intents in one transaction before any file
    /// is unlinked, so an interrupted removal is finished when the cache next opens. A pin on a
    /// removed entry goes with it. Nothing is removed from a read-only or disabled cache.
    ///
    /// - Parameters:
    ///   - key: the source's cache key (the pipeline's data key: by default the image URL).
    ///   - includingVariants: `true` (the default) removes what was made from the source too;
    ///     `false` removes the source's entry alone, as ``removeData(for:)`` does.
    /// - Returns: the number of entries removed (0 when there were none).
    /// - Complexity: an index lookup of the source's variants, then one unlink per entry.
    @discardableResult
    public func removeEntry(for key: String, includingVariants: Bool = true) -> Int {
        guard let digest = digest(for: key) else { return 0 }
        return queue.sync {
            drain()
            return writer.withLock { resources -> Int in
                guard let resources, isEnabled, !isReadOnly else { return 0 }
                let index = resources.index
                var victims: [String] = []
                do {
                    if try index.contains(digest) { victims.append(digest) }
                    if includingVariants { victims += try index.digests(madeFrom: digest).filter { $0 != digest } }
                } catch {
                    configuration.logger.log(.warning, "disk cache removal failed: \(error)")
                    return 0
                }
                guard !victims.isEmpty, evict(victims, from: index) else { return 0 }
                return victims.count
            }
        }
    }

    /// Pins the entry for `key`: the size limit and the age limit never evict it (``trim()``,
    /// ``removeExpired()``, the sweep and the removal at open skip it). Its bytes still count
    /// against ``Configuration/sizeLimit``, so other entries are trimmed harder; when pinned
    /// bytes alone exceed the limit, they are kept and one warning says so. Waits for staged
    /// writes first, so an entry just stored can be pinned.
    ///
    /// A pin lasts until ``unpin(_:)``, the entry's removal (``removeData(for:)``,
    /// ``removeEntry(for:includingVariants:)``, ``removeAll()``, a key rotation, a failed read)
    /// or a rebuild of the index (it lives in the index only). Storing the key again keeps it.
    ///
    /// - Parameter key: the entry's cache key.
    /// - Throws: ``DiskCacheError/noEntry`` when the cache holds no entry for `key`;
    ///   ``DiskCacheError/notWritable(path:)`` when the cache is read-only or disabled;
    ///   ``DiskCacheError/index(operation:code:message:)`` when SQLite fails.
    public func pin(_ key: String) throws(DiskCacheError) {
        try setPinned(true, key)
    }

    /// Removes the pin of the entry for `key` (see ``pin(_:)``); the limits may evict it again.
    /// Unpinning an entry that is not pinned changes nothing.
    ///
    /// - Parameter key: the entry's cache key.
    /// - Throws: as ``pin(_:)``.
    public func unpin(_ key: String) throws(DiskCacheError) {
        try setPinned(false, key)
    }

    /// The number of pinned entries, after staged writes are done.
    ///
    /// - Complexity: proportional to the pinned entries (a covering partial index).
    public var pinnedCount: Int { pinnedTotals().count }

    /// The total size of the pinned entries' files in bytes (envelopes when encrypted), after
    /// staged writes are done; part of ``totalSize``.
    ///
    /// - Complexity: proportional to the pinned entries.
    public var pinnedSize: Int { pinnedTotals().size }

    private func pinnedTotals() -> (size: Int, count: Int) {
        queue.sync {
            drain()
            return writer.withLock { (try? $0?.index.pinnedTotals()) ?? (0, 0) }
        }
    }

    private func setPinned(_ pinned: Bool, _ key: String) throws(DiskCacheError) {
        guard let digest = digest(for: key) else { throw .noEntry }
        let result = queue.sync { () -> Result<Void, DiskCacheError> in
            drain()
            // The file must be this key's (a colliding name is another entry).
            guard contains(key) else { return .failure(.noEntry) }
            return writer.withLock { resources -> Result<Void, DiskCacheError> in
                guard let resources, isEnabled, !isReadOnly else { return .failure(.notWritable(path: files.directory)) }
                do throws(SQLiteError) {
                    return try resources.index.setPinned(pinned, digest) ? .success(()) : .failure(.noEntry)
                } catch {
                    return .failure(DiskCacheError(error))
                }
            }
        }
        try result.get()
    }
}

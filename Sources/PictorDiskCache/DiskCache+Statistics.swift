import Foundation

extension DiskCache {
    /// Counters since the cache was created (this process only).
    public struct Statistics: Sendable, Hashable {
        /// Reads that returned an entry (including staged writes not yet on disk).
        public var hits = 0
        /// Reads that returned `nil`.
        public var misses = 0
        /// Bytes returned by hits (plaintext bytes when encrypted).
        public var bytesRead = 0
        /// Bytes of entry files written (envelopes when encrypted).
        public var bytesWritten = 0
        /// Entries written to disk.
        public var writes = 0
        /// Writes that failed (disk full, I/O error, read-only directory); the entry is then
        /// simply absent.
        public var writeFailures = 0
        /// Entries removed by the size limit (LRU trim).
        public var evictedBySize = 0
        /// Entries removed because they were not used for ``Configuration/maxAge`` seconds.
        public var evictedByAge = 0
        /// Entries whose file was missing or unreadable when read or verified; their rows were
        /// dropped.
        public var missingFilesRemoved = 0
        /// Entries that failed to open (wrong key, tampering, truncation), were bound to
        /// another key than the one read (a file moved or copied onto another entry's name, or
        /// written before entries recorded their key), or failed ``DiskCache/verify()``, and
        /// were removed.
        public var corruptEntriesRemoved = 0

        /// Entries removed when the cache opened because they were written under another key
        /// setting and ``Configuration/keyMismatchPolicy`` is
        /// ``KeyMismatchPolicy/removeEntries`` (counted from the entry files, and the index rows
        /// without one); `0` otherwise.
        public var otherKeyEntriesRemoved = 0

        /// All evictions by the limits (size and age).
        public var evictions: Int { evictedBySize + evictedByAge }

        /// Creates zeroed statistics.
        public init() {}
    }
}

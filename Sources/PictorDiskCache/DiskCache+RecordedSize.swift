import Foundation

extension DiskCache {
    /// The bytes of entry files that the index in `directory` records: what ``totalSize``
    /// would say once the cache is opened there, read before opening it, for instance to size
    /// the cache's limit from the space it may use (the free space plus what it holds).
    ///
    /// Reads the index only, read-only: no lock is taken, no recovery runs, nothing is written,
    /// and an encrypted cache's total is read without its key (sizes are not secret). A write
    /// in flight in another process may or may not be counted.
    ///
    /// - Parameter directory: a cache directory (``Configuration/directory``).
    /// - Returns: the total in bytes (`0` for an index with no entries), or `nil` when
    ///   `directory` holds no index that this build can read (none yet, damaged, another
    ///   schema version, unreadable).
    public static func recordedSize(in directory: URL) -> Int? {
        var path = directory.standardizedFileURL.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let indexPath = path + "/index.sqlite"
        // Opening a missing file read-only fails anyway; this saves SQLite's attempt.
        guard access(indexPath, F_OK) == 0 else { return nil }
        do {
            let index = try EntryIndex(readOnlyPath: indexPath)
            try index.validateSchema()
            return try index.totals().size
        } catch {
            return nil
        }
    }
}

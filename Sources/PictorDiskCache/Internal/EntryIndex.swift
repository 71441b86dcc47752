import Foundation
import PictorCore
internal import CSQLite

/// One row of the index.
struct IndexRow: Sendable, Hashable {
    /// The key digest, which is also the entry's file name.
    var digest: String
    /// The byte size of the entry file (the envelope when encrypted).
    var size: Int
    /// When the entry was first stored, seconds since 1970.
    var created: Double
    /// When the entry was last read or written, seconds since 1970.
    var accessed: Double
    /// What the index keeps of the entry's metadata (see ``indexed(_:payload:encrypted:)``).
    var metadata: DataCacheMetadata
    /// The digest of the entry this one was made from (a variant's original), or `nil`.
    var source: String? = nil
    /// Whether an upsert of this row sets ``source``; `false` for a metadata update, which
    /// keeps the source the row has.
    var replacesSource = true
    /// Whether the entry is pinned (read only: upserts keep the row's pin).
    var pinned = false

    /// The metadata kept in the index. Reads take the metadata from the entry file; the index
    /// copy serves listing and tools. For an encrypted cache it keeps only the expiry: the
    /// format tells what kind of picture was viewed, ETags are often content hashes and
    /// `userInfo` is the caller's, so they stay inside the sealed file, where nobody without the
    /// key can read them or test a guess against them (sizes and dates are visible in the file
    /// system anyway). For a plain cache a missing format is sniffed from `payload`'s first
    /// bytes, so listings show it (the file keeps the caller's metadata as given).
    static func indexed(_ m: DataCacheMetadata, payload: Data, encrypted: Bool) -> DataCacheMetadata {
        if encrypted { return DataCacheMetadata(expiresAt: m.expiresAt) }
        var m = m
        if m.format == nil { m.format = ImageFormat.sniff(payload.prefix(EntryFiles.sniffPrefixCount)) }
        return m
    }
}

/// The SQLite index of a disk cache: schema, migrations and every query the cache runs.
///
/// Used by one owner at a time (see ``SQLiteConnection``).
final class EntryIndex {
    let connection: SQLiteConnection
    /// The schema version found when opening (0 for a new database).
    private(set) var foundVersion: Int64 = 0

    /// Opens the index at `path` in WAL mode and migrates it.
    ///
    /// - Parameter synchronousFull: `PRAGMA synchronous = FULL` (else `NORMAL`, which in WAL
    ///   mode is consistent after a crash but may lose the last commits on power loss).
    /// - Parameter pageLimit: `PRAGMA max_page_count`, a full disk for tests
    ///   (`DiskCache.DiskFull`); `nil` leaves SQLite's default.
    init(path: String, synchronousFull: Bool, pageLimit: Int? = nil) throws(SQLiteError) {
        connection = try SQLiteConnection(path: path)
        if let pageLimit { try connection.execute("PRAGMA max_page_count = \(pageLimit)") }
        foundVersion = try userVersion()
        try setJournalModeWAL()
        try connection.execute("PRAGMA synchronous = \(synchronousFull ? "FULL" : "NORMAL")")
        foundVersion = try migrate()
    }

    /// Opens the index at `path` for reading only (a read-only directory): no migration, no
    /// journal change.
    ///
    /// - Throws: `SQLITE_MISMATCH` unless the schema is this build's version.
    init(readOnlyPath path: String) throws(SQLiteError) {
        connection = try SQLiteConnection(readOnlyPath: path)
        foundVersion = try userVersion()
        guard foundVersion == Self.schemaVersion else {
            throw SQLiteError(operation: "open", code: SQLITE_MISMATCH,
                              message: "index schema version \(foundVersion), this build reads \(Self.schemaVersion)")
        }
    }

    private func setJournalModeWAL() throws(SQLiteError) {
        // Switching to WAL needs a moment of exclusive access; another process opening at the
        // same time can make it return SQLITE_BUSY without calling the busy handler.
        var attempts = 0
        while true {
            do {
                try connection.execute("PRAGMA journal_mode = WAL")
                return
            } catch where error.primaryCode == SQLITE_BUSY && attempts < 200 {
                attempts += 1
                usleep(5_000)
            }
        }
    }

    private static let columns =
        "digest, size, created, accessed, expires, etag, last_modified, cache_control, format, user_info, source"
    private static let selectedColumns = columns + ", pinned"

    // MARK: Entries

    func row(for digest: String) throws(SQLiteError) -> IndexRow? {
        let statement = try connection.statement("SELECT \(Self.selectedColumns) FROM entries WHERE digest = ?")
        defer { statement.finish() }
        try statement.bind(.text(digest))
        return try statement.step() ? Self.row(statement) : nil
    }

    func contains(_ digest: String) throws(SQLiteError) -> Bool {
        let statement = try connection.statement("SELECT 1 FROM entries WHERE digest = ?")
        defer { statement.finish() }
        try statement.bind(.text(digest))
        return try statement.step()
    }

    func upsert(_ row: IndexRow) throws(SQLiteError) {
        let statement = try connection.statement("""
            INSERT INTO entries(\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(digest) DO UPDATE SET size = excluded.size, created = excluded.created,
                accessed = excluded.accessed, expires = excluded.expires, etag = excluded.etag,
                last_modified = excluded.last_modified, cache_control = excluded.cache_control,
                format = excluded.format, user_info = excluded.user_info,
                source = CASE WHEN ? THEN excluded.source ELSE entries.source END
            """)
        let m = row.metadata
        try statement.bind([
            .text(row.digest), .integer(Int64(row.size)), .real(row.created), .real(row.accessed),
            .realOrNull(m.expiresAt?.timeIntervalSince1970), .textOrNull(m.etag), .textOrNull(m.lastModified),
            .textOrNull(m.cacheControl), .textOrNull(m.format?.rawValue), .blobOrNull(m.userInfo),
            .textOrNull(row.source), .integer(row.replacesSource ? 1 : 0),
        ])
        try statement.run()
    }

    func delete(_ digest: String) throws(SQLiteError) {
        let statement = try connection.statement("DELETE FROM entries WHERE digest = ?")
        try statement.bind(.text(digest))
        try statement.run()
    }

    /// Moves the last-access time forward (never back: another process may have read later).
    func touch(_ digest: String, at time: Double) throws(SQLiteError) {
        let statement = try connection.statement("UPDATE entries SET accessed = ? WHERE digest = ? AND accessed < ?")
        try statement.bind(.real(time), .text(digest), .real(time))
        try statement.run()
    }

    /// Total bytes and entry count, O(1) (kept by triggers).
    func totals() throws(SQLiteError) -> (size: Int, count: Int) {
        let statement = try connection.statement("SELECT size, count FROM totals WHERE id = 1")
        defer { statement.finish() }
        guard try statement.step() else { return (0, 0) }
        return (Int(statement.int(0)), Int(statement.int(1)))
    }

    /// Up to `limit` unpinned entries, least recently used first, optionally only those last
    /// used before `cutoff`: the eviction candidates. Cost is proportional to `limit` (a range
    /// scan of the partial index of unpinned entries).
    func leastRecentlyUsed(limit: Int, accessedBefore cutoff: Double? = nil) throws(SQLiteError) -> [(digest: String, size: Int)] {
        let statement = try connection.statement(
            "SELECT digest, size FROM entries WHERE pinned = 0 AND accessed < ? ORDER BY accessed ASC LIMIT ?")
        defer { statement.finish() }
        try statement.bind(.real(cutoff ?? .infinity), .integer(Int64(limit)))
        var result: [(String, Int)] = []
        while try statement.step() { result.append((statement.text(0) ?? "", Int(statement.int(1)))) }
        return result
    }

    /// The digests of the entries made from the entry `source` (an index lookup).
    func digests(madeFrom source: String) throws(SQLiteError) -> [String] {
        let statement = try connection.statement("SELECT digest FROM entries WHERE source = ?")
        defer { statement.finish() }
        try statement.bind(.text(source))
        var result: [String] = []
        while try statement.step() { if let d = statement.text(0) { result.append(d) } }
        return result
    }

    /// Sets or clears the pin of the entry `digest`; `false` when there is no such row.
    func setPinned(_ pinned: Bool, _ digest: String) throws(SQLiteError) -> Bool {
        guard try contains(digest) else { return false }
        let statement = try connection.statement("UPDATE entries SET pinned = ? WHERE digest = ?")
        try statement.bind(.integer(pinned ? 1 : 0), .text(digest))
        try statement.run()
        return true
    }

    /// The count and total byte size of the pinned entries; proportional to their number (a
    /// covering partial index).
    func pinnedTotals() throws(SQLiteError) -> (size: Int, count: Int) {
        let statement = try connection.statement("SELECT COALESCE(SUM(size), 0), COUNT(*) FROM entries WHERE pinned = 1")
        defer { statement.finish() }
        guard try statement.step() else { return (0, 0) }
        return (Int(statement.int(0)), Int(statement.int(1)))
    }

    /// Calls `body` for up to `limit` rows (all when `nil`), least recently used first.
    func forEachRow(limit: Int? = nil, _ body: (IndexRow) -> Void) throws(SQLiteError) {
        let statement = try connection.statement("SELECT \(Self.selectedColumns) FROM entries ORDER BY accessed ASC LIMIT ?")
        defer { statement.finish() }
        try statement.bind(.integer(Int64(limit ?? -1)))
        while try statement.step() { body(Self.row(statement)) }
    }

    /// Turns every entry into an intent and deletes every row (the first half of a clear).
    func clearAllIntoIntents() throws(SQLiteError) {
        try connection.execute("INSERT OR IGNORE INTO intents(digest) SELECT digest FROM entries; DELETE FROM entries")
    }

    // MARK: Key check

    /// The recorded ``KeyCheck`` (`settings.key_check`), `nil` when none is recorded yet.
    func keyCheck() throws(SQLiteError) -> KeyCheck? {
        try setting("key_check").map(KeyCheck.init(recorded:))
    }

    /// The value of a `settings` row, `nil` when absent.
    func setting(_ name: String) throws(SQLiteError) -> String? {
        let statement = try connection.statement("SELECT value FROM settings WHERE name = ?")
        defer { statement.finish() }
        try statement.bind(.text(name))
        return try statement.step() ? statement.text(0) : nil
    }

    /// Sets (or, with `nil`, deletes) a `settings` row.
    func setSetting(_ name: String, _ value: String?) throws(SQLiteError) {
        let statement = try connection.statement(value == nil
            ? "DELETE FROM settings WHERE name = ?" : "INSERT OR REPLACE INTO settings(name, value) VALUES (?, ?)")
        if let value { try statement.bind(.text(name), .text(value)) } else { try statement.bind(.text(name)) }
        try statement.run()
    }

    /// Records `check`: only when none is recorded (`replacing: false`, so that of two
    /// processes creating a cache at once the first wins), or unconditionally. Recording an
    /// encrypted setting also erases any format a version-1 index kept (see
    /// ``IndexRow/indexed(_:payload:encrypted:)``). Call inside a transaction.
    func setKeyCheck(_ check: KeyCheck, replacing: Bool) throws(SQLiteError) {
        let verb = replacing ? "INSERT OR REPLACE" : "INSERT OR IGNORE"
        let statement = try connection.statement("\(verb) INTO settings(name, value) VALUES ('key_check', ?)")
        try statement.bind(.text(check.recorded))
        try statement.run()
        if check.isEncrypted {
            // secure_delete: the erased text is overwritten in the page, not left in free space.
            try connection.execute("PRAGMA secure_delete = ON")
            try connection.execute("UPDATE entries SET format = NULL WHERE format IS NOT NULL")
        }
    }

    // MARK: Intents

    /// Whether any interrupted write or removal waits to be replayed.
    func hasIntents() throws(SQLiteError) -> Bool {
        try !intents(limit: 1).isEmpty
    }

    func addIntent(_ digest: String) throws(SQLiteError) {
        let statement = try connection.statement("INSERT OR IGNORE INTO intents(digest) VALUES (?)")
        try statement.bind(.text(digest))
        try statement.run()
    }

    func removeIntent(_ digest: String) throws(SQLiteError) {
        let statement = try connection.statement("DELETE FROM intents WHERE digest = ?")
        try statement.bind(.text(digest))
        try statement.run()
    }

    /// Up to `limit` recorded intents (all when `nil`).
    func intents(limit: Int? = nil) throws(SQLiteError) -> [String] {
        let statement = try connection.statement("SELECT digest FROM intents LIMIT ?")
        defer { statement.finish() }
        try statement.bind(.integer(Int64(limit ?? -1)))
        var result: [String] = []
        while try statement.step() { if let d = statement.text(0) { result.append(d) } }
        return result
    }

    /// Removes the file and row of every recorded intent, in chunks of 1,024 so that a clear
    /// of a million entries never holds them all in memory. Returns how many were replayed.
    @discardableResult
    func replayIntents(files: EntryFiles) throws(SQLiteError) -> Int {
        var total = 0
        while true {
            let digests = try intents(limit: 1_024)
            if digests.isEmpty { return total }
            for digest in digests { files.remove(digest) }
            try connection.transaction { () throws(SQLiteError) in
                for digest in digests {
                    try delete(digest)
                    try removeIntent(digest)
                }
            }
            total += digests.count
        }
    }

    private static func row(_ s: Statement) -> IndexRow {
        IndexRow(
            digest: s.text(0) ?? "", size: Int(s.int(1)), created: s.real(2), accessed: s.real(3),
            metadata: DataCacheMetadata(
                etag: s.text(5), lastModified: s.text(6), cacheControl: s.text(7),
                expiresAt: s.optionalReal(4).map { Date(timeIntervalSince1970: $0) },
                format: s.text(8).flatMap(ImageFormat.init(rawValue:)), userInfo: s.blob(9)),
            source: s.text(10), pinned: s.int(11) != 0)
    }
}

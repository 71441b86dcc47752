import Foundation
internal import CSQLite

extension EntryIndex {
    /// The schema version this build writes (`PRAGMA user_version`).
    static let schemaVersion: Int64 = 3

    /// Migration steps: `migrations[n]` takes a database from version `n` to `n + 1`.
    ///
    /// Version 1:
    /// - `entries`: one row per entry, keyed by the key digest (never the key or a URL). Dates
    ///   are seconds since 1970 (`REAL`). `accessed` is indexed for LRU and age trimming.
    /// - `intents`: digests whose file is being written or removed. A row exists from before the
    ///   file is touched until after the entry row is committed, so recovery after a crash only
    ///   visits these (the entry is dropped: its file may be newer than its row).
    /// - `totals`: one row with the byte size and count of all entries, kept by triggers, so
    ///   ``EntryIndex/totals()`` is O(1).
    ///
    /// Version 2:
    /// - `settings`: name/value pairs; `key_check` records which key setting the entries are
    ///   written under (see ``KeyCheck``). A version-1 index has none; opening derives it from
    ///   the entry files (``DiskCache`` `resolveKeyCheck`).
    ///
    /// Version 3:
    /// - `entries.source`: for an entry made from another one (a processed variant, an encoded
    ///   result), the source entry's digest (its file name: never a key or a URL), so that
    ///   removing a source finds what was made from it (`entries_by_source`, partial: originals
    ///   have none). `NULL` for originals and for rows adopted from files.
    /// - `entries.pinned`: 1 for an entry the size and age limits never evict. Eviction scans
    ///   `entries_unpinned_by_access` (partial, so pinned rows cost nothing to skip); pinned
    ///   totals read the covering `entries_pinned`.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE entries(
                digest TEXT PRIMARY KEY NOT NULL,
                size INTEGER NOT NULL,
                created REAL NOT NULL,
                accessed REAL NOT NULL,
                expires REAL,
                etag TEXT,
                last_modified TEXT,
                cache_control TEXT,
                format TEXT,
                user_info BLOB
            ) WITHOUT ROWID
            """,
            "CREATE INDEX entries_by_access ON entries(accessed)",
            "CREATE TABLE intents(digest TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID",
            "CREATE TABLE totals(id INTEGER PRIMARY KEY CHECK (id = 1), size INTEGER NOT NULL, count INTEGER NOT NULL)",
            "INSERT INTO totals(id, size, count) VALUES (1, 0, 0)",
            """
            CREATE TRIGGER entries_inserted AFTER INSERT ON entries BEGIN
                UPDATE totals SET size = size + NEW.size, count = count + 1 WHERE id = 1;
            END
            """,
            """
            CREATE TRIGGER entries_deleted AFTER DELETE ON entries BEGIN
                UPDATE totals SET size = size - OLD.size, count = count - 1 WHERE id = 1;
            END
            """,
            """
            CREATE TRIGGER entries_resized AFTER UPDATE OF size ON entries BEGIN
                UPDATE totals SET size = size - OLD.size + NEW.size WHERE id = 1;
            END
            """,
        ],
        [
            "CREATE TABLE settings(name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID",
        ],
        [
            "ALTER TABLE entries ADD COLUMN source TEXT",
            "ALTER TABLE entries ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0",
            "CREATE INDEX entries_by_source ON entries(source) WHERE source IS NOT NULL",
            "CREATE INDEX entries_unpinned_by_access ON entries(accessed) WHERE pinned = 0",
            "CREATE INDEX entries_pinned ON entries(pinned, size) WHERE pinned = 1",
        ],
    ]

    /// Reads the schema version; fails with `SQLITE_NOTADB` on a file that is not a database.
    func userVersion() throws(SQLiteError) -> Int64 {
        let statement = try connection.statement("PRAGMA user_version")
        defer { statement.finish() }
        return try statement.step() ? statement.int(0) : 0
    }

    /// Brings the schema to ``schemaVersion``; returns the version found before.
    ///
    /// - Throws: `SQLITE_MISMATCH` when the file has a newer schema than this build knows.
    func migrate() throws(SQLiteError) -> Int64 {
        let found = try userVersion()
        if found > Self.schemaVersion { throw Self.newerSchema(found) }
        if found == Self.schemaVersion { return found }
        try connection.transaction { () throws(SQLiteError) in
            // Another process may have migrated between the read above and our lock.
            let current = try userVersion()
            if current > Self.schemaVersion { throw Self.newerSchema(current) }
            for version in Int(current)..<Int(Self.schemaVersion) {
                for sql in Self.migrations[version] { try connection.execute(sql) }
            }
            try connection.execute("PRAGMA user_version = \(Self.schemaVersion)")
        }
        return found
    }

    /// Fails with `SQLITE_CORRUPT` unless every table and column this build queries is there
    /// and the totals row exists: a file whose version number claims the current schema but
    /// whose tables do not match it (or whose pages are cut short) is damaged, not a setting
    /// to obey. One root page read per table; no scan.
    func validateSchema() throws(SQLiteError) {
        let probes = [
            "SELECT digest, size, created, accessed, expires, etag, last_modified, cache_control, format, user_info, source, pinned FROM entries LIMIT 1",
            "SELECT digest FROM intents LIMIT 1",
            "SELECT name, value FROM settings LIMIT 1",
        ]
        do throws(SQLiteError) {
            for sql in probes {
                let statement = try connection.statement(sql)
                defer { statement.finish() }
                _ = try statement.step()
            }
            let totals = try connection.statement("SELECT size, count FROM totals WHERE id = 1")
            defer { totals.finish() }
            guard try totals.step() else {
                throw SQLiteError(operation: "check schema", code: SQLITE_CORRUPT, message: "the totals row is missing")
            }
        } catch where !error.isCorruption && error.primaryCode == SQLITE_ERROR {
            throw SQLiteError(operation: "check schema", code: SQLITE_CORRUPT, message: error.message)
        }
    }

    private static func newerSchema(_ version: Int64) -> SQLiteError {
        SQLiteError(operation: "migrate", code: SQLITE_MISMATCH,
                    message: "index schema version \(version) is newer than \(schemaVersion)")
    }
}

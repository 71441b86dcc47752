import Foundation
internal import CSQLite

/// A failure reported by SQLite, with the message captured at the failure site.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// What was being done ("open", "prepare", "step", …).
    var operation: String
    /// The SQLite result code (primary code in the low byte).
    var code: Int32
    /// `sqlite3_errmsg` at the failure, or `sqlite3_errstr(code)` when no connection exists.
    var message: String
    /// The operating system's `errno` behind an I/O error (`sqlite3_system_errno`); `0` when
    /// none was recorded.
    var systemErrno: Int32 = 0

    /// The primary result code (`SQLITE_FULL`, `SQLITE_CORRUPT`, …) without extended bits.
    var primaryCode: Int32 { code & 0xFF }
    /// The database file is not a database or is damaged.
    var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }
    /// The disk (or quota) is full: `SQLITE_FULL`, or an I/O error whose cause is `ENOSPC` or
    /// `EDQUOT` (SQLite reports a `-shm` or `-wal` file it cannot extend as `SQLITE_IOERR`).
    var isFull: Bool {
        primaryCode == SQLITE_FULL || (primaryCode == SQLITE_IOERR && (systemErrno == ENOSPC || systemErrno == EDQUOT))
    }
    /// The file or directory cannot be written.
    var isReadOnly: Bool {
        primaryCode == SQLITE_READONLY || primaryCode == SQLITE_CANTOPEN || primaryCode == SQLITE_PERM
    }

    var description: String { "SQLite \(operation) failed (\(code)): \(message)" }
}

/// `SQLITE_TRANSIENT` is a cast macro Swift cannot import (linux-notes.md, SQLite).
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection with a cache of prepared statements.
///
/// Not thread-safe by itself: it is opened with `SQLITE_OPEN_NOMUTEX` and always used by one
/// owner at a time (inside a `Mutex`, or on the cache's serial writer queue).
final class SQLiteConnection {
    private let db: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    /// The database file path.
    let path: String

    /// Opens (creating if needed) the database at `path`, with a busy timeout in milliseconds so
    /// that several processes can share it.
    init(path: String, busyTimeoutMilliseconds: Int32 = 10_000) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        // Create the index owner-only, like the entry files (its -wal and -shm files take the
        // same mode): validators and access times are nobody else's business.
        if path != ":memory:", access(path, F_OK) != 0 {
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) }
        }
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            let systemErrno = handle.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(handle)
            throw SQLiteError(operation: "open", code: rc, message: message, systemErrno: systemErrno)
        }
        self.db = handle
        self.path = path
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    /// Opens the database at `path` read-only: `mode=ro` first, then `immutable=1`, which reads
    /// a WAL database on a read-only medium whose `-shm` file cannot be created (nothing can
    /// change the file there).
    init(readOnlyPath path: String, busyTimeoutMilliseconds: Int32 = 10_000) throws(SQLiteError) {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        var opened: OpaquePointer?
        var failure = SQLiteError(operation: "open", code: SQLITE_CANTOPEN, message: "cannot open \(path) read-only")
        for query in ["mode=ro", "immutable=1"] where opened == nil {
            var handle: OpaquePointer?
            let rc = sqlite3_open_v2("file:" + escaped + "?" + query, &handle,
                                     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
            // Opening is lazy: the first read is what fails when the WAL cannot be read.
            let probe = rc == SQLITE_OK ? sqlite3_exec(handle, "SELECT count(*) FROM sqlite_master", nil, nil, nil) : rc
            if probe == SQLITE_OK, let handle {
                opened = handle
            } else {
                let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(probe))
                failure = SQLiteError(operation: "open", code: probe, message: message)
                sqlite3_close_v2(handle)
            }
        }
        guard let opened else { throw failure }
        self.db = opened
        self.path = path
        sqlite3_busy_timeout(opened, busyTimeoutMilliseconds)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    /// Runs one or more statements that return no rows we need.
    func execute(_ sql: String) throws(SQLiteError) {
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error("exec", rc) }
    }

    /// A cached prepared statement for `sql`, reset and with its bindings cleared.
    func statement(_ sql: String) throws(SQLiteError) -> Statement {
        if let cached = statements[sql] {
            sqlite3_reset(cached)
            sqlite3_clear_bindings(cached)
            return Statement(db: db, handle: cached)
        }
        var handle: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard rc == SQLITE_OK, let handle else { throw error("prepare", rc) }
        statements[sql] = handle
        return Statement(db: db, handle: handle)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
    func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(db)) }

    private func error(_ operation: String, _ rc: Int32) -> SQLiteError {
        SQLiteError(operation: operation, code: rc, message: String(cString: sqlite3_errmsg(db)), systemErrno: sqlite3_system_errno(db))
    }
}

/// A prepared statement borrowed from a ``SQLiteConnection``; valid until the next call to
/// ``SQLiteConnection/statement(_:)`` with the same SQL.
struct Statement {
    fileprivate let db: OpaquePointer
    fileprivate let handle: OpaquePointer

    /// Binds parameters 1…n in order; `nil` binds NULL.
    func bind(_ values: SQLValue...) throws(SQLiteError) { try bind(values) }

    /// Binds parameters 1…n in order.
    func bind(_ values: [SQLValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .real(let v): rc = sqlite3_bind_double(handle, index, v)
            case .text(let v): rc = sqlite3_bind_text(handle, index, v, -1, transient)
            case .blob(let v):
                rc = v.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64($0.count), transient) }
            }
            guard rc == SQLITE_OK else { throw fail("bind", rc) }
        }
    }

    /// Advances; `true` when a row is available.
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw fail("step", rc)
        }
    }

    /// Runs to completion, ignoring rows.
    func run() throws(SQLiteError) {
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Releases the statement's read snapshot after the last row was used.
    func finish() { sqlite3_reset(handle) }

    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func real(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func optionalReal(_ column: Int32) -> Double? { isNull(column) ? nil : real(column) }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> Data? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: pointer, count: count)
    }

    private func fail(_ operation: String, _ rc: Int32) -> SQLiteError {
        SQLiteError(operation: operation, code: rc, message: String(cString: sqlite3_errmsg(db)), systemErrno: sqlite3_system_errno(db))
    }
}

/// A value bound to a statement parameter.
enum SQLValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    static func textOrNull(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    static func realOrNull(_ value: Double?) -> SQLValue { value.map { .real($0) } ?? .null }
    static func blobOrNull(_ value: Data?) -> SQLValue { value.map { .blob($0) } ?? .null }
}

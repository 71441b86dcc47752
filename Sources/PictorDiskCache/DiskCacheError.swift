import Foundation

/// Why a ``DiskCache`` could not be created.
///
/// Faults while running (disk full, directory deleted or made read-only) are never thrown: they
/// are counted in ``DiskCache/Statistics`` and logged, and the cache keeps working or disables
/// itself.
public enum DiskCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A configuration value is out of range; the message names it.
    case invalidConfiguration(String)
    /// The directory could not be created or used, with the `errno` of the failing call
    /// (`ENOTDIR` when the path is a file).
    case directoryUnavailable(path: String, errno: Int32)
    /// SQLite failed on the index and it could not be rebuilt: the operation, SQLite's result
    /// code and its message (`sqlite3_errmsg`).
    case index(operation: String, code: Int32, message: String)

    /// A one-line message naming the directory or SQLite operation (never a key or URL).
    public var description: String {
        switch self {
        case .invalidConfiguration(let message): "invalid disk cache configuration: \(message)"
        case .directoryUnavailable(let path, let code):
            "disk cache directory \(path) unavailable: \(String(cString: strerror(code)))"
        case .index(let operation, let code, let message): "disk cache index \(operation) failed (\(code)): \(message)"
        }
    }

    init(_ error: SQLiteError) {
        self = .index(operation: error.operation, code: error.code, message: error.message)
    }
}

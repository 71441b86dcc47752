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
    /// The cache in `path` was written under another key setting than the one it is opened
    /// with (see ``KeyMismatch``). Nothing was read, written or removed. The description never
    /// contains key bytes or key identifiers.
    case keyMismatch(path: String, KeyMismatch)

    /// How the key a cache is opened with differs from the one its entries were written with.
    public enum KeyMismatch: Sendable, Equatable {
        /// The cache is encrypted under another key than the configured
        /// ``DiskCache/Configuration/cipher``.
        case anotherKey
        /// The cache is encrypted and was opened with no cipher.
        case keyRequired
        /// The cache is not encrypted and was opened with a cipher; open it without one and call
        /// ``DiskCache/rotateKey(to:)`` to encrypt it.
        case notEncrypted
    }

    /// A one-line message naming the directory or SQLite operation (never a key, a key
    /// identifier or a URL).
    public var description: String {
        switch self {
        case .invalidConfiguration(let message): "invalid disk cache configuration: \(message)"
        case .directoryUnavailable(let path, let code):
            "disk cache directory \(path) unavailable: \(String(cString: strerror(code)))"
        case .index(let operation, let code, let message): "disk cache index \(operation) failed (\(code)): \(message)"
        case .keyMismatch(let path, .anotherKey): "disk cache \(path): this cache was encrypted with another key; open it with that key"
        case .keyMismatch(let path, .keyRequired): "disk cache \(path): this cache is encrypted; open it with its key"
        case .keyMismatch(let path, .notEncrypted):
            "disk cache \(path): this cache is not encrypted; open it without a key and use rotateKey to encrypt it"
        }
    }

    init(_ error: SQLiteError) {
        self = .index(operation: error.operation, code: error.code, message: error.message)
    }
}

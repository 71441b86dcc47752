import Foundation

/// Why a ``DiskCache`` could not be created, or could not pin or unpin an entry
/// (``DiskCache/pin(_:)``).
///
/// Faults while running (disk full, directory deleted or made read-only) are never thrown: they
/// are counted in ``DiskCache/Statistics`` and logged, and the cache keeps working or disables
/// itself.
///
/// A struct rather than an enum, so that a new kind of failure is not a breaking change: match
/// with `==` against a static member, or switch over ``kind`` with a `default:` branch, and
/// read the details from the optional properties (``path``, ``keyMismatch``, …).
public struct DiskCacheError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The kind of failure, without its details: the value to `switch` over (with a `default:`
    /// branch, since kinds may be added).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, e.g. `"keyMismatch"`.
        public let description: String
        private init(_ description: String) { self.description = description }

        /// ``DiskCacheError/invalidConfiguration(_:)``.
        public static let invalidConfiguration = Kind("invalidConfiguration")
        /// ``DiskCacheError/directoryUnavailable(path:errno:)``.
        public static let directoryUnavailable = Kind("directoryUnavailable")
        /// ``DiskCacheError/index(operation:code:message:)``.
        public static let index = Kind("index")
        /// ``DiskCacheError/keyMismatch(path:_:)``.
        public static let keyMismatch = Kind("keyMismatch")
        /// ``DiskCacheError/noEntry``.
        public static let noEntry = Kind("noEntry")
        /// ``DiskCacheError/notWritable(path:)``.
        public static let notWritable = Kind("notWritable")
    }

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

    /// The failure and its details; private so that a new kind is not a breaking change.
    private enum Code: Sendable, Equatable {
        case invalidConfiguration(String)
        case directoryUnavailable(path: String, errno: Int32)
        case index(operation: String, code: Int32, message: String)
        case keyMismatch(path: String, KeyMismatch)
        case noEntry
        case notWritable(path: String)
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// A configuration value is out of range; the message names it.
    public static func invalidConfiguration(_ message: String) -> DiskCacheError { .init(.invalidConfiguration(message)) }
    /// The directory could not be created or used, with the `errno` of the failing call
    /// (`ENOTDIR` when the path is a file).
    public static func directoryUnavailable(path: String, errno: Int32) -> DiskCacheError {
        .init(.directoryUnavailable(path: path, errno: errno))
    }
    /// SQLite failed on the index and it could not be rebuilt: the operation, SQLite's result
    /// code and its message (`sqlite3_errmsg`).
    public static func index(operation: String, code: Int32, message: String) -> DiskCacheError {
        .init(.index(operation: operation, code: code, message: message))
    }
    /// The cache in `path` was written under another key setting than the one it is opened
    /// with (see ``KeyMismatch``). Nothing was read, written or removed. The description never
    /// contains key bytes or key identifiers.
    public static func keyMismatch(path: String, _ mismatch: KeyMismatch) -> DiskCacheError {
        .init(.keyMismatch(path: path, mismatch))
    }

    /// The cache holds no entry for the key given to ``DiskCache/pin(_:)`` or
    /// ``DiskCache/unpin(_:)`` (nothing changed). The description never contains the key.
    public static let noEntry = DiskCacheError(.noEntry)
    /// The cache in `path` is read-only (``DiskCache/isReadOnly``) or disabled, so a pin could
    /// not be recorded; nothing changed.
    public static func notWritable(path: String) -> DiskCacheError { .init(.notWritable(path: path)) }

    /// The kind of failure, without its details.
    public var kind: Kind {
        switch code {
        case .invalidConfiguration: .invalidConfiguration
        case .directoryUnavailable: .directoryUnavailable
        case .index: .index
        case .keyMismatch: .keyMismatch
        case .noEntry: .noEntry
        case .notWritable: .notWritable
        }
    }

    /// The cache directory, for ``Kind/directoryUnavailable``, ``Kind/keyMismatch`` and
    /// ``Kind/notWritable``; `nil` otherwise.
    public var path: String? {
        switch code {
        case .directoryUnavailable(let path, _), .keyMismatch(let path, _), .notWritable(let path): path
        default: nil
        }
    }

    /// The `errno` of the failing call, for ``Kind/directoryUnavailable``; `nil` otherwise.
    public var errno: Int32? {
        if case .directoryUnavailable(_, let errno) = code { return errno }
        return nil
    }

    /// The SQLite operation that failed, for ``Kind/index``; `nil` otherwise.
    public var operation: String? {
        if case .index(let operation, _, _) = code { return operation }
        return nil
    }

    /// SQLite's result code, for ``Kind/index``; `nil` otherwise.
    public var resultCode: Int32? {
        if case .index(_, let resultCode, _) = code { return resultCode }
        return nil
    }

    /// The configuration problem (``Kind/invalidConfiguration``) or SQLite's message
    /// (``Kind/index``); `nil` otherwise.
    public var message: String? {
        switch code {
        case .invalidConfiguration(let message), .index(_, _, let message): message
        default: nil
        }
    }

    /// How the keys differ, for ``Kind/keyMismatch``; `nil` otherwise.
    public var keyMismatch: KeyMismatch? {
        if case .keyMismatch(_, let mismatch) = code { return mismatch }
        return nil
    }

    /// A one-line message naming the directory or SQLite operation (never a key, a key
    /// identifier or a URL).
    public var description: String {
        switch code {
        case .invalidConfiguration(let message): "invalid disk cache configuration: \(message)"
        case .directoryUnavailable(let path, let code):
            "disk cache directory \(path) unavailable: \(String(cString: strerror(code)))"
        case .index(let operation, let code, let message): "disk cache index \(operation) failed (\(code)): \(message)"
        case .keyMismatch(let path, .anotherKey): "disk cache \(path): this cache was encrypted with another key; open it with that key"
        case .keyMismatch(let path, .keyRequired): "disk cache \(path): this cache is encrypted; open it with its key"
        case .keyMismatch(let path, .notEncrypted):
            "disk cache \(path): this cache is not encrypted; open it without a key and use rotateKey to encrypt it"
        case .noEntry: "the disk cache holds no entry for this key"
        case .notWritable(let path): "disk cache \(path) is read-only or disabled; nothing was changed"
        }
    }

    /// The same text as ``description``, so that `localizedDescription` logs it.
    public var errorDescription: String? { description }

    /// Whether `value` is this error: lets `catch DiskCacheError.keyMismatch(path: p, .keyRequired)` match an error thrown as
    /// `any Error`, as it did when the type was an enum.
    public static func ~= (pattern: DiskCacheError, value: any Swift.Error) -> Bool { (value as? DiskCacheError) == pattern }

    init(_ error: SQLiteError) {
        self = .index(operation: error.operation, code: error.code, message: error.message)
    }
}

import Foundation
internal import COpenSSL

/// The one error type of ``PictorCrypto``: what failed (``code``), in which step
/// (``operation``), and the library's own words (``message``, from OpenSSL's
/// `ERR_error_string_n` when libcrypto failed).
///
/// Messages never contain key material or a cache key; they name files and environment
/// variables only when the caller gave them.
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The kind of failure; match on it rather than on the message.
    public enum Code: Sendable, Hashable {
        /// Key bytes of the wrong length (a ``EncryptionKey`` is exactly 32 bytes).
        case invalidKeyLength
        /// Key bytes that are all the same (e.g. an all-zero key from 64 `0`s): a placeholder,
        /// never a secret.
        case weakKey
        /// Key text that is neither 64 hex digits nor base64 of 32 bytes.
        case invalidKeyEncoding
        /// The key file could not be opened, read or written (`errno` text in the message).
        case keyFileAccess
        /// The key file is readable or writable by group or others (mode must be `0600` or
        /// stricter); refused before reading a byte.
        case keyFilePermissions
        /// The environment variable is not set or empty.
        case environmentVariableMissing
        /// The envelope is too short, or does not start with the Pictor magic bytes.
        case malformedEnvelope
        /// The envelope was written by a format version this build does not read.
        case unsupportedVersion
        /// The envelope was sealed under another key (its key identifier differs).
        case keyMismatch
        /// The tag did not verify: the bytes, the header or the associated data were changed,
        /// or the key is wrong. No plaintext is returned.
        case authenticationFailed
        /// Any other libcrypto failure (context allocation, cipher fetch, `RAND_bytes`, ...).
        case library
    }

    /// What failed.
    public var code: Code
    /// What failed, written for an end user where a user gave the input: `"key file '/path'"`,
    /// `"environment variable NAME"` or `"key"`; for libcrypto failures the OpenSSL call, e.g.
    /// `"EVP_DecryptFinal_ex"`.
    public var operation: String
    /// A human-readable explanation; for ``Code/library`` the text from OpenSSL's error queue.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, operation: String, message: String) {
        self.code = code
        self.operation = operation
        self.message = message
    }

    /// `"<operation>: <message>"`, e.g. `"key file '/etc/pictor/cache.key': expected 64
    /// hexadecimal digits or base64 of 32 bytes"`.
    public var description: String { "\(operation): \(message)" }

    /// The same text as ``description``, so that `localizedDescription` logs it.
    public var errorDescription: String? { description }

    /// The error with its ``operation`` replaced by the key's source (`"key file '/path'"`).
    func naming(_ source: String) -> CryptoError {
        CryptoError(code, operation: source, message: message)
    }

    /// An error of `code` carrying (and clearing) the text of OpenSSL's thread-local error queue.
    static func openSSL(_ operation: String, code: Code = .library) -> CryptoError {
        var texts: [String] = []
        while true {
            let e = ERR_get_error()
            if e == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(e, &buffer, buffer.count)
            texts.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        let message = texts.isEmpty ? "OpenSSL reported no error text" : texts.joined(separator: "; ")
        return CryptoError(code, operation: operation, message: message)
    }
}

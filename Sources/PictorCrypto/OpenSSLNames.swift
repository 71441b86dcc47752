import Foundation
internal import COpenSSL

/// NUL-terminated parameter names and values for `OSSL_PARAM`, which stores the raw pointers it
/// is given: these live for the whole process so a parameter array can never outlive them.
enum OpenSSLNames {
    nonisolated(unsafe) static let digest = strdup("digest")!
    nonisolated(unsafe) static let sha256 = strdup("SHA256")!
    nonisolated(unsafe) static let key = strdup("key")!
    nonisolated(unsafe) static let salt = strdup("salt")!
    nonisolated(unsafe) static let info = strdup("info")!
}

/// A valid pointer for zero-length inputs (OpenSSL rejects some `NULL` buffers even with length 0).
nonisolated(unsafe) let emptyInput = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 16)

extension UnsafeRawBufferPointer {
    /// The base address, or a valid dummy address when the buffer is empty.
    var nonNullBase: UnsafeRawPointer { baseAddress.map { $0 } ?? UnsafeRawPointer(emptyInput) }
}

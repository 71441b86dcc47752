import Foundation
import Synchronization
internal import COpenSSL

/// Keyed AES-256-GCM `EVP_CIPHER_CTX`s, reused across seals and opens.
///
/// Keying a context expands the AES key schedule and the GHASH table; reusing a keyed context
/// and only setting a new nonce (`EVP_CipherInit_ex2` with a `NULL` key) skips that. A context is
/// taken out of the pool for the duration of one call, so no two threads ever use one context at
/// once; at most ``capacity`` idle contexts are kept, extra ones are freed.
///
/// `@unchecked Sendable` because `OpaquePointer` is not `Sendable`; safe because the idle list
/// is only touched under the `Mutex`, each context is used by one thread at a time, and the
/// template context is read-only after `init` (`EVP_CIPHER_CTX_copy` takes a `const` source).
final class GCMContextPool: @unchecked Sendable {
    /// Idle contexts kept, enough for both cores of the target machine plus the writer queue.
    static let capacity = 8

    nonisolated(unsafe) private static let cipher: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)

    private let template: OpaquePointer
    private let idle = ContextPool(capacity: GCMContextPool.capacity) { EVP_CIPHER_CTX_free($0) }

    init(key: EncryptionKey) throws(CryptoError) {
        guard let cipher = Self.cipher else { throw CryptoError.openSSL("EVP_CIPHER_fetch(AES-256-GCM)") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("EVP_CIPHER_CTX_new") }
        let ok = key.withUnsafeBytes { bytes in
            EVP_CipherInit_ex2(ctx, cipher, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, 1, nil)
        }
        guard ok == 1 else {
            EVP_CIPHER_CTX_free(ctx)
            throw CryptoError.openSSL("EVP_EncryptInit_ex2(AES-256-GCM)")
        }
        template = ctx
    }

    /// Runs `body` with a keyed context that no other thread holds.
    func withContext<R>(_ body: (OpaquePointer) throws(CryptoError) -> R) throws(CryptoError) -> R {
        let ctx = try take()
        defer { give(ctx) }
        return try body(ctx)
    }

    private func take() throws(CryptoError) -> OpaquePointer {
        if let ctx = idle.take() { return ctx }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("EVP_CIPHER_CTX_new") }
        guard EVP_CIPHER_CTX_copy(ctx, template) == 1 else {
            EVP_CIPHER_CTX_free(ctx)
            throw CryptoError.openSSL("EVP_CIPHER_CTX_copy")
        }
        return ctx
    }

    private func give(_ ctx: OpaquePointer) { idle.give(ctx) }

    deinit { EVP_CIPHER_CTX_free(template) }
}

import Foundation
internal import COpenSSL

/// HMAC-SHA256 (RFC 2104, FIPS 198-1) on OpenSSL 3's `EVP_MAC`, keyed once and reused.
///
/// The `EVP_MAC` is fetched once per process; each instance holds a context already keyed, and
/// every call works on a duplicate of it (`EVP_MAC_CTX_dup`), so the key is processed once and
/// concurrent calls never share mutable state.
///
/// ```swift
/// let mac = try HMACSHA256(key: nameKey)
/// let tag = mac.authenticationCode(for: Data("https://example.com/a.jpg".utf8)) // 32 bytes
/// ```
public struct HMACSHA256: Sendable {
    /// The tag length in bytes (32).
    public static let byteCount = 32

    private let context: MACContext

    /// A MAC keyed with `key` (32 bytes).
    ///
    /// - Parameter key: the MAC key.
    /// - Throws: ``CryptoError/Code/library`` if libcrypto cannot set up the context.
    public init(key: EncryptionKey) throws(CryptoError) {
        context = try key.withUnsafeBytes { bytes throws(CryptoError) in try MACContext(key: bytes) }
    }

    /// A MAC keyed with arbitrary key bytes (any length; RFC 2104 hashes keys longer than the
    /// 64-byte block). Prefer ``init(key:)`` for secrets you hold.
    ///
    /// - Throws: ``CryptoError/Code/library`` if libcrypto cannot set up the context.
    public init<K: ContiguousBytes>(keyBytes: K) throws(CryptoError) {
        let result = keyBytes.withUnsafeBytes { bytes in Result { () throws(CryptoError) in try MACContext(key: bytes) } }
        context = try result.get()
    }

    /// The 32-byte tag of `data`.
    public func authenticationCode<D: ContiguousBytes>(for data: D) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        data.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { context.compute(input, into: $0) }
        }
        return out
    }

    /// Writes the 32-byte tag of `data` into `output` (at least 32 bytes): no allocation besides
    /// OpenSSL's context copy.
    public func authenticationCode(for data: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= Self.byteCount, "HMAC-SHA256 output needs 32 bytes")
        context.compute(data, into: output)
    }

    /// One-shot HMAC-SHA256 of `data` under `key` (any length).
    ///
    /// - Throws: ``CryptoError/Code/library`` if libcrypto cannot set up the context.
    public static func authenticationCode<K: ContiguousBytes, D: ContiguousBytes>(
        key: K, data: D
    ) throws(CryptoError) -> [UInt8] {
        try HMACSHA256(keyBytes: key).authenticationCode(for: data)
    }
}

/// A keyed `EVP_MAC_CTX` used only as a template to duplicate.
///
/// `@unchecked Sendable` because `OpaquePointer` is not `Sendable`; safe because the template is
/// keyed in `init`, then only read (`EVP_MAC_CTX_dup` takes a `const` source) and freed in
/// `deinit`.
final class MACContext: @unchecked Sendable {
    nonisolated(unsafe) private static let mac: OpaquePointer? = EVP_MAC_fetch(nil, "HMAC", nil)

    private let template: OpaquePointer

    init(key: UnsafeRawBufferPointer) throws(CryptoError) {
        guard let mac = Self.mac else { throw CryptoError.openSSL("EVP_MAC_fetch(HMAC)") }
        guard let ctx = EVP_MAC_CTX_new(mac) else { throw CryptoError.openSSL("EVP_MAC_CTX_new") }
        var params = [
            OSSL_PARAM_construct_utf8_string(OpenSSLNames.digest, OpenSSLNames.sha256, 0),
            OSSL_PARAM_construct_end(),
        ]
        let ok = params.withUnsafeMutableBufferPointer { p in
            EVP_MAC_init(ctx, key.nonNullBase.assumingMemoryBound(to: UInt8.self), key.count, p.baseAddress)
        }
        guard ok == 1 else {
            EVP_MAC_CTX_free(ctx)
            throw CryptoError.openSSL("EVP_MAC_init(HMAC-SHA256)")
        }
        template = ctx
    }

    func compute(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        // Failures here mean allocation failure inside libcrypto; there is no meaningful
        // recovery for a hash of in-memory bytes, as for SHA256.hash.
        guard let ctx = EVP_MAC_CTX_dup(template) else { fatalError("EVP_MAC_CTX_dup failed: out of memory") }
        defer { EVP_MAC_CTX_free(ctx) }
        var length = 0
        let ok = EVP_MAC_update(ctx, input.nonNullBase.assumingMemoryBound(to: UInt8.self), input.count) == 1
            && EVP_MAC_final(ctx, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, output.count) == 1
        precondition(ok && length == HMACSHA256.byteCount, "HMAC-SHA256 failed")
    }

    deinit { EVP_MAC_CTX_free(template) }
}

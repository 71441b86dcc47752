import Foundation
internal import COpenSSL

/// HKDF with SHA-256 (RFC 5869, extract-then-expand) on OpenSSL 3's `EVP_KDF`.
///
/// ```swift
/// let contentKey = try HKDFSHA256.deriveKey(from: master, info: Data("pictor.content".utf8))
/// ```
public enum HKDFSHA256 {
    /// The most output one derivation can give, in bytes (255 × 32 = 8,160; RFC 5869 §2.3).
    public static let maximumOutputByteCount = 255 * 32

    nonisolated(unsafe) private static let kdf: OpaquePointer? = EVP_KDF_fetch(nil, "HKDF", nil)

    /// Derives `outputByteCount` bytes from `inputKeyMaterial`.
    ///
    /// - Parameters:
    ///   - inputKeyMaterial: The secret (IKM), any length.
    ///   - salt: Optional non-secret salt; empty means RFC 5869's default (32 zero bytes).
    ///   - info: Context and application label; distinct labels give independent keys.
    ///   - outputByteCount: 1 to ``maximumOutputByteCount`` bytes.
    /// - Returns: The output keying material (OKM).
    /// - Throws: ``CryptoError/Code/library`` when libcrypto fails or the length is out of range.
    public static func deriveBytes<K: ContiguousBytes, S: ContiguousBytes, I: ContiguousBytes>(
        inputKeyMaterial: K, salt: S, info: I, outputByteCount: Int
    ) throws(CryptoError) -> [UInt8] {
        guard (1...maximumOutputByteCount).contains(outputByteCount) else {
            throw CryptoError(.library, operation: "HKDF-SHA256",
                              message: "output length \(outputByteCount) is outside 1...\(maximumOutputByteCount)")
        }
        var out = [UInt8](repeating: 0, count: outputByteCount)
        let ok = inputKeyMaterial.withUnsafeBytes { ikm in
            salt.withUnsafeBytes { salt in
                info.withUnsafeBytes { info in
                    out.withUnsafeMutableBytes { derive(ikm: ikm, salt: salt, info: info, into: $0) }
                }
            }
        }
        guard ok else { throw CryptoError.openSSL("EVP_KDF_derive(HKDF-SHA256)") }
        return out
    }

    /// Derives a 256-bit key from `key` for the purpose named by `info`; the output never
    /// passes through an unwiped buffer.
    ///
    /// - Parameters:
    ///   - key: The input key (e.g. a cache's master key).
    ///   - salt: Optional salt; empty by default (RFC 5869's 32 zero bytes).
    ///   - info: The purpose label, e.g. `"pictor.disk-cache.content-key.v1"` as UTF-8.
    /// - Throws: ``CryptoError/Code/library`` when libcrypto fails.
    public static func deriveKey(from key: EncryptionKey, salt: Data = Data(), info: Data) throws(CryptoError) -> EncryptionKey {
        let storage = KeyStorage()
        let ok = key.withUnsafeBytes { ikm in
            salt.withUnsafeBytes { salt in
                info.withUnsafeBytes { info in derive(ikm: ikm, salt: salt, info: info, into: storage.bytes) }
            }
        }
        guard ok else { throw CryptoError.openSSL("EVP_KDF_derive(HKDF-SHA256)") }
        return EncryptionKey(storage: storage)
    }

    private static func derive(ikm: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer,
                               info: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard let kdf, let ctx = EVP_KDF_CTX_new(kdf) else { return false }
        defer { EVP_KDF_CTX_free(ctx) }
        var params = [
            OSSL_PARAM_construct_utf8_string(OpenSSLNames.digest, OpenSSLNames.sha256, 0),
            OSSL_PARAM_construct_octet_string(OpenSSLNames.key, UnsafeMutableRawPointer(mutating: ikm.nonNullBase), ikm.count),
        ]
        if salt.count > 0 {
            params.append(OSSL_PARAM_construct_octet_string(OpenSSLNames.salt, UnsafeMutableRawPointer(mutating: salt.nonNullBase), salt.count))
        }
        if info.count > 0 {
            params.append(OSSL_PARAM_construct_octet_string(OpenSSLNames.info, UnsafeMutableRawPointer(mutating: info.nonNullBase), info.count))
        }
        params.append(OSSL_PARAM_construct_end())
        return params.withUnsafeMutableBufferPointer { p in
            EVP_KDF_derive(ctx, out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count, p.baseAddress) == 1
        }
    }
}

import Foundation
internal import COpenSSL
import PictorCore

/// SHA-256 (FIPS 180-4) on libcrypto's EVP interface.
///
/// The `EVP_MD` is fetched once per process and reused (the one-shot OpenSSL 3 calls pay a
/// provider fetch each time: 0.7 µs against 0.2 µs per 100-byte digest, measured on this kind of
/// machine; see `performance.md` §1.3).
public enum SHA256 {
    /// The digest length in bytes (32).
    public static let byteCount = 32

    nonisolated(unsafe) private static let md: OpaquePointer = {
        // EVP_MD_fetch returns a reference we keep for the life of the process; EVP_MDs are
        // immutable after fetch and safe to share between threads (OpenSSL 3 threading notes).
        guard let md = EVP_MD_fetch(nil, "SHA256", nil) else { fatalError("libcrypto has no SHA256") }
        return md
    }()

    /// Digest contexts kept for reuse: `EVP_Digest` makes and frees one per call, which cost as
    /// much as hashing a URL.
    private static let contexts = ContextPool(capacity: 8) { EVP_MD_CTX_free($0) }

    /// The 32-byte digest of `data`.
    public static func hash<D: ContiguousBytes>(_ data: D) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        data.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { digest(input, into: $0) }
        }
        return out
    }

    /// Writes the 32-byte digest of `input` to `output` (at least 32 bytes).
    static func digest(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= byteCount)
        // A context only fails to allocate when memory is exhausted: no meaningful recovery.
        guard let context = contexts.take() ?? EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
        var length: UInt32 = 0
        let ok = EVP_DigestInit_ex(context, md, nil) == 1
            && EVP_DigestUpdate(context, input.baseAddress, input.count) == 1
            && EVP_DigestFinal_ex(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1
        contexts.give(context)
        precondition(ok && length == 32, "SHA-256 failed")
    }

    /// The 32-byte digest of `parts` one after the other, without joining them in memory.
    public static func hash(parts: [Data]) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        var ok = EVP_DigestInit_ex(context, md, nil) == 1
        for part in parts where ok {
            ok = part.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) } == 1
        }
        var out = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        ok = ok && out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) } == 1
        precondition(ok && length == 32, "EVP_Digest(SHA256) failed")
        return out
    }

    /// The digest of the UTF-8 bytes of `string`, as 64 lowercase hexadecimal characters.
    public static func hexDigest(_ string: String) -> String {
        var s = string
        return s.withUTF8 { input in
            withUnsafeTemporaryAllocation(byteCount: byteCount, alignment: 16) { digest in
                SHA256.digest(UnsafeRawBufferPointer(input), into: digest)
                return Hex.encode(UnsafeRawBufferPointer(digest))
            }
        }
    }
}


/// Names cache entries by SHA-256 of the key, in lowercase hex (64 characters). The default for
/// a plain (unencrypted) disk cache; an encrypted cache uses a keyed HMAC instead.
public struct SHA256KeyHashing: CacheKeyHashing {
    /// Creates the hasher.
    public init() {}
    /// The hex SHA-256 of the key's UTF-8 bytes.
    ///
    /// - Parameter key: the cache key.
    public func digest(for key: String) -> String { SHA256.hexDigest(key) }
}

/// Lowercase hexadecimal encoding.
public enum Hex {
    /// Encodes `bytes` as lowercase hex, two characters per byte, straight into the string's
    /// storage.
    public static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (i, byte) in bytes.enumerated() {
                out[2 * i] = digit(byte >> 4)
                out[2 * i + 1] = digit(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }

    /// The lowercase hex digit of `nibble` (0...15).
    @inline(__always) private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble + 48 : nibble + 87
    }

    /// Encodes `bytes` as lowercase hex, two characters per byte.
    public static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        Array(bytes).withUnsafeBytes { encode($0) }
    }

    /// Decodes a hex string (either case); `nil` when it has an odd length or a non-hex digit.
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = value(chars[i]), let lo = value(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}

import Foundation
import PictorCore
import PictorCrypto

/// How shared-tier entries are named and stored in Redis, and how a stored value is checked
/// before it is served.
///
/// - Names: `pictor:<mode>:{<digest>}` for the entry and `…:lease` for its download lease, the
///   digest being HMAC-SHA256 of the cache key under a key derived from the master key
///   (`mode` `e1`), or plain SHA-256 (`p1`) without one. The braces are a Redis Cluster hash tag:
///   an entry and its lease live in one slot. No name contains the key, a URL or a host.
/// - Values: the bytes, the metadata (JSON), then a trailer: the metadata's length (UInt32,
///   big-endian), a SHA-256 digest (32 bytes), the format (``version``), `PXSE`. The trailer comes last so that
///   reading an entry cuts the value short instead of copying the image out of it. The digest
///   covers the cache key, the metadata and the bytes: a value stored for another key, or
///   damaged anywhere (one flipped bit), does not match. With a master key the whole value is
///   also sealed in the disk cache's AES-256-GCM envelope, authenticated with the entry's name,
///   so Redis holds nothing readable and nothing can be forged without the key (without one,
///   the digest catches damage and swaps, not a deliberate forgery).
/// - Checks: a value that does not open with this key, is not this format, or was stored for
///   another cache key is not an entry (a miss), never an image for the wrong URL.
package struct SharedEntryCodec: Sendable {
    /// HKDF labels of the shared tier's own keys (the disk cache's are different).
    static let contentKeyLabel = "pictor.shared-cache.content-key.v1"
    static let nameKeyLabel = "pictor.shared-cache.name-key.v1"
    static let magic: [UInt8] = Array("PXSE".utf8)
    /// 2 since the shared rules (RFC 9111 §3, §3.5): a format-1 value may hold a `private`
    /// response or one to a request with `Authorization`, stored before the tier refused them,
    /// so it is a miss.
    static let version: UInt8 = 2
    static let trailerCount = 4 + SHA256.byteCount + 1 + 4

    private let encryption: DiskCacheEncryption?
    private let prefix: String

    /// - Parameters:
    ///   - masterKey: seals entries and keys their names; `nil` stores them in clear, named by
    ///     SHA-256.
    ///   - namespace: the first part of every name (`pictor` by default), to share a Redis
    ///     with other applications.
    package init(masterKey: EncryptionKey?, namespace: String) throws(CryptoError) {
        if let masterKey {
            encryption = try DiskCacheEncryption(
                masterKey: masterKey, contentKeyLabel: Self.contentKeyLabel, nameKeyLabel: Self.nameKeyLabel)
        } else {
            encryption = nil
        }
        prefix = namespace + (masterKey == nil ? ":p1:" : ":e1:")
    }

    /// Whether entries are sealed.
    var isEncrypted: Bool { encryption != nil }

    /// The Redis name of `key`'s entry.
    package func name(for key: String) -> String {
        let digest = encryption?.keyHashing.digest(for: key) ?? SHA256.hexDigest(key)
        return prefix + "{" + digest + "}"
    }

    /// The Redis name of `key`'s download lease (same hash slot as its entry).
    func leaseName(for key: String) -> String { name(for: key) + ":lease" }

    /// The value stored for `entry` under `key`.
    package func encode(_ entry: DataCacheEntry, for key: String) throws -> Data {
        let metadata = try JSONEncoder().encode(entry.metadata)
        var value = Data(capacity: entry.data.count + metadata.count + Self.trailerCount)
        value.append(entry.data)
        value.append(metadata)
        withUnsafeBytes(of: UInt32(metadata.count).bigEndian) { value.append(contentsOf: $0) }
        value.append(contentsOf: Self.digest(key: key, metadata: metadata, data: entry.data))
        value.append(Self.version)
        value.append(contentsOf: Self.magic)
        guard let encryption else { return value }
        return try encryption.cipher.seal(value, associatedData: Data(name(for: key).utf8))
    }

    /// The entry in `value` when it is a valid one for `key`; `nil` otherwise.
    package func decode(_ value: Data, for key: String) -> DataCacheEntry? {
        var payload = value
        if let encryption {
            guard let opened = try? encryption.cipher.open(value, associatedData: Data(name(for: key).utf8)) else { return nil }
            payload = opened
        }
        guard payload.count >= Self.trailerCount else { return nil }
        let trailer = [UInt8](payload.suffix(Self.trailerCount))
        guard Array(trailer[(Self.trailerCount - 4)...]) == Self.magic, trailer[Self.trailerCount - 5] == Self.version else { return nil }
        let length = trailer[0..<4].reduce(0) { $0 << 8 | Int($1) }
        // An entry has bytes.
        guard payload.count - Self.trailerCount > length else { return nil }
        let metadataEnd = payload.endIndex - Self.trailerCount
        let metadataBytes = payload[(metadataEnd - length)..<metadataEnd]
        let data = payload[payload.startIndex..<(metadataEnd - length)]
        guard Array(trailer[4..<(4 + SHA256.byteCount)]) == Self.digest(key: key, metadata: metadataBytes, data: data),
              let metadata = try? JSONDecoder().decode(DataCacheMetadata.self, from: metadataBytes) else {
            return nil
        }
        // Cut, not copied: the value is this function's own.
        payload.removeLast(length + Self.trailerCount)
        return DataCacheEntry(data: payload, metadata: metadata)
    }

    /// SHA-256 over the key's length and bytes, the metadata's length and bytes, and the image
    /// bytes: lengths first, so that no two different splits hash alike.
    static func digest(key: String, metadata: Data, data: Data) -> [UInt8] {
        var lengths = Data(capacity: 16 + key.utf8.count)
        withUnsafeBytes(of: UInt64(key.utf8.count).bigEndian) { lengths.append(contentsOf: $0) }
        lengths.append(contentsOf: key.utf8)
        withUnsafeBytes(of: UInt64(metadata.count).bigEndian) { lengths.append(contentsOf: $0) }
        return SHA256.hash(parts: [lengths, metadata, data])
    }
}

import Foundation
import PictorCore
import PictorCrypto
import PictorDiskCache
import PictorRedis

/// Targets over what caches read back: shared-tier values and disk entry files.
enum CacheTargets {
    static let plain = try! SharedEntryCodec(masterKey: nil, namespace: "pictor")
    static let sealed = try! SharedEntryCodec(masterKey: EncryptionKey(bytes: (0..<32).map { UInt8($0 * 7 + 1) }), namespace: "pictor")

    /// Metadata whose text fields come from the input.
    static func metadata(_ parts: [ArraySlice<UInt8>]) -> DataCacheMetadata {
        var metadata = DataCacheMetadata()
        func text(_ i: Int) -> String? { parts[i].isEmpty ? nil : String(decoding: parts[i], as: UTF8.self) }
        metadata.etag = text(2)
        metadata.cacheControl = text(3)
        metadata.vary = text(4)
        metadata.format = parts[5].first.map { ImageFormat.allCases[Int($0) % ImageFormat.allCases.count] }
        if let byte = parts[5].dropFirst().first { metadata.expiresAt = Date(timeIntervalSince1970: Double(byte) * 1_000_000) }
        return metadata
    }

    @Sendable static func sharedEntry(_ b: UnsafeRawBufferPointer) {
        // The raw input is a value read from Redis: never an entry (no digest can be guessed).
        let raw = dataNoCopy(b)
        check(plain.decode(raw, for: "k") == nil && sealed.decode(raw, for: "k") == nil, "a forged value decoded")
        // key, data, etag, cache-control, vary, format+expiry: encoded, it decodes to itself
        // for its key only, and any bit flipped makes it a miss.
        let parts = fields(b, count: 6)
        let key = String(decoding: parts[0], as: UTF8.self)
        guard !parts[1].isEmpty else { return }
        let entry = DataCacheEntry(data: Data(parts[1]), metadata: metadata(parts))
        for codec in [plain, sealed] {
            guard let value = try? codec.encode(entry, for: key) else { check(false, "encode failed"); return }
            check(codec.decode(value, for: key) == entry, "round trip changed the entry")
            check(codec.decode(value, for: key + "#") == nil, "value served for another key")
            var damaged = value
            let bit = Int(b.count * 31 + Int(b[0])) % (value.count * 8)
            damaged[bit / 8] ^= UInt8(1 << (bit % 8))
            check(codec.decode(damaged, for: key) == nil, "damaged value (bit \(bit)) served")
            check(codec.decode(value.dropLast(), for: key) == nil, "cut value served")
        }
    }

    @Sendable static func entryContainer(_ b: UnsafeRawBufferPointer) {
        let file = Data(b)
        // Any tail of the file, for any claimed file size, reads or not without trapping.
        if b.count >= 2 {
            let cut = Int(b[0]) % b.count
            _ = EntryContainer.decodeTail(file.suffix(from: cut), fileSize: b.count + Int(b[1]) - 128)
        }
        if let decoded = EntryContainer.decode(file) {
            check(decoded.payload.count <= file.count - EntryContainer.footerSize, "payload runs into the footer")
            check(decoded.payload == file.prefix(decoded.payload.count), "payload is not the file's start")
            // Writing the decoded entry again, then decoding that, is a fixpoint.
            let written = decoded.payload + EntryContainer.trailer(
                payloadCount: decoded.payload.count, metadata: decoded.metadata, created: decoded.created, binding: decoded.binding)
            guard let again = EntryContainer.decode(written) else { check(false, "rewritten entry does not decode"); return }
            check(again.binding == decoded.binding, "binding changed")
            check(again.payload == decoded.payload, "payload changed")
            let rewritten = again.payload + EntryContainer.trailer(
                payloadCount: again.payload.count, metadata: again.metadata, created: again.created, binding: again.binding)
            check(rewritten == written, "re-encoding is not a fixpoint")
        }
        // An entry written for a key carries that key's binding and no other.
        let parts = fields(b, count: 6)
        let key = String(decoding: parts[0], as: UTF8.self)
        let payload = Data(parts[1])
        let binding = KeyBinding(key: key)
        let entryFile = payload + EntryContainer.trailer(payloadCount: payload.count, metadata: metadata(parts), created: 1, binding: binding)
        guard let decoded = EntryContainer.decode(entryFile) else { check(false, "written entry does not decode"); return }
        check(decoded.binding == binding && decoded.binding != KeyBinding(key: key + "#"), "binding not kept")
        check(decoded.payload == payload && decoded.metadata == metadata(parts), "entry changed")
        check(EntryContainer.decode(entryFile.dropLast()) == nil && EntryContainer.decode(Data([0]) + entryFile) == nil,
              "a cut or shifted file decodes")
    }
}

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

/// The disk cache's key records: the index's record of the key setting its entries are under
/// (``KeyCheck``, checked when a cache opens) and each entry file's binding to the cache key it
/// was stored under (``KeyBinding``, checked on every read, sealed with the file when
/// encrypted).
enum KeyRecordTargets {
    static let encryption = try! DiskCacheEncryption(masterKey: EncryptionKey(bytes: (0..<32).map { UInt8($0 * 7 + 1) }))
    static let otherEncryption = try! DiskCacheEncryption(masterKey: EncryptionKey(bytes: (0..<32).map { UInt8($0 * 5 + 3) }))

    /// A user's cipher with any identifier: the record must name it whatever its identifier is.
    struct IdentifiedCipher: DataCipher {
        let keyIdentifier: Data
        func seal(_ plaintext: Data, associatedData: Data) throws -> Data { plaintext }
        func open(_ envelope: Data, associatedData: Data) throws -> Data { envelope }
    }

    /// Whether a cache opening with `configured` goes on with the record `record` (as
    /// `DiskCache.resolveKeyCheck` decides before it looks at any file).
    static func accepts(_ record: KeyCheck, configured: KeyCheck) -> Bool {
        record.isWellFormed && record.mismatch(configured: configured) == nil
    }

    /// What `DiskCache.contains` and `metadata(for:)` read of a plain file: its footer, then the
    /// trailer that footer sizes (`EntryFiles.readTrailer`).
    static func trailerRead(_ file: Data) -> EntryContainer.Tail? {
        guard file.count >= EntryContainer.footerSize,
              let size = EntryContainer.trailerSize(footer: file.suffix(EntryContainer.footerSize), fileSize: file.count) else { return nil }
        return EntryContainer.decodeTail(file.suffix(size), fileSize: file.count)
    }

    @Sendable static func keyRecord(_ b: UnsafeRawBufferPointer) {
        // record text, cache key, payload (also another key), cipher identifier.
        let parts = fields(b, count: 4)

        // The index's record, read back as the index reads text (UTF-8, repaired): accepted
        // for the setting it names, byte for byte, and for no other; damage is never accepted.
        let record = KeyCheck(recorded: String(decoding: parts[0], as: UTF8.self))
        let settings = [KeyCheck(nil), KeyCheck(encryption.cipher), KeyCheck(otherEncryption.cipher),
                        KeyCheck(IdentifiedCipher(keyIdentifier: Data(parts[3])))]
        for configured in settings {
            check(accepts(configured, configured: configured), "the record made for \(configured.recorded.prefix(40))… is refused")
            let same = Array(record.recorded.utf8) == Array(configured.recorded.utf8)
            check(accepts(record, configured: configured) == same,
                  "record \(record.recorded.debugDescription.prefix(80)) \(same ? "refused" : "accepted") for \(configured.recorded.prefix(40))")
            if let kind = record.mismatch(configured: configured) {
                let expected: DiskCacheError.KeyMismatch =
                    !record.isEncrypted ? .notEncrypted : configured.isEncrypted ? .anotherKey : .keyRequired
                check(kind == expected, "mismatch \(kind), expected \(expected)")
            }
            for other in settings where Array(other.recorded.utf8) != Array(configured.recorded.utf8) {
                check(!accepts(other, configured: configured), "one setting's record accepted for another")
            }
        }

        // An entry file written for a key: served for it, for no other key, and (sealed) not
        // under another name or key; damage is a miss, or (plain files carry no checksum) at
        // worst still the same key's.
        let key = String(decoding: parts[1], as: UTF8.self)
        let others = [key + "#", String(decoding: parts[2], as: UTF8.self), String(key.unicodeScalars.reversed().map(Character.init))]
            .filter { Array($0.utf8) != Array(key.utf8) }
        let payload = Data(parts[2])
        let binding = KeyBinding(key: key)
        var metadata = DataCacheMetadata()
        metadata.etag = parts[0].isEmpty ? nil : String(decoding: parts[0], as: UTF8.self)
        let plainFile = payload + EntryContainer.trailer(payloadCount: payload.count, metadata: metadata, created: 1, binding: binding)
        let bit = (b.count * 31 + Int(b.first ?? 0)) % (plainFile.count * 8)
        for sealing in [nil, encryption] {
            let digest = sealing?.keyHashing.digest(for: key) ?? "0123abcd"
            let file = sealing.map { try! $0.cipher.seal(plainFile, associatedData: Data(digest.utf8)) } ?? plainFile
            let opened = EntryContainer.open(file, digest: digest, cipher: sealing?.cipher)
            check(opened?.binding == binding && opened?.payload == payload, "an entry is not served for its own key")
            for other in others {
                check(opened?.binding != KeyBinding(key: other), "an entry is served for another key")
            }
            var damaged = file
            let flipped = bit % (file.count * 8)
            damaged[flipped / 8] ^= UInt8(1 << (flipped % 8))
            let openedDamaged = EntryContainer.open(damaged, digest: digest, cipher: sealing?.cipher)
            for other in others {
                check(openedDamaged?.binding != KeyBinding(key: other), "a damaged entry is served for another key")
            }
            guard let sealing else {
                if let tail = trailerRead(file) {
                    check(tail.binding == binding, "the trailer read loses the binding")
                } else {
                    check(false, "the trailer of a written entry does not read")
                }
                continue
            }
            check(openedDamaged == nil, "a damaged sealed entry (bit \(flipped)) opens")
            check(EntryContainer.open(file.dropLast(), digest: digest, cipher: sealing.cipher) == nil, "a cut sealed entry opens")
            for other in others {
                check(EntryContainer.open(file, digest: sealing.keyHashing.digest(for: other), cipher: sealing.cipher) == nil,
                      "a sealed entry opens under another key's name")
            }
            check(EntryContainer.open(file, digest: digest, cipher: otherEncryption.cipher) == nil, "a sealed entry opens under another key")
        }

        // The input as an entry file: never opens sealed (an AES-GCM tag cannot be guessed);
        // plain, the trailer read (`contains`, `metadata(for:)`) and the whole-file read
        // (`entry(for:)`) agree, so a key is never said to be cached and then served another's.
        let raw = Data(b)
        check(EntryContainer.open(raw, digest: "0123abcd", cipher: encryption.cipher) == nil, "a forged sealed entry opens")
        let whole = EntryContainer.decode(raw), tail = trailerRead(raw)
        check((whole == nil) == (tail == nil), "the trailer read and the whole-file read disagree on whether the entry is intact")
        if let whole, let tail {
            check(whole.binding == tail.binding && whole.payload.count == tail.payloadCount, "the two reads disagree on the binding")
            let written = { (m: DataCacheMetadata, created: Double) in
                EntryContainer.trailer(payloadCount: 0, metadata: m, created: created, binding: nil)
            }
            check(written(whole.metadata, whole.created) == written(tail.metadata, tail.created), "the two reads disagree on the metadata")
        }
    }
}

import Foundation
import PictorCore
import PictorCrypto
@testable import PictorRedis
import Testing

/// Names and values of the shared tier, without Redis: bound to their keys, sealed with a key.
@Suite struct SharedEntryCodecTests {
    static let url = "https://images.example.test/photos/cat.jpg"
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x42, count: 300) + Data([0xFF, 0xD9])
    static let entry = DataCacheEntry(data: jpeg, metadata: DataCacheMetadata(
        etag: "\"v1\"", lastModified: "Tue, 01 Dec 2026 10:00:00 GMT", cacheControl: "max-age=60",
        expiresAt: Date(timeIntervalSince1970: 1_800_000_000), format: .jpeg))

    func plain() throws -> SharedEntryCodec { try SharedEntryCodec(masterKey: nil, namespace: "pictor") }
    func sealed(_ key: EncryptionKey? = nil) throws -> SharedEntryCodec {
        try SharedEntryCodec(masterKey: key ?? EncryptionKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }), namespace: "pictor")
    }

    @Test(arguments: [false, true]) func anEntryRoundTripsWithItsMetadata(encrypted: Bool) throws {
        let codec = encrypted ? try sealed() : try plain()
        let value = try codec.encode(Self.entry, for: Self.url)
        #expect(codec.decode(value, for: Self.url) == Self.entry)
    }

    @Test(arguments: [false, true]) func aValueIsNeverServedForAnotherKey(encrypted: Bool) throws {
        let codec = encrypted ? try sealed() : try plain()
        let value = try codec.encode(Self.entry, for: Self.url)
        #expect(codec.decode(value, for: Self.url + "?v=2") == nil)
        #expect(codec.decode(value, for: "https://images.example.test/photos/dog.jpg") == nil)
    }

    @Test(arguments: [false, true]) func damagedValuesAreNotEntries(encrypted: Bool) throws {
        let codec = encrypted ? try sealed() : try plain()
        let value = try codec.encode(Self.entry, for: Self.url)
        #expect(codec.decode(Data(), for: Self.url) == nil)
        #expect(codec.decode(Data("garbage".utf8), for: Self.url) == nil)
        #expect(codec.decode(value.prefix(40), for: Self.url) == nil)
        #expect(codec.decode(value.dropLast(), for: Self.url) == nil)
        var flipped = value
        flipped[flipped.count / 2] ^= 0x01
        #expect(codec.decode(flipped, for: Self.url) == nil, "one flipped bit anywhere is a miss")
        for index in [0, value.count / 3, value.count - SharedEntryCodec.trailerCount - 2] {
            var damaged = value
            damaged[index] ^= 0x10
            #expect(codec.decode(damaged, for: Self.url) == nil, "bit flipped at \(index)")
        }
        // A header that claims more metadata than there is.
        if !encrypted {
            var lying = value
            lying[lying.count - SharedEntryCodec.trailerCount] = 0xFF
            #expect(codec.decode(lying, for: Self.url) == nil)
            #expect(codec.decode(value.suffix(SharedEntryCodec.trailerCount), for: Self.url) == nil, "no bytes, no entry")
        }
    }

    @Test func aValueSealedWithAnotherKeyIsAMiss() throws {
        let mine = try sealed(EncryptionKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 1) }))
        let theirs = try sealed(EncryptionKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 2) }))
        let value = try theirs.encode(Self.entry, for: Self.url)
        #expect(mine.decode(value, for: Self.url) == nil)
        #expect(mine.name(for: Self.url) != theirs.name(for: Self.url), "another key names entries differently")
        #expect(try plain().decode(value, for: Self.url) == nil)
        #expect(mine.decode(try plain().encode(Self.entry, for: Self.url), for: Self.url) == nil, "a plain value is never taken for a sealed one")
    }

    @Test func namesRevealNothingAndShareAClusterSlotWithTheirLease() throws {
        for codec in [try plain(), try sealed()] {
            let name = codec.name(for: Self.url)
            #expect(!name.contains("example") && !name.contains("cat") && !name.contains("http"))
            #expect(codec.leaseName(for: Self.url).hasPrefix(name))
            #expect(ClusterSlot.hashSlot(for: name) == ClusterSlot.hashSlot(for: codec.leaseName(for: Self.url)))
        }
        #expect(try plain().name(for: Self.url) == "pictor:p1:{\(PictorCrypto.SHA256.hexDigest(Self.url))}")
        #expect(try sealed().name(for: Self.url) != "pictor:e1:{\(PictorCrypto.SHA256.hexDigest(Self.url))}")
    }

    @Test func aSealedValueHoldsNoURLNoHostAndNoImageSignature() throws {
        let value = try sealed().encode(Self.entry, for: Self.url)
        for needle in [Data(Self.url.utf8), Data("images.example.test".utf8), Data([0xFF, 0xD8, 0xFF]), Data("\"v1\"".utf8)] {
            #expect(value.range(of: needle) == nil)
        }
    }
}

import Foundation
import Testing
import PictorCore
import PictorCrypto
@testable import PictorDiskCache

/// Shared fixtures for the encrypted disk cache tests.
enum EncryptedFixtures {
    static let hosts = ["secret-host.example.org", "photos.private-intranet.test"]
    static let urls = [
        "https://secret-host.example.org/albums/holiday/IMG_0001.jpg?token=s3cr3t",
        "https://secret-host.example.org/albums/holiday/IMG_0002.jpg",
        "http://photos.private-intranet.test:8080/people/写真.png",
    ]
    static let masterKey = try! EncryptionKey(bytes: (0..<32).map { UInt8($0) ^ 0x5A })
    static let encryption = try! DiskCacheEncryption(masterKey: masterKey)

    static func configuration(_ directory: TestDirectory, _ encryption: DiskCacheEncryption = encryption,
                              log: LogRecorder = LogRecorder()) -> DiskCache.Configuration {
        var c = DiskCache.Configuration.test(directory, log: log)
        c.encrypt(with: encryption)
        return c
    }

    /// Every regular file under `directory` (entries, index, -wal, -shm, tmp/, lock), with its bytes.
    static func allFiles(in directory: URL) -> [(String, Data)] {
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var out: [(String, Data)] = []
        while let relative = walker.nextObject() as? String {
            let path = directory.path + "/" + relative
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
               let data = fileContents(atPath: path) {
                out.append((relative, data))
            }
        }
        return out
    }
}

@Suite struct EncryptedDiskCacheTests {
    @Test func directoryAndIndexRevealNoURLHostOrPlaintext() throws {
        let directory = TestDirectory()
        let log = LogRecorder()
        let cache = try DiskCache(configuration: EncryptedFixtures.configuration(directory, log: log))
        let marker = "PLAINTEXT-MARKER-\(UUID().uuidString)"
        for (i, url) in EncryptedFixtures.urls.enumerated() {
            cache.store(Data((marker + String(repeating: "x", count: 1000 * i)).utf8), for: url,
                        metadata: DataCacheMetadata(etag: "\"v\(i)\"", format: .jpeg))
        }
        cache.flush()
        for url in EncryptedFixtures.urls { #expect(cache.data(for: url) != nil) }
        cache.flush()  // access times reach the index too
        #expect(FileManager.default.fileExists(atPath: directory.path + "/index.sqlite-wal"))

        var needles = EncryptedFixtures.urls + EncryptedFixtures.hosts + [marker, "albums/holiday", "IMG_0001"]
        needles += EncryptedFixtures.urls.map { SHA256.hexDigest($0) }  // names are not plain hashes
        let files = EncryptedFixtures.allFiles(in: directory.url)
        #expect(files.contains { $0.0 == "index.sqlite" })
        #expect(files.filter { EntryFiles.looksLikeDigest($0.0) }.count == EncryptedFixtures.urls.count)
        for (name, bytes) in files {
            for needle in needles {
                #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(name) contains \(needle)")
                #expect(!name.contains(needle), "file name \(name) contains \(needle)")
                // Also as UTF-16, the other encoding SQLite may store text in.
                if let utf16 = needle.data(using: .utf16LittleEndian) {
                    #expect(bytes.range(of: utf16) == nil, "\(name) contains UTF-16 \(needle)")
                }
            }
        }
        for line in log.messages.map(\.1) {
            for needle in needles { #expect(!line.contains(needle)) }
        }
    }

    @Test func entryFilesAreEnvelopesUnderTheContentKey() throws {
        let directory = TestDirectory()
        let cache = try DiskCache(configuration: EncryptedFixtures.configuration(directory))
        let url = EncryptedFixtures.urls[0]
        let plain = testBytes(5000)
        cache.store(plain, for: url)
        cache.flush()
        let digest = EncryptedFixtures.encryption.keyHashing.digest(for: url)
        let file = try #require(FileManager.default.contents(atPath: directory.path + "/" + digest))
        #expect(file.count == onDiskSize(plain.count) + AESGCMCipher.overheadByteCount)  // entry container (bytes + metadata + footer), sealed
        #expect(Array(file.prefix(4)) == AESGCMCipher.magic)
        #expect(file[5..<13] == EncryptedFixtures.encryption.keyIdentifier)
        #expect(file.range(of: plain.prefix(64)) == nil)
    }

    @Test(arguments: [0, 1, 20 * 1024 * 1024])
    func roundTripThroughDisk(_ size: Int) throws {
        let directory = TestDirectory()
        let url = EncryptedFixtures.urls[1]
        let plain = testBytes(size, seed: UInt64(size) + 7)
        do {
            let cache = try DiskCache(configuration: EncryptedFixtures.configuration(directory))
            cache.store(plain, for: url)
            #expect(cache.data(for: url) == plain, "read-your-writes")
            cache.flush()
        }
        let reopened = try DiskCache(configuration: EncryptedFixtures.configuration(directory))
        #expect(reopened.data(for: url) == plain, "read back from the sealed file")
        #expect(reopened.statistics.corruptEntriesRemoved == 0)
        let digest = EncryptedFixtures.encryption.keyHashing.digest(for: url)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path + "/" + digest)
        #expect((attributes[.size] as? Int) == onDiskSize(size) + AESGCMCipher.overheadByteCount)
    }
}

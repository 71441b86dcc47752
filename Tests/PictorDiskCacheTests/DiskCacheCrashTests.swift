import Foundation
import PictorCore
import PictorTestSupport
import PictorCrypto
import Testing
@testable import PictorDiskCache

/// The values written by `DiskCacheCrashWriter` (same layout as its `payload`).
enum CrashPayload {
    /// A value for `key` (same bytes as the writer's `payload`).
    static func make(key: UInt32, generation: UInt32, length: Int) -> Data {
        var out = [UInt8](repeating: 0, count: max(length, 16))
        out.replaceSubrange(0..<4, with: Array("PCTW".utf8))
        for (offset, value) in [(4, key), (8, generation), (12, UInt32(out.count))] {
            withUnsafeBytes(of: value.littleEndian) { out.replaceSubrange(offset..<offset + 4, with: $0) }
        }
        var state = (UInt64(key) << 32 | UInt64(generation)) &* 0x9E37_79B9_7F4A_7C15 | 1
        for i in 16..<out.count {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            out[i] = UInt8(truncatingIfNeeded: state)
        }
        return Data(out)
    }

    /// The key index and generation in the header, when the whole value is intact.
    static func check(_ data: Data) -> (key: UInt32, generation: UInt32)? {
        guard data.count >= 16, data.prefix(4) == Data("PCTW".utf8) else { return nil }
        func word(_ offset: Int) -> UInt32 {
            data.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        }
        let key = word(4), generation = word(8), length = Int(word(12))
        guard length == data.count else { return nil }
        var state = (UInt64(key) << 32 | UInt64(generation)) &* 0x9E37_79B9_7F4A_7C15 | 1
        let intact = data.withUnsafeBytes { raw in
            for i in 16..<raw.count {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                if raw[i] != UInt8(truncatingIfNeeded: state) { return false }
            }
            return true
        }
        return intact ? (key, generation) : nil
    }
}

/// Runs `DiskCacheCrashWriter`, built by `swift build` next to the test bundle.
struct CrashWriter {
    static var executable: URL? {
        var candidates: [URL] = []
        if let main = Bundle.main.executableURL { candidates.append(main.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(packageRoot().appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent("DiskCacheCrashWriter") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    let process = Process()
    let output = Pipe()

    init(_ arguments: [String]) throws {
        guard let executable = Self.executable else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "DiskCacheCrashWriter (run swift build first)"]) }
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
    }

    /// Reads lines until `count` have arrived (or the process ends); returns the last one.
    func readLines(_ count: Int) -> String? {
        var buffer = Data()
        var seen = 0
        var last: String?
        while seen < count {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: 10) {
                last = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                seen += 1
            }
        }
        return last
    }

    func kill() {
        LoopbackHTTP.kill(process)
    }
}

@Suite(.serialized, .timeLimit(.minutes(5)))
struct DiskCacheCrashTests {
    let directory = TestDirectory()

    @Test func killedWriterNeverLeavesAWrongEntry() throws {
        var rng = SystemRandomNumberGenerator()
        var readBack = 0
        for round in 0..<8 {
            // Given a child writing in a loop, killed with SIGKILL at a random moment
            let writer = try CrashWriter(["crash", directory.path, String(round)])
            _ = writer.readLines(Int.random(in: 1...600, using: &rng))
            writer.kill()

            // When the cache is reopened (recovery runs)
            let log = LogRecorder()
            let cache = try DiskCache(configuration: .test(directory, log: log))

            // Then every entry that reads back is exactly a value that was written for its key
            for key in 0..<64 {
                guard let data = cache.data(for: "k\(key)") else { continue }
                let header = try #require(CrashPayload.check(data), "round \(round): k\(key) corrupt")
                #expect(header.key == UInt32(key))
                readBack += 1
            }
            // And the index matches the files, with no temporary file left
            let listed = cache.entries()
            #expect(Set(listed.map(\.digest)) == directory.entryFileNames(), "round \(round)")
            for entry in listed {
                #expect(cache.files.size(of: entry.digest) == entry.size)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/tmp").isEmpty)
            #expect(cache.verify().corrupt == 0)
        }
        #expect(readBack > 0)
    }

    @Test func twoProcessesShareOneDirectory() throws {
        // Given another process writing and reading 300 entries in the same directory
        let other = try CrashWriter(["write", directory.path, "child", "300"])
        // While this process does the same
        let cache = try DiskCache(configuration: .test(directory))
        for i in 0..<300 {
            let value = testBytes(50 + i, seed: UInt64(i))
            cache.store(value, for: "parent-\(i)")
            if i % 10 == 0 { cache.flush() }
            #expect(cache.data(for: "parent-\(i)") == value)
        }
        cache.flush()
        #expect(other.readLines(1) == "done")
        #expect(LoopbackHTTP.waitForExit(other.process) == 0)

        // Then both sets read back here and from a fresh instance, and totals agree
        let fresh = try DiskCache(configuration: .test(directory))
        for i in 0..<300 {
            #expect(fresh.data(for: "parent-\(i)") == testBytes(50 + i, seed: UInt64(i)))
            let child = try #require(fresh.data(for: "child-\(i)"))
            #expect(CrashPayload.check(child)?.key == UInt32(i))
        }
        #expect(fresh.count == 600)
        #expect(fresh.totalSize == fresh.entries().reduce(0) { $0 + $1.size })
        #expect(fresh.verify() == DiskCache.VerificationReport(checked: 600, valid: 600))
    }
}

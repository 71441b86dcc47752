import Foundation
import PictorCore
import Synchronization
@testable import PictorDiskCache

/// A unique directory under the system temporary directory, removed when released.
final class TestDirectory: Sendable {
    let url: URL
    var path: String { url.path }

    init(_ name: String = #function) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-diskcache-tests")
        url = base.appendingPathComponent("\(name.prefix(40).filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Names of the files in the cache directory that look like entry digests.
    func entryFileNames() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return Set(names.filter { EntryFiles.looksLikeDigest($0) })
    }
}

/// A manual clock in seconds since 1970.
final class TestClock: Sendable {
    private let time = Mutex(1_800_000_000.0)
    var now: Double { time.withLock { $0 } }
    func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
}

/// Collects log messages.
final class LogRecorder: Sendable {
    private let lines = Mutex<[(PictorLog.Level, String)]>([])
    var messages: [(PictorLog.Level, String)] { lines.withLock { $0 } }
    var warnings: [String] { messages.filter { $0.0 == .warning }.map(\.1) }
    var logger: PictorLog { PictorLog(level: .debug) { level, message in self.lines.withLock { $0.append((level, message)) } } }
}

extension DiskCache.Configuration {
    /// A test configuration: no sweep timer, a manual clock, logs recorded.
    static func test(_ directory: TestDirectory, clock: TestClock = TestClock(), log: LogRecorder = LogRecorder()) -> Self {
        var c = DiskCache.Configuration(directory: directory.url)
        c.sweepInterval = nil
        c.logger = log.logger
        c.now = { clock.now }
        return c
    }
}

/// Deterministic bytes of `count` length from `seed`.
func testBytes(_ count: Int, seed: UInt64 = 1) -> Data {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var out = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        out[i] = UInt8(truncatingIfNeeded: state)
    }
    return Data(out)
}

/// The package root, from this file's path.
func packageRoot(_ file: String = #filePath) -> URL {
    URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// The on-disk size of an entry of `count` bytes with only a format in its metadata.
func onDiskSize(_ count: Int, format: ImageFormat? = nil) -> Int {
    count + EntryContainer.trailer(payloadCount: count, metadata: DataCacheMetadata(format: format), created: 0, binding: KeyBinding(key: "")).count
}

/// The bytes of the file at `path`, `nil` when it cannot be read. An empty file is answered
/// without Foundation: swift-foundation 6.3.1 leaks a 4 kB buffer on every read of an empty
/// file (`FileManager.contents(atPath:)`, `Data(contentsOf:)`; LeakSanitizer reports it under
/// scripts/sanitize.sh address), and the index's `-shm`, `-wal` and lock files often are.
func fileContents(atPath path: String) -> Data? {
    var info = stat()
    if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size == 0 { return Data() }
    return FileManager.default.contents(atPath: path)
}

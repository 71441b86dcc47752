// A child process for PictorDiskCacheTests (crash and two-process tests).
//
//   DiskCacheCrashWriter crash <directory> <seed>
//       Stores, overwrites and removes entries "k0"…"k63" forever, printing one line per call
//       (the parent kills it with SIGKILL after a chosen number of lines).
//   DiskCacheCrashWriter write <directory> <prefix> <count>
//       Stores "<prefix>-0"…"<prefix>-<count-1>", reading the cache as it goes, flushes,
//       prints "done" and exits.
//
// Every value is self-describing (see `payload`), so a reader can check any entry byte for byte.
import Foundation
import PictorCore
import PictorDiskCache

/// 16-byte header ("PCTW", key index, generation, total length; little endian) followed by
/// xorshift bytes seeded by (key index, generation). Must match the tests' `CrashPayload`.
func payload(key: UInt32, generation: UInt32, length: Int) -> Data {
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

func line(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: DiskCacheCrashWriter crash DIR SEED | write DIR PREFIX COUNT\n".utf8))
    exit(2)
}
var configuration = DiskCache.Configuration(directory: URL(fileURLWithPath: arguments[2], isDirectory: true))
configuration.sweepInterval = nil
configuration.logger = .disabled

switch arguments[1] {
case "crash":
    configuration.sizeLimit = 3 * 1024 * 1024
    let cache = try DiskCache(configuration: configuration)
    var rng = SystemRandomNumberGenerator()
    var generation = UInt32(arguments[3]) ?? 0
    generation &*= 1_000_000
    var i = 0
    while true {
        let key = UInt32.random(in: 0..<64, using: &rng)
        switch Int.random(in: 0..<20, using: &rng) {
        case 0: cache.removeData(for: "k\(key)")
        case 1: cache.updateMetadata(DataCacheMetadata(etag: "\"\(generation)\""), for: "k\(key)")
        case 2: cache.flush()
        default:
            generation &+= 1
            let length = Int.random(in: 16...150_000, using: &rng)
            cache.store(payload(key: key, generation: generation, length: length), for: "k\(key)")
        }
        if i % 500 == 499 { cache.removeAll() }
        i += 1
        line("\(i)")
    }
case "write":
    let cache = try DiskCache(configuration: configuration)
    let count = Int(arguments[4]) ?? 0
    let prefix = arguments[3]
    for i in 0..<count {
        let value = payload(key: UInt32(i), generation: UInt32(prefix.utf8.count), length: 100 + i * 37)
        cache.store(value, for: "\(prefix)-\(i)")
        if i % 10 == 0 { cache.flush() }
        guard cache.data(for: "\(prefix)-\(i)") == value else {
            line("mismatch \(i)")
            exit(1)
        }
    }
    cache.flush()
    line("done")
default:
    exit(2)
}

import Foundation
import Pictor

/// The disk cache's size limit of a command, and where it came from: `--size-limit`, else a
/// tenth of the space the cache may use on its file system (``defaultLimit(available:cached:)``),
/// as browsers size their caches from the disk they are on. The library's own default, 150 MiB
/// (Nuke's, sized for a phone), would make a warm run over a server's working set download most
/// of it again. `cache stats` prints the limit and its ``origin``.
struct CacheSizeLimit: Sendable, Equatable {
    /// Where a limit came from.
    enum Source: Sendable, Equatable {
        /// `--size-limit`.
        case option
        /// The default: ``defaultLimit(available:cached:)`` of the bytes free to this user on
        /// the cache's file system (`statvfs`'s `f_bavail` blocks) and those the cache's index
        /// records.
        case freeSpace(available: Int64, cached: Int64)
        /// The library's default (``/PictorDiskCache/DiskCache/Configuration/sizeLimit``): the
        /// file system could not be asked (`statvfs` failed with `reason`).
        case libraryDefault(reason: String)
    }

    /// The limit, in bytes.
    let bytes: Int64
    let source: Source

    /// The share of the space the cache may use that the default takes: 10 %.
    static let defaultShare: Int64 = 10
    /// The smallest default: 1 GiB, even on a file system with less room (a cache that cannot
    /// write, because the disk is full, still serves what it holds).
    static let minimumDefault: Int64 = 1 << 30
    /// The largest default: 16 GiB.
    static let maximumDefault: Int64 = 16 << 30

    /// The default limit for a cache holding `cached` bytes on a file system with `available`
    /// bytes free: 10 % of both together, at least ``minimumDefault`` and at most
    /// ``maximumDefault``.
    ///
    /// What the cache holds counts as room it may use, as Firefox's smart sizing counts it:
    /// otherwise a cache that filled its limit would lower its own next default by a tenth of
    /// its size, and the next run would trim it to 70 % of that. Negative inputs count as `0`.
    static func defaultLimit(available: Int64, cached: Int64) -> Int64 {
        min(max(room(available: available, cached: cached) / defaultShare, minimumDefault), maximumDefault)
    }

    /// The space a cache may use: `available` and `cached` together (at most `Int64.max`).
    static func room(available: Int64, cached: Int64) -> Int64 {
        let (sum, overflow) = max(0, available).addingReportingOverflow(max(0, cached))
        return overflow ? Int64.max : sum
    }

    /// The limit of a command: `explicit` (`--size-limit`) when given, else the default for
    /// the cache in `directory`, from its file system's free space (the nearest existing
    /// folder's, when the cache is not created yet) and the size its index records.
    static func resolve(explicit: Int64?, directory: URL) -> CacheSizeLimit {
        if let explicit { return CacheSizeLimit(bytes: explicit, source: .option) }
        switch availableBytes(at: directory) {
        case .success(let available):
            let cached = Int64(DiskCache.recordedSize(in: directory) ?? 0)
            return CacheSizeLimit(bytes: defaultLimit(available: available, cached: cached),
                                  source: .freeSpace(available: available, cached: cached))
        case .failure(let reason):
            let bytes = Int64(DiskCache.Configuration(directory: directory).sizeLimit)
            return CacheSizeLimit(bytes: bytes, source: .libraryDefault(reason: reason.message))
        }
    }

    /// Why the file system could not be asked.
    struct StatFailure: Error {
        let message: String
    }

    /// The bytes an unprivileged user may still write on the file system that holds `directory`,
    /// or its nearest existing ancestor.
    static func availableBytes(at directory: URL) -> Result<Int64, StatFailure> {
        var path = directory.standardizedFileURL.path
        while true {
            var info = statvfs()
            if statvfs(path, &info) == 0 {
                let (bytes, overflow) = Int64(clamping: info.f_bavail).multipliedReportingOverflow(by: Int64(clamping: info.f_frsize))
                return .success(overflow ? Int64.max : bytes)
            }
            let error = errno
            // A cache not created yet lives on its parent's file system.
            guard error == ENOENT, path != "/", !path.isEmpty else {
                return .failure(StatFailure(message: "statvfs \(path): \(String(cString: strerror(error)))"))
            }
            path = (path as NSString).deletingLastPathComponent
        }
    }

    /// For `cache stats`: where the limit came from, e.g. `the default: 10 % of 45.0 GiB (43.8
    /// GiB free on the cache's file system + 1.2 GiB the cache holds), kept within 1 GiB…16 GiB`,
    /// or `raised to the 1 GiB floor` or `capped at 16 GiB` instead of the last part when the
    /// share was out of those bounds.
    var origin: String {
        switch source {
        case .option:
            return "--size-limit"
        case .freeSpace(let available, let cached):
            let room = Self.room(available: available, cached: cached)
            let share = room / Self.defaultShare
            let bound = share < Self.minimumDefault ? "raised to the 1 GiB floor"
                : share > Self.maximumDefault ? "capped at 16 GiB" : "kept within 1 GiB…16 GiB"
            return "the default: \(Self.defaultShare) % of \(Formatting.bytes(room)) (\(Formatting.bytes(available)) free on the "
                + "cache's file system + \(Formatting.bytes(cached)) the cache holds), \(bound)"
        case .libraryDefault(let reason):
            return "the library's default: the free space could not be read (\(reason))"
        }
    }
}

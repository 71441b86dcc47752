import Foundation
import PictorCore

extension DiskCache {
    /// Whether the cache can serve and store entries now: it is enabled (``isEnabled``), not
    /// read-only (``isReadOnly``), and its directory exists and may be written (`access(2)`,
    /// which says yes to root whatever the mode bits, as root's writes succeed). Two system
    /// calls and a lock held for a read; nothing is written.
    ///
    /// A deleted directory is unusable until the next write recreates it (with an empty
    /// index): the entries it held are gone, and a health check that said `usable` would hide
    /// that. A read-only cache still serves its entries but keeps nothing new, so every result
    /// would be made again: unusable as well.
    public var health: TierHealth {
        guard isEnabled else {
            return .unusable(reason: "disabled (its directory cannot be read, or another process changed its key setting)")
        }
        if isReadOnly { return .unusable(reason: "read-only (its directory cannot be written)") }
        var info = stat()
        guard stat(files.directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            return .unusable(reason: "the cache directory is missing")
        }
        guard access(files.directory, W_OK) == 0 else { return .unusable(reason: "the cache directory cannot be written") }
        return .usable
    }
}

import Foundation
import PictorCore
import PictorCrypto

extension DiskCache {
    /// How entry files reach the disk.
    public enum Durability: Sendable, Hashable {
        /// Write a temporary file, `fsync` it, rename it, `fsync` the directory, and commit the
        /// index with `PRAGMA synchronous = FULL`: an entry survives power loss once written.
        case fsync
        /// Write a temporary file and rename it, with no `fsync`; the index uses
        /// `PRAGMA synchronous = NORMAL`. A crash of the process never exposes a partial entry
        /// (the rename is atomic); a power loss may lose the last entries, which then read as
        /// misses. The default: a cache is not a durable store, and an fsync per file costs
        /// 2.35× the time of a plain temp + write + rename for 50 kB entries (Foundation's
        /// `.atomic` write does that fsync; performance.md §1.2, §4.1).
        case fast
    }

    /// A full file system as the cache meets it, injected where the cache writes: the index
    /// (SQLite's own `SQLITE_FULL`, through `PRAGMA max_page_count`, so that reads go on
    /// working) and the entry files (`ENOSPC` from the write). Tests set it; it is off by default.
    struct DiskFull: Sendable, Hashable {
        /// The index cannot grow past this many pages; `nil`: no limit. A new index cannot be
        /// created under `1`; an existing one stops taking new rows under its page count.
        var indexPageLimit: Int?
        /// Every entry file write fails with this `errno` (`ENOSPC`); `nil`: writes work.
        var fileWriteErrno: Int32?
    }

    /// How often opening asks again for the directory alone (an exclusive lock) when writes
    /// interrupted by a crash wait to be replayed, which only an opener alone may do. The lock
    /// is often held elsewhere only for an instant: a child process that another thread is
    /// starting holds a copy of every descriptor between `fork` and `exec`. A process that
    /// keeps the directory open costs the opener `attempts × interval` (100 ms by default),
    /// and only while such writes wait.
    struct ExclusiveRetry: Sendable {
        var attempts = 20
        var interval: Duration = .milliseconds(5)
        /// Told of each refused attempt (1-based), before the wait; tests use it.
        var onRefused: @Sendable (Int) -> Void = { _ in }
    }

    /// What ``DiskCache/init(configuration:)`` does when the directory was written under another
    /// key setting than ``Configuration/cipher``.
    public enum KeyMismatchPolicy: Sendable, Hashable {
        /// Throw ``DiskCacheError/keyMismatch(path:_:)`` and touch nothing. The default: a
        /// wrong `--key-file` must never cost the entries of the right one.
        case fail
        /// Remove every entry (they cannot be read under this setting) and start over under the
        /// configured one; for an explicit "discard what I cannot read" such as a forced
        /// `pictor cache clear`. Other processes still open under the old setting stop writing
        /// (they disable their disk cache with a warning) rather than mix entries.
        case removeEntries
    }

    /// The settings of a ``DiskCache``, fixed at creation.
    ///
    /// ```swift
    /// var configuration = DiskCache.Configuration(directory: cachesURL.appendingPathComponent("images"))
    /// configuration.sizeLimit = 500 * 1024 * 1024
    /// let cache = try DiskCache(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The cache directory, created (with parents) if missing. It holds one file per entry
        /// named by the key digest, `index.sqlite` (+ `-wal`, `-shm`), `lock` and `tmp/`.
        /// Give each cache its own directory: files in it that look like digests are treated
        /// as entries.
        public var directory: URL
        /// The most bytes of entry files kept, in bytes; `150 MiB` by default (Nuke's
        /// `DataCache` default). Crossing it trims to ``trimRatio`` × the limit.
        public var sizeLimit: Int = 150 * 1024 * 1024
        /// Entries not read or written for this many seconds are removed when the cache opens
        /// and by each sweep (see ``sweepInterval``), or by ``DiskCache/removeExpired()``;
        /// `604_800` (7 days) by default, SDWebImage's `maxDiskAge` default. `nil` keeps
        /// entries regardless of age.
        public var maxAge: TimeInterval? = 7 * 24 * 60 * 60
        /// The fraction of ``sizeLimit`` a trim stops at, so that a full cache is not trimmed
        /// again on every write; `0.7` by default (Nuke's `DataCache.trimRatio`). In `0...1`.
        public var trimRatio: Double = 0.7
        /// Seconds between background sweeps (flush of batched access times, age expiry, size
        /// trim); `30` by default (Nuke's `DataCache.sweepInterval`). The age expiry also runs
        /// once when the cache opens. `nil` disables the timer and that first expiry: the size
        /// limit is then enforced after writes and by ``DiskCache/trim()``, the age limit only
        /// by ``DiskCache/removeExpired()`` (what a tool that only inspects a cache wants).
        public var sweepInterval: TimeInterval? = 30
        /// How entries reach the disk; ``Durability/fast`` by default (see there for why).
        public var durability: Durability = .fast
        /// Maps keys to file names and index keys; SHA-256 hex by default. An encrypted cache
        /// passes a keyed hashing (HMAC) so names reveal nothing.
        public var keyHashing: any CacheKeyHashing = SHA256KeyHashing()
        /// Seals every entry file and opens it on read; `nil` (plain files) by default. What is
        /// sealed is the whole entry file (bytes, metadata, footer), with the entry's digest
        /// (UTF-8) as associated data, so an entry moved to another name fails to open. A failed
        /// open is a miss, and the entry is removed and counted in
        /// ``DiskCache/Statistics/corruptEntriesRemoved``. With a cipher the index keeps only
        /// sizes, dates and expiry: format, validators and `userInfo` live only in the sealed
        /// file. A directory written under one cipher (or none) cannot be opened under another;
        /// see ``keyMismatchPolicy`` and ``DiskCache/init(configuration:)``.
        public var cipher: (any DataCipher)? = nil
        /// What opening does when the directory's entries were written under another key
        /// setting (another key, a key for a plain cache, no key for an encrypted one);
        /// ``KeyMismatchPolicy/fail`` by default. See ``DiskCache/init(configuration:)``.
        public var keyMismatchPolicy: KeyMismatchPolicy = .fail
        /// Where warnings (disk full, read-only directory, recovery) go;
        /// ``/PictorCore/PictorLog/standardError`` by default. Messages name entries by digest only.
        public var logger: PictorLog = .standardError
        /// Bytes of staged writes allowed before ``DiskCache/store(_:for:metadata:)`` waits for
        /// the writer; `64 MiB` by default.
        public var maxPendingBytes: Int = 64 * 1024 * 1024

        /// Opens as if the directory could not be written (read-only mode, see
        /// ``DiskCache/isReadOnly``); tests set it, as root writes regardless of permissions.
        var opensReadOnly = false
        /// A full file system, for tests on machines where none can be mounted: see `DiskCache.DiskFull`.
        var diskFull = DiskFull()
        /// How long opening waits for the directory to be its alone when interrupted writes are
        /// to be replayed; tests replace it.
        var exclusiveRetry = ExclusiveRetry()
        /// The clock, in seconds since 1970; tests replace it.
        var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

        /// Creates a configuration for `directory` with the defaults above.
        ///
        /// - Parameter directory: the cache directory; see ``directory``.
        public init(directory: URL) {
            self.directory = directory
        }
    }
}

import Foundation
import PictorCore

/// An advisory `flock` on `<directory>/lock` that tells whether other processes (or other
/// ``DiskCache`` instances) have the directory open.
///
/// Every open cache holds a shared lock for its lifetime. Opening first tries an exclusive
/// lock: when it succeeds, nobody else is using the directory and crash recovery may delete
/// temporary files and replay intents; then the lock is downgraded to shared. Locks belong to
/// the open file description, so they die with the process (no stale lock after SIGKILL).
final class DirectoryLock: Sendable {
    private let fd: Int32

    /// Opens the lock file.
    ///
    /// - Throws: the `errno` of `open` as ``EntryFiles/WriteFailure``.
    init(directory: String) throws(EntryFiles.WriteFailure) {
        let fd = open(directory + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .posix(errno) }
        self.fd = fd
    }

    /// Opens an existing lock file for reading only (a read-only directory, where it cannot be
    /// created or opened for writing; `flock` works on either); `nil` when there is none.
    init?(readingDirectory directory: String) {
        let fd = open(directory + "/lock", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Tries to become the only user; `true` on success (the caller must then ``share()``).
    func tryExclusive() -> Bool { flock(fd, LOCK_EX | LOCK_NB) == 0 }

    /// Tries ``tryExclusive()`` up to `1 + retry.attempts` times, `retry.interval` apart.
    func tryExclusive(_ retry: DiskCache.ExclusiveRetry) -> Bool {
        if tryExclusive() { return true }
        for attempt in 0..<retry.attempts {
            retry.onRefused(attempt + 1)
            Thread.sleep(forTimeInterval: retry.interval.seconds)
            if tryExclusive() { return true }
        }
        return false
    }

    /// Holds a shared lock (waits while another opener runs recovery).
    func share() {
        while flock(fd, LOCK_SH) != 0 && errno == EINTR {}
    }
}

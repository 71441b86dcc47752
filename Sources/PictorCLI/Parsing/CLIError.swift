import Foundation

/// How a command ends badly; each case maps to an exit code.
public enum CLIError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// Bad arguments: exit 64 (`EX_USAGE`, BSD sysexits.h); the message names the bad token.
    case usage(String)
    /// The work failed: exit 1.
    case failure(String)
    /// The disk cache the command was asked to use cannot be used: permission denied, not a
    /// directory, a folder that is not a Pictor cache, an encrypted cache without its key or
    /// with another key, a key for a plain cache, a key file that cannot be used (missing, not
    /// a file, malformed, readable by others), no cache at all for a command that needs one
    /// (`cache stats|list|verify|trim|rekey`), or a read-only cache for a command that must
    /// write it (`cache trim|clear|rekey|rm`). Exit 73 (`EX_CANTCREAT`), before any image is
    /// loaded and before anything in the folder is changed. `--no-cache` runs without one.
    case cacheUnavailable(String)

    /// The process exit code: 64 for ``usage(_:)``, 73 for ``cacheUnavailable(_:)``, 1 for
    /// ``failure(_:)``.
    public var exitCode: Int32 {
        switch self {
        case .usage: ExitCode.usage
        case .failure: ExitCode.failure
        case .cacheUnavailable: ExitCode.cacheUnavailable
        }
    }

    /// A one-line, human-readable description (used in logs and CLI messages).
    public var description: String {
        switch self {
        case .usage(let m), .failure(let m), .cacheUnavailable(let m): m
        }
    }

    /// The same text as ``description``, so that `localizedDescription` logs it.
    public var errorDescription: String? { description }
}

/// Exit codes of `pictor`.
public enum ExitCode {
    /// Success.
    public static let success: Int32 = 0
    /// At least one image failed, or the command failed.
    public static let failure: Int32 = 1
    /// Bad arguments (`EX_USAGE` from BSD sysexits.h).
    public static let usage: Int32 = 64
    /// The disk cache cannot be used: not openable, not a Pictor cache, another key, an unusable
    /// key file, no cache for a command that needs one, or read-only for a command that must
    /// write it (`EX_CANTCREAT` from BSD sysexits.h).
    public static let cacheUnavailable: Int32 = 73
    /// `--offline`: every image that failed has no cached entry, and the network may not be
    /// asked for it (`EX_UNAVAILABLE` from BSD sysexits.h).
    public static let notAvailable: Int32 = 69
    /// Stopped by Ctrl-C (128 + SIGINT, as shells report it).
    public static let interrupted: Int32 = 130
}

extension ExitCode {
    /// The exit code of a run whose images that did not work are `failures`: ``success`` when
    /// there are none, ``notAvailable`` when each is an image `--offline` found no entry for,
    /// else ``failure``.
    static func of(failures: [ImageJob.Result]) -> Int32 {
        if failures.isEmpty { return success }
        return failures.allSatisfy(\.notCached) ? notAvailable : failure
    }
}

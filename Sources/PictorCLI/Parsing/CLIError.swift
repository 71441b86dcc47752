import Foundation

/// How a command ends badly; each case maps to an exit code.
public enum CLIError: Error, Equatable, CustomStringConvertible {
    /// Bad arguments: exit 64 (`EX_USAGE`, BSD sysexits.h); the message names the bad token.
    case usage(String)
    /// The work failed: exit 1.
    case failure(String)

    /// The process exit code: 64 for ``usage(_:)``, 1 for ``failure(_:)``.
    public var exitCode: Int32 {
        switch self {
        case .usage: 64
        case .failure: 1
        }
    }

    /// A one-line, human-readable description (used in logs and CLI messages).
    public var description: String {
        switch self {
        case .usage(let m): m
        case .failure(let m): m
        }
    }
}

/// Exit codes of `pictor`.
public enum ExitCode {
    /// Success.
    public static let success: Int32 = 0
    /// At least one image failed, or the command failed.
    public static let failure: Int32 = 1
    /// Bad arguments (`EX_USAGE` from BSD sysexits.h).
    public static let usage: Int32 = 64
}

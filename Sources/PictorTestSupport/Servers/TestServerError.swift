import Foundation

/// Why a test server could not be started or queried.
public enum TestServerError: Error, Sendable, CustomStringConvertible {
    /// The program the server needs (`nginx`, `python3`) was not found; tests should skip.
    case unavailable(String)
    /// The server process exited or never reported that it was listening; `detail` holds its
    /// error output (or log) when there is one.
    case failedToStart(String)
    /// A loopback request to the server's control endpoint failed.
    case requestFailed(String)

    /// A one-line explanation for test failure messages.
    public var description: String {
        switch self {
        case .unavailable(let what): "test server unavailable: \(what)"
        case .failedToStart(let detail): "test server failed to start: \(detail)"
        case .requestFailed(let detail): "test server request failed: \(detail)"
        }
    }
}

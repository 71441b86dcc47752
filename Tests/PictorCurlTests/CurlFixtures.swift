import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
@testable import PictorCurl
import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// Shared server and helpers for the CurlTransport tests.
enum CurlFixtures {
    /// One fault server for the whole test process (tests isolate themselves with unique keys).
    static let server: FaultServer? = try? FaultServer()

    static var hasServer: Bool { server != nil }

    /// Whether the server can make br bodies (Python's brotli module is installed).
    static let serverSupportsBrotli: Bool = server?.supportsBrotli ?? false

    /// A unique key for server-side state.
    static func key() -> String { UUID().uuidString }

    /// A transport of its own for one test.
    static func transport(_ configure: (inout CurlTransport.Configuration) -> Void = { _ in }) -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configure(&configuration)
        return CurlTransport(configuration: configuration)
    }

    /// A request for `url` with the given limits.
    static func request(
        _ url: URL, method: String = "GET", idleTimeout: Double = 30, timeout: Double = 60,
        reportedTimeout: Double? = nil, maximumBodySize: Int64? = nil, progress: ProgressLog? = nil
    ) -> TransportRequest {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = method
        var callback: (@Sendable (TransferProgress) -> Void)?
        if let progress { callback = { progress.record($0) } }
        return TransportRequest(
            urlRequest: urlRequest, idleTimeout: idleTimeout, timeout: timeout, reportedTimeout: reportedTimeout,
            maximumBodySize: maximumBodySize, progress: callback)
    }

    /// Waits (polling every 10 ms) until `condition` holds or `timeout` seconds pass; returns
    /// whether it held. Used to wait for asynchronous progress and clean-up, never to assert a
    /// duration: the bound (2 minutes) only stops a hang, and a loaded machine may be slow.
    static func waitUntil(timeout: Double = 120, _ condition: () throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return try condition()
    }

    /// Waits until the transport's event thread holds no transfer and no body memory.
    static func isDrained(_ transport: CurlTransport) async -> Bool {
        guard let statistics = transport.loop?.statistics else { return false }
        return await waitUntil {
            statistics.liveTransfers.load(ordering: .relaxed) == 0 && statistics.bufferedBytes.load(ordering: .relaxed) == 0
        }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on (bound to port 0, read back, closed).
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether ThreadSanitizer's or AddressSanitizer's runtime is in the process (the test binary
    /// exports its entry points when built with `--sanitize`).
    static let sanitizerIsLoaded: Bool = ["__tsan_init", "__asan_init"].contains { (name: String) in
        dlsym(nil, name) != nil // nil: RTLD_DEFAULT, the global scope
    }

    /// The process's resident set high-water mark (`VmHWM`), in bytes.
    static func peakResidentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }

    /// Resets `VmHWM` to the current resident size (Linux `clear_refs` value 5); `false` when
    /// the kernel does not allow it, and under a sanitizer (scripts/sanitize.sh), whose shadow
    /// memory and freed-memory quarantine grow with every allocation of the suites running
    /// beside the test, so that a bound on the peak measures them, not the transport.
    static func resetPeakResidentBytes() -> Bool {
        guard !sanitizerIsLoaded else { return false }
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }
}

/// Collects progress values.
final class ProgressLog: Sendable {
    private let values = Mutex<[TransferProgress]>([])
    func record(_ progress: TransferProgress) { values.withLock { $0.append(progress) } }
    var recorded: [TransferProgress] { values.withLock { $0 } }
}

/// The error `send` fails with, as a `DataLoadingError`; records an issue when it succeeds or
/// throws anything else.
func failure(_ send: () async throws -> Void) async -> DataLoadingError? {
    do {
        try await send()
        Issue.record("the request succeeded")
        return nil
    } catch {
        #expect(error is DataLoadingError, "\(error)")
        return error as? DataLoadingError
    }
}

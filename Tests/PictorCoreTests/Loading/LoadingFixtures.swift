import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
import PictorTestSupport
import Synchronization

/// Shared servers and helpers for the loading tests.
enum LoadingFixtures {
    /// One fault server for the whole test process (tests isolate themselves with unique keys);
    /// the Python process exits with the test process.
    static let faultServer: FaultServer? = try? FaultServer()

    /// `../shared/corpus` relative to the package root.
    static let corpus: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }   // Loading, PictorCoreTests, Tests
        return url.deletingLastPathComponent().appendingPathComponent("shared/corpus", isDirectory: true)
    }()

    static var hasFaultServer: Bool { faultServer != nil }

    /// A unique key for server-side state.
    static func key() -> String { UUID().uuidString }

    /// A loader for tests: backoff waits skipped and recorded.
    static func loader(_ configure: (inout DataLoader.Configuration) -> Void = { _ in }, sleeps: SleepRecorder? = nil) -> DataLoader {
        var configuration = DataLoader.Configuration()
        let recorder = sleeps ?? SleepRecorder()
        configuration.sleep = { seconds in recorder.record(seconds) }
        configure(&configuration)
        return DataLoader(configuration: configuration)
    }
}

/// Records the backoff delays a loader asked for, without waiting.
final class SleepRecorder: Sendable {
    private let delays = Mutex<[Double]>([])
    func record(_ seconds: Double) { delays.withLock { $0.append(seconds) } }
    var recorded: [Double] { delays.withLock { $0 } }
}

/// Collects progress values.
final class ProgressRecorder: Sendable {
    private let values = Mutex<[TransferProgress]>([])
    private let bytes = Mutex(Data())
    func record(_ chunk: Data, _ progress: TransferProgress) {
        values.withLock { $0.append(progress) }
        bytes.withLock { $0.append(chunk) }
    }
    var recorded: [TransferProgress] { values.withLock { $0 } }
    var data: Data { bytes.withLock { $0 } }
}

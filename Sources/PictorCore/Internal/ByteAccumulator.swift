import Foundation
import Synchronization

/// A thread-safe growing byte buffer, used to collect streamed chunks.
final class ByteAccumulator: Sendable {
    private let storage = Mutex(Data())

    func append(_ chunk: Data) { storage.withLock { $0.append(chunk) } }

    var data: Data { storage.withLock { $0 } }
}

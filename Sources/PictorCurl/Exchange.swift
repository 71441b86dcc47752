import Foundation
import PictorCore
import Synchronization

/// One call of ``CurlTransport/send(_:)``: the request, its limits, and the caller's continuation
/// behind a ``TransferStateMachine``.
///
/// The calling task and the event thread both hold it; the lock is held only for a transition,
/// never while resuming the caller or calling libcurl.
final class Exchange: Sendable {
    typealias Continuation = CheckedContinuation<ReceivedResponse, any Error>

    /// Unique within one transport; names the exchange in cancellation messages.
    let id: UInt64
    let request: TransportRequest
    /// The request URL, checked to be `http` or `https`.
    let url: URL
    /// When ``CurlTransport/send(_:)`` was called, on the monotonic clock (nanoseconds): the
    /// overall timeout counts from here.
    let submitted: UInt64
    /// The header list and method, prepared by the calling task.
    let headers: CurlRequestHeaders
    private let machine = Mutex(TransferStateMachine<Continuation>())

    init(id: UInt64, request: TransportRequest, url: URL, submitted: UInt64, headers: CurlRequestHeaders) {
        self.id = id
        self.request = request
        self.url = url
        self.submitted = submitted
        self.headers = headers
    }

    /// Hands over the caller's continuation; `true` when the exchange must be posted to the event
    /// thread, `false` when it was already cancelled (the continuation is then resumed here).
    func enqueue(_ continuation: Continuation) -> Bool {
        switch machine.withLock({ $0.enqueue(continuation) }) {
        case .submit:
            return true
        case .resumeCancelled(let continuation):
            continuation.resume(throwing: CancellationError())
            return false
        }
    }

    /// Resumes the caller with `CancellationError` at once; `true` when the event thread must
    /// also remove the running easy handle.
    func cancel() -> Bool {
        switch machine.withLock({ $0.cancel() }) {
        case .none:
            return false
        case .resumeCancelled(let continuation):
            continuation.resume(throwing: CancellationError())
            return false
        case .resumeCancelledAndRemove(let continuation):
            continuation.resume(throwing: CancellationError())
            return true
        }
    }

    /// On the event thread: whether to create the easy handle (`false` once cancelled).
    func start() -> Bool {
        switch machine.withLock({ $0.start() }) {
        case .run: true
        case .skip: false
        }
    }

    /// Whether the caller still waits (progress is not reported after a cancellation).
    var isWaiting: Bool { machine.withLock { $0.isWaiting } }

    /// Resumes the caller with `result`, unless it was resumed already (cancelled).
    func finish(_ result: Result<ReceivedResponse, any Error>) {
        let succeeded = if case .success = result { true } else { false }
        switch machine.withLock({ $0.finish(succeeded: succeeded) }) {
        case .resume(let continuation): continuation.resume(with: result)
        case .discard: break
        }
    }
}

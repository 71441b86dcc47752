internal import CCurl
import Foundation
import PictorCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The event thread's loop: owns the multi handle and one ``CurlTransfer`` per running exchange.
///
/// One iteration: take the mailbox (start new exchanges, remove cancelled ones), let libcurl
/// do what its sockets allow (`curl_multi_perform`), settle the transfers its callbacks
/// touched (idle clocks, progress), finish completed transfers, fail expired ones, then sleep
/// in `curl_multi_poll` until a socket is ready, libcurl's next timer, the next deadline of
/// ours, or a wakeup from the mailbox. Nothing spins: a stalled or idle transport sleeps.
///
/// Deadlines are checked lazily: ``nextCheck`` is a lower bound of every transfer's deadline
/// (arrivals only move idle deadlines later), so the transfers are scanned only when it passes.
final class CurlMultiRunner {
    private let loop: CurlEventLoop
    private let multi: UnsafeMutableRawPointer
    let configuration: CurlTransport.Configuration
    private var transfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var transfersByID: [UInt64: CurlTransfer] = [:]
    private var touchedTransfers: [CurlTransfer] = []
    private var nextCheck = UInt64.max
    /// Easy handles of finished transfers, reset, for the next ones: saves libcurl's per-handle
    /// set-up and its receive buffer allocation on every request.
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// Response-body buffers for reuse; they outlive the runner while bodies are alive.
    let bufferPool = BodyBufferPool()

    /// How many idle easy handles are kept.
    static let maximumIdleHandles = 16

    /// The longest sleep in `curl_multi_poll`, in milliseconds. Wakeups and libcurl's timers end
    /// a sleep earlier; this only bounds the damage of a lost wakeup.
    static let maximumPoll: UInt64 = 10_000

    init(loop: CurlEventLoop) {
        self.loop = loop
        self.multi = loop.multi.raw
        self.configuration = loop.configuration
    }

    func run() {
        while true {
            let mail = loop.takeMail()
            if mail.shutdown {
                close(unstarted: mail.submissions)
                return
            }
            for exchange in mail.submissions { start(exchange) }
            for id in mail.cancellations {
                if let transfer = transfersByID[id] { remove(transfer) }
            }
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            let now = CurlLibrary.now()
            settleTouched(now: now)
            finishCompleted()
            failExpired(now: now)
            _ = curl_multi_poll(multi, nil, 0, pollTimeout(now: now), nil)
        }
    }

    /// Called by a transfer's callbacks the first time they run in an iteration.
    func touched(_ transfer: CurlTransfer) {
        touchedTransfers.append(transfer)
    }

    // MARK: Steps

    private func start(_ exchange: Exchange) {
        guard exchange.start() else { return }
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            exchange.finish(.failure(DataLoadingError.transport(code: URLError.unknown.rawValue, message: "curl_easy_init failed")))
            return
        }
        let transfer = CurlTransfer(exchange: exchange, easy: easy, runner: self, statistics: loop.statistics)
        do {
            try transfer.configure(configuration)
        } catch {
            exchange.finish(.failure(error))
            return
        }
        let added = curl_multi_add_handle(multi, easy)
        guard added == CURLM_OK else {
            let message = String(cString: curl_multi_strerror(added))
            exchange.finish(.failure(DataLoadingError.transport(code: URLError.unknown.rawValue, message: message)))
            return
        }
        transfers[easy] = transfer
        transfersByID[exchange.id] = transfer
        nextCheck = min(nextCheck, transfer.nextDeadline)
    }

    /// Restarts the idle clock of every transfer that received something, and reports progress.
    private func settleTouched(now: UInt64) {
        guard !touchedTransfers.isEmpty else { return }
        for transfer in touchedTransfers {
            transfer.isTouched = false
            transfer.lastActivity = now
            nextCheck = min(nextCheck, transfer.nextDeadline)
            if transfer.head.isComplete { transfer.reportProgress() }
        }
        touchedTransfers.removeAll(keepingCapacity: true)
    }

    private func finishCompleted() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = transfers[easy] else { continue }
            // Read before the removal: the message belongs to the handle, and the result reads
            // the handle's information.
            let code = message.pointee.data.result
            let result = transfer.result(code)
            remove(transfer)
            transfer.exchange.finish(result)
        }
    }

    private func failExpired(now: UInt64) {
        guard now >= nextCheck else { return }
        var next = UInt64.max
        var expired: [(CurlTransfer, DataLoadingError)] = []
        for transfer in transfers.values {
            let request = transfer.exchange.request
            if now >= transfer.overallDeadline {
                expired.append((transfer, .timedOut(seconds: request.reportedTimeout)))
            } else if let idle = transfer.idleDeadline, now >= idle {
                expired.append((transfer, .idleTimeout(seconds: request.idleTimeout)))
            } else {
                next = min(next, transfer.nextDeadline)
            }
        }
        nextCheck = next
        for (transfer, error) in expired {
            remove(transfer)
            transfer.exchange.finish(.failure(error))
        }
    }

    private func pollTimeout(now: UInt64) -> Int32 {
        guard nextCheck > now else { return 0 }
        let milliseconds = (nextCheck - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, Self.maximumPoll))
    }

    /// Takes the transfer's handle out of the multi handle, which closes its connection unless
    /// the response was complete, and keeps the handle for reuse when there is room. The
    /// transfer is freed when the caller drops it.
    private func remove(_ transfer: CurlTransfer) {
        curl_multi_remove_handle(multi, transfer.easy.raw)
        if idleHandles.count < Self.maximumIdleHandles {
            curl_easy_reset(transfer.easy.raw)
            transfer.detachHandle()
            idleHandles.append(transfer.easy.raw)
        }
        transfers[transfer.easy.raw] = nil
        transfersByID[transfer.exchange.id] = nil
        if transfer.isTouched, let index = touchedTransfers.firstIndex(where: { $0 === transfer }) {
            touchedTransfers.remove(at: index)
        }
    }

    /// Fails every exchange left (running or never started) and cleans up the multi handle.
    private func close(unstarted: [Exchange]) {
        let error = CurlTransport.shutDownError
        for transfer in Array(transfers.values) {
            remove(transfer)
            transfer.exchange.finish(.failure(error))
        }
        for exchange in unstarted { exchange.finish(.failure(error)) }
        touchedTransfers.removeAll()
        for easy in idleHandles { curl_easy_cleanup(easy) }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
    }
}

internal import CCurl
internal import CCurlShim
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The part of the event loop other threads talk to: a mailbox of new exchanges and
/// cancellations, and `curl_multi_wakeup` to interrupt the event thread's `curl_multi_poll`.
///
/// The event thread (a `Thread`, not a task of the cooperative pool: it blocks in
/// `curl_multi_poll`) runs a ``CurlMultiRunner``, which owns the multi handle and every easy
/// handle. It ends after ``shutdown()``, when it has failed what was left and cleaned up the
/// multi handle.
final class CurlEventLoop: Sendable {
    /// The multi handle, shared only so that other threads can call `curl_multi_wakeup` on it
    /// (libcurl documents that call as thread-safe). Everything else on it happens on the event
    /// thread. The mailbox lock orders wakeups before the handle's cleanup.
    struct MultiHandle: @unchecked Sendable {
        let raw: UnsafeMutableRawPointer
    }

    /// What the event thread takes from the mailbox in one go.
    struct Mail {
        var submissions: [Exchange]
        var cancellations: [UInt64]
        var shutdown: Bool
    }

    private struct Mailbox {
        var submissions: [Exchange] = []
        var cancellations: [UInt64] = []
        var shutdownRequested = false
        /// The event thread, once it runs; only read while it is known to be alive.
        var thread: pthread_t?
        /// The event thread's kernel id (its `/proc/self/task` entry), once it runs.
        var threadID: pid_t?

        var isEmpty: Bool { submissions.isEmpty && cancellations.isEmpty && !shutdownRequested }
    }

    private let mailbox = Mutex(Mailbox())
    let multi: MultiHandle
    let configuration: CurlTransport.Configuration
    let statistics = CurlStatistics()

    /// Creates the multi handle and starts the event thread; `nil` when libcurl cannot be
    /// initialised (its global init failed, or out of memory).
    init?(configuration: CurlTransport.Configuration) {
        guard CurlLibrary.initialized, let raw = curl_multi_init() else { return nil }
        self.multi = MultiHandle(raw: raw)
        self.configuration = configuration
        let perHost = max(1, configuration.maximumConnectionsPerHost)
        let total = max(perHost, configuration.maximumConnections)
        _ = pcurl_multi_setopt_long(raw, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = pcurl_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, perHost)
        _ = pcurl_multi_setopt_long(raw, CURLMOPT_MAX_TOTAL_CONNECTIONS, total)
        _ = pcurl_multi_setopt_long(raw, CURLMOPT_MAXCONNECTS, total)
        let thread = Thread { [self] in
            mailbox.withLock {
                $0.thread = pthread_self()
                $0.threadID = CurlLibrary.currentThreadID()
            }
            CurlMultiRunner(loop: self).run()
        }
        thread.name = "PictorCurl"
        thread.start()
    }

    /// Posts a new exchange; `false` once the loop is shut down.
    func submit(_ exchange: Exchange) -> Bool {
        mailbox.withLock { box in
            guard !box.shutdownRequested else { return false }
            // One wakeup per batch: a pending one is sticky, and the thread drains everything.
            if box.isEmpty { curl_multi_wakeup(multi.raw) }
            box.submissions.append(exchange)
            return true
        }
    }

    /// Asks the event thread to remove the running exchange `id` (its caller has been resumed).
    func cancel(_ id: UInt64) {
        mailbox.withLock { box in
            guard !box.shutdownRequested else { return }
            if box.isEmpty { curl_multi_wakeup(multi.raw) }
            box.cancellations.append(id)
        }
    }

    /// Asks the event thread to fail what is left, clean up and end; idempotent.
    func shutdown() {
        mailbox.withLock { box in
            guard !box.shutdownRequested else { return }
            if box.isEmpty { curl_multi_wakeup(multi.raw) }
            box.shutdownRequested = true
        }
    }

    /// On the event thread: everything posted since the last call. After it returned
    /// `shutdown == true`, nothing wakes the multi handle any more and it may be cleaned up.
    func takeMail() -> Mail {
        mailbox.withLock { box in
            defer {
                box.submissions.removeAll()
                box.cancellations.removeAll()
            }
            return Mail(submissions: box.submissions, cancellations: box.cancellations, shutdown: box.shutdownRequested)
        }
    }

    /// The event thread's kernel thread id, once it started (for tests that check it ends).
    var eventThreadID: pid_t? { mailbox.withLock { $0.threadID } }

    /// CPU time the event thread has used so far, in seconds; `nil` before it started or once a
    /// shutdown was requested (the thread may be gone). For tests that check it does not spin.
    func eventThreadCPUTime() -> Double? {
        mailbox.withLock { box -> Double? in
            guard !box.shutdownRequested, let thread = box.thread else { return nil }
            var clock = clockid_t()
            guard pthread_getcpuclockid(thread, &clock) == 0 else { return nil }
            var time = timespec()
            guard clock_gettime(clock, &time) == 0 else { return nil }
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
    }
}

/// Counters the event thread keeps for tests and diagnostics: easy handles alive and body
/// buffer memory. Written by the event thread only.
final class CurlStatistics: Sendable {
    /// Transfers alive (each holds an easy handle, a header list, an error buffer); idle
    /// handles kept for reuse are not counted.
    let liveTransfers = Atomic<Int>(0)
    /// Bytes allocated for response bodies still held by the transport (not yet handed over).
    let bufferedBytes = Atomic<Int>(0)
    /// The largest ``bufferedBytes`` seen.
    let peakBufferedBytes = Atomic<Int>(0)
    /// Responses that came over HTTP/2.
    let http2Responses = Atomic<Int>(0)

    func bufferChanged(by delta: Int) {
        guard delta != 0 else { return }
        let now = bufferedBytes.add(delta, ordering: .relaxed).newValue
        if now > peakBufferedBytes.load(ordering: .relaxed) { peakBufferedBytes.store(now, ordering: .relaxed) }
    }
}

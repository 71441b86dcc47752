import Foundation
import PictorService
import Synchronization

/// What the daemon's callbacks and the request tasks share: routing, the suspended
/// connections, the in-flight count the drain waits on, and the access log.
///
/// Lock order: ``registry`` before an exchange's state, and libmicrohttpd's own locks
/// (taken inside suspend and resume) after both; nothing here is called by libmicrohttpd
/// while it holds one of its locks.
final class ServerCore: Sendable {
    let service: ImageService
    let configuration: ImageServer.Configuration

    struct Registry {
        /// Exchanges suspended while their answer is made, by identity: only these may be
        /// resumed, each once.
        var suspended: [ObjectIdentifier: Exchange] = [:]
        /// Exchanges that went to the service and whose connection has not finished with them.
        var inFlight = 0
        var draining = false
        var drainingRefusals = 0
        /// Requests whose client hung up while their answer was being made.
        var clientAborts = 0
        /// Requests logged 499: the client left before its answer was sent (the hang-ups
        /// above, and clients gone by the time their answer was written).
        var closedByClient = 0
        /// Requests the server refused before the service saw them, by status: its own 414
        /// and 431, and libmicrohttpd's refusals.
        var refusalsByStatus: [Int: Int] = [:]
        var idleWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelledWaiters: Set<Int> = []
        var nextWaiter = 0
    }
    let registry = Mutex(Registry())
    /// Cuts off connections that do not finish a request head in time.
    let headDeadline: HeadDeadline
    /// Notices clients that hang up while their connection is suspended.
    let hangUpWatch = HangUpWatch()
    /// Connections closed on purpose by refusing the access call (a client that hung up), whose
    /// "internal error" message from libmicrohttpd is not yet dropped: the close is ours, not
    /// an error.
    private let deliberateCloses = Atomic<Int>(0)
    static let internalErrorMessage = "Application reported internal error"

    init(service: ImageService, configuration: ImageServer.Configuration) {
        self.service = service
        self.configuration = configuration
        headDeadline = HeadDeadline(timeout: .seconds(configuration.headerTimeout))
        hangUpWatch.start { [weak self] exchanges in self?.clientsHungUp(exchanges) }
    }

    /// Stops the server's own threads (the head deadline's and the hang-up watch's).
    func stopWatching() {
        headDeadline.stop()
        hangUpWatch.stop()
    }

    // MARK: Connections

    func connectionOpened(_ connection: ConnectionHandle, socket: Int32) {
        headDeadline.opened(connection.key, socket: socket)
    }

    /// A request line arrived on the exchange's connection.
    func started(_ exchange: Exchange) {
        headDeadline.exchangeStarted(exchange.connection.key)
    }

    /// A connection closed. One cut off by the head deadline before its first request line gets
    /// an access-log line of its own (408, method and target unknown); one cut off within a
    /// request was logged with that request, and one cut off after its last exchange was an idle
    /// keep-alive connection.
    func connectionClosed(_ connection: ConnectionHandle, client: String) {
        guard let waited = headDeadline.closed(connection.key) else { return }
        countRefusal(Self.headerTimeoutStatus)
        guard let format = configuration.accessLog else { return }
        let entry = AccessLogLine.Entry(
            time: Date(), client: client, method: "-", target: "-", status: Self.headerTimeoutStatus, bytes: 0,
            milliseconds: waited.milliseconds)
        log(AccessLogLine.render(entry, as: format))
    }

    /// The status logged (and counted) for a connection cut off by the head deadline: 408
    /// Request Timeout, as nginx logs its `client_header_timeout`; nothing is sent.
    static let headerTimeoutStatus = 408

    private func countRefusal(_ status: Int) {
        registry.withLock { $0.refusalsByStatus[status, default: 0] += 1 }
    }

    func log(_ line: String) { configuration.logSink(line) }

    /// A message of the server's own (libmicrohttpd's errors), in the access log's format: a
    /// JSON object in json mode, so that the sink receives only JSON lines.
    func logMessage(_ message: String) {
        if message.hasPrefix(Self.internalErrorMessage), takeDeliberateClose() { return }
        log((configuration.accessLog ?? .text).messageLine("pictor-server: " + message))
    }

    /// Counts one deliberate close as reported; `false` when none was owed.
    private func takeDeliberateClose() -> Bool {
        var owed = deliberateCloses.load(ordering: .relaxed)
        while owed > 0 {
            let (exchanged, original) = deliberateCloses.compareExchange(
                expected: owed, desired: owed - 1, ordering: .relaxed)
            if exchanged { return true }
            owed = original
        }
        return false
    }

    // MARK: The access handler

    /// One call of the access handler; `false` closes the connection.
    func access(_ exchange: Exchange, _ call: AccessCall) -> Bool {
        if call.uploadBytes > 0 {
            let total = exchange.state.withLock { state in
                state.discardedBytes += call.uploadBytes
                return state.discardedBytes
            }
            guard total > configuration.maxDiscardedBodyBytes else { return true }
            // A chunked body that grew over the limit. libmicrohttpd 0.9.75 takes a response
            // only before the body or after all of it, so the connection is closed unanswered,
            // and logged and counted 413 (not 499: the client did not leave). Its "internal
            // error" message for the refused call is dropped.
            exchange.state.withLock { $0.status = 413 }
            countRefusal(413)
            deliberateCloses.add(1, ordering: .relaxed)
            return false
        }
        let phase = exchange.state.withLock { state in
            let phase = state.phase
            if case .started = phase {
                state.phase = .headerRead
                state.method = call.method
            }
            return phase
        }
        switch phase {
        case .started:
            // The first call: the head is read; a body, if any, is read (and dropped) before
            // the next call, still under the head deadline, which the next call stops.
            if let refusal = headRefusal(exchange, call) {
                countRefusal(refusal.status)
                return answer(exchange, call, refusal, closes: true)
            }
            // Read once, here: the framing check needs them before any body is read, and the
            // service gets the same list.
            let headers = call.connection.headers()
            if let refusal = exchange.targetIsWellFormed
                ? RequestFraming.refusal(headers, version: call.version)
                : Self.plain(400, "the request target has a control byte or is not UTF-8 (percent-encode them)") {
                countRefusal(refusal.status)
                return answer(exchange, call, refusal, closes: true)
            }
            exchange.state.withLock { $0.headers = headers }
            // A body declared over the limit is refused before a byte of it is read.
            if let declared = RequestFraming.declaredLength(headers), declared > configuration.maxDiscardedBodyBytes {
                return answerBodyTooLarge(exchange, call)
            }
            return true
        case .headerRead:
            // The request is whole (head and body): its deadline is met.
            headDeadline.headRead(exchange.connection.key)
            return route(exchange, call)
        case .ready(let response, let closes):
            return answer(exchange, call, response, closes: closes)
        case .working, .answered:
            return true
        case .abandoned:
            // Resumed only to be closed (logged 499, no bytes; the work was cancelled already).
            // Refusing the call closes it now; accepting it would leave it to the idle
            // timeout, since libmicrohttpd does not read while it waits for an answer, and
            // hold its descriptor and slot that long. libmicrohttpd logs the refusal as an
            // application error, which `logMessage` drops.
            deliberateCloses.add(1, ordering: .relaxed)
            return false
        }
    }

    /// A plain 414 or 431 for a head over ``ImageServer/Configuration/maxHeaderBytes``, the
    /// server's own limit, under libmicrohttpd's memory pool so that the refusal is ours.
    private func headRefusal(_ exchange: Exchange, _ call: AccessCall) -> ServiceResponse? {
        let limit = configuration.maxHeaderBytes
        // `METHOD SP target SP HTTP/1.1 CRLF`
        let requestLine = call.method.utf8.count + exchange.target.utf8.count + 12
        if requestLine > limit {
            return Self.plain(414, "the request line is longer than \(limit) bytes")
        }
        if call.headBytes > limit {
            return Self.plain(431, "the request header is larger than \(limit) bytes")
        }
        return nil
    }

    /// 413 for a body declared over the limit, the connection closed after it (the body is
    /// never read), as nginx answers a body over `client_max_body_size`.
    private func answerBodyTooLarge(_ exchange: Exchange, _ call: AccessCall) -> Bool {
        let refusal = Self.plain(413, "the request body is larger than \(configuration.maxDiscardedBodyBytes) bytes")
        countRefusal(refusal.status)
        return answer(exchange, call, refusal, closes: true)
    }

    private func route(_ exchange: Exchange, _ call: AccessCall) -> Bool {
        if exchange.path == "/health" || exchange.path == "/metrics", call.method != "GET", call.method != "HEAD" {
            var refusal = Self.plain(405, "method not allowed (GET and HEAD only)")
            refusal.headers.append(("Allow", "GET, HEAD"))
            return answer(exchange, call, refusal, closes: false)
        }
        switch exchange.path {
        case "/health":
            if registry.withLock({ $0.draining }) { return answer(exchange, call, Self.plain(503, "draining"), closes: true) }
            // A probe made within the service's interval answers at once; otherwise the
            // connection waits for one (a Redis PING, bounded by the service's timeout) as an
            // image request waits for its image.
            if let recent = service.recentHealth { return answer(exchange, call, Self.healthResponse(recent), closes: false) }
            return suspend(exchange, call) { [service] in Self.healthResponse(await service.health()) }
        case "/metrics":
            var response = ServiceResponse(status: 200, headers: [("Content-Type", PrometheusMetrics.contentType), ("Cache-Control", "no-store"),
                                                                  ("X-Content-Type-Options", "nosniff")])
            response.body = Data(metricsPage().utf8)
            return answer(exchange, call, response, closes: false)
        default:
            break
        }
        let request = ServiceRequest(method: call.method, path: exchange.target, headers: exchange.state.withLock { $0.headers })
        // A refusal or a result in memory is answered on this thread: no task, no suspension,
        // no wake-up of the daemon's thread to resume (the warm path's tail latency).
        if !registry.withLock({ $0.draining }), let response = service.immediateResponse(to: request) {
            return answer(exchange, call, response, closes: false)
        }
        return suspend(exchange, call) { [service] in await service.handle(request) }
    }

    /// Suspends the exchange's connection while `work` makes its answer on Swift's task pool
    /// (counted in flight, so that the drain waits for it), and resumes it with the answer; a
    /// request that comes once the drain has begun is answered 503 at once.
    private func suspend(_ exchange: Exchange, _ call: AccessCall, work: @escaping @Sendable () async -> ServiceResponse) -> Bool {
        let admitted = registry.withLock { registry -> Bool in
            guard !registry.draining else {
                registry.drainingRefusals += 1
                return false
            }
            registry.suspended[ObjectIdentifier(exchange)] = exchange
            hangUpWatch.watch(exchange)
            registry.inFlight += 1
            exchange.state.withLock {
                $0.phase = .working
                $0.counted = true
            }
            // Under the lock, so that the task's resume (which takes it) comes after.
            call.connection.suspend()
            return true
        }
        guard admitted else { return answer(exchange, call, Self.shuttingDown, closes: true) }
        let task = Task { [self] in
            let response = await work()
            finish(exchange, with: response)
        }
        let unwanted = exchange.state.withLock { state in
            state.task = task
            return state.workCancelled
        }
        // The client hung up (or the drain answered) before the task was stored.
        if unwanted { task.cancel() }
        return true
    }

    private func answer(_ exchange: Exchange, _ call: AccessCall, _ response: ServiceResponse, closes: Bool) -> Bool {
        let sent = call.connection.queue(response, head: call.method == "HEAD", closes: closes)
        exchange.state.withLock { state in
            state.phase = .answered
            state.status = response.status
            state.bytesSent = sent ?? 0
        }
        return sent != nil
    }

    /// The answer is made: hands it to the connection and resumes it, unless the drain
    /// already answered it.
    private func finish(_ exchange: Exchange, with response: ServiceResponse) {
        registry.withLock { registry in
            guard registry.suspended.removeValue(forKey: ObjectIdentifier(exchange)) != nil else { return }
            hangUpWatch.unwatch(exchange)
            let closes = registry.draining
            exchange.state.withLock { $0.phase = .ready(response, closes: closes) }
            Connection(handle: exchange.connection).resume()
        }
    }

    /// The clients of `exchanges` hung up while their answers were being made: each one still
    /// suspended is resumed to be closed (logged 499 with no bytes) and its work cancelled.
    /// Work it shares with other requests goes on for them: the service leaves a shared job
    /// when one of its requests is cancelled, and stops it only when none waits any more.
    private func clientsHungUp(_ exchanges: [Exchange]) {
        let tasks = registry.withLock { registry -> [Task<Void, Never>] in
            var tasks: [Task<Void, Never>] = []
            for exchange in exchanges {
                // Absent when its answer was made (and its connection resumed) meanwhile.
                guard registry.suspended.removeValue(forKey: ObjectIdentifier(exchange)) != nil else { continue }
                registry.clientAborts += 1
                exchange.state.withLock { state in
                    state.phase = .abandoned
                    state.workCancelled = true
                    if let task = state.task { tasks.append(task) }
                }
                Connection(handle: exchange.connection).resume()
            }
            return tasks
        }
        tasks.forEach { $0.cancel() }
    }

    /// The connection is done with `exchange` (its response sent, or the connection closed).
    func completed(_ exchange: Exchange, clientWentAway: Bool, queuedStatus: Int?) {
        let state = exchange.state.withLock { $0 }
        let cut = headDeadline.wasCut(exchange.connection.key)
        headDeadline.exchangeEnded(exchange.connection.key)
        if state.counted {
            let waiters = registry.withLock { registry -> [CheckedContinuation<Void, Never>] in
                registry.inFlight -= 1
                guard registry.inFlight == 0 else { return [] }
                defer { registry.idleWaiters.removeAll() }
                return Array(registry.idleWaiters.values)
            }
            waiters.forEach { $0.resume() }
        }
        // No status of ours: libmicrohttpd's when it refused the request itself (a head over its
        // memory pool, a malformed header), 408 when the head deadline cut it off, else 499
        // (nginx's "client closed request"): the client left before its answer.
        var status = state.status
        if status == nil, let queuedStatus {
            status = queuedStatus
            countRefusal(queuedStatus)
        } else if status == nil, cut {
            status = Self.headerTimeoutStatus
            countRefusal(Self.headerTimeoutStatus)
        } else if status == nil, clientWentAway || state.method != "-" {
            status = 499
            registry.withLock { $0.closedByClient += 1 }
        }
        guard let format = configuration.accessLog else { return }
        let entry = AccessLogLine.Entry(
            time: exchange.arrivalDate, client: exchange.client, method: state.method, target: exchange.target,
            status: status, bytes: state.bytesSent, milliseconds: (ContinuousClock.now - exchange.arrival).milliseconds)
        log(AccessLogLine.render(entry, as: format))
    }

    // MARK: Metrics

    var serverCounters: PrometheusMetrics.ServerCounters {
        registry.withLock { registry in
            var counters = PrometheusMetrics.ServerCounters()
            counters.inFlight = registry.inFlight
            counters.drainingRefusals = registry.drainingRefusals
            counters.clientAborts = registry.clientAborts
            counters.closedByClient = registry.closedByClient
            counters.draining = registry.draining
            counters.refusalsByStatus = registry.refusalsByStatus
            return counters
        }
    }

    func metricsPage() -> String {
        PrometheusMetrics.render(service.metrics, server: serverCounters)
    }

    // MARK: Drain

    /// Starts the drain: requests from now on are answered 503. `false` when it had started.
    func beginDrain() -> Bool {
        registry.withLock { registry in
            guard !registry.draining else { return false }
            registry.draining = true
            return true
        }
    }

    /// Waits until no request is in flight, or `timeout` seconds; `true` when none is.
    func waitUntilIdle(timeout: Double) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.waitUntilIdle(); return true }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func waitUntilIdle() async {
        let id = registry.withLock { registry in
            registry.nextWaiter += 1
            return registry.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = registry.withLock { registry -> Bool in
                    if registry.inFlight == 0 || registry.cancelledWaiters.remove(id) != nil { return true }
                    registry.idleWaiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let continuation = registry.withLock { registry -> CheckedContinuation<Void, Never>? in
                if let continuation = registry.idleWaiters.removeValue(forKey: id) { return continuation }
                registry.cancelledWaiters.insert(id)
                return nil
            }
            continuation?.resume()
        }
    }

    /// Answers every request still being made with 503 and cancels its work: after this no
    /// connection is suspended, so the daemon may stop.
    func answerRemaining() {
        let tasks = registry.withLock { registry -> [Task<Void, Never>] in
            var tasks: [Task<Void, Never>] = []
            for exchange in registry.suspended.values {
                hangUpWatch.unwatch(exchange)
                exchange.state.withLock { state in
                    state.phase = .ready(Self.shuttingDown, closes: true)
                    state.workCancelled = true
                    if let task = state.task { tasks.append(task) }
                }
                Connection(handle: exchange.connection).resume()
            }
            registry.suspended.removeAll()
            return tasks
        }
        tasks.forEach { $0.cancel() }
    }

    // MARK: Responses of the server's own

    static let shuttingDown = plain(503, "the server is shutting down")

    /// 200 with the health report's text, or 503 when a tier is unusable.
    static func healthResponse(_ health: ServiceHealth) -> ServiceResponse {
        plain(health.isHealthy ? 200 : 503, String(health.text.dropLast()))
    }

    static func plain(_ status: Int, _ text: String) -> ServiceResponse {
        let body = Data((text + "\n").utf8)
        return ServiceResponse(
            status: status,
            headers: [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.count)), ("Cache-Control", "no-store"),
                      ("X-Content-Type-Options", "nosniff")],
            body: body)
    }
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) * 1e-15
    }
}

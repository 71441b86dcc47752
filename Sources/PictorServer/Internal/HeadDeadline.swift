import Foundation
import PictorCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The deadline for a request's head (and body): every open connection must finish its next
/// request (request line, header fields and any body) within ``timeout`` of opening, or of the
/// end of its previous exchange. libmicrohttpd's own timeout only closes a connection that stays silent,
/// so a client that trickles a byte at a time would otherwise hold its connection, and enough of
/// them every connection slot (slowloris).
///
/// The one owner of that deadline: the daemon tells it when a connection opens, reads a head,
/// finishes an exchange and closes; a thread of its own looks every ``tick`` and shuts down the
/// socket of each connection past its deadline (`shutdown(2)`, not `close`: libmicrohttpd sees
/// the end of the stream and closes the connection itself, on its own thread).
///
/// A socket is only shut down while its connection is registered, under the lock that its
/// closing notification takes: libmicrohttpd closes the descriptor after that notification, so
/// a descriptor number reused by a later connection is never touched.
final class HeadDeadline: Sendable {
    /// What is known of one open connection.
    private struct Watched {
        let socket: Int32
        /// When the head must be complete; `nil` while an exchange is under way.
        var deadline: ContinuousClock.Instant?
        /// When the clock last started (the connection opened, or its last exchange ended).
        var clockStart: ContinuousClock.Instant
        /// Whether the deadline passed and the socket was shut down.
        var cut = false
        /// Whether a request line arrived since the last exchange ended: a cut then ends that
        /// exchange, which is logged with it.
        var inExchange = false
        /// Whether an exchange ended on the connection: a cut between exchanges is then an idle
        /// keep-alive connection's end.
        var served = false
    }

    private struct State {
        var connections: [UInt: Watched] = [:]
        var running = true
        var cuts = 0
    }

    /// How long a connection may take to send a request head.
    let timeout: Duration
    /// How often the deadlines are looked at: a connection is cut between `timeout` and
    /// `timeout + tick` after its clock started.
    let tick: Duration
    private let state = Mutex(State())

    /// Starts the watching thread.
    init(timeout: Duration) {
        self.timeout = timeout
        tick = min(.seconds(1), max(.milliseconds(100), timeout / 4))
        let thread = Thread { [self] in watch() }
        thread.name = "pictor-head-deadline"
        thread.start()
    }

    /// A connection opened on `socket`: its clock starts.
    func opened(_ connection: UInt, socket: Int32) {
        let now = ContinuousClock.now
        state.withLock { $0.connections[connection] = Watched(socket: socket, deadline: now + timeout, clockStart: now) }
    }

    /// The request line of the connection's next request arrived (its head is still being read).
    func exchangeStarted(_ connection: UInt) {
        state.withLock { $0.connections[connection]?.inExchange = true }
    }

    /// The connection's request is complete (head and body): no deadline while its exchange
    /// lasts.
    func headRead(_ connection: UInt) {
        state.withLock { $0.connections[connection]?.deadline = nil }
    }

    /// The connection's exchange ended; the next request's head has `timeout` from now (so an
    /// idle keep-alive connection is also closed after it).
    func exchangeEnded(_ connection: UInt) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.connections[connection]?.cut == false else { return }
            state.connections[connection]?.deadline = now + timeout
            state.connections[connection]?.clockStart = now
            state.connections[connection]?.inExchange = false
            state.connections[connection]?.served = true
        }
    }

    /// Whether the connection was cut off by its deadline (and is closing for it).
    func wasCut(_ connection: UInt) -> Bool {
        state.withLock { $0.connections[connection]?.cut ?? false }
    }

    /// The connection closed: when its deadline cut it off before it sent a complete request
    /// line, having served none, how long it had been trying; `nil` otherwise (a cut within an
    /// exchange ends that exchange, and a cut after one is an idle keep-alive connection's end).
    func closed(_ connection: UInt) -> Duration? {
        guard let watched = state.withLock({ $0.connections.removeValue(forKey: connection) }),
              watched.cut, !watched.inExchange, !watched.served
        else { return nil }
        return ContinuousClock.now - watched.clockStart
    }

    /// Connections cut off so far.
    var cuts: Int { state.withLock { $0.cuts } }

    /// Ends the watching thread (within a ``tick``); connections are no longer cut.
    func stop() {
        state.withLock { $0.running = false }
    }

    private func watch() {
        while true {
            Thread.sleep(forTimeInterval: tick.seconds)
            let now = ContinuousClock.now
            let running = state.withLock { state -> Bool in
                guard state.running else { return false }
                for (connection, watched) in state.connections {
                    guard !watched.cut, let deadline = watched.deadline, deadline <= now else { continue }
                    // Under the lock: the connection is still registered, so its descriptor is
                    // still its own.
                    shutdown(watched.socket, Int32(SHUT_RDWR))
                    state.connections[connection]?.cut = true
                    state.cuts += 1
                }
                return true
            }
            if !running { return }
        }
    }
}

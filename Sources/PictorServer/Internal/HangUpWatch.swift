import Foundation
import PictorCore
#if canImport(Glibc)
import Glibc
#endif

/// Notices a client that hangs up while its request is suspended. libmicrohttpd does not watch
/// a suspended connection, so without this a client that leaves is only noticed when its
/// answer is written, and the work for it runs to the end (or to the request timeout).
///
/// The one owner of that watch: ``ServerCore`` registers an exchange when it suspends its
/// connection and unregisters it before it resumes it; a thread of its own looks at the
/// registered sockets every ``interval`` (one `poll(2)` over all of them, then
/// `recv(MSG_PEEK | MSG_DONTWAIT)` on each readable one, as nginx's `ngx_http_test_reading`
/// does) and reports each one at the end of its stream (`recv` returns 0) or in error (a reset)
/// to the `hungUp` callback, after dropping it. Bytes waiting (a pipelined next request) are
/// not a hang-up; so a client that pipelines a request and then closes is only noticed when
/// its answer is written.
///
/// A socket is only looked at while its exchange is registered, under the lock that
/// unregistering takes: a registered exchange's connection is suspended, and libmicrohttpd
/// neither closes nor reuses the descriptor of a suspended connection, so it is that
/// connection's own.
final class HangUpWatch: @unchecked Sendable {
    // `@unchecked Sendable`: `watched`, `running` and `looks` are read and written under
    // `condition` alone.
    private let condition = NSCondition()
    private var watched: [ObjectIdentifier: Exchange] = [:]
    private var running = true
    private var looks = 0
    /// How often the registered sockets are looked at: a hang-up is noticed within about this
    /// long of it.
    let interval: Duration

    /// A watch that looks every `interval` once ``start(reporting:)`` is called.
    init(interval: Duration = .milliseconds(200)) {
        self.interval = interval
    }

    /// Starts the watching thread (once), which waits without waking while nothing is
    /// registered. `hungUp` receives the exchanges whose client hung up, on that thread, with no
    /// lock held; it is released when the thread ends (``stop()``).
    func start(reporting hungUp: @escaping @Sendable ([Exchange]) -> Void) {
        let thread = Thread { [self] in watch(reporting: hungUp) }
        thread.name = "pictor-hang-up-watch"
        thread.start()
    }

    /// Watches `exchange`'s socket from now until ``unwatch(_:)`` or a hang-up; call it before
    /// its connection is suspended or right after, before it can be resumed.
    func watch(_ exchange: Exchange) {
        condition.withLock {
            if watched.isEmpty { condition.signal() }
            watched[ObjectIdentifier(exchange)] = exchange
        }
    }

    /// Stops watching `exchange`; call it before its connection is resumed.
    func unwatch(_ exchange: Exchange) {
        condition.withLock { _ = watched.removeValue(forKey: ObjectIdentifier(exchange)) }
    }

    /// Times the registered sockets were looked at (while any was registered).
    var lookCount: Int { condition.withLock { looks } }

    /// Ends the watching thread (within an ``interval``); nothing is reported after it.
    func stop() {
        condition.withLock {
            running = false
            watched.removeAll()
            condition.signal()
        }
    }

    private func watch(reporting hungUp: ([Exchange]) -> Void) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            while running && watched.isEmpty { condition.wait() }
            guard running else { return }
            // Woken early only by a first registration or the stop; either way, look (or end).
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval.seconds))
            guard running else { return }
            let gone = lookForHangUps()
            looks += 1
            guard !gone.isEmpty else { continue }
            condition.unlock()
            hungUp(gone)
            condition.lock()
        }
    }

    /// Under the lock: the registered exchanges whose client hung up, unregistered.
    private func lookForHangUps() -> [Exchange] {
        let exchanges = Array(watched.values)
        var sockets = exchanges.map { pollfd(fd: $0.socket, events: Int16(POLLIN), revents: 0) }
        guard !sockets.isEmpty, poll(&sockets, nfds_t(sockets.count), 0) > 0 else { return [] }
        var gone: [Exchange] = []
        for (exchange, socket) in zip(exchanges, sockets) where socket.revents != 0 && Self.isAtEnd(socket.fd) {
            watched.removeValue(forKey: ObjectIdentifier(exchange))
            gone.append(exchange)
        }
        return gone
    }

    /// Whether the peer of `socket` closed it or reset it: a peek that reads the end of the
    /// stream, or fails with anything but "no data yet". Bytes waiting are not an end.
    static func isAtEnd(_ socket: Int32) -> Bool {
        var byte: UInt8 = 0
        let received = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if received > 0 { return false }
        if received == 0 { return true }
        return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
    }
}

import Foundation
internal import CMicroHTTPD
internal import CMicroHTTPDShim

/// The libmicrohttpd daemon of one server: started on a listening socket, with the callbacks
/// that route every request to a ``ServerCore``. The one file that starts, quiesces and stops
/// it; ``Connection`` holds the calls made on one connection.
final class Daemon: @unchecked Sendable {
    // `@unchecked Sendable`: `pointer` and `logger` are written once in `init`; `quiesce` and
    // `stop` are called once each, in order, by ``ServerCore`` under its own lock.
    private let pointer: OpaquePointer
    private let logger: UnsafeMutablePointer<pmhd_logger>
    private let core: Unmanaged<ServerCore>

    /// Starts the daemon on `socket` for `core` (kept alive until ``stop()``).
    init(socket: ListeningSocket, configuration: ImageServer.Configuration, core: ServerCore) throws(ServerError) {
        let coreReference = Unmanaged.passRetained(core)
        let context = coreReference.toOpaque()
        logger = .allocate(capacity: 1)
        logger.initialize(to: pmhd_logger(function: { context, message in
            guard let context, let message else { return }
            Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().logMessage(String(cString: message))
        }, context: context))
        var settings = pmhd_settings(
            listen_fd: socket.descriptor, threads: UInt32(configuration.workers),
            connection_timeout: UInt32(configuration.idleTimeout), connection_limit: UInt32(configuration.maxConnections),
            per_ip_connection_limit: UInt32(configuration.maxConnectionsPerIP),
            memory_limit: ImageServer.connectionMemory(forHeaderBytes: configuration.maxHeaderBytes))
        guard let daemon = pmhd_start_daemon(
            &settings, Daemon.access, context, Daemon.completed, context, Daemon.started, context, Daemon.notified, context, logger)
        else {
            coreReference.release()
            logger.deallocate()
            throw ServerError(.daemonFailed, "libmicrohttpd could not start on \(socket.address)")
        }
        pointer = daemon
        self.core = coreReference
    }

    /// Stops accepting connections; the listening socket is the caller's to close afterwards.
    func quiesce() {
        _ = MHD_quiesce_daemon(pointer)
    }

    /// Closes every connection and joins the daemon's threads. Every suspended connection must
    /// have been resumed first: libmicrohttpd aborts the process otherwise.
    func stop() {
        MHD_stop_daemon(pointer)
        logger.deallocate()
        core.release()
    }

    private static func server(_ context: UnsafeMutableRawPointer?) -> ServerCore {
        Unmanaged<ServerCore>.fromOpaque(context!).takeUnretainedValue()
    }

    /// A request line arrived: its raw target, before libmicrohttpd decodes it, starts the
    /// exchange (the signature is over the bytes as sent).
    private static let started: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
        context, uri, connection in
        guard let connection else { return nil }
        // Decoded once: validated, else repaired (U+FFFD) for the log of its refusal.
        let validated = uri.flatMap { String(validatingCString: $0) }
        let target = validated ?? uri.map { String(cString: $0) } ?? ""
        let exchange = Exchange(
            target: Exchange.originForm(of: target), targetIsWellFormed: uri == nil || validated.map(Exchange.isWellFormed) == true,
            client: clientAddress(connection),
            connection: ConnectionHandle(pointer: connection), socket: pmhd_connection_fd(connection))
        server(context).started(exchange)
        return Unmanaged.passRetained(exchange).toOpaque()
    }

    private static func clientAddress(_ connection: OpaquePointer) -> String {
        var client = [CChar](repeating: 0, count: 64)
        _ = pmhd_client_address(connection, &client, client.count)
        return String(decoding: client.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A connection opened or closed.
    private static let notified: MHD_NotifyConnectionCallback = { context, connection, _, code in
        guard let connection else { return }
        let core = server(context)
        let handle = ConnectionHandle(pointer: connection)
        if code == .CONNECTION_NOTIFY_STARTED {
            core.connectionOpened(handle, socket: pmhd_connection_fd(connection))
        } else {
            core.connectionClosed(handle, client: clientAddress(connection))
        }
    }

    private static let access: MHD_AccessHandlerCallback = {
        context, connection, _, method, version, _, uploadSize, exchangeSlot in
        guard let connection, let exchangeSlot, let raw = exchangeSlot.pointee else { return .NO }
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeUnretainedValue()
        let call = AccessCall(
            connection: Connection(handle: ConnectionHandle(pointer: connection)),
            method: method.map { String(cString: $0) } ?? "-",
            version: version.map { String(cString: $0) } ?? "",
            uploadBytes: uploadSize?.pointee ?? 0,
            headBytes: pmhd_request_head_size(connection))
        let verdict = server(context).access(exchange, call)
        if call.uploadBytes > 0 { uploadSize?.pointee = 0 }
        return verdict ? .YES : .NO
    }

    private static let completed: MHD_RequestCompletedCallback = { context, connection, exchangeSlot, termination in
        guard let exchangeSlot, let raw = exchangeSlot.pointee else { return }
        exchangeSlot.pointee = nil
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeRetainedValue()
        // The status libmicrohttpd queued, for a request it refused itself (its 431 or 414 for a
        // head over its memory pool, its 400 for a malformed header).
        let queued = connection.map { Int(pmhd_queued_status($0)) } ?? 0
        server(context).completed(
            exchange, clientWentAway: termination != .REQUEST_TERMINATED_COMPLETED_OK, queuedStatus: queued > 0 ? queued : nil)
    }
}

/// One call of the access handler, as ``ServerCore`` reads it.
struct AccessCall {
    let connection: Connection
    let method: String
    /// The request line's version, `HTTP/1.1` or `HTTP/1.0`.
    let version: String
    /// Body bytes delivered by this call (thrown away).
    let uploadBytes: Int
    /// Bytes of the request's head (request line and header fields), once it is read.
    let headBytes: Int
}

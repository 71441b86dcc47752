import Foundation

extension ImageServer {
    /// How an ``ImageServer`` listens, how many threads serve its connections, its limits on
    /// clients, and its access log. Every value has a default.
    ///
    /// The limits protect the threads and memory of the server from slow or greedy clients;
    /// the image work itself is bounded by ``/PictorService/ImageService/Configuration``
    /// (its in-flight limit answers 429, its request timeout 504).
    public struct Configuration: Sendable {
        /// Where to listen. Default ``ListenAddress/default`` (`127.0.0.1:8080`).
        public var listen: ListenAddress = .default
        /// Threads that accept connections, read requests and write responses (libmicrohttpd's
        /// thread pool, each thread with its own epoll loop), 1...256. Default: the number of
        /// active cores. They never wait for image work: a request is suspended while its
        /// answer is made on Swift's task pool, and resumed when it is ready.
        public var workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
        /// Seconds a connection may stay idle — no byte of the request's header or body
        /// received, no byte of the response sent — before it is closed, 1...3600. Default 10.
        /// It is libmicrohttpd's one connection timeout: it cuts off a client that stops
        /// sending in the middle of its header or body, and an idle keep-alive connection. A
        /// client that trickles a byte within every period is cut off by ``headerTimeout``
        /// instead. A request being answered is not idle.
        public var idleTimeout: Int = 10
        /// Seconds a connection has to send a complete request (request line, header fields
        /// and body, if any), counted from its opening and again from the end of each exchange
        /// on it, 1...3600. Default 10. A connection past it is closed without an answer
        /// (logged 408); this is what stops clients that trickle their header or a body a byte
        /// at a time to hold every connection (slowloris), which the idle timeout cannot. It also closes a keep-alive connection idle for that long between requests.
        /// Checked a few times a second: a connection may last up to a second longer.
        public var headerTimeout: Int = 10
        /// The most connections open at once, 1...65536, divided among the ``workers``. A
        /// connection over it is not accepted: it waits in the kernel's listen queue (1,024
        /// deep) until another closes. Default 1,024.
        public var maxConnections: Int = 1024
        /// The most connections open at once from one client IP address (an IPv6 address as a
        /// whole), 1...65536. Default 128: above the 100 concurrent connections of the service's
        /// own benchmarks and tests from `127.0.0.1`. A connection over it is accepted and closed
        /// at once. Peers on a Unix socket are not counted. Behind a proxy on this machine every
        /// connection comes from the proxy's address: raise it to ``maxConnections``, or listen
        /// on a Unix socket.
        public var maxConnectionsPerIP: Int = 128
        /// The largest request head (request line and header fields) answered, in bytes,
        /// 4,096...1,048,576. Default 32,768. A larger one is answered 414 (URI Too Long) when
        /// the request line alone is over it, else 431 (Request Header Fields Too Large), each
        /// with a one-line `text/plain` body, and the connection closed. Each connection's
        /// memory (libmicrohttpd's pool, which holds the head and the response's header) is
        /// twice this, so that the head can be read
        /// whole and refused by the server; a head beyond that is refused by libmicrohttpd
        /// itself, with the same status but its own HTML body (its status is still logged).
        /// Keep it above the parser's ``/PictorService/ServiceLimits/maxPathLength`` plus the
        /// usual header fields.
        public var maxHeaderBytes: Int = 32 << 10
        /// Request body bytes read and thrown away: an image request has no body, and every
        /// method that would send one is answered 405. A body declared over it is answered 413
        /// before it is read, and its connection closed; a chunked body that grows over it is
        /// closed unanswered (libmicrohttpd takes no answer mid-body), logged and counted 413.
        /// Default 65,536.
        public var maxDiscardedBodyBytes: Int = 64 << 10
        /// The access log's format, or `nil` for none. Default ``AccessLogFormat/text``.
        public var accessLog: AccessLogFormat? = .text
        /// Where access-log lines (without their line feed) and libmicrohttpd's own error
        /// messages (prefixed `pictor-server: `, in the access log's format: a JSON object
        /// with ``AccessLogFormat/json``, see ``AccessLogFormat/messageLine(_:time:)``) go.
        /// Default: standard error, one `write` per line so that lines from several threads
        /// never interleave.
        public var logSink: @Sendable (String) -> Void = ImageServer.standardErrorSink

        /// The defaults.
        public init() {}
    }

    /// Bytes of libmicrohttpd's per-connection memory pool for a head limit of `headerBytes`:
    /// twice it, so that a head over the limit still fits and is refused by the server.
    static func connectionMemory(forHeaderBytes headerBytes: Int) -> Int { 2 * headerBytes }

    /// Writes `line` and a line feed to standard error in one `write(2)`.
    public static let standardErrorSink: @Sendable (String) -> Void = { line in
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }
}

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
        /// sending in the middle of its header or body, and an idle keep-alive connection, but
        /// a client that trickles a byte within every period keeps its connection (the
        /// connection limit bounds how many can). A request being answered is not idle.
        public var idleTimeout: Int = 10
        /// The most connections open at once, 1...65536, divided among the ``workers``. A
        /// connection over it is not accepted: it waits in the kernel's listen queue (1,024
        /// deep) until another closes. Default 1,024.
        public var maxConnections: Int = 1024
        /// Bytes each connection may use for the request line, its header fields and the
        /// response's header (libmicrohttpd's per-connection memory pool), 4,096...1,048,576.
        /// Default 32,768. A request whose line and header do not fit is answered by
        /// libmicrohttpd itself: 431 (Request Header Fields Too Large), or 414 when the request
        /// line alone is too long, and the connection closed. Keep it above the parser's
        /// ``/PictorService/ServiceLimits/maxPathLength`` plus the usual header fields.
        public var maxHeaderBytes: Int = 32 << 10
        /// Request body bytes read and thrown away before the connection is closed: an image
        /// request has no body, and every method that would send one is answered 405.
        /// Default 65,536.
        public var maxDiscardedBodyBytes: Int = 64 << 10
        /// The access log's format, or `nil` for none. Default ``AccessLogFormat/text``.
        public var accessLog: AccessLogFormat? = .text
        /// Where access-log lines (without their line feed) and libmicrohttpd's own error
        /// messages (prefixed `pictor-server: `) go. Default: standard error, one `write` per
        /// line so that lines from several threads never interleave.
        public var logSink: @Sendable (String) -> Void = ImageServer.standardErrorSink

        /// The defaults.
        public init() {}
    }

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

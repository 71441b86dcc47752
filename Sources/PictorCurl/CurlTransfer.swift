internal import CCurl
internal import CCurlShim
import Foundation
import PictorCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The event thread's side of one exchange: the easy handle, its error buffer,
/// the response head and body as they arrive, and the exchange's deadlines.
///
/// Confined to the event thread (libcurl calls the callbacks from `curl_multi_perform` there).
/// libcurl's callbacks get an unretained pointer to it; ``CurlMultiRunner`` keeps it alive
/// while its easy handle is in the multi handle, and `deinit` frees everything libcurl was given
/// (and the easy handle, unless the runner took it back for reuse, see ``detachHandle()``); the
/// header list belongs to the exchange.
final class CurlTransfer {
    let exchange: Exchange
    let easy: EasyHandle
    /// Whether `deinit` cleans up the easy handle (`false` once the runner took it back).
    private var ownsHandle = true
    /// libcurl's message for this transfer (`CURLOPT_ERRORBUFFER`).
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// The server's certificates as this transfer's handshakes saw them (`pcurl_tls_watch`),
    /// for an HTTPS transfer that verifies them; freed with the transfer.
    var tlsWatch: OpaquePointer?
    private unowned let runner: CurlMultiRunner
    private let statistics: CurlStatistics

    var head = ResponseHeadParser()
    var body: ResponseBodyBuffer
    /// Whether the request is a HEAD (no body follows the head).
    let isHead: Bool
    let acceptsEncoding: Bool
    /// The cap from the request, for ``DataLoadingError/responseTooLarge(limit:)``.
    let maximumBodySize: Int64?
    /// Why a callback stopped the transfer (libcurl then reports `CURLE_WRITE_ERROR`).
    private(set) var abortReason: DataLoadingError?
    /// The decoded length the body will have (unencoded `Content-Length`), or `-1`.
    private(set) var expectedLength: Int64 = -1
    /// The body bytes last passed to the progress callback, `-1` before the first call.
    private(set) var reportedBytes: Int64 = -1
    /// The buffer capacity last counted in ``CurlStatistics``.
    private var accountedCapacity = 0
    /// Bytes of header lines received so far, every head of the transfer (interim ones too).
    private var headBytes = 0
    /// The addresses the connect-address policy refused for this transfer, in the order libcurl
    /// tried them (a few at most: one per address the name resolved to).
    private(set) var refusedAddresses: [(address: IPAddress, kind: AddressClass)] = []

    /// The most header bytes a transfer takes, in all its heads: 256 kB. Real image responses
    /// send a few hundred bytes; libcurl's own limit (300 kB in all) fails as a receive error,
    /// which reads as a lost connection and was retried.
    static let maximumHeadSize = 256 * 1024
    /// The message of the ``DataLoadingError/transport(code:message:)`` (`badServerResponse`)
    /// for a head over ``maximumHeadSize``.
    static let oversizedHeadMessage = "the response head is larger than 256 kB"

    /// When the exchange fails with ``DataLoadingError/timedOut(seconds:)`` (monotonic ns).
    let overallDeadline: UInt64
    /// The idle timeout in nanoseconds.
    let idleInterval: UInt64
    /// The last time a byte arrived, or the connection became ready; `nil` before that (the
    /// idle clock does not run while the transfer waits for a connection: that wait is bounded
    /// by the connect and overall timeouts).
    var lastActivity: UInt64?
    /// Whether a callback ran since the runner last looked (see ``CurlMultiRunner``).
    var isTouched = false

    init(exchange: Exchange, easy: UnsafeMutableRawPointer, runner: CurlMultiRunner, statistics: CurlStatistics) {
        self.exchange = exchange
        self.easy = EasyHandle(raw: easy)
        self.runner = runner
        self.statistics = statistics
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        let request = exchange.request
        maximumBodySize = request.maximumBodySize
        body = ResponseBodyBuffer(limit: request.maximumBodySize.map { Int(clamping: $0) }, pool: runner.bufferPool)
        isHead = exchange.headers.method == "HEAD"
        acceptsEncoding = runner.configuration.acceptsEncoding
        overallDeadline = CurlLibrary.adding(exchange.submitted, CurlLibrary.nanoseconds(request.timeout))
        idleInterval = CurlLibrary.nanoseconds(request.idleTimeout)
        statistics.liveTransfers.add(1, ordering: .relaxed)
    }

    deinit {
        if ownsHandle { curl_easy_cleanup(easy.raw) }
        errorBuffer.deallocate()
        pcurl_tls_watch_free(tlsWatch)
        body.release()
        trackBuffer()
        statistics.liveTransfers.subtract(1, ordering: .relaxed)
    }

    /// Gives up the easy handle, which the runner has reset (so it no longer points at this
    /// transfer's callbacks, the exchange's header list or the error buffer) and keeps for the
    /// next transfer.
    func detachHandle() { ownsHandle = false }

    /// When the idle timeout fires, or `nil` while the idle clock does not run.
    var idleDeadline: UInt64? { lastActivity.map { CurlLibrary.adding($0, idleInterval) } }

    /// The earlier of the two deadlines.
    var nextDeadline: UInt64 { min(overallDeadline, idleDeadline ?? .max) }

    // MARK: Callbacks (event thread, inside curl_multi_perform)

    /// `CURLOPT_PREREQFUNCTION`: a connection is ready and the request is about to be sent, so
    /// the idle clock starts.
    func connectionReady() { touch() }

    /// `CURLOPT_OPENSOCKETFUNCTION`: a socket for a connection to `address`, or
    /// `CURL_SOCKET_BAD` when the transport's policy refuses the address (libcurl then tries
    /// the name's next address, or fails with `CURLE_COULDNT_CONNECT`). Anything but IPv4 and
    /// IPv6 is refused: the policy cannot judge it.
    func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        var bytes = [UInt8](repeating: 0, count: 16)
        let ip: IPAddress? = switch pcurl_sockaddr_ip(address, &bytes) {
        case 4: .v4(bytes[0], bytes[1], bytes[2], bytes[3])
        case 16: .v6(bytes)
        default: nil
        }
        guard let ip else { return CURL_SOCKET_BAD }
        if let refused = runner.configuration.connectAddressPolicy.refusal(of: ip) {
            if refusedAddresses.count < 8 { refusedAddresses.append((ip, refused)) }
            return CURL_SOCKET_BAD
        }
        // What libcurl does without this callback.
        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    }

    /// `CURLOPT_HEADERFUNCTION`: one header line; returns `line.count` to go on, `0` to abort.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Int {
        touch()
        headBytes += line.count
        if headBytes > Self.maximumHeadSize {
            abortReason = .transport(code: URLError.badServerResponse.rawValue, message: Self.oversizedHeadMessage)
            return 0
        }
        guard head.consume(line) == .finalResponseEnded else { return line.count }
        body.removeAll()
        let status = head.statusCode ?? 0
        let hasBody = !isHead && status != 204 && status != 304
        let declared = head.contentLength
        let unencoded = !(acceptsEncoding && head.isContentEncoded)
        expectedLength = hasBody && unencoded ? declared ?? -1 : -1
        if hasBody, unencoded, let declared, let limit = maximumBodySize, declared > limit {
            // Refused before any body byte is read; the connection is closed.
            abortReason = .responseTooLarge(limit: limit)
            return 0
        }
        if expectedLength > 0 {
            guard body.reserve(Int(clamping: expectedLength)) else { return outOfMemory() }
            trackBuffer()
        }
        reportProgress()
        return line.count
    }

    /// `CURLOPT_WRITEFUNCTION`: decoded body bytes; returns `length` to go on, `0` to abort.
    func receiveBody(_ bytes: UnsafeRawPointer, count length: Int) -> Int {
        touch()
        if let limit = maximumBodySize, Int64(body.count) + Int64(length) > limit {
            abortReason = .responseTooLarge(limit: limit)
            return 0
        }
        let offset = Int64(body.count)
        guard body.append(bytes, count: length) else { return outOfMemory() }
        if body.capacity != accountedCapacity { trackBuffer() }
        if let bodyReceived = exchange.request.bodyReceived, exchange.isWaiting {
            // A copy only for a caller that streams (previews): the body itself is kept once.
            bodyReceived(head.statusCode ?? 0, offset, Data(bytes: bytes, count: length))
        }
        return length
    }

    private func touch() {
        guard !isTouched else { return }
        isTouched = true
        runner.touched(self)
    }

    private func outOfMemory() -> Int {
        abortReason = .transport(code: URLError.unknown.rawValue, message: "out of memory for the response body")
        return 0
    }

    // MARK: Progress and result (event thread, outside libcurl's callbacks or in the header one)

    /// Calls the request's progress callback when the body grew since the last call (or for the
    /// first time), unless the caller is gone.
    func reportProgress() {
        let received = Int64(body.count)
        guard received != reportedBytes, let progress = exchange.request.progress, exchange.isWaiting else { return }
        reportedBytes = received
        progress(TransferProgress(completed: received, total: expectedLength))
    }

    /// The exchange's result once libcurl reported `code` for it.
    func result(_ code: CURLcode) -> Result<ReceivedResponse, any Error> {
        if code != CURLE_OK, let abortReason { return .failure(abortReason) }
        // Pictor never asks for an upgrade: nothing after a protocol switch is an image
        // response, on this connection or on a retry (libcurl reports an empty reply).
        if head.switchedProtocols, !head.isComplete {
            return .failure(DataLoadingError.transport(
                code: URLError.badServerResponse.rawValue, message: "the server switched protocols (101) though no upgrade was asked for"))
        }
        guard code == CURLE_OK else {
            let context = CurlErrorMapping.Context(
                declaredLength: head.isComplete ? head.contentLength : nil,
                wireBytes: easy.info(offset: CURLINFO_SIZE_DOWNLOAD_T),
                message: libcurlMessage, isHeadComplete: head.isComplete, osErrno: Int32(truncatingIfNeeded: easy.info(CURLINFO_OS_ERRNO)),
                certificate: code == CURLE_PEER_FAILED_VERIFICATION ? certificateNames() : nil,
                refusedAddresses: refusedAddresses)
            return .failure(CurlErrorMapping.error(for: code, context: context))
        }
        // libcurl can end a transfer without error on a connection closed in the middle of the
        // head (no blank line, no length): that is a lost connection, not an empty 200.
        guard head.isComplete else {
            return .failure(DataLoadingError.transport(
                code: URLError.networkConnectionLost.rawValue, message: "connection closed before the end of the response head"))
        }
        // Conflicting Content-Length values (RFC 9112 §6.3): libcurl would use one of them.
        if head.value(for: "Content-Length") != nil, head.contentLength == nil {
            return .failure(DataLoadingError.transport(
                code: URLError.badServerResponse.rawValue, message: "invalid or conflicting Content-Length"))
        }
        let parsed = head.statusCode ?? 0
        let status = parsed >= 100 ? parsed : easy.info(CURLINFO_RESPONSE_CODE)
        if head.httpVersion == "HTTP/2" { statistics.http2Responses.add(1, ordering: .relaxed) }
        reportProgress()
        let data = body.takeData()
        trackBuffer()
        return .success(ReceivedResponse(url: exchange.url, statusCode: status, head: head, body: data))
    }

    /// The certificate a failed verification is about, as this transfer's handshake saw it:
    /// the one that failed OpenSSL's checks, else (a host name that does not match) the
    /// server's own; `nil` when nothing was recorded.
    func certificateNames() -> CurlErrorMapping.CertificateNames? {
        guard let tlsWatch else { return nil }
        func name(_ which: Int32) -> String? {
            var buffer = [CChar](repeating: 0, count: 1024)
            guard pcurl_tls_watch_name(tlsWatch, which, &buffer, buffer.count) >= 0 else { return nil }
            return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        guard let subject = name(0), let issuer = name(1) else { return nil }
        let depth = Int(pcurl_tls_watch_failed_depth(tlsWatch))
        return CurlErrorMapping.CertificateNames(
            subject: subject, issuer: issuer, depth: max(0, depth), serverSubject: depth > 0 ? name(2) : nil)
    }

    /// libcurl's message for this transfer, without the trailing newline it sometimes has.
    var libcurlMessage: String {
        String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func trackBuffer() {
        let capacity = body.capacity
        statistics.bufferChanged(by: capacity - accountedCapacity)
        accountedCapacity = capacity
    }
}

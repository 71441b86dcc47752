internal import CCurl
import Foundation
import PictorCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a failed libcurl transfer into Pictor's ``DataLoadingError``.
///
/// Each failure gets a named kind (``DataLoadingError/Kind``: connection refused, host not
/// found, certificate untrusted, …) and keeps libcurl's detail: its `CURLcode` and its own text
/// for the transfer (`CURLOPT_ERRORBUFFER`), or its generic text for the code. The
/// ``DataLoadingError/transportCode`` is the `URLError` code with the same meaning (so callers
/// that already handle URLSession's errors keep working).
enum CurlErrorMapping {
    /// What is known about the transfer when it failed.
    struct Context {
        /// The final response's declared `Content-Length`, if its head arrived.
        var declaredLength: Int64?
        /// Body bytes received on the wire (before content decoding).
        var wireBytes: Int64
        /// libcurl's message for this transfer; empty when it wrote none.
        var message: String
        /// Whether the final response's head arrived whole.
        var isHeadComplete = false
        /// The `errno` of the last failed socket call (`CURLINFO_OS_ERRNO`), 0 when none.
        var osErrno: Int32 = 0
        /// The certificate a failed verification is about, when the handshake was watched.
        var certificate: CertificateNames? = nil
        /// The addresses the connect-address policy refused, in the order they were tried.
        var refusedAddresses: [(address: IPAddress, kind: AddressClass)] = []
    }

    /// The certificate a failed verification is about: the one that failed OpenSSL's checks
    /// (at `depth` in the server's chain, 0 being the server's own), or the server's own when
    /// the chain passed but the host name did not match. Names are RFC 2253 distinguished
    /// names, most specific first (`CN=cdn.internal,O=Example`).
    struct CertificateNames: Equatable {
        var subject: String
        var issuer: String
        var depth: Int = 0
        /// The server's own certificate's subject, when the certificate that failed is another.
        var serverSubject: String? = nil

        /// `certificate subject: …; issuer: …`, and which certificate of the chain it is when it
        /// is not the server's own.
        var text: String {
            func shown(_ name: String) -> String { name.isEmpty ? "(empty)" : name }
            var text = "certificate subject: \(shown(subject)); issuer: \(shown(issuer))"
            if depth > 0 {
                text += " (depth \(depth) of the chain" + (serverSubject.map { " of \(shown($0))" } ?? "") + ")"
            }
            return text
        }
    }

    /// Our text for a head libcurl refused as "out of memory" without a message of its own.
    static let oversizedHeaderMessage =
        "the response head has a header line over libcurl's 100 kB limit (or memory ran out while reading it)"

    /// The error for `code` (never `CURLE_OK`).
    static func error(for code: CURLcode, context: Context) -> DataLoadingError {
        if code == CURLE_COULDNT_CONNECT, !context.refusedAddresses.isEmpty {
            // Refused by policy before connecting. Had another of the name's addresses been
            // tried and failed, the refusal is still what the caller must hear: a retry, or a
            // working address next time, would not make the refused one acceptable.
            return .transport(
                .addressNotAllowed, code: URLError.cannotConnectToHost.rawValue,
                message: refusalMessage(context.refusedAddresses), curlCode: Int(code.rawValue))
        }
        var message = context.message.isEmpty ? String(cString: curl_easy_strerror(code)) : context.message
        // libcurl says why (OpenSSL's reason), not which certificate: name it.
        if let certificate = context.certificate { message += "; " + certificate.text }
        let curlCode = Int(code.rawValue)
        func transport(_ urlCode: URLError.Code, _ message: String) -> DataLoadingError {
            .transport(kind(for: code, urlCode: urlCode, osErrno: context.osErrno), code: urlCode.rawValue, message: message, curlCode: curlCode)
        }
        if code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR || code == CURLE_SSL_CONNECT_ERROR,
           let alert = clientCertificateAlert(in: message) {
            // The server refused our certificate (or the lack of one) in TLS itself: TLS 1.3
            // sends that alert after the client's handshake is done, so libcurl reports it as a
            // failed read, which would otherwise read as a lost connection and be retried.
            return transport(alert == "certificate required" ? .clientCertificateRequired : .clientCertificateRejected, message)
        }
        switch code {
        case CURLE_PARTIAL_FILE:
            // The connection ended before the declared length; without one (chunked) there is
            // no expected size to report.
            if let expected = context.declaredLength {
                return .truncated(received: context.wireBytes, expected: expected)
            }
            return transport(.networkConnectionLost, message)
        case CURLE_RECV_ERROR, CURLE_HTTP2_STREAM, CURLE_HTTP2:
            // A reset in the middle of a body with a declared length is a cut-short body.
            if let expected = context.declaredLength, context.wireBytes < expected {
                return .truncated(received: context.wireBytes, expected: expected)
            }
            return transport(.networkConnectionLost, message)
        case CURLE_OUT_OF_MEMORY where !context.isHeadComplete && context.message.isEmpty:
            // libcurl 7.x keeps each header line in a buffer capped at 100 kB and reports a
            // longer one as out of memory, with no text: a hostile or broken server, which a
            // retry would only meet again.
            return transport(.badServerResponse, oversizedHeaderMessage)
        case CURLE_UNSUPPORTED_PROTOCOL:
            // The scheme was checked before the request went out: libcurl says this of a reply
            // that is not HTTP (HTTP/0.9, raw bytes), a bad server, not a bad URL.
            return transport(.badServerResponse, message)
        default:
            return transport(urlErrorCode(for: code), message)
        }
    }

    /// `refused to connect to ::1 (loopback), 127.0.0.1 (loopback) by the connect-address policy`.
    static func refusalMessage(_ refused: [(address: IPAddress, kind: AddressClass)]) -> String {
        "refused to connect to " + refused.map { "\($0.address) (\($0.kind.rawValue))" }.joined(separator: ", ")
            + " by the connect-address policy"
    }

    /// The alerts a server sends about the client's certificate (RFC 8446 §6.2), as OpenSSL
    /// names them in its reason for a failed handshake or read (`tlsv13 alert certificate
    /// required`, `tlsv1 alert unknown ca`, `sslv3 alert bad certificate`, …). A client receives
    /// alerts only from the server, so each means the server refused the client's certificate,
    /// or wanted one. A TLS 1.2 server that wants one sends a bare `handshake failure`, which
    /// says nothing of why and stays a failed handshake.
    static let clientCertificateAlerts = [
        "certificate required", "bad certificate", "unsupported certificate", "certificate revoked",
        "certificate expired", "certificate unknown", "unknown ca",
    ]

    /// The alert of ``clientCertificateAlerts`` that libcurl's `message` reports, if any.
    static func clientCertificateAlert(in message: String) -> String? {
        let text = message.lowercased()
        return clientCertificateAlerts.first { text.contains(" alert \($0)") }
    }

    /// The named kind of a failure: the kind of its `URLError` code, but a failed connect whose
    /// socket error was `ECONNREFUSED` is ``DataLoadingError/Kind/connectionRefused`` (the
    /// `URLError` code, `cannotConnectToHost`, also covers unreachable hosts and networks).
    static func kind(for code: CURLcode, urlCode: URLError.Code, osErrno: Int32) -> DataLoadingError.Kind {
        if code == CURLE_COULDNT_CONNECT, osErrno == ECONNREFUSED { return .connectionRefused }
        return .transport(urlErrorCode: urlCode.rawValue)
    }

    /// The `URLError` code with the same meaning as `code`, or `.unknown`.
    static func urlErrorCode(for code: CURLcode) -> URLError.Code {
        switch code {
        case CURLE_URL_MALFORMAT: .badURL
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .cannotFindHost
        case CURLE_COULDNT_CONNECT: .cannotConnectToHost
        // Only the connect timeout is left to libcurl; the overall and idle timeouts have their
        // own errors (see CurlTransport).
        case CURLE_OPERATION_TIMEDOUT: .timedOut
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            .networkConnectionLost
        // A connection closed without a byte of response (a server restarting, a keep-alive
        // race) is lost, and worth another attempt; a reply that is not valid HTTP is not.
        case CURLE_GOT_NOTHING: .networkConnectionLost
        case CURLE_WEIRD_SERVER_REPLY: .badServerResponse
        case CURLE_BAD_CONTENT_ENCODING: .cannotDecodeContentData
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_SSL_ISSUER_ERROR:
            .serverCertificateUntrusted
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
             CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED:
            .secureConnectionFailed
        case CURLE_SSL_CERTPROBLEM, CURLE_SSL_CLIENTCERT: .clientCertificateRejected
        default: .unknown
        }
    }
}

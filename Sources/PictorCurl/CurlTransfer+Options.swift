internal import CCurl
internal import CCurlShim
import Foundation
import PictorCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CurlTransfer {
    /// libcurl's receive buffer per transfer, in bytes. Larger than libcurl's 16 KiB default, so
    /// a typical image arrives in a few reads and write callbacks instead of many.
    static let receiveBufferSize = 96 * 1024

    /// Sets every option of the easy handle from the exchange's request and `configuration`.
    ///
    /// - Throws: ``DataLoadingError/transport(code:message:)`` when libcurl refuses an option or
    ///   memory runs out.
    func configure(_ configuration: CurlTransport.Configuration) throws(DataLoadingError) {
        do {
            try setConnectionOptions(configuration)
            try setCallbacks()
            try setRequestOptions(configuration)
        } catch {
            throw .transport(code: URLError.unknown.rawValue, message: error.message)
        }
    }

    private func setConnectionOptions(_ configuration: CurlTransport.Configuration) throws(CurlOptionError) {
        let request = exchange.request
        // The URL as the caller built it: no re-encoding, no dot-segment removal.
        try easy.set(CURLOPT_URL, exchange.url.absoluteString)
        try easy.set(CURLOPT_PATH_AS_IS, true)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        // DataLoader applies Pictor's one redirect policy; a 3xx is returned as is.
        try easy.set(CURLOPT_FOLLOWLOCATION, false)
        // Signals are process-wide; a library must not install handlers (DNS timeouts use the
        // threaded resolver instead of SIGALRM).
        try easy.set(CURLOPT_NOSIGNAL, true)
        // A proxy's CONNECT answer is not the response.
        try easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, true)
        try easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        // libcurl refuses a new size once the handle owns a receive buffer (a reused handle after
        // an HTTP/2 transfer keeps its buffer, of this same size): not an error for the request.
        try? easy.set(CURLOPT_BUFFERSIZE, Self.receiveBufferSize)
        // Only the connect timeout is libcurl's; the overall and idle timeouts are the event
        // loop's, so each maps to its own error without guessing which one fired.
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout))
        switch configuration.httpVersion {
        case .http1:
            try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        case .http2OverTLS:
            try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
            // Prefer waiting for a connection that may multiplex over opening parallel ones.
            if exchange.url.scheme?.lowercased() == "https" { try easy.set(CURLOPT_PIPEWAIT, true) }
        }
        try easy.set(CURLOPT_SSL_VERIFYPEER, configuration.verifiesPeer)
        try easy.set(CURLOPT_SSL_VERIFYHOST, configuration.verifiesPeer ? 2 : 0)
        if let caFile = configuration.caFile { try easy.set(CURLOPT_CAINFO, caFile) }
        if let caPath = configuration.caPath { try easy.set(CURLOPT_CAPATH, caPath) }
        if let certificate = configuration.clientCertificateFile {
            try easy.set(CURLOPT_SSLCERT, certificate)
            try easy.set(CURLOPT_SSLCERTTYPE, "PEM")
            if let key = configuration.clientKeyFile {
                try easy.set(CURLOPT_SSLKEY, key)
                try easy.set(CURLOPT_SSLKEYTYPE, "PEM")
            }
            // Without a passphrase, OpenSSL would ask for an encrypted key's on the terminal
            // (and block the event thread); an empty one makes such a key fail to load instead.
            try easy.set(CURLOPT_KEYPASSWD, "")
        }
        if configuration.verifiesPeer, exchange.url.scheme?.lowercased() == "https" { watchTLS() }
        if configuration.connectAddressPolicy.refusesAny { try checkAddresses() }
        // "" asks for every encoding this libcurl can decode, and decodes it.
        if configuration.acceptsEncoding { try easy.set(CURLOPT_ACCEPT_ENCODING, "") }
    }

    /// Records the server's certificates during this transfer's handshakes, so that a failed
    /// verification can name them (``CurlErrorMapping/CertificateNames``). Optional: where
    /// libcurl's TLS library is not the OpenSSL this module was built with, or memory runs out,
    /// the message only lacks the names.
    private func watchTLS() {
        guard CurlLibrary.watchesTLS, let watch = pcurl_tls_watch_new() else { return }
        tlsWatch = watch
        _ = pcurl_easy_watch_tls(easy.raw, watch)
    }

    /// Makes every socket of the transfer go through ``openSocket(_:)``, which refuses the
    /// addresses the policy refuses before connecting. A proxy would connect on our behalf to an
    /// address we never see, so none is used, whatever the environment says ("" turns libcurl's
    /// reading of the proxy variables off).
    private func checkAddresses() throws(CurlOptionError) {
        try easy.set(CURLOPT_PROXY, "")
        try easy.setOpenSocket { context, _, address in
            guard let context, let address else { return CURL_SOCKET_BAD }
            return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().openSocket(address)
        }
        try easy.set(CURLOPT_OPENSOCKETDATA, pointer: Unmanaged.passUnretained(self).toOpaque())
    }

    private func setCallbacks() throws(CurlOptionError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try easy.set(CURLOPT_WRITEFUNCTION, function: { data, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            guard let data, length > 0 else { return length }
            return transfer.receiveBody(UnsafeRawPointer(data), count: length)
        })
        try easy.set(CURLOPT_WRITEDATA, pointer: context)
        try easy.set(CURLOPT_HEADERFUNCTION, function: { data, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
        })
        try easy.set(CURLOPT_HEADERDATA, pointer: context)
        try easy.setPrerequest { context, _, _, _, _ in
            if let context { Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().connectionReady() }
            return CURL_PREREQFUNC_OK
        }
        try easy.set(CURLOPT_PREREQDATA, pointer: context)
    }

    private func setRequestOptions(_ configuration: CurlTransport.Configuration) throws(CurlOptionError) {
        let headers = exchange.headers
        switch headers.method {
        case "GET":
            break
        case "HEAD":
            try easy.set(CURLOPT_NOBODY, true)
        default:
            let method = headers.method
            if method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, method) }
            if let body = exchange.request.urlRequest.httpBody ?? (method == "POST" ? Data() : nil) {
                // COPYPOSTFIELDS copies exactly POSTFIELDSIZE bytes (NULs included) now.
                try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count))
                if body.isEmpty {
                    try easy.set(CURLOPT_COPYPOSTFIELDS, "")
                } else {
                    let code = body.withUnsafeBytes { bytes in
                        Result { () throws(CurlOptionError) in
                            try easy.set(CURLOPT_COPYPOSTFIELDS, pointer: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                        }
                    }
                    try code.get()
                }
            }
        }
        if headers.usesDefaultUserAgent, let userAgent = configuration.userAgent {
            try easy.set(CURLOPT_USERAGENT, userAgent)
        }
        // Built by the calling task (CurlRequestHeaders); the exchange keeps it alive.
        try easy.set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(headers.list))
    }

    /// `seconds` as whole milliseconds, rounded up, at least 1; `0` (libcurl's default) when
    /// not finite or not positive.
    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return max(1, Int(min((seconds * 1000).rounded(.up), Double(Int32.max))))
    }
}

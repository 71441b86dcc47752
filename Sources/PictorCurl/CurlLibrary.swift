internal import CCurl
internal import CCurlShim
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Process-wide libcurl setup and small helpers shared by the transport's files.
enum CurlLibrary {
    /// `curl_global_init`, run once per process on first use (a `static let` initialiser runs
    /// exactly once, thread-safely). libcurl counts init calls, so FoundationNetworking's own
    /// init in the same process is harmless.
    static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Whether the server's certificates can be read during a handshake (libcurl's TLS backend
    /// is the OpenSSL that the shim was built against): see `pcurl_tls_watch` in the shim.
    static let watchesTLS: Bool = pcurl_tls_watch_supported() != 0

    /// libcurl's version and features, e.g. `libcurl/7.88.1 OpenSSL/3.0.x zlib/1.2.13 brotli/1.0.9 …`.
    static var version: String { String(cString: curl_version()) }

    /// Now on the monotonic clock, in nanoseconds.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The calling thread's kernel id (`/proc/thread-self` names `<pid>/task/<tid>`), or `nil`
    /// without procfs. Glibc's `gettid` is not visible to Swift here.
    static func currentThreadID() -> pid_t? {
        var buffer = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return path.split(separator: "/").last.flatMap { pid_t($0) }
    }

    /// `seconds` as nanoseconds; `0` for zero, negative or NaN, `UInt64.max` for infinity or
    /// values past a century.
    static func nanoseconds(_ seconds: Double) -> UInt64 {
        guard seconds > 0 else { return 0 }
        guard seconds < 3_153_600_000 else { return .max }
        return UInt64((seconds * 1e9).rounded(.up))
    }

    /// `a + b` that stays at `UInt64.max` instead of overflowing.
    static func adding(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }
}

/// A libcurl option that could not be set on an easy handle.
struct CurlOptionError: Error {
    var code: CURLcode
    var option: CURLoption

    var message: String {
        "libcurl refused option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))"
    }
}

/// Typed `curl_easy_setopt` through the C shim; each throws ``CurlOptionError`` when libcurl
/// refuses the option.
struct EasyHandle {
    let raw: UnsafeMutableRawPointer

    func set(_ option: CURLoption, _ value: Int) throws(CurlOptionError) {
        try check(pcurl_easy_setopt_long(raw, option, value), option)
    }

    func set(_ option: CURLoption, _ value: Bool) throws(CurlOptionError) {
        try check(pcurl_easy_setopt_long(raw, option, value ? 1 : 0), option)
    }

    func set(_ option: CURLoption, offset value: Int64) throws(CurlOptionError) {
        try check(pcurl_easy_setopt_off_t(raw, option, curl_off_t(value)), option)
    }

    /// A string option; libcurl copies it (never use this for `CURLOPT_POSTFIELDS`).
    func set(_ option: CURLoption, _ value: String) throws(CurlOptionError) {
        try check(value.withCString { pcurl_easy_setopt_string(raw, option, $0) }, option)
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(CurlOptionError) {
        try check(pcurl_easy_setopt_pointer(raw, option, value), option)
    }

    func set(_ option: CURLoption, function: curl_write_callback) throws(CurlOptionError) {
        try check(pcurl_easy_setopt_write_function(raw, option, function), option)
    }

    func setPrerequest(_ function: curl_prereq_callback) throws(CurlOptionError) {
        try check(pcurl_easy_setopt_prereq_function(raw, function), CURLOPT_PREREQFUNCTION)
    }

    func setOpenSocket(_ function: curl_opensocket_callback) throws(CurlOptionError) {
        try check(pcurl_easy_setopt_opensocket_function(raw, function), CURLOPT_OPENSOCKETFUNCTION)
    }

    func info(_ item: CURLINFO) -> Int {
        var value = 0
        return pcurl_easy_getinfo_long(raw, item, &value) == CURLE_OK ? value : 0
    }

    func info(offset item: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return pcurl_easy_getinfo_off_t(raw, item, &value) == CURLE_OK ? Int64(value) : 0
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(CurlOptionError) {
        guard code == CURLE_OK else { throw CurlOptionError(code: code, option: option) }
    }
}

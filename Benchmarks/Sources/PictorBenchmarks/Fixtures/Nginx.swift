import Foundation

/// nginx serving one directory on 127.0.0.1 (one worker, sendfile, keep-alive, as
/// performance.md §1.6), with an access log so requests can be counted.
final class Nginx {
    let port: Int
    let runDirectory: URL
    private let binary: String
    private let process = Process()
    private var config: String { runDirectory.appendingPathComponent("nginx.conf").path }
    var accessLog: URL { runDirectory.appendingPathComponent("access.log") }

    /// Starts nginx on a free port; with `tls`, HTTPS with HTTP/2 and the given PEM files;
    /// `locations`: more `location` blocks for the server (nginx syntax).
    init(root: URL, runDirectory: URL, tls: (certificate: String, key: String)? = nil, locations: String = "") throws {
        guard let binary = which("nginx") else { throw BenchError("nginx not installed") }
        self.binary = binary
        self.runDirectory = runDirectory
        port = freePort()
        try FileManager.default.createDirectory(at: runDirectory, withIntermediateDirectories: true)
        let r = runDirectory.path
        let text = """
            worker_processes 1;
            daemon off;
            pid \(r)/nginx.pid;
            error_log \(r)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log \(r)/access.log;
                client_body_temp_path \(r)/client_body;
                proxy_temp_path \(r)/proxy;
                fastcgi_temp_path \(r)/fastcgi;
                uwsgi_temp_path \(r)/uwsgi;
                scgi_temp_path \(r)/scgi;
                sendfile on;
                keepalive_requests 100000;
                types { image/jpeg jpg; image/png png; image/webp webp; }
                default_type application/octet-stream;
                server {
                    \(tls.map { "listen 127.0.0.1:\(port) ssl http2; ssl_certificate \($0.certificate); ssl_certificate_key \($0.key);" }
                        ?? "listen 127.0.0.1:\(port);")
                    root \(root.path);
                    location / { try_files $uri =404; }
                    \(locations)
                }
            }
            """
        try text.write(toFile: config, atomically: false, encoding: .utf8)
        // In the foreground, as our child: Foundation's Process never sees a daemonizing parent exit.
        process.executableURL = URL(fileURLWithPath: binary, isDirectory: false)
        process.arguments = ["-c", config, "-p", r]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<250 where !isListening() { usleep(20_000) }
        guard isListening() else { stop(); throw BenchError("nginx did not start") }
    }

    /// Number of requests logged so far.
    var requestCount: Int {
        ((try? String(contentsOf: accessLog, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    private func isListening() -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()   // SIGTERM: nginx's fast shutdown
        process.waitUntilExit()
    }
}

/// A benchmark set-up failure, reported as "not measured".
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

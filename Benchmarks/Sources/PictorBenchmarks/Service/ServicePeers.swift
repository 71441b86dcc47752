import Foundation

/// The servers of the service rows, each started fresh in its own run directory on a free
/// loopback port, as a ``ProcessTree``.
enum ServiceServers {
    /// nginx's image_filter module (Debian `libnginx-mod-http-image-filter`).
    static let imageFilterModule = "/usr/lib/nginx/modules/ngx_http_image_filter_module.so"

    /// nginx in the foreground with the `http { … }` body given, its logs and temporary files
    /// under `run`.
    static func nginx(name: String, run: URL, workers: Int, port: Int, modules: [String] = [], http: String) throws -> ProcessTree {
        guard let binary = which("nginx") else { throw BenchError("nginx not installed") }
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        let r = run.path
        let text = """
            \(modules.map { "load_module \($0);" }.joined(separator: "\n"))
            worker_processes \(workers);
            daemon off;
            pid \(r)/nginx.pid;
            error_log \(r)/error.log warn;
            events { worker_connections 4096; }
            http {
                client_body_temp_path \(r)/client_body;
                proxy_temp_path \(r)/proxy;
                fastcgi_temp_path \(r)/fastcgi;
                uwsgi_temp_path \(r)/uwsgi;
                scgi_temp_path \(r)/scgi;
                keepalive_requests 100000;
                types { image/jpeg jpg; }
                default_type application/octet-stream;
            \(http)
            }
            """
        let config = run.appendingPathComponent("nginx.conf").path
        try text.write(toFile: config, atomically: false, encoding: .utf8)
        let tree = try ProcessTree(name: name, binary, ["-c", config, "-p", r, "-e", "\(r)/error.log"])
        try ready(tree, port: port, run: run, log: "error.log")
        return tree
    }

    /// Waits for the server to listen; stops it and says why when it does not.
    static func ready(_ tree: ProcessTree, port: Int, run: URL, log: String, seconds: Double = 60) throws {
        if LoopbackGet.waitForListening(port, seconds: seconds, while: { !tree.hasExited }) { return }
        tree.stop()
        let text = (try? String(contentsOf: run.appendingPathComponent(log), encoding: .utf8)) ?? ""
        throw BenchError("\(tree.name) did not start: \(text.split(separator: "\n").suffix(3).joined(separator: " / "))")
    }

    /// The origin: one nginx worker serving the few source files under any
    /// `/src/<name>/<file>`, so that every name is a distinct source URL. `Cache-Control:
    /// max-age=3600`, as an image origin would send: without it, a source a few seconds old
    /// would be fresh for a tenth of its age (heuristic freshness) and a warm run would
    /// revalidate it.
    static func origin(run: URL, images: URL) throws -> (tree: ProcessTree, port: Int, accessLog: URL) {
        let port = freePort()
        let tree = try nginx(name: "origin nginx", run: run, workers: 1, port: port, http: """
                access_log \(run.path)/access.log;
                sendfile on;
                server {
                    listen 127.0.0.1:\(port);
                    root \(images.deletingLastPathComponent().path);
                    location /src/ {
                        expires 1h;
                        rewrite ^/src/[^/]+/([^/]+)$ /\(images.lastPathComponent)/$1 break;
                    }
                }
            """)
        return (tree, port, run.appendingPathComponent("access.log"))
    }

    /// Origin requests logged so far whose path contains `marker`.
    static func originRequests(_ log: URL, containing marker: String) -> Int {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains(marker) }.count
    }

    /// `pictor serve` as shipped, on a cache directory under `run`.
    static func pictor(_ binary: String, run: URL, port: Int, privateNetworkFlag: Bool, extra: [String] = []) throws -> ProcessTree {
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        var arguments = ["serve", "--listen", "127.0.0.1:\(port)", "--insecure-unsigned",
                         "--cache-dir", run.appendingPathComponent("cache").path]
        if privateNetworkFlag { arguments.append("--allow-private-network") }
        let log = run.appendingPathComponent("pictor.log").path
        let tree = try ProcessTree(name: "pictor serve", binary, arguments + extra, stdout: log, stderr: log)
        try ready(tree, port: port, run: run, log: "pictor.log")
        return tree
    }

    /// thumbor with `--processes` = cores and its defaults but result storage, which is off
    /// (originals are kept by its default file storage, under `run`).
    static func thumbor(_ binary: String, run: URL, port: Int, processes: Int) throws -> ProcessTree {
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        let config = run.appendingPathComponent("thumbor.conf")
        try """
            RESULT_STORAGE = None
            FILE_STORAGE_ROOT_PATH = '\(run.appendingPathComponent("storage").path)'
            """.write(to: config, atomically: false, encoding: .utf8)
        let log = run.appendingPathComponent("thumbor.log").path
        let tree = try ProcessTree(name: "thumbor", binary, ["-p", "\(port)", "-i", "127.0.0.1", "--processes", "\(processes)",
                                                              "-c", config.path], stdout: log, stderr: log)
        try ready(tree, port: port, run: run, log: "thumbor.log")
        return tree
    }

    /// nginx `image_filter` behind `proxy_cache`, the usual recipe: a caching front server
    /// proxies to a resizing server in the same nginx, which proxies to the origin; the result
    /// is what is cached. One worker per core.
    static func imageFilter(run: URL, port: Int, originPort: Int, workers: Int) throws -> ProcessTree {
        let resizer = freePort()
        return try nginx(name: "nginx image_filter", run: run, workers: workers, port: port, modules: [imageFilterModule], http: """
                access_log off;
                proxy_cache_path \(run.path)/cache levels=1:2 keys_zone=results:16m max_size=1g inactive=1h use_temp_path=off;
                upstream origin { server 127.0.0.1:\(originPort); keepalive 16; }
                upstream resizer { server 127.0.0.1:\(resizer); keepalive 16; }
                server {
                    listen 127.0.0.1:\(port);
                    location /src/ {
                        proxy_pass http://resizer;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_cache results;
                        proxy_cache_valid 200 1h;
                        proxy_cache_lock on;
                    }
                }
                server {
                    listen 127.0.0.1:\(resizer);
                    location /src/ {
                        proxy_pass http://origin;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        image_filter resize 512 512;
                        image_filter_jpeg_quality 80;
                        image_filter_buffer 16M;
                    }
                }
            """)
    }

    /// nginx serving files under `root` (the warm row's reference), one worker per core.
    static func staticFiles(run: URL, root: URL, port: Int, workers: Int) throws -> ProcessTree {
        try nginx(name: "nginx static", run: run, workers: workers, port: port, http: """
                access_log \(run.path)/access.log;
                sendfile on;
                tcp_nopush on;
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                }
            """)
    }
}

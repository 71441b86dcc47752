import Foundation

extension NginxServer {
    /// The generated nginx.conf: one foreground process, one worker, logs and temp files in
    /// `directory`, `root` served on `127.0.0.1:port`.
    static func config(root: String, directory: String, port: Int, extra: String) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log warn;
        events { worker_connections 1024; }
        http {
            types {
                image/jpeg jpg jpeg;
                image/png png;
                image/gif gif;
                image/webp webp;
                image/avif avif;
                image/heic heic heif;
                image/tiff tif tiff;
                image/bmp bmp;
                image/jxl jxl;
                image/svg+xml svg;
                text/html html htm;
                text/plain txt tsv md;
            }
            default_type application/octet-stream;
            log_format pictor escape=none '$request_method\\t$request_uri\\t$status\\t$body_bytes_sent\\t$http_if_none_match\\t$http_if_modified_since';
            access_log \(directory)/access.log pictor;
            client_body_temp_path \(directory)/client_body;
            sendfile on;
            tcp_nopush on;
            keepalive_timeout 65;
            keepalive_requests 100000;
            etag on;
            if_modified_since exact;
            server {
                listen 127.0.0.1:\(port);
                server_name localhost;
                root "\(root)";
                location = /__pictor_sync { access_log off; return 204; }
        \(extra)
            }
        }

        """
    }
}

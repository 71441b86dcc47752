#ifndef CMICROHTTPDSHIM_H
#define CMICROHTTPDSHIM_H
// Fixed-arity wrappers around libmicrohttpd's variadic calls (MHD_start_daemon with its option
// list, MHD_get_connection_info), which Swift cannot call, and a logger that formats
// libmicrohttpd's printf-style messages so Swift receives one finished line.
// The CMicroHTTPD module's own header, so that libmicrohttpd's declarations belong to
// CMicroHTTPD alone.
#include <stddef.h>
#include "../../CMicroHTTPD/shim.h"

/// The daemon's settings; zero leaves libmicrohttpd's default for a field.
struct pmhd_settings {
    /// A bound, listening socket; the daemon accepts on it (it binds nothing itself).
    int listen_fd;
    /// Worker threads, each with its own epoll loop; 1 runs one internal polling thread.
    unsigned int threads;
    /// Seconds a connection may stay idle (no bytes received or sent) before it is closed.
    unsigned int connection_timeout;
    /// The most connections at once, over all threads.
    unsigned int connection_limit;
    /// The most connections at once from one client address (IPv4, or IPv6 as a whole);
    /// one over it is accepted and closed at once.
    unsigned int per_ip_connection_limit;
    /// Bytes of each connection's memory pool: the request line, the header fields and the
    /// response's header must fit in it.
    size_t memory_limit;
};

/// Receives one formatted message of libmicrohttpd's error log.
typedef void (*pmhd_log_function)(void *context, const char *message);

/// Where libmicrohttpd's messages go; must outlive the daemon.
struct pmhd_logger {
    pmhd_log_function function;
    void *context;
};

/// MHD_start_daemon in epoll mode with internal polling thread(s), suspend/resume allowed,
/// on `settings->listen_fd`. `uri_log` receives each request's raw target before it is
/// parsed; its result becomes the request's context pointer. `notify_connection` (may be
/// NULL) is told of each connection's start and close. `logger` may be NULL (silent).
/// Returns NULL when the daemon cannot start.
struct MHD_Daemon *pmhd_start_daemon(const struct pmhd_settings *settings,
                                     MHD_AccessHandlerCallback handler, void *handler_context,
                                     MHD_RequestCompletedCallback completed, void *completed_context,
                                     void *(*uri_log)(void *context, const char *uri, struct MHD_Connection *connection),
                                     void *uri_log_context,
                                     MHD_NotifyConnectionCallback notify_connection, void *notify_connection_context,
                                     struct pmhd_logger *logger);

/// The client's numeric address (`127.0.0.1`, `::1`, or `unix` for a Unix socket peer) into
/// `buffer`, NUL-terminated; returns 0, or -1 when it is unknown (buffer set to `-`).
int pmhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size);

/// The connection's socket, or -1.
int pmhd_connection_fd(struct MHD_Connection *connection);

/// The status of the response queued on the connection (by the application or by
/// libmicrohttpd's own refusal), or 0 when none is.
unsigned int pmhd_queued_status(struct MHD_Connection *connection);

/// Bytes of the request's head (request line and header fields, with their line ends), or 0
/// before the head is read.
size_t pmhd_request_head_size(struct MHD_Connection *connection);

#endif

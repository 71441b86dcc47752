#include "CMicroHTTPDShim.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

static void pmhd_log(void *context, const char *format, va_list arguments) {
    struct pmhd_logger *logger = context;
    char message[512];
    vsnprintf(message, sizeof message, format, arguments);
    size_t length = strlen(message);
    while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == '\r')) message[--length] = 0;
    logger->function(logger->context, message);
}

struct MHD_Daemon *pmhd_start_daemon(const struct pmhd_settings *settings,
                                     MHD_AccessHandlerCallback handler, void *handler_context,
                                     MHD_RequestCompletedCallback completed, void *completed_context,
                                     void *(*uri_log)(void *context, const char *uri, struct MHD_Connection *connection),
                                     void *uri_log_context,
                                     MHD_NotifyConnectionCallback notify_connection, void *notify_connection_context,
                                     struct pmhd_logger *logger) {
    struct MHD_OptionItem options[14];
    int n = 0;
    // The logger first: libmicrohttpd logs what the options after it do wrong through it.
    if (logger != NULL)
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)pmhd_log, logger};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_LISTEN_SOCKET, settings->listen_fd, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_context};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_log, uri_log_context};
    if (notify_connection != NULL)
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify_connection, notify_connection_context};
    if (settings->threads > 1)
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, settings->threads, NULL};
    if (settings->connection_timeout > 0)
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, settings->connection_timeout, NULL};
    if (settings->connection_limit > 0)
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, settings->connection_limit, NULL};
    if (settings->per_ip_connection_limit > 0)
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, settings->per_ip_connection_limit, NULL};
    if (settings->memory_limit > 0)
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)settings->memory_limit, NULL};
    // Strict: an HTTP/1.1 request without Host, or with a space in its target, is a 400 (RFC
    // 9112 §3.2 and §3.2), as nginx and Go's server answer, not served.
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};

    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
    if (logger != NULL) flags |= MHD_USE_ERROR_LOG;
    // The port argument is ignored: MHD_OPTION_LISTEN_SOCKET gives the socket.
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

int pmhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *address = info != NULL ? info->client_addr : NULL;
    if (address != NULL && address->sa_family == AF_INET) {
        if (inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, (socklen_t)size) != NULL) return 0;
    } else if (address != NULL && address->sa_family == AF_INET6) {
        if (inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer, (socklen_t)size) != NULL) return 0;
    } else if (address != NULL && address->sa_family == AF_UNIX && size >= 5) {
        memcpy(buffer, "unix", 5);
        return 0;
    }
    if (size >= 2) memcpy(buffer, "-", 2);
    return -1;
}

int pmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info != NULL ? info->connect_fd : -1;
}

unsigned int pmhd_queued_status(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_HTTP_STATUS);
    return info != NULL ? info->http_status : 0;
}

size_t pmhd_request_head_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info != NULL ? info->header_size : 0;
}

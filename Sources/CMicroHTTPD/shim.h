#ifndef EARSHOT_CMICROHTTPD_SHIM_H
#define EARSHOT_CMICROHTTPD_SHIM_H
// GNU libmicrohttpd (Debian libmicrohttpd-dev). Swift cannot call C variadic functions, so every variadic entry
// point EarshotHTTP needs has a fixed-signature `static inline` wrapper here.
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// Receives one formatted libmicrohttpd diagnostic line (no trailing newline guaranteed).
typedef void (*earshot_mhd_log_sink)(const char *message);

/// MHD_OPTION_EXTERNAL_LOGGER adapter: formats the va_list and hands a plain string to `cls`
/// (an `earshot_mhd_log_sink`).
static inline void earshot_mhd_external_logger(void *cls, const char *format, va_list ap) {
    char buffer[1024];
    vsnprintf(buffer, sizeof buffer, format, ap);
    if (cls != NULL) {
        ((earshot_mhd_log_sink)cls)(buffer);
    }
}

/// The address of `earshot_mhd_external_logger`, to put in an MHD_OptionItem.
static inline intptr_t earshot_mhd_external_logger_address(void) {
    return (intptr_t)&earshot_mhd_external_logger;
}

/// MHD_start_daemon with every option passed through MHD_OPTION_ARRAY (terminated by MHD_OPTION_END).
static inline struct MHD_Daemon *earshot_mhd_start_daemon(unsigned int flags, uint16_t port,
                                                          MHD_AccessHandlerCallback handler, void *handler_cls,
                                                          const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls, MHD_OPTION_ARRAY, options,
                            MHD_OPTION_END);
}

/// What `earshot_mhd_uri_guard` leaves as a connection's context when it refused the query: never a valid
/// pointer to an object (they are aligned).
static inline void *earshot_mhd_query_refused(void) {
    return (void *)(uintptr_t)1;
}

/// MHD_OPTION_URI_LOG_CALLBACK, called with the raw request URI before libmicrohttpd parses its query. Each query
/// parameter costs a record in the connection's memory pool; past the pool, libmicrohttpd has no room left to
/// answer and closes the connection without a response. So when the query has more parameters than `cls` (a
/// count), it is cut off here (libmicrohttpd then parses none) and the connection's context is set to
/// `earshot_mhd_query_refused()`, so the access handler answers 414 itself.
static inline void *earshot_mhd_uri_guard(void *cls, const char *uri, struct MHD_Connection *connection) {
    (void)connection;
    if (uri == NULL) return NULL;
    char *query = strchr(uri, '?');
    if (query == NULL) return NULL;
    size_t count = 1;
    for (const char *p = query + 1; *p != '\0'; p++) {
        if (*p == '&') count++;
    }
    if (count <= (size_t)(uintptr_t)cls) return NULL;
    query[1] = '\0';
    return earshot_mhd_query_refused();
}

/// The address of `earshot_mhd_uri_guard`, to put in an MHD_OptionItem.
static inline intptr_t earshot_mhd_uri_guard_address(void) {
    return (intptr_t)&earshot_mhd_uri_guard;
}

/// The port the daemon is bound to (useful after binding port 0), or -1.
static inline int earshot_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? -1 : (int)info->port;
}

/// The peer address of a connection, or NULL.
static inline const struct sockaddr *earshot_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// Formats an IPv4 or IPv6 socket address as text into `out` (at least INET6_ADDRSTRLEN bytes); 0 on success.
static inline int earshot_format_address(const struct sockaddr *address, char *out, socklen_t size) {
    if (address == NULL) return -1;
    if (address->sa_family == AF_INET) {
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, out, size) ? 0 : -1;
    }
    if (address->sa_family == AF_INET6) {
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, out, size) ? 0 : -1;
    }
    return -1;
}

/// Fills `storage` with a numeric IPv4/IPv6 address and port. Returns the address length, or 0 when `host` is not
/// a numeric address. `*is_ipv6` tells which family was parsed.
static inline socklen_t earshot_make_address(const char *host, uint16_t port, struct sockaddr_storage *storage,
                                             int *is_ipv6) {
    struct sockaddr_in *v4 = (struct sockaddr_in *)storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)storage;
    __builtin_memset(storage, 0, sizeof *storage);
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        *is_ipv6 = 0;
        return sizeof *v4;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        *is_ipv6 = 1;
        return sizeof *v6;
    }
    return 0;
}

/// MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE): the application is done with an upgraded socket;
/// libmicrohttpd closes it (the application must never close() it itself).
static inline enum MHD_Result earshot_mhd_upgrade_close(struct MHD_UpgradeResponseHandle *urh) {
    return MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}

#endif

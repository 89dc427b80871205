#ifndef EARSHOT_CLIBPQ_SHIM_H
#define EARSHOT_CLIBPQ_SHIM_H
// libpq, PostgreSQL's C client (Debian libpq-dev, PostgreSQL 13 or later on the server).
// Imported only by EarshotPostgres (`internal import CLibPQ`).
#include <libpq-fe.h>
#include <poll.h>

/// Waits until the connection's socket is readable or `timeout_ms` passes: 1 readable, 0 timeout, -1 error.
static inline int earshot_pq_wait_readable(PGconn *conn, int timeout_ms) {
    struct pollfd fd = { .fd = PQsocket(conn), .events = POLLIN, .revents = 0 };
    if (fd.fd < 0) return -1;
    int rc = poll(&fd, 1, timeout_ms);
    if (rc < 0) return -1;
    return rc > 0 ? 1 : 0;
}

/// `PG_DIAG_SQLSTATE` and `PG_DIAG_MESSAGE_PRIMARY` are character-literal macros, which Swift does not import.
static inline int earshot_pq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int earshot_pq_diag_message(void) { return PG_DIAG_MESSAGE_PRIMARY; }
#endif

/* The HTTP server: owns the libmicrohttpd daemon and turns each exchange into an
 * svc_request/svc_response pair for its route's handler (server_internal.h lists its parts). */
#ifndef TACTICS_SVC_SERVER_H
#define TACTICS_SVC_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "service/http/http.h"

struct svc_server;

enum svc_server_status {
    SVC_SERVER_OK = 0,
    SVC_SERVER_ERR_BIND_ADDRESS = -1, /* --bind is not an IPv4 or IPv6 address */
    SVC_SERVER_ERR_START = -2,        /* libmicrohttpd could not start (port taken, ...) */
    SVC_SERVER_ERR_NOMEM = -3,
};

/* Starts listening with ctx (borrowed: it must outlive the server). */
int svc_server_start(struct svc_context *ctx, struct svc_server **out);

/* The port actually bound (useful with --port 0). */
unsigned svc_server_port(const struct svc_server *s);

/* Stops accepting connections, waits up to timeout_ms for requests in flight to finish,
 * then stops the daemon and frees the server. Returns the number of requests that were
 * still in flight when the wait ended (0 on a clean drain). */
int svc_server_shutdown(struct svc_server *s, int timeout_ms);

/* The watchdog's test, in microseconds: more than limit from since to now. A since later than
 * now (a clock read before another thread's update) is never overdue. */
bool svc_watch_overdue(uint64_t since, uint64_t now, uint64_t limit);

#endif

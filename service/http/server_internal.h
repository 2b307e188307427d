/* The server's parts, one job a file (h2o's and nginx's way), and what they share. Private to
 * service/http/: nothing outside this folder includes it.
 *   server.c      the wiring: a request's callbacks, from its first byte to its answer
 *   connection.c  the daemon, and the state kept per connection and per request
 *   request_id.c  X-Request-Id: a client's kept when safe, ours made otherwise
 *   log.c         the JSON log lines, the access log's among them
 *   cors.c        which browser origins may read an answer, and the headers that say so
 *   framing.c     what is refused before routing (target, framing, headers), the body limit
 *   watchdog.c    the clock thread: slow connections cut, live feeds ticked and polled
 *   feed.c        a live feed on its connection, and the listener's news of other writers */
#ifndef TACTICS_SVC_SERVER_INTERNAL_H
#define TACTICS_SVC_SERVER_INTERNAL_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "service/http/http.h"
#include "service/http/router.h"
#include "service/http/server.h"

/* A connection under watch (watchdog.c): libmicrohttpd's timeout is an idle timeout, restarted
 * by every byte, so a client sending or reading one byte a second would hold a connection (and
 * its answer) for ever. Made and freed by connection.c with the connection. */
struct svc__watch {
    struct svc__watch *prev, *next;
    int fd;
    uint64_t since_us; /* when reading the request began, or when the answer was queued */
    bool busy;         /* in the handler */
    bool sending;      /* the answer is queued and being sent */
    bool head_read;    /* the request's head has arrived: --header-timeout no longer applies */
    bool streaming;    /* the answer is a live feed: open for as long as its client listens */
    bool cut;
    /* Set by svc__on_uri for the request being read, from the raw target (before
     * libmicrohttpd unescapes it); only the connection's own thread reads or writes it. */
    const char *target_refusal;
};

struct svc_server {
    struct MHD_Daemon *daemon;
    struct svc_context *ctx;
    atomic_int in_flight;
    unsigned port;
    pthread_mutex_t watch_lock;
    struct svc__watch *watches;
    pthread_t watchdog;
    atomic_bool stopping;
    /* The watchdog's tick: it waits on `tick` (CLOCK_MONOTONIC) for 250 ms, and shutdown wakes
     * it at once, rather than joining it up to a whole tick later. */
    pthread_mutex_t tick_lock;
    pthread_cond_t tick;
    /* Shutting down: new connections are refused (connection.c's accept policy).
     * libmicrohttpd's own way, MHD_quiesce_daemon, races its epoll thread over the listen
     * socket and can abort the process (MHD_PANIC "Failed to remove listen FD from epoll set",
     * an open defect in 0.9.75: a worker reads was_quiesced without a lock and loses the
     * EPOLL_CTL_DEL to it). */
    atomic_bool closing;
    bool watchdog_started;
    /* The live feeds' news of other processes' writes (PostgreSQL's LISTEN/NOTIFY, feed.c):
     * whether the listener listens now, and whether it asked for the database to be read
     * (it reconnected, and may have missed notifications meanwhile). */
    atomic_bool listening;
    atomic_bool poll_now;
    /* Deferred answers (server.c): defer_lock guards their states and `suspended`, the
     * connections suspended waiting for a completion (libmicrohttpd must not be stopped with
     * one, nor with a handler about to suspend one: `deferring` counts the handlers running
     * that svc_deferral_start allowed to defer, without the lock);
     * defer_idle is signalled, once the shutdown has set no_defer, when both reach 0; no_defer
     * makes every later handler answer before it returns, as Discord's calls do. */
    pthread_mutex_t defer_lock;
    pthread_cond_t defer_idle;
    int suspended;
    atomic_int deferring;
    atomic_bool no_defer;
};

/* A request's deferred answer (http.h, svc_response_defer; server.c). state moves under the
 * server's defer_lock: OPEN until the handler returns and the connection is suspended
 * (SUSPENDED) or the completion comes first (COMPLETED: the answer is finished at once, no
 * suspension); a SUSPENDED one is resumed by the completion, which sets COMPLETED. */
enum svc__deferral_state { SVC__DEFER_OPEN, SVC__DEFER_SUSPENDED, SVC__DEFER_COMPLETED };
struct svc_deferral {
    struct svc_server *s;
    struct MHD_Connection *conn;
    enum svc__deferral_state state;
    svc_finish_fn finish; /* set by svc_response_defer; NULL once called */
    void *ud;
    bool counted; /* svc_deferral_start said yes: in the server's `deferring` until released */
};

/* One request's state, from its first callback to libmicrohttpd's report that it is complete
 * (connection.c makes and recycles it). */
struct svc__request_state {
    uint64_t start_us;
    char request_id[129];
    char method[16];
    char path[257]; /* printable ASCII copy, for the log */
    struct svc_match match;
    char *body;
    size_t len, cap;
    bool too_large;
    const char *refusal;    /* framing, target or a header refused (400): the detail to send */
    char refusal_text[128]; /* the detail when it names a header */
    unsigned status;
    struct svc_deferral deferral;
};

/* Microseconds on the monotonic clock. */
uint64_t svc__now_us(void);

/* connection.c: starts s->daemon on cfg's address with every limit set; libmicrohttpd calls
 * on_request and on_completed for each request, with s. Returns SVC_SERVER_OK or an
 * svc_server_status. */
int svc__daemon_start(struct svc_server *s, const struct svc_config *cfg,
                      MHD_AccessHandlerCallback on_request,
                      MHD_RequestCompletedCallback on_completed);
/* A fresh request state (its body buffer reused when the thread kept one), or NULL. */
struct svc__request_state *svc__request_state_take(void);
/* Gives rs back: kept for the thread's next request, or freed. */
void svc__request_state_give(struct svc__request_state *rs);
/* The connection's watch, or NULL when none could be made. */
struct svc__watch *svc__watch_of(struct MHD_Connection *conn);
/* The client's address as text (as --per-ip-connections counts it) into out (n bytes), or ""
 * when unknown. */
void svc__client_address(struct MHD_Connection *conn, char *out, size_t n);
/* Copies src into dst (cap > 0 bytes), replacing anything but printable ASCII with '?'. */
void svc__copy_printable(char *dst, size_t cap, const char *src);

/* request_id.c: fills out (at least 129 bytes) with the request's id: the client's
 * X-Request-Id when it is 1..128 characters of [A-Za-z0-9._:-], a fresh random one otherwise. */
void svc__request_id_assign(struct MHD_Connection *conn, char *out);

/* log.c: libmicrohttpd's own messages, as JSON log lines (MHD_OPTION_EXTERNAL_LOGGER). */
void svc__mhd_logger(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* The access log's line for a finished request: method, path, status, duration, id, and how it
 * ended when it did not end well (toe). */
void svc__access_log(const struct svc__request_state *rs, enum MHD_RequestTerminationCode toe);

/* cors.c: adds to r the CORS headers the request's Origin earns under cfg: none for an origin
 * --cors-origin does not allow; for a preflight (allow: the path's methods) what may be sent,
 * otherwise what a script may read. */
void svc__cors_headers(const struct svc_config *cfg, struct MHD_Connection *conn,
                       struct MHD_Response *r, bool preflight, const char *allow);

/* framing.c: libmicrohttpd's URI log callback; keeps the raw target's verdict on the watch. */
void *svc__on_uri(void *cls, const char *uri, struct MHD_Connection *conn);
/* Why the request's head is refused with 400 before routing (its framing, a header holding a
 * NUL byte), or NULL: a static text or buf (cap bytes). version is libmicrohttpd's, as the
 * access handler was given it. */
const char *svc__head_refusal(struct MHD_Connection *conn, const char *version, char *buf,
                              size_t cap);
/* Marks rs too large when its declared Content-Length is over max. True when the request must
 * be answered 413 at once, its body unread. */
bool svc__body_refused_early(struct MHD_Connection *conn, struct svc__request_state *rs,
                             size_t max);
/* Appends one chunk of body (n bytes) to rs; past max the body is dropped, never truncated,
 * and rs marked too large. */
void svc__body_append(struct svc__request_state *rs, const char *data, size_t n, size_t max);
/* True when ct is application/json, with or without parameters. */
bool svc__is_json_content_type(const char *ct);

/* watchdog.c: the phases of a connection's watch. */
enum svc__watch_phase {
    SVC__WATCH_HEAD_READ, /* its request's head read (the body may follow, on the same clock) */
    SVC__WATCH_HANDLING,  /* its request in the handler, or its answer deferred (the connection
                           * suspended until the handler's work completes): never cut */
    SVC__WATCH_SENDING,   /* its answer queued: the answer deadline starts */
    SVC__WATCH_STREAMING, /* its answer a live feed: never cut */
    SVC__WATCH_READING,   /* answered: reading the next request starts */
};
/* Moves the connection's watch to phase. */
void svc__watch_mark(struct svc_server *s, struct MHD_Connection *conn,
                     enum svc__watch_phase phase);
/* The watchdog thread's body (arg: the server), until s->stopping. */
void *svc__watchdog_run(void *arg);

/* feed.c: the libmicrohttpd response of a live feed taken from res (res->stream set), NULL when
 * out of memory (the feed is then still res's). */
struct MHD_Response *svc__feed_response(struct MHD_Connection *conn, struct svc_response *res);
/* The listener's calls (db.h, db_change_fn), on its own thread; arg is the server. */
void svc__on_change(void *arg, enum db_change what, const char *id, int64_t version);
/* Whether the feeds' poll is due at now_us, the last one having run at last_us. */
bool svc__feed_poll_due(struct svc_server *s, uint64_t last_us, uint64_t now_us);

#endif

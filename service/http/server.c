#include "service/http/server.h"

#include <arpa/inet.h>
#include <linux/sockios.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "service/http/http.h"
#include "service/http/hub.h"
#include "service/http/problem.h"
#include "service/http/router.h"
#include "service/json/fields.h"
#include "service/json/writer.h"

/* A connection under watch: libmicrohttpd's timeout is an idle timeout, restarted by every
 * byte, so a client sending or reading one byte a second would hold a connection (and its
 * answer) for ever. The watchdog thread cuts any connection that has spent more than --timeout
 * seconds without a complete request (or --header-timeout without its head) since it opened
 * or since its last answer, or more than
 * --timeout seconds sending one answer since it was queued. A cut is shutdown(2) with
 * SO_LINGER zero, so that libmicrohttpd, which then fails the connection, closes it with a
 * reset and the kernel drops whatever of the answer is still unsent. A connection whose request
 * is in its handler is never cut. */
struct watch {
    struct watch *prev, *next;
    int fd;
    uint64_t since_us; /* when reading the request began, or when the answer was queued */
    bool busy;         /* in the handler */
    bool sending;      /* the answer is queued and being sent */
    bool head_read;    /* the request's head has arrived: --header-timeout no longer applies */
    bool streaming;    /* the answer is a live feed: open for as long as its client listens */
    bool cut;
    /* Set by on_uri for the request being read, from the raw target (before libmicrohttpd
     * unescapes it); only the connection's own thread reads or writes it. */
    const char *target_refusal;
};

struct svc_server {
    struct MHD_Daemon *daemon;
    struct svc_context *ctx;
    atomic_int in_flight;
    unsigned port;
    pthread_mutex_t watch_lock;
    struct watch *watches;
    pthread_t watchdog;
    atomic_bool stopping;
    /* The watchdog's tick: it waits on `tick` (CLOCK_MONOTONIC) for 250 ms, and shutdown wakes
     * it at once, rather than joining it up to a whole tick later. */
    pthread_mutex_t tick_lock;
    pthread_cond_t tick;
    /* Shutting down: new connections are refused (accept_policy). libmicrohttpd's own way,
     * MHD_quiesce_daemon, races its epoll thread over the listen socket and can abort the
     * process (MHD_PANIC "Failed to remove listen FD from epoll set", an open defect in
     * 0.9.75: a worker reads was_quiesced without a lock and loses the EPOLL_CTL_DEL to it). */
    atomic_bool closing;
    bool watchdog_started;
    /* The live feeds' news of other processes' writes (PostgreSQL's LISTEN/NOTIFY, on_change):
     * whether the listener listens now, and whether it asked for the database to be read
     * (it reconnected, and may have missed notifications meanwhile). */
    atomic_bool listening;
    atomic_bool poll_now;
};

/* Per-request state, created on the first callback of a request and freed when libmicrohttpd
 * reports the request complete. */
struct request_state {
    uint64_t start_us;
    char request_id[129];
    char method[16];
    char path[257]; /* printable ASCII copy, for the log */
    struct svc_match match;
    char *body;
    size_t len, cap;
    bool too_large;
    const char *refusal; /* framing or target refused (400): the detail to send */
    unsigned status;
};

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void utc_timestamp(char *out, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(out, len, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000L);
}

/* Starts a log line {time, level, event, ...} in w. */
static void log_begin(struct jw *w, const char *level, const char *event)
{
    char ts[40];
    utc_timestamp(ts, sizeof ts);
    jw_init(w, 256);
    jw_object_begin(w);
    JW_KEY(w, "time");
    jw_string(w, ts);
    JW_KEY(w, "level");
    jw_string(w, level);
    JW_KEY(w, "event");
    jw_string(w, event);
}

/* Ends the line and writes it to stderr in one write(2), so lines from several threads never
 * interleave. Written with jsonw rather than a jansson tree: the access log line is on every
 * request's path. */
static void log_end(struct jw *w)
{
    jw_object_end(w);
    size_t len = 0;
    char *text = jw_finish(w, &len);
    if (text == NULL)
        return;
    text[len] = '\n'; /* jw_finish's NUL: the buffer holds len + 1 bytes */
    pthread_mutex_lock(&log_lock);
    for (size_t off = 0; off <= len;) {
        ssize_t n = write(STDERR_FILENO, text + off, len + 1 - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    pthread_mutex_unlock(&log_lock);
    free(text);
}

void svc_log(const char *level, const char *event, json_t *extra)
{
    struct jw w;
    log_begin(&w, level, event);
    const char *key;
    json_t *v;
    json_object_foreach(extra, key, v)
    {
        jw_key(&w, key);
        jw_json(&w, v);
    }
    json_decref(extra);
    log_end(&w);
}

/* libmicrohttpd's own messages, as JSON log lines. Its format strings are its own literals. */
static void mhd_logger(void *cls, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = '\0';
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)msg[i] < 0x20 || (unsigned char)msg[i] > 0x7e)
            msg[i] = '?';
    svc_log("warn", "libmicrohttpd", json_pack("{s:s}", "message", msg));
}

/* Copies src into dst (cap bytes), replacing anything but printable ASCII with '?', so log
 * lines stay valid JSON whatever the client sent. */
static void copy_printable(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src[i] != '\0' && i + 1 < cap; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    dst[i] = '\0';
}

/* A client's X-Request-Id is kept when it is 1..128 characters of [A-Za-z0-9._:-];
 * otherwise we make one, so the id is always safe to echo and log. */
static bool request_id_acceptable(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 128)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == ':' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

static void make_request_id(char *out)
{
    unsigned char raw[16];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        /* getrandom does not fail for 16 bytes after boot; fall back to the clock anyway. */
        uint64_t t = now_us();
        memcpy(raw, &t, sizeof t);
        memcpy(raw + 8, &t, sizeof t);
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[2 * sizeof raw] = '\0';
}

static const char *header_lookup(void *cookie, const char *name)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)cookie, MHD_HEADER_KIND, name);
}

static const char *query_lookup(void *cookie, const char *name)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)cookie, MHD_GET_ARGUMENT_KIND,
                                       name);
}

/* True when the request's Origin is one --cors-origin allows. */
static const char *allowed_origin(const struct svc_config *cfg, struct MHD_Connection *conn)
{
    const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
    if (origin == NULL)
        return NULL;
    for (int i = 0; i < cfg->cors_origin_count; i++) {
        if (strcmp(cfg->cors_origins[i], "*") == 0)
            return "*";
        if (strcmp(cfg->cors_origins[i], origin) == 0)
            return origin;
    }
    return NULL;
}

/* Media type check: application/json with optional parameters (e.g. charset=utf-8). */
static bool is_json_content_type(const char *ct)
{
    if (ct == NULL)
        return false;
    while (*ct == ' ')
        ct++;
    size_t n = strlen("application/json");
    if (strncasecmp(ct, "application/json", n) != 0)
        return false;
    ct += n;
    while (*ct == ' ')
        ct++;
    return *ct == '\0' || *ct == ';';
}

static struct watch *watch_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? (struct watch *)ci->socket_context : NULL;
}

enum watch_phase { WATCH_HEAD_READ, WATCH_HANDLING, WATCH_SENDING, WATCH_STREAMING, WATCH_READING };

/* Moves the connection's watch to a phase: its request's head read (the body may follow, on
 * the same clock), its request in the handler (never cut), its answer queued (the answer
 * deadline starts), or answered (reading the next request starts). */
static void watch_mark(struct svc_server *s, struct MHD_Connection *conn, enum watch_phase phase)
{
    struct watch *w = watch_of(conn);
    if (w == NULL)
        return;
    pthread_mutex_lock(&s->watch_lock);
    if (phase == WATCH_HEAD_READ) {
        w->head_read = true;
        pthread_mutex_unlock(&s->watch_lock);
        return;
    }
    w->busy = phase == WATCH_HANDLING;
    w->sending = phase == WATCH_SENDING;
    w->streaming = phase == WATCH_STREAMING;
    if (phase == WATCH_READING)
        w->head_read = false;
    if (phase != WATCH_HANDLING)
        w->since_us = now_us();
    pthread_mutex_unlock(&s->watch_lock);
}

/* A live feed on its connection (encounter_stream.c): libmicrohttpd's content reader asks it
 * for bytes; with none to send it parks, suspending the connection, and the hub resumes it. */
struct feed {
    struct svc_stream *st;
    const struct svc_stream_ops *ops;
    struct MHD_Connection *conn;
};

static void feed_suspend(void *conn)
{
    MHD_suspend_connection(conn);
}

static void feed_resume(void *conn)
{
    MHD_resume_connection(conn);
}

static ssize_t feed_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct feed *f = cls;
    long n = f->ops->read(f->st, buf, max, feed_suspend, f->conn);
    if (n == SVC_STREAM_END)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (n < 0)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    return (ssize_t)n;
}

static void feed_free(void *cls)
{
    struct feed *f = cls;
    f->ops->free(f->st);
    free(f);
}

/* The libmicrohttpd response for res: its body, or its live feed (taken from res). */
static struct MHD_Response *response_of(struct MHD_Connection *conn, struct svc_response *res)
{
    if (res->stream != NULL) {
        struct feed *f = malloc(sizeof *f);
        if (f == NULL)
            return NULL;
        f->st = res->stream;
        f->ops = res->stream_ops;
        f->conn = conn;
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        f->ops->attach(f->st, feed_resume, conn, ci ? ci->connect_fd : -1);
        struct MHD_Response *r =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 2048, feed_read, f, feed_free);
        if (r == NULL)
            free(f); /* res->stream is still res's, freed with it */
        else
            res->stream = NULL;
        return r;
    }
    struct MHD_Response *r =
        res->static_body != NULL
            ? MHD_create_response_from_buffer(res->body_len, (void *)res->static_body,
                                              MHD_RESPMEM_PERSISTENT)
            : MHD_create_response_from_buffer_with_free_callback(res->body_len, res->body, free);
    if (r != NULL)
        res->body = NULL; /* now owned by r */
    return r;
}

/* Turns res into a libmicrohttpd response and queues it. Takes the body from res. */
static enum MHD_Result send_response(struct svc_server *s, struct MHD_Connection *conn,
                                     struct request_state *rs, struct svc_response *res,
                                     bool preflight)
{
    bool streaming = res->stream != NULL;
    struct MHD_Response *r = response_of(conn, res);
    if (r == NULL) {
        svc_response_clear(res);
        return MHD_NO;
    }
    if (res->content_type != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res->content_type);
    MHD_add_response_header(r, "X-Request-Id", rs->request_id);
    /* no-store unless the handler chose otherwise (the board's pictures revalidate by ETag). */
    bool cache_control = false;
    for (int i = 0; i < res->header_count; i++)
        cache_control |= strcasecmp(res->headers[i].name, "Cache-Control") == 0;
    if (!cache_control)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (res->allow != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, res->allow);
    for (int i = 0; i < res->header_count; i++)
        MHD_add_response_header(r, res->headers[i].name, res->headers[i].value);

    const char *origin = allowed_origin(s->ctx->config, conn);
    if (origin != NULL) {
        MHD_add_response_header(r, "Access-Control-Allow-Origin", origin);
        MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Origin");
        if (preflight) {
            MHD_add_response_header(r, "Access-Control-Allow-Methods", res->allow);
            MHD_add_response_header(r, "Access-Control-Allow-Headers",
                                    "Content-Type, Authorization, If-Match, Idempotency-Key, "
                                    "Prefer, X-Request-Id");
            MHD_add_response_header(r, "Access-Control-Max-Age", "600");
        } else {
            /* Every header an answer of ours may carry that a script needs to read (the
             * CORS-safelisted ones aside): the version, a creation's address, the preference
             * and replay notes of a write, and how long to wait after a 503. */
            MHD_add_response_header(r, "Access-Control-Expose-Headers",
                                    "ETag, Location, Preference-Applied, Idempotent-Replayed, "
                                    "Retry-After, X-Request-Id");
        }
    }
    rs->status = res->status;
    /* Counted when queued, not when the connection reports completion: a client that has read
     * this response and asks /metrics next must already see it counted. */
    svc_metrics_observe(s->ctx->metrics, rs->match.route_index, rs->method, rs->status,
                        now_us() - rs->start_us);
    enum MHD_Result ok = MHD_queue_response(conn, res->status, r);
    watch_mark(s, conn, streaming ? WATCH_STREAMING : WATCH_SENDING);
    MHD_destroy_response(r);
    svc_response_clear(res);
    return ok;
}

bool svc_watch_overdue(uint64_t since, uint64_t now, uint64_t limit)
{
    return now > since && now - since > limit;
}

/* While the listener listens, every committed write is told to the hub as it commits, and the
 * poll is only a net for what a notification could still miss (a connection whose peer vanished
 * without closing it, until the keep-alives find it out): once every LISTENING_POLL_US, or
 * --feed-poll if that is longer, instead of one read per encounter with subscribers per second
 * on every instance. Without it (SQLite, --feed-listen off, the listener reconnecting), the
 * poll is how feeds learn of other processes' writes: every --feed-poll seconds. */
#define LISTENING_POLL_US (30u * 1000000u)

/* The listener's calls (db.h, db_change_fn), on its own thread. */
static void on_change(void *arg, enum db_change what, const char *id, int64_t version)
{
    struct svc_server *s = arg;
    switch (what) {
    case DB_CHANGE_APPENDED:
        svc_hub_appended(s->ctx->hub, id, version);
        break;
    case DB_CHANGE_DELETED:
        svc_hub_deleted(s->ctx->hub, id);
        break;
    case DB_CHANGE_LISTENING:
        atomic_store(&s->listening, true);
        atomic_store(&s->poll_now, true);
        svc_log("info", "feed_listener_up", NULL);
        break;
    case DB_CHANGE_NOT_LISTENING:
        atomic_store(&s->listening, false);
        svc_log("warn", "feed_listener_down", NULL);
        break;
    }
}

/* Whether the feeds' poll is due at now_us, the last one having run at last_us. */
static bool poll_due(struct svc_server *s, uint64_t last_us, uint64_t now_us)
{
    if (atomic_exchange(&s->poll_now, false))
        return true;
    uint64_t every = (uint64_t)s->ctx->config->feed_poll_s * 1000000u;
    if (atomic_load(&s->listening) && every < LISTENING_POLL_US)
        every = LISTENING_POLL_US;
    return now_us - last_us >= every;
}

/* Waits one tick (250 ms), or less if the server is stopping. */
static void watchdog_wait(struct svc_server *s)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += 250 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->tick_lock);
    while (!atomic_load(&s->stopping) &&
           pthread_cond_timedwait(&s->tick, &s->tick_lock, &until) == 0)
        ;
    pthread_mutex_unlock(&s->tick_lock);
}

static void *watchdog_run(void *arg)
{
    struct svc_server *s = arg;
    const struct svc_config *cfg = s->ctx->config;
    uint64_t limit = (uint64_t)cfg->timeout_s * 1000000u;
    /* A request's head must arrive sooner than the whole request: a few addresses sending
     * heads slowly would otherwise hold --max-connections slots for --timeout each. */
    uint64_t head_limit = (uint64_t)cfg->header_timeout_s * 1000000u;
    if (head_limit > limit)
        head_limit = limit;
    uint64_t polled_us = now_us();
    while (!atomic_load(&s->stopping)) {
        watchdog_wait(s);
        /* The live feeds' clock: keep-alives and hang-ups every tick, and when due (poll_due)
         * the database, for events that other processes wrote (encounter_stream.c). */
        if (s->ctx->hub != NULL) {
            uint64_t t = now_us();
            svc_hub_tick(s->ctx->hub, t);
            if (s->ctx->feeds_poll != NULL && poll_due(s, polled_us, t)) {
                s->ctx->feeds_poll(s->ctx);
                polled_us = t;
            }
        }
        pthread_mutex_lock(&s->watch_lock);
        /* The clock is read under the lock, after every answer's watch_mark that came first:
         * read before it, a connection answered while the watchdog waited for the lock had a
         * since_us later than now, the unsigned difference wrapped, and a keep-alive connection
         * was cut right after its answer (seen once in a dozen runs of bench/encounters.sh: a
         * client's next request found its connection closed). */
        uint64_t now = now_us();
        for (struct watch *w = s->watches; w != NULL; w = w->next) {
            bool reading_head = !w->busy && !w->sending && !w->head_read;
            if (w->busy || w->streaming || w->cut ||
                !svc_watch_overdue(w->since_us, now, reading_head ? head_limit : limit))
                continue;
            /* An answer still being sent, or one libmicrohttpd has finished but the kernel
             * still holds (it takes megabytes at once), is dropped with a reset on close:
             * an orderly close would leave the kernel trickling it out for ever. */
            int unsent = 0;
            if (w->sending || (ioctl(w->fd, SIOCOUTQ, &unsent) == 0 && unsent > 0)) {
                struct linger reset = {.l_onoff = 1, .l_linger = 0};
                setsockopt(w->fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
            }
            shutdown(w->fd, SHUT_RDWR);
            w->cut = true;
        }
        pthread_mutex_unlock(&s->watch_lock);
    }
    return NULL;
}

/* The client's address as text (as --per-ip-connections counts it), or "" when unknown. */
static void client_address(struct MHD_Connection *conn, char *out, size_t n)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci != NULL ? ci->client_addr : NULL;
    if (sa != NULL && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
                  (socklen_t)n);
    else if (sa != NULL && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out,
                  (socklen_t)n);
}

/* Routes a fully received request to its handler, or answers 404/405/413/415/OPTIONS. */
static enum MHD_Result dispatch(struct svc_server *s, struct MHD_Connection *conn,
                                struct request_state *rs)
{
    watch_mark(s, conn, WATCH_HANDLING);
    struct svc_response res;
    memset(&res, 0, sizeof res);
    const struct svc_match *m = &rs->match;

    if (rs->refusal != NULL) {
        svc_problem(&res, SVC_PROBLEM_BAD_REQUEST, rs->refusal, NULL);
    } else if (rs->too_large) {
        svc_problem(&res, SVC_PROBLEM_BODY_TOO_LARGE, NULL, NULL);
    } else if (m->route == NULL && !m->path_known) {
        svc_problem(&res, SVC_PROBLEM_NOT_FOUND, NULL, NULL);
    } else if (m->route == NULL && strcmp(rs->method, "OPTIONS") == 0) {
        res.status = 204;
        res.allow = m->allow;
        return send_response(s, conn, rs, &res, true);
    } else if (m->route == NULL) {
        char detail[160];
        snprintf(detail, sizeof detail, "%s is not allowed here; allowed: %s", rs->method,
                 m->allow);
        svc_problem(&res, SVC_PROBLEM_METHOD_NOT_ALLOWED, detail, NULL);
        res.allow = m->allow;
    } else if ((m->route->body == SVC_BODY_JSON ||
                (m->route->body == SVC_BODY_OPTIONAL && rs->len > 0)) &&
               !is_json_content_type(header_lookup(conn, MHD_HTTP_HEADER_CONTENT_TYPE))) {
        svc_problem(&res, SVC_PROBLEM_UNSUPPORTED_MEDIA_TYPE,
                    "send the body with Content-Type: application/json", NULL);
    } else if (m->route->body == SVC_BODY_NONE && rs->len > 0) {
        svc_problem(&res, SVC_PROBLEM_UNSUPPORTED_MEDIA_TYPE, "this operation takes no body", NULL);
    } else {
        char client[INET6_ADDRSTRLEN] = "";
        client_address(conn, client, sizeof client);
        struct svc_request req = {
            .method = rs->method,
            .path = rs->path,
            .body = rs->body ? rs->body : "",
            .body_len = rs->len,
            .header = header_lookup,
            .query = query_lookup,
            .header_cookie = conn,
            .ctx = s->ctx,
            .client = client,
        };
        memcpy(req.params, m->params, sizeof req.params);
        codec_request_begin(m->route->method, m->route->pattern);
        m->route->handler(&req, &res);
        codec_request_end();
    }
    return send_response(s, conn, rs, &res, false);
}

/* Why the raw request target is refused, or NULL. libmicrohttpd unescapes the path before the
 * handler sees it, so "/healthz%00" would reach us as "/healthz" and "/a%2Fb" as "/a/b": a
 * proxy routing on the raw target and this server would disagree on what was asked. A NUL is
 * refused anywhere in the target (no C string can carry it; a query value would be cut short
 * at it), an encoded slash in the path only. */
static const char *target_refusal(const char *uri)
{
    size_t path_len = strcspn(uri, "?");
    for (const char *p = strchr(uri, '%'); p != NULL; p = strchr(p + 1, '%')) {
        if (p[1] == '0' && p[2] == '0')
            return "the request target holds an encoded NUL (%00)";
        if ((size_t)(p - uri) < path_len && p[1] == '2' && (p[2] == 'F' || p[2] == 'f'))
            return "the path holds an encoded slash (%2F); send the slash as it is, or none";
    }
    return NULL;
}

/* libmicrohttpd's URI log callback: the only place the raw target is visible. It runs once per
 * request, before the headers are read; the verdict waits on the connection's watch until the
 * access handler's first call. Returns NULL: the request state is made there. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    struct watch *w = watch_of(conn);
    if (w != NULL)
        w->target_refusal = target_refusal(uri);
    return NULL;
}

struct framing {
    int content_length, transfer_encoding, host;
    const char *first_length;
    bool lengths_differ;
};

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
    (void)kind;
    struct framing *f = cls;
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        if (f->content_length++ == 0)
            f->first_length = value;
        else if (strcmp(f->first_length, value) != 0)
            f->lengths_differ = true;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        f->transfer_encoding++;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0) {
        f->host++;
    }
    return MHD_YES;
}

/* Why the request's framing is refused, or NULL: message framing that a proxy in front of us
 * could read differently from libmicrohttpd (which takes the first Content-Length, and
 * Transfer-Encoding over Content-Length), the ground of request smuggling. RFC 9112 section 6.3
 * lets a server refuse both with 400. */
static const char *framing_refusal(struct MHD_Connection *conn, const char *version)
{
    struct framing f = {0};
    MHD_get_connection_values(conn, MHD_HEADER_KIND, count_framing, &f);
    if (f.lengths_differ)
        return "two Content-Length headers with different values";
    if (f.transfer_encoding > 0 && f.content_length > 0)
        return "Transfer-Encoding and Content-Length together";
    /* RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host
     * header or with more than one. libmicrohttpd checks only when strict (and then answers
     * in HTML), so it is checked here, where the answer can be problem+json. */
    if (f.host > 1)
        return "more than one Host header";
    if (f.host == 0 && strcmp(version, MHD_HTTP_VERSION_1_1) == 0)
        return "an HTTP/1.1 request needs a Host header";
    return NULL;
}

/* The declared Content-Length, or false when there is none (or it is not a number). */
static bool declared_length(struct MHD_Connection *conn, unsigned long long *out)
{
    const char *cl =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl == NULL)
        return false;
    char *end = NULL;
    unsigned long long n = strtoull(cl, &end, 10);
    if (end == cl)
        return false;
    *out = n;
    return true;
}

/* How much of a body declared over --max-body is read and thrown away before its 413 is sent.
 * A client that writes its whole body before reading (Python's http.client, curl without
 * Expect) otherwise meets a closed connection mid-body and reports a reset, never the 413. A
 * larger body is answered at once, unread: reading it all would cost more than the reset. */
#define DISCARD_MAX (1024u * 1024u)

/* True when the client waits for 100 Continue before sending its body: then the 413 goes out
 * at once, and the body never comes. */
static bool expects_continue(struct MHD_Connection *conn)
{
    const char *e = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
    return e != NULL && strcasecmp(e, "100-continue") == 0;
}

/* Appends one chunk of body. Past the limit the body is dropped, never truncated: the request
 * is answered 413 once it has been read. */
static void append_body(struct request_state *rs, const char *data, size_t n, size_t max)
{
    if (rs->too_large)
        return;
    if (n > max - rs->len) {
        rs->too_large = true;
        free(rs->body);
        rs->body = NULL;
        rs->len = rs->cap = 0;
        return;
    }
    if (rs->len + n + 1 > rs->cap) {
        /* Small bodies stay under 1 KB, where glibc's per-thread cache serves them. */
        size_t cap = rs->cap ? rs->cap : 512;
        while (cap < rs->len + n + 1)
            cap *= 2;
        if (cap > max + 1)
            cap = max + 1;
        char *b = realloc(rs->body, cap);
        if (b == NULL) {
            rs->too_large = true; /* cannot hold it: refuse rather than truncate */
            free(rs->body);
            rs->body = NULL;
            rs->len = rs->cap = 0;
            return;
        }
        rs->body = b;
        rs->cap = cap;
    }
    memcpy(rs->body + rs->len, data, n);
    rs->len += n;
    rs->body[rs->len] = '\0';
}

/* Each worker thread keeps its last request's state, and its body buffer when that is small,
 * for the next request. At ~1.1 KB the state is above glibc's small-bin sizes, and allocating
 * one made malloc consolidate the fast bins that the previous request's JSON had filled
 * (perf on /v1/attacks/resolve under wrk: malloc_consolidate and _int_malloc 3.6% of the
 * server's CPU before, 1.3% after). */
#define SPARE_BODY_MAX 16384
static pthread_key_t spare_key;
static bool spare_ok; /* false if no key could be made: every request then allocates */
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;

static void spare_free(void *p)
{
    struct request_state *rs = p;
    free(rs->body);
    free(rs);
}

static void spare_init(void)
{
    spare_ok = pthread_key_create(&spare_key, spare_free) == 0;
}

static struct request_state *state_take(void)
{
    pthread_once(&spare_once, spare_init);
    struct request_state *rs = spare_ok ? pthread_getspecific(spare_key) : NULL;
    if (rs == NULL)
        return calloc(1, sizeof *rs);
    pthread_setspecific(spare_key, NULL);
    char *body = rs->body;
    size_t cap = rs->cap;
    memset(rs, 0, sizeof *rs);
    rs->body = body;
    rs->cap = cap;
    if (body != NULL)
        body[0] = '\0';
    return rs;
}

static void state_give(struct request_state *rs)
{
    if (rs->cap > SPARE_BODY_MAX) {
        free(rs->body);
        rs->body = NULL;
        rs->cap = 0;
    }
    if (spare_ok && pthread_getspecific(spare_key) == NULL &&
        pthread_setspecific(spare_key, rs) == 0)
        return;
    spare_free(rs);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct svc_server *s = cls;
    struct request_state *rs = *con_cls;
    size_t max = s->ctx->config->max_body;

    if (rs == NULL) {
        rs = state_take();
        if (rs == NULL)
            return MHD_NO;
        *con_cls = rs;
        watch_mark(s, conn, WATCH_HEAD_READ);
        atomic_fetch_add(&s->in_flight, 1);
        rs->start_us = now_us();
        copy_printable(rs->method, sizeof rs->method, method);
        copy_printable(rs->path, sizeof rs->path, url);
        const char *id = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Request-Id");
        if (id != NULL && request_id_acceptable(id))
            memcpy(rs->request_id, id, strlen(id) + 1);
        else
            make_request_id(rs->request_id);
        svc_route_match(s->ctx->routes, s->ctx->route_count, method, url, &rs->match);
        struct watch *w = watch_of(conn);
        rs->refusal = w != NULL ? w->target_refusal : NULL;
        if (rs->refusal == NULL)
            rs->refusal = framing_refusal(conn, version);
        if (rs->refusal != NULL)
            return dispatch(s, conn, rs); /* before any body is read; the connection closes */
        unsigned long long declared = 0;
        if (declared_length(conn, &declared) && declared > max) {
            rs->too_large = true; /* append_body drops whatever arrives */
            if (declared - max > DISCARD_MAX || expects_continue(conn))
                return dispatch(s, conn, rs); /* unread; libmicrohttpd then closes */
        }
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        append_body(rs, upload_data, *upload_data_size, max);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (rs->status != 0)
        return MHD_YES; /* already answered (early 400 or 413) */
    return dispatch(s, conn, rs);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct svc_server *s = cls;
    watch_mark(s, conn, WATCH_READING);
    struct request_state *rs = *con_cls;
    if (rs == NULL)
        return;
    uint64_t duration = now_us() - rs->start_us;
    struct jw w;
    log_begin(&w, "info", "request");
    JW_KEY(&w, "method");
    jw_string(&w, rs->method);
    JW_KEY(&w, "path");
    jw_string(&w, rs->path);
    JW_KEY(&w, "status");
    jw_int(&w, (long long)rs->status);
    JW_KEY(&w, "duration_us");
    jw_int(&w, (long long)duration);
    JW_KEY(&w, "request_id");
    jw_string(&w, rs->request_id);
    if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK) {
        JW_KEY(&w, "terminated");
        jw_int(&w, (long long)toe);
    }
    log_end(&w);
    state_give(rs);
    *con_cls = NULL;
    atomic_fetch_sub(&s->in_flight, 1);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct svc_server *s = cls;
    svc_metrics_connection(s->ctx->metrics, toe == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1);
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct watch *w = ci ? calloc(1, sizeof *w) : NULL;
        if (w == NULL)
            return;
        w->fd = ci->connect_fd;
        w->since_us = now_us();
        pthread_mutex_lock(&s->watch_lock);
        w->next = s->watches;
        if (s->watches)
            s->watches->prev = w;
        s->watches = w;
        pthread_mutex_unlock(&s->watch_lock);
        *socket_context = w;
        return;
    }
    /* Closed: libmicrohttpd has not closed the socket yet, so the watchdog, which holds the
     * lock while it uses a descriptor, never touches a reused one. */
    struct watch *w = *socket_context;
    if (w == NULL)
        return;
    pthread_mutex_lock(&s->watch_lock);
    if (w->prev)
        w->prev->next = w->next;
    else
        s->watches = w->next;
    if (w->next)
        w->next->prev = w->prev;
    pthread_mutex_unlock(&s->watch_lock);
    free(w);
    *socket_context = NULL;
}

/* libmicrohttpd's accept policy: every connection until shutdown begins. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)addr;
    (void)addrlen;
    const struct svc_server *s = cls;
    return atomic_load(&s->closing) ? MHD_NO : MHD_YES;
}

int svc_server_start(struct svc_context *ctx, struct svc_server **out)
{
    const struct svc_config *cfg = ctx->config;
    *out = NULL;
    struct sockaddr_in sin;
    struct sockaddr_in6 sin6;
    struct sockaddr *addr;
    /* Suspend and resume: the live feeds park their connections (encounter_stream.c). */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
    memset(&sin, 0, sizeof sin);
    memset(&sin6, 0, sizeof sin6);
    if (strchr(cfg->bind, ':') != NULL) {
        sin6.sin6_family = AF_INET6;
        sin6.sin6_port = htons((uint16_t)cfg->port);
        if (inet_pton(AF_INET6, cfg->bind, &sin6.sin6_addr) != 1)
            return SVC_SERVER_ERR_BIND_ADDRESS;
        addr = (struct sockaddr *)&sin6;
        flags |= MHD_USE_IPv6;
    } else {
        sin.sin_family = AF_INET;
        sin.sin_port = htons((uint16_t)cfg->port);
        if (inet_pton(AF_INET, cfg->bind, &sin.sin_addr) != 1)
            return SVC_SERVER_ERR_BIND_ADDRESS;
        addr = (struct sockaddr *)&sin;
    }

    struct svc_server *s = calloc(1, sizeof *s);
    if (s == NULL)
        return SVC_SERVER_ERR_NOMEM;
    s->ctx = ctx;
    atomic_init(&s->in_flight, 0);
    atomic_init(&s->stopping, false);
    atomic_init(&s->closing, false);
    pthread_mutex_init(&s->watch_lock, NULL);
    pthread_mutex_init(&s->tick_lock, NULL);
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&s->tick, &monotonic);
    pthread_condattr_destroy(&monotonic);

    /* Every limit is explicit: libmicrohttpd's own defaults include no connection timeout.
     * Its idle timer is set 2 s past --timeout, a backstop: the watchdog, which looks every
     * 250 ms, cuts first, and so can drop an unsent answer with a reset (watchdog_run). */
    s->daemon = MHD_start_daemon(
        flags, (uint16_t)cfg->port, accept_policy, s, on_request, s,
        /* First, so that libmicrohttpd's own messages about the options after it come here too
         * (it warns at start-up when the logger is not the first option). */
        MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL, MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)cfg->threads, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)cfg->max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)cfg->per_ip_connections, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)cfg->timeout_s + 2, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)cfg->connection_memory, MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)512,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
        s, MHD_OPTION_URI_LOG_CALLBACK, on_uri, s, MHD_OPTION_END);
    if (s->daemon == NULL) {
        pthread_mutex_destroy(&s->watch_lock);
        pthread_cond_destroy(&s->tick);
        pthread_mutex_destroy(&s->tick_lock);
        free(s);
        return SVC_SERVER_ERR_START;
    }
    atomic_init(&s->listening, false);
    atomic_init(&s->poll_now, false);
    /* On SQLite there is no listener (DB_ERR_UNSUPPORTED): the poll does it all. */
    if (ctx->hub != NULL && cfg->feed_listen)
        db_listen_start(ctx->db, on_change, s);
    s->watchdog_started = pthread_create(&s->watchdog, NULL, watchdog_run, s) == 0;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : cfg->port;
    *out = s;
    return SVC_SERVER_OK;
}

unsigned svc_server_port(const struct svc_server *s)
{
    return s->port;
}

int svc_server_shutdown(struct svc_server *s, int timeout_ms)
{
    atomic_store(&s->closing, true);
    /* The live feeds end first: each is a request in flight for as long as it is open, and
     * libmicrohttpd must not be stopped with a connection suspended. The listener stops
     * before them, as its calls reach this server. */
    db_listen_stop(s->ctx->db);
    if (s->ctx->hub != NULL)
        svc_hub_close(s->ctx->hub);
    int waited = 0;
    while (atomic_load(&s->in_flight) > 0 && waited < timeout_ms) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        waited += 10;
    }
    int left = atomic_load(&s->in_flight);
    pthread_mutex_lock(&s->tick_lock);
    atomic_store(&s->stopping, true);
    pthread_cond_signal(&s->tick);
    pthread_mutex_unlock(&s->tick_lock);
    if (s->watchdog_started)
        pthread_join(s->watchdog, NULL);
    MHD_stop_daemon(s->daemon);
    pthread_mutex_destroy(&s->watch_lock);
    pthread_cond_destroy(&s->tick);
    pthread_mutex_destroy(&s->tick_lock);
    free(s);
    return left;
}

/* Connections: the libmicrohttpd daemon, started with every limit explicit (its own defaults
 * include no connection timeout), and the state kept per connection (its watch, linked into
 * the server's list for the watchdog) and per request (struct svc__request_state, recycled per
 * worker thread). New connections are refused once shutdown begins. */
#include <arpa/inet.h>
#include <assert.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "service/http/metrics.h"
#include "service/http/server_internal.h"

uint64_t svc__now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void svc__copy_printable(char *dst, size_t cap, const char *src)
{
    assert(cap > 0);
    size_t i = 0;
    for (; src[i] != '\0' && i + 1 < cap; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    dst[i] = '\0';
}

struct svc__watch *svc__watch_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? (struct svc__watch *)ci->socket_context : NULL;
}

void svc__client_address(struct MHD_Connection *conn, char *out, size_t n)
{
    assert(n >= INET6_ADDRSTRLEN);
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
    struct svc__request_state *rs = p;
    free(rs->body);
    free(rs);
}

static void spare_init(void)
{
    spare_ok = pthread_key_create(&spare_key, spare_free) == 0;
}

struct svc__request_state *svc__request_state_take(void)
{
    pthread_once(&spare_once, spare_init);
    struct svc__request_state *rs = spare_ok ? pthread_getspecific(spare_key) : NULL;
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

void svc__request_state_give(struct svc__request_state *rs)
{
    assert(rs != NULL);
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

/* A connection opens: its watch is made and linked. */
static void watch_open(struct svc_server *s, struct MHD_Connection *conn, void **socket_context)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct svc__watch *w = ci ? calloc(1, sizeof *w) : NULL;
    if (w == NULL)
        return;
    w->fd = ci->connect_fd;
    w->since_us = svc__now_us();
    pthread_mutex_lock(&s->watch_lock);
    w->next = s->watches;
    if (s->watches)
        s->watches->prev = w;
    s->watches = w;
    pthread_mutex_unlock(&s->watch_lock);
    *socket_context = w;
}

/* A connection closes: libmicrohttpd has not closed the socket yet, so the watchdog, which
 * holds the lock while it uses a descriptor, never touches a reused one. */
static void watch_close(struct svc_server *s, void **socket_context)
{
    struct svc__watch *w = *socket_context;
    if (w == NULL)
        return;
    pthread_mutex_lock(&s->watch_lock);
    assert(w->prev != NULL || s->watches == w);
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

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct svc_server *s = cls;
    svc_metrics_connection(s->ctx->metrics, toe == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1);
    if (toe == MHD_CONNECTION_NOTIFY_STARTED)
        watch_open(s, conn, socket_context);
    else
        watch_close(s, socket_context);
}

/* libmicrohttpd's accept policy: every connection until shutdown begins. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)addr;
    (void)addrlen;
    const struct svc_server *s = cls;
    return atomic_load(&s->closing) ? MHD_NO : MHD_YES;
}

int svc__daemon_start(struct svc_server *s, const struct svc_config *cfg,
                      MHD_AccessHandlerCallback on_request,
                      MHD_RequestCompletedCallback on_completed)
{
    assert(s != NULL && cfg != NULL && s->daemon == NULL);
    struct sockaddr_in sin;
    struct sockaddr_in6 sin6;
    struct sockaddr *addr;
    /* Suspend and resume: the live feeds park their connections (feed.c). */
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
    /* libmicrohttpd's idle timer is set 2 s past --timeout, a backstop: the watchdog, which
     * looks every 250 ms, cuts first, and so can drop an unsent answer with a reset. */
    s->daemon = MHD_start_daemon(
        flags, (uint16_t)cfg->port, accept_policy, s, on_request, s,
        /* First, so that libmicrohttpd's own messages about the options after it come here too
         * (it warns at start-up when the logger is not the first option). */
        MHD_OPTION_EXTERNAL_LOGGER, svc__mhd_logger, NULL, MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)cfg->threads, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)cfg->max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)cfg->per_ip_connections, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)cfg->timeout_s + 2, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)cfg->connection_memory, MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)512,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
        s, MHD_OPTION_URI_LOG_CALLBACK, svc__on_uri, s, MHD_OPTION_END);
    return s->daemon != NULL ? SVC_SERVER_OK : SVC_SERVER_ERR_START;
}

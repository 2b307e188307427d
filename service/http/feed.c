/* A live feed on its connection (service/encounter/stream.c makes the feed): libmicrohttpd's
 * content reader asks it for bytes; with none to send it parks, suspending the connection, and
 * the hub resumes it. The feeds hear of other processes' writes from the database's listener
 * (PostgreSQL's LISTEN/NOTIFY) as they commit, and from a poll: while the listener listens, the
 * poll is only a net for what a notification could still miss, once every LISTENING_POLL_US or
 * --feed-poll if that is longer; without it (SQLite, --feed-listen off, the listener
 * reconnecting), every --feed-poll seconds. */
#include <assert.h>
#include <stdlib.h>

#include "service/http/hub.h"
#include "service/http/log.h"
#include "service/http/server_internal.h"

#define LISTENING_POLL_US (30u * 1000000u)

/* The most a feed hands libmicrohttpd in one call of its content reader: a feed woken behind a
 * burst copies many events' frames in one call (about 1 KiB each for a facing change; at 2 KiB
 * it was one or two events a call, and as many sends). libmicrohttpd holds a buffer this size
 * with each response. bench/README.md, "Live feed", has what it gave. */
#define FEED_BLOCK 16384

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
    assert((size_t)n <= max);
    return (ssize_t)n;
}

static void feed_free(void *cls)
{
    struct feed *f = cls;
    f->ops->free(f->st);
    free(f);
}

struct MHD_Response *svc__feed_response(struct MHD_Connection *conn, struct svc_response *res)
{
    assert(res->stream != NULL && res->stream_ops != NULL);
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
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, FEED_BLOCK, feed_read, f, feed_free);
    if (r == NULL)
        free(f); /* res->stream is still res's, freed with it */
    else
        res->stream = NULL;
    return r;
}

void svc__on_change(void *arg, enum db_change what, const char *id, int64_t version)
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

bool svc__feed_poll_due(struct svc_server *s, uint64_t last_us, uint64_t now_us)
{
    if (atomic_exchange(&s->poll_now, false))
        return true;
    uint64_t every = (uint64_t)s->ctx->config->feed_poll_s * 1000000u;
    if (atomic_load(&s->listening) && every < LISTENING_POLL_US)
        every = LISTENING_POLL_US;
    return now_us - last_us >= every;
}

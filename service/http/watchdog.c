/* The watchdog: one thread that looks every 250 ms. It cuts any connection that has spent more
 * than --timeout seconds without a complete request (or --header-timeout without its head)
 * since it opened or since its last answer, or more than --timeout seconds sending one answer
 * since it was queued; a connection whose request is in its handler, or whose answer is a live
 * feed, is never cut. A cut is shutdown(2), with SO_LINGER zero when an answer is unsent, so
 * that libmicrohttpd, which then fails the connection, closes it with a reset and the kernel
 * drops whatever of the answer is still unsent. The same thread is the live feeds' clock: their
 * keep-alives and hang-ups every tick, and the database poll when due (feed.c). */
#include <assert.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#include "service/http/hub.h"
#include "service/http/server_internal.h"

bool svc_watch_overdue(uint64_t since, uint64_t now, uint64_t limit)
{
    return now > since && now - since > limit;
}

void svc__watch_mark(struct svc_server *s, struct MHD_Connection *conn, enum svc__watch_phase phase)
{
    struct svc__watch *w = svc__watch_of(conn);
    if (w == NULL)
        return;
    pthread_mutex_lock(&s->watch_lock);
    if (phase == SVC__WATCH_HEAD_READ) {
        w->head_read = true;
        pthread_mutex_unlock(&s->watch_lock);
        return;
    }
    w->busy = phase == SVC__WATCH_HANDLING;
    w->sending = phase == SVC__WATCH_SENDING;
    w->streaming = phase == SVC__WATCH_STREAMING;
    if (phase == SVC__WATCH_READING)
        w->head_read = false;
    if (phase != SVC__WATCH_HANDLING)
        w->since_us = svc__now_us();
    pthread_mutex_unlock(&s->watch_lock);
}

/* Cuts w's connection. An answer still being sent, or one libmicrohttpd has finished but the
 * kernel still holds (it takes megabytes at once), is dropped with a reset on close: an orderly
 * close would leave the kernel trickling it out for ever. Called with the watch lock held, so
 * the descriptor is still w's (connection.c unlinks a watch before its socket closes). */
static void watch_cut(struct svc__watch *w)
{
    assert(!w->busy && !w->streaming && !w->cut);
    int unsent = 0;
    if (w->sending || (ioctl(w->fd, SIOCOUTQ, &unsent) == 0 && unsent > 0)) {
        struct linger reset = {.l_onoff = 1, .l_linger = 0};
        setsockopt(w->fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    }
    shutdown(w->fd, SHUT_RDWR);
    w->cut = true;
}

/* Cuts every overdue connection: limit for a request or an answer, head_limit for a head. */
static void cut_overdue(struct svc_server *s, uint64_t limit, uint64_t head_limit)
{
    pthread_mutex_lock(&s->watch_lock);
    /* The clock is read under the lock, after every answer's svc__watch_mark that came first:
     * read before it, a connection answered while the watchdog waited for the lock had a
     * since_us later than now, the unsigned difference wrapped, and a keep-alive connection
     * was cut right after its answer. */
    uint64_t now = svc__now_us();
    for (struct svc__watch *w = s->watches; w != NULL; w = w->next) {
        bool reading_head = !w->busy && !w->sending && !w->head_read;
        if (w->busy || w->streaming || w->cut ||
            !svc_watch_overdue(w->since_us, now, reading_head ? head_limit : limit))
            continue;
        watch_cut(w);
    }
    pthread_mutex_unlock(&s->watch_lock);
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

void *svc__watchdog_run(void *arg)
{
    struct svc_server *s = arg;
    const struct svc_config *cfg = s->ctx->config;
    uint64_t limit = (uint64_t)cfg->timeout_s * 1000000u;
    /* A request's head must arrive sooner than the whole request: a few addresses sending
     * heads slowly would otherwise hold --max-connections slots for --timeout each. */
    uint64_t head_limit = (uint64_t)cfg->header_timeout_s * 1000000u;
    if (head_limit > limit)
        head_limit = limit;
    uint64_t polled_us = svc__now_us();
    while (!atomic_load(&s->stopping)) {
        watchdog_wait(s);
        if (s->ctx->hub != NULL) {
            uint64_t t = svc__now_us();
            svc_hub_tick(s->ctx->hub, t);
            if (s->ctx->feeds_poll != NULL && svc__feed_poll_due(s, polled_us, t)) {
                s->ctx->feeds_poll(s->ctx);
                polled_us = t;
            }
        }
        cut_overdue(s, limit, head_limit);
    }
    return NULL;
}

/* The PostgreSQL listener (db_listen_start): how one tacticsd learns of events that other
 * instances commit to the same database, without reading the database for them.
 *
 * Every append and delete of pg.c runs pg_notify(DB_PG_CHANNEL, payload) inside its own
 * transaction, so PostgreSQL delivers the notification when, and only when, the write commits
 * (a rolled-back write tells nobody), to every session then LISTENing on the channel, in commit
 * order. The payload is "ID:VERSION" for an appended event and "ID:deleted" for a deletion.
 *
 * The listener is one thread with one connection of its own (never one of the workers': a
 * LISTENing session must stay out of transactions to receive anything, and must be read as
 * soon as the socket is readable). It connects without blocking (PQconnectStartParams and
 * PQconnectPoll), sends LISTEN, then waits in poll(2) on the connection's socket and on a pipe
 * that db_listen_stop writes to; when the socket is readable it reads what arrived
 * (PQconsumeInput) and hands every notification (PQnotifies) to the callback.
 *
 * A connection that fails or breaks (PostgreSQL restarted, the network dropped) is reported
 * (DB_CHANGE_NOT_LISTENING) and opened again after a pause that doubles from 100 ms to 2 s.
 * Notifications sent while no session of ours listened are lost for good, so each successful
 * LISTEN is reported (DB_CHANGE_LISTENING) for the caller to read once what it may have
 * missed. TCP keep-alives (30 s idle, then 3 probes 10 s apart, unless the URL says otherwise)
 * find a connection whose peer vanished without closing it. */
#include <errno.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/pg/internal.h"

#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS   2000
#define CONNECT_LIMIT_MS 5000 /* as connect_timeout on the workers' connections */

struct db_pg_listener {
    char *conninfo;
    db_change_fn fn;
    void *ud;
    int stop_pipe[2]; /* written once by db_pg_listen_stop */
    pthread_t thread;
};

static void ignore_notice(void *arg, const char *message)
{
    (void)arg, (void)message;
}

static long long monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is ready for `events` or ms pass (-1: no limit): 1 ready, 0 timed out or
 * fd < 0 and the time passed, -1 when asked to stop. */
static int wait_for(struct db_pg_listener *l, int fd, short events, int ms)
{
    struct pollfd p[2] = {{.fd = l->stop_pipe[0], .events = POLLIN}, {.fd = fd, .events = events}};
    for (;;) {
        int n = poll(p, fd >= 0 ? 2 : 1, ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0 && p[0].revents != 0)
            return -1;
        return n > 0 ? 1 : 0;
    }
}

/* A new connection, made without blocking so that db_listen_stop never waits on a server that
 * does not answer; NULL when it failed, took longer than CONNECT_LIMIT_MS, or stop was asked
 * (*stop set). */
static PGconn *connect_listener(struct db_pg_listener *l, bool *stop)
{
    const char *const keys[] = {"application_name", "keepalives_idle", "keepalives_interval",
                                "keepalives_count", "dbname",          NULL};
    const char *const values[] = {"tacticsd listener", "30", "10", "3", l->conninfo, NULL};
    PGconn *c = PQconnectStartParams(keys, values, 1);
    if (c == NULL)
        return NULL;
    if (PQstatus(c) == CONNECTION_BAD) {
        PQfinish(c);
        return NULL;
    }
    PQsetNoticeProcessor(c, ignore_notice, NULL);
    long long deadline = monotonic_ms() + CONNECT_LIMIT_MS;
    /* libpq: before the first PQconnectPoll, behave as if it had answered POLLING_WRITING. */
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    while (st != PGRES_POLLING_OK) {
        if (st == PGRES_POLLING_FAILED)
            break;
        long long left = deadline - monotonic_ms();
        int ready = left <= 0 ? 0
                              : wait_for(l, PQsocket(c),
                                         st == PGRES_POLLING_READING ? POLLIN : POLLOUT, (int)left);
        if (ready <= 0) {
            *stop = ready < 0;
            break;
        }
        st = PQconnectPoll(c);
    }
    if (st != PGRES_POLLING_OK) {
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* Hands one notification to the callback; payloads of any other shape are ignored. */
static void tell(struct db_pg_listener *l, const PGnotify *n)
{
    const char *colon = n->extra ? strrchr(n->extra, ':') : NULL;
    if (colon == NULL || colon == n->extra || (size_t)(colon - n->extra) >= 64)
        return;
    char id[64];
    memcpy(id, n->extra, (size_t)(colon - n->extra));
    id[colon - n->extra] = '\0';
    if (strcmp(colon + 1, "deleted") == 0) {
        l->fn(l->ud, DB_CHANGE_DELETED, id, 0);
        return;
    }
    char *end = NULL;
    long long version = strtoll(colon + 1, &end, 10);
    if (end != colon + 1 && *end == '\0' && version > 0)
        l->fn(l->ud, DB_CHANGE_APPENDED, id, version);
}

/* Listens on c until it breaks (false) or stop is asked (true). */
static bool listen_on(struct db_pg_listener *l, PGconn *c)
{
    PGresult *res = PQexec(c, "LISTEN " DB_PG_CHANNEL);
    bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    if (!ok)
        return false;
    l->fn(l->ud, DB_CHANGE_LISTENING, NULL, 0);
    for (;;) {
        int ready = wait_for(l, PQsocket(c), POLLIN, -1);
        if (ready < 0)
            return true;
        if (PQconsumeInput(c) == 0 || PQstatus(c) != CONNECTION_OK)
            return false;
        PGnotify *n;
        while ((n = PQnotifies(c)) != NULL) {
            tell(l, n);
            PQfreemem(n);
        }
    }
}

static void *listener_run(void *arg)
{
    struct db_pg_listener *l = arg;
    int backoff = BACKOFF_FIRST_MS;
    for (;;) {
        bool stop = false;
        PGconn *c = connect_listener(l, &stop);
        if (c != NULL) {
            stop = listen_on(l, c);
            PQfinish(c);
            if (!stop) {
                l->fn(l->ud, DB_CHANGE_NOT_LISTENING, NULL, 0);
                backoff = BACKOFF_FIRST_MS; /* it was up: the first pause is short again */
            }
        }
        if (stop || wait_for(l, -1, 0, backoff) < 0)
            return NULL;
        backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
    }
}

int db_pg_listen_start(const char *conninfo, db_change_fn fn, void *ud, struct db_pg_listener **out)
{
    *out = NULL;
    struct db_pg_listener *l = calloc(1, sizeof *l);
    if (l == NULL)
        return DB_ERR_NOMEM;
    l->fn = fn;
    l->ud = ud;
    l->conninfo = strdup(conninfo);
    if (l->conninfo == NULL || pipe2(l->stop_pipe, O_CLOEXEC) != 0) {
        free(l->conninfo);
        free(l);
        return DB_ERR_NOMEM;
    }
    if (pthread_create(&l->thread, NULL, listener_run, l) != 0) {
        close(l->stop_pipe[0]);
        close(l->stop_pipe[1]);
        free(l->conninfo);
        free(l);
        return DB_ERR_NOMEM;
    }
    *out = l;
    return DB_OK;
}

void db_pg_listen_stop(struct db_pg_listener *l)
{
    if (l == NULL)
        return;
    char byte = 1;
    while (write(l->stop_pipe[1], &byte, 1) < 0 && errno == EINTR)
        ;
    pthread_join(l->thread, NULL);
    close(l->stop_pipe[0]);
    close(l->stop_pipe[1]);
    free(l->conninfo);
    free(l);
}

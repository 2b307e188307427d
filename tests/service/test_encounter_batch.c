/* Group commit over HTTP (issue 33): a write queued behind another's commit frees its worker
 * thread (db_encounter_append_async, the answer deferred until its batch commits), so a batch
 * is no longer capped at the number of worker threads, as it was while every waiting write held
 * one (tactics_group_commit_largest was exactly --threads under load).
 *
 * To put many writes into one batch for certain, the test holds SQLite's write lock from a
 * connection of its own (as tests/db/test_group_commit.c does): the first write's worker leads,
 * and waits in BEGIN IMMEDIATE, inside its handler, where it accepts no connection; every
 * connection opened after that goes to the other worker (the harness runs --threads 2), whose
 * writes must all queue behind the blocked leader. /metrics tells how many are queued; a probe of
 * it that the blocked worker took meanwhile just waits with it, and the next probe goes to the
 * free worker. The lock is let go once all of them are queued, and the leader takes them all in
 * one transaction. Before the change the free worker held itself in the first write it queued,
 * the others never queued, and the leader's BEGIN gave up after SQLite's busy timeout (5 s):
 * that answer ends the wait, and the test fails rather than hangs. */
#include <criterion/criterion.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

#define WRITERS    12 /* more than the harness's 2 worker threads, fewer than a batch holds */
#define MAX_PROBES 512

TestSuite(encounter_batch, .timeout = 120);

static void send_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        cr_assert_gt(n, 0, "send");
        buf += n;
        len -= (size_t)n;
    }
}

/* Sends the fighter's addition to e (at version 1) on a connection of its own, unanswered yet. */
static int send_write(const struct server *s, const struct enc *e)
{
    char headers[256], req[2048];
    const char *body = TB_FIGHTER(1, 1, "");
    int n =
        snprintf(req, sizeof req,
                 "POST /v1/encounters/%s/combatants HTTP/1.1\r\nHost: t\r\n%sConnection: "
                 "close\r\nContent-Length: %zu\r\n\r\n%s",
                 e->id, tb_write_headers(headers, sizeof headers, e, 1, ""), strlen(body), body);
    cr_assert(n > 0 && (size_t)n < sizeof req);
    int fd = http_connect(s->port);
    send_all(fd, req, (size_t)n);
    return fd;
}

static int send_probe(const struct server *s)
{
    static const char req[] = "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    int fd = http_connect(s->port);
    send_all(fd, req, sizeof req - 1);
    return fd;
}

/* The value of a metric in a /metrics answer, or -1. */
static long long metric_of(const struct http_response *r, const char *name)
{
    char key[96];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *at = r->body != NULL ? strstr(r->body, key) : NULL;
    return at != NULL ? atoll(at + strlen(key)) : -1;
}

struct probes {
    int fd[MAX_PROBES];
    int n;
};

/* Waits until /metrics tells that at least n writes are queued (true), or until one of the
 * writes writes[0..nw) is answered first (false: it was not queued, or its batch gave up). A new
 * probe is sent whenever none has answered for 20 ms: not a deadline, only how often to knock. */
static bool wait_queued(const struct server *s, struct probes *p, const int *writes, int nw,
                        long long n)
{
    for (;;) {
        cr_assert_lt(p->n, MAX_PROBES, "no /metrics probe was answered");
        p->fd[p->n++] = send_probe(s);
        struct pollfd pf[MAX_PROBES + WRITERS];
        int count = 0;
        for (int i = 0; i < nw; i++)
            pf[count++] = (struct pollfd){.fd = writes[i], .events = POLLIN};
        for (int i = 0; i < p->n; i++)
            pf[count++] = (struct pollfd){.fd = p->fd[i], .events = POLLIN};
        cr_assert_geq(poll(pf, (nfds_t)count, 20), 0);
        for (int i = 0; i < nw; i++)
            if (pf[i].revents != 0)
                return false;
        long long queued = -1;
        for (int i = p->n - 1; i >= 0; i--) {
            if (pf[nw + i].revents == 0)
                continue;
            struct http_response r;
            if (http_read_response(p->fd[i], &r) == 0) {
                long long q = metric_of(&r, "tactics_group_commit_queued");
                queued = q > queued ? q : queued;
                http_response_free(&r);
            }
            close(p->fd[i]);
            p->fd[i] = p->fd[--p->n];
        }
        if (queued >= n)
            return true;
    }
}

static void release(sqlite3 *h)
{
    cr_assert_eq(sqlite3_exec(h, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
}

/* Starts a server with WRITERS encounters, holds its write lock, and queues a write to each
 * behind the leader blocked in BEGIN (fds: their connections, unanswered). False when they
 * could not all queue (then the lock is let go, and answers come). */
static bool queue_behind_held_lock(struct server *s, struct enc *e, int *fds, sqlite3 **h)
{
    server_start(s, NULL); /* --threads 2 */
    for (int i = 0; i < WRITERS; i++)
        enc_create(s, &e[i], "{\"map\":{\"width\":10,\"height\":10}}");
    cr_assert_eq(sqlite3_open(s->db_path, h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(*h, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    struct probes p = {.n = 0};
    fds[0] = send_write(s, &e[0]);
    /* Its worker leads, blocked in BEGIN: from now on the other worker takes every connection. */
    bool led = wait_queued(s, &p, fds, 1, 1);
    for (int i = 1; led && i < WRITERS; i++)
        fds[i] = send_write(s, &e[i]);
    bool all = led && wait_queued(s, &p, fds, WRITERS, WRITERS);
    for (int i = 0; i < p.n; i++)
        close(p.fd[i]);
    if (!all)
        release(*h);
    return all;
}

/* Reads the answers of fds[0..n): each the fighter's addition, 201 at version 2. */
static void added(int *fds, int n)
{
    for (int i = 0; i < n; i++) {
        struct http_response r;
        cr_assert_eq(http_read_response(fds[i], &r), 0);
        close(fds[i]);
        cr_assert_eq(r.status, 201, "write %d: %d %s", i, r.status, r.body);
        char etag[32];
        cr_assert(http_header(&r, "ETag", etag, sizeof etag));
        cr_assert_str_eq(etag, "\"v2\"");
        http_response_free(&r);
    }
}

Test(encounter_batch, writes_queued_behind_a_commit_share_it_beyond_the_worker_threads)
{
    if (server_on_postgres())
        return; /* PostgreSQL groups commits itself (no cr_skip_test: it leaks in Criterion
                 * 2.4.1's runner) */
    struct server s;
    struct enc e[WRITERS];
    int fds[WRITERS];
    sqlite3 *h = NULL;
    cr_assert(queue_behind_held_lock(&s, e, fds, &h),
              "every write is queued behind the blocked leader; before issue 33 one waiting "
              "write held each worker thread and no more could queue");
    /* The last client goes away while its write waits: the write still commits, and its
     * connection's end frees what the answer held (the server's own leak check at exit). */
    close(fds[WRITERS - 1]);
    release(h);
    added(fds, WRITERS - 1);
    /* All of them in one transaction: six times the worker threads, which capped it before. */
    cr_assert_eq(tb_metric(&s, "tactics_group_commit_largest"), WRITERS);
    cr_assert_eq(tb_metric(&s, "tactics_group_commit_queued"), 0);
    /* And stored: each encounter at version 2, with the fighter. */
    for (int i = 0; i < WRITERS; i++) {
        json_t *doc = enc_call(&s, &e[i], "GET", "", NULL, NULL, 200);
        cr_assert_eq(tb_num(doc, "version"), 2);
        cr_assert_not_null(enc_combatant(doc, "fighter"));
        json_decref(doc);
    }
    server_stop(&s);
}

/* Stopping (SIGTERM) while writes wait for their commit with their connections suspended: the
 * server waits for them (libmicrohttpd must not be stopped with a suspended connection), they
 * commit and are answered, and it exits cleanly with no request unfinished. */
Test(encounter_batch, a_stop_waits_for_the_writes_waiting_for_their_commit)
{
    if (server_on_postgres())
        return;
    struct server s;
    struct enc e[WRITERS];
    int fds[WRITERS];
    sqlite3 *h = NULL;
    cr_assert(queue_behind_held_lock(&s, e, fds, &h));
    kill(s.pid, SIGTERM);
    for (;;) { /* the server has begun to stop */
        char *log = server_log(&s);
        bool stopping = strstr(log, "\"stopping\"") != NULL;
        free(log);
        if (stopping)
            break;
        usleep(10000);
    }
    release(h);
    added(fds, WRITERS);
    char *log = server_stop_log(&s);
    cr_assert_not_null(strstr(log, "\"unfinished_requests\":0"), "%s", log);
    free(log);
}

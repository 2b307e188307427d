/* Crash safety (issues 8, 9 and 22): WRITERS clients (a thread and a connection each) stream
 * writes to ENCOUNTERS encounters (writer w to encounter w % ENCOUNTERS; several writers on one
 * encounter race, and the losers get 412) while tacticsd is killed with SIGKILL at random
 * moments (after a random 20 to 220 writes acknowledged since its start, by the writer that
 * got the last of them, while the others' writes are in flight: a count rather than a time, so
 * that a loaded machine makes a run slower, not longer by more restarts), until WRITES writes
 * have been acknowledged. With several writers at once, group
 * commit (on by default) puts several clients' events into one transaction: this is its proof
 * that nothing is acknowledged before it is durable. After every kill the file must pass
 * PRAGMA integrity_check, and after every restart every encounter must hold at least the last
 * version acknowledged to it and verify. At the end each encounter's log must be
 * numbered 1..version with no gap, every acknowledged version must be in it, no version may have
 * been acknowledged twice (none doubled), and POST .../verify must re-resolve it: ok. Usage:
 * crash_bench TACTICSD DIR [WRITES [WRITERS [ENCOUNTERS]]] [-- TACTICSD_ARGS...] (defaults 10000
 * writes, 1 writer, one encounter per writer) */
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/encounter_client.h"

#define MAX_WRITERS 64
#define MAX_VERSION (1 << 20)

static pid_t server;
static unsigned port;
static char **server_args; /* after "--", NULL-terminated */
static int n_server_args;

/* Starts tacticsd on a free port and waits for its "listening" line (or its exit), however long
 * the machine takes. */
static void start(const char *bin, const char *dir)
{
    char db[512], log[512];
    snprintf(db, sizeof db, "%s/crash.db", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    unlink(log);
    server = fork();
    if (server == 0) {
        if (freopen(log, "w", stderr) == NULL)
            _exit(127);
        char *args[8 + 64] = {(char *)bin, "--port", "0", "--db", db};
        int n = 5;
        for (int i = 0; i < n_server_args && n < 8 + 63; i++)
            args[n++] = server_args[i];
        args[n] = NULL;
        execv(bin, args);
        _exit(127);
    }
    for (;;) {
        FILE *f = fopen(log, "r");
        char line[512];
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            const char *p = strstr(line, "\"listening\"") ? strstr(line, "\"port\":") : NULL;
            if (p != NULL) {
                port = (unsigned)atoi(p + 7);
                fclose(f);
                return;
            }
        }
        if (f != NULL)
            fclose(f);
        int status;
        if (waitpid(server, &status, WNOHANG) == server) {
            fprintf(stderr, "tacticsd exited during start-up (status %d)\n", status);
            exit(1);
        }
        usleep(25000);
    }
}

static int integrity(const char *dir)
{
    char db[512];
    snprintf(db, sizeof db, "%s/crash.db", dir);
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int ok = 0;
    if (sqlite3_open(db, &h) == SQLITE_OK &&
        sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        ok = strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
    sqlite3_finalize(st);
    sqlite3_close(h);
    return ok;
}

static int n_enc;
static struct enc encs[MAX_WRITERS];      /* as created; .version: the stored one */
static long long last_acked[MAX_WRITERS]; /* the highest version acknowledged */
static unsigned char *acked[MAX_WRITERS]; /* acked[i][v]: 200s naming version v */
static pthread_mutex_t acked_lock = PTHREAD_MUTEX_INITIALIZER;

/* This run of the server: the writes acknowledged since it started, and the count that kills it. */
static atomic_long run_acked;
static long kill_at;

struct writer {
    pthread_t t;
    int index;
    struct enc e; /* its copy of its encounter, at the version it last saw */
    long long k;
    long ok, conflicts, other;
};

/* Writes until the connection dies (the server was killed). */
static void *write_until_killed(void *arg)
{
    struct writer *w = arg;
    static struct conn conns[MAX_WRITERS];
    struct conn *c = &conns[w->index];
    if (conn_open(c, port) != 0)
        return NULL;
    int i = w->index % n_enc;
    for (;; w->k++) {
        char action[96];
        snprintf(action, sizeof action, "{\"type\":\"facing\",\"actor\":\"a\",\"facing\":%lld}",
                 w->k % 8);
        int status = enc_act(c, &w->e, action);
        if (status < 0)
            break;
        if (status == 200) {
            w->ok++;
            pthread_mutex_lock(&acked_lock);
            if (w->e.version < MAX_VERSION)
                acked[i][w->e.version]++;
            if (w->e.version > last_acked[i])
                last_acked[i] = w->e.version;
            pthread_mutex_unlock(&acked_lock);
            if (atomic_fetch_add(&run_acked, 1) + 1 == kill_at)
                kill(server, SIGKILL);
        } else if (status == 412) {
            w->conflicts++; /* the ETag gave the current version */
        } else {
            w->other++;
            fprintf(stderr, "writer %d: status %d\n", w->index, status);
        }
    }
    close(c->fd);
    return NULL;
}

/* The encounter's stored version (its ETag), or -1. */
static long long stored_version(struct conn *c, const struct enc *e)
{
    char path[160], headers[160];
    snprintf(path, sizeof path, "/v1/encounters/%.63s", e->id);
    snprintf(headers, sizeof headers, "Authorization: Bearer %.79s\r\n", e->token);
    long long v = -1;
    return request(c, "GET", path, headers, NULL, &v, NULL) == 200 ? v : -1;
}

/* The final checks of encounter i: contiguous log, every acknowledged version in it, none
 * acknowledged twice, verify ok. */
static bool check_log(struct conn *c, int i)
{
    const struct enc *e = &encs[i];
    char path[160], headers[160];
    snprintf(headers, sizeof headers, "Authorization: Bearer %.79s\r\n", e->token);
    long long final = stored_version(c, e), seen = 0;
    for (;;) {
        const char *body = NULL;
        snprintf(path, sizeof path, "/v1/encounters/%.63s/events?after=%lld&limit=500", e->id,
                 seen);
        if (request(c, "GET", path, headers, NULL, NULL, &body) != 200) {
            fprintf(stderr, "encounter %d: events after %lld: no answer\n", i, seen);
            return false;
        }
        /* Each event's "seq": in order, one more than the last. */
        long long n = 0;
        for (const char *p = strstr(body, "\"seq\":"); p != NULL; p = strstr(p + 6, "\"seq\":")) {
            long long seq = atoll(p + 6);
            if (seq != seen + 1) {
                fprintf(stderr, "encounter %d: event %lld follows %lld\n", i, seq, seen);
                return false;
            }
            seen = seq;
            n++;
        }
        if (n == 0)
            break;
    }
    if (seen != final) {
        fprintf(stderr, "encounter %d: %lld events, version %lld\n", i, seen, final);
        return false;
    }
    if (!acked_versions_hold(i, acked[i], MAX_VERSION, final))
        return false;
    const char *body = NULL;
    snprintf(path, sizeof path, "/v1/encounters/%.63s/verify", e->id);
    if (request(c, "POST", path, headers, NULL, NULL, &body) != 200 ||
        strstr(body, "\"ok\":true") == NULL) {
        fprintf(stderr, "encounter %d: verify failed\n", i);
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    int nargs = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            nargs = i;
            server_args = argv + i + 1;
            n_server_args = argc - i - 1;
            break;
        }
    if (nargs < 3) {
        fprintf(stderr, "usage: crash_bench TACTICSD DIR [WRITES [WRITERS [ENCOUNTERS]]] [-- "
                        "TACTICSD_ARGS...]\n");
        return 2;
    }
    long target = nargs > 3 ? atol(argv[3]) : 10000;
    int n_writers = nargs > 4 ? atoi(argv[4]) : 1;
    n_enc = nargs > 5 ? atoi(argv[5]) : n_writers;
    if (n_writers < 1 || n_writers > MAX_WRITERS || n_enc < 1 || n_enc > n_writers)
        return 2;
    srand((unsigned)time(NULL));
    static struct conn c;
    start(argv[1], argv[2]);
    if (conn_open(&c, port) != 0)
        return 1;
    for (int i = 0; i < n_enc; i++) {
        enc_setup(&c, &encs[i]);
        acked[i] = calloc(MAX_VERSION, 1);
        last_acked[i] = encs[i].version;
    }
    struct writer ws[MAX_WRITERS];
    for (int w = 0; w < n_writers; w++)
        ws[w] = (struct writer){.index = w, .e = encs[w % n_enc]};
    long acked_total = 0, kills = 0, lost = 0, bad = 0, conflicts = 0, other = 0;
    double t0 = now_s();
    while (acked_total < target) {
        close(c.fd);
        atomic_store(&run_acked, 0);
        kill_at = 20 + rand() % 201;
        for (int w = 0; w < n_writers; w++)
            pthread_create(&ws[w].t, NULL, write_until_killed, &ws[w]);
        for (int w = 0; w < n_writers; w++)
            pthread_join(ws[w].t, NULL);
        int status;
        waitpid(server, &status, 0);
        kills++;
        if (!integrity(argv[2])) {
            bad++;
            fprintf(stderr, "integrity_check failed after kill %ld\n", kills);
        }
        start(argv[1], argv[2]);
        if (conn_open(&c, port) != 0)
            return 1;
        /* Every acknowledged event is there: the stored version is at least the last one
         * acknowledged (a write the kill interrupted may have landed unacknowledged). */
        for (int i = 0; i < n_enc; i++) {
            long long stored = stored_version(&c, &encs[i]);
            if (stored < last_acked[i]) {
                lost++;
                fprintf(stderr,
                        "after kill %ld: encounter %d at version %lld < acknowledged "
                        "%lld\n",
                        kills, i, stored, last_acked[i]);
            }
            encs[i].version = stored;
            char path[160], headers[160];
            const char *body = NULL;
            snprintf(path, sizeof path, "/v1/encounters/%.63s/verify", encs[i].id);
            snprintf(headers, sizeof headers, "Authorization: Bearer %.79s\r\n", encs[i].token);
            if (request(&c, "POST", path, headers, NULL, NULL, &body) != 200 ||
                strstr(body, "\"ok\":true") == NULL) {
                bad++;
                fprintf(stderr, "verify of encounter %d failed after kill %ld\n", i, kills);
            }
        }
        acked_total = 0;
        for (int w = 0; w < n_writers; w++) {
            ws[w].e.version = encs[w % n_enc].version;
            acked_total += ws[w].ok;
        }
    }
    bool logs_ok = true;
    for (int i = 0; i < n_enc; i++)
        logs_ok = check_log(&c, i) && logs_ok;
    for (int w = 0; w < n_writers; w++) {
        conflicts += ws[w].conflicts;
        other += ws[w].other;
    }
    close(c.fd);
    kill(server, SIGTERM);
    int status;
    waitpid(server, &status, 0);
    long long events = 0;
    for (int i = 0; i < n_enc; i++) {
        events += encs[i].version;
        free(acked[i]);
    }
    printf("crash bench: %ld writes acknowledged by %d writers to %d encounters across %ld "
           "SIGKILLs in %.0f s (%ld conflicts, %ld other answers); events lost %ld, integrity "
           "or verify failures %ld, logs %s; %lld events stored\n",
           acked_total, n_writers, n_enc, kills, now_s() - t0, conflicts, other, lost, bad,
           logs_ok ? "contiguous, none doubled, verify ok" : "FAILED", events);
    return lost == 0 && bad == 0 && logs_ok && other == 0 ? 0 : 1;
}

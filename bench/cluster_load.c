/* Several clients write to the same encounters through the balancer of scripts/cluster for a
 * while, then every encounter's log is checked against what was acknowledged:
 *   - the events are numbered 1..version with no gap (nothing doubled, nothing skipped);
 *   - every acknowledged write (a 200 naming version v) is there: v <= the final version, and
 *     no two acknowledgements name one version of one encounter (none was doubled);
 *   - POST .../verify re-resolves the whole log: ok.
 * A write whose answer was lost (an instance killed mid-request: a reset, or the balancer's
 * 502) is unacknowledged: it may or may not be in the log, and the client re-reads the version.
 * Prints one line of figures and "cluster_load: ok", or what failed, and exits 0 or 1.
 * Usage: cluster_load PORT SECONDS ENCOUNTERS CLIENTS */
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/encounter_client.h"

static const char *const attack = "{\"type\":\"attack\",\"actor\":\"a\",\"target\":\"d\"}";

static unsigned port;
static double deadline;
static int n_enc;
static struct enc *encs;
/* acked[i][v] counts the 200s naming version v of encounter i. */
static unsigned char **acked;
static long long max_version = 1 << 16;
static pthread_mutex_t acked_lock = PTHREAD_MUTEX_INITIALIZER;

struct client {
    int index;
    long long ok, conflicts, failures;
};

/* A read for the checks (GET, or verify, which writes nothing), retried on a fresh connection
 * until it is answered 200: after an instance is killed, the balancer may close a kept-alive
 * connection or route one request to the dead instance until its health checks (every second,
 * two failures: about 2 s, longer on a loaded machine) mark it down. A read is safe to repeat;
 * the bound (300 tries, 200 ms apart) only ends a cluster that never answers. */
static int read_only(struct conn *c, const char *method, const char *path, const char *headers,
                     long long *version, const char **body)
{
    int status = request(c, method, path, headers, NULL, version, body);
    for (int tries = 0; status != 200 && tries < 300; tries++) {
        usleep(200000);
        close(c->fd);
        if (conn_open(c, port) != 0)
            continue;
        status = request(c, method, path, headers, NULL, version, body);
    }
    return status;
}

/* The encounter's current version, through GET (its ETag); -1 when no answer. */
static long long current_version(struct conn *c, const struct enc *e)
{
    char path[128], headers[160];
    snprintf(path, sizeof path, "/v1/encounters/%s", e->id);
    snprintf(headers, sizeof headers, "Authorization: Bearer %s\r\n", e->token);
    long long v = -1;
    return read_only(c, "GET", path, headers, &v, NULL) == 200 ? v : -1;
}

static void *client_run(void *arg)
{
    struct client *cl = arg;
    struct conn *c = malloc(sizeof *c);
    struct enc *mine = malloc(sizeof *mine * (size_t)n_enc);
    memcpy(mine, encs, sizeof *mine * (size_t)n_enc);
    bool connected = conn_open(c, port) == 0;
    for (long long k = cl->index; now_s() < deadline; k++) {
        if (!connected) {
            usleep(20000);
            connected = conn_open(c, port) == 0;
            continue;
        }
        struct enc *e = &mine[k % n_enc];
        int status = enc_act(c, e, attack);
        if (status == 200) {
            cl->ok++;
            pthread_mutex_lock(&acked_lock);
            if (e->version < max_version)
                acked[k % n_enc][e->version]++;
            pthread_mutex_unlock(&acked_lock);
        } else if (status == 412) {
            cl->conflicts++; /* e->version is now the current one, from the ETag */
        } else {
            cl->failures++;
            if (status < 0) {
                close(c->fd);
                connected = conn_open(c, port) == 0;
            }
            long long v = connected ? current_version(c, e) : -1;
            if (v > 0)
                e->version = v;
        }
    }
    if (connected)
        close(c->fd);
    free(c);
    free(mine);
    return NULL;
}

/* Checks one encounter's log; prints what is wrong and returns false. */
static bool check(struct conn *c, int i, long long *events)
{
    const struct enc *e = &encs[i];
    char path[160], headers[160];
    snprintf(headers, sizeof headers, "Authorization: Bearer %s\r\n", e->token);
    long long final = current_version(c, e);
    if (final < 1) {
        fprintf(stderr, "encounter %d: no version\n", i);
        return false;
    }
    long long seen = 0;
    for (;;) {
        const char *body = NULL;
        snprintf(path, sizeof path, "/v1/encounters/%s/events?after=%lld&limit=500", e->id, seen);
        if (read_only(c, "GET", path, headers, NULL, &body) != 200) {
            fprintf(stderr, "encounter %d: events after %lld: no answer\n", i, seen);
            return false;
        }
        json_t *doc = json_loads(body, 0, NULL);
        json_t *list = json_object_get(doc, "events");
        size_t n = json_array_size(list);
        for (size_t j = 0; j < n; j++) {
            long long seq = json_integer_value(json_object_get(json_array_get(list, j), "seq"));
            if (seq != seen + 1) {
                fprintf(stderr, "encounter %d: event %lld follows %lld\n", i, seq, seen);
                json_decref(doc);
                return false;
            }
            seen = seq;
        }
        json_decref(doc);
        if (n == 0)
            break;
    }
    if (seen != final) {
        fprintf(stderr, "encounter %d: %lld events, version %lld\n", i, seen, final);
        return false;
    }
    if (!acked_versions_hold(i, acked[i], max_version, final))
        return false;
    snprintf(path, sizeof path, "/v1/encounters/%s/verify", e->id);
    const char *body = NULL;
    if (read_only(c, "POST", path, headers, NULL, &body) != 200 ||
        strstr(body, "\"ok\":true") == NULL) {
        fprintf(stderr, "encounter %d: verify: %.300s\n", i, body ? body : "");
        return false;
    }
    *events += final;
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: cluster_load PORT SECONDS ENCOUNTERS CLIENTS\n");
        return 2;
    }
    port = (unsigned)atoi(argv[1]);
    double seconds = atof(argv[2]);
    n_enc = atoi(argv[3]);
    int n_clients = atoi(argv[4]);
    if (n_enc < 1 || n_clients < 1 || n_clients > 256)
        return 2;
    encs = calloc((size_t)n_enc, sizeof *encs);
    acked = calloc((size_t)n_enc, sizeof *acked);
    struct conn *c = malloc(sizeof *c);
    if (c == NULL || conn_open(c, port) != 0) {
        fprintf(stderr, "cluster_load: nothing listens on %u\n", port);
        free(c);
        return 1;
    }
    for (int i = 0; i < n_enc; i++) {
        enc_setup(c, &encs[i]);
        acked[i] = calloc((size_t)max_version, 1);
    }
    deadline = now_s() + seconds;
    double start = now_s();
    pthread_t t[256];
    struct client cl[256];
    for (int i = 0; i < n_clients; i++) {
        cl[i] = (struct client){.index = i};
        pthread_create(&t[i], NULL, client_run, &cl[i]);
    }
    long long ok = 0, conflicts = 0, failures = 0;
    for (int i = 0; i < n_clients; i++) {
        pthread_join(t[i], NULL);
        ok += cl[i].ok;
        conflicts += cl[i].conflicts;
        failures += cl[i].failures;
    }
    double took = now_s() - start;
    close(c->fd);
    if (conn_open(c, port) != 0) {
        free(c);
        return 1;
    }
    bool good = true;
    long long events = 0;
    for (int i = 0; i < n_enc; i++)
        good = check(c, i, &events) && good;
    printf("cluster_load: %d clients, %d encounters, %.1f s: %lld acknowledged (%.0f/s), %lld "
           "conflicts (412), %lld unanswered or failed; %lld events in the logs\n",
           n_clients, n_enc, took, ok, (double)ok / took, conflicts, failures, events);
    printf("cluster_load: %s\n", good ? "ok" : "FAILED");
    close(c->fd);
    free(c);
    for (int i = 0; i < n_enc; i++)
        free(acked[i]);
    free(acked);
    free(encs);
    return good ? 0 : 1;
}

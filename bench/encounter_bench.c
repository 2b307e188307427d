/* Encounter benchmark (issues 8 and 22), against two running tacticsd, one with group commit on
 * and one with it off, each on its own file (bench/encounters.sh starts them):
 *  1. attack actions appended over HTTP to one encounter, one after another (each needs the
 *     version the last one made), then to 100 encounters at once (a client thread each), on
 *     both servers, with each write's latency (p50, p99);
 *  2. beside them, in the same run, a plain C loop doing the same SQLite transactions through
 *     the db layer with the same settings (read the encounter; then BEGIN IMMEDIATE, version
 *     check, event insert, state update, COMMIT; WAL, synchronous=FULL), with payloads of the
 *     same size as the real ones, for one encounter and for 100 encounters from 4 threads
 *     (the server's worker threads, so at most as many transactions at once as it has);
 *  3. replay: a 10,000-event encounter rebuilt from its log (GET .../state), and verified.
 * Usage: encounter_bench PORT PORT_OFF DIR [seconds per figure, default 5]
 * (PORT: group commit on, the default; PORT_OFF: off, or 0 to leave that side out; PLAIN_DB in
 * the environment: a postgresql:// URL for the plain loop instead of DIR/plain.db) */
#include <arpa/inet.h>
#include <dirent.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench/encounter_client.h"
#include "db/db.h"

#define CLIENTS       100
#define REPLAY_EVENTS 10000

static unsigned port, port_off;
/* What the two servers are called in the figures (ON_NAME, OFF_NAME in the environment: e.g.
 * bench/cluster_scale.sh compares two instances behind a balancer with one). */
static const char *on_name = "group commit on", *off_name = "group commit off";
static const char *ratio_name = "on/off";
static double seconds = 5;
/* SERVER_PID in the environment: the process behind PORT, whose CPU an action is then printed
 * beside the clients' and the db layer's (read through its CPU-time clock, which counts every
 * thread it has had, as /proc/PID/stat does but to the nanosecond). */
static long server_pid;
static clockid_t server_clock;

/* CPU seconds: the calling thread's own (each client and plain-loop thread times its loop, so
 * that making and joining 100 threads a slice is not counted as the actions'), and the server's. */
static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double thread_cpu_s(void)
{
    return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static double server_cpu_s(void)
{
    return clock_s(server_clock);
}

/* Latencies of one series (HTTP with group commit on, off, the plain loop), in seconds. */
struct lat {
    double *v;
    size_t n, cap;
};

static void lat_add(struct lat *l, double x)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (l->v == NULL)
            exit(1);
    }
    l->v[l->n++] = x;
}

static void lat_merge(struct lat *into, struct lat *from)
{
    for (size_t i = 0; i < from->n; i++)
        lat_add(into, from->v[i]);
    from->n = 0;
}

static const char *const attack = "{\"type\":\"attack\",\"actor\":\"a\",\"target\":\"d\"}";

struct client {
    pthread_t t;
    struct conn *c;
    struct enc e;
    long done;
    double until;
    double cpu; /* seconds of its own CPU in the slice */
    struct lat lat;
};

static void *client_run(void *arg)
{
    struct client *cl = arg;
    double c0 = thread_cpu_s();
    for (double t = now_s(); t < cl->until;) {
        int status = enc_act(cl->c, &cl->e, attack);
        double t1 = now_s();
        lat_add(&cl->lat, t1 - t);
        t = t1;
        if (status != 200) {
            /* The answer stays in the connection's buffer: say what the server said. */
            fprintf(stderr, "attack failed: status %d, version %lld: %.600s\n", status,
                    cl->e.version, status > 0 ? cl->c->buf : "(no answer)");
            exit(1);
        }
        cl->done++;
    }
    cl->cpu = thread_cpu_s() - c0;
    return NULL;
}

/* ---- the plain loop ---- */

#define PLAIN_THREADS 4 /* the server's worker threads: at most 4 transactions at once */

struct plain {
    pthread_t t;
    struct db *db;
    int first, count; /* the encounters it cycles through */
    const char *payload, *state;
    long done;
    double until;
    double cpu; /* seconds of its own CPU in the slice */
    struct lat lat;
};

static char plain_ids[CLIENTS][32];
static int64_t plain_versions[CLIENTS];

static void *plain_run(void *arg)
{
    struct plain *p = arg;
    double t = now_s(), c0 = thread_cpu_s();
    for (int k = 0; t < p->until; k = (k + 1) % p->count) {
        int i = p->first + k;
        int64_t v = plain_versions[i], cur;
        struct db_encounter enc; /* the server reads the encounter before it writes */
        if (db_encounter_get(p->db, plain_ids[i], &enc) != DB_OK) {
            fprintf(stderr, "get failed\n");
            exit(1);
        }
        free(enc.state_json);
        if (db_encounter_append(p->db, plain_ids[i], v, "action", p->payload, p->state, NULL,
                                &cur) != DB_OK) {
            fprintf(stderr, "append failed\n");
            exit(1);
        }
        plain_versions[i] = cur;
        p->done++;
        double t1 = now_s();
        lat_add(&p->lat, t1 - t);
        t = t1;
    }
    p->cpu = thread_cpu_s() - c0;
    return NULL;
}

/* The plain loop's encounters: created once, then run in slices. */
static int plain_encounters;

static void plain_setup(struct db *db, int encounters, const char *payload, const char *state,
                        const char *tag)
{
    unsigned char token[DB_HASH_LEN] = {0};
    plain_encounters = encounters;
    for (int i = 0; i < encounters; i++) {
        snprintf(plain_ids[i], sizeof plain_ids[i], "%s%d", tag, i);
        plain_versions[i] = 1;
        if (db_encounter_create(db, plain_ids[i], token, "{}", state, "created", payload, NULL) !=
            DB_OK) {
            fprintf(stderr, "create failed\n");
            exit(1);
        }
    }
}

/* Transactions done in `dur` seconds from min(encounters, max_threads) threads; their
 * latencies go to lat. */
static long plain_slice(struct db *db, const char *payload, const char *state, double dur,
                        int max_threads, struct lat *lat, double *cpu)
{
    int n = plain_encounters, threads = n < max_threads ? n : max_threads;
    struct plain ps[CLIENTS];
    double until = now_s() + dur;
    for (int i = 0; i < threads; i++) {
        ps[i] = (struct plain){.db = db,
                               .first = i * n / threads,
                               .count = (i + 1) * n / threads - i * n / threads,
                               .payload = payload,
                               .state = state,
                               .until = until};
        pthread_create(&ps[i].t, NULL, plain_run, &ps[i]);
    }
    long total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(ps[i].t, NULL);
        total += ps[i].done;
        *cpu += ps[i].cpu;
        lat_merge(lat, &ps[i].lat);
        free(ps[i].lat.v);
    }
    return total;
}

static struct client *http_setup(unsigned server_port, int clients)
{
    struct client *cs = calloc((size_t)clients, sizeof *cs);
    for (int i = 0; i < clients; i++) {
        cs[i].c = malloc(sizeof *cs[i].c);
        if (conn_open(cs[i].c, server_port) != 0) {
            perror("connect");
            exit(1);
        }
        enc_setup(cs[i].c, &cs[i].e);
    }
    return cs;
}

/* Attacks done in `dur` seconds by the clients, each on its own encounter; their latencies go
 * to lat, their threads' CPU seconds are added to *cpu. */
static long http_slice(struct client *cs, int clients, double dur, struct lat *lat, double *cpu)
{
    double until = now_s() + dur;
    for (int i = 0; i < clients; i++) {
        cs[i].until = until;
        cs[i].done = 0;
        pthread_create(&cs[i].t, NULL, client_run, &cs[i]);
    }
    long total = 0;
    for (int i = 0; i < clients; i++) {
        pthread_join(cs[i].t, NULL);
        total += cs[i].done;
        *cpu += cs[i].cpu;
        lat_merge(lat, &cs[i].lat);
    }
    return total;
}

static void http_close(struct client *cs, int clients)
{
    for (int i = 0; i < clients; i++) {
        close(cs[i].c->fd);
        free(cs[i].c);
        free(cs[i].lat.v);
    }
    free(cs);
}

/* HTTP (group commit on, then off) and the plain loop alternate in SLICES rounds, so that drift
 * in the disk's sync latency (large on shared machines: the plain loop's rate moves by 2x between
 * runs) falls on all alike. The figure is the median of the rounds' ratios (each HTTP slice over
 * the plain slice of its round), which a spike in one slice cannot move; the totals are printed
 * too. */
#define SLICES 20

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* GET /healthz requests made one after another on c in `dur` seconds: the round trip that
 * every action of a single client pays on top of its transaction. */
static long healthz_slice(struct conn *c, double dur)
{
    long n = 0;
    for (double until = now_s() + dur; now_s() < until; n++)
        if (request(c, "GET", "/healthz", NULL, NULL, NULL, NULL) != 200) {
            fprintf(stderr, "healthz failed\n");
            exit(1);
        }
    return n;
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The q-quantile of l's latencies, in milliseconds (l is sorted). */
static double quantile_ms(struct lat *l, double q)
{
    if (l->n == 0)
        return 0;
    qsort(l->v, l->n, sizeof l->v[0], by_value);
    size_t i = (size_t)(q * (double)(l->n - 1) + 0.5);
    return l->v[i] * 1e3;
}

/* What the cores this bench may use could hold if CPU were the only limit: an action over HTTP
 * costs the server's CPU and the clients' (the bench's clients share the cores); the db layer
 * alone, its own. Against this run's plain loop, the highest ratio each could reach: a ceiling of
 * this run only, since the plain loop's rate follows the disk's syncs (with slow syncs it is far
 * above 2; with fast ones, when even the db layer alone would fill the cores below 2x, no server
 * on it could reach 2x). The kernel's work for a process is counted in its CPU; loopback's
 * softirqs may land on either side. */
static void cpu_ceiling(double server, double client, double plain, double db_alone,
                        double plain_rate)
{
    cpu_set_t set;
    long cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                             : sysconf(_SC_NPROCESSORS_ONLN);
    double http_max = (double)cores / (server + client), db_max = (double)cores / db_alone;
    printf("                 CPU an action: server %.0f us + client %.0f us over HTTP, the db "
           "layer alone %.0f us, the plain loop %.0f us a transaction; %ld cores hold at most "
           "%.0f actions/s over HTTP (%.2f of the plain loop), %.0f appends/s in the db layer "
           "(%.2f)\n",
           server * 1e6, client * 1e6, db_alone * 1e6, plain * 1e6, cores, http_max,
           http_max / plain_rate, db_max, db_max / plain_rate);
}

/* One figure: `clients` clients on the server with group commit on, the same on the one with it
 * off (when there is one), and the plain loop, in SLICES rounds of the three (the order turning
 * each round, so that none always follows another). */
static void compare(struct db *db, struct db *db_gc, int clients, const char *payload,
                    const char *state, const char *tag, const char *label)
{
    struct client *on = http_setup(port, clients);
    struct client *off = port_off ? http_setup(port_off, clients) : NULL;
    plain_setup(db, clients, payload, state, tag);
    double dur = seconds / SLICES, r_on[SLICES], r_off[SLICES], r_gain[SLICES], r_db[SLICES];
    long h = 0, ho = 0, p = 0, rt = 0, g = 0;
    double rt_time = 0; /* seconds spent in healthz_slice */
    /* CPU seconds spent by the server and this process (its clients) in the HTTP slices with
     * group commit on, by the plain loop and by the db layer with group commit */
    double cpu_server = 0, cpu_client = 0, cpu_plain = 0, cpu_db = 0, s0, none = 0;
    struct lat l_on = {0}, l_off = {0}, l_plain = {0}, l_db = {0};
    for (int k = 0; k < SLICES; k++) {
        long hk = 0, ok = 0, pk = 0;
        for (int step = 0; step < 3; step++)
            switch ((k + step) % 3) {
            case 0:
                s0 = server_pid ? server_cpu_s() : 0;
                hk = http_slice(on, clients, dur, &l_on, &cpu_client);
                cpu_server += server_pid ? server_cpu_s() - s0 : 0;
                break;
            case 1:
                ok = off ? http_slice(off, clients, dur, &l_off, &none) : 0;
                break;
            default:
                pk = plain_slice(db, payload, state, dur, PLAIN_THREADS, &l_plain, &cpu_plain);
                break;
            }
        if (clients == 1) {
            rt += healthz_slice(on[0].c, dur / 4);
            rt_time += dur / 4;
        }
        long gk = 0;
        if (db_gc != NULL) {
            /* The db layer alone: a thread per encounter appending through a handle with group
             * commit on, no HTTP: the ceiling of what the server could reach (with one
             * encounter, what group commit costs a lone writer against the plain loop). */
            gk = plain_slice(db_gc, payload, state, dur, clients, &l_db, &cpu_db);
            r_db[k] = pk > 0 ? (double)gk / (double)pk : 0;
            g += gk;
        }
        r_on[k] = pk > 0 ? (double)hk / (double)pk : 0;
        r_off[k] = pk > 0 ? (double)ok / (double)pk : 0;
        r_gain[k] = ok > 0 ? (double)hk / (double)ok : 0;
        h += hk;
        ho += ok;
        p += pk;
    }
    http_close(on, clients);
    if (off)
        http_close(off, clients);
    double hr = (double)h / seconds, hor = (double)ho / seconds, pr = (double)p / seconds;
    double m_off = median_of(r_off, SLICES), m_gain = median_of(r_gain, SLICES);
    double m_on = median_of(r_on, SLICES);
    printf("%s %s %6.0f attacks/s over HTTP, plain C loop %6.0f transactions/s: "
           "median of %d paired slices %.2f (slices %.2f-%.2f; totals %.2f)\n",
           label, on_name, hr, pr, SLICES, m_on, r_on[0], r_on[SLICES - 1], hr / pr);
    if (off)
        printf("                 %s %6.0f attacks/s: %.2f of the plain loop; %s %.2f\n", off_name,
               hor, m_off, ratio_name, m_gain);
    if (db_gc != NULL)
        printf(
            "                 in process (db layer, %d threads, no HTTP), group commit on: %6.0f "
            "appends/s, %.2f of the plain loop; latency p50 / p99 %.2f / %.2f ms\n",
            clients, (double)g / seconds, median_of(r_db, SLICES), quantile_ms(&l_db, 0.5),
            quantile_ms(&l_db, 0.99));
    printf("                 write latency p50 / p99: on %.2f / %.2f ms", quantile_ms(&l_on, 0.5),
           quantile_ms(&l_on, 0.99));
    if (off)
        printf(", off %.2f / %.2f ms", quantile_ms(&l_off, 0.5), quantile_ms(&l_off, 0.99));
    printf(", plain loop %.2f / %.2f ms\n", quantile_ms(&l_plain, 0.5),
           quantile_ms(&l_plain, 0.99));
    free(l_on.v);
    free(l_off.v);
    free(l_plain.v);
    free(l_db.v);
    if (server_pid && h > 0 && p > 0 && g > 0)
        cpu_ceiling(cpu_server / (double)h, cpu_client / (double)h, cpu_plain / (double)p,
                    cpu_db / (double)g, pr);
    if (clients == 1 && rt > 0 && pr > 0) {
        /* What one client pays per action beyond the plain transaction, beside the round trip
         * of back-to-back GET /healthz. The server's log (duration_us) showed about 385 us
         * per action at the median against ~350 us a plain transaction; the rest is most likely
         * waking the client and a worker thread on vCPUs that went idle during the sync. */
        double trip = rt_time / (double)rt, commit = 1 / pr;
        printf("                 per action HTTP adds %.0f us to the plain transaction's %.0f us; "
               "back-to-back GET /healthz round trip %.0f us\n",
               (1 / hr - commit) * 1e6, commit * 1e6, trip * 1e6);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: encounter_bench PORT PORT_OFF DIR [seconds]\n");
        return 2;
    }
    port = (unsigned)atoi(argv[1]);
    port_off = (unsigned)atoi(argv[2]);
    const char *dir = argv[3];
    if (getenv("SERVER_PID") != NULL) {
        server_pid = atol(getenv("SERVER_PID"));
        if (clock_getcpuclockid((pid_t)server_pid, &server_clock) != 0) {
            fprintf(stderr,
                    "encounter_bench: no CPU clock for SERVER_PID %ld: its CPU is not "
                    "printed\n",
                    server_pid);
            server_pid = 0;
        }
    }
    if (argc > 4)
        seconds = atof(argv[4]);

    /* The real payload and state of one attack, for the plain loop's sizes. */
    struct conn *c = malloc(sizeof *c);
    if (conn_open(c, port) != 0) {
        perror("connect");
        return 1;
    }
    struct enc e;
    enc_setup(c, &e);
    const char *body = NULL;
    char path[160];
    enc_act(c, &e, attack);
    snprintf(path, sizeof path, "/v1/encounters/%s/events?after=%lld", e.id, e.version - 1);
    request(c, "GET", path, NULL, NULL, NULL, &body);
    json_t *page = json_loads(body, 0, NULL);
    char *payload =
        json_dumps(json_object_get(json_array_get(json_object_get(page, "events"), 0), "payload"),
                   JSON_COMPACT);
    json_decref(page);
    snprintf(path, sizeof path, "/v1/encounters/%s", e.id);
    request(c, "GET", path, NULL, NULL, NULL, &body);
    json_t *snap = json_loads(body, 0, NULL);
    char *state = json_dumps(json_object_get(snap, "state"), JSON_COMPACT);
    json_decref(snap);

    char dbpath[512];
    /* PLAIN_DB (a postgresql:// URL) puts the plain loop on PostgreSQL, through the same db
     * layer (libpq, one transaction per write), for bench/encounters_pg.sh. */
    const char *plain_db = getenv("PLAIN_DB");
    if (plain_db != NULL && plain_db[0] == '\0')
        plain_db = NULL;
    if (plain_db != NULL)
        on_name = "tacticsd";
    if (getenv("ON_NAME") != NULL)
        on_name = getenv("ON_NAME");
    if (getenv("OFF_NAME") != NULL) {
        off_name = getenv("OFF_NAME");
        ratio_name = "first/second";
    }
    if (plain_db != NULL)
        snprintf(dbpath, sizeof dbpath, "%s", plain_db);
    else
        snprintf(dbpath, sizeof dbpath, "%s/plain.db", dir);
    struct db *db = NULL;
    if (db_open(dbpath, &db) != DB_OK)
        return 1;
    db_set_group_commit(db, false); /* the plain loop: one transaction, one sync, per write */
    /* The same file, for the db layer with group commit (not on PostgreSQL: a connection a
     * thread, and 100 threads would pass its default max_connections). */
    struct db *db_gc = NULL;
    if (plain_db == NULL && db_open(dbpath, &db_gc) != DB_OK)
        return 1;
    printf("encounter bench: %.0f s a figure; event payload %zu bytes, state %zu bytes\n", seconds,
           strlen(payload), strlen(state));
    compare(db, db_gc, 1, payload, state, "one", "one encounter: ");
    compare(db, db_gc, CLIENTS, payload, state, "many", "100 encounters:");
    db_close(db);
    db_close(db_gc);

    /* Replay: 10,000 events (facing changes, the cheapest writes), then the fold and verify.
     * On a new connection: the server cuts one that sat idle longer than --timeout (30 s), as
     * the first one did through the two comparisons. */
    close(c->fd);
    if (conn_open(c, port) != 0) {
        perror("connect");
        return 1;
    }
    struct enc r;
    enc_setup(c, &r);
    double t0 = now_s();
    /* One event past the replayed ones: the state at the latest version is served as stored,
     * so ?at=REPLAY_EVENTS must fold the log. */
    while (r.version < REPLAY_EVENTS + 1) {
        char action[96];
        snprintf(action, sizeof action, "{\"type\":\"facing\",\"actor\":\"a\",\"facing\":%lld}",
                 r.version % 8);
        if (enc_act(c, &r, action) != 200) {
            fprintf(stderr, "facing failed\n");
            return 1;
        }
    }
    double fill = now_s() - t0;
    /* Each ?at one lower than the last: the server's fold checkpoint (the last fold, at the
     * higher count) is past it, so every one folds the log from event 1. Then the same ?at
     * again, which starts from that checkpoint. */
    double best = 1e9;
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "/v1/encounters/%s/state?at=%d", r.id, REPLAY_EVENTS - i);
        t0 = now_s();
        if (request(c, "GET", path, NULL, NULL, NULL, &body) != 200)
            return 1;
        double dt = now_s() - t0;
        best = dt < best ? dt : best;
    }
    t0 = now_s();
    if (request(c, "GET", path, NULL, NULL, NULL, &body) != 200)
        return 1;
    double warm = now_s() - t0;
    snprintf(path, sizeof path, "/v1/encounters/%s/verify", r.id);
    t0 = now_s();
    int vs = request(c, "POST", path, NULL, NULL, NULL, &body);
    double verify = now_s() - t0;
    bool ok = vs == 200 && strstr(body, "\"ok\":true") != NULL;
    printf("replay: %d events (appended in %.1f s) rebuilt by GET .../state from event 1 in "
           "%.1f ms (best of 5; target < 100 ms), from the fold checkpoint %.2f ms; verify "
           "(re-resolving every event) %.1f ms, %s\n",
           REPLAY_EVENTS, fill, best * 1e3, warm * 1e3, verify * 1e3, ok ? "ok" : "FAILED");
    free(payload);
    free(state);
    close(c->fd);
    free(c);
    return ok ? 0 : 1;
}

/* The live feed under load (issue 20): N subscribers on one encounter, held by this one process
 * through epoll, while a writer thread appends facing changes.
 *
 *   stream_bench PORT SERVER_PID [SUBSCRIBERS=1000] [RATE=20] [SECONDS=10] [BURST_SECONDS=5]
 *
 * With SUB_PORT set in the environment, the subscribers listen on that server while the writer
 * writes through PORT: two instances on one PostgreSQL database (bench/stream_pg.sh), SERVER_PID
 * then being the subscribers' server.
 *
 * Phases: writes per second closed-loop (one connection, each write after the last answer)
 * without subscribers; the subscribers connect (the server's RSS is read then); RATE writes a
 * second for SECONDS, each write's latency being the time from its 2xx (read by the writer) to
 * the last subscriber's receipt of its event; closed-loop writes again with the subscribers
 * listening; 9 pairs of 1 s closed-loop slices, one writing to a second encounter nobody listens
 * to, one to the first (the ratio of each pair: the two see nearly the same machine); finally
 * every subscriber must have received every event once, in order. The server's CPU (its
 * threads' schedstat) during the burst with subscribers gives its CPU per delivery. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench/encounter_client.h"
#include "bench/stats.h"

#define MAX_SEQ (1 << 20)

struct sub {
    int fd;
    bool open;       /* its answer's head and first comment have arrived */
    long long last;  /* the last event number seen */
    long long dupes; /* events seen out of order or twice */
    char carry[64];  /* the tail of the last read, for an id line split across reads */
    size_t carry_len;
};

static double ack_at[MAX_SEQ];  /* when the writer read the write's 2xx */
static double last_at[MAX_SEQ]; /* when the last subscriber received it */
static int received[MAX_SEQ];   /* how many subscribers received it */
static atomic_llong acked_upto; /* the writer's last acknowledged event */
static atomic_int writer_mode;  /* 0 idle, 1 paced, 2 closed loop, 3 stop */
static atomic_llong writes_done;
static unsigned port;
static struct enc enc;
/* A second encounter, which nobody listens to: the alternating slices write to it for the
 * rate without subscribers, measured beside the one with them (writer_other set). */
static struct enc other;
static atomic_int writer_other;
static double rate = 20;

static long rss_kb(long pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kb;
}

/* The server's CPU so far, in seconds: its threads' run times (/proc/PID/task/N/schedstat). */
static double cpu_s(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", pid);
    DIR *d = opendir(path);
    double sum = 0;
    struct dirent *t;
    while (d != NULL && (t = readdir(d)) != NULL) {
        if (t->d_name[0] == '.')
            continue;
        char stat[320];
        snprintf(stat, sizeof stat, "/proc/%ld/task/%s/schedstat", pid, t->d_name);
        FILE *f = fopen(stat, "r");
        unsigned long long ns = 0;
        if (f != NULL && fscanf(f, "%llu", &ns) == 1)
            sum += (double)ns / 1e9;
        if (f != NULL)
            fclose(f);
    }
    if (d != NULL)
        closedir(d);
    return sum;
}

/* This process's CPU so far, in seconds (the subscribers' reads and the writer). */
static double self_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The writer: facing changes to actor a, paced at `rate` a second or back to back. */
static void *writer_run(void *arg)
{
    (void)arg;
    static struct conn c;
    if (conn_open(&c, port) < 0) {
        perror("writer connect");
        exit(1);
    }
    double next = now_s();
    long facing = 0;
    for (;;) {
        int mode = atomic_load(&writer_mode);
        if (mode == 3)
            break;
        if (mode == 0) {
            usleep(1000);
            next = now_s();
            continue;
        }
        if (mode == 1) {
            double now = now_s();
            if (now < next) {
                usleep((useconds_t)((next - now) * 1e6));
                continue;
            }
            next += 1.0 / rate;
        }
        char action[96];
        snprintf(action, sizeof action, "{\"type\":\"facing\",\"actor\":\"a\",\"facing\":%ld}",
                 (facing++ % 7) + 1);
        bool to_other = atomic_load(&writer_other);
        int status = enc_act(&c, to_other ? &other : &enc, action);
        double t = now_s();
        if (status != 200) {
            fprintf(stderr, "write answered %d\n", status);
            exit(1);
        }
        if (to_other) {
            atomic_fetch_add(&writes_done, 1);
            continue;
        }
        if (enc.version < MAX_SEQ)
            ack_at[enc.version] = t;
        atomic_store(&acked_upto, enc.version);
        atomic_fetch_add(&writes_done, 1);
    }
    close(c.fd);
    return NULL;
}

/* Scans newly read bytes for `id: N` lines. */
static void sub_scan(struct sub *s, const char *data, size_t n, double t)
{
    char buf[64 + 65536];
    memcpy(buf, s->carry, s->carry_len);
    memcpy(buf + s->carry_len, data, n);
    size_t len = s->carry_len + n;
    buf[len] = '\0';
    if (!s->open && strstr(buf, "live feed") != NULL)
        s->open = true;
    size_t done = 0;
    for (char *p = strstr(buf, "id: "); p != NULL; p = strstr(p + 4, "id: ")) {
        char *end = strchr(p, '\n');
        if (end == NULL)
            break; /* incomplete: kept in carry */
        long long seq = atoll(p + 4);
        if (seq != s->last + 1)
            s->dupes++;
        s->last = seq;
        if (seq > 0 && seq < MAX_SEQ) {
            received[seq]++;
            if (t > last_at[seq])
                last_at[seq] = t;
        }
        done = (size_t)(end - buf);
    }
    size_t keep = len - done > 48 ? 48 : len - done;
    memcpy(s->carry, buf + len - keep, keep);
    s->carry_len = keep;
}

/* Runs the epoll loop for `seconds` (or until every subscriber saw `upto`, when > 0). */
static void pump(int ep, struct sub *subs, int n, double seconds, long long upto)
{
    struct epoll_event evs[256];
    static char data[65536];
    double end = now_s() + seconds;
    while (now_s() < end) {
        int k = epoll_wait(ep, evs, 256, 10);
        double t = now_s();
        for (int i = 0; i < k; i++) {
            struct sub *s = evs[i].data.ptr;
            for (;;) {
                ssize_t r = recv(s->fd, data, sizeof data, 0);
                if (r > 0) {
                    sub_scan(s, data, (size_t)r, t);
                    continue;
                }
                if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                    fprintf(stderr, "a subscriber's connection closed\n");
                    exit(1);
                }
                break;
            }
        }
        if (upto > 0) {
            int behind = 0;
            for (int i = 0; i < n; i++)
                behind += subs[i].last < upto;
            if (behind == 0)
                return;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: stream_bench PORT SERVER_PID [SUBSCRIBERS] [RATE] [SECONDS] "
                        "[BURST_SECONDS]\n");
        return 2;
    }
    port = (unsigned)atoi(argv[1]);
    long pid = atol(argv[2]);
    int n = argc > 3 ? atoi(argv[3]) : 1000;
    rate = argc > 4 ? atof(argv[4]) : 20;
    double seconds = argc > 5 ? atof(argv[5]) : 10;
    double burst = argc > 6 ? atof(argv[6]) : 5;
    unsigned sub_port = getenv("SUB_PORT") ? (unsigned)atoi(getenv("SUB_PORT")) : port;

    static struct conn setup;
    if (conn_open(&setup, port) < 0) {
        perror("connect");
        return 1;
    }
    enc_setup(&setup, &enc);
    enc_setup(&setup, &other);
    close(setup.fd);
    long rss_start = rss_kb(pid);
    pthread_t writer;
    pthread_create(&writer, NULL, writer_run, NULL);

    /* Closed loop without subscribers. */
    long long w0 = atomic_load(&writes_done);
    double cpu0 = cpu_s(pid);
    atomic_store(&writer_mode, 2);
    usleep((useconds_t)(burst * 1e6));
    atomic_store(&writer_mode, 0);
    usleep(20000);
    long long writes_alone = atomic_load(&writes_done) - w0;
    double wps_alone = (double)writes_alone / burst;
    double cpu_alone = cpu_s(pid) - cpu0;

    /* The subscribers, from the version now. */
    long long from = atomic_load(&acked_upto);
    struct sub *subs = calloc((size_t)n, sizeof *subs);
    int ep = epoll_create1(0);
    char req[512];
    int len = snprintf(req, sizeof req,
                       "GET /v1/encounters/%s/events/stream?after=%lld HTTP/1.1\r\nHost: b\r\n"
                       "Accept: text/event-stream\r\n\r\n",
                       enc.id, from);
    double t_connect = now_s();
    for (int i = 0; i < n; i++) {
        struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)sub_port)};
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
            send(fd, req, (size_t)len, 0) != len) {
            fprintf(stderr, "subscriber %d: %s\n", i, strerror(errno));
            return 1;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        subs[i].fd = fd;
        subs[i].last = from;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &subs[i]};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    for (int open = 0; open < n && now_s() - t_connect < 30;) {
        pump(ep, subs, n, 0.05, 0);
        open = 0;
        for (int i = 0; i < n; i++)
            open += subs[i].open;
    }
    for (int i = 0; i < n; i++)
        if (!subs[i].open) {
            fprintf(stderr, "subscriber %d never opened\n", i);
            return 1;
        }
    double t_open = now_s() - t_connect;
    usleep(300000);
    long rss_subs = rss_kb(pid);

    /* Paced writes: latency from each 2xx to the last subscriber's receipt. */
    long long first = atomic_load(&acked_upto) + 1;
    atomic_store(&writer_mode, 1);
    pump(ep, subs, n, seconds, 0);
    atomic_store(&writer_mode, 0);
    usleep(20000);
    long long last = atomic_load(&acked_upto);
    pump(ep, subs, n, 5, last);
    size_t count = 0;
    double *lat = malloc(sizeof *lat * (size_t)(last - first + 1));
    long long incomplete = 0, early = 0;
    for (long long s = first; s <= last; s++) {
        if (received[s] != n) {
            incomplete++;
            continue;
        }
        double d = last_at[s] - ack_at[s];
        if (d < 0) {
            early++; /* every subscriber had it before the writer read its answer */
            d = 0;
        }
        lat[count++] = d * 1000;
    }
    qsort(lat, count, sizeof *lat, bench_cmp_double);

    /* Alternating slices of 1 s, closed loop: to the other encounter (nobody listens), then
     * to this one (the subscribers listen), in turn, each pair's ratio; the median of the
     * pairs. On a shared machine the rate alone moves with the neighbours' load and the disk's
     * syncs from one second to the next; the two slices of a pair see nearly the same. */
    enum { PAIRS = 9 };
    double pair_ratio[PAIRS], pair_alone[PAIRS], pair_subs[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        for (int with = 0; with < 2; with++) {
            atomic_store(&writer_other, !with);
            long long w = atomic_load(&writes_done);
            double t0 = now_s();
            atomic_store(&writer_mode, 2);
            pump(ep, subs, n, 1.0, 0);
            atomic_store(&writer_mode, 0);
            double rate_now = (double)(atomic_load(&writes_done) - w) / (now_s() - t0);
            pump(ep, subs, n, 5, atomic_load(&acked_upto)); /* every subscriber catches up */
            *(with ? &pair_subs[i] : &pair_alone[i]) = rate_now;
        }
        pair_ratio[i] = pair_alone[i] > 0 ? pair_subs[i] / pair_alone[i] : 0;
    }
    atomic_store(&writer_other, 0);
    double sorted[PAIRS];
    memcpy(sorted, pair_ratio, sizeof sorted);
    qsort(sorted, PAIRS, sizeof *sorted, bench_cmp_double);
    double alone_sorted[PAIRS], subs_sorted[PAIRS];
    memcpy(alone_sorted, pair_alone, sizeof alone_sorted);
    memcpy(subs_sorted, pair_subs, sizeof subs_sorted);
    qsort(alone_sorted, PAIRS, sizeof *alone_sorted, bench_cmp_double);
    qsort(subs_sorted, PAIRS, sizeof *subs_sorted, bench_cmp_double);

    /* Closed loop with the subscribers listening. */
    long long w1 = atomic_load(&writes_done);
    double cpu1 = cpu_s(pid), self1 = self_cpu_s();
    atomic_store(&writer_mode, 2);
    pump(ep, subs, n, burst, 0);
    atomic_store(&writer_mode, 3);
    pthread_join(writer, NULL);
    long long writes_subs = atomic_load(&writes_done) - w1;
    double wps_subs = (double)writes_subs / burst;
    double cpu_subs = cpu_s(pid) - cpu1, self_subs = self_cpu_s() - self1;
    long long final = atomic_load(&acked_upto);
    double t_catch = now_s();
    pump(ep, subs, n, 30, final);
    double catch_up = now_s() - t_catch;
    long rss_end = rss_kb(pid);
    long long behind = 0, dupes = 0;
    for (int i = 0; i < n; i++) {
        behind += subs[i].last != final;
        dupes += subs[i].dupes;
    }

    printf("subscribers %d on one encounter, all open in %.2f s\n", n, t_open);
    printf("paced writes: %lld at %.0f/s over %.0f s; events every subscriber got: %zu "
           "(incomplete %lld; %lld reached all subscribers before the writer read its 2xx)\n",
           last - first + 1, rate, seconds, count, incomplete, early);
    if (count > 0)
        printf("latency 2xx -> last subscriber: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max "
               "%.2f ms\n",
               lat[count / 2], lat[count * 9 / 10], lat[count * 99 / 100], lat[count - 1]);
    printf("writes/s closed loop, one connection: %.0f without subscribers, %.0f with %d "
           "(ratio %.2f)\n",
           wps_alone, wps_subs, n, wps_alone > 0 ? wps_subs / wps_alone : 0);
    printf("alternating 1 s slices, %d pairs: writes/s to an encounter nobody listens to %.0f, "
           "to the one the %d listen to %.0f (medians); ratio %.3f, median of the pairs "
           "(lowest %.3f, highest %.3f)\n",
           PAIRS, alone_sorted[PAIRS / 2], n, subs_sorted[PAIRS / 2], sorted[PAIRS / 2], sorted[0],
           sorted[PAIRS - 1]);
    /* Each write of the burst reached every subscriber (checked below): n deliveries. The
     * server's CPU per delivery is what it spent in the burst beyond the writes themselves
     * (at the CPU a write took without subscribers), over the deliveries. */
    double deliveries = (double)writes_subs * n;
    double per_write = writes_alone > 0 ? cpu_alone / (double)writes_alone : 0;
    printf("closed loop: %.0f deliveries/s (%lld writes x %d subscribers in %.0f s); server CPU "
           "%.2f s (%.0f%% of a core), %.2f us a write without subscribers, %.2f us a delivery "
           "(the burst's CPU less its writes' own, over its deliveries); this client %.2f s\n",
           deliveries / burst, writes_subs, n, burst, cpu_subs, 100 * cpu_subs / burst,
           per_write * 1e6,
           deliveries > 0 ? (cpu_subs - per_write * (double)writes_subs) / deliveries * 1e6 : 0,
           self_subs);
    printf("after the burst every subscriber had all %lld events in %.2f s; behind %lld, out "
           "of order or repeated %lld\n",
           final, catch_up, behind, dupes);
    printf("server RSS: %ld kB at start, %ld kB with %d subscribers, %ld kB at the end\n",
           rss_start, rss_subs, n, rss_end);
    for (int i = 0; i < n; i++)
        close(subs[i].fd);
    free(subs);
    free(lat);
    return behind == 0 && dupes == 0 && incomplete == 0 ? 0 : 1;
}

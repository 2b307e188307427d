#include "service/http/metrics.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/http/router.h"
#include "text/buf.h"

#define STATUS_MIN   100
#define STATUS_MAX   599
#define STATUS_SLOTS (STATUS_MAX - STATUS_MIN + 1)

/* Upper bounds of the latency buckets, in microseconds (rendered in seconds). */
static const uint64_t bucket_us[] = {100,   250,   500,    1000,   2500,   5000,    10000,
                                     25000, 50000, 100000, 250000, 500000, 1000000, 2500000};
#define BUCKETS (sizeof bucket_us / sizeof bucket_us[0])

struct svc_metrics {
    const struct svc_route *routes; /* the route table: the labels */
    int route_count;
    atomic_uint_fast64_t *requests; /* [(route_count + 1) * STATUS_SLOTS] */
    atomic_uint_fast64_t buckets[BUCKETS + 1];
    atomic_uint_fast64_t sum_us;
    atomic_uint_fast64_t count;
    atomic_int connections;
};

struct svc_metrics *svc_metrics_new(const struct svc_route *routes, int route_count)
{
    struct svc_metrics *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->routes = routes;
    m->route_count = route_count;
    m->requests = calloc((size_t)(route_count + 1) * STATUS_SLOTS, sizeof *m->requests);
    if (m->requests == NULL) {
        free(m);
        return NULL;
    }
    return m;
}

void svc_metrics_free(struct svc_metrics *m)
{
    if (m == NULL)
        return;
    free(m->requests);
    free(m);
}

void svc_metrics_observe(struct svc_metrics *m, int route_index, const char *method,
                         unsigned status, uint64_t duration_us)
{
    (void)method; /* the route pattern already implies its method */
    assert(m != NULL && m->requests != NULL);
    int r = (route_index < 0 || route_index >= m->route_count) ? m->route_count : route_index;
    if (status >= STATUS_MIN && status <= STATUS_MAX)
        atomic_fetch_add(&m->requests[(size_t)r * STATUS_SLOTS + (status - STATUS_MIN)], 1);
    size_t b = 0;
    while (b < BUCKETS && duration_us > bucket_us[b])
        b++;
    atomic_fetch_add(&m->buckets[b], 1);
    atomic_fetch_add(&m->sum_us, duration_us);
    atomic_fetch_add(&m->count, 1);
}

void svc_metrics_connection(struct svc_metrics *m, int delta)
{
    atomic_fetch_add(&m->connections, delta);
}

char *svc_metrics_render(struct svc_metrics *m, const struct svc_metrics_gauges *g, size_t *len)
{
    struct text_buf b = {0};
    const struct svc_route *routes = m->routes;
    int nroutes = m->route_count;

    text_buf_printf(
        &b, "# HELP tactics_http_requests_total HTTP requests answered, by route and status.\n"
            "# TYPE tactics_http_requests_total counter\n");
    for (int r = 0; r <= m->route_count; r++) {
        const char *method = r < m->route_count && r < nroutes ? routes[r].method : "";
        const char *route = r < m->route_count && r < nroutes ? routes[r].pattern : "unmatched";
        for (int s = 0; s < STATUS_SLOTS; s++) {
            uint64_t n = atomic_load(&m->requests[(size_t)r * STATUS_SLOTS + (size_t)s]);
            if (n == 0)
                continue;
            text_buf_printf(
                &b, "tactics_http_requests_total{method=\"%s\",route=\"%s\",status=\"%d\"} %llu\n",
                method, route, s + STATUS_MIN, (unsigned long long)n);
        }
    }

    text_buf_printf(
        &b, "# HELP tactics_http_request_duration_seconds Time from first byte of the request "
            "to the response being queued.\n"
            "# TYPE tactics_http_request_duration_seconds histogram\n");
    uint64_t cumulative = 0;
    for (size_t i = 0; i < BUCKETS; i++) {
        cumulative += atomic_load(&m->buckets[i]);
        text_buf_printf(&b, "tactics_http_request_duration_seconds_bucket{le=\"%g\"} %llu\n",
                        (double)bucket_us[i] / 1e6, (unsigned long long)cumulative);
    }
    cumulative += atomic_load(&m->buckets[BUCKETS]);
    text_buf_printf(&b, "tactics_http_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n",
                    (unsigned long long)cumulative);
    text_buf_printf(&b, "tactics_http_request_duration_seconds_sum %.6f\n",
                    (double)atomic_load(&m->sum_us) / 1e6);
    text_buf_printf(&b, "tactics_http_request_duration_seconds_count %llu\n",
                    (unsigned long long)atomic_load(&m->count));

    text_buf_printf(&b,
                    "# HELP tactics_http_connections_open Client connections open now.\n"
                    "# TYPE tactics_http_connections_open gauge\n"
                    "tactics_http_connections_open %d\n",
                    atomic_load(&m->connections));
    text_buf_printf(&b,
                    "# HELP tactics_db_errors_total SQLite calls that failed.\n"
                    "# TYPE tactics_db_errors_total counter\n"
                    "tactics_db_errors_total %llu\n",
                    (unsigned long long)g->db_errors);
    text_buf_printf(
        &b,
        "# HELP tactics_feeds_open Live feeds (GET .../stream) subscribed now.\n"
        "# TYPE tactics_feeds_open gauge\n"
        "tactics_feeds_open %u\n"
        "# HELP tactics_feed_events_folded_total Events read and folded to catch live feeds "
        "up (each at most once per feed).\n"
        "# TYPE tactics_feed_events_folded_total counter\n"
        "tactics_feed_events_folded_total %llu\n"
        "# HELP tactics_refusals_replayed_total Reads of a stored board refused too-expensive "
        "again from the first refusal, without the work.\n"
        "# TYPE tactics_refusals_replayed_total counter\n"
        "tactics_refusals_replayed_total %llu\n",
        g->feeds_open, (unsigned long long)g->feed_folded,
        (unsigned long long)g->refusals_replayed);
    text_buf_printf(
        &b,
        "# HELP tactics_group_commits_total SQLite transactions committed (or failed) by a group "
        "commit leader.\n"
        "# TYPE tactics_group_commits_total counter\n"
        "tactics_group_commits_total %llu\n"
        "# HELP tactics_group_commit_writes_total Encounter writes those transactions held "
        "(divided by tactics_group_commits_total: the mean batch).\n"
        "# TYPE tactics_group_commit_writes_total counter\n"
        "tactics_group_commit_writes_total %llu\n"
        "# HELP tactics_group_commit_largest The most writes one transaction has held.\n"
        "# TYPE tactics_group_commit_largest gauge\n"
        "tactics_group_commit_largest %llu\n"
        "# HELP tactics_group_commit_queued Writes waiting for a leader now.\n"
        "# TYPE tactics_group_commit_queued gauge\n"
        "tactics_group_commit_queued %u\n",
        (unsigned long long)g->commits, (unsigned long long)g->writes,
        (unsigned long long)g->largest_commit, g->queued);

    if (b.failed) {
        free(b.s);
        return NULL;
    }
    *len = b.n;
    return b.s;
}

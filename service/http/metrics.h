/* Prometheus counters for tacticsd: requests by route and status, a latency histogram,
 * open connections, live feeds, and what the group commit batched. All updates are lock-free
 * atomics; the label set is bounded by the route table (unknown paths count under one "unmatched"
 * route). */
#ifndef TACTICS_SVC_METRICS_H
#define TACTICS_SVC_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct svc_metrics;
struct svc_route;

/* Creates counters for the route_count routes of routes (borrowed: the table outlives the
 * counters; its patterns label them) plus "unmatched". NULL on allocation failure. */
struct svc_metrics *svc_metrics_new(const struct svc_route *routes, int route_count);
void svc_metrics_free(struct svc_metrics *m);

/* Records one answered request. route_index -1 means no route matched. */
void svc_metrics_observe(struct svc_metrics *m, int route_index, const char *method,
                         unsigned status, uint64_t duration_us);
void svc_metrics_connection(struct svc_metrics *m, int delta);

/* What the other parts know, read by the caller when /metrics is asked. */
struct svc_metrics_gauges {
    uint64_t db_errors;         /* database calls that failed */
    unsigned feeds_open;        /* live feeds subscribed now (hub.h) */
    uint64_t feed_folded;       /* events folded to catch feeds up (svc_hub_folded) */
    uint64_t refusals_replayed; /* reads refused from a refusal kept (svc_refusals_replayed) */
    uint64_t commits, writes;   /* group commit: transactions and the appends they held */
    uint64_t largest_commit;    /* the most appends in one */
    unsigned queued;            /* appends waiting for a leader now */
};

/* Renders the Prometheus text exposition (version 0.0.4) of m and g. Returns a malloc'd string
 * and its length through *len, or NULL on allocation failure. */
char *svc_metrics_render(struct svc_metrics *m, const struct svc_metrics_gauges *g, size_t *len);

#endif

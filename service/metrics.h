/* Prometheus counters for tacticsd: requests by route and status, a latency histogram,
 * open connections. All updates are lock-free atomics; the label set is bounded by the
 * route table (unknown paths count under one "unmatched" route). */
#ifndef TACTICS_SVC_METRICS_H
#define TACTICS_SVC_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct svc_metrics;

/* Creates counters for route_count routes plus "unmatched". NULL on allocation failure. */
struct svc_metrics *svc_metrics_new(int route_count);
void svc_metrics_free(struct svc_metrics *m);

/* Records one answered request. route_index -1 means no route matched. */
void svc_metrics_observe(struct svc_metrics *m, int route_index, const char *method,
                         unsigned status, uint64_t duration_us);
void svc_metrics_connection(struct svc_metrics *m, int delta);

/* Renders the Prometheus text exposition (version 0.0.4); db_errors is read by the caller.
 * Returns a malloc'd string and its length through *len, or NULL on allocation failure. */
char *svc_metrics_render(struct svc_metrics *m, uint64_t db_errors, size_t *len);

#endif

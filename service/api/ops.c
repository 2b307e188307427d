/* Operational endpoints: liveness, readiness, Prometheus metrics, the contract and its docs. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/db.h"
#include "service/api/api.h"
#include "service/http/http.h"
#include "service/http/hub.h"
#include "service/http/metrics.h"
#include "service/http/problem.h"
#include "service/http/refusals.h"

void svc_handle_healthz(const struct svc_request *req, struct svc_response *res)
{
    (void)req;
    svc_respond_json(res, 200, json_pack("{s:s}", "status", "ok"));
}

/* How long after a failed write /readyz stays 503 when no write has succeeded since: a
 * server that gets no writes (its balancer sent them elsewhere) is tried again after this. */
#define WRITE_FAILURE_HOLD_S 60

/* Ready when the database answers, its schema is at the version this build expects, and it
 * takes writes: not opened read-only, its start-up write probe committed, and no write refused
 * for want of storage (full, read-only, I/O error) in the last WRITE_FAILURE_HOLD_S seconds
 * without a commit since. */
void svc_handle_readyz(const struct svc_request *req, struct svc_response *res)
{
    int version = 0;
    int rc = db_check_ready(req->ctx->db);
    if (rc != DB_OK || db_schema_version(req->ctx->db, &version) != DB_OK) {
        svc_problem(res, SVC_PROBLEM_NOT_READY,
                    "the database is not open or not at the expected schema version", NULL);
        return;
    }
    struct db_write_health h;
    db_write_health(req->ctx->db, &h);
    char detail[256];
    if (h.read_only) {
        svc_problem(res, SVC_PROBLEM_NOT_READY,
                    "the database file was opened read-only: every write would fail", NULL);
        return;
    }
    if (h.failing && h.at_start) {
        snprintf(detail, sizeof detail,
                 "the database took no write at start-up: %s (%s); ready once a write succeeds",
                 h.code, h.text);
        svc_problem(res, SVC_PROBLEM_NOT_READY, detail, NULL);
        return;
    }
    if (h.failing && h.age_s < WRITE_FAILURE_HOLD_S) {
        snprintf(detail, sizeof detail,
                 "the last write failed %llu s ago: %s (%s); ready once a write succeeds, or "
                 "%d s after the failure",
                 (unsigned long long)h.age_s, h.code, h.text, WRITE_FAILURE_HOLD_S);
        svc_problem(res, SVC_PROBLEM_NOT_READY, detail, NULL);
        return;
    }
    svc_respond_json(res, 200,
                     json_pack("{s:s, s:i}", "status", "ready", "schema_version", version));
}

void svc_handle_metrics(const struct svc_request *req, struct svc_response *res)
{
    struct db_group_stats gs;
    db_group_commit_stats(req->ctx->db, &gs);
    struct svc_metrics_gauges g = {
        .db_errors = db_error_count(req->ctx->db),
        .feeds_open = req->ctx->hub != NULL ? svc_hub_count(req->ctx->hub) : 0,
        .feed_folded = svc_hub_folded(req->ctx->hub),
        .refusals_replayed = svc_refusals_replayed(),
        .commits = gs.commits,
        .writes = gs.writes,
        .largest_commit = gs.largest,
        .queued = gs.queued,
    };
    size_t len = 0;
    char *text = svc_metrics_render(req->ctx->metrics, &g, &len);
    svc_respond_owned(res, 200, "text/plain; version=0.0.4; charset=utf-8", text, len);
}

/* Both are generated at build time from openapi/openapi.yaml and embedded (scripts/embed.c). */
extern const unsigned char svc_openapi_json[];
extern const size_t svc_openapi_json_len;
extern const unsigned char svc_docs_html[];
extern const size_t svc_docs_html_len;
/* The browser view, service/play/play.html, embedded as it is. */
extern const unsigned char svc_play_html[];
extern const size_t svc_play_html_len;
extern const char svc_play_script_hash[];

void svc_handle_openapi(const struct svc_request *req, struct svc_response *res)
{
    (void)req;
    res->status = 200;
    res->content_type = "application/json";
    res->static_body = svc_openapi_json;
    res->body_len = svc_openapi_json_len;
}

void svc_handle_docs(const struct svc_request *req, struct svc_response *res)
{
    (void)req;
    res->status = 200;
    res->content_type = "text/html; charset=utf-8";
    res->static_body = svc_docs_html;
    res->body_len = svc_docs_html_len;
}

/* The page calls this server only, and runs its own script only: the policy names its one
 * inline script by hash (computed from play.html at build time, scripts/embed.c), so a script
 * injected into the page, inline or as an event handler attribute, is refused by the browser.
 * Everything it fetches, the live feed included, is same-origin (connect-src 'self'), so no
 * third party can be reached from it. */
void svc_handle_play(const struct svc_request *req, struct svc_response *res)
{
    (void)req;
    res->status = 200;
    res->content_type = "text/html; charset=utf-8";
    res->static_body = svc_play_html;
    res->body_len = svc_play_html_len;
    char policy[320];
    int n = snprintf(policy, sizeof policy,
                     "default-src 'none'; script-src %s; style-src 'unsafe-inline'; "
                     "connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
                     "form-action 'self'; frame-ancestors 'none'",
                     svc_play_script_hash);
    assert(n > 0 && (size_t)n < sizeof policy);
    (void)n;
    svc_response_add_header(res, "Content-Security-Policy", policy);
}

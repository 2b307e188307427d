/* Operational endpoints: liveness, readiness, Prometheus metrics, the contract and its docs. */
#include <stdlib.h>

#include "db.h"
#include "svc.h"

void svc_handle_healthz(const struct svc_request *req, struct svc_response *res)
{
    (void)req;
    svc_respond_json(res, 200, json_pack("{s:s}", "status", "ok"));
}

/* Ready when the database answers and its schema is at the version this build expects. */
void svc_handle_readyz(const struct svc_request *req, struct svc_response *res)
{
    int version = 0;
    int rc = db_check_ready(req->ctx->db);
    if (rc == DB_OK && db_schema_version(req->ctx->db, &version) == DB_OK) {
        svc_respond_json(res, 200,
                         json_pack("{s:s, s:i}", "status", "ready", "schema_version", version));
        return;
    }
    svc_problem(res, SVC_PROBLEM_NOT_READY,
                "the database is not open or not at the expected schema version", NULL);
}

void svc_handle_metrics(const struct svc_request *req, struct svc_response *res)
{
    size_t len = 0;
    char *text = svc_metrics_render(req->ctx->metrics, db_error_count(req->ctx->db), &len);
    svc_respond_owned(res, 200, "text/plain; version=0.0.4; charset=utf-8", text, len);
}

/* Both are generated at build time from openapi/openapi.yaml and embedded (scripts/embed.c). */
extern const unsigned char svc_openapi_json[];
extern const size_t svc_openapi_json_len;
extern const unsigned char svc_docs_html[];
extern const size_t svc_docs_html_len;

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

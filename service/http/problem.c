/* Responses: JSON bodies, headers, and RFC 9457 problem details (http.h, problem.h). */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/json/errors.h"
#include "service/json/writer.h"
#include "text/text.h"

void svc_response_clear(struct svc_response *res)
{
    if (res->stream != NULL)
        res->stream_ops->free(res->stream);
    free(res->body);
    for (int i = 0; i < res->header_count; i++)
        free(res->headers[i].value);
    memset(res, 0, sizeof *res);
}

void svc_respond_raw(struct svc_response *res, unsigned status, const char *content_type,
                     const char *body, size_t len)
{
    free(res->body);
    res->body = malloc(len + 1);
    if (res->body == NULL) {
        res->status = 500;
        res->body_len = 0;
        res->content_type = "text/plain";
        return;
    }
    memcpy(res->body, body, len);
    res->body[len] = '\0';
    res->body_len = len;
    res->status = status;
    res->content_type = content_type;
}

void svc_respond_owned(struct svc_response *res, unsigned status, const char *content_type,
                       char *text, size_t len)
{
    if (text == NULL) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        return;
    }
    free(res->body);
    res->body = text;
    res->body_len = len;
    res->status = status;
    res->content_type = content_type;
}

static void respond_doc(struct svc_response *res, unsigned status, const char *content_type,
                        json_t *doc)
{
    char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(doc);
    free(res->body);
    res->body = text;
    res->body_len = text ? strlen(text) : 0;
    res->status = text ? status : 500;
    res->content_type = content_type;
}

void svc_respond_json(struct svc_response *res, unsigned status, json_t *doc)
{
    respond_doc(res, status, "application/json", doc);
}

void svc_respond_writer(struct svc_response *res, struct jw *w)
{
    size_t len = 0;
    char *text = jw_finish(w, &len);
    svc_respond_owned(res, 200, "application/json", text, len);
}

void svc_response_add_header(struct svc_response *res, const char *name, const char *value)
{
    assert(res->header_count < SVC_MAX_HEADERS);
    if (res->header_count >= SVC_MAX_HEADERS)
        return;
    char *copy = strdup(value);
    if (copy == NULL)
        return;
    res->headers[res->header_count].name = name;
    res->headers[res->header_count].value = copy;
    res->header_count++;
}

/* The problem types this service sends. Each `type` is a tag URI (RFC 4151): a stable,
 * non-resolvable identifier, as RFC 9457 section 3.1.1 allows; openapi.yaml lists them. */
static const struct {
    unsigned status;
    const char *slug;
    const char *title;
} problems[] = {
    [SVC_PROBLEM_NOT_FOUND] = {404, "not-found", "No such resource"},
    [SVC_PROBLEM_METHOD_NOT_ALLOWED] = {405, "method-not-allowed",
                                        "Method not allowed on this resource"},
    [SVC_PROBLEM_MALFORMED_JSON] = {400, "malformed-json", "The body is not valid JSON"},
    [SVC_PROBLEM_UNSUPPORTED_MEDIA_TYPE] = {415, "unsupported-media-type",
                                            "The body must be application/json"},
    [SVC_PROBLEM_BODY_TOO_LARGE] = {413, "body-too-large", "The body is larger than allowed"},
    [SVC_PROBLEM_VALIDATION] = {422, "validation", "The request has invalid values"},
    [SVC_PROBLEM_NOT_READY] = {503, "not-ready", "The service is not ready"},
    [SVC_PROBLEM_INTERNAL] = {500, "internal", "Internal error"},
    [SVC_PROBLEM_UNAUTHORIZED] = {401, "unauthorized", "A bearer token is required"},
    [SVC_PROBLEM_FORBIDDEN] = {403, "forbidden", "This token does not own the encounter"},
    [SVC_PROBLEM_PRECONDITION_FAILED] = {412, "precondition-failed",
                                         "The encounter has changed since that version"},
    [SVC_PROBLEM_PRECONDITION_REQUIRED] = {428, "precondition-required",
                                           "Send If-Match with the encounter's ETag"},
    [SVC_PROBLEM_CONFLICT] = {409, "conflict", "The request conflicts with an earlier one"},
    [SVC_PROBLEM_BAD_REQUEST] = {400, "bad-request", "The request's framing or target is refused"},
    [SVC_PROBLEM_TOO_EXPENSIVE] = {422, "too-expensive",
                                   "The request needs more work than its budget allows"},
    [SVC_PROBLEM_BUSY] = {503, "busy", "Too many searches are running; retry shortly"},
    [SVC_PROBLEM_SUBSCRIBERS_FULL] = {503, "subscribers-full",
                                      "Too many live feeds are open; retry shortly"},
};
_Static_assert(sizeof problems / sizeof problems[0] == SVC_PROBLEM_SUBSCRIBERS_FULL + 1,
               "one problem row per kind");

unsigned svc_problem_status(enum svc_problem_kind kind)
{
    assert((size_t)kind < sizeof problems / sizeof problems[0]);
    return problems[kind].status;
}

const char *svc_problem_title(enum svc_problem_kind kind)
{
    assert((size_t)kind < sizeof problems / sizeof problems[0]);
    return problems[kind].title;
}

void svc_problem(struct svc_response *res, enum svc_problem_kind kind, const char *detail,
                 json_t *errors)
{
    char type[96];
    snprintf(type, sizeof type, "tag:tactics.dev,2026:problem:%s", problems[kind].slug);
    json_t *doc = json_object();
    json_object_set_new(doc, "type", json_string(type));
    json_object_set_new(doc, "title", json_string(problems[kind].title));
    json_object_set_new(doc, "status", json_integer(problems[kind].status));
    json_object_set_new(doc, "detail", json_string(detail ? detail : problems[kind].title));
    if (errors != NULL)
        json_object_set_new(doc, "errors", errors);
    respond_doc(res, problems[kind].status, "application/problem+json", doc);
}

/* The detail of a 422 too-expensive. */
void svc_problem_too_expensive_detail(char *detail, size_t n, const char *limit, long long budget,
                                      long long reached)
{
    snprintf(detail, n,
             "%s: the budget is %lld and the work had reached %lld when it stopped (raise it with "
             "--budget-scale)",
             limit, budget, reached);
}

void svc_problem_too_expensive(struct svc_response *res, const char *limit, long long budget,
                               long long reached)
{
    char type[96], detail[256];
    snprintf(type, sizeof type, "tag:tactics.dev,2026:problem:%s",
             problems[SVC_PROBLEM_TOO_EXPENSIVE].slug);
    svc_problem_too_expensive_detail(detail, sizeof detail, limit, budget, reached);
    json_t *doc =
        json_pack("{s:s, s:s, s:i, s:s, s:s, s:I, s:I}", "type", type, "title",
                  problems[SVC_PROBLEM_TOO_EXPENSIVE].title, "status", 422, "detail", detail,
                  "limit", limit, "budget", (json_int_t)budget, "reached", (json_int_t)reached);
    respond_doc(res, 422, "application/problem+json", doc);
}

/* The detail of a 422 validation problem: its first error, and whether more follow. */
void svc_errors_detail(json_t *list, char *detail, size_t len)
{
    size_t n = json_array_size(list);
    const char *first = json_string_value(json_object_get(json_array_get(list, 0), "message"));
    const char *ptr = json_string_value(json_object_get(json_array_get(list, 0), "pointer"));
    text_format(detail, len, "%s%s: %s%s", ptr && *ptr ? ptr : "", ptr && *ptr ? "" : "(body)",
                first ? first : "invalid", n > 1 ? " (and further errors; see errors)" : "");
}

void svc_errors_respond(struct svc_errors *e, struct svc_response *res)
{
    char detail[1400];
    svc_errors_detail(e->list, detail, sizeof detail);
    svc_problem(res, SVC_PROBLEM_VALIDATION, detail, e->list);
    e->list = NULL;
}

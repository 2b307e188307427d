/* Responses: JSON bodies, headers, and RFC 9457 problem details. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec.h"
#include "jsonr.h"
#include "ruling.h"
#include "svc.h"

const char *svc_request_header(const struct svc_request *req, const char *name)
{
    return req->header ? req->header(req->header_cookie, name) : NULL;
}

const char *svc_request_query(const struct svc_request *req, const char *name)
{
    return req->query ? req->query(req->header_cookie, name) : NULL;
}

void svc_response_clear(struct svc_response *res)
{
    svc_stream_free(res->stream);
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
static void too_expensive_detail(char *detail, size_t n, const char *limit, long long budget,
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
    too_expensive_detail(detail, sizeof detail, limit, budget, reached);
    json_t *doc =
        json_pack("{s:s, s:s, s:i, s:s, s:s, s:I, s:I}", "type", type, "title",
                  problems[SVC_PROBLEM_TOO_EXPENSIVE].title, "status", 422, "detail", detail,
                  "limit", limit, "budget", (json_int_t)budget, "reached", (json_int_t)reached);
    respond_doc(res, 422, "application/problem+json", doc);
}

void svc_errors_init(struct svc_errors *e)
{
    e->list = json_array();
}

void svc_errors_add(struct svc_errors *e, const char *pointer, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_t *item = json_object();
    json_object_set_new(item, "pointer", json_string(pointer));
    json_object_set_new(item, "message", json_string(msg));
    json_array_append_new(e->list, item);
}

bool svc_errors_any(const struct svc_errors *e)
{
    return json_array_size(e->list) > 0;
}

/* The detail of a 422 validation problem: its first error, and whether more follow. */
static void errors_detail(json_t *list, char *detail, size_t len)
{
    size_t n = json_array_size(list);
    const char *first = json_string_value(json_object_get(json_array_get(list, 0), "message"));
    const char *ptr = json_string_value(json_object_get(json_array_get(list, 0), "pointer"));
    snprintf(detail, len, "%s%s: %s%s", ptr && *ptr ? ptr : "", ptr && *ptr ? "" : "(body)",
             first ? first : "invalid", n > 1 ? " (and further errors; see errors)" : "");
}

void svc_errors_respond(struct svc_errors *e, struct svc_response *res)
{
    char detail[640];
    errors_detail(e->list, detail, sizeof detail);
    svc_problem(res, SVC_PROBLEM_VALIDATION, detail, e->list);
    e->list = NULL;
}

void svc_errors_free(struct svc_errors *e)
{
    json_decref(e->list);
    e->list = NULL;
}

json_t *svc_parse_json_body(const struct svc_request *req, struct svc_response *res)
{
    json_error_t err;
    if (req->body_len == 0) {
        svc_problem(res, SVC_PROBLEM_MALFORMED_JSON, "the request body is empty", NULL);
        return NULL;
    }
    /* The fast path builds what jansson would, or declines (jsonr.h). Duplicate keys are
     * refused; trailing data is refused (jansson's EOF check is on). */
    json_t *doc = jsonr_parse(req->body, req->body_len);
    if (doc == NULL)
        doc = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &err);
    if (doc == NULL) {
        char detail[320];
        snprintf(detail, sizeof detail, "%s at line %d, column %d (byte offset %d)", err.text,
                 err.line, err.column, err.position);
        json_t *errors = json_array();
        json_t *item = json_object();
        json_object_set_new(item, "pointer", json_string(""));
        json_object_set_new(item, "message", json_string(detail));
        json_object_set_new(item, "offset", json_integer(err.position));
        json_array_append_new(errors, item);
        svc_problem(res, SVC_PROBLEM_MALFORMED_JSON, detail, errors);
        return NULL;
    }
    codec_request_body(doc);
    return doc;
}

void svc_errors_as_query(struct svc_errors *e, const struct svc_query_member *map)
{
    size_t i;
    json_t *item;
    json_array_foreach(e->list, i, item)
    {
        const char *p = json_string_value(json_object_get(item, "pointer"));
        for (int k = 0; p != NULL && map[k].member != NULL; k++) {
            size_t n = strlen(map[k].member);
            if (strncmp(p, map[k].member, n) == 0 && (p[n] == '\0' || p[n] == '/')) {
                char q[80];
                snprintf(q, sizeof q, "?%s", map[k].param);
                json_object_set_new(item, "pointer", json_string(q));
                break;
            }
        }
    }
}

/* ---- a ruling's answer before HTTP (ruling.h) ---- */

void svc_answer_free(struct svc_answer *a)
{
    free(a->text);
    json_decref(a->doc);
    json_decref(a->errors);
    memset(a, 0, sizeof *a);
}

void svc_answer_problem(struct svc_answer *a, enum svc_problem_kind kind, const char *detail)
{
    svc_answer_free(a);
    a->status = problems[kind].status;
    a->kind = kind;
    snprintf(a->detail, sizeof a->detail, "%s", detail ? detail : "");
}

void svc_answer_text(struct svc_answer *a, char *text, size_t len)
{
    if (text == NULL) {
        svc_answer_problem(a, SVC_PROBLEM_INTERNAL, NULL);
        return;
    }
    svc_answer_free(a);
    a->status = 200;
    a->text = text;
    a->len = len;
}

void svc_answer_json(struct svc_answer *a, json_t *doc)
{
    if (doc == NULL) {
        svc_answer_problem(a, SVC_PROBLEM_INTERNAL, NULL);
        return;
    }
    svc_answer_free(a);
    a->status = 200;
    a->doc = doc;
}

void svc_answer_errors(struct svc_answer *a, struct svc_errors *e)
{
    svc_answer_problem(a, SVC_PROBLEM_VALIDATION, NULL);
    a->errors = e->list;
    e->list = json_array();
}

void svc_answer_too_expensive(struct svc_answer *a, const char *limit, long long budget,
                              long long reached)
{
    svc_answer_problem(a, SVC_PROBLEM_TOO_EXPENSIVE, NULL);
    a->limit = limit;
    a->budget = budget;
    a->reached = reached;
}

const char *svc_answer_detail(const struct svc_answer *a, char *buf, size_t n)
{
    if (a->limit != NULL) {
        char detail[256]; /* as svc_problem_too_expensive writes it */
        too_expensive_detail(detail, sizeof detail, a->limit, a->budget, a->reached);
        snprintf(buf, n, "%s", detail);
    } else if (a->errors != NULL)
        errors_detail(a->errors, buf, n);
    else
        snprintf(buf, n, "%s", a->detail[0] ? a->detail : problems[a->kind].title);
    return buf;
}

void svc_answer_respond(struct svc_answer *a, struct svc_response *res)
{
    if (a->status == 200 && a->doc != NULL) {
        svc_respond_json(res, 200, a->doc);
        a->doc = NULL;
    } else if (a->status == 200) {
        svc_respond_owned(res, 200, "application/json", a->text, a->len);
        a->text = NULL;
    } else if (a->limit != NULL) {
        svc_problem_too_expensive(res, a->limit, a->budget, a->reached);
    } else if (a->errors != NULL) {
        struct svc_errors e = {.list = a->errors};
        a->errors = NULL;
        svc_errors_respond(&e, res);
    } else {
        svc_problem(res, a->kind, a->detail[0] ? a->detail : NULL, NULL);
    }
    if (a->retry_after)
        svc_response_add_header(res, "Retry-After", "1");
    svc_answer_free(a);
}

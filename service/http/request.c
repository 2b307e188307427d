/* Reading a request: its headers, query and JSON body (request.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"
#include "service/json/reader.h"
#include "service/json/scratch.h"

const char *svc_request_header(const struct svc_request *req, const char *name)
{
    return req->header ? req->header(req->header_cookie, name) : NULL;
}

const char *svc_request_query(const struct svc_request *req, const char *name)
{
    return req->query ? req->query(req->header_cookie, name) : NULL;
}

static json_t *parse_body(const struct svc_request *req, struct svc_response *res, bool scratch)
{
    json_error_t err;
    if (req->body_len == 0) {
        svc_problem(res, SVC_PROBLEM_MALFORMED_JSON, "the request body is empty", NULL);
        return NULL;
    }
    /* The fast path builds what jansson would, or declines (jsonr.h). Duplicate keys are
     * refused; trailing data is refused (jansson's EOF check is on). */
    if (scratch)
        svc_json_scratch_begin();
    json_t *doc = jsonr_parse(req->body, req->body_len);
    if (doc == NULL)
        doc = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &err);
    if (scratch)
        svc_json_scratch_end(); /* before the problem below: its text is given to free() */
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

json_t *svc_parse_json_body(const struct svc_request *req, struct svc_response *res)
{
    return parse_body(req, res, false);
}

json_t *svc_parse_json_body_scratch(const struct svc_request *req, struct svc_response *res)
{
    return parse_body(req, res, true);
}

bool svc_decode_begin(const struct svc_request *req, struct svc_response *res,
                      const char *const *known, json_t **body, struct svc_errors *e)
{
    e->list = NULL; /* empty; svc_decode_body starts it */
    *body = svc_parse_json_body(req, res);
    if (*body == NULL)
        return false;
    if (!svc_decode_body(*body, known, e)) {
        svc_errors_respond(e, res);
        svc_errors_free(e);
        json_decref(*body);
        *body = NULL;
        return false;
    }
    return true;
}

bool codec_query_whole(const struct svc_request *req, const char *name, long long lo, long long hi,
                       long long dflt, const char *msg, long long *out, struct svc_errors *e)
{
    codec_record_query(name, lo, hi);
    const char *text = svc_request_query(req, name);
    *out = dflt;
    if (text == NULL)
        return true;
    if (codec_parse_whole(text, lo, hi, out))
        return true;
    char ptr[CODEC_PTR_MAX];
    snprintf(ptr, sizeof ptr, "?%s", name);
    svc_errors_add(e, ptr, "query %s %s", name, msg);
    return false;
}

bool svc_request_prefers_minimal(const struct svc_request *req)
{
    const char *h = svc_request_header(req, "Prefer");
    while (h != NULL && *h != '\0') {
        /* One preference: token [BWS "=" BWS word] *(";" parameter), up to the next comma. */
        size_t n = strcspn(h, ",");
        const char *p = h, *end = h + n;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (end - p >= 6 && strncasecmp(p, "return", 6) == 0) {
            p += 6;
            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            if (p < end && *p == '=') {
                p++;
                while (p < end && (*p == ' ' || *p == '\t'))
                    p++;
                bool quoted = p < end && *p == '"';
                p += quoted;
                if (end - p >= 7 && strncasecmp(p, "minimal", 7) == 0) {
                    p += 7 + (quoted && p + 7 < end && p[7] == '"');
                    while (p < end && (*p == ' ' || *p == '\t'))
                        p++;
                    if (p == end || *p == ';')
                        return true;
                }
            }
        }
        h = *end == ',' ? end + 1 : end;
    }
    return false;
}

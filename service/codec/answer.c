/* A ruling's answer before HTTP (answer.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/codec/answer.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/scratch.h"
#include "text/text.h"

void svc_answer_free(struct svc_answer *a)
{
    free(a->text);
    json_decref(a->doc);
    json_decref(a->errors);
    bool prefer_minimal = a->prefer_minimal, want_doc = a->want_doc;
    const char *tag = a->tag;
    const char *const *keep = a->keep;
    memset(a, 0, sizeof *a);
    a->keep = keep;
    a->prefer_minimal = prefer_minimal;
    a->want_doc = want_doc;
    a->tag = tag;
}

void svc_answer_problem(struct svc_answer *a, enum svc_problem_kind kind, const char *detail)
{
    svc_answer_free(a);
    a->status = svc_problem_status(kind);
    a->kind = kind;
    text_copy(a->detail, sizeof a->detail, detail ? detail : "", SIZE_MAX);
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
        svc_problem_too_expensive_detail(detail, sizeof detail, a->limit, a->budget, a->reached);
        snprintf(buf, n, "%s", detail);
    } else if (a->errors != NULL)
        svc_errors_detail(a->errors, buf, n);
    else
        snprintf(buf, n, "%s", a->detail[0] ? a->detail : svc_problem_title(a->kind));
    return buf;
}

void svc_answer_respond(struct svc_answer *a, struct svc_response *res)
{
    if (a->status == 200 && a->minimal_applied)
        svc_response_add_header(res, "Preference-Applied", "return=minimal");
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

void svc_answer_handle(const struct svc_request *req, struct svc_response *res,
                       void (*rule)(json_t *body, struct svc_answer *out))
{
    /* The stateless rulings keep nothing of the body: it is parsed into the worker's scratch
     * (freeing it is then free). */
    json_t *body = svc_parse_json_body_scratch(req, res);
    if (body == NULL)
        return;
    struct svc_answer ans = {.prefer_minimal = svc_request_prefers_minimal(req)};
    rule(body, &ans);
    svc_answer_respond(&ans, res);
    svc_json_scratch_drop(body);
}

/* Errors as RFC 9457 problem details (application/problem+json): one row per kind of error
 * this service sends (problem.c), and the helpers that answer with one. */
#ifndef TACTICS_SVC_HTTP_PROBLEM_H
#define TACTICS_SVC_HTTP_PROBLEM_H

#include <jansson.h>
#include <stddef.h>

#include "service/http/http.h"
#include "service/json/errors.h"

/* Problem types: the URI suffix, title and status of each kind of error we send. */
enum svc_problem_kind {
    SVC_PROBLEM_NOT_FOUND,
    SVC_PROBLEM_METHOD_NOT_ALLOWED,
    SVC_PROBLEM_MALFORMED_JSON,
    SVC_PROBLEM_UNSUPPORTED_MEDIA_TYPE,
    SVC_PROBLEM_BODY_TOO_LARGE,
    SVC_PROBLEM_VALIDATION,
    SVC_PROBLEM_NOT_READY,
    SVC_PROBLEM_INTERNAL,
    SVC_PROBLEM_UNAUTHORIZED,
    SVC_PROBLEM_FORBIDDEN,
    SVC_PROBLEM_PRECONDITION_FAILED,
    SVC_PROBLEM_PRECONDITION_REQUIRED,
    SVC_PROBLEM_CONFLICT,
    SVC_PROBLEM_BAD_REQUEST,
    SVC_PROBLEM_TOO_EXPENSIVE,
    SVC_PROBLEM_BUSY,
    SVC_PROBLEM_SUBSCRIBERS_FULL,
};

/* Fills res with an application/problem+json body. detail may be NULL. errors, when not NULL,
 * is an array of {pointer, message} objects and is stolen. */
void svc_problem(struct svc_response *res, enum svc_problem_kind kind, const char *detail,
                 json_t *errors);

/* 422 too-expensive: the request needs more than its work budget `limit` allows (README
 * "Limits and budgets"). The problem names the limit, the budget and the figure reached when
 * the work stopped, as members of the same names. */
void svc_problem_too_expensive(struct svc_response *res, const char *limit, long long budget,
                               long long reached);

/* The status and title a kind is sent with. */
unsigned svc_problem_status(enum svc_problem_kind kind);
const char *svc_problem_title(enum svc_problem_kind kind);
/* The detail a 422 too-expensive is sent with (svc_problem_too_expensive). */
void svc_problem_too_expensive_detail(char *detail, size_t n, const char *limit, long long budget,
                                      long long reached);
/* The detail a 422 validation is sent with: the first error of list, and whether more follow. */
void svc_errors_detail(json_t *list, char *detail, size_t n);

/* Sends 422 with every gathered error and releases the list. */
void svc_errors_respond(struct svc_errors *e, struct svc_response *res);

#endif

/* Validation errors gathered while decoding a request: each names the field by JSON pointer
 * (RFC 6901). Append with svc_errors_add; a handler sends them with svc_errors_respond
 * (service/http/problem.h), a ruling keeps them in its answer (service/codec/answer.h). */
#ifndef TACTICS_SVC_JSON_ERRORS_H
#define TACTICS_SVC_JSON_ERRORS_H

#include <jansson.h>
#include <stdbool.h>

struct svc_errors {
    json_t *list; /* [{pointer, message}], owned */
};

void svc_errors_init(struct svc_errors *e);
void svc_errors_add(struct svc_errors *e, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool svc_errors_any(const struct svc_errors *e);

/* For a request built from query parameters: each error whose pointer is a member map[k].member
 * (or inside it) is named by its parameter, "?param", instead. map ends with {NULL, NULL}. */
struct svc_query_member {
    const char *member, *param;
};
void svc_errors_as_query(struct svc_errors *e, const struct svc_query_member *map);
void svc_errors_free(struct svc_errors *e);

#endif

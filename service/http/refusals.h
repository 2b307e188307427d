/* The refusals of reads that would cost as much again (refusals.c): a read of a stored board
 * after event `at` with the same query is refused 422 too-expensive again, so it is answered
 * from the first refusal's text rather than from the work. */
#ifndef TACTICS_SVC_HTTP_REFUSALS_H
#define TACTICS_SVC_HTTP_REFUSALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "service/http/http.h"

/* key: the read's path, `at` and the query parameters named by params (NULL-terminated) into
 * out; false when it does not fit (then nothing is kept). get answers res (true) when the key
 * was refused; put keeps res when it is a 422 too-expensive. release frees them all (at
 * exit). */
bool svc_refusal_key(const struct svc_request *req, int64_t at, const char *const *params,
                     char *out, size_t n);
bool svc_refusal_get(const char *key, struct svc_response *res);
void svc_refusal_put(const char *key, const struct svc_response *res);
void svc_refusals_release(void);
/* How many answers came from a refusal kept (for /metrics). */
uint64_t svc_refusals_replayed(void);

#endif

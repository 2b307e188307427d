/* Reading a request: its JSON body, decoded the way every endpoint starts, and its query
 * parameters as numbers (request.c). Headers and query text: svc_request_header and
 * svc_request_query (http.h). */
#ifndef TACTICS_SVC_HTTP_REQUEST_H
#define TACTICS_SVC_HTTP_REQUEST_H

#include <jansson.h>
#include <stdbool.h>

#include "service/http/http.h"
#include "service/json/errors.h"

/* Starts decoding a request whose body is one JSON object with members named in `known`
 * (NULL-terminated). Initialises e and sets *body. Returns false when the answer is already in
 * res (400 for malformed JSON, 422 when the body is not an object), with *body NULL and e
 * empty: the caller returns (freeing them again is harmless). Unknown members are added to e, and
 * decoding goes on so every error is reported at once. */
bool svc_decode_begin(const struct svc_request *req, struct svc_response *res,
                      const char *const *known, json_t **body, struct svc_errors *e);

/* The query parameter `name` as codec_parse_whole reads it: *out is dflt when it is absent;
 * else an error at "?name" (msg, a sentence saying what it must be) when it is not one. */
bool codec_query_whole(const struct svc_request *req, const char *name, long long lo, long long hi,
                       long long dflt, const char *msg, long long *out, struct svc_errors *e);

/* Whether the request asks Prefer: return=minimal (RFC 7240; among other preferences, any case,
 * the value quoted or not). The stateless attack answers then leave out their breakdown
 * (codec/attack.c), as an encounter's writes leave out the state. */
bool svc_request_prefers_minimal(const struct svc_request *req);

/* Parses the request body as one JSON value: rejects duplicate keys and trailing data.
 * Returns the value, or NULL after filling res with a 400 that gives jansson's position. */
json_t *svc_parse_json_body(const struct svc_request *req, struct svc_response *res);
/* The same, the value made in this worker thread's scratch (service/json/scratch.h): cheaper
 * to make and to free, but gone at the thread's next scratch parse. For a ruling that keeps
 * nothing of the body past the request (svc_answer_handle's). */
json_t *svc_parse_json_body_scratch(const struct svc_request *req, struct svc_response *res);

#endif

/* Decoding helpers for request bodies: typed field access that reports every problem as a
 * validation error naming the field by JSON pointer (RFC 6901). Each returns true when the
 * field was present and valid; absent optional fields return false without an error. */
#ifndef TACTICS_SVC_JSON_FIELDS_H
#define TACTICS_SVC_JSON_FIELDS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "service/json/errors.h"

#define CODEC_PTR_MAX 256

/* A whole number written as a query parameter or a header carries it: an optional '-' then 1 to
 * 18 digits and nothing else (no spaces, no '+', no fraction), from lo to hi. False, *out
 * unchanged, when text is anything else or out of range. */
bool codec_parse_whole(const char *text, long long lo, long long hi, long long *out);

/* Writes base + "/" + key (escaped per RFC 6901) into out. */
void codec_pointer(char *out, const char *base, const char *key);

/* Requires v to be an object; errors name base. */
bool codec_expect_object(json_t *v, const char *base, struct svc_errors *e);

/* Adds an error for each member of obj whose name is not in known (NULL-terminated). */
void codec_reject_unknown(json_t *obj, const char *base, const char *const *known,
                          struct svc_errors *e);

bool codec_get_string(json_t *obj, const char *base, const char *key, bool required, size_t max_len,
                      const char **out, struct svc_errors *e);

/* An integer in [lo, hi]; JSON reals such as 3.0 are refused. */
bool codec_get_int(json_t *obj, const char *base, const char *key, bool required, long long lo,
                   long long hi, long long *out, struct svc_errors *e);

bool codec_get_bool(json_t *obj, const char *base, const char *key, bool required, bool *out,
                    struct svc_errors *e);

/* One of names (NULL-terminated) by its string; returns its index, or `fallback` when the
 * field is absent (an error when required) or not one of them (an error listing them). */
int codec_get_enum(json_t *obj, const char *base, const char *key, const char *const *names,
                   bool required, int fallback, struct svc_errors *e);

/* An array of at most max_items; the caller checks the items. */
bool codec_get_array(json_t *obj, const char *base, const char *key, bool required,
                     size_t max_items, json_t **out, struct svc_errors *e);

/* Checks that body is an object whose members are all named in known (NULL-terminated): the
 * decoding start every ruling shares with svc_decode_begin (service/http/request.h). Initialises e.
 * False when body is not an object (the error is in e, and decoding stops); unknown members go to e
 * and decoding goes on, so that every error is reported at once. */
bool svc_decode_body(json_t *body, const char *const *known, struct svc_errors *e);

#endif

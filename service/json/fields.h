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

/* Between codec_index_begin(obj) and its codec_index_end, the codec's reads of obj's members
 * (codec_get_*, codec_member) find them in a table of obj's members made once, instead of
 * hashing each name in jansson's table (a creature's decoder asks about 15 names,
 * most of them absent, at about 160 instructions a lookup). obj must not change in between,
 * and the pairs nest, at most CODEC_INDEX_DEPTH deep (deeper ones, an object of more than
 * CODEC_INDEX_MEMBERS members, and NULL or a non-object, are read from jansson's table). */
#define CODEC_INDEX_DEPTH   4
#define CODEC_INDEX_MEMBERS 32
void codec_index_begin(json_t *obj);
void codec_index_end(void);
/* obj[key] (json_object_get), through the index when obj has one. */
json_t *codec_member(json_t *obj, const char *key);

/* A decoder's members of obj, found in one walk of it instead of a lookup a name: out[i] is
 * obj's member named known[i] (NULL-terminated, at most CODEC_MEMBERS_MAX names; a name may be
 * listed twice), or NULL when absent, as json_object_get(obj, known[i]) gives it; and, as
 * codec_reject_unknown(obj, base, known, e) would add them, an error for each member whose name
 * is not in known, in obj's order. Every out[i] is NULL when obj is not an object (no error:
 * the caller checks that first). Read the values with the codec_*_of getters below. */
#define CODEC_MEMBERS_MAX 64
void codec_members(json_t *obj, const char *base, const char *const *known, json_t **out,
                   size_t out_cap, struct svc_errors *e);
/* out_cap is out's length: more names than it (or than CODEC_MEMBERS_MAX) is a decoder's bug,
 * and aborts in every build rather than write past out. The names' text must never change (string
 * literals, as every decoder's are): each thread keeps a table of a list's names by name bit,
 * found again by the names' addresses (a list array changed in place is read anew; a name's text
 * changed at the same address would not be). */
/* codec_members with the names in nlists lists (each NULL-terminated; a NULL list is empty),
 * as if they were one list, the first's names first: out[] follows them in that order. Returns
 * how many names the lists hold (out[0 .. that) are set). */
size_t codec_members_in(json_t *obj, const char *base, const char *const *const *lists,
                        size_t nlists, json_t **out, size_t out_cap, struct svc_errors *e);

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

/* The getters above, given obj's member `key` already found (v: codec_members' out, NULL when
 * absent) instead of looking it up: the same checks, errors and recorded bounds. */
bool codec_string_of(json_t *obj, json_t *v, const char *base, const char *key, bool required,
                     size_t max_len, const char **out, struct svc_errors *e);
bool codec_int_of(json_t *obj, json_t *v, const char *base, const char *key, bool required,
                  long long lo, long long hi, long long *out, struct svc_errors *e);
bool codec_bool_of(json_t *v, const char *base, const char *key, bool required, bool *out,
                   struct svc_errors *e);
int codec_enum_of(json_t *obj, json_t *v, const char *base, const char *key,
                  const char *const *names, bool required, int fallback, struct svc_errors *e);
bool codec_array_of(json_t *obj, json_t *v, const char *base, const char *key, bool required,
                    size_t max_items, json_t **out, struct svc_errors *e);

/* Checks that body is an object whose members are all named in known (NULL-terminated): the
 * decoding start every ruling shares with svc_decode_begin (service/http/request.h). Initialises e.
 * False when body is not an object (the error is in e, and decoding stops); unknown members go to e
 * and decoding goes on, so that every error is reported at once. */
bool svc_decode_body(json_t *body, const char *const *known, struct svc_errors *e);

/* The bounds the decoders enforce, recorded for the contract test (tacticsd --record-bounds
 * FILE; tools/check-bounds.mjs compares them with openapi.yaml, so the contract states every
 * limit from where the server takes it: the decoder's own call). While recording, each
 * codec_get_int, codec_get_string, codec_get_array and codec_query_whole that reads the
 * request's own body or query appends, once per process, a line
 *   METHOD PATTERN <tab> POINTER <tab> KIND <tab> LO <tab> HI
 * KIND is int, length or items; a bound that depends on the request or the server's settings
 * (a map's width, the facings of its grid, an encounter's version) is marked by the caller
 * with CODEC_WITHIN, and KIND then ends in "~". Fields read from anything else (a stored
 * event re-ruled on import or verify) are not recorded. Off unless codec_record_bounds
 * succeeded; then each call costs a thread-local read. */
bool codec_record_bounds(const char *path);
/* Around each handler (server.c): the route, and the body once parsed (svc_parse_json_body,
 * which the recorder holds until the end so that it outlives the handler's own reference). */
void codec_request_begin(const char *method, const char *pattern);
void codec_request_body(json_t *root);
void codec_request_end(void);
/* Records a query parameter's bounds (codec_query_whole, service/http/request.h). */
void codec_record_query(const char *name, long long lo, long long hi);
void codec_within_begin(void);
bool codec_within_end(bool result);
#define CODEC_WITHIN(call) (codec_within_begin(), codec_within_end(call))

#endif

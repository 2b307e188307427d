/* A fast path for parsing request bodies. The JSON clients usually send - objects, arrays,
 * integers, true/false/null and strings of printable ASCII without escapes - is parsed straight
 * into jansson values. json_loadb reads through a per-character stream and spent about 9 us on
 * the 294-byte body of /v1/attacks/resolve, half of that handler's time; this builds the same
 * tree in a fraction of it.
 *
 * Anything else is declined (NULL): escapes, bytes outside printable ASCII in strings, numbers
 * with a fraction or exponent, integers of more than 18 digits, nesting deeper than
 * JSONR_MAX_DEPTH, duplicate keys, a top level that is not an object or array, trailing data,
 * any syntax error. The caller then parses with jansson, which gives the value or the error with
 * its offset. So every answer stays jansson's: this either builds the value json_loadb(text, len,
 * JSON_REJECT_DUPLICATES) builds, member order included, or nothing (fuzz/fuzz_requests.c checks
 * this on every input). */
#ifndef TACTICS_SVC_JSONR_H
#define TACTICS_SVC_JSONR_H

#include <jansson.h>
#include <stddef.h>

#define JSONR_MAX_DEPTH 32

/* The value of text[0..len), or NULL when declined (or out of memory). */
json_t *jsonr_parse(const char *text, size_t len);

/* The value of text the service wrote itself (a stored state or event, a ruling's answer):
 * the fast path, else json_loadb(text, len, 0) for what it declines. NULL when not JSON. */
json_t *jsonr_load(const char *text, size_t len);

/* The value of member `key` of the object text[0..len) the service wrote itself, as
 * json_incref(json_object_get(jsonr_load(text, len), key)) would give it, without building the
 * other members: they are skipped over, not parsed (replaying a log folds only each event's
 * `effects`). NULL when the member is absent or text is not an object. */
json_t *jsonr_load_member(const char *text, size_t len, const char *key);

#endif

#include "service/json/reader.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

struct reader {
    const char *p, *end;
    int depth;
};

static void skip_space(struct reader *r)
{
    assert(r->p <= r->end);
    if (r->p < r->end && (unsigned char)*r->p > ' ')
        return; /* the usual case: compact JSON has no space to skip */
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
        r->p++;
}

/* The bytes a plain string holds as they are (1): printable ASCII but the quote and the
 * backslash, as a table so that the scan of a string is a load and a test a byte. */
static const unsigned char plain_byte[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* At a quote: a string of printable ASCII without escapes. Sets s and n to its text and moves
 * past the closing quote; false (declined) otherwise. */
static bool plain_string(struct reader *r, const char **s, size_t *n)
{
    assert(r->p < r->end && *r->p == '"'); /* "At a quote" */
    const char *q = r->p + 1;
    while (q < r->end && plain_byte[(unsigned char)*q])
        q++;
    if (q < r->end && *q != '"')
        return false; /* an escape, a control character or a byte past ASCII */
    if (q >= r->end)
        return false;
    *s = r->p + 1;
    *n = (size_t)(q - *s);
    r->p = q + 1;
    return true;
}

/* An integer of at most 18 digits (so it cannot overflow), written as JSON allows: no leading
 * zeros, no plus sign. A fraction, an exponent or more digits: declined. */
static json_t *integer(struct reader *r)
{
    const char *q = r->p;
    bool negative = q < r->end && *q == '-';
    if (negative)
        q++;
    const char *digits = q;
    long long v = 0;
    while (q < r->end && *q >= '0' && *q <= '9' && q - digits < 18)
        v = v * 10 + (*q++ - '0');
    size_t count = (size_t)(q - digits);
    if (count == 0 || (count > 1 && *digits == '0'))
        return NULL;
    if (q < r->end && (*q == '.' || *q == 'e' || *q == 'E' || (*q >= '0' && *q <= '9')))
        return NULL;
    r->p = q;
    return json_integer(negative ? -v : v);
}

static json_t *literal(struct reader *r, const char *word, size_t n, json_t *v)
{
    assert(strlen(word) == n);
    if ((size_t)(r->end - r->p) < n)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (r->p[i] != word[i])
            return NULL;
    r->p += n;
    return v;
}

static json_t *value(struct reader *r);

/* Consumes c when it is next. */
static bool take(struct reader *r, char c)
{
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return true;
    }
    return false;
}

/* At an opening bracket: moves past it; true when `close` follows at once (empty). */
static bool opens_empty(struct reader *r, char close)
{
    assert(r->p < r->end && (*r->p == '{' || *r->p == '[')); /* "At an opening bracket" */
    r->p++;
    skip_space(r);
    return take(r, close);
}

/* After a member or an item: a comma (more follow) or the closing bracket. */
enum next { NEXT_MORE, NEXT_CLOSED, NEXT_BAD };

static enum next after_item(struct reader *r, char close)
{
    skip_space(r);
    if (take(r, ',')) {
        skip_space(r);
        return NEXT_MORE;
    }
    return take(r, close) ? NEXT_CLOSED : NEXT_BAD;
}

static json_t *object(struct reader *r)
{
    json_t *obj = json_object();
    if (obj == NULL || opens_empty(r, '}'))
        return obj;
    size_t members = 0; /* json_object_size(obj), as each member is set */
    for (;;) {
        const char *key;
        size_t key_len;
        if (r->p >= r->end || *r->p != '"' || !plain_string(r, &key, &key_len))
            break;
        skip_space(r);
        if (!take(r, ':'))
            break;
        skip_space(r);
        json_t *v = value(r);
        if (v == NULL)
            break;
        /* A duplicate replaces the first value and leaves the size as it was: declined, so
         * jansson reports it. The size before is counted here (a call to jansson fewer a
         * member). */
        if (json_object_setn_new_nocheck(obj, key, key_len, v) != 0 ||
            json_object_size(obj) != ++members)
            break;
        enum next n = after_item(r, '}');
        if (n == NEXT_CLOSED)
            return obj;
        if (n == NEXT_BAD)
            break;
    }
    json_decref(obj);
    return NULL;
}

static json_t *array(struct reader *r)
{
    json_t *arr = json_array();
    if (arr == NULL || opens_empty(r, ']'))
        return arr;
    for (;;) {
        json_t *v = value(r);
        if (v == NULL || json_array_append_new(arr, v) != 0)
            break;
        enum next n = after_item(r, ']');
        if (n == NEXT_CLOSED)
            return arr;
        if (n == NEXT_BAD)
            break;
    }
    json_decref(arr);
    return NULL;
}

static json_t *container(struct reader *r)
{
    assert(r->p < r->end && (*r->p == '{' || *r->p == '['));
    if (++r->depth > JSONR_MAX_DEPTH)
        return NULL;
    json_t *v = *r->p == '{' ? object(r) : array(r);
    r->depth--;
    return v;
}

static json_t *value(struct reader *r)
{
    if (r->p >= r->end)
        return NULL;
    switch (*r->p) {
    case '{':
    case '[':
        return container(r);
    case '"': {
        const char *s;
        size_t n;
        return plain_string(r, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
    }
    case 't':
        return literal(r, "true", 4, json_true());
    case 'f':
        return literal(r, "false", 5, json_false());
    case 'n':
        return literal(r, "null", 4, json_null());
    default:
        return integer(r);
    }
}

json_t *jsonr_parse(const char *text, size_t len)
{
    struct reader r = {text, text + len, 0};
    skip_space(&r);
    if (r.p >= r.end || (*r.p != '{' && *r.p != '['))
        return NULL;
    json_t *v = container(&r);
    skip_space(&r);
    if (v != NULL && r.p != r.end) {
        json_decref(v);
        return NULL;
    }
    return v;
}

json_t *jsonr_load(const char *text, size_t len)
{
    json_t *v = jsonr_parse(text, len);
    return v != NULL ? v : json_loadb(text, len, 0, NULL);
}

/* Past one value without building it: a string (escapes included), a container (counting
 * brackets outside strings) or a scalar (up to the next separator). False at the end of the
 * text or at anything a value cannot start with. */
static bool skip_value(struct reader *r)
{
    int depth = 0;
    do {
        if (r->p >= r->end)
            return false;
        char c = *r->p;
        if (c == '"') {
            for (r->p++; r->p < r->end && *r->p != '"'; r->p++)
                if (*r->p == '\\' && ++r->p == r->end)
                    return false;
            if (r->p >= r->end)
                return false;
            r->p++;
        } else if (c == '{' || c == '[') {
            depth++;
            r->p++;
        } else if (c == '}' || c == ']') {
            if (--depth < 0)
                return false;
            r->p++;
        } else if (depth > 0) {
            r->p++; /* a separator, a space or a scalar's character inside the container */
        } else {
            const char *start = r->p;
            while (r->p < r->end && *r->p != ',' && *r->p != '}' && *r->p != ']' && *r->p != ' ' &&
                   *r->p != '\n' && *r->p != '\r' && *r->p != '\t')
                r->p++;
            if (r->p == start)
                return false;
        }
    } while (depth > 0);
    return true;
}

/* The member's value by the fast path; false (the caller falls back) on anything it declines,
 * a key with escapes or a second member of the same name included. *out stays NULL when the
 * object has no such member. */
static bool member_fast(struct reader *r, const char *key, json_t **out)
{
    assert(*out == NULL); /* set at most once, by this function */
    size_t want = strlen(key);
    skip_space(r);
    if (r->p >= r->end || *r->p != '{')
        return false;
    if (opens_empty(r, '}'))
        return true;
    for (;;) {
        const char *k;
        size_t n;
        if (r->p >= r->end || *r->p != '"' || !plain_string(r, &k, &n))
            return false;
        skip_space(r);
        if (!take(r, ':'))
            return false;
        skip_space(r);
        if (n == want && memcmp(k, key, n) == 0) {
            if (*out != NULL)
                return false;
            r->depth = 0;
            if ((*out = value(r)) == NULL)
                return false;
        } else if (!skip_value(r)) {
            return false;
        }
        enum next next = after_item(r, '}');
        if (next == NEXT_CLOSED)
            return true;
        if (next == NEXT_BAD)
            return false;
    }
}

json_t *jsonr_load_member(const char *text, size_t len, const char *key)
{
    struct reader r = {text, text + len, 0};
    json_t *v = NULL;
    if (member_fast(&r, key, &v)) {
        skip_space(&r);
        if (r.p == r.end)
            return v;
    }
    json_decref(v);
    json_t *whole = jsonr_load(text, len);
    v = json_incref(json_object_get(whole, key));
    json_decref(whole);
    return v;
}

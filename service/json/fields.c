#include "service/json/fields.h"

#include "service/json/errors.h"
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- recording the bounds decoders enforce (codec.h) --- */

static int record_fd = -1; /* set once at start-up, before any request */
static pthread_mutex_t record_lock = PTHREAD_MUTEX_INITIALIZER;
#define RECORD_SEEN 16384
static uint64_t record_seen[RECORD_SEEN]; /* hashes of the lines written (0: empty slot) */
static _Thread_local struct {
    const char *method, *pattern;
    json_t *root;
    bool within;
} rec;

bool codec_record_bounds(const char *path)
{
    record_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    return record_fd >= 0;
}

static void index_reset(void);

void codec_request_begin(const char *method, const char *pattern)
{
    index_reset(); /* a request never reads through a table an earlier one left open */
    rec.method = method, rec.pattern = pattern, rec.root = NULL, rec.within = false;
}

void codec_request_body(json_t *root)
{
    if (record_fd < 0 || rec.pattern == NULL || rec.root != NULL)
        return;
    rec.root = json_incref(root);
}

void codec_request_end(void)
{
    json_decref(rec.root);
    rec.method = rec.pattern = NULL, rec.root = NULL;
}

void codec_within_begin(void)
{
    assert(!rec.within); /* a within block does not nest */
    rec.within = true;
}

bool codec_within_end(bool result)
{
    rec.within = false;
    return result;
}

/* The value at JSON pointer `base` in the request's body, or NULL. */
static json_t *at_pointer(json_t *v, const char *base)
{
    while (v != NULL && *base == '/') {
        char key[CODEC_PTR_MAX];
        size_t n = 0;
        for (base++; *base != '\0' && *base != '/' && n + 1 < sizeof key; base++) {
            if (base[0] == '~' && (base[1] == '0' || base[1] == '1'))
                key[n++] = base[1] == '0' ? '~' : '/', base++;
            else
                key[n++] = *base;
        }
        key[n] = '\0';
        if (json_is_object(v)) {
            v = json_object_get(v, key);
        } else if (json_is_array(v)) {
            char *end;
            unsigned long i = strtoul(key, &end, 10);
            v = *end == '\0' && n > 0 ? json_array_get(v, i) : NULL;
        } else {
            v = NULL;
        }
    }
    return *base == '\0' ? v : NULL;
}

/* Records one bound of base/key, read from obj (NULL: a query parameter): record's work. */
static void record_bound(json_t *obj, const char *base, const char *key, const char *kind,
                         long long lo, long long hi)
{
    if (rec.pattern == NULL)
        return;
    if (obj != NULL && (rec.root == NULL || at_pointer(rec.root, base) != obj))
        return; /* not the request's own body */
    char ptr[CODEC_PTR_MAX], line[CODEC_PTR_MAX + 160];
    if (obj != NULL)
        codec_pointer(ptr, base, key);
    else
        snprintf(ptr, sizeof ptr, "?%s", key);
    /* Every item of an array is bounded alike: an index (any all-digit segment) is written as
     * 0, so that a map of 100,000 rectangles records each bound once. */
    size_t n = 0;
    for (const char *p = ptr; *p != '\0'; p++) {
        line[n++] = *p;
        if (*p == '/' && p[1] >= '0' && p[1] <= '9') {
            const char *q = p + 1;
            while (*q >= '0' && *q <= '9')
                q++;
            if (*q == '/' || *q == '\0') {
                line[n++] = '0';
                p = q - 1;
            }
        }
    }
    int len = snprintf(line + n, sizeof line - n, "\t%s%s\t%lld\t%lld\n", kind,
                       rec.within ? "~" : "", lo, hi);
    if (len <= 0 || (size_t)len >= sizeof line - n)
        return;
    len += (int)n;
    uint64_t h = 1469598103934665603ull; /* FNV-1a, of the route and the line */
    for (const char *p = rec.pattern; *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h = (h ^ (unsigned char)rec.method[0]) * 1099511628211ull;
    for (int i = 0; i < len; i++)
        h = (h ^ (unsigned char)line[i]) * 1099511628211ull;
    h |= 1;
    pthread_mutex_lock(&record_lock);
    size_t slot = (size_t)(h % RECORD_SEEN);
    bool write_it = true;
    for (size_t probe = 0; probe < 64; probe++, slot = (slot + 1) % RECORD_SEEN) {
        if (record_seen[slot] == h) {
            write_it = false;
            break;
        }
        if (record_seen[slot] == 0) {
            record_seen[slot] = h;
            break;
        }
    }
    if (write_it) {
        char head[CODEC_PTR_MAX];
        int hl = snprintf(head, sizeof head, "%s %s\t", rec.method, rec.pattern);
        char out[2 * CODEC_PTR_MAX + 160];
        if (hl > 0 && (size_t)hl < sizeof head && (size_t)(hl + len) <= sizeof out) {
            memcpy(out, head, (size_t)hl);
            memcpy(out + hl, line, (size_t)len);
            /* One write per line (O_APPEND): lines from several servers never interleave. A
             * lost line shows in the contract test as a bound missing, never a wrong one. */
            ssize_t wrote = write(record_fd, out, (size_t)(hl + len));
            (void)wrote;
        }
    }
    pthread_mutex_unlock(&record_lock);
}

/* record_bound when recording: inline, so that a getter pays a test when not (nearly always). */
static inline void record(json_t *obj, const char *base, const char *key, const char *kind,
                          long long lo, long long hi)
{
    if (record_fd >= 0)
        record_bound(obj, base, key, kind, lo, hi);
}

void codec_record_query(const char *name, long long lo, long long hi)
{
    record(NULL, "", name, "int", lo, hi);
}

#include "text/text.h"

bool svc_decode_body(json_t *body, const char *const *known, struct svc_errors *e)
{
    svc_errors_init(e);
    if (!codec_expect_object(body, "", e))
        return false;
    codec_reject_unknown(body, "", known, e);
    return true;
}

void codec_pointer(char *out, const char *base, const char *key)
{
    assert(out != NULL && base != NULL && key != NULL);
    size_t base_len = strlen(base), key_len = strlen(key), n = 0;
    if (base_len + 1 + 2 * key_len < CODEC_PTR_MAX) { /* room for all of it, escaped or not */
        memcpy(out, base, base_len);
        n = base_len;
        out[n++] = '/';
        for (size_t i = 0; i < key_len; i++) {
            if (key[i] == '~' || key[i] == '/') {
                out[n++] = '~';
                out[n++] = key[i] == '~' ? '0' : '1';
            } else {
                out[n++] = key[i];
            }
        }
        out[n] = '\0';
        return;
    }
    for (const char *b = base; *b != '\0' && n + 2 < CODEC_PTR_MAX; b++)
        out[n++] = *b;
    out[n++] = '/';
    /* A key too long for the pointer is cut where a character of it ends (text.h), so that the
     * pointer stays UTF-8: a member name may be in any script. */
    size_t room = CODEC_PTR_MAX - 1 - n, bytes = 0, escaped = 0;
    for (; key[bytes] != '\0'; bytes++) {
        size_t w = key[bytes] == '~' || key[bytes] == '/' ? 2 : 1;
        if (escaped + w > room)
            break;
        escaped += w;
    }
    size_t keep = text_prefix(key, strlen(key), SIZE_MAX, bytes);
    for (size_t i = 0; i < keep; i++) {
        if (key[i] == '~') {
            out[n++] = '~', out[n++] = '0';
        } else if (key[i] == '/') {
            out[n++] = '~', out[n++] = '1';
        } else {
            out[n++] = key[i];
        }
    }
    assert(n < CODEC_PTR_MAX);
    out[n] = '\0';
}

static const char *type_name(json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number with a fraction";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "unknown";
}

bool codec_expect_object(json_t *v, const char *base, struct svc_errors *e)
{
    if (json_is_object(v))
        return true;
    svc_errors_add(e, base, "must be an object, not %s", type_name(v));
    return false;
}

/* The objects indexed on this thread (codec_index_begin), innermost last. obj NULL: a level
 * that was not indexed (read from jansson's table). */
static _Thread_local struct {
    json_t *obj;
    uint64_t names; /* a bit for each name's first two bytes (name_bit): most asks miss */
    int n;
    const char *keys[CODEC_INDEX_MEMBERS];
    size_t lens[CODEC_INDEX_MEMBERS];
    json_t *values[CODEC_INDEX_MEMBERS];
} index_of[CODEC_INDEX_DEPTH];
static _Thread_local int index_depth; /* levels begun, indexed or not */

static void index_reset(void)
{
    for (int d = 0; d < CODEC_INDEX_DEPTH; d++)
        index_of[d].obj = NULL;
    index_depth = 0;
}

/* A bit for a name's first two bytes as a C string reads them (a name holding a NUL is told
 * apart by its length, where a name matches). */
static unsigned name_bit_at(const char *key) /* name_bit's place, 0..63 */
{
    unsigned c0 = (unsigned char)key[0], c1 = c0 != 0 ? (unsigned char)key[1] : 0;
    return (c0 * 7 + c1) & 63;
}

static uint64_t name_bit(const char *key)
{
    return 1ull << name_bit_at(key);
}

void codec_index_begin(json_t *obj)
{
    int d = index_depth++;
    if (d >= CODEC_INDEX_DEPTH)
        return;
    index_of[d].obj = NULL;
    if (!json_is_object(obj) || json_object_size(obj) > CODEC_INDEX_MEMBERS)
        return;
    int n = 0;
    uint64_t names = 0;
    for (void *it = json_object_iter(obj); it != NULL; it = json_object_iter_next(obj, it), n++) {
        index_of[d].keys[n] = json_object_iter_key(it);
        index_of[d].lens[n] = json_object_iter_key_len(it); /* a name may hold a NUL */
        index_of[d].values[n] = json_object_iter_value(it);
        names |= name_bit(index_of[d].keys[n]);
    }
    index_of[d].n = n;
    index_of[d].names = names;
    index_of[d].obj = obj;
}

void codec_index_end(void)
{
    assert(index_depth > 0); /* begins and ends pair up */
    if (--index_depth < CODEC_INDEX_DEPTH)
        index_of[index_depth].obj = NULL;
}

json_t *codec_member(json_t *obj, const char *key)
{
    int top = index_depth < CODEC_INDEX_DEPTH ? index_depth : CODEC_INDEX_DEPTH;
    for (int d = top - 1; d >= 0; d--) {
        if (index_of[d].obj != obj || obj == NULL)
            continue;
        if ((index_of[d].names & name_bit(key)) == 0)
            return NULL;
        /* By length first: most of obj's other names differ in it (the bytes compared are the
         * name's, with no NUL among them, so that a name holding one never matches). */
        size_t len = strlen(key);
        for (int i = 0; i < index_of[d].n; i++)
            if (index_of[d].lens[i] == len && memcmp(index_of[d].keys[i], key, len) == 0)
                return index_of[d].values[i];
        return NULL;
    }
    return json_object_get(obj, key);
}

/* An error for key unless it is in known. */
static void check_known(const char *key, const char *base, const char *const *known,
                        struct svc_errors *e)
{
    bool found = false;
    for (const char *const *k = known; *k != NULL && !found; k++)
        found = **k == *key && strcmp(*k, key) == 0;
    if (!found) {
        char ptr[CODEC_PTR_MAX];
        codec_pointer(ptr, base, key);
        svc_errors_add(e, ptr, "is not a known field");
    }
}

void codec_reject_unknown(json_t *obj, const char *base, const char *const *known,
                          struct svc_errors *e)
{
    assert(known != NULL);
    for (int d = (index_depth < CODEC_INDEX_DEPTH ? index_depth : CODEC_INDEX_DEPTH) - 1; d >= 0;
         d--) {
        if (index_of[d].obj == obj && obj != NULL) {
            /* Indexed: its names in the same order, without walking jansson's table again. */
            for (int i = 0; i < index_of[d].n; i++)
                check_known(index_of[d].keys[i], base, known, e);
            return;
        }
    }
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value)
    {
        (void)value;
        check_known(key, base, known, e);
    }
}

/* The room for one more name at out[nk]: none is a decoder's bug (a name list longer than its
 * out array), which aborts in every build rather than write past out. */
static void members_room(size_t nk, size_t cap)
{
    if (nk >= cap || nk >= CODEC_MEMBERS_MAX)
        abort();
}

/* A name list's members found by name: the lists' names in order (names[j] is out[j]'s), each
 * name's length, and the names under each name bit (order[at[b] .. at[b + 1]), places in names).
 * Made once for a set of lists and kept per thread, so a call matches its object's few members
 * against the names under their bits instead of visiting every known name (a creature's
 * decoder knows about 20, its request gives 4 or 5). */
#define MEMBERS_LISTS 4
struct members_table {
    size_t nlists;                            /* how many lists it was made from */
    const char *names[CODEC_MEMBERS_MAX + 1]; /* NULL-terminated, as codec_reject_unknown reads */
    size_t lens[CODEC_MEMBERS_MAX];
    uint8_t order[CODEC_MEMBERS_MAX];
    uint8_t at[65];
    size_t nk;
    uint8_t list_len[MEMBERS_LISTS]; /* the first lists' lengths (a creature's decoder gives 3) */
};
#define MEMBERS_TABLE_BITS 6 /* 64 tables, 2 a hash */
#define MEMBERS_TABLES     (1 << MEMBERS_TABLE_BITS)
static _Thread_local struct members_table members_tables[MEMBERS_TABLES];

/* A table is the lists' when it was made from the same name pointers in the same order: list
 * arrays are the decoders' static tables, but a caller's array of them may be on its stack and
 * a list could in principle change, so each list's name pointers are compared (about 4
 * instructions a name, against the 30 a name of matching every known name in every call). The
 * names' text is not: it must not change (fields.h). */
static bool members_table_is(const struct members_table *t, const char *const *const *lists,
                             size_t nlists)
{
    if (t->nlists != nlists || nlists == 0)
        return false;
    const char *const *name = t->names; /* NULL after the last: no list's name is */
    for (size_t l = 0; l < nlists; l++) {
        const char *const *k = lists[l];
        if (l >= MEMBERS_LISTS) {
            for (; k != NULL && *k != NULL; k++, name++)
                if (*name != *k)
                    return false;
            continue;
        }
        /* Its length known, its names are compared without a test for its end at each: k[i] is
         * read only after k[0 .. i) proved to be names, none of them its NULL. */
        size_t len = t->list_len[l];
        if (k == NULL) {
            if (len != 0)
                return false;
            continue;
        }
        for (size_t i = 0; i < len; i++)
            if (k[i] != name[i])
                return false;
        if (k[len] != NULL)
            return false;
        name += len;
    }
    return *name == NULL;
}

static void members_table_make(struct members_table *t, const char *const *const *lists,
                               size_t nlists, size_t out_cap)
{
    size_t nk = 0, count[64] = {0};
    for (size_t l = 0; l < nlists; l++) {
        size_t first = nk;
        for (const char *const *k = lists[l]; k != NULL && *k != NULL; k++) {
            members_room(nk, out_cap);
            t->names[nk] = *k;
            t->lens[nk] = strlen(*k);
            count[name_bit_at(*k)]++;
            nk++;
        }
        if (l < MEMBERS_LISTS)
            t->list_len[l] = (uint8_t)(nk - first); /* at most CODEC_MEMBERS_MAX */
    }
    t->names[nk] = NULL;
    t->nk = nk;
    t->nlists = nlists;
    size_t start = 0;
    for (unsigned b = 0; b < 64; b++) {
        t->at[b] = (uint8_t)start;
        start += count[b];
    }
    t->at[64] = (uint8_t)start;
    uint8_t fill[64];
    memcpy(fill, t->at, sizeof fill);
    for (size_t j = 0; j < nk; j++)
        t->order[fill[name_bit_at(t->names[j])]++] = (uint8_t)j;
}

static const struct members_table *members_table_of(const char *const *const *lists, size_t nlists,
                                                    size_t out_cap)
{
    uint64_t h = (uintptr_t)(nlists > 0 ? lists[0] : NULL);
    for (size_t l = 1; l < nlists; l++)
        h = h * 31 + (uintptr_t)lists[l];
    h *= UINT64_C(0x9E3779B97F4A7C15); /* Fibonacci hashing: the top bits mix every pointer bit */
    /* Two tables a hash (the newer first), so that two list sets used in turn whose hashes meet
     * keep both their tables instead of making them again at every call. */
    struct members_table *t = &members_tables[2 * ((uint64_t)h >> (64 - MEMBERS_TABLE_BITS + 1))];
    if (!members_table_is(t, lists, nlists)) {
        if (members_table_is(t + 1, lists, nlists)) {
            t++;
        } else {
            t[1] = t[0];
            members_table_make(t, lists, nlists, out_cap);
        }
    }
    if (t->nk > out_cap) /* made for a caller with more room */
        abort();
    return t;
}

size_t codec_members_in(json_t *obj, const char *base, const char *const *const *lists,
                        size_t nlists, json_t **out, size_t out_cap, struct svc_errors *e)
{
    const struct members_table *t = members_table_of(lists, nlists, out_cap);
    memset(out, 0, t->nk * sizeof *out);
    if (!json_is_object(obj))
        return t->nk;
    /* Each member, in obj's order, against the known names with its bit (a name may be listed
     * twice: every place gets it). A member whose name as a C string is known is not unknown, as
     * codec_reject_unknown has it (it reads names as C strings), but it is that name's value
     * only when it holds no NUL. */
    for (void *it = json_object_iter(obj); it != NULL; it = json_object_iter_next(obj, it)) {
        const char *key = json_object_iter_key(it);
        size_t len = json_object_iter_key_len(it);
        unsigned b = name_bit_at(key);
        bool known = false;
        for (unsigned m = t->at[b]; m < t->at[b + 1]; m++) {
            unsigned j = t->order[m];
            if (t->names[j][0] != key[0] || strcmp(t->names[j], key) != 0)
                continue;
            known = true;
            if (len == t->lens[j])
                out[j] = json_object_iter_value(it);
        }
        if (!known) {
            char ptr[CODEC_PTR_MAX];
            codec_pointer(ptr, base, key);
            svc_errors_add(e, ptr, "is not a known field");
        }
    }
    return t->nk;
}

void codec_members(json_t *obj, const char *base, const char *const *known, json_t **out,
                   size_t out_cap, struct svc_errors *e)
{
    assert(known != NULL);
    codec_members_in(obj, base, &known, 1, out, out_cap, e);
}

/* The getters' errors, apart from their checks (never inlined, laid out as cold code), so that a
 * field read without an error is a few tests: with a buffer for the message in each getter, its
 * frame and its stack guard cost more than the checks (36 integers and 21 booleans an attack). */
#define COLD __attribute__((cold, noinline))

/* Adds an error about base/key with a message formatted by the caller (error path only). */
COLD static void field_error(const char *base, const char *key, struct svc_errors *e,
                             const char *msg)
{
    char ptr[CODEC_PTR_MAX];
    codec_pointer(ptr, base, key);
    svc_errors_add(e, ptr, "%s", msg);
}

/* field_error with the message formatted here, cut to 160 bytes as the getters always cut it. */
COLD static bool field_errorf(const char *base, const char *key, struct svc_errors *e,
                              const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool field_errorf(const char *base, const char *key, struct svc_errors *e, const char *fmt,
                         ...)
{
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    field_error(base, key, e, msg);
    return false;
}

/* An absent member (v NULL): an error when it is required. False, as the getters answer. */
static inline bool field_absent(const char *base, const char *key, bool required,
                                struct svc_errors *e)
{
    if (required)
        field_error(base, key, e, "is required");
    return false;
}

bool codec_string_of(json_t *obj, json_t *v, const char *base, const char *key, bool required,
                     size_t max_len, const char **out, struct svc_errors *e)
{
    assert(out != NULL);
    record(obj, base, key, "length", 0, (long long)max_len);
    if (v == NULL)
        return field_absent(base, key, required, e);
    if (!json_is_string(v))
        return field_errorf(base, key, e, "must be a string, not %s", type_name(v));
    /* Counted as the contract's maxLength counts (JSON Schema: code points), not in bytes, so
     * that a name in Cyrillic or CJK has the room one in ASCII has; jansson's strings are
     * well-formed UTF-8, so a code point is a byte that does not continue one. */
    const char *text = json_string_value(v);
    size_t len = json_string_length(v), points = 0;
    if (len > max_len) /* each code point is a byte or more: no more bytes, no more points */
        for (size_t i = 0; i < len; i++)
            points += ((unsigned char)text[i] & 0xc0) != 0x80;
    if (points > max_len)
        return field_errorf(base, key, e, "must be at most %zu characters long", max_len);
    if (strlen(text) != len) {
        field_error(base, key, e, "must not contain NUL characters");
        return false;
    }
    *out = json_string_value(v);
    return true;
}

bool codec_get_string(json_t *obj, const char *base, const char *key, bool required, size_t max_len,
                      const char **out, struct svc_errors *e)
{
    return codec_string_of(obj, codec_member(obj, key), base, key, required, max_len, out, e);
}

/* codec_int_of but for an optional member absent: the recording and the checks. */
__attribute__((noinline)) static bool int_of(json_t *obj, json_t *v, const char *base,
                                             const char *key, bool required, long long lo,
                                             long long hi, long long *out, struct svc_errors *e)
{
    record(obj, base, key, "int", lo, hi);
    if (v == NULL)
        return field_absent(base, key, required, e);
    if (!json_is_integer(v))
        return field_errorf(base, key, e, "must be an integer, not %s", type_name(v));
    long long n = json_integer_value(v);
    if (n < lo || n > hi)
        return field_errorf(base, key, e, "must be from %lld to %lld", lo, hi);
    *out = n;
    return true;
}

bool codec_int_of(json_t *obj, json_t *v, const char *base, const char *key, bool required,
                  long long lo, long long hi, long long *out, struct svc_errors *e)
{
    assert(lo <= hi && out != NULL);
    /* Many of a decoder's integers are optional and absent (the bench's attack asks for 36 and
     * gives 18): told so without the frame int_of sets up around its calls, six registers saved. */
    if (v == NULL && !required && record_fd < 0)
        return false;
    return int_of(obj, v, base, key, required, lo, hi, out, e);
}

bool codec_get_int(json_t *obj, const char *base, const char *key, bool required, long long lo,
                   long long hi, long long *out, struct svc_errors *e)
{
    return codec_int_of(obj, codec_member(obj, key), base, key, required, lo, hi, out, e);
}

bool codec_bool_of(json_t *v, const char *base, const char *key, bool required, bool *out,
                   struct svc_errors *e)
{
    if (v == NULL)
        return field_absent(base, key, required, e);
    if (!json_is_boolean(v))
        return field_errorf(base, key, e, "must be a boolean, not %s", type_name(v));
    *out = json_is_true(v);
    return true;
}

bool codec_get_bool(json_t *obj, const char *base, const char *key, bool required, bool *out,
                    struct svc_errors *e)
{
    return codec_bool_of(codec_member(obj, key), base, key, required, out, e);
}

bool codec_array_of(json_t *obj, json_t *v, const char *base, const char *key, bool required,
                    size_t max_items, json_t **out, struct svc_errors *e)
{
    record(obj, base, key, "items", 0, (long long)max_items);
    if (v == NULL)
        return field_absent(base, key, required, e);
    if (!json_is_array(v))
        return field_errorf(base, key, e, "must be an array, not %s", type_name(v));
    if (json_array_size(v) > max_items)
        return field_errorf(base, key, e, "must have at most %zu items", max_items);
    *out = v;
    return true;
}

bool codec_get_array(json_t *obj, const char *base, const char *key, bool required,
                     size_t max_items, json_t **out, struct svc_errors *e)
{
    return codec_array_of(obj, codec_member(obj, key), base, key, required, max_items, out, e);
}

/* codec_enum_of's error: the names it takes. */
COLD static void enum_error(const char *base, const char *key, const char *const *names,
                            struct svc_errors *e)
{
    char list[320] = "";
    size_t n = 0;
    for (int i = 0; names[i] != NULL && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", names[i]);
    char msg[400];
    snprintf(msg, sizeof msg, "must be one of %s", list);
    field_error(base, key, e, msg);
}

int codec_enum_of(json_t *obj, json_t *v, const char *base, const char *key,
                  const char *const *names, bool required, int fallback, struct svc_errors *e)
{
    const char *s = NULL;
    assert(names != NULL && names[0] != NULL);
    if (!codec_string_of(obj, v, base, key, required, 64, &s, e))
        return fallback;
    for (int i = 0; names[i] != NULL; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    enum_error(base, key, names, e);
    return fallback;
}

int codec_get_enum(json_t *obj, const char *base, const char *key, const char *const *names,
                   bool required, int fallback, struct svc_errors *e)
{
    return codec_enum_of(obj, codec_member(obj, key), base, key, names, required, fallback, e);
}

bool codec_parse_whole(const char *text, long long lo, long long hi, long long *out)
{
    assert(lo <= hi && out != NULL);
    if (text == NULL || (*text == '-' && lo >= 0))
        return false;
    const char *d = text + (*text == '-');
    size_t n = strspn(d, "0123456789");
    if (n == 0 || n > 18 || d[n] != '\0')
        return false;
    long long v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (d[i] - '0');
    if (*text == '-')
        v = -v;
    if (v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

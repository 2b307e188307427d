#include "service/json/writer.h"

#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "service/json/reader.h"
#include "service/json/scan16.h"

void jw_init(struct jw *w, size_t initial)
{
    /* Not the whole struct: the tree mode's ~300 bytes are not read in text mode, and first[d]
     * is set when depth d opens. */
    w->len = 0, w->depth = 0, w->after_key = false, w->tree = false, w->tee = false;
    w->values = false;
    w->root = NULL, w->key = NULL;
    w->cap = initial < 64 ? 64 : initial;
    w->buf = malloc(w->cap);
    w->failed = w->buf == NULL;
    if (w->failed)
        w->cap = 0; /* every put takes the slow path, which stops at `failed` */
    w->first[0] = true;
}

void jw_init_tree(struct jw *w)
{
    memset(w, 0, sizeof *w);
    w->tree = true, w->values = true;
}

/* A name's bit in keep_sig: most names not kept miss every kept name's bit, and are told so
 * without comparing any. */
static unsigned keep_bit(const char *k, size_t n)
{
    return ((unsigned char)k[0] * 31u + (unsigned)n) & 63u;
}

void jw_init_tee(struct jw *w, size_t initial, const char *const *keep)
{
    jw_init(w, initial);
    w->tee = true, w->values = true, w->tee_in = false, w->keep = keep, w->keep_sig = 0;
    for (const char *const *p = keep; *p != NULL; p++)
        if (**p != '\0')
            w->keep_sig |= UINT64_C(1) << keep_bit(*p, strlen(*p));
}

/* Whether s[0..n) is all ASCII, and so UTF-8 already: jansson's own check of each name and
 * text was a fifth of building an attack's answer as a value. */
static bool ascii(const char *s, size_t n)
{
    uint64_t high = 0;
    size_t i = 0;
    for (uint64_t x; i + 8 <= n; i += 8) {
        memcpy(&x, s + i, 8);
        high |= x;
    }
    for (; i < n; i++)
        high |= (unsigned char)s[i];
    return (high & 0x8080808080808080u) == 0;
}

/* Tree mode: v (taken) as the next value, the root's or the open container's. */
static void tree_add(struct jw *w, json_t *v)
{
    assert(w->tree || w->tee);
    if (v == NULL || w->failed) {
        w->failed = true;
        json_decref(v);
        return;
    }
    json_t *in = w->depth > 0 ? w->open[w->depth] : NULL;
    int rc = 0;
    if (in == NULL) {
        assert(w->root == NULL); /* one value at the top */
        w->root = v;
    } else if (json_is_object(in)) {
        assert(w->key != NULL); /* a member's value follows its key */
        rc = w->key_ascii || ascii(w->key, w->key_len)
                 ? json_object_setn_new_nocheck(in, w->key, w->key_len, v)
                 : json_object_setn_new(in, w->key, w->key_len, v);
    } else {
        rc = json_array_append_new(in, v);
    }
    w->key = NULL;
    w->failed = rc != 0;
}

/* Makes room for n more bytes and the final NUL; false after any failure. After a failure the
 * old buffer stays (and may take a few more bytes on put's fast path); jw_finish frees it and
 * answers NULL. */
static bool reserve_slow(struct jw *w, size_t n)
{
    if (w->failed)
        return false;
    assert(w->cap >= 64); /* jw_init's floor: doubling from 0 would never end */
    size_t cap = w->cap;
    while (w->len + n + 1 > cap)
        cap *= 2;
    char *b = realloc(w->buf, cap);
    if (b == NULL) {
        w->failed = true;
        return false;
    }
    w->buf = b;
    w->cap = cap;
    return true;
}

static inline bool reserve(struct jw *w, size_t n)
{
    return w->len + n + 1 <= w->cap || reserve_slow(w, n);
}

static inline void put(struct jw *w, const char *s, size_t n)
{
    assert(s != NULL || n == 0);
    if (!reserve(w, n))
        return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

/* Before a value or a key: a comma unless it is the first at this depth. A value after a key
 * takes no comma (the key already placed it). */
static void before_value(struct jw *w)
{
    assert(w->depth >= 0 && w->depth < JW_MAX_DEPTH);
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (!w->first[w->depth])
        put(w, ",", 1);
    w->first[w->depth] = false;
}

static void open_text(struct jw *w, char c)
{
    before_value(w);
    put(w, &c, 1);
    if (w->depth + 1 >= JW_MAX_DEPTH) {
        w->failed = true;
        return;
    }
    w->depth++;
    w->first[w->depth] = true;
}

static void open(struct jw *w, char c)
{
    if (!w->values) { /* text mode: as it was before the other modes */
        open_text(w, c);
        return;
    }
    bool value = jw_is_tree(w);
    json_t *v = NULL;
    if (value) {
        v = c == '{' ? json_object() : json_array();
        tree_add(w, v); /* held by its container (or as the root): open[] borrows it */
    }
    if (!w->tree) {
        before_value(w);
        put(w, &c, 1);
    }
    if ((value && w->failed) || w->depth + 1 >= JW_MAX_DEPTH) {
        w->failed = true;
        return;
    }
    w->depth++;
    if (!w->tree)
        w->first[w->depth] = true;
    if (value)
        w->open[w->depth] = v;
    if (w->tee && w->depth == 2)
        w->tee_in = value; /* a kept member's container */
}

static void close_(struct jw *w, char c)
{
    if (!w->values) {
        put(w, &c, 1);
        assert(w->depth > 0 || w->failed);
        if (w->depth > 0)
            w->depth--;
        return;
    }
    if (!w->tree)
        put(w, &c, 1);
    assert(w->depth > 0 || w->failed); /* opens and closes pair up; a failed open does not count */
    if (w->depth > 0)
        w->depth--;
    if (w->depth <= 1)
        w->tee_in = false;
}

void jw__open(struct jw *w, char c)
{
    open(w, c);
}
void jw__close(struct jw *w, char c)
{
    close_(w, c);
}

/* True when none of the 8 bytes in x needs an escape: no quote, no backslash, no control
 * character (the bit tricks of "Bit Twiddling Hacks": determine if a word has a zero byte, or
 * a byte less than n). Bytes from 0x80 up pass, as UTF-8 should. */
static bool plain8(uint64_t x)
{
#if JSON_SCAN16
    return json_plain8(x);
#else
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
    uint64_t control = (x - ones * 0x20) & ~x & highs;
    return (control | ((quote - ones) & ~quote & highs) |
            ((backslash - ones) & ~backslash & highs)) == 0;
#endif
}

/* Bytes JSON strings must escape: control characters, the quote and the backslash. */
#define ESC4(c) [c] = 1, [c + 1] = 1, [c + 2] = 1, [c + 3] = 1
static const unsigned char escape_table[256] = {
    ESC4(0x00), ESC4(0x04), ESC4(0x08), ESC4(0x0c), ESC4(0x10),
    ESC4(0x14), ESC4(0x18), ESC4(0x1c), ['"'] = 1,  ['\\'] = 1};
#undef ESC4

static bool needs_escape(unsigned char c)
{
    return escape_table[c] != 0;
}

/* Copies s[0..n) to o while no byte needs an escape, 8 bytes at a time; returns how many it
 * copied (n when none needed one). o has room for n bytes. */
static inline size_t copy_plain(char *o, const char *s, size_t n)
{
    size_t i = 0;
#if JSON_SCAN16
    for (; i + 16 <= n && json_escape_stops16(s + i) == 0; i += 16) /* 16 at a time (scan16.h) */
        memcpy(o + i, s + i, 16);
    if (i < n && n - i < 16 && n >= 16 && json_escape_stops16(s + n - 16) == 0) {
        memcpy(o + n - 16, s + n - 16, 16); /* the last 16, overlapping what is written */
        return n;
    }
#endif
    for (uint64_t x; i + 8 <= n && (memcpy(&x, s + i, 8), plain8(x)); i += 8)
        memcpy(o + i, &x, 8);
    uint64_t last;
    if (i < n && n - i < 8 && n >= 8 && (memcpy(&last, s + n - 8, 8), plain8(last))) {
        memcpy(o + n - 8, &last, 8); /* the last word, overlapping what is written */
        return n;
    }
    if (n >= 4 && n < 8) { /* a short name ("quarter", "rear"): its first and last 4 bytes */
        uint32_t head, tail;
        memcpy(&head, s, 4);
        memcpy(&tail, s + n - 4, 4);
        if (plain8(head | (uint64_t)tail << 32)) {
            memcpy(o, &head, 4);
            memcpy(o + n - 4, &tail, 4);
            return n;
        }
    }
    for (; i < n && !needs_escape((unsigned char)s[i]); i++)
        o[i] = s[i];
    return i;
}

/* quoted_n's rest, from s[i], the first byte that needs an escape, and the closing quote: apart,
 * so that a string without escapes (almost every one) is written with no frame to set up. */
__attribute__((noinline)) static void quoted_rest(struct jw *w, const char *s, size_t n, size_t i)
{
    static const char hex[] = "0123456789abcdef";
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!needs_escape(c)) {
            put(w, (const char *)&s[i], 1);
        } else if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            put(w, esc, 2);
        } else {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            put(w, esc, 6);
        }
    }
    put(w, "\"", 1);
}

static void quoted_n(struct jw *w, const char *s, size_t n);

/* quoted_n when the text must grow first (or has failed): apart, as quoted_rest. */
__attribute__((noinline)) static void quoted_grow(struct jw *w, const char *s, size_t n)
{
    if (reserve_slow(w, n + 2))
        quoted_n(w, s, n);
}

/* A string of n bytes (jansson's strings are valid UTF-8, which JSON takes as it is; only
 * quotes, backslashes and control characters need escapes). Copied 16 or 8 bytes at a time
 * straight into the buffer while no escape is needed: with a byte loop and a memcpy per run this
 * was the largest item in the profile of /v1/attacks/resolve (115 strings in a 1.5 KB answer). */
static void quoted_n(struct jw *w, const char *s, size_t n)
{
    assert(s != NULL);
    if (w->len + n + 2 + 1 > w->cap) { /* reserve(w, n + 2), its slow path apart */
        quoted_grow(w, s, n);
        return;
    }
    char *o = w->buf + w->len;
    *o++ = '"';
    size_t i = copy_plain(o, s, n);
    if (i == n) { /* nothing to escape (almost always): the closing quote has its room */
        o[n] = '"';
        w->len += n + 2;
        return;
    }
    w->len += 1 + i;
    quoted_rest(w, s, n, i);
}

static void quoted(struct jw *w, const char *s)
{
    quoted_n(w, s, strlen(s));
}

/* Tee mode: the member name k[0..n) is kept as the next value's (w->key) when its value is
 * built: at the top level when keep names it, below it within a kept member. */
static void tee_key(struct jw *w, const char *k, size_t n, bool is_ascii)
{
    bool kept = w->depth >= 2 && w->tee_in;
    /* By the name's bit, then the first byte: a call to strncmp for each kept name was 8k
     * instructions of an attack action. */
    if (w->depth == 1 && n > 0 && (w->keep_sig >> keep_bit(k, n) & 1u) != 0)
        for (const char *const *p = w->keep; !kept && *p != NULL; p++)
            kept = (*p)[0] == k[0] && strncmp(*p + 1, k + 1, n - 1) == 0 && (*p)[n] == '\0';
    w->key = kept ? k : NULL, w->key_len = n, w->key_ascii = is_ascii;
}

void jw_key(struct jw *w, const char *key)
{
    if (w->tree) {
        w->key = key, w->key_len = strlen(key), w->key_ascii = false;
        return;
    }
    if (w->tee)
        tee_key(w, key, strlen(key), false);
    before_value(w);
    quoted(w, key);
    put(w, ":", 1);
    w->after_key = true;
}

void jw_key_quoted(struct jw *w, const char *quoted, size_t n)
{
    assert(n >= 3 && quoted[0] == '"' && quoted[n - 1] == ':'); /* JW_KEY's form */
    assert(ascii(quoted, n));                                   /* JW_KEY's promise */
    if (w->values) {
        if (w->tree) { /* JW_KEY's literal: a name that needs no escape, so ASCII */
            w->key = quoted + 1, w->key_len = n - 3, w->key_ascii = true;
            return;
        }
        tee_key(w, quoted + 1, n - 3, true);
    }
    before_value(w);
    put(w, quoted, n);
    w->after_key = true;
}

static void digits(struct jw *w, long long v)
{
    /* By hand: snprintf showed in the profile of /v1/attacks/resolve. Written backwards in
     * place, its length counted first, so that no copy (a call to memcpy) follows. */
    if (v >= 0 && v < 100) { /* most of an answer's numbers (bonuses, rolls): without a loop */
        if (!reserve(w, 2))
            return;
        w->len += jw__small_int(w->buf + w->len, v);
        return;
    }
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    size_t n = v < 0 ? 2 : 1;
    for (unsigned long long rest = u / 10; rest != 0; rest /= 10)
        n++;
    if (!reserve(w, n))
        return;
    char *p = w->buf + w->len + n;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        *--p = '-';
    w->len += n;
}

void jw_int(struct jw *w, long long v)
{
    if (w->values) {
        if (jw_is_tree(w))
            tree_add(w, json_integer(v));
        if (w->tree)
            return;
    }
    before_value(w);
    digits(w, v);
}

void jw_bool(struct jw *w, bool v)
{
    if (w->values) {
        if (jw_is_tree(w))
            tree_add(w, json_boolean(v));
        if (w->tree)
            return;
    }
    before_value(w);
    if (v) /* each a copy of a length known when compiling: a few moves, not a call to memcpy */
        put(w, "true", 4);
    else
        put(w, "false", 5);
}

void jw_null(struct jw *w)
{
    if (w->values) {
        if (jw_is_tree(w))
            tree_add(w, json_null());
        if (w->tree)
            return;
    }
    before_value(w);
    put(w, "null", 4);
}

void jw_stringn(struct jw *w, const char *s, size_t n)
{
    if (w->values) { /* checked as UTF-8, as parsing the text would check it (ASCII is) */
        if (jw_is_tree(w))
            tree_add(w, ascii(s, n) ? json_stringn_nocheck(s, n) : json_stringn(s, n));
        if (w->tree)
            return;
    }
    before_value(w);
    quoted_n(w, s, n);
}

void jw_string(struct jw *w, const char *s)
{
    if (!w->values) { /* text mode: as it was before the other modes */
        before_value(w);
        quoted(w, s);
        return;
    }
    jw_stringn(w, s, strlen(s));
}

/* A member's name and its colon, after a comma unless it is the object's first: one reserve
 * and straight copies for a short name that needs no escape (nearly every name), else as any
 * string. */
static void member_name(struct jw *w, const char *k, size_t n, bool first)
{
    if (n <= 32 && reserve(w, n + 4)) {
        /* Copied as it is checked; the length moves only once the whole name proved plain. */
        char *o = w->buf + w->len;
        if (!first)
            *o++ = ',';
        *o++ = '"';
        if (copy_plain(o, k, n) == n) {
            o += n;
            *o++ = '"';
            *o++ = ':';
            w->len = (size_t)(o - w->buf);
            return;
        }
    }
    if (!first)
        put(w, ",", 1);
    quoted_n(w, k, n);
    put(w, ":", 1);
}

/* A jansson value, written directly: json_dumps costs several times as much (it checks
 * every character's UTF-8 and formats every integer with snprintf), and the encounter
 * writes dump their state, event and answer on every action. Commas are placed here rather
 * than through w->first, so nesting is bounded by the value (jansson's parser allows 2,048
 * levels), not by JW_MAX_DEPTH. Reals go through jansson so that they read back the same. */
static void value(struct jw *w, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        /* Through the iterator itself: json_object_foreach finds each member's iterator from
         * its key twice and measures the key again, two calls and a strlen a member. */
        json_t *o = (json_t *)v;
        void *it = json_object_iter(o);
        put(w, "{", 1);
        for (bool first = true; it != NULL; first = false) {
            member_name(w, json_object_iter_key(it), json_object_iter_key_len(it), first);
            value(w, json_object_iter_value(it));
            it = json_object_iter_next(o, it);
        }
        put(w, "}", 1);
        break;
    }
    case JSON_ARRAY: {
        put(w, "[", 1);
        size_t n = json_array_size(v);
        for (size_t i = 0; i < n; i++) {
            if (i > 0)
                put(w, ",", 1);
            value(w, json_array_get(v, i));
        }
        put(w, "]", 1);
        break;
    }
    case JSON_STRING: {
        /* Inline for a string that needs no escape (nearly every one); else quoted_n. */
        const char *t = json_string_value(v);
        size_t n = json_string_length(v);
        if (reserve(w, n + 2)) {
            char *o = w->buf + w->len;
            *o = '"';
            if (copy_plain(o + 1, t, n) == n) {
                o[n + 1] = '"';
                w->len += n + 2;
                break;
            }
        }
        quoted_n(w, t, n);
        break;
    }
    case JSON_INTEGER:
        digits(w, (long long)json_integer_value(v));
        break;
    case JSON_TRUE:
        put(w, "true", 4);
        break;
    case JSON_FALSE:
        put(w, "false", 5);
        break;
    case JSON_NULL:
        put(w, "null", 4);
        break;
    case JSON_REAL: {
        char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        if (text == NULL) {
            w->failed = true;
            return;
        }
        put(w, text, strlen(text));
        free(text);
        break;
    }
    }
}

void jw_json(struct jw *w, const json_t *v)
{
    if (w->values) { /* shared: the writer's callers build v for this value alone */
        if (jw_is_tree(w))
            tree_add(w, json_incref((json_t *)v));
        if (w->tree)
            return;
    }
    before_value(w);
    value(w, v);
}

void jw_raw(struct jw *w, const char *text, size_t n)
{
    if (w->values) {
        if (jw_is_tree(w))
            tree_add(w, jsonr_load(text, n));
        if (w->tree)
            return;
    }
    before_value(w);
    put(w, text, n);
}

/* Values kept for their text (jw_shared_begin), per thread: SHARED_WAYS slots from the text's
 * hash on. Freed when the thread ends (pthread key destructor: static TLS is still there while
 * destructors run). */
#define SHARED_SLOTS    128
#define SHARED_WAYS     4
#define SHARED_TEXT_MAX 2048
static _Thread_local struct shared_value {
    uint64_t hash;
    size_t len;
    char *text; /* malloc'd, len bytes */
    json_t *v;  /* its value (one reference), or NULL: an empty slot */
} shared_values[SHARED_SLOTS];
static _Thread_local bool shared_held; /* the thread's key is set: its exit frees the values */
static _Thread_local unsigned shared_victim;
static pthread_key_t shared_key;
static bool shared_ok; /* false if no key could be made: no value is then kept */
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;

static void shared_free(void *unused)
{
    (void)unused;
    for (size_t i = 0; i < SHARED_SLOTS; i++) {
        free(shared_values[i].text);
        json_decref(shared_values[i].v);
        shared_values[i] = (struct shared_value){0};
    }
    shared_held = false;
}

static void shared_init(void)
{
    shared_ok = pthread_key_create(&shared_key, shared_free) == 0;
}

/* A hash of text[0..n), 8 bytes at a time (splitmix64's mixing). */
static uint64_t text_hash(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ n, x;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, s + i, 8);
        h = (h ^ x) * 0xbf58476d1ce4e5b9u;
        h ^= h >> 29;
    }
    x = 0;
    memcpy(&x, s + i, n - i);
    h = (h ^ x) * 0x94d049bb133111ebu;
    return h ^ h >> 31;
}

#ifndef NDEBUG
/* Debug builds: whether s's value is still its text's (a holder that changed it would give every
 * later answer with the same text the changed value). */
static bool shared_unchanged(const struct shared_value *s)
{
    json_t *again = jsonr_load(s->text, s->len);
    bool same = again != NULL && json_equal(again, s->v);
    json_decref(again);
    return same;
}
#endif

/* The value of text[0..n) (a new reference, or NULL when not JSON or out of memory): the one
 * kept for the same text, else the text parsed, and kept when it can be. */
static json_t *shared_value(const char *text, size_t n)
{
    uint64_t h = text_hash(text, n);
    size_t at = (size_t)(h >> 57); /* 7 bits: SHARED_SLOTS slots */
    static_assert(SHARED_SLOTS == 128, "the hash's bits");
    struct shared_value *empty = NULL;
    for (size_t i = 0; i < SHARED_WAYS; i++) {
        struct shared_value *s = &shared_values[(at + i) % SHARED_SLOTS];
        if (s->v != NULL && s->hash == h && s->len == n && memcmp(s->text, text, n) == 0) {
            assert(shared_unchanged(s)); /* a shared value is never changed (writer.h) */
            return json_incref(s->v);
        }
        if (s->v == NULL && empty == NULL)
            empty = s;
    }
    json_t *v = jsonr_load(text, n);
    if (v == NULL || n > SHARED_TEXT_MAX)
        return v;
    if (!shared_held) {
        pthread_once(&shared_once, shared_init);
        shared_held = shared_ok && pthread_setspecific(shared_key, shared_values) == 0;
    }
    char *copy = shared_held ? malloc(n) : NULL;
    if (copy == NULL)
        return v;
    memcpy(copy, text, n);
    struct shared_value *s =
        empty != NULL ? empty : &shared_values[(at + shared_victim++ % SHARED_WAYS) % SHARED_SLOTS];
    free(s->text);
    json_decref(s->v);
    *s = (struct shared_value){.hash = h, .len = n, .text = copy, .v = json_incref(v)};
    return v;
}

struct jw_shared jw__shared_begin(struct jw *w)
{
    struct jw_shared s = {0};
    if (!w->values || !w->tee || w->failed || w->depth <= 0 || !jw_is_tree(w))
        return s; /* text mode, tree mode, a value not kept, or one within a shared one */
    s = (struct jw_shared){.on = true,
                           .depth = w->depth,
                           .key = w->key,
                           .key_len = w->key_len,
                           .key_ascii = w->key_ascii};
    w->values = false; /* the text alone, as jw_init writes it */
    before_value(w);   /* its comma, if any, before the value's text begins */
    w->after_key = true;
    s.at = w->len;
    return s;
}

void jw__shared_end(struct jw *w, const struct jw_shared *s)
{
    if (!s->on)
        return;
    w->values = true;
    assert(w->failed || (w->depth == s->depth && w->len > s->at && !w->after_key));
    if (w->failed)
        return;
    json_t *v = shared_value(w->buf + s->at, w->len - s->at);
    w->key = s->key, w->key_len = s->key_len, w->key_ascii = s->key_ascii;
    tree_add(w, v);
}

char *jw_dump(const json_t *v, size_t *len)
{
    struct jw w;
    jw_init(&w, 1024);
    value(&w, v);
    return jw_finish(&w, len);
}

char *jw_dump_after(const char *text, size_t n, const json_t *v, size_t skip, size_t *len)
{
    assert(n >= 2 && text[0] == '{' && text[n - 1] == '}' && json_is_object(v));
    struct jw w;
    jw_init(&w, n + 512);
    put(&w, text, n - 1);
    bool first = n == 2; /* "{}": no member written yet */
    json_t *o = (json_t *)v;
    void *it = json_object_iter(o);
    for (size_t i = 0; i < skip && it != NULL; i++)
        it = json_object_iter_next(o, it);
    for (; it != NULL; it = json_object_iter_next(o, it), first = false) {
        member_name(&w, json_object_iter_key(it), json_object_iter_key_len(it), first);
        value(&w, json_object_iter_value(it));
    }
    put(&w, "}", 1);
    return jw_finish(&w, len);
}

json_t *jw_finish_tree(struct jw *w)
{
    assert((w->tree || w->tee) &&
           (w->failed || (w->depth == 0 && w->key == NULL))); /* all closed */
    json_t *v = w->root;
    w->root = NULL;
    if (w->failed) {
        json_decref(v);
        return NULL;
    }
    return v;
}

char *jw_finish(struct jw *w, size_t *len)
{
    if (w->failed) {
        free(w->buf);
        w->buf = NULL;
        return NULL;
    }
    assert(w->len < w->cap && !w->after_key); /* room for the NUL; no key waits for its value */
    w->buf[w->len] = '\0';
    *len = w->len;
    return w->buf;
}

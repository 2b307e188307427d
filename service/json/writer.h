/* A streaming JSON writer for large responses: appends text to one growing buffer instead of
 * building a jansson tree and dumping it, which costs an allocation per value (perf showed
 * jansson and malloc dominating /v1/attacks/resolve). Commas are placed automatically.
 * Errors (out of memory) are sticky: check jw_finish.
 *
 * The same calls can build the jansson value instead (jw_init_tree, jw_finish_tree), for a
 * caller that wants the value a writer describes: the encounter takes an attack's answer as a
 * value, and writing its text only to parse it back was a fifth of an attack action. The value
 * is the one jsonr_load would give for the text (members in the order written).
 *
 * Tee mode (jw_init_tee) writes the text, and beside it builds the value of the top-level object
 * with only the members it is told to keep (each whole): for a caller that sends the text and
 * reads a few members, as an encounter's attack stores its answer and tells its sentence. */
#ifndef TACTICS_SVC_JSONW_H
#define TACTICS_SVC_JSONW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define JW_MAX_DEPTH 32

struct jw {
    char *buf;
    size_t len, cap;
    bool failed;
    int depth;
    bool first[JW_MAX_DEPTH]; /* nothing written yet at this depth */
    bool after_key;           /* the next value follows a key: no comma */
    /* Tree mode (jw_init_tree): no text; each value goes into the open container. */
    bool tree;
    json_t *root;               /* the value written at depth 0 (owned) */
    json_t *open[JW_MAX_DEPTH]; /* open[d]: the container open at depth d (borrowed) */
    const char *key;            /* the member name waiting for its value, */
    size_t key_len;             /*   its length, */
    bool key_ascii;             /*   and whether it is known to be ASCII (JW_KEY's literals) */
    /* Tee mode (jw_init_tee): the text as jw_init writes it, and the value of the kept members. */
    bool tee;
    bool values;             /* tree or tee mode: values are built (text mode writes faster) */
    bool tee_in;             /* within a kept member's container (depth 2 and below) */
    const char *const *keep; /* the top-level member names kept as values (NULL-terminated) */
    uint64_t keep_sig;       /* a bit for each kept name's first byte and length (keep_bit) */
};

void jw_init(struct jw *w, size_t initial);
/* A writer that builds a jansson value: see the top of this file. jw_raw then parses its text
 * (a member list written by jw_raw cannot be: a caller that caches text checks jw_is_tree). */
void jw_init_tree(struct jw *w);
/* A tee writer (see the top of this file): keep names the top-level object's members to build
 * as values too (borrowed: it outlives the writer's use). jw_finish gives the text, then
 * jw_finish_tree the value of the kept members (called in either order, each once). */
void jw_init_tee(struct jw *w, size_t initial, const char *const *keep);
/* Whether the next value is built as a value: in tree mode always, in tee mode within a kept
 * member (and the top-level object itself), but not between jw_shared_begin and its end. */
static inline bool jw_is_tree(const struct jw *w)
{
    return w->values &&
           (w->tree || (w->tee && (w->depth == 0 || (w->depth == 1 ? w->key != NULL : w->tee_in))));
}
/* Opening and closing a container: inline in text mode when the text has room (an answer opens
 * a dozen, each a call of about 30 instructions); else jw__open and jw__close. */
void jw__open(struct jw *w, char c);
void jw__close(struct jw *w, char c);
static inline void jw__open_inline(struct jw *w, char c)
{
    if (w->values || w->failed || w->depth < 0 || w->depth + 1 >= JW_MAX_DEPTH ||
        w->len + 3 > w->cap) {
        jw__open(w, c);
        return;
    }
    char *o = w->buf + w->len;
    size_t comma = !w->after_key && !w->first[w->depth]; /* after a key, or first: none */
    *o = ',';
    o[comma] = c;
    w->len += comma + 1;
    w->first[w->depth] = false;
    w->after_key = false;
    w->first[++w->depth] = true;
}
static inline void jw__close_inline(struct jw *w, char c)
{
    if (w->values || w->failed || w->depth <= 0 || w->len + 2 > w->cap) {
        jw__close(w, c);
        return;
    }
    w->buf[w->len++] = c;
    w->depth--;
}
static inline void jw_object_begin(struct jw *w)
{
    jw__open_inline(w, '{');
}
static inline void jw_object_end(struct jw *w)
{
    jw__close_inline(w, '}');
}
static inline void jw_array_begin(struct jw *w)
{
    jw__open_inline(w, '[');
}
static inline void jw_array_end(struct jw *w)
{
    jw__close_inline(w, ']');
}
void jw_key(struct jw *w, const char *key); /* next value is this member's */
/* jw_key for a name given as a string literal of ASCII that needs no escape (every name we
 * write): its quoted form and colon are put as one copy of a length known when compiling (and
 * in tree mode the name is not checked as UTF-8 again). */
#define JW_KEY(w, literal) jw_key_lit((w), "\"" literal "\":", sizeof("\"" literal "\":") - 1)
void jw_key_quoted(struct jw *w, const char *quoted, size_t n);
/* Whether a member of n bytes of quoted name and colon, and up to `value` bytes of value, goes in
 * the text by the inline path: text mode, the object's member (not after a key), room. */
static inline bool jw__member_fits(const struct jw *w, size_t n, size_t value)
{
    return !w->values && !w->after_key && !w->failed && w->depth >= 0 && w->depth < JW_MAX_DEPTH &&
           w->len + n + value + 2 <= w->cap;
}
/* Puts the quoted name and colon (n bytes) after a comma unless it is the object's first member;
 * the caller checked jw__member_fits. Returns where the value goes. */
static inline char *jw__member(struct jw *w, const char *quoted, size_t n)
{
    char *o = w->buf + w->len;
    size_t comma = !w->first[w->depth];
    *o = ',';
    memcpy(o + comma, quoted, n);
    w->first[w->depth] = false;
    w->len += comma + n;
    return o + comma + n;
}
/* JW_KEY's call: inline, so that the copy's length is a constant and the copy a few moves, when
 * the text has room (the common case); else, and in tree or tee mode, jw_key_quoted. An answer
 * writes a name for most of its values: through the call and libc's memcpy each cost about 80
 * instructions, a tenth of /v1/attacks/resolve's own work. */
static inline void jw_key_lit(struct jw *w, const char *quoted, size_t n)
{
    if (!jw__member_fits(w, n, 0)) {
        jw_key_quoted(w, quoted, n);
        return;
    }
    jw__member(w, quoted, n);
    w->after_key = true;
}
void jw_int(struct jw *w, long long v);
void jw_bool(struct jw *w, bool v);
/* Writes v, from 0 to 99, at o; returns its length. */
static inline size_t jw__small_int(char *o, long long v)
{
    size_t two = v >= 10;
    o[0] = (char)('0' + (two ? v / 10 : v));
    o[two] = (char)('0' + v % 10);
    return 1 + two;
}
/* JW_INT's and JW_BOOL's calls: in text mode a member and its value in one inline put (an answer
 * writes dozens: as a key then a call, each cost about 60 instructions); else as JW_KEY then
 * jw_int or jw_bool. */
static inline void jw_int_lit(struct jw *w, const char *quoted, size_t n, long long v)
{
    if (v >= 0 && v < 100 && jw__member_fits(w, n, 2)) {
        char *o = jw__member(w, quoted, n);
        w->len += jw__small_int(o, v);
        return;
    }
    jw_key_lit(w, quoted, n);
    jw_int(w, v);
}
static inline void jw_bool_lit(struct jw *w, const char *quoted, size_t n, bool v)
{
    if (jw__member_fits(w, n, 5)) {
        char *o = jw__member(w, quoted, n);
        if (v)
            memcpy(o, "true", 4);
        else
            memcpy(o, "false", 5);
        w->len += v ? 4 : 5;
        return;
    }
    jw_key_lit(w, quoted, n);
    jw_bool(w, v);
}
/* A member of a literal key and its value, in one line. */
#define JW_INT(w, literal, v)                                                                      \
    jw_int_lit((w), "\"" literal "\":", sizeof("\"" literal "\":") - 1, (v))
#define JW_BOOL(w, literal, v)                                                                     \
    jw_bool_lit((w), "\"" literal "\":", sizeof("\"" literal "\":") - 1, (v))
#define JW_STRING(w, literal, v) (JW_KEY(w, literal), jw_string((w), (v)))
void jw_null(struct jw *w);
void jw_string(struct jw *w, const char *s);
void jw_stringn(struct jw *w, const char *s, size_t n); /* n bytes of s */
void jw_json(struct jw *w, const json_t *v);            /* a jansson value, compact */
void jw_raw(struct jw *w, const char *text, size_t n);  /* a value already written as JSON */

/* A value whose text is likely written again (a damage roll of a few dice, a critical hit's
 * terms), between jw_shared_begin and jw_shared_end: where a tee writer builds values, its text is
 * written alone and its value is the one kept (per thread) for the same text before, shared, else
 * the text parsed and kept; elsewhere they do nothing. Written as it is between them: the caller
 * must never change a shared value. Building an attack's damage as a value was 10k instructions of
 * an encounter action, its text 3k. */
struct jw_shared {
    bool on;
    size_t at;
    int depth;
    const char *key;
    size_t key_len;
    bool key_ascii;
};
struct jw_shared jw__shared_begin(struct jw *w);
void jw__shared_end(struct jw *w, const struct jw_shared *s);
/* Inline, so that text mode (POST /v1/attacks/resolve's answer) pays a test, not two calls. */
static inline struct jw_shared jw_shared_begin(struct jw *w)
{
    return w->values ? jw__shared_begin(w) : (struct jw_shared){0};
}
static inline void jw_shared_end(struct jw *w, const struct jw_shared *s)
{
    if (s->on)
        jw__shared_end(w, s);
}

/* A jansson value as compact JSON text (malloc'd, NUL-terminated), or NULL when out of memory:
 * json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) at a fraction of its cost. */
char *jw_dump(const json_t *v, size_t *len);
/* An object's text text[0..n) (as jw_dump writes it) with the members of object v after its first
 * `skip` dumped before the closing brace, as jw_dump would write them after those of the text
 * (malloc'd, NUL-terminated; *len its length), or NULL when out of memory: for a caller that
 * kept an object's text and added members to a value of it since. */
char *jw_dump_after(const char *text, size_t n, const json_t *v, size_t skip, size_t *len);

/* Returns the text (malloc'd, NUL-terminated) and its length, or NULL after any failure. */
char *jw_finish(struct jw *w, size_t *len);
/* A tree mode writer's value, or a tee writer's kept members (the caller owns it), or NULL after
 * any failure. */
json_t *jw_finish_tree(struct jw *w);

#endif

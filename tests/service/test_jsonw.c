/* jw_dump, the writer the encounter writes use instead of json_dumps: the same values, and for
 * text without control characters the same bytes. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/json/writer.h"

/* Dumps v both ways; asserts that jw_dump's text reads back to an equal value. */
static char *dump_checked(json_t *v)
{
    size_t n = 0;
    char *mine = jw_dump(v, &n);
    cr_assert_not_null(mine);
    cr_assert_eq(n, strlen(mine));
    json_error_t err;
    json_t *back = json_loads(mine, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    cr_assert_not_null(back, "%s: %s", mine, err.text);
    cr_assert(json_equal(back, v), "%s", mine);
    json_decref(back);
    return mine;
}

/* Asserts that jw_dump writes v byte for byte as json_dumps(JSON_COMPACT) does; releases v. */
static void assert_same_as_jansson(json_t *v)
{
    char *mine = dump_checked(v);
    char *theirs = json_dumps(v, JSON_COMPACT);
    cr_assert_str_eq(mine, theirs);
    free(mine);
    free(theirs);
    json_decref(v);
}

Test(jsonw, writes_what_json_dumps_writes)
{
    static const char *const docs[] = {
        "{}",
        "[]",
        "{\"a\":1,\"b\":[true,false,null],\"c\":{\"d\":\"e\"}}",
        "{\"min\":-9223372036854775808,\"max\":9223372036854775807,\"zero\":0,\"neg\":-42}",
        "{\"quote\":\"say \\\"hi\\\"\",\"back\":\"a\\\\b\",\"slash\":\"a/b\"}",
        "{\"utf8\":\"caf\\u00e9 \\ud83d\\ude00\",\"order\":{\"z\":1,\"a\":2,\"m\":3}}",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        json_t *v = json_loads(docs[i], 0, NULL);
        cr_assert_not_null(v, "%s", docs[i]);
        assert_same_as_jansson(v);
    }
}

Test(jsonw, escapes_control_characters_and_nul)
{
    json_t *v = json_pack("{s:s, s:s%}", "lines", "a\nb\tc\x01", "nul", "x\0y", (size_t)3);
    char *mine = dump_checked(v);
    cr_assert_str_eq(mine, "{\"lines\":\"a\\u000ab\\u0009c\\u0001\",\"nul\":\"x\\u0000y\"}");
    free(mine);
    json_decref(v);
}

Test(jsonw, reals_read_back_the_same)
{
    assert_same_as_jansson(json_pack("[f, f, f, f]", 1.5, -0.1, 1e300, 3.0));
}

Test(jsonw, nesting_deeper_than_the_writer_stack)
{
    /* jw_object_begin stops at JW_MAX_DEPTH; a dumped value must not. */
    json_t *v = json_integer(7);
    for (int i = 0; i < 1000; i++)
        v = i % 2 ? json_pack("[o]", v) : json_pack("{s:o}", "k", v);
    free(dump_checked(v));
    json_decref(v);
}

Test(jsonw, raw_text_is_embedded_as_it_is)
{
    struct jw w;
    jw_init(&w, 8);
    jw_object_begin(&w);
    jw_key(&w, "a");
    jw_raw(&w, "{\"x\":[1,2]}", 11);
    jw_key(&w, "b");
    jw_raw(&w, "true", 4);
    jw_object_end(&w);
    size_t n = 0;
    char *text = jw_finish(&w, &n);
    cr_assert_str_eq(text, "{\"a\":{\"x\":[1,2]},\"b\":true}");
    free(text);
}

/* The writer copies 8 bytes at a time until a byte needs an escape: put each kind of byte at
 * every position of strings from 0 to 24 bytes, so that it falls in a whole word, in the tail
 * and at the edges of both. Quotes and backslashes must come out as json_dumps writes them;
 * control characters as \u00XX, reading back to the same string. */
Test(jsonw, escapes_wherever_the_byte_falls)
{
    static const char specials[] = {'"', '\\', '\n', '\x01', '\x1f', '\x7f'};
    for (size_t len = 1; len <= 24; len++)
        for (size_t at = 0; at < len; at++)
            for (size_t k = 0; k < sizeof specials; k++) {
                char text[32];
                memset(text, 'a', len);
                text[at] = specials[k];
                text[len] = '\0';
                json_t *v = json_stringn(text, len);
                cr_assert_not_null(v);
                if (specials[k] == '"' || specials[k] == '\\' || specials[k] == '\x7f') {
                    assert_same_as_jansson(json_pack("[o]", v)); /* json_dumps wants a container */
                    continue;
                }
                char *mine = dump_checked(v);
                char expected[64];
                snprintf(expected, sizeof expected, "\"%.*s\\u%04x%s\"", (int)at, text,
                         (unsigned char)specials[k], text + at + 1);
                cr_assert_str_eq(mine, expected);
                free(mine);
                json_decref(v);
            }
}

/* Member names are written as json_dumps writes them: escaped where they need it, in the order
 * they were set. */
Test(jsonw, member_names_as_json_dumps_writes_them)
{
    json_t *v = json_object();
    static const char *const names[] = {"plain",    "say \"hi\"",       "back\\slash",
                                        "a/slash",  "caf\xc3\xa9",      "",
                                        "eight ch", "longer than eight"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        json_object_set_new(v, names[i], json_integer((json_int_t)i));
    json_object_set_new(v, "nested", json_pack("{s:{s:[]}, s:{}}", "a\"", "b", "c"));
    assert_same_as_jansson(v);
}

/* Member names take a path of their own (copied as they are checked, up to 32 bytes): put each
 * kind of byte at every position of names from 1 to 40 bytes, first in their object and not. */
Test(jsonw, member_names_escape_wherever_the_byte_falls)
{
    static const char specials[] = {'"', '\\', '\n', '\x01', '\x1f', 'a'};
    for (size_t len = 1; len <= 40; len++)
        for (size_t at = 0; at < len; at++)
            for (size_t k = 0; k < sizeof specials; k++) {
                char name[48];
                memset(name, 'n', len);
                name[at] = specials[k];
                name[len] = '\0';
                json_t *v = json_pack("{s:i, s:{s:b}}", name, 1, "then", name, 1);
                cr_assert_not_null(v);
                if (specials[k] == '\n' || specials[k] == '\x01' || specials[k] == '\x1f') {
                    free(dump_checked(v)); /* \u00XX, where json_dumps writes \n: read back */
                    json_decref(v);
                } else {
                    assert_same_as_jansson(v);
                }
            }
}

Test(jsonw, grows_from_the_smallest_buffer)
{
    struct jw w;
    jw_init(&w, 1);
    jw_array_begin(&w);
    char big[300];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    for (int i = 0; i < 50; i++)
        jw_string(&w, big);
    jw_array_end(&w);
    size_t n = 0;
    char *text = jw_finish(&w, &n);
    cr_assert_not_null(text);
    cr_assert_eq(n, 2 + 50 * 301 + 49);
    json_t *back = json_loads(text, 0, NULL);
    cr_assert_eq(json_array_size(back), 50);
    json_decref(back);
    free(text);
}

Test(jsonw, literal_keys_write_what_jw_key_writes)
{
    struct jw a, b;
    jw_init(&a, 1);
    jw_init(&b, 1);
    jw_object_begin(&a);
    jw_object_begin(&b);
    jw_key(&a, "first");
    JW_KEY(&b, "first");
    jw_int(&a, 1);
    jw_int(&b, 1);
    jw_key(&a, "second_one");
    JW_KEY(&b, "second_one");
    jw_object_begin(&a);
    jw_object_begin(&b);
    jw_key(&a, "x");
    JW_KEY(&b, "x");
    jw_null(&a);
    jw_null(&b);
    jw_object_end(&a);
    jw_object_end(&b);
    jw_object_end(&a);
    jw_object_end(&b);
    size_t na = 0, nb = 0;
    char *ta = jw_finish(&a, &na), *tb = jw_finish(&b, &nb);
    cr_assert_str_eq(tb, "{\"first\":1,\"second_one\":{\"x\":null}}");
    cr_assert_str_eq(ta, tb);
    cr_assert_eq(na, nb);
    free(ta);
    free(tb);
}

/* JW_KEY's inline copy (jw_key_lit) beside jw_key, with the buffer filled to every length
 * before it: the copy must go where it has room and fall back to growing where it has not, and
 * write each member's comma exactly when it is not its object's first. */
#define KEY_BY(i, w, literal) ((i) ? jw_key((w), literal) : JW_KEY((w), literal))
Test(jsonw, literal_keys_at_every_fill_of_the_buffer)
{
    char pad[160];
    for (size_t p = 0; p < sizeof pad; p++) {
        memset(pad, 'x', p);
        pad[p] = '\0';
        struct jw a, b;
        jw_init(&a, 64);
        jw_init(&b, 64);
        struct jw *w[2] = {&a, &b};
        for (int i = 0; i < 2; i++) {
            jw_object_begin(w[i]);
            if (p % 2) { /* the object's first member, or not */
                KEY_BY(i, w[i], "pad");
                jw_string(w[i], pad);
            }
            KEY_BY(i, w[i], "a_longer_name_of_24_byte");
            jw_object_begin(w[i]);
            KEY_BY(i, w[i], "in");
            jw_string(w[i], pad);
            KEY_BY(i, w[i], "z");
            jw_int(w[i], (long long)p);
            jw_object_end(w[i]);
            jw_object_end(w[i]);
        }
        size_t na = 0, nb = 0;
        char *ta = jw_finish(&a, &na), *tb = jw_finish(&b, &nb);
        cr_assert_not_null(ta);
        cr_assert_str_eq(ta, tb, "pad %zu", p);
        cr_assert_eq(na, nb);
        json_t *back = json_loads(ta, 0, NULL);
        cr_assert_not_null(back, "pad %zu: %s", p, ta);
        cr_assert_eq(json_integer_value(
                         json_object_get(json_object_get(back, "a_longer_name_of_24_byte"), "z")),
                     (json_int_t)p);
        json_decref(back);
        free(ta);
        free(tb);
    }
}
#undef KEY_BY

/* The same calls, once as text and once in tree mode (an encounter's attack answer): writes w. */
static void write_sample(struct jw *w, json_t *shared)
{
    jw_object_begin(w);
    JW_INT(w, "n", -42);
    JW_BOOL(w, "yes", true);
    JW_KEY(w, "nothing");
    jw_null(w);
    JW_STRING(w, "text", "plain ascii, long enough for a word or two");
    JW_STRING(w, "utf8", "Кира \xe2\x80\x94 オーク");
    JW_STRING(w, "escaped", "a \"quote\", a \\ and a\ttab\n");
    jw_key(w, "named at run time");
    jw_array_begin(w);
    jw_int(w, 1);
    jw_array_begin(w);
    jw_array_end(w);
    jw_object_begin(w);
    jw_object_end(w);
    jw_string(w, "");
    jw_array_end(w);
    JW_KEY(w, "shared");
    jw_json(w, shared);
    JW_KEY(w, "raw");
    const char *raw = "{\"k\":[1,2,{\"x\":\"y\"}]}";
    jw_raw(w, raw, strlen(raw));
    jw_object_end(w);
}

Test(jsonw, tree_mode_builds_the_value_the_text_reads_back_to)
{
    json_t *shared = json_pack("{s:[i,s]}", "roll", 3, "d6");
    struct jw text, tree;
    jw_init(&text, 1);
    jw_init_tree(&tree);
    cr_assert(jw_is_tree(&tree) && !jw_is_tree(&text));
    write_sample(&text, shared);
    write_sample(&tree, shared);
    size_t n = 0;
    char *t = jw_finish(&text, &n);
    json_t *v = jw_finish_tree(&tree);
    cr_assert_not_null(v);
    json_t *back = json_loadb(t, n, 0, NULL);
    cr_assert_not_null(back, "%s", t);
    cr_assert(json_equal(back, v));
    size_t m = 0;
    char *again = jw_dump(v, &m); /* member order too: the bytes an encounter stores */
    cr_assert_str_eq(again, t);
    free(again);
    free(t);
    json_decref(back);
    json_decref(v);
    json_decref(shared);
}

/* Text that is not UTF-8 is refused as parsing it would refuse it, and nesting past the
 * writer's depth fails as the text writer does: no value, nothing leaked. */
Test(jsonw, tree_mode_fails_where_the_text_would_not_parse)
{
    struct jw w;
    jw_init_tree(&w);
    jw_object_begin(&w);
    JW_STRING(&w, "bad", "caf\xe9");
    jw_object_end(&w);
    cr_assert_null(jw_finish_tree(&w));

    jw_init_tree(&w);
    for (int i = 0; i < JW_MAX_DEPTH + 2; i++)
        jw_array_begin(&w);
    for (int i = 0; i < JW_MAX_DEPTH + 2; i++)
        jw_array_end(&w);
    cr_assert_null(jw_finish_tree(&w));
}

/* Tee mode (an encounter's attack action): the text is byte for byte the text mode's, and the
 * value holds the kept members only, each as the text has it, in the order written; a member
 * list put with jw_raw is not put inside a kept member (jw_is_tree says so there). Members
 * added to the value after (jw_dump_after) come out as jw_dump writes the whole value. */
Test(jsonw, tee_mode_writes_the_text_and_builds_the_kept_members)
{
    static const char *const keep[] = {"utf8", "named at run time", "shared", "n", NULL};
    json_t *shared = json_pack("{s:[i,s]}", "roll", 3, "d6");
    struct jw text, tee;
    jw_init(&text, 1);
    jw_init_tee(&tee, 1, keep);
    write_sample(&text, shared);
    write_sample(&tee, shared);
    size_t n = 0, m = 0;
    char *t = jw_finish(&text, &n);
    json_t *v = jw_finish_tree(&tee);
    char *tt = jw_finish(&tee, &m);
    cr_assert_not_null(v);
    cr_assert_not_null(tt);
    cr_assert_str_eq(tt, t);
    json_t *back = json_loadb(t, n, 0, NULL);
    cr_assert_not_null(back, "%s", t);
    cr_assert_eq(json_object_size(v), 4);
    const char *order[] = {"n", "utf8", "named at run time", "shared"};
    void *it = json_object_iter(v);
    for (size_t i = 0; i < 4; i++, it = json_object_iter_next(v, it)) {
        cr_assert_str_eq(json_object_iter_key(it), order[i]);
        cr_assert(json_equal(json_object_iter_value(it), json_object_get(back, order[i])), "%s",
                  order[i]);
    }
    /* Members added to the value come after the text's own, as jw_dump writes them. */
    json_object_set_new(v, "added", json_pack("{s:[b,s]}", "k", 1, "caf\xc3\xa9 \"q\""));
    json_object_set_new(v, "n2", json_integer(-7));
    char *after = jw_dump_after(tt, m, v, 4, &m);
    json_object_set_new(back, "added", json_pack("{s:[b,s]}", "k", 1, "caf\xc3\xa9 \"q\""));
    json_object_set_new(back, "n2", json_integer(-7));
    char *whole = jw_dump(back, &n);
    cr_assert_str_eq(after, whole);
    free(after);
    free(whole);
    /* An empty object's text takes no comma before the first member added. */
    json_t *one = json_pack("{s:i}", "a", 1);
    char *e = jw_dump_after("{}", 2, one, 0, &m);
    cr_assert_str_eq(e, "{\"a\":1}");
    free(e);
    json_decref(one);
    free(tt);
    free(t);
    json_decref(back);
    json_decref(v);
    json_decref(shared);
}

/* Tee mode keeps no member when keep names none, and the modifier cache's question (jw_is_tree)
 * is answered for the next value: true only within a kept member and for the top object. */
Test(jsonw, tee_mode_answers_jw_is_tree_for_the_next_value)
{
    static const char *const keep[] = {"kept", NULL};
    struct jw w;
    jw_init_tee(&w, 1, keep);
    cr_assert(jw_is_tree(&w)); /* the top object */
    jw_object_begin(&w);
    JW_KEY(&w, "other");
    cr_assert(!jw_is_tree(&w));
    jw_array_begin(&w);
    cr_assert(!jw_is_tree(&w));
    jw_int(&w, 1);
    jw_array_end(&w);
    JW_KEY(&w, "kept");
    cr_assert(jw_is_tree(&w));
    jw_array_begin(&w);
    cr_assert(jw_is_tree(&w));
    jw_object_begin(&w);
    JW_INT(&w, "deep", 2);
    jw_object_end(&w);
    jw_array_end(&w);
    JW_KEY(&w, "last");
    cr_assert(!jw_is_tree(&w));
    jw_object_begin(&w);
    jw_object_end(&w);
    jw_object_end(&w);
    json_t *v = jw_finish_tree(&w);
    size_t n = 0;
    char *t = jw_finish(&w, &n);
    cr_assert_str_eq(t, "{\"other\":[1],\"kept\":[{\"deep\":2}],\"last\":{}}");
    char *d = jw_dump(v, &n);
    cr_assert_str_eq(d, "{\"kept\":[{\"deep\":2}]}");
    free(d);
    free(t);
    json_decref(v);
}

/* Writes {"a":{"roll":[d, 6]},"b":[{"roll":[d, 6]}],"c":{"roll":[d, 6]}} with each roll object
 * between jw_shared_begin and jw_shared_end (and one within another); c is not kept. */
static void write_shared_sample(struct jw *w, int d)
{
    JW_KEY(w, "a");
    struct jw_shared s = jw_shared_begin(w);
    jw_object_begin(w);
    JW_KEY(w, "roll");
    struct jw_shared inner = jw_shared_begin(w); /* within a shared value: nothing */
    cr_assert(!inner.on);
    cr_assert(!jw_is_tree(w));
    jw_array_begin(w);
    jw_int(w, d);
    jw_int(w, 6);
    jw_array_end(w);
    jw_shared_end(w, &inner);
    jw_object_end(w);
    jw_shared_end(w, &s);
    JW_KEY(w, "b");
    jw_array_begin(w);
    jw_int(w, 0);
    s = jw_shared_begin(w); /* after a comma, in an array */
    jw_object_begin(w);
    JW_KEY(w, "roll");
    jw_array_begin(w);
    jw_int(w, d);
    jw_int(w, 6);
    jw_array_end(w);
    jw_object_end(w);
    jw_shared_end(w, &s);
    jw_array_end(w);
    JW_KEY(w, "c");
    s = jw_shared_begin(w);
    cr_assert(!s.on); /* not kept */
    jw_object_begin(w);
    JW_KEY(w, "roll");
    jw_array_begin(w);
    jw_int(w, d);
    jw_array_end(w);
    jw_object_end(w);
    jw_shared_end(w, &s);
}

/* jw_shared_begin/end: the tee text is the text mode's; the value is what the text reads back
 * to, and the same object the next time the same text is written (not for another text); text
 * mode and values not kept build nothing. */
Test(jsonw, shared_values_are_the_texts_and_kept_for_the_same_text)
{
    static const char *const keep[] = {"a", "b", NULL};
    json_t *first[2] = {NULL, NULL};
    for (int round = 0; round < 3; round++) {
        int d = round == 2 ? 5 : 3; /* the third writes another text */
        struct jw text, tee;
        jw_init(&text, 1);
        jw_init_tee(&tee, 1, keep);
        jw_object_begin(&text);
        jw_object_begin(&tee);
        write_shared_sample(&text, d);
        write_shared_sample(&tee, d);
        jw_object_end(&text);
        jw_object_end(&tee);
        json_t *v = jw_finish_tree(&tee);
        size_t n = 0, m = 0;
        char *t = jw_finish(&text, &n), *tt = jw_finish(&tee, &m);
        cr_assert_str_eq(tt, t);
        json_t *back = json_loadb(t, n, 0, NULL);
        cr_assert_not_null(back, "%s", t);
        json_object_del(back, "c");
        cr_assert(json_equal(v, back), "%s", t);
        json_t *a = json_object_get(v, "a"), *b = json_array_get(json_object_get(v, "b"), 1);
        if (round == 0) {
            first[0] = json_incref(a);
            first[1] = json_incref(b);
        } else {
            cr_assert_eq(a == first[0], round == 1);
            cr_assert_eq(b == first[1], round == 1);
        }
        free(t);
        free(tt);
        json_decref(back);
        json_decref(v);
    }
    json_decref(first[0]);
    json_decref(first[1]);
}

/* The value a tee writer gives for {"a": {"i": i, "pad": pad}}, written as a shared value (a new
 * reference), after checking that it is its text's. */
static json_t *shared_of(int i, const char *pad)
{
    static const char *const keep[] = {"a", NULL};
    struct jw w;
    jw_init_tee(&w, 1, keep);
    jw_object_begin(&w);
    JW_KEY(&w, "a");
    struct jw_shared s = jw_shared_begin(&w);
    jw_object_begin(&w);
    JW_KEY(&w, "i");
    jw_int(&w, i);
    JW_KEY(&w, "pad");
    jw_string(&w, pad);
    jw_object_end(&w);
    jw_shared_end(&w, &s);
    jw_object_end(&w);
    json_t *v = jw_finish_tree(&w);
    size_t n = 0;
    char *t = jw_finish(&w, &n);
    json_t *back = json_loadb(t, n, 0, NULL);
    cr_assert(json_equal(v, back), "%s", t);
    json_t *a = json_incref(json_object_get(v, "a"));
    cr_assert_eq(json_integer_value(json_object_get(a, "i")), i);
    json_decref(back);
    json_decref(v);
    free(t);
    return a;
}

/* More texts than the per-thread table keeps (128 slots of 4 ways): each is shared by the
 * answer written right after it, and every value is its own text's however the table evicted;
 * a text over the kept limit (2 KB) is parsed anew each time, never kept. */
Test(jsonw, shared_values_evicted_and_too_long_are_still_their_texts)
{
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 700; i++) {
            json_t *a = shared_of(i, "x"), *b = shared_of(i, "x");
            cr_assert_eq(a, b, "text %d: the same text, one value", i);
            json_decref(a);
            json_decref(b);
        }
    char pad[3000];
    memset(pad, 'p', sizeof pad - 1);
    pad[sizeof pad - 1] = '\0';
    json_t *a = shared_of(1, pad), *b = shared_of(1, pad);
    cr_assert_neq(a, b); /* not kept */
    cr_assert(json_equal(a, b));
    json_decref(a);
    json_decref(b);
}

/* jw_int writes what printf's %lld writes: one and two digits by their own path (perf9), every
 * other number by the loop, at every fill of the smallest buffer. */
Test(jsonw, integers_as_printf_writes_them)
{
    static const long long edges[] = {LLONG_MIN, LLONG_MIN + 1, -1000000, LLONG_MAX, 1000000007};
    for (long long i = -1100; i < 1100 + (long long)(sizeof edges / sizeof edges[0]); i++) {
        long long v = i < 1100 ? i : edges[i - 1100];
        for (size_t pad = 0; pad < 70; pad += 23) {
            struct jw w;
            jw_init(&w, 64);
            jw_array_begin(&w);
            char fill[80];
            memset(fill, 'p', pad);
            fill[pad] = '\0';
            jw_string(&w, fill);
            jw_int(&w, v);
            jw_array_end(&w);
            size_t n = 0;
            char *text = jw_finish(&w, &n);
            char expected[160];
            snprintf(expected, sizeof expected, "[\"%s\",%lld]", fill, v);
            cr_assert_str_eq(text, expected);
            cr_assert_eq(n, strlen(expected));
            free(text);
        }
    }
}

/* JW_INT and JW_BOOL's inline member (a name and a small number or a boolean in one put) beside
 * jw_key and jw_int or jw_bool, with the buffer filled to every length before it: each must
 * write what the calls write, where it has room and where the text must grow, first in its
 * object or not, in an object or after a key (perf9). */
Test(jsonw, literal_members_at_every_fill_of_the_buffer)
{
    static const long long ints[] = {-1, 0, 7, 9, 10, 42, 99, 100, 12345};
    char pad[160];
    for (size_t p = 0; p < 140; p++) {
        memset(pad, 'p', p);
        pad[p] = '\0';
        for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
            struct jw a, b;
            jw_init(&a, 64);
            jw_init(&b, 64);
            for (int i = 0; i < 2; i++) {
                struct jw *w = i ? &b : &a;
                jw_object_begin(w);
                if (k % 2) { /* the object's first member, or not */
                    jw_key(w, "pad");
                    jw_string(w, pad);
                }
                if (i) {
                    JW_INT(w, "an_int", ints[k]);
                    JW_BOOL(w, "yes", k % 3 == 0);
                    JW_BOOL(w, "no", false);
                } else {
                    jw_key(w, "an_int");
                    jw_int(w, ints[k]);
                    jw_key(w, "yes");
                    jw_bool(w, k % 3 == 0);
                    jw_key(w, "no");
                    jw_bool(w, false);
                }
                jw_key(w, "inner");
                jw_object_begin(w);
                if (i)
                    JW_INT(w, "n", ints[k]);
                else
                    jw_key(w, "n"), jw_int(w, ints[k]);
                jw_object_end(w);
                jw_object_end(w);
            }
            size_t na = 0, nb = 0;
            char *ta = jw_finish(&a, &na), *tb = jw_finish(&b, &nb);
            cr_assert_not_null(tb);
            cr_assert_str_eq(ta, tb, "pad %zu, %lld", p, ints[k]);
            cr_assert_eq(na, nb);
            json_t *back = json_loads(tb, 0, NULL);
            cr_assert_not_null(back, "%s", tb);
            cr_assert_eq(json_integer_value(json_object_get(back, "an_int")), ints[k]);
            json_decref(back);
            free(ta);
            free(tb);
        }
    }
}

/* Containers opened and closed inline (perf9) at every fill of the smallest buffer: after a
 * value (a comma), first in their container, after a key; the text as it must be, and no byte
 * written past the buffer (ASan). */
Test(jsonw, containers_at_every_fill_of_the_buffer)
{
    char pad[160], expected[400];
    for (size_t p = 0; p < 140; p++) {
        memset(pad, 'p', p);
        pad[p] = '\0';
        struct jw w;
        jw_init(&w, 64);
        jw_array_begin(&w);
        jw_string(&w, pad);
        jw_array_begin(&w);
        jw_object_begin(&w);
        JW_KEY(&w, "k");
        jw_array_begin(&w);
        jw_array_end(&w);
        jw_key(&w, "o");
        jw_object_begin(&w);
        jw_object_end(&w);
        jw_object_end(&w);
        jw_array_end(&w);
        jw_array_begin(&w);
        jw_array_end(&w);
        jw_array_end(&w);
        size_t n = 0;
        char *text = jw_finish(&w, &n);
        snprintf(expected, sizeof expected, "[\"%s\",[{\"k\":[],\"o\":{}}],[]]", pad);
        cr_assert_str_eq(text, expected, "pad %zu", p);
        cr_assert_eq(n, strlen(expected));
        free(text);
    }
}

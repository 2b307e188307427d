/* jsonr_parse, the fast path for request bodies: it must build exactly the value jansson's
 * json_loadb(JSON_REJECT_DUPLICATES) builds, member order included, or decline (NULL) so that
 * jansson parses and reports. fuzz/fuzz_requests.c checks the same on every fuzzed body. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/json/reader.h"

/* Parses text both ways and asserts the fast path built jansson's value, byte for byte. */
static void assert_same_as_jansson(const char *text)
{
    json_t *mine = jsonr_parse(text, strlen(text));
    cr_assert_not_null(mine, "declined: %s", text);
    json_error_t err;
    json_t *theirs = json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, &err);
    cr_assert_not_null(theirs, "jansson refused what the fast path took: %s (%s)", text, err.text);
    char *a = json_dumps(mine, JSON_COMPACT | JSON_ENCODE_ANY);
    char *b = json_dumps(theirs, JSON_COMPACT | JSON_ENCODE_ANY);
    cr_assert_str_eq(a, b);
    cr_assert(json_equal(mine, theirs));
    free(a);
    free(b);
    json_decref(mine);
    json_decref(theirs);
}

static void assert_declined(const char *text, size_t len)
{
    json_t *v = jsonr_parse(text, len);
    cr_assert_null(v, "took: %.*s", (int)len, text);
}

Test(jsonr, builds_what_jansson_builds)
{
    static const char *const docs[] = {
        "{}",
        "[]",
        " \t\r\n{ \"a\" : 1 , \"b\" : [ true , false , null ] } \n",
        "{\"z\":1,\"a\":2,\"m\":{\"y\":[],\"b\":{}}}",
        "[0,-0,7,-7,123456789012345678,-123456789012345678]",
        "{\"s\":\"\",\"t\":\"printable ASCII ~!@#$%^&*()_+{}|:<>?/.,';][=-`\",\"del\":\"\x7f\"}",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"attacker\":{\"x\":5,\"y\":6,\"facing\":0,"
        "\"attack_bonus\":5,\"sneak_attack_dice\":2,\"damage\":\"1d6+1\"},\"defender\":{\"x\":5,"
        "\"y\":5,\"facing\":0,\"defense\":{\"armor\":4,\"dex\":2},\"damage_reduction\":2},"
        "\"allies\":[{\"x\":4,\"y\":5}],\"cover\":\"quarter\",\"concealment\":[\"quarter\"],"
        "\"seed\":7}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        assert_same_as_jansson(docs[i]);
}

/* What the fast path leaves to jansson: each of these jansson either refuses (and must be the
 * one to say where) or reads in a way the fast path does not copy. */
Test(jsonr, declines_what_it_does_not_copy)
{
    static const char *const docs[] = {
        "",
        "   ",
        "1",                           /* a top level that is not an object or array */
        "\"a\"",                       /* likewise */
        "{\"a\":1,\"a\":2}",           /* duplicate key: jansson's error */
        "{\"a\":\"x\\ny\"}",           /* escapes */
        "{\"a\":\"caf\xc3\xa9\"}",     /* non-ASCII (jansson checks UTF-8) */
        "{\"a\":\"\xff\"}",            /* invalid UTF-8 */
        "{\"a\":\"tab\there\"}",       /* a raw control character */
        "{\"a\":1.5}",                 /* fractions */
        "{\"a\":1e3}",                 /* exponents */
        "{\"a\":1234567890123456789}", /* more than 18 digits */
        "{\"a\":01}",                  /* leading zero */
        "{\"a\":-}",
        "{\"a\":+1}",
        "{\"a\":tru}",
        "{\"a\":truex}",
        "{\"a\":NaN}",
        "{\"a\":1,}",
        "[1,]",
        "{\"a\" 1}",
        "{a:1}",
        "{\"a\":1}x", /* trailing data */
        "{\"a\":1}{}",
        "{\"a\":[1,2}",
        "{\"a\":1",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", /* 33 deep */
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        assert_declined(docs[i], strlen(docs[i]));
    assert_declined("{\"a\":1}\0", 8);       /* a NUL after the value */
    assert_declined("{\"a\":\"x\0y\"}", 11); /* a NUL inside a string */
}

Test(jsonr, reads_only_the_bytes_it_is_given)
{
    /* Not NUL-terminated: the value ends where len says. */
    const char text[] = "[1,2]]]]";
    json_t *v = jsonr_parse(text, 5);
    cr_assert_not_null(v);
    cr_assert_eq(json_array_size(v), 2);
    json_decref(v);
    assert_declined(text, 4);
}

/* jsonr_load, for the service's own stored texts: what the fast path declines (an escape, a
 * fraction, a duplicate key, which json_loads(text, 0) keeps the last of) comes back as
 * jansson reads it; what is not JSON is NULL. */
Test(jsonr, load_falls_back_to_jansson_for_what_it_declines)
{
    static const char *const texts[] = {
        "{\"a\":[1,true,null],\"b\":\"plain\"}",
        "{\"explain\":\"a \\\"quoted\\\" word\\n\"}",
        "{\"p\":0.375,\"q\":[1e3]}",
        "{\"k\":1,\"k\":2}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_t *want = json_loadb(texts[i], strlen(texts[i]), 0, NULL);
        json_t *got = jsonr_load(texts[i], strlen(texts[i]));
        cr_assert_not_null(want);
        cr_assert(json_equal(want, got), "%s", texts[i]);
        json_decref(want);
        json_decref(got);
    }
    cr_assert_null(jsonr_load("{\"a\":", 5));
    json_t *dup = jsonr_load("{\"k\":1,\"k\":2}", 13);
    cr_assert_eq(json_integer_value(json_object_get(dup, "k")), 2);
    json_decref(dup);
}

/* jsonr_load_member, for a replay's fold: the member's value as jansson reads the whole text,
 * whatever the members it skips hold (escapes, quotes and brackets inside strings, fractions,
 * nesting), NULL when absent or not an object. */
Test(jsonr, load_member_gives_what_the_whole_text_holds)
{
    static const char *const texts[] = {
        "{\"engine\":4,\"input\":{\"type\":\"facing\",\"actor\":\"a\",\"facing\":3},"
        "\"result\":{\"type\":\"facing\",\"facing\":3,\"rule\":\"000 Changing Facing\"},"
        "\"effects\":[{\"op\":\"set\",\"target\":\"a\",\"fields\":{\"facing\":3}}]}",
        "{\"effects\":[],\"input\":{}}",
        "{ \"s\" : \"a \\\"}]\\\\\" , \"n\" : -0.5e3 , \"t\" : [true,null,{\"x\":[[]]}] ,"
        " \"effects\" : { \"k\" : \"v\" } }",
        "{\"x\":\"[{\",\"effects\":\"caf\xc3\xa9\\n\"}", /* declined by the fast path */
        "{\"effects\":1,\"effects\":2}",                 /* jansson keeps the last */
        "{\"input\":{\"effects\":1},\"effects\":false}", /* a nested one is not the member */
        "{\"input\":1}",                                 /* absent */
        "[{\"effects\":1}]",                             /* not an object */
        "{}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_t *whole = json_loadb(texts[i], strlen(texts[i]), 0, NULL);
        cr_assert_not_null(whole, "%s", texts[i]);
        json_t *want = json_object_get(whole, "effects");
        json_t *got = jsonr_load_member(texts[i], strlen(texts[i]), "effects");
        cr_assert(want == NULL ? got == NULL : json_equal(want, got), "%s", texts[i]);
        json_decref(got);
        json_decref(whole);
    }
    cr_assert_null(jsonr_load_member("{\"effects\":", 11, "effects"));
    cr_assert_null(jsonr_load_member("{\"a\":\"x\\", 8, "effects"));
}

/* Each byte in a string and in a name (the fast path reads strings through a table of the bytes
 * it copies): printable ASCII but the quote and the backslash is built as jansson builds it,
 * every other byte is declined. */
Test(jsonr, every_byte_in_a_string_and_a_name)
{
    for (int b = 0; b < 256; b++) {
        char value[16], name[16];
        snprintf(value, sizeof value, "{\"a\":\"x%cy\"}", b ? b : '?');
        snprintf(name, sizeof name, "{\"x%cy\":1}", b ? b : '?');
        value[7] = (char)b, name[3] = (char)b; /* the NUL too */
        bool plain = b >= 0x20 && b < 0x80 && b != '"' && b != '\\';
        if (plain) {
            assert_same_as_jansson(value);
            assert_same_as_jansson(name);
        } else {
            assert_declined(value, 11);
            assert_declined(name, 9);
        }
    }
}

/* jw_dump, the writer the encounter writes use instead of json_dumps: the same values, and for
 * text without control characters the same bytes. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"

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

/* codec_index_begin (service/json/fields.h, issue 33): inside it, obj's members are found in a
 * table made once; every answer must be json_object_get's, names holding a NUL and misses
 * included, nested objects each with their own table, and objects too large for one read from
 * jansson's table as before. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>

#include "service/json/errors.h"
#include "service/json/fields.h"

static const char *const names[] = {"x", "y", "z", "size", "a", "ab", "", "facing", "q", NULL};

static void assert_as_jansson(json_t *obj)
{
    for (int i = 0; names[i] != NULL; i++)
        cr_assert_eq(codec_member(obj, names[i]), json_object_get(obj, names[i]), "%s", names[i]);
}

Test(codec_index, finds_what_jansson_finds)
{
    json_t *obj = json_pack("{s:i, s:i, s:s}", "x", 1, "y", 2, "size", "large");
    json_object_setn_new(obj, "a\0b", 3, json_integer(3)); /* a name holding a NUL */
    json_object_set_new(obj, "ab", json_integer(4));
    json_object_set_new(obj, "", json_integer(5));
    codec_index_begin(obj);
    assert_as_jansson(obj);
    cr_assert_null(codec_member(obj, "a"), "a name holding a NUL matched its prefix");
    cr_assert_eq(json_integer_value(codec_member(obj, "ab")), 4);
    cr_assert_eq(json_integer_value(codec_member(obj, "")), 5);
    long long v = 0;
    struct svc_errors e;
    svc_errors_init(&e);
    cr_assert(codec_get_int(obj, "", "y", true, 0, 10, &v, &e));
    cr_assert_eq(v, 2);
    cr_assert(!codec_get_int(obj, "", "z", true, 0, 10, &v, &e));
    cr_assert(svc_errors_any(&e)); /* /z is required */
    svc_errors_free(&e);
    codec_index_end();
    assert_as_jansson(obj);
    json_decref(obj);
}

Test(codec_index, nests_and_leaves_others_to_jansson)
{
    json_t *outer = json_pack("{s:i, s:{s:i, s:i}}", "x", 1, "inner", "y", 2, "facing", 3);
    json_t *inner = json_object_get(outer, "inner");
    json_t *big = json_object(); /* more members than a table holds */
    for (int i = 0; i < CODEC_INDEX_MEMBERS + 8; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        json_object_set_new(big, key, json_integer(i));
    }
    json_object_set_new(big, "q", json_integer(-1));
    codec_index_begin(outer);
    codec_index_begin(inner);
    codec_index_begin(big);
    assert_as_jansson(outer);
    assert_as_jansson(inner);
    assert_as_jansson(big);
    cr_assert_eq(json_integer_value(codec_member(big, "q")), -1);
    cr_assert_eq(json_integer_value(codec_member(inner, "facing")), 3);
    cr_assert_null(codec_member(outer, "facing"));
    codec_index_end();
    codec_index_end();
    assert_as_jansson(inner);
    codec_index_end();
    json_decref(big);
    json_decref(outer);
}

Test(codec_index, deeper_than_its_levels_still_answers)
{
    json_t *objs[CODEC_INDEX_DEPTH + 2];
    for (int i = 0; i < CODEC_INDEX_DEPTH + 2; i++) {
        objs[i] = json_pack("{s:i}", "x", i);
        codec_index_begin(objs[i]);
    }
    for (int i = 0; i < CODEC_INDEX_DEPTH + 2; i++)
        cr_assert_eq(json_integer_value(codec_member(objs[i], "x")), i);
    for (int i = CODEC_INDEX_DEPTH + 1; i >= 0; i--) {
        codec_index_end();
        assert_as_jansson(objs[i]);
        json_decref(objs[i]);
    }
}

/* Each request starts with no table: one a handler left open (a begin without its end) would
 * otherwise answer for an object freed since, or for one changed since. */
Test(codec_index, a_request_begins_with_none_left_open)
{
    json_t *obj = json_pack("{s:i}", "a", 1);
    codec_request_begin("POST", "/v1/geometry/distance");
    codec_index_begin(obj); /* left open */
    codec_request_end();
    codec_request_begin("POST", "/v1/geometry/distance");
    json_object_del(obj, "a");
    cr_assert_null(codec_member(obj, "a"), "a member read through the last request's table");
    codec_request_end();
    json_decref(obj);
}

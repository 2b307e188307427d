/* codec_members (service/json/fields.h, issue 33): a decoder's members found in one walk of the
 * object. Each value must be json_object_get's for its name and the errors codec_reject_unknown's,
 * the same texts in the same order: for names holding a NUL, names listed twice, names that
 * need escaping in a pointer, objects too large for one walk's table, and not objects at all. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/json/errors.h"
#include "service/json/fields.h"

static const char *const known[] = {"x", "y", "z", "size", "a", "ab", "", "facing", "x", NULL};

/* The errors as text, for comparing two lists. */
static char *errors_text(struct svc_errors *e)
{
    char *text = json_dumps(e->list, JSON_COMPACT);
    cr_assert_not_null(text);
    return text;
}

/* codec_members(obj) against json_object_get and codec_reject_unknown, through the lists given
 * (their names one after another, as known is split). */
static void assert_as_before(json_t *obj, const char *const *const *lists, size_t nlists)
{
    json_t *got[CODEC_MEMBERS_MAX];
    struct svc_errors mine, before;
    svc_errors_init(&mine);
    svc_errors_init(&before);
    codec_members_in(obj, "/obj", lists, nlists, got, CODEC_MEMBERS_MAX, &mine);
    codec_reject_unknown(obj, "/obj", known, &before);
    for (int i = 0; known[i] != NULL; i++)
        cr_assert_eq(got[i], json_object_get(obj, known[i]), "member %d (%s)", i, known[i]);
    char *a = errors_text(&mine), *b = errors_text(&before);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    svc_errors_free(&mine);
    svc_errors_free(&before);
}

static void assert_both_ways(json_t *obj)
{
    const char *const *whole[] = {known};
    assert_as_before(obj, whole, 1);
    static const char *const first[] = {"x", "y", "z", NULL}, *const second[] = {"size", NULL},
                             *const rest[] = {"a", "ab", "", "facing", "x", NULL};
    const char *const *split[] = {first, NULL, second, rest};
    assert_as_before(obj, split, 4);
}

Test(codec_members, finds_what_jansson_finds_and_reports_what_reject_unknown_does)
{
    json_t *obj = json_pack("{s:i, s:s, s:i, s:i, s:i}", "y", 2, "size", "large", "bogus", 1, "x",
                            1, "a~b/c", 3);
    json_object_setn_new(obj, "a\0b", 3, json_integer(3)); /* a name holding a NUL */
    json_object_setn_new(obj, "q\0", 2, json_integer(4));  /* unknown, with a NUL */
    json_object_set_new(obj, "ab", json_integer(4));
    json_object_set_new(obj, "", json_integer(5));
    json_object_set_new(obj, "zz", json_integer(6));
    assert_both_ways(obj);
    json_t *got[CODEC_MEMBERS_MAX];
    struct svc_errors e;
    svc_errors_init(&e);
    codec_members(obj, "/obj", known, got, CODEC_MEMBERS_MAX, &e);
    cr_assert_null(got[4], "a name holding a NUL was taken for its prefix");
    cr_assert_eq(json_integer_value(got[0]), 1);
    cr_assert_eq(got[8], got[0], "a name listed twice has its value at both places");
    cr_assert_null(got[2]);
    char *text = errors_text(&e);
    cr_assert(strstr(text, "/obj/a~0b~1c") && strstr(text, "/obj/bogus") && strstr(text, "/obj/zz"),
              "%s", text);
    free(text);
    svc_errors_free(&e);
    json_decref(obj);
}

Test(codec_members, a_name_holding_a_nul_beside_its_prefix)
{
    json_t *obj = json_object();
    json_object_setn_new(obj, "x\0y", 3, json_integer(1));
    json_object_set_new(obj, "x", json_integer(2));
    json_object_setn_new(obj, "facing\0", 7, json_integer(3));
    assert_both_ways(obj);
    json_decref(obj);
}

/* Members are found through a bit for their first two bytes (64 bits): several members under
 * one bit must each be found, whether they share their first two bytes ("ab", "ab\0", "abc",
 * "a", "") or only the bit ("a!" has x's, "b=" facing's, "s)" size's), known or not, and in
 * either order of the object. */
Test(codec_members, members_sharing_a_bit_are_each_found)
{
    for (int order = 0; order < 2; order++) {
        static const char *const names[] = {"a!", "x", "b=zz", "facing", "ab", "abc",
                                            "s)", "a", "size", "ab\0",   "",   "b="};
        static const size_t lens[] = {2, 1, 4, 6, 2, 3, 2, 1, 4, 3, 0, 2};
        json_t *obj = json_object();
        for (int k = 0; k < 12; k++) {
            int i = order == 0 ? k : 11 - k;
            json_object_setn_new(obj, names[i], lens[i], json_integer(i));
        }
        assert_both_ways(obj);
        json_t *got[CODEC_MEMBERS_MAX];
        struct svc_errors e;
        svc_errors_init(&e);
        codec_members(obj, "/obj", known, got, CODEC_MEMBERS_MAX, &e);
        cr_assert_eq(json_integer_value(got[0]), 1); /* x */
        cr_assert_eq(json_integer_value(got[3]), 8); /* size */
        cr_assert_eq(json_integer_value(got[4]), 7); /* a */
        cr_assert_eq(json_integer_value(got[5]), 4); /* ab, not "ab\0" */
        cr_assert_eq(json_integer_value(got[6]), 10);
        cr_assert_eq(json_integer_value(got[7]), 3); /* facing */
        cr_assert_eq(got[8], got[0]);
        cr_assert_null(got[1]);
        cr_assert_null(got[2]);
        char *text = errors_text(&e);
        for (int i = 0; i < 12; i++)
            if (i == 0 || i == 2 || i == 5 || i == 6 || i == 11) {
                char ptr[16];
                snprintf(ptr, sizeof ptr, "\"/obj/%s\"", names[i]);
                cr_assert(strstr(text, ptr), "%s not in %s", ptr, text);
            }
        cr_assert_eq(json_array_size(e.list), 5, "%s", text);
        free(text);
        svc_errors_free(&e);
        json_decref(obj);
    }
}

Test(codec_members, objects_too_large_for_one_walk)
{
    json_t *big = json_object();
    for (int i = 0; i < CODEC_INDEX_MEMBERS + 8; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        json_object_set_new(big, key, json_integer(i));
    }
    json_object_set_new(big, "facing", json_integer(-1));
    json_object_set_new(big, "x", json_integer(7));
    assert_both_ways(big);
    json_decref(big);
}

Test(codec_members, every_member_known_or_none_there)
{
    json_t *none = json_object();
    assert_both_ways(none);
    json_t *all = json_pack("{s:i, s:i, s:i, s:s, s:i, s:i, s:i, s:i}", "x", 1, "y", 2, "z", 3,
                            "size", "tiny", "a", 4, "ab", 5, "", 6, "facing", 7);
    assert_both_ways(all);
    json_decref(none);
    json_decref(all);
}

Test(codec_members, not_an_object_gives_nothing_and_no_error)
{
    json_t *arr = json_pack("[i, i]", 1, 2);
    json_t *got[CODEC_MEMBERS_MAX];
    for (int i = 0; i < CODEC_MEMBERS_MAX; i++)
        got[i] = arr; /* anything but NULL */
    struct svc_errors e;
    svc_errors_init(&e);
    codec_members(arr, "/obj", known, got, CODEC_MEMBERS_MAX, &e);
    for (int i = 0; known[i] != NULL; i++)
        cr_assert_null(got[i]);
    cr_assert(!svc_errors_any(&e));
    svc_errors_free(&e);
    json_decref(arr);
}

/* codec_pointer (RFC 6901): a name's '~' and '/' escaped, whether the pointer is written in
 * one pass (when it fits escaped or not) or cut to fit where a character of the name ends. */
Test(codec_pointer, escapes_and_cuts_where_a_character_ends)
{
    char out[CODEC_PTR_MAX];
    codec_pointer(out, "/attacker", "a~b/c");
    cr_assert_str_eq(out, "/attacker/a~0b~1c");
    codec_pointer(out, "", "defender");
    cr_assert_str_eq(out, "/defender");
    codec_pointer(out, "/x", "");
    cr_assert_str_eq(out, "/x/");
    /* 126 tildes after "/x/" fill the 255 bytes exactly; 130 are cut to the same 126. */
    char tildes[131], want[CODEC_PTR_MAX] = "/x/";
    memset(tildes, '~', 130);
    for (int i = 0; i < 126; i++)
        strcat(want, "~0");
    tildes[126] = '\0';
    codec_pointer(out, "/x", tildes);
    cr_assert_str_eq(out, want);
    tildes[126] = '~';
    tildes[130] = '\0';
    codec_pointer(out, "/x", tildes);
    cr_assert_str_eq(out, want);
    /* A name in two-byte characters too long for the pointer: cut between characters. */
    char wide[401] = "";
    for (int i = 0; i < 200; i++)
        strcat(wide, "\xc3\xa9");
    codec_pointer(out, "/x", wide);
    cr_assert_eq(strlen(out), 3 + 252, "%zu", strlen(out));
    cr_assert_eq(strncmp(out, "/x/", 3), 0);
    cr_assert_eq(strncmp(out + 3, wide, 252), 0);
}

/* codec_string_of's limit counts code points (the contract's maxLength), not bytes: at the limit
 * in ASCII, in Cyrillic (2 bytes each) and in CJK (3 bytes each) a string is taken, one point
 * more is refused with the limit named, and a NUL is refused whatever the length. */
Test(codec_string, the_limit_counts_code_points)
{
    static const char *const points[] = {"a", "\xd0\x96", "\xe6\x97\xa5"}; /* a, Ж, 日 */
    for (size_t p = 0; p < 3; p++) {
        for (size_t n = 4; n <= 6; n++) {
            char text[64] = "";
            for (size_t i = 0; i < n; i++)
                strcat(text, points[p]);
            json_t *obj = json_pack("{s:s}", "name", text);
            const char *got = NULL;
            struct svc_errors e;
            svc_errors_init(&e);
            bool ok =
                codec_string_of(obj, json_object_get(obj, "name"), "/c", "name", true, 5, &got, &e);
            cr_assert_eq(ok, n <= 5, "%zu points of %s", n, points[p]);
            if (ok) {
                cr_assert_str_eq(got, text);
                cr_assert(!svc_errors_any(&e));
            } else {
                char *errs = json_dumps(e.list, JSON_COMPACT);
                cr_assert_str_eq(errs, "[{\"pointer\":\"/c/name\",\"message\":\"must be at most 5 "
                                       "characters long\"}]");
                free(errs);
            }
            svc_errors_free(&e);
            json_decref(obj);
        }
    }
    json_t *obj = json_object();
    json_object_set_new(obj, "name", json_stringn("ab\0c", 4));
    const char *got = NULL;
    struct svc_errors e;
    svc_errors_init(&e);
    cr_assert(!codec_string_of(obj, json_object_get(obj, "name"), "/c", "name", true, 5, &got, &e));
    cr_assert(svc_errors_any(&e));
    svc_errors_free(&e);
    json_decref(obj);
}

/* A name list longer than the caller's out array is a decoder's bug: every build stops there
 * (abort) rather than write past out, whether obj is an object or not (review). */
Test(codec_members, more_names_than_room_aborts, .signal = SIGABRT)
{
    static const char *const three[] = {"a", "b", "c", NULL};
    json_t *obj = json_pack("{s:i}", "a", 1);
    json_t *got[2];
    struct svc_errors e;
    svc_errors_init(&e);
    codec_members(obj, "/obj", three, got, sizeof got / sizeof got[0], &e);
}

/* codec_members keeps a table per list set (per thread): a list changed in place, at the same
 * address, must be read as it is now, and many list sets in turn (more than the tables kept)
 * must each give their own members. */
Test(codec_members, a_list_changed_in_place_and_many_lists_in_turn)
{
    json_t *obj = json_pack("{s:i, s:i}", "x", 1, "y", 2);
    const char *list[] = {"x", NULL};
    json_t *got[CODEC_MEMBERS_MAX];
    struct svc_errors e;
    svc_errors_init(&e);
    codec_members(obj, "/obj", list, got, CODEC_MEMBERS_MAX, &e);
    cr_assert_eq(json_integer_value(got[0]), 1);
    cr_assert_eq(json_array_size(e.list), 1); /* y */
    list[0] = "y";
    svc_errors_free(&e);
    svc_errors_init(&e);
    codec_members(obj, "/obj", list, got, CODEC_MEMBERS_MAX, &e);
    cr_assert_eq(json_integer_value(got[0]), 2);
    cr_assert_eq(json_array_size(e.list), 1); /* x */
    svc_errors_free(&e);
    /* 100 lists, each a name of its own then "x" */
    static char names[100][8];
    static const char *lists[100][3];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 100; i++) {
            snprintf(names[i], sizeof names[i], "n%d", i);
            lists[i][0] = names[i];
            lists[i][1] = (i + round) % 2 ? "x" : "y"; /* changed in the second round */
            lists[i][2] = NULL;
            svc_errors_init(&e);
            codec_members(obj, "/obj", lists[i], got, CODEC_MEMBERS_MAX, &e);
            cr_assert_null(got[0]);
            cr_assert_eq(json_integer_value(got[1]), (i + round) % 2 ? 1 : 2, "list %d", i);
            cr_assert_eq(json_array_size(e.list), 1);
            svc_errors_free(&e);
        }
    json_decref(obj);
}

/* A list grown or cut in place (a name put where its NULL was, or a NULL over its last name),
 * and a list set split otherwise over its lists: each call reads its lists as they are now (the
 * table keeps the lists' lengths, perf9). */
Test(codec_members, a_list_grown_or_cut_in_place)
{
    json_t *obj = json_pack("{s:i, s:i, s:i}", "x", 1, "y", 2, "z", 3);
    json_t *got[CODEC_MEMBERS_MAX];
    struct svc_errors e;
    const char *list[] = {"x", NULL, NULL, NULL};
    const char *tail[] = {"z", NULL};
    for (int round = 0; round < 4; round++) {
        /* 0: x then z; 1: x, y then z; 2: x then z again; 3: x, y, z in the first list, none */
        list[1] = round % 2 ? "y" : NULL;
        list[2] = round == 3 ? "z" : NULL;
        tail[0] = round == 3 ? NULL : "z";
        const char *const *lists[] = {list, tail};
        svc_errors_init(&e);
        codec_members_in(obj, "/obj", lists, 2, got, CODEC_MEMBERS_MAX, &e);
        cr_assert_eq(json_integer_value(got[0]), 1, "round %d", round);
        if (round % 2) {
            cr_assert_eq(json_integer_value(got[1]), 2, "round %d", round);
            cr_assert_eq(json_integer_value(got[2]), 3, "round %d", round);
            cr_assert_eq(json_array_size(e.list), 0, "round %d", round);
        } else {
            cr_assert_eq(json_integer_value(got[1]), 3, "round %d", round);
            cr_assert_eq(json_array_size(e.list), 1, "round %d: y is unknown", round);
        }
        svc_errors_free(&e);
    }
    json_decref(obj);
}

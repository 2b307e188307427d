/* POST /v1/dice/roll against the real server. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(dice_api);

static json_t *roll(const char *body, int status)
{
    return http_post_json(&srv, "/v1/dice/roll", body, status);
}

Test(dice_api, same_seed_and_request_give_byte_identical_answers)
{
    const char *body = "{\"expression\":\"2d6+1d4+3\",\"seed\":987654321}";
    tb_same_answer_twice(&srv, "/v1/dice/roll", body);
}

Test(dice_api, supplied_results_are_used_and_reported)
{
    json_t *doc = roll("{\"expression\":\"4d6kh3+2\",\"results\":[1,5,3,6]}", 200);
    cr_assert_eq(json_integer_value(json_object_get(doc, "total")), 16);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "source")), "supplied");
    cr_assert_null(json_object_get(doc, "seed"));
    json_t *dice = json_object_get(json_array_get(json_object_get(doc, "terms"), 0), "dice");
    cr_assert_eq(json_array_size(dice), 4);
    cr_assert(json_is_false(json_object_get(json_array_get(dice, 0), "kept")));
    cr_assert_eq(json_integer_value(json_object_get(doc, "min")), 5);
    cr_assert_eq(json_integer_value(json_object_get(doc, "max")), 20);
    json_decref(doc);
}

Test(dice_api, a_roll_without_seed_reports_the_seed_that_reproduces_it)
{
    json_t *first = roll("{\"expression\":\"5d20\"}", 200);
    json_int_t seed = json_integer_value(json_object_get(first, "seed"));
    char body[128];
    snprintf(body, sizeof body, "{\"expression\":\"5d20\",\"seed\":%lld}", (long long)seed);
    json_t *again = roll(body, 200);
    cr_assert(json_equal(first, again));
    json_decref(first);
    json_decref(again);
}

Test(dice_api, supplied_results_that_do_not_fit_are_422_at_the_result)
{
    json_t *doc = roll("{\"expression\":\"2d6\",\"results\":[3,7]}", 422);
    cr_assert_str_eq(tb_first_pointer(doc), "/results/1");
    json_decref(doc);
    doc = roll("{\"expression\":\"2d6\",\"results\":[3]}", 422);
    cr_assert_str_eq(tb_first_pointer(doc), "/results");
    json_decref(doc);
    doc = roll("{\"expression\":\"2d6\",\"results\":[3,4],\"seed\":1}", 422);
    json_decref(doc);
}

Test(dice_api, nonsense_expressions_are_422_naming_expression)
{
    static const char *const bad[] = {
        "d0", "0d6", "1001d6", "1d1001", "1d6+abc", "99999999999999999999d6", "1d6 2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char body[128];
        snprintf(body, sizeof body, "{\"expression\":\"%s\"}", bad[i]);
        json_t *doc = roll(body, 422);
        cr_assert_str_eq(tb_first_pointer(doc), "/expression", "%s", bad[i]);
        json_decref(doc);
    }
}

Test(dice_api, wrong_types_are_422)
{
    json_t *doc = roll("{\"expression\":5,\"seed\":\"x\",\"results\":{}}", 422);
    cr_assert_eq(json_array_size(json_object_get(doc, "errors")), 3);
    json_decref(doc);
    doc = roll("[]", 422);
    json_decref(doc);
}

Test(dice_api, more_supplied_results_than_dice_is_422)
{
    json_t *doc = roll("{\"expression\":\"2d6\",\"results\":[3,4,5]}", 422);
    cr_assert_str_eq(tb_first_pointer(doc), "/results");
    json_decref(doc);
}

/* Issue 18: the answer carries Avrae's text (avrae/d20 README, "Examples": roll("2d6ro<3") ->
 * '2d6ro<3 (**~~1~~**, 3, **6**) = `9`'), and the new notation's parts are reported. */
Test(dice_api, the_answer_carries_avraes_text_and_the_reroll)
{
    json_t *doc = roll("{\"expression\":\"2d6ro<3\",\"results\":[1,3,6]}", 200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "text")),
                     "2d6ro<3 (**~~1~~**, 3, **6**) = `9`");
    json_t *term = json_array_get(json_object_get(doc, "terms"), 0);
    json_t *r = json_object_get(term, "reroll");
    cr_assert_str_eq(json_string_value(json_object_get(r, "compare")), "below");
    cr_assert_eq(json_integer_value(json_object_get(r, "face")), 3);
    cr_assert_eq(json_integer_value(json_object_get(r, "times")), 1);
    json_t *first = json_array_get(json_object_get(term, "dice"), 0);
    cr_assert(json_is_true(json_object_get(first, "rerolled")));
    cr_assert(json_is_false(json_object_get(first, "kept")));
    cr_assert_eq(json_integer_value(json_object_get(doc, "total")), 9);
    json_decref(doc);
    doc = roll("{\"expression\":\"3d6 [fire] + 1d4e4 [piercing]\",\"results\":[3,2,2,4,1]}", 200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "text")),
                     "3d6 (3, 2, 2) [fire] + 1d4e4 (**4!**, **1**) [piercing] = `12`");
    term = json_array_get(json_object_get(doc, "terms"), 1);
    cr_assert_str_eq(json_string_value(json_object_get(term, "label")), "piercing");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(term, "explode"), "depth")),
                 20);
    json_decref(doc);
    doc = roll("{\"expression\":\"8d6mi2{+1}\",\"results\":[1,6,4,2,6,2,5,6]}", 200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "text")),
                     "8d6mi2{+1} (1 -> 2, **6**, 4, 2, **6**, 2, 5, **6**) = `41`");
    term = json_array_get(json_object_get(doc, "terms"), 0);
    cr_assert_eq(json_integer_value(json_object_get(term, "min_face")), 2);
    cr_assert_eq(json_integer_value(
                     json_object_get(json_array_get(json_object_get(term, "dice"), 0), "rolled")),
                 1);
    json_decref(doc);
}

/* "[+2]" was "+2 per die"; read as a label it would silently lose the +2, so it is refused
 * with a message that gives the new syntax; unsupported notation is named in the message. */
Test(dice_api, old_per_die_brackets_and_unsupported_notation_are_422_naming_the_part)
{
    json_t *doc = roll("{\"expression\":\"3d6[+2]\"}", 422);
    json_t *e = json_array_get(json_object_get(doc, "errors"), 0);
    const char *msg = json_string_value(json_object_get(e, "message"));
    cr_assert_not_null(strstr(msg, "3d6{+2}"), "%s", msg);
    cr_assert_not_null(strstr(msg, "'[+2]'"), "%s", msg);
    json_decref(doc);
    doc = roll("{\"expression\":\"1d20ra1\"}", 422);
    e = json_array_get(json_object_get(doc, "errors"), 0);
    msg = json_string_value(json_object_get(e, "message"));
    cr_assert_not_null(strstr(msg, "'ra'"), "%s", msg);
    json_decref(doc);
}

/* Issue 31: Avrae's habits through the API: adv rolls 2d20kh1, dis 2d20kl1, and the trailing
 * words are echoed as the comment. */
Test(dice_api, adv_dis_and_a_comment_as_avrae_users_type_them)
{
    json_t *doc = roll("{\"expression\":\"1d20+5 adv\",\"results\":[3,18]}", 200);
    cr_assert_eq(json_integer_value(json_object_get(doc, "total")), 23);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "advantage")), "advantage");
    cr_assert_str_eq(json_string_value(json_object_get(doc, "text")),
                     "2d20kh1 (~~3~~, 18) + 5 = `23`");
    json_t *t0 = json_array_get(json_object_get(doc, "terms"), 0);
    cr_assert_eq(json_integer_value(json_object_get(t0, "count")), 2);
    cr_assert_str_eq(json_string_value(json_object_get(t0, "keep")), "keep_highest");
    cr_assert_null(json_object_get(doc, "comment"));
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "explain")), "advantage"));
    json_decref(doc);
    doc = roll("{\"expression\":\"1d20+5 dis\",\"results\":[3,18]}", 200);
    cr_assert_eq(json_integer_value(json_object_get(doc, "total")), 8);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "advantage")), "disadvantage");
    json_decref(doc);
    doc = roll("{\"expression\":\"8d6 fire\",\"results\":[1,2,3,4,5,6,1,2]}", 200);
    cr_assert_eq(json_integer_value(json_object_get(doc, "total")), 24);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "comment")), "fire");
    cr_assert_str_eq(json_string_value(json_object_get(doc, "expression")), "8d6 fire");
    cr_assert_null(json_object_get(doc, "advantage"));
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "explain")), "(fire)"));
    json_decref(doc);
    doc = roll("{\"expression\":\"8d6 adv\"}", 422);
    cr_assert_str_eq(tb_first_pointer(doc), "/expression");
    json_t *e = json_array_get(json_object_get(doc, "errors"), 0);
    cr_assert_not_null(strstr(tb_text(e, "message"), "1d20"));
    json_decref(doc);
}

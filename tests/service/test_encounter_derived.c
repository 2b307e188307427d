/* Engine 2 derives what the encounter already stores, unless the action declares it (issue 17):
 * Dex to AC from the stored dex, cover from the stored walls and combatants by the d20 3.5
 * SRD's corner-to-corner lines (with the blocking squares reported), concealment from the map's
 * concealed squares. The geometry is rules/cover's pillar case (tests/rules/test_cover.c):
 * archer at (0,0), target at (4,0), a wall or a combatant at (2,0). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(derived);

static json_t *call(struct enc *e, const char *suffix, const char *body, int status)
{
    return enc_call(&srv, e, "POST", suffix, NULL, body, status);
}

/* The archer (dex 10, a shortbow at +0) and the target (armor 2, dex 14: Dex +2 by the SRD's
 * Ability Modifiers) on an 8 x 3 map with `squares`, the archer's turn in round 1, so the target
 * has not acted yet: flat-footed (004 Flat-Footed). */
static void range_at(struct enc *e, const char *squares, int y)
{
    char body[512];
    snprintf(body, sizeof body, "{\"map\":{\"width\":8,\"height\":3,\"squares\":[%s]},\"seed\":3}",
             squares);
    enc_create(&srv, e, body);
    snprintf(body, sizeof body,
             "{\"id\":\"archer\",\"side\":\"a\",\"x\":0,\"y\":%d,\"speeds\":{\"walk\":30},"
             "\"defense\":{\"armor\":2},\"max_hp\":10,\"dex\":10,\"attacks\":[{\"name\":"
             "\"shortbow\",\"attack_bonus\":0,\"damage\":\"1d6\",\"attack\":\"ranged\"}]}",
             y);
    json_decref(call(e, "/combatants", body, 201));
    snprintf(body, sizeof body,
             "{\"id\":\"target\",\"side\":\"b\",\"x\":4,\"y\":%d,\"speeds\":{\"walk\":30},"
             "\"defense\":{\"armor\":2},\"max_hp\":10,\"dex\":14,\"attacks\":[{\"name\":"
             "\"club\",\"attack_bonus\":0,\"damage\":\"1d6\"}]}",
             y);
    json_decref(call(e, "/combatants", body, 201));
    json_decref(call(e, "/initiative", "{\"results\":[20,1,5,1]}", 200));
    json_decref(call(e, "/next-turn", NULL, 200));
}

static void range(struct enc *e, const char *squares)
{
    range_at(e, squares, 0);
}

/* A shot that rolls a 2 (a miss, so no other dice), with `extra` members. */
static json_t *shoot(struct enc *e, const char *extra)
{
    char body[256];
    snprintf(body, sizeof body,
             "{\"type\":\"attack\",\"actor\":\"archer\",\"target\":\"target\",\"results\":[2]"
             "%s}",
             extra);
    return call(e, "/actions", body, 200);
}

static json_t *derived(json_t *doc, const char *what)
{
    return json_object_get(json_object_get(tb_result(doc), "derived"), what);
}

/* A wall square at (2,0): SRD cover +4 = 002 one-half. The target is flat-footed, so its Dex
 * (+2, derived) is lost: AC 10 + 2 armor + 4 cover = 16; the blocking square is reported. */
Test(derived, a_wall_between_gives_half_cover_with_its_square)
{
    struct enc e;
    range(&e, "{\"x\":2,\"y\":0,\"terrain\":\"blocked\"}");
    json_t *doc = shoot(&e, "");
    json_t *cov = derived(doc, "cover");
    cr_assert_str_eq(json_string_value(json_object_get(cov, "value")), "half");
    json_t *sq = json_array_get(json_object_get(cov, "blocking"), 0);
    cr_assert_eq(tb_num(sq, "x"), 2);
    cr_assert_eq(tb_num(sq, "y"), 0);
    cr_assert_eq(tb_num(derived(doc, "defense_dex"), "value"), 2);
    cr_assert_eq(tb_num(tb_result(doc), "target_number"), 16);
    json_decref(doc);
    json_t *v = call(&e, "/verify", NULL, 200);
    cr_assert(json_is_true(json_object_get(v, "ok")));
    json_decref(v);
}

/* The same square held by a third combatant: soft cover, naming it. */
Test(derived, a_combatant_between_gives_cover_and_is_named)
{
    struct enc e;
    range(&e, "");
    json_decref(call(&e, "/combatants",
                     "{\"id\":\"ally\",\"side\":\"a\",\"x\":2,\"y\":0,\"speeds\":{\"walk\":30},"
                     "\"defense\":{\"armor\":0},\"max_hp\":5,\"dex\":10}",
                     201));
    json_t *doc = shoot(&e, "");
    json_t *sq = json_array_get(json_object_get(derived(doc, "cover"), "blocking"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(sq, "combatant")), "ally");
    cr_assert_eq(tb_num(tb_result(doc), "target_number"), 16);
    json_decref(doc);
}

/* Declared cover wins: "none" gives AC 10 + 2 = 12, and the derived cover is still reported,
 * marked declared. */
Test(derived, declared_cover_overrides)
{
    struct enc e;
    range(&e, "{\"x\":2,\"y\":0,\"terrain\":\"blocked\"}");
    json_t *doc = shoot(&e, ",\"cover\":\"none\"");
    cr_assert_eq(tb_num(tb_result(doc), "target_number"), 12);
    cr_assert(json_is_true(json_object_get(derived(doc, "cover"), "declared")));
    json_decref(doc);
}

/* A wall across the map, archer at (0,1) and target at (4,1): every line crosses (2,1) or runs
 * along a border between two wall squares: total cover, refused naming the target. */
Test(derived, total_cover_is_refused)
{
    struct enc e;
    range_at(&e,
             "{\"x\":2,\"y\":0,\"terrain\":\"blocked\"},{\"x\":2,\"y\":1,\"terrain\":\"blocked\"},"
             "{\"x\":2,\"y\":2,\"terrain\":\"blocked\"}",
             1);
    json_t *doc = call(&e, "/actions", TB_ATTACK("archer", "target", "[2]"), 422);
    const char *detail = json_string_value(json_object_get(doc, "detail"));
    cr_assert_not_null(detail);
    cr_assert_not_null(strstr(detail, "total cover"), "%s", detail);
    json_decref(doc);
}

/* The target in a concealed square: 002 one-half concealment (20%); no cover. */
Test(derived, a_target_in_darkness_is_concealed)
{
    struct enc e;
    range(&e, "{\"x\":4,\"y\":0,\"concealed\":true}");
    json_t *doc = shoot(&e, "");
    cr_assert_str_eq(json_string_value(json_object_get(derived(doc, "concealment"), "value")),
                     "half");
    cr_assert_str_eq(json_string_value(json_object_get(derived(doc, "cover"), "value")), "none");
    cr_assert_eq(tb_num(tb_result(doc), "target_number"), 12);
    json_decref(doc);
}

/* Engine 4's rules through HTTP, each quoting its sentence (rules/encounter/engine.h): what a
 * rule needs of the turn's history or of where a condition came from. The board:
 *   kroh (party) at 5,5: Medium, walk 30, AC 15, longsword +8 (1d8+3), base attack bonus 6
 *     (two attacks in a full attack: d20 3.5 SRD, Full Attack), a player character;
 *   goblin (monsters) at 6,5: morningstar +2, aoo_policy ask (its attacks of opportunity are
 *     opened and awaited, so a move's ruling lists each it provokes);
 *   orc (monsters) at 2,9 and bugbear (monsters) at 4,5, as each test adds them.
 * Initiative from the table's dice: kroh 20, then the others; round 2 begun on kroh's turn, so
 * that nobody is flat-footed any more (004 Flat-Footed). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(engine4);

#define KROH                                                                                       \
    "{\"id\":\"kroh\",\"name\":\"Kroh\",\"side\":\"party\",\"x\":5,\"y\":5,\"speeds\":{\"walk\":"  \
    "30},\"defense\":{\"armor\":5},\"max_hp\":30,\"dex\":12,\"base_attack_bonus\":6,"              \
    "\"player_character\":true,\"attacks\":[{\"name\":\"longsword\",\"attack_bonus\":8,"           \
    "\"damage\":\"1d8+3\"}]%s}"
#define GOBLIN                                                                                     \
    "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{\"walk\":30},"           \
    "\"defense\":{\"armor\":2},\"max_hp\":20,\"dex\":13,\"aoo_policy\":\"ask\",\"attacks\":[{"     \
    "\"name\":\"morningstar\",\"attack_bonus\":2,\"damage\":\"1d6\"}]%s}"

/* Kroh and the goblin, with the rules given ("" for the d20-3.5 preset) and a member more on
 * each (facing, "" for none); plus `others` combatants' bodies; initiative rolled with results
 * (kroh first) and round 2 begun on kroh's turn. */
static void fight(struct enc *e, const char *rules, const char *facing, const char *const *others,
                  const char *results, int turns)
{
    char body[1024];
    snprintf(body, sizeof body, "{\"map\":{\"width\":12,\"height\":12},\"seed\":7%s}", rules);
    enc_create(&srv, e, body);
    snprintf(body, sizeof body, KROH, facing);
    json_decref(suite_call(e, "POST", "/combatants", body, 201));
    snprintf(body, sizeof body, GOBLIN, facing);
    json_decref(suite_call(e, "POST", "/combatants", body, 201));
    for (int i = 0; others != NULL && others[i] != NULL; i++)
        json_decref(suite_call(e, "POST", "/combatants", others[i], 201));
    enc_post_ok(&srv, e, "/initiative", results);
    for (int i = 0; i < turns; i++)
        enc_post_ok(&srv, e, "/next-turn", NULL);
}

/* The attacks of opportunity a move's ruling says it provoked. */
static size_t provoked(json_t *doc)
{
    return json_array_size(json_object_get(tb_result(doc), "attacks_of_opportunity"));
}

static const char *const ROUND_TWO = "{\"results\":[20,1,10,1]}";

/* 004 Attacks of Opportunity: "If all a combatant does is take a normal move or a double move
 * (not a run), the space that the combatant started out in is not considered threatened."
 * Kroh attacks the goblin, then moves away: not all it does is move, so leaving 5,5 (beside
 * the goblin) provokes. Engine 3 exempted the first square of every move action. */
Test(engine4, an_attack_then_a_move_out_of_a_threatened_square_provokes)
{
    struct enc e;
    fight(&e, "", "", NULL, ROUND_TWO, 3);
    json_decref(suite_call(&e, "POST", "/actions", TB_ATTACK("kroh", "goblin", "[1]"), 200));
    json_t *doc =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"move\",\"actor\":\"kroh\",\"path\":[{\"x\":4,\"y\":5},{\"x\":"
                   "3,\"y\":5}]}",
                   200);
    cr_assert_eq(provoked(doc), 1);
    json_t *aoo = json_array_get(json_object_get(tb_result(doc), "attacks_of_opportunity"), 0);
    cr_assert_eq(tb_num(aoo, "step"), 0, "it provokes leaving its starting square");
    json_t *opened = json_array_get(json_object_get(tb_result(doc), "reactions"), 0);
    cr_assert_str_eq(tb_text(opened, "by"), "goblin");
    json_decref(doc);
    tb_verify_ok(&srv, &e);
}

/* The same sentence: all it does is move, so the starting square is safe; a second move action
 * leaving a threatened square provokes, as the same path sent as one double move does. */
Test(engine4, a_second_move_action_leaves_its_start_as_any_square)
{
    struct enc e;
    fight(&e, "", "", NULL, ROUND_TWO, 3);
    /* One move: out of 5,5 (safe: its start) to 5,4, still beside the goblin. */
    json_t *doc =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"move\",\"actor\":\"kroh\",\"path\":[{\"x\":5,\"y\":4}]}", 200);
    cr_assert_eq(provoked(doc), 0);
    json_decref(doc);
    /* The second move action leaves 5,4, threatened: it provokes. */
    json_decref(
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"decline_reaction\",\"actor\":\"goblin\",\"target\":\"kroh\"}",
                   422)); /* nothing was opened */
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"move\",\"actor\":\"kroh\",\"path\":[{\"x\":4,\"y\":3}]}", 200);
    cr_assert_eq(provoked(doc), 1);
    json_decref(doc);

    struct enc d;
    fight(&d, "", "", NULL, ROUND_TWO, 3);
    doc = suite_call(
        &d, "POST", "/actions",
        "{\"type\":\"move\",\"actor\":\"kroh\",\"mode\":\"double_move\",\"path\":[{\"x\":5,"
        "\"y\":4},{\"x\":4,\"y\":3}]}",
        200);
    cr_assert_eq(provoked(doc), 1, "the same path as one double move provokes at 5,4");
    json_decref(doc);
}

#define ORC                                                                                        \
    "{\"id\":\"orc\",\"side\":\"monsters\",\"x\":8,\"y\":8,\"speeds\":{\"walk\":30},\"defense\":"  \
    "{\"armor\":4},\"max_hp\":40,\"dex\":10,\"attacks\":[{\"name\":\"greataxe\",\"attack_bonus\":" \
    "5,\"damage\":\"1d12+3\"}]}"
#define PUSH_ORC                                                                                   \
    "{\"type\":\"forced\",\"actor\":\"kroh\",\"target\":\"orc\",\"kind\":\"push\",\"squares\":1,"  \
    "\"path\":[{\"x\":9,\"y\":8}]}"

/* 001 Forced Movement: "A creature which has voluntarily dropped to Prone can elect to ignore
 * any forced movement inflicted upon it as long as it remains prone. However, a creature which
 * was made prone involuntarily gains no such resistance to forced movement until it has had an
 * opportunity to stand up." The orc falls (prone, not of its will) and is pushed all the same;
 * once its own turn has begun it may ignore the next push. A push may no longer claim
 * voluntarily_prone: the encounter knows. */
Test(engine4, a_creature_made_prone_resists_forced_movement_only_after_its_turn)
{
    struct enc e;
    const char *others[] = {ORC, NULL};
    fight(&e, "", "", others, "{\"results\":[20,1,10,1,5,1]}", 4);
    /* Round 2, kroh's turn. The orc falls 10 ft: 1d6 (4), prone. */
    json_t *doc =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"fall\",\"actor\":\"orc\",\"height_ft\":10,\"results\":[4]}", 200);
    json_t *src =
        json_object_get(json_object_get(enc_combatant(doc, "orc"), "condition_sources"), "prone");
    cr_assert(json_is_true(json_object_get(src, "involuntary")));
    cr_assert(json_is_false(json_object_get(src, "had_turn")));
    json_decref(doc);
    enc_post_refused(&srv, &e, "/actions",
                     "{\"type\":\"forced\",\"actor\":\"kroh\",\"target\":\"orc\",\"kind\":\"push\","
                     "\"squares\":1,\"path\":[{\"x\":9,\"y\":8}],\"voluntarily_prone\":true}",
                     "001 Forced Movement");
    doc = suite_call(&e, "POST", "/actions", PUSH_ORC, 200);
    cr_assert_str_eq(tb_code_of(tb_result(doc), "stop"), "complete");
    cr_assert_eq(tb_num(enc_combatant(doc, "orc"), "x"), 9);
    json_decref(doc);
    /* The goblin's turn, then the orc's: its turn is its opportunity to stand. */
    enc_post_ok(&srv, &e, "/next-turn", NULL);
    doc = suite_call(&e, "POST", "/next-turn", NULL, 200);
    cr_assert_str_eq(tb_text(tb_result(doc), "turn_of"), "orc");
    src = json_object_get(json_object_get(enc_combatant(doc, "orc"), "condition_sources"), "prone");
    cr_assert(json_is_true(json_object_get(src, "had_turn")));
    json_decref(doc);
    /* Back to kroh's turn; the push is ignored now (the orc elects to stay put). */
    enc_post_ok(&srv, &e, "/next-turn", NULL);
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"forced\",\"actor\":\"kroh\",\"target\":\"orc\",\"kind\":\"push\","
                     "\"squares\":1,\"path\":[{\"x\":10,\"y\":8}]}",
                     200);
    cr_assert_str_eq(tb_code_of(tb_result(doc), "stop"), "ignored");
    cr_assert_eq(tb_num(enc_combatant(doc, "orc"), "x"), 9);
    json_decref(doc);
    tb_verify_ok(&srv, &e);
}

/* The same sentence: a creature that drops prone of its own will resists at once. */
Test(engine4, a_creature_that_drops_prone_resists_forced_movement_at_once)
{
    struct enc e;
    const char *others[] = {ORC, NULL};
    fight(&e, "", "", others, "{\"results\":[20,1,10,1,5,1]}", 4);
    json_decref(
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"condition\",\"actor\":\"orc\",\"target\":\"orc\",\"condition\":"
                   "\"prone\"}",
                   200));
    json_t *doc = suite_call(&e, "POST", "/actions", PUSH_ORC, 200);
    cr_assert_str_eq(tb_code_of(tb_result(doc), "stop"), "ignored");
    json_decref(doc);
}

#define BUGBEAR                                                                                    \
    "{\"id\":\"bugbear\",\"side\":\"monsters\",\"x\":4,\"y\":5,\"facing\":2,\"speeds\":{\"walk\":" \
    "30},\"defense\":{\"armor\":3},\"max_hp\":40,\"dex\":12,\"attacks\":[{\"name\":\"club\","      \
    "\"attack_bonus\":4,\"damage\":\"1d6+2\"}]}"

/* 000 Combat Facing, Kroh's example: "attack the bugbear, take his free action to change facing
 * towards the goblin, then attack the goblin". Under the facing preset Kroh faces west (6), at
 * the bugbear; his full attack (two attacks, base attack bonus +6) strikes it, turns east (2,
 * the free change of 000 Changing Facing) and strikes the goblin; a second change would take a
 * move action, which a full attack leaves none of. Engine 3's full attack took one target. */
Test(engine4, a_full_attack_changes_facing_and_target_between_its_attacks)
{
    struct enc e;
    const char *others[] = {BUGBEAR, NULL};
    fight(&e, ",\"rules\":{\"preset\":\"d20-3.5-facing\"}", ",\"facing\":6", others,
          "{\"results\":[20,1,10,1,5,1]}", 4);
    json_t *doc = suite_call(
        &e, "POST", "/actions",
        "{\"type\":\"full_attack\",\"actor\":\"kroh\",\"target\":\"bugbear\",\"plan\":["
        "{\"attack\":{\"target\":\"bugbear\"}},{\"facing\":2},{\"attack\":{\"target\":\"goblin\"}}"
        "],\"results\":[[15,4],[12,3]]}",
        200);
    json_t *r = tb_result(doc);
    cr_assert_eq(tb_num(r, "attacks_made"), 2);
    json_t *targets = json_object_get(r, "targets");
    cr_assert_str_eq(json_string_value(json_array_get(targets, 0)), "bugbear");
    cr_assert_str_eq(json_string_value(json_array_get(targets, 1)), "goblin");
    cr_assert_eq(tb_num(json_array_get(json_object_get(r, "facings"), 0), "facing"), 2);
    json_t *k = enc_combatant(doc, "kroh");
    cr_assert_eq(tb_num(k, "facing"), 2);
    cr_assert(json_is_true(json_object_get(json_object_get(k, "turn"), "free_facing")));
    /* The second attack, at +3 (8 - 5), against the goblin's AC 12: 12 + 3 = 15 hits. */
    json_t *second = json_array_get(json_object_get(r, "attacks"), 1);
    cr_assert_eq(tb_num(second, "attack_total"), 3);
    cr_assert(json_is_true(json_object_get(second, "hit")));
    json_decref(doc);
    tb_verify_ok(&srv, &e);

    struct enc f;
    fight(&f, ",\"rules\":{\"preset\":\"d20-3.5-facing\"}", ",\"facing\":6", others,
          "{\"results\":[20,1,10,1,5,1]}", 4);
    enc_post_refused(&srv, &f, "/actions",
                     "{\"type\":\"full_attack\",\"actor\":\"kroh\",\"target\":\"bugbear\","
                     "\"plan\":[\"attack\",{\"facing\":2},{\"facing\":6},\"attack\"]}",
                     "000 Changing Facing");
}

/* fight() under the d20-3.5 preset with a greataxe orc (armor 4, 40 hp) at 5, y, south of kroh;
 * initiative rolled (kroh first) and round 2 begun on kroh's turn. */
static void orc_fight(struct enc *e, int y)
{
    char orc[320];
    snprintf(orc, sizeof orc,
             "{\"id\":\"orc\",\"side\":\"monsters\",\"x\":5,\"y\":%d,\"speeds\":{\"walk\":30},"
             "\"defense\":{\"armor\":4},\"max_hp\":40,\"dex\":10,\"attacks\":[{\"name\":"
             "\"greataxe\",\"attack_bonus\":5}]}",
             y);
    const char *const others[] = {orc, NULL};
    fight(e, "", "", others, "{\"results\":[20,1,10,1,5,1]}", 4);
}

/* GET .../route from actor to `to` as a charge: the answer, a 200 (the caller decrefs). */
static json_t *charge_route(struct enc *e, const char *actor, const char *to)
{
    char query[96];
    snprintf(query, sizeof query, "/route?actor=%s&to=%s&mode=charge", actor, to);
    return suite_call(e, "GET", query, NULL, 200);
}

/* Issue 30: the route a query calls a charge is the charge the action takes. d20 3.5 SRD,
 * Combat: Charge: "You must move at least 10 feet (2 squares) ... directly toward the
 * designated opponent." The orc one square past kroh's reach: no charge reaches it (the route
 * answers found false and why, as the action's 422 says); two squares off: the route is a
 * charge, and the action along it is accepted. */
Test(engine4, a_charge_route_is_the_charge_the_action_takes)
{
    struct enc e;
    orc_fight(&e, 7); /* near: one square past kroh's reach */
    json_t *doc = charge_route(&e, "kroh", "orc");
    cr_assert(json_is_false(json_object_get(doc, "found")));
    cr_assert_str_eq(tb_code_of(doc, "charge"), "short");
    cr_assert_not_null(strstr(tb_text(doc, "explain"), "at least 10 feet"));
    json_decref(doc);
    enc_post_refused(&srv, &e, "/actions",
                     "{\"type\":\"move\",\"actor\":\"kroh\",\"mode\":\"charge\",\"target\":\"orc\","
                     "\"path\":[{\"x\":5,\"y\":6}]}",
                     "at least 10 feet");
    /* A charge's designated opponent is an enemy: the orc charging the goblin, of its own side,
     * finds no route. */
    doc = charge_route(&e, "orc", "goblin");
    cr_assert_str_eq(tb_code_of(doc, "charge"), "no_opponent");
    json_decref(doc);

    struct enc f;
    orc_fight(&f, 9); /* far: two squares off */
    doc = charge_route(&f, "kroh", "orc");
    cr_assert(json_is_true(json_object_get(doc, "found")));
    json_t *steps = json_object_get(doc, "steps");
    cr_assert_eq(json_array_size(steps), 3, "5,6 5,7 5,8: the first square beside the orc");
    json_t *path = json_array();
    size_t i;
    json_t *s;
    json_array_foreach(steps, i, s) json_array_append_new(
        path, json_pack("{s:O, s:O}", "x", json_object_get(s, "x"), "y", json_object_get(s, "y")));
    json_t *action = json_pack("{s:s, s:s, s:s, s:s, s:o}", "type", "move", "actor", "kroh", "mode",
                               "charge", "target", "orc", "path", path);
    char *body = json_dumps(action, 0);
    json_decref(doc);
    doc = suite_call(&f, "POST", "/actions", body, 200);
    cr_assert_eq(provoked(doc), 1, "leaving the goblin's reach provokes; the move waits for it");
    json_decref(doc);
    doc =
        suite_call(&f, "POST", "/actions",
                   "{\"type\":\"decline_reaction\",\"actor\":\"goblin\",\"target\":\"kroh\"}", 200);
    cr_assert_eq(tb_num(enc_combatant(doc, "kroh"), "y"), 8);
    free(body);
    json_decref(action);
    json_decref(doc);
}

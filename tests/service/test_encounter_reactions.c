/* Attacks of opportunity as reactions (issue 17), decided by each reactor's aoo_policy or by
 * the mover's decisions: 004 Attacks of Opportunity ("Provoking an Attack of Opportunity by
 * Moving": the attack strikes the mover as it leaves the threatened square; "Making an Attack of
 * Opportunity": the enemy may make it, one per round). The numbers come from the dice given
 * (results and reaction_results) against the combatants below:
 *   fighter (party) at 5,5: AC 15 (10 + armor 5), 20 hp, walk 30;
 *   goblin (monsters) at 6,5: morningstar +2, 1d6;
 *   orc (monsters) at 3,9: falchion +5, 2d4+4.
 * The fighter's walk 5,6 -> 4,7 -> 4,8 -> 5,9 leaves 5,6 (beside the goblin) and 4,8 (beside
 * the orc): it provokes the goblin, then the orc. 004 does not count the starting square of a
 * normal move as threatened, so leaving 5,5 provokes nothing. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(reactions);

#define WALK                                                                                       \
    "{\"type\":\"move\",\"actor\":\"fighter\",\"path\":[{\"x\":5,\"y\":6},{\"x\":4,\"y\":7},{"     \
    "\"x\":4,\"y\":8},{\"x\":5,\"y\":9}]"

/* The three combatants with the goblin's and the orc's policies ("" for none), initiative
 * rolled (fighter 20, goblin 14, orc 10) and round 2 begun with the fighter's turn, so that
 * neither monster is flat-footed any more (004 Flat-Footed). */
static void fight(struct enc *e, const char *goblin_policy, const char *orc_policy)
{
    enc_create(&srv, e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":11}");
    json_decref(suite_call(e, "POST", "/combatants", TB_FIGHTER(5, 5, ",\"name\":\"Kroh\""), 201));
    char body[512];
    snprintf(
        body, sizeof body,
        "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":2,\"dex\":1,\"size\":1},\"max_hp\":6,\"dex\":13,"
        "\"attacks\":[{\"name\":\"morningstar\",\"attack_bonus\":2,\"damage\":\"1d6\"}]%s%s%s}",
        *goblin_policy ? ",\"aoo_policy\":\"" : "", goblin_policy, *goblin_policy ? "\"" : "");
    json_decref(suite_call(e, "POST", "/combatants", body, 201));
    snprintf(body, sizeof body,
             "{\"id\":\"orc\",\"side\":\"monsters\",\"x\":3,\"y\":9,\"speeds\":{\"walk\":30},"
             "\"defense\":{\"armor\":3},\"max_hp\":15,\"dex\":10,\"attacks\":[{\"name\":"
             "\"falchion\",\"attack_bonus\":5,\"damage\":\"2d4+4\"}]%s%s%s}",
             *orc_policy ? ",\"aoo_policy\":\"" : "", orc_policy, *orc_policy ? "\"" : "");
    json_decref(suite_call(e, "POST", "/combatants", body, 201));
    enc_post_ok(&srv, e, "/initiative", "{\"results\":[20,1,14,1,10,1]}");
    for (int i = 0; i < 4; i++)
        enc_post_ok(&srv, e, "/next-turn", NULL); /* fighter, goblin, orc; round 2: fighter */
}

/* fight() with those policies, then the fighter's WALK (no decisions, no dice): its answer, a
 * 200 (the caller decrefs). */
static json_t *fight_and_walk(struct enc *e, const char *goblin_policy, const char *orc_policy)
{
    fight(e, goblin_policy, orc_policy);
    return suite_call(e, "POST", "/actions", WALK "}", 200);
}

/* fight() with those policies, the fighter set to 2 hp, then WALK with the table's
 * reaction_results (an object): asserts the answer's fighter dropped to hp and stopped at x, y,
 * and returns the answer (the caller decrefs). */
static json_t *dropped(struct enc *e, const char *goblin_policy, const char *orc_policy,
                       const char *reaction_results, long long hp, long long x, long long y)
{
    fight(e, goblin_policy, orc_policy);
    enc_post_ok(&srv, e, "/hp", "{\"target\":\"fighter\",\"set\":2}");
    char body[512];
    snprintf(body, sizeof body, WALK ",\"reaction_results\":%s}", reaction_results);
    json_t *doc = suite_call(e, "POST", "/actions", body, 200);
    json_t *f = enc_combatant(doc, "fighter");
    cr_assert_eq(tb_num(f, "hp"), hp);
    tb_at(f, x, y);
    return doc;
}

static json_t *state_of(json_t *doc)
{
    return json_object_get(doc, "state");
}

/* The log verifies, exports, imports under a new id and verifies there too. */
static void replays(struct enc *e)
{
    json_t *v = suite_call(e, "POST", "/verify", NULL, 200);
    cr_assert(json_is_true(json_object_get(v, "ok")), "%s", json_dumps(v, 0));
    json_decref(v);
    json_t *ex = suite_call(e, "GET", "/export", NULL, 200);
    char *t = json_dumps(ex, JSON_COMPACT);
    json_decref(ex);
    json_t *ans = http_post_json(&srv, "/v1/encounters/import", t, 201);
    free(t);
    struct enc copy = {.version = tb_num(ans, "version")};
    snprintf(copy.id, sizeof copy.id, "%s", tb_text(ans, "id"));
    snprintf(copy.token, sizeof copy.token, "%s", tb_text(ans, "token"));
    cr_assert_eq(copy.version, e->version + 1); /* the copy's own event (imported) */
    json_decref(ans);
    tb_verify_ok(&srv, &copy);
}

/* always: the engine makes the goblin's attack inside the move, at 5,6, with its first attack
 * profile: d20 19 + 2 = 21 against AC 16 (10 + armor 5 + Dex +1, derived from the fighter's
 * stored dex 12 by the d20 3.5 SRD's Ability Modifiers, its defense having no dex part) hits, 1d6
 * rolls 3; the move goes on to 5,9, where the orc (never) lets it pass. */
Test(reactions, always_attacks_inside_the_move_and_the_move_goes_on)
{
    struct enc e;
    fight(&e, "always", "never");
    json_t *doc =
        suite_call(&e, "POST", "/actions", WALK ",\"reaction_results\":{\"goblin\":[19,3]}}", 200);
    json_t *list = json_object_get(tb_result(doc), "reactions");
    cr_assert_eq(json_array_size(list), 2);
    json_t *g = json_array_get(list, 0), *o = json_array_get(list, 1);
    cr_assert_str_eq(tb_text(g, "by"), "goblin");
    cr_assert_str_eq(tb_text(g, "outcome"), "made");
    tb_at(g, 5, 6);
    json_t *atk = json_object_get(g, "attack");
    cr_assert_eq(tb_num(atk, "d20"), 19);
    cr_assert_eq(tb_num(atk, "roll_total"), 21);
    cr_assert_eq(tb_num(atk, "target_number"), 16);
    cr_assert_eq(tb_num(json_object_get(json_object_get(atk, "derived"), "defense_dex"), "value"),
                 1);
    cr_assert(json_is_true(json_object_get(atk, "hit")));
    cr_assert_str_eq(tb_text(o, "by"), "orc");
    cr_assert_str_eq(tb_text(o, "outcome"), "declined");
    json_t *f = enc_combatant(doc, "fighter");
    cr_assert_eq(tb_num(f, "hp"), 17);
    tb_at(f, 5, 9);
    cr_assert_eq(json_array_size(json_object_get(state_of(doc), "reactions")), 0);
    cr_assert_not(json_is_true(json_object_get(state_of(doc), "awaiting_reactions")));
    cr_assert_not_null(strstr(tb_text(json_object_get(doc, "event"), "explain"),
                              "attack of opportunity hits Kroh: 1d20 (19) + 2 = 21 vs AC 16"));
    json_decref(doc);
    enc_post_ok(&srv, &e, "/next-turn", NULL); /* the next event is ruled: nothing awaits */
    replays(&e);
}

/* always, with the event's own dice (no results given): the ruling reports the dice the seed
 * gave, and the hit points follow from them. */
Test(reactions, always_with_the_events_dice)
{
    struct enc e;
    json_t *doc = fight_and_walk(&e, "always", "");
    json_t *g = json_array_get(json_object_get(tb_result(doc), "reactions"), 0);
    cr_assert_str_eq(tb_text(g, "outcome"), "made");
    json_t *atk = json_object_get(g, "attack");
    cr_assert_eq(tb_num(atk, "roll_total"), tb_num(atk, "d20") + 2);
    long long dealt = json_is_true(json_object_get(atk, "hit"))
                          ? tb_num(json_object_get(atk, "damage"), "dealt")
                          : 0;
    cr_assert_eq(tb_num(enc_combatant(doc, "fighter"), "hp"), 20 - dealt);
    json_decref(doc);
    replays(&e);
}

/* always dropping the mover: at 2 hp the goblin's 19 + 2 hits for 6, the fighter is dying at -4
 * (d20 3.5 SRD, Injury and Death) and its move stops in 5,6, the square it was leaving; the
 * orc's reaction, at a later step, is never opened (the mover never got there). */
Test(reactions, always_dropping_the_mover_stops_the_move_at_the_square_left)
{
    struct enc e;
    json_t *doc = dropped(&e, "always", "ask", "{\"goblin\":[19,6]}", -4, 5, 6);
    cr_assert_str_eq(tb_text(enc_combatant(doc, "fighter"), "hp_state"), "dying");
    json_t *list = json_object_get(tb_result(doc), "reactions");
    cr_assert(json_is_true(json_object_get(json_array_get(list, 0), "stopped")));
    cr_assert_str_eq(tb_text(json_array_get(list, 1), "outcome"), "closed");
    cr_assert_eq(json_array_size(json_object_get(state_of(doc), "reactions")), 0);
    json_decref(doc);
    enc_post_ok(&srv, &e, "/next-turn", NULL);
    replays(&e);
}

/* never: the reaction is not opened, and an attack of opportunity is refused as provoked by
 * nothing. */
Test(reactions, never_opens_no_reaction)
{
    struct enc e;
    json_t *doc = fight_and_walk(&e, "never", "never");
    cr_assert_eq(json_array_size(json_object_get(state_of(doc), "reactions")), 0);
    cr_assert_eq(tb_num(enc_combatant(doc, "fighter"), "hp"), 20);
    json_decref(doc);
    enc_post_refused(&srv, &e, "/actions", TB_AOO("goblin", "fighter", "[19,3]"),
                     "provoked no attack of opportunity from 'goblin'");
    replays(&e);
}

/* ask: the encounter awaits the goblin's reaction (who, against whom, at which step and square)
 * and refuses everything else, naming it, until the goblin answers or declines. */
Test(reactions, ask_awaits_the_answer_and_refuses_everything_else)
{
    struct enc e;
    json_t *doc = fight_and_walk(&e, "ask", "never");
    json_t *s = state_of(doc);
    cr_assert(json_is_true(json_object_get(s, "awaiting_reactions")));
    json_t *r = json_array_get(json_object_get(s, "reactions"), 0);
    cr_assert_str_eq(tb_text(r, "by"), "goblin");
    cr_assert_str_eq(tb_text(r, "mover"), "fighter");
    cr_assert_str_eq(tb_text(r, "policy"), "ask");
    tb_at(r, 5, 6);
    cr_assert_str_eq(
        tb_text(json_array_get(json_object_get(tb_result(doc), "reactions"), 0), "outcome"),
        "awaiting");
    json_decref(doc);
    enc_post_refused(&srv, &e, "/next-turn", NULL,
                     "awaiting reactions: 'goblin' against 'fighter'");
    enc_post_refused(&srv, &e, "/hp", "{\"target\":\"fighter\",\"change\":-1}",
                     "awaiting reactions");
    enc_post_refused(&srv, &e, "/actions",
                     "{\"type\":\"facing\",\"actor\":\"fighter\",\"facing\":2}",
                     "decline_reaction");
    /* The answer: struck at 5,6; d20 19 + 2 = 21 hits AC 15, 1d6 rolls 3. */
    doc = suite_call(&e, "POST", "/actions", TB_AOO("goblin", "fighter", "[19,3]"), 200);
    cr_assert_eq(tb_num(enc_combatant(doc, "fighter"), "hp"), 17);
    cr_assert(json_is_false(json_object_get(state_of(doc), "awaiting_reactions")));
    json_decref(doc);
    enc_post_ok(&srv, &e, "/next-turn", NULL);
    replays(&e);
}

/* decline_reaction closes the reaction, spends nothing, and the encounter goes on. */
Test(reactions, a_decline_closes_the_reaction)
{
    struct enc e;
    json_decref(fight_and_walk(&e, "ask", "never"));
    enc_post_refused(&srv, &e, "/actions",
                     "{\"type\":\"decline_reaction\",\"actor\":\"orc\",\"target\":\"fighter\"}",
                     "'orc' has no reaction open to a move of 'fighter'");
    json_t *doc = suite_call(&e, "POST", "/actions",
                             "{\"type\":\"decline_reaction\",\"actor\":\"goblin\",\"target\":"
                             "\"fighter\"}",
                             200);
    json_t *res = tb_result(doc);
    cr_assert_str_eq(tb_text(res, "declined_by"), "goblin");
    tb_at(res, 5, 6);
    cr_assert(json_is_false(json_object_get(state_of(doc), "awaiting_reactions")));
    cr_assert_eq(tb_num(enc_combatant(doc, "fighter"), "hp"), 20);
    cr_assert_not_null(strstr(tb_text(json_object_get(doc, "event"), "explain"), "declines"));
    json_decref(doc);
    enc_post_ok(&srv, &e, "/next-turn", NULL);
    replays(&e);
}

/* The mover's request decides for this move, over the reactors' policies: the goblin (never)
 * takes its attack, d20 19 + 2 hits for 3; the orc (always) declines. Decisions name
 * combatants, and say take or decline. */
Test(reactions, the_movers_decisions_override_the_policies)
{
    struct enc e;
    fight(&e, "never", "always");
    enc_post_refused(&srv, &e, "/actions", WALK ",\"reactions\":{\"nobody\":\"take\"}}",
                     "/reactions/nobody");
    enc_post_refused(&srv, &e, "/actions", WALK ",\"reactions\":{\"goblin\":\"maybe\"}}",
                     "/reactions/goblin");
    enc_post_refused(&srv, &e, "/actions", WALK ",\"reaction_results\":{\"goblin\":[0]}}",
                     "/reaction_results/goblin/0");
    json_t *doc = suite_call(&e, "POST", "/actions",
                             WALK ",\"reactions\":{\"goblin\":\"take\",\"orc\":\"decline\"},"
                                  "\"reaction_results\":{\"goblin\":[19,3]}}",
                             200);
    cr_assert_eq(tb_num(enc_combatant(doc, "fighter"), "hp"), 17);
    json_t *list = json_object_get(tb_result(doc), "reactions");
    cr_assert_str_eq(tb_text(json_array_get(list, 0), "outcome"), "made");
    cr_assert_str_eq(tb_text(json_array_get(list, 1), "outcome"), "declined");
    json_decref(doc);
    replays(&e);
}

/* An asked reaction at an earlier step holds the engine's attack at a later one: the orc
 * (always) waits until the goblin (ask) has declined, and is then made by the decline's event:
 * d20 18 + 5 = 23 hits AC 15, 2d4+4 rolls 3 and 2: 9 damage. */
Test(reactions, an_engine_attack_waits_behind_an_earlier_asked_one)
{
    struct enc e;
    json_t *doc = fight_and_walk(&e, "ask", "always");
    json_t *list = json_object_get(tb_result(doc), "reactions");
    cr_assert_str_eq(tb_text(json_array_get(list, 0), "outcome"), "awaiting");
    cr_assert_str_eq(tb_text(json_array_get(list, 1), "outcome"), "waiting");
    cr_assert_eq(tb_num(json_array_get(list, 1), "x"), 4);
    cr_assert_eq(tb_num(json_array_get(list, 1), "y"), 8);
    cr_assert_eq(tb_num(enc_combatant(doc, "fighter"), "hp"), 20);
    json_decref(doc);
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"decline_reaction\",\"actor\":\"goblin\",\"target\":\"fighter\","
                     "\"reaction_results\":{\"orc\":[18,3,2]}}",
                     200);
    json_t *made = json_array_get(json_object_get(tb_result(doc), "reactions"), 0);
    cr_assert_str_eq(tb_text(made, "by"), "orc");
    cr_assert_eq(tb_num(json_object_get(made, "attack"), "roll_total"), 23);
    cr_assert_eq(tb_num(enc_combatant(doc, "fighter"), "hp"), 11);
    cr_assert_eq(json_array_size(json_object_get(state_of(doc), "reactions")), 0);
    json_decref(doc);
    replays(&e);
}

/* Engine 3: "A move that provokes pauses at the square being left" (issue 17): while the
 * goblin's (ask) reaction to the fighter leaving 5,6 is open, the fighter stands in 5,6 and the
 * state keeps where its move ends (paused_move); the goblin declines and the fighter goes on to
 * the orc's (ask) square, 4,8, and pauses again; the orc declines and the move ends at 5,9. */
Test(reactions, an_asked_reaction_pauses_the_move_at_the_square_being_left)
{
    struct enc e;
    json_t *doc = fight_and_walk(&e, "ask", "ask");
    json_t *f = enc_combatant(doc, "fighter");
    tb_at(f, 5, 6);
    json_t *pause = json_object_get(state_of(doc), "paused_move");
    cr_assert_str_eq(tb_text(pause, "mover"), "fighter");
    tb_at(pause, 5, 9);
    json_decref(doc);
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"decline_reaction\",\"actor\":\"goblin\",\"target\":\"fighter\"}",
                     200);
    f = enc_combatant(doc, "fighter");
    tb_at(f, 4, 8);
    cr_assert(json_is_true(json_object_get(state_of(doc), "awaiting_reactions")));
    json_decref(doc);
    doc =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"decline_reaction\",\"actor\":\"orc\",\"target\":\"fighter\"}", 200);
    f = enc_combatant(doc, "fighter");
    tb_at(f, 5, 9);
    cr_assert(json_is_null(json_object_get(state_of(doc), "paused_move")));
    cr_assert(json_is_false(json_object_get(state_of(doc), "awaiting_reactions")));
    json_decref(doc);
    replays(&e);
}

/* Reactions to one move are settled in the order of its steps, and an attack of opportunity
 * that drops the mover closes those at later steps (the mover never got there): the orc's
 * (step at 4,8) is refused before the goblin's (5,6); the goblin's 19 + 2 drops the fighter at
 * 2 hp to -4 in 5,6, and the orc then has nothing to answer. */
Test(reactions, a_drop_closes_the_later_steps_reactions)
{
    struct enc e;
    fight(&e, "ask", "ask");
    enc_post_ok(&srv, &e, "/hp", "{\"target\":\"fighter\",\"set\":2}");
    enc_post_ok(&srv, &e, "/actions", WALK "}");
    enc_post_refused(&srv, &e, "/actions", TB_AOO("orc", "fighter", "[18,3,2]"),
                     "the reaction of 'goblin'");
    json_t *doc = suite_call(&e, "POST", "/actions", TB_AOO("goblin", "fighter", "[19,6]"), 200);
    json_t *f = enc_combatant(doc, "fighter");
    cr_assert_eq(tb_num(f, "hp"), -4);
    tb_at(f, 5, 6);
    cr_assert_eq(json_array_size(json_object_get(state_of(doc), "reactions")), 0);
    cr_assert(json_is_false(json_object_get(state_of(doc), "awaiting_reactions")));
    json_decref(doc);
    enc_post_refused(&srv, &e, "/actions", TB_AOO("orc", "fighter", "[18,3,2]"),
                     "provoked no attack of opportunity from 'orc'");
    replays(&e);
}

/* A reaction at an earlier step stays answerable when the engine's attack at a later step drops
 * the mover: the goblin has no policy (its reaction stays open until the next event, as under
 * engine 2); the orc (always) drops the fighter at 2 hp in 4,8 (18 + 5 hits, 3 + 2 + 4 = 9:
 * -7); the goblin then answers, striking at 5,6 (19 + 2 hits, 1: -8), and the fighter, still
 * dropped, lies where that earlier attack found it. */
Test(reactions, an_earlier_reaction_stays_answerable_after_a_later_drop)
{
    struct enc e;
    json_t *doc = dropped(&e, "", "always", "{\"orc\":[18,3,2]}", -7, 4, 8);
    json_t *open = json_object_get(state_of(doc), "reactions");
    cr_assert_eq(json_array_size(open), 1);
    cr_assert_str_eq(tb_text(json_array_get(open, 0), "by"), "goblin");
    json_decref(doc);
    doc = suite_call(&e, "POST", "/actions", TB_AOO("goblin", "fighter", "[19,1]"), 200);
    json_t *f = enc_combatant(doc, "fighter");
    cr_assert_eq(tb_num(f, "hp"), -8);
    tb_at(f, 5, 6);
    json_decref(doc);
    replays(&e);
}

/* aoo_policy is one of ask, always, never, and can be changed like any member. */
Test(reactions, the_policy_is_validated_and_updatable)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":6,\"height\":6}}");
    enc_post_refused(&srv, &e, "/combatants",
                     "{\"id\":\"a\",\"side\":\"x\",\"x\":1,\"y\":1,\"speeds\":{\"walk\":30},"
                     "\"defense\":{},\"max_hp\":5,\"dex\":10,\"aoo_policy\":\"sometimes\"}",
                     "/aoo_policy");
    json_decref(suite_call(&e, "POST", "/combatants",
                           "{\"id\":\"a\",\"side\":\"x\",\"x\":1,\"y\":1,\"speeds\":{\"walk\":30},"
                           "\"defense\":{},\"max_hp\":5,\"dex\":10,\"aoo_policy\":\"ask\"}",
                           201));
    json_t *doc = suite_call(&e, "PATCH", "/combatants/a", "{\"aoo_policy\":\"never\"}", 200);
    cr_assert_str_eq(tb_text(enc_combatant(doc, "a"), "aoo_policy"), "never");
    json_decref(doc);
}

/* Engine 3: standing up provokes (004 Provoking an Attack of Opportunity by Taking an Action; d20
 * 3.5 SRD, Actions in Combat: standing up from prone provokes). The fighter, prone beside the
 * goblin (always), stands: the goblin strikes it while it is still prone (002: defender prone,
 * -4 to its AC against melee), and it stands. With ask, it lies there until the goblin declines,
 * then stands. */
Test(reactions, standing_up_provokes_and_is_struck_while_prone)
{
    struct enc e;
    fight(&e, "always", "never");
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"condition\",\"actor\":\"fighter\",\"target\":\"fighter\","
                "\"condition\":\"prone\"}");
    json_t *doc = suite_call(&e, "POST", "/actions",
                             "{\"type\":\"stand_up\",\"actor\":\"fighter\",\"reaction_results\":{"
                             "\"goblin\":[2]}}",
                             200);
    json_t *rec = json_array_get(json_object_get(tb_result(doc), "reactions"), 0);
    cr_assert_str_eq(tb_text(rec, "by"), "goblin");
    cr_assert_str_eq(tb_text(rec, "outcome"), "made");
    bool prone_minus_4 = false;
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(json_object_get(rec, "attack"), "modifiers"), i, m)
    {
        prone_minus_4 |=
            strcmp(tb_text(m, "reason"), "defender prone") == 0 && tb_num(m, "value") == -4;
    }
    cr_assert(prone_minus_4, "struck while still prone");
    json_t *conds = json_object_get(enc_combatant(doc, "fighter"), "conditions");
    for (i = 0; i < json_array_size(conds); i++)
        cr_assert_str_neq(json_string_value(json_array_get(conds, i)), "prone");
    json_decref(doc);
    replays(&e);

    struct enc f;
    fight(&f, "ask", "never");
    enc_post_ok(&srv, &f, "/actions",
                "{\"type\":\"condition\",\"actor\":\"fighter\",\"target\":\"fighter\","
                "\"condition\":\"prone\"}");
    doc = suite_call(&f, "POST", "/actions", "{\"type\":\"stand_up\",\"actor\":\"fighter\"}", 200);
    cr_assert(json_is_true(json_object_get(state_of(doc), "awaiting_reactions")));
    cr_assert_not_null(
        strstr(tb_text(json_object_get(doc, "event"), "explain"), "starts to stand up"), "%s",
        tb_text(json_object_get(doc, "event"), "explain"));
    cr_assert_str_eq(json_string_value(json_array_get(
                         json_object_get(enc_combatant(doc, "fighter"), "conditions"), 0)),
                     "prone");
    json_decref(doc);
    doc = suite_call(&f, "POST", "/actions",
                     "{\"type\":\"decline_reaction\",\"actor\":\"goblin\",\"target\":\"fighter\"}",
                     200);
    cr_assert_eq(json_array_size(json_object_get(enc_combatant(doc, "fighter"), "conditions")), 0);
    json_decref(doc);
    replays(&f);
}

/* Under a facing variant (preset d20-3.5-facing, 000 Facing) a combatant given no facing faces
 * its default way, and a move leaves it facing the way it ends (000 Changing Facing: moving, it
 * faces its way). Its move paused for the goblin's asked reaction (004 Provoking an Attack of
 * Opportunity by Moving: the attack is made as the mover leaves the square), the pause keeps
 * that end facing too, and the fighter ends there facing it once the goblin declines: the
 * reactions start from what the move left, its facing with it. */
Test(reactions, a_paused_move_keeps_the_end_facing_of_a_mover_given_none)
{
    struct enc e;
    enc_create(&srv, &e,
               "{\"map\":{\"width\":12,\"height\":12},\"seed\":11,\"rules\":{\"preset\":"
               "\"d20-3.5-facing\"}}");
    json_decref(suite_call(&e, "POST", "/combatants", TB_FIGHTER(5, 5, ""), 201));
    json_decref(suite_call(
        &e, "POST", "/combatants",
        "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"facing\":0,\"speeds\":{"
        "\"walk\":30},\"defense\":{\"armor\":2},\"max_hp\":6,\"aoo_policy\":\"ask\",\"attacks\":[{"
        "\"name\":\"morningstar\",\"attack_bonus\":2,\"damage\":\"1d6\"}]}",
        201));
    enc_post_ok(&srv, &e, "/initiative", "{\"results\":[20,1,14,1]}");
    for (int i = 0; i < 3; i++)
        enc_post_ok(&srv, &e, "/next-turn", NULL); /* fighter, goblin; round 2: fighter */
    json_t *doc = suite_call(&e, "POST", "/actions",
                             "{\"type\":\"move\",\"actor\":\"fighter\",\"path\":[{\"x\":5,\"y\":6},"
                             "{\"x\":5,\"y\":7},{\"x\":5,\"y\":8}]}",
                             200);
    cr_assert(json_object_get(enc_combatant(doc, "fighter"), "facing") == NULL ||
                  json_is_integer(json_object_get(enc_combatant(doc, "fighter"), "facing")),
              "%s", json_dumps(doc, 0));
    json_t *pause = json_object_get(state_of(doc), "paused_move");
    cr_assert_str_eq(tb_text(pause, "mover"), "fighter", "%s", json_dumps(doc, 0));
    tb_at(pause, 5, 8);
    cr_assert(json_is_integer(json_object_get(pause, "facing")), "the end facing is kept: %s",
              json_dumps(pause, 0));
    long long facing = tb_num(pause, "facing");
    json_decref(doc);
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"decline_reaction\",\"actor\":\"goblin\",\"target\":\"fighter\"}",
                     200);
    json_t *f = enc_combatant(doc, "fighter");
    tb_at(f, 5, 8);
    cr_assert_eq(tb_num(f, "facing"), facing);
    cr_assert(json_is_null(json_object_get(state_of(doc), "paused_move")));
    json_decref(doc);
    replays(&e);
}

/* The encounter referees the fight (engine 2): the action economy, the surprise round, hit
 * point states, attacks of opportunity as answers to a provoking move, the hp event; and
 * encounters stored before the engine stamp keep verifying. Each test plays what the referee
 * issue's user saw accepted, and expects the refusal the rule gives. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/encounter/engine.h"
#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(referee);

/* fighter (party) at 5,5 and goblin (monsters) at 6,5, adjacent; initiative: the goblin first
 * (d20 14 + 1 against 10 + 1), and its turn begun. */
static void skirmish(struct enc *e, const char *aware)
{
    suite_create(e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":5}");
    json_decref(suite_call(e, "POST", "/combatants", TB_FIGHTER(5, 5, ",\"name\":\"Kroh\""), 201));
    json_decref(
        suite_call(e, "POST", "/combatants",
                   "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{"
                   "\"walk\":30},\"defense\":{\"armor\":2,\"dex\":1,\"size\":1},\"max_hp\":6,"
                   "\"dex\":13,\"attacks\":[{\"name\":\"morningstar\",\"attack_bonus\":2,"
                   "\"damage\":\"1d6\"}]}",
                   201));
    char body[96];
    snprintf(body, sizeof body, "{\"results\":[10,1,14,1]%s}", aware);
    enc_post_ok(&srv, e, "/initiative", body);
    json_t *doc = suite_call(e, "POST", "/next-turn", NULL, 200);
    cr_assert_str_eq(json_string_value(json_object_get(tb_result(doc), "turn_of")), "goblin");
    /* The state shows what the turn may still spend. */
    json_t *left = json_object_get(json_object_get(enc_combatant(doc, "goblin"), "turn"), "left");
    cr_assert(json_is_true(json_object_get(left, aware[0] ? "standard" : "full_round")));
    json_decref(doc);
}

/* n turns passed on (POST .../next-turn, each accepted). */
static void next_turns(struct enc *e, int n)
{
    for (int i = 0; i < n; i++)
        enc_post_ok(&srv, e, "/next-turn", NULL);
}

/* Asserts that combatant id's turn in doc (released here) still has `what` left, then that
 * the action spending it is accepted and the whole log verifies. */
static void takes_what_is_left(struct enc *e, json_t *doc, const char *id, const char *what,
                               const char *action)
{
    cr_assert(tb_turn_left(enc_combatant(doc, id), what), "%s has no %s left", id, what);
    json_decref(doc);
    enc_post_ok(&srv, e, "/actions", action);
    tb_verify_ok(&srv, e);
}

/* The goblin attacked, then made four 5-foot steps, a 30-ft move and a double move,
 * each accepted. 004/001: one standard and one move action, or one full-round action; 001
 * 5-Foot Step: one a round, and only in a round without other movement. */
Test(referee, an_attack_leaves_one_five_foot_step_and_no_move)
{
    struct enc e;
    skirmish(&e, "");
    enc_post_ok(&srv, &e, "/actions", TB_ATTACK("goblin", "fighter", "[2]"));
    enc_post_refused(&srv, &e, "/actions", TB_ATTACK("goblin", "fighter", "[2]"),
                     "the standard action of this turn is spent");
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"five_foot_step\",\"actor\":\"goblin\",\"path\":[{\"x\":7,\"y\":5}]}");
    enc_post_refused(
        &srv, &e, "/actions",
        "{\"type\":\"five_foot_step\",\"actor\":\"goblin\",\"path\":[{\"x\":8,\"y\":5}]}",
        "one 5-foot step a round, and it was taken (001 5-Foot Step)");
    enc_post_refused(
        &srv, &e, "/actions",
        "{\"type\":\"move\",\"actor\":\"goblin\",\"path\":[{\"x\":8,\"y\":5}]}",
        "allowed only in a round with no other movement (001 5-Foot Step); left this turn: "
        "a move action");
    enc_post_refused(
        &srv, &e, "/actions",
        "{\"type\":\"move\",\"mode\":\"double_move\",\"actor\":\"goblin\",\"path\":[{\"x\":8,"
        "\"y\":5}]}",
        "a full-round action needs the whole turn");
    /* A new turn, a new budget: a double move, then nothing but free actions. */
    next_turns(&e, 2);
    enc_post_ok(
        &srv, &e, "/actions",
        "{\"type\":\"move\",\"mode\":\"double_move\",\"actor\":\"goblin\",\"path\":[{\"x\":8,\"y\":"
        "5},{\"x\":9,\"y\":5},{\"x\":10,\"y\":5},{\"x\":11,\"y\":5},{\"x\":11,\"y\":6},{\"x\":11,"
        "\"y\":7},{\"x\":11,\"y\":8},{\"x\":11,\"y\":9}]}");
    enc_post_refused(&srv, &e, "/actions",
                     "{\"type\":\"facing\",\"actor\":\"goblin\",\"facing\":2}",
                     "000 Changing Facing");
    tb_verify_ok(&srv, &e);
}

/* 004 Step One: the aware "each take a partial action during the surprise round". The issue's
 * combatant moved 40 ft, attacked twice and moved again. */
Test(referee, the_surprise_round_is_one_partial_action)
{
    struct enc e;
    skirmish(&e, ",\"aware\":[\"goblin\"]");
    enc_post_refused(
        &srv, &e, "/actions",
        "{\"type\":\"move\",\"mode\":\"double_move\",\"actor\":\"goblin\",\"path\":[{\"x\":7,"
        "\"y\":5},{\"x\":8,\"y\":5}]}",
        "004 Step One (a partial action)");
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"move\",\"actor\":\"goblin\",\"path\":[{\"x\":6,\"y\":6}]}");
    enc_post_refused(&srv, &e, "/actions", TB_ATTACK("goblin", "fighter", "[2]"),
                     "only a partial action this turn");
    /* Only the goblin acts in the surprise round; round 1 begins with it again (the highest
     * initiative), now with a whole turn. */
    json_t *doc = suite_call(&e, "POST", "/next-turn", NULL, 200);
    json_t *result = tb_result(doc);
    cr_assert_eq(tb_num(result, "round"), 1);
    cr_assert_str_eq(json_string_value(json_object_get(result, "turn_of")), "goblin");
    json_t *left = json_object_get(json_object_get(enc_combatant(doc, "goblin"), "turn"), "left");
    cr_assert(json_is_true(json_object_get(left, "full_round")));
    json_decref(doc);
    enc_post_ok(
        &srv, &e, "/actions",
        "{\"type\":\"move\",\"mode\":\"double_move\",\"actor\":\"goblin\",\"path\":[{\"x\":7,\"y\":"
        "6},{\"x\":8,\"y\":6}]}");
}

/* d20 3.5 SRD, Injury and Death: dying at -1 to -9, dead at -10; a dying creature "can take no
 * actions". The goblin at -9 hp took its turn and attacked. */
Test(referee, a_dying_combatant_is_skipped_and_threatens_nobody)
{
    struct enc e;
    skirmish(&e, "");
    /* Damage from outside the fight, posted by the owner out of turn. */
    json_t *doc =
        suite_call(&e, "POST", "/hp",
                   "{\"target\":\"goblin\",\"change\":-15,\"reason\":\"a falling rock\"}", 200);
    json_t *g = enc_combatant(doc, "goblin");
    cr_assert_eq(tb_num(g, "hp"), -9);
    cr_assert_str_eq(json_string_value(json_object_get(g, "hp_state")), "dying");
    json_decref(doc);
    enc_post_refused(
        &srv, &e, "/actions", TB_ATTACK("goblin", "fighter", "[20]"),
        "is dying at -9 hp: it takes no actions (d20 3.5 SRD, Combat: Injury and Death)");
    /* Its turns are skipped: the fighter's turn, then the fighter's again in round 2. As its
     * turn is passed over it rolls its dying round (the d20-3.5 preset's dying srd): the table's
     * d% 05 is at most 10, so it becomes stable at -9 (d20 3.5 SRD, Dying). */
    enc_post_ok(&srv, &e, "/next-turn", NULL);
    doc = suite_call(&e, "POST", "/next-turn", "{\"results\":[5]}", 200);
    json_t *result = tb_result(doc);
    cr_assert_str_eq(json_string_value(json_object_get(result, "turn_of")), "fighter");
    json_t *skip = json_array_get(json_object_get(result, "skipped"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(skip, "id")), "goblin");
    json_t *dying = json_object_get(skip, "dying");
    cr_assert_eq(tb_num(dying, "d100"), 5);
    cr_assert(json_is_true(json_object_get(dying, "stable")));
    cr_assert_eq(tb_num(dying, "hp"), -9);
    g = enc_combatant(doc, "goblin");
    cr_assert_eq(tb_num(g, "hp"), -9);
    cr_assert_str_eq(json_string_value(json_object_get(g, "hp_state")), "stable");
    json_decref(doc);
    /* Moving through a square beside it (5,6, which an able goblin threatens: see
     * an_attack_of_opportunity_answers_the_move_that_provoked_it) provokes nothing: it
     * threatens nobody. */
    doc =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"move\",\"actor\":\"fighter\",\"path\":[{\"x\":5,\"y\":6},{\"x\":4,"
                   "\"y\":7}]}",
                   200);
    cr_assert_eq(json_array_size(json_object_get(tb_result(doc), "attacks_of_opportunity")), 0);
    json_decref(doc);
    /* Healing stops at max_hp, and the goblin is up again. */
    doc = suite_call(&e, "POST", "/hp", "{\"target\":\"goblin\",\"change\":40}", 200);
    g = enc_combatant(doc, "goblin");
    cr_assert_eq(tb_num(g, "hp"), 6);
    cr_assert_str_eq(json_string_value(json_object_get(g, "hp_state")), "up");
    json_decref(doc);
    json_decref(suite_call(&e, "POST", "/hp", "{\"target\":\"goblin\"}", 422));
    json_decref(
        suite_call(&e, "POST", "/hp", "{\"target\":\"goblin\",\"set\":1,\"change\":1}", 422));
}

/* d20 3.5 SRD, Dying: "roll d% to see whether the dying character becomes stable. The
 * character has a 10% chance of becoming stable. If he doesn't, he loses 1 hit point." The
 * goblin at -8 rolls 50 (not stable) and drops to -9, then 11 (still not: 10 or less is) and
 * dies at -10; a dead goblin rolls no more. Engine 3's goblin stayed at -8 forever. */
Test(referee, a_dying_combatant_loses_a_hit_point_a_round_until_stable_or_dead)
{
    struct enc e;
    skirmish(&e, "");
    json_decref(suite_call(&e, "POST", "/hp", "{\"target\":\"goblin\",\"change\":-14}", 200));
    enc_post_ok(&srv, &e, "/next-turn", NULL); /* the fighter's turn */
    json_t *doc = suite_call(&e, "POST", "/next-turn", "{\"results\":[50]}", 200);
    json_t *g = enc_combatant(doc, "goblin");
    cr_assert_eq(tb_num(g, "hp"), -9);
    cr_assert_str_eq(json_string_value(json_object_get(g, "hp_state")), "dying");
    json_t *told = json_object_get(doc, "event");
    cr_assert_not_null(strstr(json_string_value(json_object_get(told, "explain")), "-9"), "%s",
                       json_string_value(json_object_get(told, "explain")));
    json_decref(doc);
    /* Too many or too few results are the table's mistake. */
    json_decref(suite_call(&e, "POST", "/next-turn", "{\"results\":[50,50]}", 422));
    doc = suite_call(&e, "POST", "/next-turn", "{\"results\":[11]}", 200);
    g = enc_combatant(doc, "goblin");
    cr_assert_eq(tb_num(g, "hp"), -10);
    cr_assert_str_eq(json_string_value(json_object_get(g, "hp_state")), "dead");
    json_decref(doc);
    /* Dead: passed over, no roll (a result given would be one too many). */
    json_decref(suite_call(&e, "POST", "/next-turn", "{\"results\":[50]}", 422));
    tb_verify_ok(&srv, &e);
}

/* A combatant leaving a fight under way: the order closes up around it and the turn stays
 * with whoever has it. Before, the turn index did not move: removing the goblin (first in the
 * order) on the fighter's turn left the turn pointing past the end of the order (nobody's
 * turn), and removing it on its own turn handed the turn to the fighter without the fighter's
 * turn beginning (still flat-footed, no fresh budget). */
Test(referee, a_combatant_leaving_keeps_the_turn_where_it_was)
{
    struct enc e;
    skirmish(&e, "");
    json_decref(suite_call(&e, "POST", "/next-turn", NULL, 200)); /* the fighter's */
    json_t *doc = suite_call(&e, "DELETE", "/combatants/goblin", NULL, 200);
    json_t *state = json_object_get(doc, "state");
    cr_assert_str_eq(json_string_value(json_object_get(state, "turn_of")), "fighter");
    cr_assert_eq(tb_num(state, "turn"), 0);
    json_decref(doc);
    doc = suite_call(&e, "POST", "/next-turn", NULL, 200);
    json_t *result = tb_result(doc);
    cr_assert_eq(tb_num(result, "round"), 2);
    cr_assert_str_eq(json_string_value(json_object_get(result, "turn_of")), "fighter");
    json_decref(doc);
    tb_verify_ok(&srv, &e);
}

/* Leaving on its own turn passes the turn on as next_turn would (004 Combat Sequence, Step
 * Three: "Combatants act in initiative order"), and the one after begins its turn: 004
 * Flat-Footed ends with its first turn, and its budget is fresh. */
Test(referee, a_combatant_leaving_on_its_own_turn_passes_the_turn_on)
{
    struct enc e;
    skirmish(&e, ""); /* the goblin's turn */
    json_t *doc = suite_call(&e, "DELETE", "/combatants/goblin", NULL, 200);
    json_t *event = json_object_get(doc, "event");
    json_t *next = json_object_get(json_object_get(event, "result"), "next_turn");
    cr_assert_str_eq(json_string_value(json_object_get(next, "turn_of")), "fighter");
    cr_assert_eq(tb_num(next, "round"), 1);
    cr_assert_str_eq(json_string_value(json_object_get(event, "explain")),
                     "goblin leaves the encounter. Round 1: Kroh's turn.");
    json_t *state = json_object_get(doc, "state");
    cr_assert_str_eq(json_string_value(json_object_get(state, "turn_of")), "fighter");
    json_t *fighter = enc_combatant(doc, "fighter");
    cr_assert_eq(json_array_size(json_object_get(fighter, "conditions")), 0);
    takes_what_is_left(&e, doc, "fighter", "full_round",
                       "{\"type\":\"move\",\"actor\":\"fighter\",\"path\":[{\"x\":5,\"y\":6}]}");
}

/* Leaving on its own turn when nobody else can act (the goblin dying): nobody's turn, the
 * round over; the next turn waits until someone can act, and then begins the next round. And
 * when the last one in the order leaves, there is no next turn to give. Before, the turn stayed
 * with the one before it (here the goblin, already dying), and an empty order let the next
 * turn read past its end. */
Test(referee, leaving_when_nobody_else_can_act_ends_the_round)
{
    struct enc e;
    skirmish(&e, ""); /* the goblin's turn, round 1 */
    json_decref(suite_call(&e, "POST", "/hp", "{\"target\":\"goblin\",\"change\":-15}", 200));
    json_decref(suite_call(&e, "POST", "/next-turn", NULL, 200)); /* the fighter's */
    json_t *doc = suite_call(&e, "DELETE", "/combatants/fighter", NULL, 200);
    json_t *event = json_object_get(doc, "event");
    cr_assert_null(json_object_get(json_object_get(event, "result"), "next_turn"));
    json_t *state = json_object_get(doc, "state");
    cr_assert(json_is_null(json_object_get(state, "turn_of")));
    cr_assert(json_is_null(json_object_get(state, "turn")));
    cr_assert_eq(tb_num(state, "round"), 2);
    json_decref(doc);
    enc_post_refused(&srv, &e, "/next-turn", NULL, "no combatant can act");
    json_decref(suite_call(&e, "POST", "/hp", "{\"target\":\"goblin\",\"change\":20}", 200));
    doc = suite_call(&e, "POST", "/next-turn", NULL, 200);
    json_t *result = tb_result(doc);
    cr_assert_str_eq(json_string_value(json_object_get(result, "turn_of")), "goblin");
    cr_assert_eq(tb_num(result, "round"), 2);
    json_decref(doc);
    json_decref(suite_call(&e, "DELETE", "/combatants/goblin", NULL, 200)); /* the last, own turn */
    enc_post_refused(&srv, &e, "/next-turn", NULL, "nobody is left in the initiative order");
    tb_verify_ok(&srv, &e);
}

/* 004 Provoking an Attack of Opportunity by Moving: the attack strikes the mover in the square
 * it was leaving. The attack of opportunity was refused as out of reach (the move had
 * been applied), and one against a creature that provoked nothing was accepted. */
Test(referee, an_attack_of_opportunity_answers_the_move_that_provoked_it)
{
    struct enc e;
    skirmish(&e, "");
    enc_post_ok(&srv, &e, "/next-turn",
                NULL); /* the fighter's turn; the goblin is no longer flat-footed */
    next_turns(&e, 2); /* round 2, the fighter's turn again */
    /* Nothing provoked yet: refused. */
    enc_post_refused(&srv, &e, "/actions", TB_AOO("goblin", "fighter", "[19,3]"),
                     "provoked no attack of opportunity from 'goblin'");
    /* The fighter walks round the goblin's side (5,5 -> 5,6 -> 4,7): 004 does not count the
     * starting square of a normal move as threatened, but leaving 5,6 provokes the goblin. */
    json_t *doc =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"move\",\"actor\":\"fighter\",\"path\":[{\"x\":5,\"y\":6},{"
                   "\"x\":4,\"y\":7}]}",
                   200);
    cr_assert_eq(tb_num(enc_combatant(doc, "fighter"), "x"), 4);
    json_decref(doc);
    /* The goblin answers: the fighter is struck in 5,6, within reach though it now stands at
     * 4,7, out of it. d20 19 (+2 against AC 15) hits; 1d6 rolls 3. */
    doc = suite_call(&e, "POST", "/actions", TB_AOO("goblin", "fighter", "[19,3]"), 200);
    cr_assert_eq(tb_num(enc_combatant(doc, "fighter"), "hp"), 17);
    json_decref(doc);
    /* Answered once: a second is refused (one per provoking move, and one a round). */
    enc_post_refused(&srv, &e, "/actions", TB_AOO("goblin", "fighter", "[19,3]"),
                     "provoked no attack of opportunity");
    tb_verify_ok(&srv, &e);
}

/* An attack of opportunity that drops the mover stops its move in the square it was leaving,
 * and the other reactions to later steps are gone. */
Test(referee, a_mover_dropped_by_an_attack_of_opportunity_stops_there)
{
    struct enc e;
    skirmish(&e, "");
    enc_post_ok(&srv, &e, "/hp", "{\"target\":\"fighter\",\"set\":2}");
    next_turns(&e, 3);
    enc_post_ok(
        &srv, &e, "/actions",
        "{\"type\":\"move\",\"actor\":\"fighter\",\"path\":[{\"x\":5,\"y\":6},{\"x\":4,\"y\":7}]}");
    json_t *doc = suite_call(&e, "POST", "/actions", TB_AOO("goblin", "fighter", "[19,6]"), 200);
    json_t *f = enc_combatant(doc, "fighter");
    cr_assert_eq(tb_num(f, "hp"), -4);
    cr_assert_str_eq(json_string_value(json_object_get(f, "hp_state")), "dying");
    tb_at(f, 5, 6);
    json_decref(doc);
}

/* 001 Part of a Move Action: standing up from prone takes a move action. */
Test(referee, standing_up_takes_the_move_action)
{
    struct enc e;
    skirmish(&e, "");
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"condition\",\"actor\":\"goblin\",\"target\":\"goblin\",\"condition\":"
                "\"prone\"}");
    /* Prone, it moves only by crawling (001 Crawling): a walk is refused, engine 3. */
    enc_post_refused(&srv, &e, "/actions",
                     "{\"type\":\"move\",\"actor\":\"goblin\",\"path\":[{\"x\":7,\"y\":5}]}",
                     "a prone creature moves only by crawling");
    enc_post_ok(&srv, &e, "/actions", "{\"type\":\"stand_up\",\"actor\":\"goblin\"}");
    /* Its standard action taken as a move action (001 Double Move: "converting your standard
     * action to a move action and moving twice"), engine 3; then nothing but free actions. */
    json_t *doc =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"move\",\"actor\":\"goblin\",\"path\":[{\"x\":7,\"y\":5}]}", 200);
    json_t *turn = json_object_get(enc_combatant(doc, "goblin"), "turn");
    cr_assert(json_is_true(json_object_get(turn, "standard")));
    cr_assert(json_is_true(json_object_get(turn, "move")));
    cr_assert(json_is_false(json_object_get(json_object_get(turn, "left"), "move")));
    json_decref(doc);
    enc_post_refused(&srv, &e, "/actions",
                     "{\"type\":\"move\",\"actor\":\"goblin\",\"path\":[{\"x\":8,\"y\":5}]}",
                     "left this turn: free actions only");
    enc_post_refused(&srv, &e, "/actions", "{\"type\":\"stand_up\",\"actor\":\"goblin\"}",
                     "is not prone");
}

/* An encounter stored before events carried their engine (a fixture exported by the previous
 * build) imports, verifies, and can be played on under engine 2. */
Test(referee, an_encounter_from_before_the_engine_stamp_keeps_verifying)
{
    json_t *doc = load_fixture("encounter_v1.json");
    json_t *first = json_object_get(json_array_get(json_object_get(doc, "events"), 0), "payload");
    cr_assert_null(json_object_get(first, "engine"));
    char *text = json_dumps(doc, JSON_COMPACT);
    json_t *ans = http_post_json(&srv, "/v1/encounters/import", text, 201);
    free(text);
    struct enc e = {.version = tb_num(ans, "version")};
    snprintf(e.id, sizeof e.id, "%s", json_string_value(json_object_get(ans, "id")));
    snprintf(e.token, sizeof e.token, "%s", json_string_value(json_object_get(ans, "token")));
    cr_assert_eq(e.version, 21); /* the fixture's 20 events and the copy's own (imported) */
    json_decref(ans);
    json_t *v = suite_call(&e, "POST", "/verify", NULL, 200);
    cr_assert(json_is_true(json_object_get(v, "ok")), "%s", json_dumps(v, 0));
    json_decref(v);
    enc_post_ok(&srv, &e, "/next-turn", NULL);
    tb_verify_ok(&srv, &e);
    /* The new events carry their engine (the copy's own and the next turn); the old ones
     * still none. */
    json_t *events = suite_call(&e, "GET", "/events?after=19", NULL, 200);
    json_t *list = json_object_get(events, "events");
    json_t *p20 = json_object_get(json_array_get(list, 0), "payload");
    cr_assert_null(json_object_get(p20, "engine"));
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 1), "kind")),
                     "imported");
    for (size_t i = 1; i < 3; i++)
        cr_assert_eq(tb_num(json_object_get(json_array_get(list, i), "payload"), "engine"),
                     RULES_ENGINE_VERSION);
    json_decref(events);
    json_decref(doc);
}

/* An encounter's rules are fixed for its life: one created before critical_hits and hp_states
 * existed (the previous build's fixture, whose rules echo has neither) keeps ruling without
 * them. Under d20-3.5 today a natural 20 threatens and needs a confirmation die, so [20, 3]
 * would be too few results; in this encounter it is an ordinary hit and 3 is the damage, and
 * hit points below 0 have no state. A new event on it is ruled by engine 2 all the same. */
Test(referee, options_added_since_creation_keep_the_value_it_was_ruled_under)
{
    struct enc old;
    tb_import_fixture(&srv, &old, "encounter_v1.json");
    /* The fixture ends on the rogue's turn, beside the goblin (0 hp, prone). */
    json_t *doc = suite_call(&old, "POST", "/actions", TB_ATTACK("rogue", "goblin", "[20,3]"), 200);
    cr_assert_eq(tb_num(enc_combatant(doc, "goblin"), "hp"), -3);
    cr_assert_null(json_object_get(enc_combatant(doc, "goblin"), "hp_state"));
    json_decref(doc);
    tb_verify_ok(&srv, &old);
    /* A fresh d20-3.5 encounter rules the same natural 20 as a threat to confirm. */
    struct enc e;
    skirmish(&e, "");
    json_decref(suite_call(&e, "POST", "/actions", TB_ATTACK("goblin", "fighter", "[20,5]"), 422));
}

/* An import cannot lower an event's engine, nor drop options from a stamped encounter's rules,
 * nor store a ruling that is not the one this engine makes. */
Test(referee, an_import_keeps_engines_rules_and_rulings_as_the_live_service_made_them)
{
    struct enc e;
    skirmish(&e, "");
    json_t *doc = suite_call(&e, "GET", "/export", NULL, 200);
    json_t *events = json_object_get(doc, "events");
    /* Engine 1 after engine 2. */
    json_t *copy = json_deep_copy(doc);
    json_object_del(json_object_get(json_array_get(json_object_get(copy, "events"), 4), "payload"),
                    "engine");
    json_object_del(copy, "state");
    char *text = json_dumps(copy, JSON_COMPACT);
    json_t *ans = http_post_json(&srv, "/v1/encounters/import", text, 422);
    cr_assert_not_null(strstr(json_string_value(json_object_get(ans, "detail")), "engine 1"));
    json_decref(ans);
    free(text);
    json_decref(copy);
    /* An option dropped from a stamped encounter's rules. */
    copy = json_deep_copy(doc);
    json_t *created =
        json_object_get(json_array_get(json_object_get(copy, "events"), 0), "payload");
    json_object_del(
        json_object_get(
            json_object_get(
                json_object_get(json_array_get(json_object_get(created, "effects"), 0), "state"),
                "rules"),
            "options"),
        "critical_hits");
    json_object_del(copy, "state");
    text = json_dumps(copy, JSON_COMPACT);
    json_decref(http_post_json(&srv, "/v1/encounters/import", text, 422));
    free(text);
    json_decref(copy);
    /* A ruling emptied: under the current engine a stored ruling is the fresh one exactly. */
    json_object_set_new(json_object_get(json_array_get(events, 4), "payload"), "result",
                        json_object());
    json_object_del(doc, "state");
    text = json_dumps(doc, JSON_COMPACT);
    json_decref(http_post_json(&srv, "/v1/encounters/import", text, 422));
    free(text);
    json_decref(doc);
}

/* A ruling's sentences (explain, explain_markdown) are told from its figures, and a later build
 * may word them better: an export whose sentences differ still imports (its figures are this
 * server's), and the log keeps this server's sentences, not the given ones; a changed figure is
 * still refused. */
Test(referee, an_import_compares_the_figures_and_keeps_this_servers_sentences)
{
    struct enc e;
    skirmish(&e, "");
    json_decref(suite_call(&e, "POST", "/actions", TB_ATTACK("goblin", "fighter", "[2]"), 200));
    json_t *doc = suite_call(&e, "GET", "/export", NULL, 200);
    json_object_del(doc, "state");
    json_t *events = json_object_get(doc, "events");
    size_t last = json_array_size(events) - 1;
    json_t *result =
        json_object_get(json_object_get(json_array_get(events, last), "payload"), "result");
    char *told = strdup(json_string_value(json_object_get(result, "explain")));
    /* The roll given, written as Avrae writes a d20 (issue 31). */
    cr_assert_not_null(strstr(told, "1d20 (2)"), "%s", told);
    json_object_set_new(result, "explain", json_string("Worded by an older build."));
    json_object_set_new(result, "explain_markdown", json_string("**Older** words."));
    /* A sentence where this server tells none (a combatant_added ruling) is dropped. */
    json_t *added =
        json_object_get(json_object_get(json_array_get(events, 1), "payload"), "result");
    json_object_set_new(added, "explain_markdown", json_string("forged @everyone"));
    struct enc in;
    enc_import(&srv, &in, doc);
    json_t *out = suite_call(&in, "GET", "/export", NULL, 200);
    json_t *kept = json_object_get(
        json_object_get(json_array_get(json_object_get(out, "events"), last), "payload"), "result");
    cr_assert_str_eq(json_string_value(json_object_get(kept, "explain")), told);
    cr_assert_null(strstr(json_string_value(json_object_get(kept, "explain_markdown")), "Older"));
    cr_assert_null(json_object_get(
        json_object_get(
            json_object_get(json_array_get(json_object_get(out, "events"), 1), "payload"),
            "result"),
        "explain_markdown"));
    json_decref(out);
    tb_verify_ok(&srv, &in);
    /* A figure changed: refused. */
    json_object_set_new(result, "roll_total", json_integer(19));
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(http_post_json(&srv, "/v1/encounters/import", text, 422));
    free(text);
    free(told);
    json_decref(doc);
}

/* A combatant cannot take the id that names the encounter itself in the log's effects. */
Test(referee, the_id_encounter_is_reserved)
{
    struct enc e;
    suite_create(&e, "{\"map\":{\"width\":6,\"height\":6}}");
    json_t *doc = suite_call(&e, "POST", "/combatants",
                             "{\"id\":\"encounter\",\"side\":\"a\",\"x\":1,\"y\":1,\"speeds\":{"
                             "\"walk\":30},\"defense\":{},\"max_hp\":5,\"dex\":10}",
                             422);
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "detail")), "reserved"));
    json_decref(doc);
}

/* 001 Blocked Terrain: "Blocked terrain is terrain it is impossible to move into": a combatant
 * is placed nowhere its space would cover a wall, whether added, created with the encounter or
 * moved by PATCH; beside the wall it stands. */
Test(referee, no_combatant_is_placed_in_blocked_terrain)
{
    static const char map[] = "{\"map\":{\"width\":6,\"height\":6,\"squares\":[{\"x\":3,"
                              "\"y\":1,\"terrain\":\"blocked\"}]}";
    struct enc e;
    char body[400];
    snprintf(body, sizeof body, "%s}", map);
    suite_create(&e, body);
    static const char *const placed[] = {"\"x\":3,\"y\":1", "\"x\":2,\"y\":0,\"size\":\"large\""};
    for (size_t i = 0; i < 2; i++) {
        snprintf(body, sizeof body,
                 "{\"id\":\"ogre\",\"side\":\"a\",%s,\"speeds\":{\"walk\":30},\"defense\":{},"
                 "\"max_hp\":5,\"dex\":10}",
                 placed[i]);
        json_t *doc = suite_call(&e, "POST", "/combatants", body, 422);
        cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "detail")),
                                  "stands in blocked terrain at (3, 1) (001 Blocked Terrain"),
                           "%s", json_string_value(json_object_get(doc, "detail")));
        json_decref(doc);
    }
    json_decref(suite_call(&e, "POST", "/combatants",
                           "{\"id\":\"ogre\",\"side\":\"a\",\"x\":1,\"y\":0,\"size\":\"large\","
                           "\"speeds\":{\"walk\":30},\"defense\":{},\"max_hp\":5,\"dex\":10}",
                           201));
    json_decref(suite_call(&e, "PATCH", "/combatants/ogre", "{\"x\":2}", 422));
    json_decref(suite_call(&e, "PATCH", "/combatants/ogre", "{\"x\":4}", 200));
    /* Created with its combatants: the same refusal, under /combatants/0. */
    snprintf(body, sizeof body,
             "%s,\"combatants\":[{\"id\":\"ogre\",\"side\":\"a\",\"x\":3,\"y\":1,\"speeds\":{"
             "\"walk\":30},\"defense\":{},\"max_hp\":5,\"dex\":10}]}",
             map);
    json_t *doc = http_post_json(&srv, "/v1/encounters", body, 422);
    cr_assert_str_eq(tb_first_pointer(doc), "/combatants/0");
    json_decref(doc);
}

/* Engine 3, d20 3.5 SRD: Disabled, "If he performs any strenuous action, he takes 1 point of
 * damage after completing the act": the goblin at 0 hp attacks (a partial action) and is then
 * at -1, dying. Dead: "Dead characters cannot benefit from normal or magical healing": a change
 * that heals a dead goblin is refused; set stays the owner's override. */
Test(referee, engine_3_strains_the_disabled_and_heals_not_the_dead)
{
    struct enc e;
    skirmish(&e, "");
    enc_post_ok(&srv, &e, "/hp", "{\"target\":\"goblin\",\"set\":0}");
    json_t *doc = suite_call(&e, "POST", "/actions", TB_ATTACK("goblin", "fighter", "[2]"), 200);
    json_t *strain = json_object_get(tb_result(doc), "strain");
    cr_assert_eq(tb_num(strain, "damage"), 1);
    cr_assert_eq(tb_num(strain, "hp"), -1);
    cr_assert_str_eq(json_string_value(json_object_get(strain, "hp_state")), "dying");
    json_t *g = enc_combatant(doc, "goblin");
    cr_assert_eq(tb_num(g, "hp"), -1);
    cr_assert_str_eq(json_string_value(json_object_get(g, "hp_state")), "dying");
    json_decref(doc);
    enc_post_ok(&srv, &e, "/hp", "{\"target\":\"goblin\",\"set\":-12}");
    enc_post_refused(&srv, &e, "/hp", "{\"target\":\"goblin\",\"change\":5}",
                     "healing does not reach it (d20 3.5 SRD, Dead)");
    enc_post_ok(&srv, &e, "/hp", "{\"target\":\"goblin\",\"set\":3}");
    tb_verify_ok(&srv, &e);
}

/* True when the ruling's modifiers list one with this reason and value. */
static bool has_modifier(json_t *result, const char *reason, int value)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(result, "modifiers"), i, m)
    {
        if (strcmp(json_string_value(json_object_get(m, "reason")), reason) == 0 &&
            tb_num(m, "value") == value)
            return true;
    }
    return false;
}

/* Engine 3, d20 3.5 SRD, Charge: "After moving, you may make a single melee attack. You get a +2
 * bonus on the attack roll and take a -2 penalty to your AC until the start of your next turn."
 * "You must move at least 10 feet (2 squares) ... directly toward the designated opponent", to
 * "the closest space from which you can attack". The goblin, moved 3 squares off, charges the
 * fighter: too short, sideways, or past the closest space, refused; straight in, it strikes
 * (+2); a second attack is refused; the fighter's swing finds its AC 2 lower; at the goblin's
 * next turn the penalty is gone. */
Test(referee, engine_3_a_charge_ends_in_one_melee_attack)
{
    struct enc e;
    skirmish(&e, "");
    json_decref(suite_call(&e, "PATCH", "/combatants/goblin", "{\"x\":8}", 200));
    static const struct {
        const char *path, *needle;
    } wrong[] = {
        {"[{\"x\":7,\"y\":5}]", "at least 10 feet"},
        {"[{\"x\":8,\"y\":6},{\"x\":7,\"y\":6},{\"x\":6,\"y\":6}]", "directly toward"},
        {"[{\"x\":7,\"y\":5},{\"x\":6,\"y\":5},{\"x\":6,\"y\":4}]", "closest space"},
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        char body[256];
        snprintf(body, sizeof body,
                 "{\"type\":\"move\",\"actor\":\"goblin\",\"mode\":\"charge\",\"target\":"
                 "\"fighter\",\"path\":%s}",
                 wrong[i].path);
        enc_post_refused(&srv, &e, "/actions", body, wrong[i].needle);
    }
    enc_post_refused(&srv, &e, "/actions",
                     "{\"type\":\"move\",\"actor\":\"goblin\",\"mode\":\"charge\",\"path\":[{"
                     "\"x\":7,\"y\":5},{\"x\":6,\"y\":5}]}",
                     "designated opponent");
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"move\",\"actor\":\"goblin\",\"mode\":\"charge\",\"target\":"
                "\"fighter\",\"path\":[{\"x\":7,\"y\":5},{\"x\":6,\"y\":5}]}");
    json_t *doc = suite_call(&e, "POST", "/actions", TB_ATTACK("goblin", "fighter", "[2]"), 200);
    json_t *result = tb_result(doc);
    cr_assert(has_modifier(result, "attacker charging", 2));
    json_t *turn = json_object_get(enc_combatant(doc, "goblin"), "turn");
    cr_assert(json_is_true(json_object_get(turn, "charge_attacked")));
    json_decref(doc);
    enc_post_refused(&srv, &e, "/actions", TB_ATTACK("goblin", "fighter", "[2]"),
                     "full-round action was taken");
    json_decref(suite_call(&e, "POST", "/next-turn", NULL, 200)); /* the fighter's */
    doc = suite_call(&e, "POST", "/actions", TB_ATTACK("fighter", "goblin", "[2]"), 200);
    result = tb_result(doc);
    cr_assert(has_modifier(result, "defender charged since its turn began", -2));
    json_decref(doc);
    doc = suite_call(&e, "POST", "/next-turn", NULL, 200); /* round 2: the goblin's */
    json_t *conds = json_object_get(enc_combatant(doc, "goblin"), "conditions");
    for (size_t i = 0; i < json_array_size(conds); i++)
        cr_assert_str_neq(json_string_value(json_array_get(conds, i)), "charging");
    json_decref(doc);
    tb_verify_ok(&srv, &e);
}

struct step {
    const char *suffix; /* POST suffix */
    const char *body;   /* NULL: none */
    int status;
    const char *needle; /* for a refusal: a phrase of its detail */
};

/* A scripted skirmish of three rounds and four combatants that exercises every rule above, the
 * refusals included; then every state the writes answered equals GET .../state?at=N, and the
 * log exports, imports under a new id and verifies. Positions (x, y) on a 12 x 12 map: the
 * party's fighter at 5,5 and rogue at 3,3; the monsters' goblin at 6,5 and orc at 8,8. */
Test(referee, a_scripted_skirmish_replays_and_verifies)
{
    struct enc e;
    suite_create(&e, "{\"name\":\"Skirmish\",\"map\":{\"width\":12,\"height\":12},\"seed\":77}");
    static const char *const adds[] = {
        "{\"id\":\"fighter\",\"name\":\"Kroh\",\"side\":\"party\",\"x\":5,\"y\":5,\"speeds\":{"
        "\"walk\":30},\"defense\":{\"armor\":5},\"max_hp\":20,\"dex\":12,\"attacks\":[{\"name\":"
        "\"longsword\",\"attack_bonus\":6,\"damage\":\"1d8+3\"}]}",
        "{\"id\":\"rogue\",\"side\":\"party\",\"x\":3,\"y\":3,\"speeds\":{\"walk\":30},\"defense\":"
        "{\"armor\":2,\"dex\":3},\"max_hp\":12,\"dex\":16,\"combat_reflexes\":true,\"attacks\":[{"
        "\"name\":\"rapier\",\"attack_bonus\":5,\"damage\":\"1d6\",\"sneak_attack_dice\":2}]}",
        "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":2,\"dex\":1,\"size\":1},\"max_hp\":6,\"dex\":13,\"attacks\":[{"
        "\"name\":\"morningstar\",\"attack_bonus\":2,\"damage\":\"1d6\"}]}",
        "{\"id\":\"orc\",\"side\":\"monsters\",\"x\":8,\"y\":8,\"speeds\":{\"walk\":30},"
        "\"defense\":"
        "{\"armor\":3},\"max_hp\":15,\"dex\":10,\"attacks\":[{\"name\":\"falchion\",\"attack_"
        "bonus\":"
        "5,\"damage\":\"2d4+4\"}]}",
        NULL};
    for (int i = 0; adds[i]; i++)
        json_decref(suite_call(&e, "POST", "/combatants", adds[i], 201));
    /* Initiative (a d20 and a coin each, in the order added): rogue 19+3, goblin 15+1, fighter
     * 12+1, orc 5+0; the goblin and the rogue are aware: a surprise round. */
    static const struct step script[] = {
        {"/initiative", "{\"results\":[12,1,19,1,15,1,5,1],\"aware\":[\"rogue\",\"goblin\"]}", 200,
         NULL},
        {"/next-turn", NULL, 200, NULL}, /* round 0: the rogue */
        {"/actions",
         "{\"type\":\"move\",\"mode\":\"double_move\",\"actor\":\"rogue\",\"path\":[{\"x\":4,\"y\":"
         "4},{\"x\":5,\"y\":4}]}",
         422, "004 Step One"},
        {"/actions", "{\"type\":\"move\",\"actor\":\"rogue\",\"path\":[{\"x\":4,\"y\":4}]}", 200,
         NULL},
        {"/actions", "{\"type\":\"facing\",\"actor\":\"rogue\",\"facing\":2}", 422,
         "000 Changing Facing"},
        {"/next-turn", NULL, 200, NULL}, /* round 0: the goblin */
        {"/actions", TB_ATTACK("goblin", "fighter", "[15,2]"), 200,
         NULL},                          /* the fighter is flat-footed: 15 + 2 hits AC 15 */
        {"/next-turn", NULL, 200, NULL}, /* round 1: the rogue */
        {"/actions",
         "{\"type\":\"five_foot_step\",\"actor\":\"rogue\",\"path\":[{\"x\":5,\"y\":"
         "4}]}",
         200, NULL},
        {"/actions", TB_ATTACK("rogue", "goblin", "[14,3]"), 200,
         NULL}, /* not flanked, not flat-footed: no sneak attack; 14 + 5 hits, 3 damage */
        {"/actions", "{\"type\":\"move\",\"actor\":\"rogue\",\"path\":[{\"x\":5,\"y\":3}]}", 422,
         "5-foot step"},
        {"/next-turn", NULL, 200, NULL}, /* the goblin */
        {"/hp", "{\"target\":\"goblin\",\"change\":-4,\"reason\":\"a falling lamp\"}", 200, NULL},
        {"/next-turn", NULL, 200, NULL}, /* the goblin is dying: skipped; the fighter */
        {"/actions",
         "{\"type\":\"move\",\"actor\":\"fighter\",\"path\":[{\"x\":5,\"y\":6},{\"x\":"
         "5,\"y\":7}]}",
         200, NULL},
        {"/actions",
         "{\"type\":\"condition\",\"actor\":\"fighter\",\"target\":\"orc\",\"condition\":"
         "\"prone\",\"rounds\":1}",
         200, NULL},
        {"/next-turn", NULL, 200, NULL}, /* the orc, prone */
        {"/actions", "{\"type\":\"stand_up\",\"actor\":\"orc\"}", 200, NULL},
        {"/actions",
         "{\"type\":\"move\",\"actor\":\"orc\",\"mode\":\"double_move\",\"path\":[{\"x\":7,"
         "\"y\":7}]}",
         422, "a full-round action needs the whole turn"},
        {"/actions", TB_ATTACK("orc", "fighter", "[3]"), 422, "out of reach"},
        {"/next-turn", NULL, 200, NULL}, /* round 2: the rogue */
        {"/actions",
         "{\"type\":\"move\",\"mode\":\"run\",\"actor\":\"rogue\",\"path\":[{\"x\":6,\"y\":4},{"
         "\"x\":7,\"y\":4},{\"x\":8,\"y\":4}]}",
         200, NULL},
        {"/next-turn", "{\"results\":[50]}", 200,
         NULL}, /* the fighter (the goblin skipped: its dying round's d% 50, not stable) */
        {"/next-turn", NULL, 200, NULL}, /* the orc */
        {"/next-turn", NULL, 200, NULL}, /* round 3: the rogue, flat-footed from its run no more */
        {"/actions", "{\"type\":\"facing\",\"actor\":\"rogue\",\"facing\":4}", 200, NULL},
    };
    json_t *snaps = json_object();
    for (size_t i = 0; i < sizeof script / sizeof script[0]; i++) {
        const struct step *st = &script[i];
        json_t *doc = suite_call(&e, "POST", st->suffix, st->body, st->status);
        if (st->needle != NULL) {
            const char *detail = json_string_value(json_object_get(doc, "detail"));
            cr_assert_not_null(strstr(detail, st->needle), "step %zu: %s", i, detail);
        } else {
            char key[16];
            snprintf(key, sizeof key, "%lld", e.version);
            json_object_set(snaps, key, json_object_get(doc, "state"));
        }
        json_decref(doc);
    }
    /* The dying goblin was skipped in rounds 1 and 2: 6 - 3 (the rapier) - 4 (the lamp) = -1,
     * then 1 more for its dying round in round 2, whose d% the table gave (50: not the 10% that
     * stabilises, d20 3.5 SRD, Dying). The server's own d% would make this test depend on dice
     * salted per encounter (it failed about one run in five as "stable"). */
    json_t *state = suite_call(&e, "GET", "", NULL, 200);
    json_t *goblin = enc_combatant(state, "goblin");
    cr_assert_str_eq(json_string_value(json_object_get(goblin, "hp_state")), "dying");
    cr_assert_eq(json_integer_value(json_object_get(goblin, "hp")), -2);
    json_decref(state);
    /* Every state answered equals the fold up to it. */
    const char *key;
    json_t *snap;
    json_object_foreach(snaps, key, snap)
    {
        char q[32];
        snprintf(q, sizeof q, "/state?at=%s", key);
        json_t *at = suite_call(&e, "GET", q, NULL, 200);
        cr_assert(json_equal(json_object_get(at, "state"), snap), "state at %s", key);
        json_decref(at);
    }
    json_decref(snaps);
    tb_verify_ok(&srv, &e);
    json_t *ex = suite_call(&e, "GET", "/export", NULL, 200);
    char *text = json_dumps(ex, JSON_COMPACT);
    json_decref(ex);
    json_t *ans = http_post_json(&srv, "/v1/encounters/import", text, 201);
    free(text);
    struct enc copy = {.version = tb_num(ans, "version")};
    snprintf(copy.id, sizeof copy.id, "%s", json_string_value(json_object_get(ans, "id")));
    snprintf(copy.token, sizeof copy.token, "%s", json_string_value(json_object_get(ans, "token")));
    cr_assert_eq(copy.version, e.version + 1); /* the copy's own event */
    json_decref(ans);
    tb_verify_ok(&srv, &copy);
}

/* The tests' fighter with base attack bonus 6 (two attacks, +6 and +1) at 5,5 beside an orc
 * (AC 13, 30 hp) at 6,5; initiative rolled and the fighter's turn begun. */
static void fighter_and_orc(struct enc *e)
{
    static const char *const combatants[] = {
        TB_FIGHTER(5, 5, ",\"base_attack_bonus\":6"),
        "{\"id\":\"orc\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":3},\"max_hp\":30,\"dex\":10,\"attacks\":[{\"name\":"
        "\"falchion\",\"attack_bonus\":5,\"damage\":\"2d4+4\"}]}",
        NULL};
    tb_encounter(&srv, e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":3}", combatants,
                 "{\"results\":[15,1,5,1]}");
    enc_post_ok(&srv, e, "/next-turn", NULL); /* the fighter */
}

/* d20 3.5 SRD, Full Attack: a base attack bonus of +6 gives a second attack at -5; a full
 * attack takes the whole turn, so not after a move. */
Test(referee, a_full_attack_makes_the_iterative_attacks_and_takes_the_turn)
{
    struct enc e;
    fighter_and_orc(&e);
    /* 15 + 6 = 21 and 12 + 1 = 13 both hit AC 13: 1d8+3 rolls 4 and 3, 7 + 6 = 13 damage. */
    json_t *doc = suite_call(&e, "POST", "/actions",
                             "{\"type\":\"full_attack\",\"actor\":\"fighter\",\"target\":\"orc\","
                             "\"results\":[[15,4],[12,3]]}",
                             200);
    json_t *result = tb_result(doc);
    cr_assert_eq(tb_num(result, "attacks_made"), 2);
    cr_assert_eq(tb_num(json_array_get(json_object_get(result, "attacks"), 1), "roll_total"), 13);
    cr_assert_eq(tb_num(enc_combatant(doc, "orc"), "hp"), 17);
    json_t *left = json_object_get(json_object_get(enc_combatant(doc, "fighter"), "turn"), "left");
    cr_assert(json_is_false(json_object_get(left, "move")));
    cr_assert(json_is_true(json_object_get(left, "five_foot_step")));
    json_decref(doc);
    enc_post_refused(&srv, &e, "/actions", TB_ATTACK("fighter", "orc", "[15,4]"),
                     "a full-round action was taken this turn");
    next_turns(&e, 2); /* the orc's, then the fighter's again */
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"move\",\"actor\":\"fighter\",\"path\":[{\"x\":5,\"y\":6}]}");
    enc_post_refused(&srv, &e, "/actions",
                     "{\"type\":\"full_attack\",\"actor\":\"fighter\",\"target\":\"orc\"}",
                     "a full-round action needs the whole turn");
    tb_verify_ok(&srv, &e);
}

/* 001 Trade Away Attacks From A Full Attack Action: "A player character that declares a Full
 * Attack Action may use attack actions to perform 5-foot steps"; the steps "'use up' the worst
 * to-hit numbers ... even if the 5-foot steps are taken between attacks"; they "do not count as
 * movement, and may therefore be combined with a free-action 5-foot step"; "Monsters cannot
 * trade attack actions". Before, a full attack took no plan (422 unknown member). */
Test(referee, a_player_character_trades_an_attack_for_a_5_foot_step)
{
    struct enc e;
    fighter_and_orc(&e);
    static const char step_then_attack[] =
        "{\"type\":\"full_attack\",\"actor\":\"fighter\",\"target\":\"orc\",\"plan\":[{\"step\":"
        "{\"x\":5,\"y\":6}},\"attack\"],\"results\":[[15,4]]}";
    /* Not a player character: like a monster, it cannot trade. */
    enc_post_refused(&srv, &e, "/actions", step_then_attack,
                     "Monsters cannot trade attack actions for 5-foot steps");
    json_decref(suite_call(&e, "PATCH", "/combatants/fighter", "{\"player_character\":true}", 200));
    /* Two attacks (base attack bonus 6): three items are one too many. */
    enc_post_refused(&srv, &e, "/actions",
                     "{\"type\":\"full_attack\",\"actor\":\"fighter\",\"target\":\"orc\","
                     "\"plan\":[\"attack\",\"attack\",{\"step\":{\"x\":5,\"y\":6}}]}",
                     "3 attacks and 5-foot steps, but the full attack has 2");
    /* Into the orc's square: not a legal 5-foot step. */
    enc_post_refused(&srv, &e, "/actions",
                     "{\"type\":\"full_attack\",\"actor\":\"fighter\",\"target\":\"orc\","
                     "\"plan\":[{\"step\":{\"x\":6,\"y\":5}},\"attack\"]}",
                     "unoccupied");
    /* The step first, then the attack from (5, 6) on the orc at (6, 5) (diagonally adjacent):
     * the step used up the worst attack (+1), so the one made is at +6: 15 + 6 = 21 hits AC 13;
     * 1d8+3 rolls 4: 7 damage, the orc at 23. */
    json_t *doc = suite_call(&e, "POST", "/actions", step_then_attack, 200);
    json_t *event = json_object_get(doc, "event");
    json_t *result = json_object_get(event, "result");
    cr_assert_eq(tb_num(result, "attacks_made"), 1);
    cr_assert_eq(tb_num(json_array_get(json_object_get(result, "attacks"), 0), "roll_total"), 21);
    cr_assert_not_null(strstr(json_string_value(json_object_get(result, "rule")),
                              "001 Trade Away Attacks From A Full Attack Action"));
    json_t *stepped = json_array_get(json_object_get(result, "steps"), 0);
    tb_at(stepped, 5, 6);
    cr_assert_eq(tb_num(stepped, "at"), 0);
    json_t *fighter = enc_combatant(doc, "fighter");
    tb_at(fighter, 5, 6);
    cr_assert_eq(tb_num(enc_combatant(doc, "orc"), "hp"), 23);
    cr_assert_not_null(strstr(json_string_value(json_object_get(event, "explain")),
                              "(1 attack, trading one for a 5-foot step to (5, 6))"),
                       "%s", json_string_value(json_object_get(event, "explain")));
    /* The traded step was not movement: the turn's free 5-foot step is still there. */
    takes_what_is_left(&e, doc, "fighter", "five_foot_step",
                       "{\"type\":\"five_foot_step\",\"actor\":\"fighter\",\"path\":[{\"x\":4,"
                       "\"y\":6}]}");
}

/* The game master (who holds the token) applies a condition out of turn, and to a combatant
 * that cannot act: under engine 2 a condition is not the actor's action. */
Test(referee, a_condition_is_applied_out_of_turn)
{
    struct enc e;
    skirmish(&e, ""); /* the goblin's turn */
    json_t *doc = suite_call(&e, "POST", "/actions",
                             "{\"type\":\"condition\",\"actor\":\"fighter\",\"target\":\"fighter\","
                             "\"condition\":\"prone\",\"rounds\":1}",
                             200);
    json_t *conds = json_object_get(enc_combatant(doc, "fighter"), "conditions");
    bool prone = false;
    size_t i;
    json_t *c;
    json_array_foreach(conds, i, c)
    {
        prone |= strcmp(json_string_value(c), "prone") == 0;
    }
    cr_assert(prone);
    json_decref(doc);
    /* The goblin's turn is untouched. */
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"move\",\"actor\":\"goblin\",\"path\":[{\"x\":7,\"y\":5}]}");
}

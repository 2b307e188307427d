/* Input the way players type it (issue 31), through HTTP: combatants by name in any case or
 * by the start of one, an AC given whole, no Dexterity stated, a move to a square rather than
 * along every square, and an attack's situational bonus. The board (12 x 12, d20 3.5):
 *   kroh "Kroh" (party) at 5,5: walk 30, longsword +8 (1d8+3);
 *   goblin "the goblin" (monsters) at 6,5 and gnoll "the gnoll" (monsters) at 2,9, each
 *     given its AC whole as a stat block writes it.
 * Initiative from the table's dice, kroh first; round 2 begun on kroh's turn. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(encounter_input);

/* The input of the encounter's last event as the log stores it (GET .../events; a new ref). */
static json_t *stored_input(struct enc *e)
{
    json_t *page = suite_call(e, "GET", "/events", NULL, 200);
    json_t *events = json_object_get(page, "events");
    json_t *last = json_array_get(events, json_array_size(events) - 1);
    json_t *input = json_incref(json_object_get(json_object_get(last, "payload"), "input"));
    json_decref(page);
    cr_assert_not_null(input);
    return input;
}

/* The first error's message of a problem. */
static const char *first_error(json_t *doc, const char **pointer)
{
    json_t *err = json_array_get(json_object_get(doc, "errors"), 0);
    *pointer = tb_text(err, "pointer");
    return tb_text(err, "message");
}

/* Kroh (party) at 5,5, the goblin (AC 15) at 6,5 and the gnoll at 2,9; initiative rolled and
 * four turns begun (Kroh's again, in round 2); then first_action, accepted: its answer (the
 * caller decrefs). */
static json_t *board(struct enc *e, const char *first_action)
{
    static const char *const combatants[] = {
        "{\"id\":\"kroh\",\"name\":\"Kroh\",\"side\":\"party\",\"x\":5,\"y\":5,"
        "\"speeds\":{\"walk\":30},\"defense\":{\"armor\":5},\"max_hp\":30,\"dex\":12,"
        "\"attacks\":[{\"name\":\"longsword\",\"attack_bonus\":8,\"damage\":\"1d8+3\"}]}",
        "{\"id\":\"goblin\",\"name\":\"the goblin\",\"side\":\"monsters\",\"x\":6,"
        "\"y\":5,\"speeds\":{\"walk\":30},\"ac\":15,\"dex\":13,\"max_hp\":6,"
        "\"attacks\":[{\"name\":\"morningstar\",\"attack_bonus\":2}]}",
        "{\"id\":\"gnoll\",\"name\":\"the gnoll\",\"side\":\"monsters\",\"x\":2,"
        "\"y\":9,\"speeds\":{\"walk\":30},\"defense\":{\"total\":15},\"max_hp\":11,"
        "\"attacks\":[{\"name\":\"battleaxe\",\"attack_bonus\":3}]}",
        NULL};
    tb_encounter(&srv, e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":11}", combatants,
                 "{\"results\":[20,1,5,1,10,1]}");
    for (int i = 0; i < 4; i++)
        enc_post_ok(&srv, e, "/next-turn", NULL);
    return suite_call(e, "POST", "/actions", first_action, 200);
}

/* "Only ids are accepted. {"actor":"Kroh","target":"the gnoll"} gets 422": an id, a name in
 * any case, or the start of one names a combatant; the log stores the id. */
Test(encounter_input, actor_and_target_by_name_any_case_or_a_unique_start)
{
    struct enc e;
    json_t *doc = board(&e, "{\"type\":\"attack\",\"actor\":\"Kroh\",\"target\":\"THE GOBLIN\","
                            "\"results\":[2]}");
    json_decref(doc);
    json_t *input = stored_input(&e);
    cr_assert_str_eq(tb_text(input, "actor"), "kroh", "the log stores the id named");
    cr_assert_str_eq(tb_text(input, "target"), "goblin");
    json_decref(input);
    /* "the g" could be the goblin or the gnoll: refused, naming both. */
    doc = suite_call(&e, "GET", "/route?actor=kro&to=the%20g", NULL, 422);
    const char *ptr = NULL, *msg = first_error(doc, &ptr);
    cr_assert_str_eq(ptr, "?to");
    cr_assert(strstr(msg, "goblin (the goblin)") && strstr(msg, "gnoll (the gnoll)"), "%s", msg);
    json_decref(doc);
    doc = suite_call(&e, "GET", "/route?actor=kro&to=the%20gn", NULL, 200);
    cr_assert(json_is_true(json_object_get(doc, "found")));
    json_decref(doc);
    doc =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"move\",\"actor\":\"kroh\",\"to\":\"the\",\"mode\":\"move\"}", 422);
    msg = first_error(doc, &ptr);
    cr_assert_str_eq(ptr, "/to");
    cr_assert(strstr(msg, "could be any of"), "%s", msg);
    json_decref(doc);
}

/* "defense":{"total":13} and "ac":13 are taken, and dex is not required: the AC's parts are
 * taken as Dexterity, size and the rest armor, said so; touch and flat-footed follow (d20 3.5
 * SRD, Armor Class). The goblin: AC 15, Dex 13 (+1): touch 11, flat-footed 14. The gnoll: AC
 * 15, no Dex (10, +0): touch 10. */
Test(encounter_input, an_ac_given_whole_and_no_dexterity)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":11}");
    json_t *doc = suite_call(&e, "POST", "/combatants",
                             "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":7,\"y\":5,\"speeds\":{"
                             "\"walk\":30},\"ac\":15,\"dex\":13,\"max_hp\":6}",
                             201);
    json_t *def = json_object_get(enc_combatant(doc, "goblin"), "defense");
    cr_assert_eq(tb_num(def, "dex"), 1);
    cr_assert_eq(tb_num(def, "size"), 0);
    cr_assert_eq(tb_num(def, "armor"), 4, "10 + 1 + 0 + 4 = 15");
    json_t *assumed = json_array_get(json_object_get(tb_result(doc), "assumed"), 0);
    cr_assert_str_eq(tb_text(assumed, "member"), "ac");
    cr_assert(strstr(tb_text(assumed, "said"), "touch AC 11 and flat-footed AC 14"), "%s",
              tb_text(assumed, "said"));
    json_decref(doc);
    doc = suite_call(
        &e, "POST", "/combatants",
        "{\"id\":\"gnoll\",\"side\":\"monsters\",\"x\":2,\"y\":9,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"total\":15},\"max_hp\":11}",
        201);
    json_t *gnoll = enc_combatant(doc, "gnoll");
    cr_assert_eq(tb_num(gnoll, "dex"), 10, "an average score when none is given");
    cr_assert_eq(tb_num(gnoll, "initiative_modifier"), 0);
    cr_assert_eq(tb_num(json_object_get(gnoll, "defense"), "armor"), 5);
    json_t *said = json_object_get(tb_result(doc), "assumed");
    cr_assert_eq(json_array_size(said), 2, "the AC and the Dexterity");
    json_decref(doc);
    tb_refused_at(&e, "/combatants",
                  "{\"id\":\"orc\",\"side\":\"monsters\",\"x\":9,\"y\":9,\"speeds\":{\"walk\":30},"
                  "\"ac\":13,\"defense\":{\"armor\":3},\"max_hp\":11}",
                  "/ac");
}

/* The AC taken is the AC the attack must reach: the goblin's 15. */
Test(encounter_input, an_attack_on_a_whole_ac_needs_that_ac_and_takes_a_situational_bonus)
{
    struct enc e;
    json_t *doc = board(&e, "{\"type\":\"attack\",\"actor\":\"kroh\",\"target\":\"goblin\","
                            "\"bonus\":2,\"results\":[1]}");
    json_t *r = tb_result(doc);
    cr_assert_eq(tb_num(r, "target_number"), 15);
    cr_assert_eq(tb_num(r, "attack_total"), 10, "+8 and the table's +2 (Avrae's -b +2)");
    bool listed = false;
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(r, "modifiers"), i, m) listed |=
        strcmp(tb_text(m, "reason"), "situational bonus") == 0 && tb_num(m, "value") == 2;
    cr_assert(listed, "the bonus is itemised");
    json_decref(doc);
    tb_refused_at(&e, "/actions",
                  "{\"type\":\"move\",\"actor\":\"kroh\",\"bonus\":2,\"path\":[{\"x\":5,\"y\":6}]}",
                  "/bonus");
}

/* "A move must list every square. Players say 'to (3, 4)'": the route query's path is taken,
 * and said so; the log stores the path, and verify re-rules it. */
Test(encounter_input, a_move_to_a_square_takes_the_routes_path)
{
    struct enc e;
    json_t *doc = board(&e, "{\"type\":\"move\",\"actor\":\"Kroh\",\"to\":{\"x\":5,\"y\":1}}");
    cr_assert_eq(tb_num(enc_combatant(doc, "kroh"), "y"), 1);
    json_t *routed = json_object_get(tb_result(doc), "routed");
    cr_assert_not_null(routed);
    cr_assert(strstr(tb_text(routed, "rule"), "route query"));
    json_decref(doc);
    json_t *input = stored_input(&e);
    cr_assert_eq(json_array_size(json_object_get(input, "path")), 4, "5,4 5,3 5,2 5,1");
    json_decref(input);
    tb_verify_ok(&srv, &e);
    /* Too far for one move: the route is found, its path refused as the action's. */
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"move\",\"actor\":\"kroh\",\"to\":{\"x\":11,\"y\":11}}", 422);
    json_decref(doc);
}

/* Issue 31: "The critical confirmation reads 'confirmation d20 3 = 10': the +7 is missing", and
 * the three answer families wrote d20s three ways. Kroh's longsword (+8) against the goblin
 * (AC 15): a natural 20 threatens, the confirmation 1d20 (3) + 8 = 11 misses AC 15: a normal
 * hit. Each d20 in Avrae's form, the natural 20 bold in markdown. */
Test(encounter_input, every_d20_is_told_in_avrae_form_the_confirmation_with_its_bonus)
{
    struct enc e;
    json_t *doc = board(&e, TB_ATTACK("kroh", "goblin", "[20,3,5]"));
    json_t *ev = json_object_get(doc, "event");
    const char *plain = tb_text(ev, "explain"), *md = tb_text(ev, "explain_markdown");
    cr_assert_not_null(strstr(plain, "Kroh hits the goblin: 1d20 (20) + 8 = 28 vs AC 15"), "%s",
                       plain);
    cr_assert_not_null(strstr(plain, "confirmation 1d20 (3) + 8 = 11, not confirmed"), "%s", plain);
    cr_assert_not_null(strstr(md, "1d20 (**20**) + 8 = **28**"), "%s", md);
    json_decref(doc);
}

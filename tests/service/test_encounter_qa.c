/* Encounter bugs QA found: a side larger than the stateless rulings' bounds, attack profiles
 * without a threat range, refusals whose pointer named the wrong member, field errors hidden
 * behind the turn's budget, and inputs accepted that name nothing sensible. Each test plays
 * the body QA sent and expects the answer the contract and the rules give. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(qa);

static void verifies(struct enc *e)
{
    json_t *v = suite_call(e, "POST", "/verify", NULL, 200);
    cr_assert(json_is_true(json_object_get(v, "ok")), "%s", json_dumps(v, 0));
    json_decref(v);
}

/* ---- 1. a side larger than 256 ---- */

#define HORDE 260

/* A 40x40 map: the hero at 20,20; m0, m1 and m2 at 19,20, 21,20 and 20,19, adjacent to it;
 * the other monsters in rows 0 to 6, far away. Every monster takes its attacks of opportunity
 * (aoo_policy always). No initiative: anyone may act, and nobody is flat-footed. */
static void horde(struct enc *e)
{
    json_t *list = json_array();
    json_array_append_new(
        list, json_pack("{s:s, s:s, s:i, s:i, s:{s:i}, s:{s:i}, s:i, s:i, s:[{s:s, s:i, s:s}]}",
                        "id", "hero", "side", "party", "x", 20, "y", 20, "speeds", "walk", 30,
                        "defense", "armor", 5, "max_hp", 500, "dex", 10, "attacks", "name", "sword",
                        "attack_bonus", 5, "damage", "1d8"));
    static const int near[3][2] = {{19, 20}, {21, 20}, {20, 19}};
    for (int i = 0; i < HORDE; i++) {
        char id[16];
        snprintf(id, sizeof id, "m%d", i);
        int x = i < 3 ? near[i][0] : (i - 3) % 40, y = i < 3 ? near[i][1] : (i - 3) / 40;
        json_array_append_new(
            list, json_pack("{s:s, s:s, s:i, s:i, s:{s:i}, s:{s:i}, s:i, s:i, s:s, "
                            "s:[{s:s, s:i, s:s}]}",
                            "id", id, "side", "monsters", "x", x, "y", y, "speeds", "walk", 30,
                            "defense", "armor", 2, "max_hp", 6, "dex", 10, "aoo_policy", "always",
                            "attacks", "name", "claw", "attack_bonus", 2, "damage", "1d4"));
    }
    json_t *body = json_pack("{s:{s:i, s:i}, s:i, s:o}", "map", "width", 40, "height", 40, "seed",
                             7, "combatants", list);
    char *t = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    enc_create(&srv, e, t);
    free(t);
}

/* MAX_COMBATANTS is 500, so a side may hold 259 allies of an attacker; the attack, its odds,
 * the flanking query and the attacks of opportunity of a provoking move must all be ruled. */
Test(qa, a_side_of_more_than_256_is_ruled_everywhere, .timeout = 120)
{
    struct enc e;
    horde(&e);
    json_t *doc = suite_call(&e, "POST", "/actions", TB_ATTACK("m0", "hero", "[15,3]"), 200);
    json_t *r = json_object_get(json_object_get(doc, "event"), "result");
    cr_assert_eq(tb_num(r, "d20"), 15);
    json_decref(doc);
    doc = suite_call(&e, "GET", "/odds?actor=m1&target=hero", NULL, 200);
    cr_assert_not_null(json_object_get(doc, "hit"), "%s", json_dumps(doc, 0));
    json_decref(doc);
    doc = suite_call(&e, "GET", "/flanking?target=hero", NULL, 200);
    cr_assert_eq(json_array_size(json_object_get(doc, "attackers")), HORDE);
    json_decref(doc);
    /* The hero walks south: leaving 20,21, which m0 and m1 threaten, provokes both (004
     * Provoking an Attack of Opportunity by Moving; the square it starts in is safe under the
     * preset's start_square), and both take their attacks (always). */
    doc =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"move\",\"actor\":\"hero\",\"path\":[{\"x\":20,\"y\":21},{\"x\":20,"
                   "\"y\":22}]}",
                   200);
    json_t *list =
        json_object_get(json_object_get(json_object_get(doc, "event"), "result"), "reactions");
    cr_assert_eq(json_array_size(list), 2);
    size_t i;
    json_t *one;
    json_array_foreach(list, i, one)
    {
        cr_assert_str_eq(tb_text(one, "by"), i == 0 ? "m0" : "m1");
        cr_assert_str_eq(tb_text(one, "outcome"), "made");
        cr_assert_not_null(json_object_get(json_object_get(one, "attack"), "d20"));
    }
    json_decref(doc);
    verifies(&e);
}

/* ---- 2. an attack profile's threat range and multiplier ---- */

/* The duelist (party, 5,5) with a rapier 18-20/x2, +5, 1d6+1; the goblin (monsters, 6,5) at
 * AC 12 (10 + armor 2; dex 10, modifier 0) and 20 hp. Default rules: d20-3.5, critical hits
 * on. No initiative: either may act. */
static void duel(struct enc *e)
{
    enc_create(&srv, e,
               "{\"map\":{\"width\":12,\"height\":12},\"seed\":3,\"combatants\":["
               "{\"id\":\"duelist\",\"side\":\"party\",\"x\":5,\"y\":5,\"speeds\":{\"walk\":30},"
               "\"defense\":{\"armor\":1},\"max_hp\":12,\"dex\":10,\"attacks\":[{\"name\":"
               "\"rapier\",\"attack_bonus\":5,\"damage\":\"1d6+1\",\"crit_range\":18,"
               "\"crit_multiplier\":2}]},"
               "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{\"walk\":30},"
               "\"defense\":{\"armor\":2},\"max_hp\":20,\"dex\":10,\"attacks\":[{\"name\":"
               "\"club\",\"attack_bonus\":1,\"damage\":\"1d6\"}]}]}");
}

/* d20 3.5 SRD, Combat: Critical Hits: a rapier threatens on 18-20; a natural 18 that hits
 * (18 + 5 = 23 >= 12) is a threat, confirmed by a second d20 that hits (10 + 5 = 15 >= 12); a
 * critical rolls the damage twice (x2): (4 + 1) + (5 + 1) = 11, so the goblin is left 9. */
Test(qa, an_attack_profile_threatens_on_its_own_range)
{
    struct enc e;
    duel(&e);
    json_t *doc =
        suite_call(&e, "POST", "/actions", TB_ATTACK("duelist", "goblin", "[18,10,4,5]"), 200);
    json_t *r = json_object_get(json_object_get(doc, "event"), "result");
    json_t *c = json_object_get(r, "critical_hit");
    tb_confirmed_critical(c, 18, 2, 10);
    cr_assert(json_is_true(json_object_get(r, "critical")));
    cr_assert_eq(tb_num(json_object_get(r, "damage"), "dealt"), 11);
    cr_assert_eq(tb_num(enc_combatant(doc, "goblin"), "hp"), 9);
    json_decref(doc);
    verifies(&e);
}

/* The odds of that attack: +5 against AC 12 needs 7, 14 of 20 (0.7); a threat is a natural
 * 18, 19 or 20 (3 of 20, each a hit), confirmed 14 times in 20: 3/20 x 14/20 = 0.105 (with the
 * default 20 alone it would be 0.035). */
Test(qa, odds_count_the_profiles_threat_range)
{
    struct enc e;
    duel(&e);
    json_t *doc = suite_call(&e, "GET", "/odds?actor=duelist&target=goblin", NULL, 200);
    double hit = json_real_value(json_object_get(doc, "hit"));
    double crit = json_real_value(json_object_get(doc, "critical"));
    cr_assert(hit > 0.7 - 1e-12 && hit < 0.7 + 1e-12, "hit %g", hit);
    cr_assert(crit > 0.105 - 1e-12 && crit < 0.105 + 1e-12, "critical %g", crit);
    json_decref(doc);
}

/* The bounds are the stateless attacker's: crit_range 2..20, crit_multiplier 2..10. */
Test(qa, an_attack_profiles_threat_range_is_bounded)
{
    json_t *doc = http_post_json(
        &srv, "/v1/encounters",
        "{\"map\":{\"width\":12,\"height\":12},\"combatants\":[{\"id\":\"a\",\"side\":\"x\","
        "\"x\":1,\"y\":1,\"speeds\":{\"walk\":30},\"defense\":{},\"max_hp\":5,\"dex\":10,"
        "\"attacks\":[{\"name\":\"k\",\"attack_bonus\":1,\"crit_range\":1,\"crit_multiplier\":"
        "11}]}]}",
        422);
    json_t *errs = json_object_get(doc, "errors");
    cr_assert_eq(json_array_size(errs), 2, "%s", json_dumps(errs, 0));
    cr_assert_str_eq(tb_text(json_array_get(errs, 0), "pointer"),
                     "/combatants/0/attacks/0/crit_range");
    cr_assert_str_eq(tb_text(json_array_get(errs, 1), "pointer"),
                     "/combatants/0/attacks/0/crit_multiplier");
    cr_assert_str_eq(tb_text(json_array_get(errs, 0), "message"), "must be from 2 to 20");
    cr_assert_str_eq(tb_text(json_array_get(errs, 1), "message"), "must be from 2 to 10");
    json_decref(doc);
}

/* ---- 3. a refusal names the member the action's input gave ---- */

/* One refused action: its body (the duel's, with the duelist acting) and the pointers its
 * errors must carry, in order. */
struct refusal {
    const char *body;
    const char *pointers[3];
};

/* Asserts each case's 422 lists exactly its pointers (a fresh duel for each: nothing spent). */
static void refused_at(const struct refusal *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct enc e;
        duel(&e);
        json_t *doc = suite_call(&e, "POST", "/actions", cases[i].body, 422);
        json_t *errs = json_object_get(doc, "errors");
        size_t want = 0;
        while (want < 3 && cases[i].pointers[want] != NULL)
            want++;
        char *got = json_dumps(errs, JSON_COMPACT);
        cr_assert_eq(json_array_size(errs), want, "%s: %s", cases[i].body, got);
        for (size_t k = 0; k < want; k++)
            cr_assert_str_eq(tb_text(json_array_get(errs, k), "pointer"), cases[i].pointers[k],
                             "%s: %s", cases[i].body, got);
        free(got);
        json_decref(doc);
    }
}

#define ACT(rest) "{\"actor\":\"duelist\"," rest "}"

Test(qa, refusals_name_the_actions_own_members)
{
    static const struct refusal cases[] = {
        {ACT("\"type\":\"attack\",\"target\":\"goblin\",\"results\":[0]"), {"/results/0"}},
        {ACT("\"type\":\"attack\",\"target\":\"goblin\",\"cover\":\"weird\""), {"/cover"}},
        {ACT("\"type\":\"attack\",\"target\":\"goblin\",\"concealment\":7"), {"/concealment"}},
        {ACT("\"type\":\"move\",\"path\":[{\"x\":1}]"), {"/path/0/y"}},
        {ACT("\"type\":\"move\",\"path\":[1,2]"), {"/path/0", "/path/1"}},
        {ACT("\"type\":\"move\",\"path\":[{\"x\":5,\"y\":8}]"), {"/path/0"}},
        {ACT("\"type\":\"move\",\"path\":[{\"x\":5,\"y\":6}],\"end_facing\":9"), {"/end_facing"}},
        {ACT("\"type\":\"move\",\"path\":[{\"x\":5,\"y\":6}],\"withdraw\":{}"), {"/withdraw"}},
        {ACT("\"type\":\"move\",\"mode\":\"withdraw\",\"path\":[{\"x\":4,\"y\":5}],"
             "\"withdraw\":{\"primary_target\":\"zz\"}"),
         {"/withdraw/primary_target"}},
        {ACT("\"type\":\"forced\",\"target\":\"goblin\",\"kind\":\"push\",\"squares\":1,"
             "\"path\":[]"),
         {"/path"}},
        {ACT("\"type\":\"fall\",\"height_ft\":20,\"surface\":\"lava\""), {"/surface"}},
        {ACT("\"type\":\"full_attack\",\"target\":\"goblin\",\"results\":[[0]]"), {"/results/0/0"}},
    };
    refused_at(cases, sizeof cases / sizeof cases[0]);
}

/* ---- 4. field errors come before the turn's budget ---- */

/* The duel with initiative rolled (duelist 20, goblin 5) and the duelist's turn spent: a full
 * attack (a full-round action) and its one free change of facing (000 Changing Facing). A
 * malformed body still gets its field errors, not "the ... action is spent". */
Test(qa, field_errors_come_before_the_spent_budget)
{
    struct enc e;
    duel(&e);
    enc_post_ok(&srv, &e, "/initiative", "{\"results\":[20,1,5,1]}");
    enc_post_ok(&srv, &e, "/next-turn", NULL);
    enc_post_ok(&srv, &e, "/actions",
                ACT("\"type\":\"full_attack\",\"target\":\"goblin\",\"results\":[[2]]"));
    enc_post_ok(&srv, &e, "/actions", ACT("\"type\":\"facing\",\"facing\":2"));
    enc_post_refused(&srv, &e, "/actions",
                     ACT("\"type\":\"attack\",\"target\":\"goblin\",\"results\":[2]"),
                     "only free actions are left");
    static const struct refusal cases[] = {
        {ACT("\"type\":\"attack\",\"target\":\"goblin\",\"results\":[0]"), {"/results/0"}},
        {ACT("\"type\":\"attack\",\"target\":\"goblin\",\"cover\":\"weird\""), {"/cover"}},
        {ACT("\"type\":\"attack\",\"target\":null"), {"/target"}},
        {ACT("\"type\":\"facing\",\"facing\":8"), {"/facing"}},
        {ACT("\"type\":\"full_attack\",\"target\":\"goblin\",\"plan\":[\"jump\"]"), {"/plan/0"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *doc = suite_call(&e, "POST", "/actions", cases[i].body, 422);
        json_t *errs = json_object_get(doc, "errors");
        char *got = json_dumps(errs, JSON_COMPACT);
        cr_assert_eq(json_array_size(errs), 1, "%s: %s", cases[i].body, got);
        cr_assert_str_eq(tb_text(json_array_get(errs, 0), "pointer"), cases[i].pointers[0],
                         "%s: %s", cases[i].body, got);
        free(got);
        json_decref(doc);
    }
    verifies(&e);
}

/* ---- 5. inputs that name nothing sensible are refused ---- */

Test(qa, nonsense_actions_are_refused_at_their_member)
{
    static const struct refusal cases[] = {
        /* An attack is on another combatant. */
        {ACT("\"type\":\"attack\",\"target\":\"duelist\",\"results\":[2]"), {"/target"}},
        {ACT("\"type\":\"full_attack\",\"target\":\"duelist\",\"results\":[[2]]"), {"/target"}},
        /* An attack is normal or an attack of opportunity (004 Attacks of Opportunity). */
        {ACT("\"type\":\"attack\",\"target\":\"goblin\",\"kind\":\"weird\",\"results\":[2]"),
         {"/kind"}},
        /* Dice for a reactor must name a combatant, as a move's decisions already must. */
        {ACT("\"type\":\"attack\",\"target\":\"goblin\",\"results\":[2],"
             "\"reaction_results\":{\"zz\":[1]}"),
         {"/reaction_results/zz"}},
        {ACT("\"type\":\"move\",\"path\":[{\"x\":5,\"y\":6}],\"reaction_results\":{\"zz\":[1]}"),
         {"/reaction_results/zz"}},
        /* The mover does not react to its own move. */
        {ACT("\"type\":\"move\",\"path\":[{\"x\":5,\"y\":6}],\"reactions\":{\"duelist\":"
             "\"take\"}"),
         {"/reactions/duelist"}},
    };
    refused_at(cases, sizeof cases / sizeof cases[0]);
}

/* An attack names its profile, so two profiles of one name are refused; a condition is held or
 * not, so one listed twice is refused. On create, on adding and on updating a combatant. */
Test(qa, duplicate_profile_names_and_conditions_are_refused)
{
    struct enc e;
    duel(&e);
    static const struct refusal adds[] = {
        {"{\"id\":\"orc\",\"side\":\"monsters\",\"x\":8,\"y\":8,\"speeds\":{\"walk\":30},"
         "\"defense\":{},\"max_hp\":9,\"dex\":10,\"attacks\":[{\"name\":\"axe\",\"attack_bonus\":"
         "3},{\"name\":\"bite\",\"attack_bonus\":1},{\"name\":\"axe\",\"attack_bonus\":1}]}",
         {"/attacks/2/name"}},
        {"{\"id\":\"orc\",\"side\":\"monsters\",\"x\":8,\"y\":8,\"speeds\":{\"walk\":30},"
         "\"defense\":{},\"max_hp\":9,\"dex\":10,\"conditions\":[\"prone\",\"stunned\","
         "\"prone\"]}",
         {"/conditions/2"}},
    };
    for (size_t i = 0; i < 2; i++) {
        json_t *doc = suite_call(&e, "POST", "/combatants", adds[i].body, 422);
        json_t *errs = json_object_get(doc, "errors");
        cr_assert_eq(json_array_size(errs), 1, "%s", adds[i].body);
        cr_assert_str_eq(tb_text(json_array_get(errs, 0), "pointer"), adds[i].pointers[0]);
        json_decref(doc);
    }
    json_t *doc = suite_call(&e, "PATCH", "/combatants/goblin",
                             "{\"conditions\":[\"prone\",\"prone\"]}", 422);
    cr_assert_str_eq(tb_text(json_array_get(json_object_get(doc, "errors"), 0), "pointer"),
                     "/conditions/1");
    json_decref(doc);
    doc = http_post_json(&srv, "/v1/encounters",
                         "{\"map\":{\"width\":9,\"height\":9},\"combatants\":[{\"id\":\"a\","
                         "\"side\":\"x\",\"x\":1,\"y\":1,\"speeds\":{\"walk\":30},\"defense\":{},"
                         "\"max_hp\":5,\"dex\":10,\"attacks\":[{\"name\":\"k\",\"attack_bonus\":"
                         "1},{\"name\":\"k\",\"attack_bonus\":2}]}]}",
                         422);
    cr_assert_str_eq(tb_text(json_array_get(json_object_get(doc, "errors"), 0), "pointer"),
                     "/combatants/0/attacks/1/name");
    json_decref(doc);
}

/* Engine 3, what a review of play found missing. The fighter (5,5) and the rogue (7,5) of the
 * party stand either side of the goblin (6,5); initiative: fighter, rogue, goblin, so in round 1
 * the rogue and the goblin are still flat-footed.
 *  - 004 Threatened Area: a combatant threatens "even when it is not a combatant's action", and
 *    004 Flat-Footed bars only attacks of opportunity: the flat-footed rogue still flanks.
 *  - d20 3.5 SRD, Combat Reflexes: "you may also make attacks of opportunity while flat-footed":
 *    the goblin (always) strikes the fighter stepping away although it has not acted yet.
 *  - SRD, Stunned: "can't take actions": a stunned goblin's attack is refused.
 *  - SRD, Dying: a dying creature "is unconscious", so helpless: no Dexterity to its AC. */
Test(qa, engine_3_flanks_strikes_while_flat_footed_and_refuses_the_stunned)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":9}");
    static const char *const adds[] = {
        "{\"id\":\"fighter\",\"side\":\"party\",\"x\":5,\"y\":5,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":5},\"max_hp\":30,\"dex\":12,\"attacks\":[{\"name\":\"sword\","
        "\"attack_bonus\":6,\"damage\":\"1d8+3\"}]}",
        "{\"id\":\"rogue\",\"side\":\"party\",\"x\":7,\"y\":5,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":2},\"max_hp\":20,\"dex\":16,\"attacks\":[{\"name\":\"dagger\","
        "\"attack_bonus\":4,\"damage\":\"1d4\"}]}",
        "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":2},\"max_hp\":30,\"dex\":16,\"combat_reflexes\":true,"
        "\"aoo_policy\":\"always\",\"attacks\":[{\"name\":\"club\",\"attack_bonus\":2,"
        "\"damage\":\"1d6\"}]}"};
    for (int i = 0; i < 3; i++)
        json_decref(suite_call(&e, "POST", "/combatants", adds[i], 201));
    enc_post_ok(&srv, &e, "/initiative", "{\"results\":[20,1,15,1,5,1]}");
    json_decref(suite_call(&e, "POST", "/next-turn", NULL, 200)); /* the fighter's */
    json_t *doc = suite_call(&e, "POST", "/actions", TB_ATTACK("fighter", "goblin", "[2]"), 200);
    json_t *result = json_object_get(json_object_get(doc, "event"), "result");
    cr_assert(json_is_true(json_object_get(result, "flanked")), "the flat-footed rogue flanks");
    json_decref(doc);
    /* The fighter walks round to (5,3): leaving (5,4), which the goblin threatens, provokes
     * (its start square is safe under d20-3.5's start_square). */
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"move\",\"actor\":\"fighter\",\"path\":[{\"x\":5,\"y\":4},{"
                     "\"x\":5,\"y\":3}],"
                     "\"reaction_results\":{\"goblin\":[2]}}",
                     200);
    json_t *list =
        json_object_get(json_object_get(json_object_get(doc, "event"), "result"), "reactions");
    cr_assert_eq(json_array_size(list), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "outcome")), "made",
                     "%s", json_dumps(list, 0));
    json_decref(doc);
    /* The goblin stunned; on its turn it takes no action. */
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"condition\",\"actor\":\"fighter\",\"target\":\"goblin\","
                "\"condition\":\"stunned\",\"rounds\":1}");
    json_decref(suite_call(&e, "POST", "/next-turn", NULL, 200)); /* the rogue's */
    json_decref(suite_call(&e, "POST", "/next-turn", NULL, 200)); /* the goblin's */
    enc_post_refused(&srv, &e, "/actions", TB_ATTACK("goblin", "rogue", "[10]"),
                     "is stunned: it can't take actions");
    /* Round 2: the goblin dying at -2 hp; the fighter's swing finds no Dexterity in its AC
     * (10 + armor 2 = 12, not the 15 of its Dex 16). */
    json_decref(suite_call(&e, "POST", "/next-turn", NULL, 200)); /* round 2: the fighter's */
    json_decref(suite_call(&e, "POST", "/hp", "{\"target\":\"goblin\",\"set\":-2}", 200));
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"move\",\"actor\":\"fighter\",\"path\":[{\"x\":5,\"y\":4},{"
                     "\"x\":5,\"y\":5}]}",
                     200);
    json_decref(doc);
    doc = suite_call(&e, "POST", "/actions", TB_ATTACK("fighter", "goblin", "[2]"), 200);
    result = json_object_get(json_object_get(doc, "event"), "result");
    cr_assert_eq(json_integer_value(json_object_get(result, "target_number")), 12, "%s",
                 json_string_value(json_object_get(result, "explain")));
    json_decref(doc);
    tb_verify_ok(&srv, &e);
}

/* QA round 2, engine 3. 004: "A combatant threatens the area into which it can make a melee
 * attack" and "An attack of opportunity is a single melee attack": a reactor armed with a bow
 * alone threatens nobody, and one with a bow and a dagger answers with the dagger (a bow is
 * refused). 004: "a combatant can only make one per round": once made, the reactor is not asked
 * again that round (before, the encounter awaited a reaction it then refused). */
Test(qa, attacks_of_opportunity_are_melee_and_one_a_round_is_not_asked_twice)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":7}");
    static const char *const adds[] = {
        "{\"id\":\"m\",\"side\":\"p\",\"x\":2,\"y\":5,\"speeds\":{\"walk\":30},\"defense\":{"
        "\"armor\":2},\"max_hp\":20,\"dex\":10}",
        "{\"id\":\"n\",\"side\":\"p\",\"x\":2,\"y\":3,\"speeds\":{\"walk\":30},\"defense\":{"
        "\"armor\":2},\"max_hp\":20,\"dex\":10}",
        "{\"id\":\"r1\",\"side\":\"m\",\"x\":3,\"y\":4,\"speeds\":{\"walk\":30},\"defense\":{"
        "\"armor\":2},\"max_hp\":20,\"dex\":10,\"aoo_policy\":\"ask\",\"attacks\":[{\"name\":"
        "\"bow\",\"attack\":\"ranged\",\"attack_bonus\":6,\"damage\":\"1d8\"},{\"name\":"
        "\"dagger\",\"attack_bonus\":4,\"damage\":\"1d4\"}]}",
        "{\"id\":\"r2\",\"side\":\"m\",\"x\":3,\"y\":6,\"speeds\":{\"walk\":30},\"defense\":{"
        "\"armor\":2},\"max_hp\":20,\"dex\":10,\"aoo_policy\":\"ask\",\"attacks\":[{\"name\":"
        "\"bow\",\"attack\":\"ranged\",\"attack_bonus\":6,\"damage\":\"1d8\"}]}"};
    for (int i = 0; i < 4; i++)
        json_decref(suite_call(&e, "POST", "/combatants", adds[i], 201));
    enc_post_ok(&srv, &e, "/initiative", "{\"results\":[5,1,4,1,20,1,19,1]}");
    for (int i = 0; i < 3; i++)
        enc_post_ok(&srv, &e, "/next-turn", NULL); /* r1, r2, then m: the monsters have acted */
    json_t *doc =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"move\",\"actor\":\"m\",\"path\":[{\"x\":3,\"y\":5},{\"x\":4,"
                   "\"y\":5}]}",
                   200);
    json_t *open = json_object_get(json_object_get(doc, "state"), "reactions");
    cr_assert_eq(json_array_size(open), 1, "only r1 threatens: r2 has a bow alone");
    cr_assert_str_eq(tb_text(json_array_get(open, 0), "by"), "r1");
    json_decref(doc);
    json_t *no = suite_call(&e, "POST", "/actions",
                            "{\"type\":\"attack\",\"actor\":\"r1\",\"target\":\"m\",\"kind\":"
                            "\"attack_of_opportunity\",\"attack\":\"bow\",\"results\":[15,3]}",
                            422);
    cr_assert_str_eq(tb_text(json_array_get(json_object_get(no, "errors"), 0), "pointer"),
                     "/attack");
    json_decref(no);
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"attack\",\"actor\":\"r1\",\"target\":\"m\",\"kind\":"
                     "\"attack_of_opportunity\",\"results\":[15,3]}",
                     200);
    json_t *result = json_object_get(json_object_get(doc, "event"), "result");
    cr_assert_eq(tb_num(json_object_get(result, "damage"), "dealt"), 3);
    cr_assert_str_eq(
        tb_text(json_object_get(json_object_get(result, "damage"), "roll"), "expression"), "1d4");
    json_decref(doc);
    enc_post_ok(&srv, &e, "/next-turn", NULL); /* n */
    doc = suite_call(
        &e, "POST", "/actions",
        "{\"type\":\"move\",\"actor\":\"n\",\"path\":[{\"x\":3,\"y\":3},{\"x\":4,\"y\":3}]}", 200);
    cr_assert(!json_is_true(json_object_get(json_object_get(doc, "state"), "awaiting_reactions")));
    cr_assert_eq(tb_num(enc_combatant(doc, "n"), "x"), 4);
    json_decref(doc);
}

/* QA round 2, engine 3: a combatant that joins at -3 hp is dying at once (SRD, Dying), so it
 * flanks for no one; the table's dice for an attack the engine makes are its own mistake when
 * they do not fit (a 422 at /reaction_results/ID, not an attack of opportunity lost); and the
 * odds of the charge's attack carry its +2 (SRD, Combat: Charge), as the attack will. */
Test(qa, joining_dying_wrong_reaction_dice_and_the_charges_odds)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":7}");
    static const char *const adds[] = {
        "{\"id\":\"a\",\"side\":\"p\",\"x\":4,\"y\":5,\"speeds\":{\"walk\":30},\"defense\":{"
        "\"armor\":2},\"max_hp\":20,\"dex\":10,\"attacks\":[{\"name\":\"sword\",\"attack_bonus\":"
        "5,\"damage\":\"1d8\"}]}",
        "{\"id\":\"b\",\"side\":\"m\",\"x\":5,\"y\":5,\"speeds\":{\"walk\":30},\"defense\":{"
        "\"armor\":2},\"max_hp\":20,\"dex\":10,\"aoo_policy\":\"always\",\"attacks\":[{\"name\":"
        "\"club\",\"attack_bonus\":2,\"damage\":\"1d6\"}]}",
        "{\"id\":\"c\",\"side\":\"p\",\"x\":6,\"y\":5,\"hp\":-3,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":2},\"max_hp\":20,\"dex\":10}"};
    json_t *doc = NULL;
    for (int i = 0; i < 3; i++) {
        json_decref(doc);
        doc = suite_call(&e, "POST", "/combatants", adds[i], 201);
    }
    cr_assert_str_eq(tb_text(enc_combatant(doc, "c"), "hp_state"), "dying");
    json_decref(doc);
    enc_post_ok(&srv, &e, "/initiative", "{\"results\":[5,1,20,1,1,1]}");
    enc_post_ok(&srv, &e, "/next-turn", NULL); /* b */
    enc_post_ok(&srv, &e, "/next-turn", NULL); /* a (c, dying, is skipped next) */
    json_t *f = suite_call(&e, "GET", "/flanking?attacker=a&target=b", NULL, 200);
    cr_assert(!json_is_true(json_object_get(f, "flanked")), "the dying c flanks for no one");
    json_decref(f);
    /* a walks away from b (always): the table supplied a d20 alone for a hit that needs its
     * damage die. */
    json_t *no =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"move\",\"actor\":\"a\",\"path\":[{\"x\":4,\"y\":4},{\"x\":4,"
                   "\"y\":3}],\"reaction_results\":{\"b\":[19]}}",
                   422);
    const char *p = tb_text(json_array_get(json_object_get(no, "errors"), 0), "pointer");
    cr_assert_eq(strncmp(p, "/reaction_results/b", 19), 0, "%s", p);
    json_decref(no);
    /* a, set back to 2,5, charges b instead, and asks the odds of the charge's attack. */
    json_decref(suite_call(&e, "PATCH", "/combatants/a", "{\"x\":2}", 200));
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"move\",\"actor\":\"a\",\"mode\":\"charge\",\"target\":\"b\","
                "\"path\":[{\"x\":3,\"y\":5},{\"x\":4,\"y\":5}]}");
    doc = suite_call(&e, "GET", "/odds?actor=a&target=b", NULL, 200);
    bool plus2 = false;
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(doc, "modifiers"), i, m)
    {
        plus2 |= strcmp(tb_text(m, "reason"), "attacker charging") == 0 && tb_num(m, "value") == 2;
    }
    cr_assert(plus2, "the odds carry the charge's +2");
    json_decref(doc);
}

/* QA round 2, engine 3, the smaller refusals: initiative's aware listing someone twice; forced
 * movement done by a creature to itself (001 Forced Movement: "move an enemy"); dice for the
 * mover's own attack of opportunity on itself; and a prone creature's 5-foot step refused at
 * /type, the action it is (it has no mode). */
Test(qa, twice_aware_self_pushes_self_reactions_and_a_prone_step)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":7}");
    json_decref(
        suite_call(&e, "POST", "/combatants",
                   "{\"id\":\"a\",\"side\":\"p\",\"x\":4,\"y\":5,\"conditions\":[\"prone\"],"
                   "\"speeds\":{\"walk\":30},\"defense\":{\"armor\":2},\"max_hp\":20,\"dex\":10}",
                   201));
    json_decref(suite_call(&e, "POST", "/combatants",
                           "{\"id\":\"b\",\"side\":\"m\",\"x\":8,\"y\":5,\"speeds\":{\"walk\":30},"
                           "\"defense\":{\"armor\":2},\"max_hp\":20,\"dex\":10}",
                           201));
    static const struct {
        const char *suffix, *body, *pointer;
    } cases[] = {
        {"/initiative", "{\"aware\":[\"a\",\"a\"],\"results\":[5,1,4,1]}", "/aware/1"},
        {"/actions",
         "{\"type\":\"forced\",\"actor\":\"a\",\"target\":\"a\",\"kind\":\"push\",\"squares\":1,"
         "\"path\":[{\"x\":3,\"y\":5}]}",
         "/target"},
        {"/actions",
         "{\"type\":\"move\",\"actor\":\"a\",\"mode\":\"crawl\",\"path\":[{\"x\":4,\"y\":6}],"
         "\"reaction_results\":{\"a\":[2]}}",
         "/reaction_results/a"},
        {"/actions", "{\"type\":\"five_foot_step\",\"actor\":\"a\",\"path\":[{\"x\":4,\"y\":6}]}",
         "/type"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *no = suite_call(&e, "POST", cases[i].suffix, cases[i].body, 422);
        cr_assert_str_eq(tb_text(json_array_get(json_object_get(no, "errors"), 0), "pointer"),
                         cases[i].pointer, "%s", cases[i].body);
        json_decref(no);
    }
}

/* QA round 2, engine 3: a creature stands only where one of its speeds can be (001 Alternative
 * Movement Types; 001 Blocked Terrain: earth is for "burrowing"): a walker is refused in an
 * earth square, a burrower is not. A mover may still have been put where its speeds do not go
 * (pushed into water): the stateless path rules its steps out of it (QA round 3), and a
 * walker pushed into water keeps its other members changeable (only a change of place is
 * placed again). */
Test(qa, a_walker_stands_in_no_earth_and_no_water)
{
    struct enc e;
    enc_create(&srv, &e,
               "{\"map\":{\"width\":6,\"height\":6,\"squares\":[{\"x\":2,\"y\":2,"
               "\"terrain\":\"earth\"}]}}");
    json_t *no = suite_call(&e, "POST", "/combatants",
                            "{\"id\":\"a\",\"side\":\"p\",\"x\":2,\"y\":2,\"speeds\":{\"walk\":30},"
                            "\"defense\":{},\"max_hp\":5,\"dex\":10}",
                            422);
    cr_assert_not_null(strstr(tb_text(no, "detail"), "stands in earth at (2, 2)"), "%s",
                       tb_text(no, "detail"));
    json_decref(no);
    json_decref(suite_call(&e, "POST", "/combatants",
                           "{\"id\":\"a\",\"side\":\"p\",\"x\":2,\"y\":2,\"speeds\":{\"walk\":30,"
                           "\"burrow\":10},\"defense\":{},\"max_hp\":5,\"dex\":10}",
                           201));
    json_t *doc = http_post_json(
        &srv, "/v1/movement/path",
        "{\"map\":{\"width\":5,\"height\":3,\"squares\":[{\"x\":0,\"y\":0,\"terrain\":"
        "\"water\"}]},\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":30}},\"mode\":\"move\","
        "\"path\":[{\"x\":1,\"y\":0}]}",
        200);
    cr_assert(json_is_true(json_object_get(doc, "legal")));
    json_decref(doc);
    /* A walker pushed into water (forced movement may end there) can still be renamed. */
    struct enc w;
    enc_create(&srv, &w,
               "{\"map\":{\"width\":6,\"height\":6,\"squares\":[{\"x\":2,\"y\":2,"
               "\"terrain\":\"water\"}]}}");
    json_decref(suite_call(&w, "POST", "/combatants",
                           "{\"id\":\"a\",\"side\":\"p\",\"x\":2,\"y\":4,\"speeds\":{\"walk\":30},"
                           "\"defense\":{},\"max_hp\":5,\"dex\":10}",
                           201));
    json_decref(suite_call(&w, "POST", "/combatants",
                           "{\"id\":\"b\",\"side\":\"m\",\"x\":2,\"y\":3,\"speeds\":{\"walk\":30},"
                           "\"defense\":{},\"max_hp\":5,\"dex\":10}",
                           201));
    enc_post_ok(&srv, &w, "/actions",
                "{\"type\":\"forced\",\"actor\":\"a\",\"target\":\"b\",\"kind\":\"push\","
                "\"squares\":1,\"path\":[{\"x\":2,\"y\":2}]}");
    json_decref(suite_call(&w, "PATCH", "/combatants/b", "{\"name\":\"Bob\"}", 200));
    json_decref(suite_call(&w, "PATCH", "/combatants/b", "{\"x\":3}", 200));
}

/* QA round 3, engine 3, d20 3.5 SRD Combat: Charge: "the designated opponent" is an enemy that is
 * up; "After moving, you may make a single melee attack": one with no melee attack cannot
 * charge; only a charge names a target. */
Test(qa, a_charge_needs_an_opponent_and_a_melee_attack)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":10,\"height\":4},\"seed\":3}");
    static const char *const adds[] = {
        "{\"id\":\"c\",\"side\":\"p\",\"x\":1,\"y\":1,\"speeds\":{\"walk\":30},\"defense\":{"
        "\"armor\":2},\"max_hp\":20,\"dex\":10,\"attacks\":[{\"name\":\"bow\",\"attack\":"
        "\"ranged\",\"attack_bonus\":6,\"damage\":\"1d8\"}]}",
        "{\"id\":\"f\",\"side\":\"p\",\"x\":1,\"y\":3,\"speeds\":{\"walk\":30},\"defense\":{"
        "\"armor\":2},\"max_hp\":20,\"dex\":10,\"attacks\":[{\"name\":\"sword\","
        "\"attack_bonus\":5,\"damage\":\"1d8\"}]}",
        "{\"id\":\"pal\",\"side\":\"p\",\"x\":5,\"y\":3,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":2},\"max_hp\":20,\"dex\":10}",
        "{\"id\":\"t\",\"side\":\"m\",\"x\":5,\"y\":1,\"speeds\":{\"walk\":30},\"defense\":{"
        "\"armor\":2},\"max_hp\":20,\"dex\":10}"};
    for (int i = 0; i < 4; i++)
        json_decref(suite_call(&e, "POST", "/combatants", adds[i], 201));
    static const struct {
        const char *body, *pointer;
    } cases[] = {
        {"{\"type\":\"move\",\"actor\":\"c\",\"mode\":\"charge\",\"target\":\"t\",\"path\":"
         "[{\"x\":2,\"y\":1},{\"x\":3,\"y\":1},{\"x\":4,\"y\":1}]}",
         "/mode"},
        {"{\"type\":\"move\",\"actor\":\"f\",\"mode\":\"charge\",\"target\":\"pal\",\"path\":"
         "[{\"x\":2,\"y\":3},{\"x\":3,\"y\":3},{\"x\":4,\"y\":3}]}",
         "/target"},
        {"{\"type\":\"move\",\"actor\":\"f\",\"target\":\"t\",\"path\":[{\"x\":2,\"y\":3}]}",
         "/target"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *no = suite_call(&e, "POST", "/actions", cases[i].body, 422);
        cr_assert_str_eq(tb_text(json_array_get(json_object_get(no, "errors"), 0), "pointer"),
                         cases[i].pointer, "%s", cases[i].body);
        json_decref(no);
    }
}

/* QA round 3, engine 3, d20 3.5 SRD Combat: Charge: "If you are able to take only a standard
 * action or a move action on your turn, you can still charge, but you are only allowed to move
 * up to your speed": in the surprise round (004 Step One: a partial action) c charges t 15 ft
 * and strikes at +2; 35 ft, past its speed of 30, is refused. */
Test(qa, a_partial_action_charges_up_to_speed)
{
    struct enc e;
    enc_create(&srv, &e,
               "{\"map\":{\"width\":12,\"height\":3},\"seed\":3,\"combatants\":[{\"id\":\"c\","
               "\"side\":\"p\",\"x\":0,\"y\":1,\"speeds\":{\"walk\":30},\"defense\":{\"armor\":2},"
               "\"max_hp\":20,\"dex\":10,\"attacks\":[{\"name\":\"sword\",\"attack_bonus\":5,"
               "\"damage\":\"1d8\"}]},{\"id\":\"t\",\"side\":\"m\",\"x\":8,\"y\":1,\"speeds\":{"
               "\"walk\":30},\"defense\":{\"armor\":2},\"max_hp\":20,\"dex\":10}],\"initiative\":{"
               "\"results\":[20,1,1,1],\"aware\":[\"c\"]}}");
    enc_post_ok(&srv, &e, "/next-turn", NULL); /* the surprise round: c */
    json_t *no =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"move\",\"actor\":\"c\",\"mode\":\"charge\",\"target\":\"t\","
                   "\"path\":[{\"x\":1,\"y\":1},{\"x\":2,\"y\":1},{\"x\":3,\"y\":1},{\"x\":4,"
                   "\"y\":1},{\"x\":5,\"y\":1},{\"x\":6,\"y\":1},{\"x\":7,\"y\":1}]}",
                   422);
    cr_assert_str_eq(tb_text(json_array_get(json_object_get(no, "errors"), 0), "pointer"),
                     "/path/6");
    json_decref(no);
    json_decref(suite_call(&e, "PATCH", "/combatants/c", "{\"x\":4}", 200));
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"move\",\"actor\":\"c\",\"mode\":\"charge\",\"target\":\"t\","
                "\"path\":[{\"x\":5,\"y\":1},{\"x\":6,\"y\":1},{\"x\":7,\"y\":1}]}");
    json_t *doc = suite_call(&e, "POST", "/actions", TB_ATTACK("c", "t", "[2]"), 200);
    bool plus2 = false;
    size_t i;
    json_t *m;
    json_array_foreach(
        json_object_get(json_object_get(json_object_get(doc, "event"), "result"), "modifiers"), i,
        m)
    {
        plus2 |= strcmp(tb_text(m, "reason"), "attacker charging") == 0;
    }
    cr_assert(plus2);
    json_decref(doc);
}

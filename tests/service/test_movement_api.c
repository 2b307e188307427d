/* POST /v1/movement/{path,reach,route,forced,speed} against the real server. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(movement_api);

/* True when the problem lists an error at pointer. */
static bool has_pointer(json_t *problem, const char *pointer)
{
    return tb_find_by(json_object_get(problem, "errors"), "pointer", pointer) != NULL;
}

/* 000 Attacks of Opportunity, figure 3: the rogue goes round the back of a fighter facing
 * west: "-10 penalty because the rogue is in the fighter's rear area ... +2 bonus because he's
 * in the rogue's flank area". */
/* POSTs a path (200): asserts it is legal and costs total_ft; returns the answer (decref it). */
static json_t *legal_path(const char *body, long long total_ft)
{
    json_t *doc = http_post_json(&srv, "/v1/movement/path", body, 200);
    cr_assert(json_is_true(json_object_get(doc, "legal")), "%s", body);
    cr_assert_eq(tb_num(doc, "total_ft"), total_ft, "%s", body);
    return doc;
}

/* Asserts an answer lists count attacks of opportunity, the first by creature; returns it. */
static json_t *first_aoo(json_t *doc, size_t count, const char *creature)
{
    json_t *aoos = json_object_get(doc, "attacks_of_opportunity");
    cr_assert_eq(json_array_size(aoos), count);
    json_t *a = json_array_get(aoos, 0);
    cr_assert_str_eq(json_string_value(json_object_get(a, "creature")), creature);
    return a;
}

Test(movement_api, path_prices_the_move_and_lists_the_attack_of_opportunity)
{
    json_t *doc = legal_path(
        "{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"map\":{\"width\":10,\"height\":10},"
        "\"creatures\":[{\"id\":\"fighter\",\"x\":5,\"y\":5,\"facing\":6}],"
        "\"mover\":{\"x\":6,\"y\":4,\"facing\":4,\"speeds\":{\"walk\":30}},\"mode\":\"move\","
        "\"path\":[{\"x\":6,\"y\":5},{\"x\":6,\"y\":6},{\"x\":6,\"y\":7}]}",
        15);
    json_t *a = first_aoo(doc, 1, "fighter");
    cr_assert_eq(tb_num(a, "step"), 1);
    cr_assert_eq(tb_num(a, "attack_total"), -8);
    cr_assert_str_eq(json_string_value(json_object_get(a, "target_area")), "rear");
    cr_assert_str_eq(json_string_value(json_object_get(a, "attacker_area")), "flank");
    /* Told for a chat: plain, and in Discord markdown with the figures in bold. */
    tb_explain_is(doc, "Legal: 15 ft, provokes 1 attack of opportunity (fighter).",
                  "**Legal**: **15 ft**, provokes **1** attack of opportunity (fighter).");
    json_decref(doc);
}

/* 000 figure 2: sideways, keeping the facing: two squares of movement a square. */
Test(movement_api, path_with_facings_doubles_sideways_steps)
{
    json_t *doc = legal_path(
        "{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"map\":{\"width\":10,\"height\":10},"
        "\"creatures\":[{\"id\":\"fighter\",\"x\":5,\"y\":5,\"facing\":6}],"
        "\"mover\":{\"x\":4,\"y\":4,\"facing\":4,\"speeds\":{\"walk\":30}},\"mode\":\"move\","
        "\"path\":[{\"x\":4,\"y\":5,\"facing\":2},{\"x\":4,\"y\":6,\"facing\":2}],"
        "\"end_facing\":0}",
        20);
    json_t *step = json_array_get(json_object_get(doc, "steps"), 0);
    cr_assert_eq(tb_num(step, "cost_ft"), 10);
    json_t *why = json_array_get(json_object_get(step, "why"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(why, "rule")), "flank_or_rear_square");
    cr_assert_eq(tb_num(json_object_get(doc, "end"), "facing"), 0);
    json_t *a = json_array_get(json_object_get(doc, "attacks_of_opportunity"), 0);
    cr_assert_eq(tb_num(a, "attack_total"), 0);
    json_decref(doc);
}

/* Every broken rule comes back with its step: 001 Difficult Terrain for a run, 001 Blocked
 * Terrain, 001 Walk's unoccupied end. */
Test(movement_api, illegal_paths_name_each_rule_and_step)
{
    json_t *doc = http_post_json(
        &srv, "/v1/movement/path",
        "{\"map\":{\"width\":6,\"height\":2,\"rows\":[\".d#...\",\"......\"]},"
        "\"creatures\":[{\"id\":\"ally\",\"side\":\"ally\",\"x\":0,\"y\":1}],"
        "\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":30}},\"mode\":\"run\","
        "\"path\":[{\"x\":1,\"y\":0},{\"x\":2,\"y\":0},{\"x\":1,\"y\":1},{\"x\":0,\"y\":1}]}",
        200);
    cr_assert(json_is_false(json_object_get(doc, "legal")));
    json_t *v = json_object_get(doc, "violations");
    const char *want[][2] = {
        {"0", "run_through_difficult"}, {"1", "blocked"}, {"3", "ends_occupied"}};
    for (size_t k = 0; k < 3; k++) {
        bool found = false;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            char step[8];
            snprintf(step, sizeof step, "%lld", tb_num(e, "step"));
            found |= strcmp(step, want[k][0]) == 0 &&
                     strcmp(json_string_value(json_object_get(e, "code")), want[k][1]) == 0;
        }
        cr_assert(found, "%s at %s", want[k][1], want[k][0]);
    }
    cr_assert(strstr(json_string_value(json_object_get(doc, "explain")), "Illegal at step 0") !=
              NULL);
    json_decref(doc);
}

/* Reach with the 000 diagonal rule: 30 ft covers every square whose alternating count is at
 * most 6 (5 + 10 + 5 for three diagonals). */
Test(movement_api, reach_lists_every_square_with_its_cost)
{
    json_t *doc = http_post_json(&srv, "/v1/movement/reach",
                                 "{\"map\":{\"width\":13,\"height\":13},\"mover\":{\"x\":6,"
                                 "\"y\":6,\"speeds\":{\"walk\":30}},\"mode\":\"move\"}",
                                 200);
    int expect = 0;
    for (int dy = -6; dy <= 6; dy++)
        for (int dx = -6; dx <= 6; dx++) {
            int a = dx < 0 ? -dx : dx, b = dy < 0 ? -dy : dy;
            int hi = a > b ? a : b, lo = a > b ? b : a;
            expect += (a || b) && hi + lo / 2 <= 6;
        }
    cr_assert_eq(tb_num(doc, "count"), expect);
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(doc, "squares"), i, s)
    {
        if (tb_num(s, "x") == 9 && tb_num(s, "y") == 9)
            cr_assert_eq(tb_num(s, "cost_ft"), 20);
    }
    json_decref(doc);
}

/* The hardening issue's request: a hex map smaller than the search window (the server
 * aborted with free(): invalid size). On 3 x 3 hexes every other hex is within 30 ft. */
Test(movement_api, hex_reach_on_a_map_smaller_than_the_window)
{
    json_t *doc =
        http_post_json(&srv, "/v1/movement/reach",
                       "{\"rules\":{\"options\":{\"grid\":\"hex\"}},\"map\":{\"width\":3,"
                       "\"height\":3},\"mover\":{\"q\":0,\"r\":0,\"speeds\":{\"walk\":30}},"
                       "\"mode\":\"move\"}",
                       200);
    cr_assert_eq(tb_num(doc, "count"), 8);
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(doc, "squares"), i, s)
    {
        /* Hex distance from (0,0): (|q| + |r| + |q + r|) / 2. */
        long long q = tb_num(s, "q"), r = tb_num(s, "r");
        cr_assert_eq(tb_num(s, "cost_ft"), 5 * (q + r + q + r) / 2);
    }
    json_decref(doc);
}

Test(movement_api, reach_can_prefer_fewest_attacks)
{
    json_t *doc = http_post_json(
        &srv, "/v1/movement/reach",
        "{\"rules\":{\"preset\":\"epic-path\"},\"map\":{\"width\":9,\"height\":4,\"rows\":["
        "\"###.#####\",\".........\",\".#######.\",\".........\"]},"
        "\"creatures\":[{\"id\":\"orc\",\"x\":3,\"y\":0}],\"mover\":{\"x\":0,\"y\":1,"
        "\"speeds\":{\"walk\":60}},\"mode\":\"move\",\"prefer\":\"fewest_attacks\"}",
        200);
    size_t i;
    json_t *s;
    bool seen = false;
    json_array_foreach(json_object_get(doc, "squares"), i, s)
    {
        if (tb_num(s, "x") == 8 && tb_num(s, "y") == 1) {
            seen = true;
            cr_assert_eq(tb_num(s, "cost_ft"), 60);
            cr_assert_eq(json_array_size(json_object_get(s, "attacks_of_opportunity")), 0);
        }
    }
    cr_assert(seen);
    json_decref(doc);
}

Test(movement_api, route_finds_the_gap_and_says_how_far_this_action_goes)
{
    json_t *doc = http_post_json(
        &srv, "/v1/movement/route",
        "{\"rules\":{\"preset\":\"epic-path\"},\"map\":{\"width\":7,\"height\":4,\"rows\":["
        "\"..#....\",\"..#....\",\"..#....\",\".......\"]},\"mover\":{\"x\":0,\"y\":0,"
        "\"speeds\":{\"walk\":30}},\"mode\":\"move\",\"target\":{\"x\":4,\"y\":0}}",
        200);
    cr_assert(json_is_true(json_object_get(doc, "found")));
    cr_assert_eq(tb_num(doc, "route_cost_ft"), 40);
    cr_assert_eq(json_array_size(json_object_get(doc, "steps")), 8);
    cr_assert_eq(tb_num(doc, "steps_in_budget"), 6);
    cr_assert(json_is_false(json_object_get(doc, "legal")));
    json_decref(doc);
    doc = http_post_json(&srv, "/v1/movement/route",
                         "{\"map\":{\"width\":5,\"height\":1,\"rows\":[\"..#..\"]},\"mover\":{"
                         "\"x\":0,\"y\":0,\"speeds\":{\"walk\":30}},\"mode\":\"move\","
                         "\"target\":{\"x\":4,\"y\":0}}",
                         200);
    cr_assert(json_is_false(json_object_get(doc, "found")));
    json_decref(doc);
}

/* 001 Push: "If any squares in the desired path are blocked or occupied by any creatures
 * (friend or foe) the push ends in the square prior to this obstruction." */
Test(movement_api, forced_push_stops_before_a_creature)
{
    json_t *doc = http_post_json(
        &srv, "/v1/movement/forced",
        "{\"map\":{\"width\":8,\"height\":3},\"creatures\":[{\"id\":\"friend\",\"side\":\"ally\","
        "\"x\":3,\"y\":1}],\"attacker\":{\"x\":0,\"y\":1},\"target\":{\"x\":1,\"y\":1},"
        "\"kind\":\"push\",\"squares\":3,\"path\":[{\"x\":2,\"y\":1},{\"x\":3,\"y\":1},"
        "{\"x\":4,\"y\":1}]}",
        200);
    cr_assert_eq(tb_num(doc, "moved"), 1);
    cr_assert_eq(tb_num(json_object_get(doc, "end"), "x"), 2);
    json_t *stop = json_object_get(doc, "stop");
    cr_assert_str_eq(json_string_value(json_object_get(stop, "code")), "obstructed");
    cr_assert_str_eq(json_string_value(json_object_get(stop, "obstacle")), "friend");
    cr_assert(json_is_false(json_object_get(doc, "provokes")));
    json_decref(doc);
}

/* 001 Encumbrance's example under epic-path: heavy armor and medium load, 20 ft -> 10 ft. */
Test(movement_api, speed_applies_armor_and_load)
{
    json_t *doc = http_post_json(&srv, "/v1/movement/speed",
                                 "{\"rules\":{\"preset\":\"epic-path\"},\"mover\":{\"speeds\":{"
                                 "\"walk\":20},\"armor\":\"heavy\",\"load\":\"medium\","
                                 "\"constitution\":12},\"checks\":3}",
                                 200);
    cr_assert_eq(tb_num(json_object_get(doc, "walk"), "effective_ft"), 10);
    json_t *run = json_object_get(doc, "run");
    cr_assert_eq(tb_num(run, "multiplier"), 2);
    cr_assert_eq(tb_num(run, "rounds_before_checks"), 12);
    cr_assert_eq(json_array_size(json_object_get(run, "check_dcs")), 3);
    cr_assert_eq(json_integer_value(json_array_get(json_object_get(run, "check_dcs"), 2)), 34);
    json_decref(doc);
}

Test(movement_api, bad_input_names_the_field)
{
    static const struct {
        const char *path, *body, *pointer;
    } cases[] = {
        {"/v1/movement/path",
         "{\"map\":{\"width\":1001,\"height\":3},\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":"
         "30}},\"mode\":\"move\",\"path\":[{\"x\":1,\"y\":0}]}",
         "/map/width"},
        {"/v1/movement/path",
         "{\"map\":{\"width\":5,\"height\":3},\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":"
         "30}},\"mode\":\"move\",\"path\":[{\"x\":1,\"y\":0},{\"x\":3,\"y\":0}]}",
         "/path/1"},
        {"/v1/movement/path",
         "{\"map\":{\"width\":5,\"height\":3},\"creatures\":[{\"id\":\"a\",\"x\":5,\"y\":0}],"
         "\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":30}},\"mode\":\"move\",\"path\":[{"
         "\"x\":1,\"y\":0}]}",
         "/creatures/0"},
        /* 001 Blocked Terrain: "impossible to move into": nobody stands in it (a Large
         * creature whose space covers the wall at (3, 1); a mover on it; a target pushed). */
        {"/v1/movement/path",
         "{\"map\":{\"width\":5,\"height\":3,\"squares\":[{\"x\":3,\"y\":1,\"terrain\":"
         "\"blocked\"}]},\"creatures\":[{\"id\":\"a\",\"x\":2,\"y\":0,\"size\":\"large\"}],"
         "\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":30}},\"mode\":\"move\",\"path\":[{"
         "\"x\":1,\"y\":0}]}",
         "/creatures/0"},
        {"/v1/movement/path",
         "{\"map\":{\"width\":5,\"height\":3,\"squares\":[{\"x\":0,\"y\":0,\"terrain\":"
         "\"blocked\"}]},\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":30}},\"mode\":"
         "\"move\",\"path\":[{\"x\":1,\"y\":0}]}",
         "/mover"},
        {"/v1/movement/forced",
         "{\"map\":{\"width\":5,\"height\":3,\"squares\":[{\"x\":2,\"y\":0,\"terrain\":"
         "\"blocked\"}]},\"attacker\":{\"x\":1,\"y\":0},\"target\":{\"x\":2,\"y\":0},"
         "\"kind\":\"push\",\"squares\":1,\"path\":[{\"x\":3,\"y\":0}]}",
         "/target"},
        {"/v1/movement/path",
         "{\"map\":{\"width\":5,\"height\":3},\"creatures\":[{\"id\":\"a\",\"x\":2,\"y\":0},{"
         "\"id\":\"b\",\"x\":2,\"y\":0}],\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":30}},"
         "\"mode\":\"move\",\"path\":[{\"x\":1,\"y\":0}]}",
         "/creatures/1"},
        {"/v1/movement/path",
         "{\"map\":{\"width\":5,\"height\":1,\"rows\":[\"..x..\"]},\"mover\":{\"x\":0,\"y\":0,"
         "\"speeds\":{\"walk\":30}},\"mode\":\"move\",\"path\":[{\"x\":1,\"y\":0}]}",
         "/map/rows/0"},
        {"/v1/movement/reach",
         "{\"map\":{\"width\":5,\"height\":3},\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":"
         "30}},\"mode\":\"withdraw\"}",
         "/withdraw"},
        {"/v1/movement/reach",
         "{\"map\":{\"width\":5,\"height\":3},\"mover\":{\"x\":0,\"y\":0},\"mode\":\"move\"}",
         "/mover/speeds"},
        {"/v1/movement/reach",
         "{\"map\":{\"width\":5,\"height\":3},\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":"
         "30}},\"mode\":\"move\",\"path\":[]}",
         "/path"},
        {"/v1/movement/route",
         "{\"map\":{\"width\":5,\"height\":3},\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":"
         "30}},\"mode\":\"move\",\"target\":{\"creature\":\"nobody\"}}",
         "/target/creature"},
        {"/v1/movement/forced",
         "{\"map\":{\"width\":5,\"height\":3},\"attacker\":{\"x\":0,\"y\":0},\"target\":{\"x\":"
         "1,\"y\":0},\"kind\":\"push\",\"squares\":1,\"path\":[{\"x\":2,\"y\":0},{\"x\":3,\"y\":"
         "0}]}",
         "/path"},
        {"/v1/movement/speed", "{\"mover\":{\"speeds\":{\"walk\":30},\"armor\":\"mithral\"}}",
         "/mover/armor"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *doc = http_post_json(&srv, cases[i].path, cases[i].body, 422);
        cr_assert(has_pointer(doc, cases[i].pointer), "%s: %s", cases[i].pointer, cases[i].body);
        json_decref(doc);
    }
}

/* Found by fuzz_requests: a body that is not JSON, or not an object, leaked the error list. */
Test(movement_api, malformed_bodies_are_refused_without_leaks)
{
    static const char *const paths[] = {"/v1/movement/path", "/v1/movement/reach",
                                        "/v1/movement/route", "/v1/movement/forced",
                                        "/v1/movement/speed"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        json_t *doc = http_post_json(&srv, paths[i], "{\"map\":", 400);
        json_decref(doc);
        doc = http_post_json(&srv, paths[i], "[1,2]", 422);
        json_decref(doc);
    }
}

/* Odds for a move (issue 23), critical hits off for the closed forms, and 001's rule that
 * leaving any threatened square provokes (start_square threatened; 004's makes the starting
 * square safe). The mover (AC 12, 3 hp)
 * leaves the orc's square first (+4: needs 8, 13 of 20; 1d6), then the goblin's (+2: needs
 * 10, 11 of 20; 1d4). After the orc: 0 taken 0.35; 1 to 6 each 0.65/6, and 3 or more drops it,
 * which ends its move, so the goblin strikes only a mover at 0, 1 or 2 taken. It arrives with
 * 3 hp 0.35 x 0.45 = 0.1575; with 2 or more + 0.35 x 0.1375 + (0.65/6) x 0.45; with 1 or more
 * + 0.35 x 0.1375 + (0.65/6) x 0.1375 + (0.65/6) x 0.45. */
#define ODDS_MOVE                                                                                  \
    "{\"rules\":{\"options\":{\"critical_hits\":false,\"start_square\":\"threatened\"}},\"map\":{" \
    "\"width\":10,\"height\":10},"                                                                 \
    "\"creatures\":[{\"id\":\"orc\",\"x\":6,\"y\":5,\"attack_bonus\":4,\"damage\":\"1d6\"},"       \
    "{\"id\":\"goblin\",\"x\":2,\"y\":5,\"attack_bonus\":2,\"damage\":\"1d4\"}],"                  \
    "\"mode\":\"move\",\"path\":[{\"x\":4,\"y\":5},{\"x\":3,\"y\":5},{\"x\":3,\"y\":6}],"          \
    "\"odds\":true,"

static double real(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    cr_assert(json_is_number(v), "%s is a number", key);
    return json_number_value(v);
}

Test(movement_api, path_odds_give_each_attack_and_the_chance_to_arrive)
{
    json_t *doc = http_post_json(&srv, "/v1/movement/path",
                                 ODDS_MOVE "\"mover\":{\"x\":5,\"y\":5,\"speeds\":{\"walk\":30},"
                                           "\"defense\":{\"armor\":2},\"hp\":3}}",
                                 200);
    json_t *first = first_aoo(doc, 2, "orc");
    cr_assert(fabs(real(json_object_get(first, "odds"), "hit") - 0.65) < 1e-15);
    cr_assert(fabs(real(json_object_get(first, "odds"), "expected_damage") - 0.65 * 3.5) < 1e-12);
    json_t *second = json_array_get(json_object_get(doc, "attacks_of_opportunity"), 1);
    cr_assert(fabs(real(json_object_get(second, "odds"), "hit") - 0.55) < 1e-15);
    json_t *odds = json_object_get(doc, "odds");
    double one = 0.65 / 6;
    double a3 = 0.35 * 0.45, a2 = a3 + 0.35 * 0.1375 + one * 0.45,
           a1 = a2 + 0.35 * 0.1375 + one * 0.1375 + one * 0.45;
    cr_assert(fabs(real(odds, "hit_at_least_once") - (1 - 0.35 * 0.45)) < 1e-14);
    cr_assert(fabs(real(odds, "drop_chance") - (1 - a1)) < 1e-14, "%.17g",
              real(odds, "drop_chance"));
    cr_assert(fabs(real(odds, "kill_chance")) < 1e-15); /* 6 at most: never -10 */
    json_t *arrives = json_object_get(odds, "arrives");
    cr_assert_eq(json_array_size(arrives), 3);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(arrives, 0), "hp")), 3);
    cr_assert(fabs(real(json_array_get(arrives, 0), "at_least") - a3) < 1e-15);
    cr_assert(fabs(real(json_array_get(arrives, 1), "at_least") - a2) < 1e-15);
    cr_assert(fabs(real(json_array_get(arrives, 2), "at_least") - a1) < 1e-15);
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "explain")), "to be dropped"));
    json_decref(doc);
    /* Without hit points: both attacks always land on it, 0.65 x 3.5 + 0.55 x 2.5. */
    doc = http_post_json(&srv, "/v1/movement/path",
                         ODDS_MOVE "\"mover\":{\"x\":5,\"y\":5,\"speeds\":{\"walk\":30},"
                                   "\"defense\":{\"armor\":2}}}",
                         200);
    odds = json_object_get(doc, "odds");
    cr_assert(fabs(real(odds, "expected_damage") - 3.65) < 1e-12);
    cr_assert_null(json_object_get(odds, "drop_chance"));
    json_decref(doc);
}

Test(movement_api, move_odds_refuse_what_they_cannot_use)
{
    json_t *doc = http_post_json(&srv, "/v1/movement/path",
                                 ODDS_MOVE "\"mover\":{\"x\":5,\"y\":5,\"speeds\":{\"walk\":30},"
                                           "\"hp\":0}}",
                                 422);
    cr_assert(has_pointer(doc, "/mover/hp"));
    json_decref(doc);
    doc =
        http_post_json(&srv, "/v1/movement/reach",
                       "{\"map\":{\"width\":5,\"height\":5},\"mover\":{\"x\":0,\"y\":0,\"speeds\":"
                       "{\"walk\":30}},\"mode\":\"move\",\"odds\":true}",
                       422);
    cr_assert(has_pointer(doc, "/odds"));
    json_decref(doc);
    doc = http_post_json(&srv, "/v1/movement/path",
                         "{\"map\":{\"width\":5,\"height\":5},\"creatures\":[{\"id\":\"a\",\"x\":1,"
                         "\"y\":0,\"damage\":\"2d\"}],\"mover\":{\"x\":0,\"y\":0,\"speeds\":{"
                         "\"walk\":30}},\"mode\":\"move\",\"path\":[],\"odds\":1}",
                         422);
    cr_assert(has_pointer(doc, "/odds"));
    cr_assert(has_pointer(doc, "/creatures/0/damage"));
    json_decref(doc);
}

/* Reach ranked by safety (issue 23): every square the fewest-attacks search lists, safest
 * first. The orc (+4, 1d6; critical hits off) strikes a mover (AC 12) leaving a square it
 * threatens: needs 8, 13 of 20, 0.65 x 3.5 = 2.275 expected; it makes one attack of
 * opportunity a move (004), so no square costs more. Squares out of its reach cost nothing. */
Test(movement_api, reach_ranks_squares_by_the_damage_expected_on_the_way)
{
    json_t *doc = http_post_json(
        &srv, "/v1/movement/reach",
        "{\"rules\":{\"options\":{\"critical_hits\":false}},\"map\":{\"width\":9,\"height\":5},"
        "\"creatures\":[{\"id\":\"orc\",\"x\":4,\"y\":2,\"attack_bonus\":4,\"damage\":\"1d6\"}],"
        "\"mover\":{\"x\":0,\"y\":2,\"speeds\":{\"walk\":40},\"defense\":{\"armor\":2},\"hp\":5},"
        "\"mode\":\"move\",\"prefer\":\"safest\"}",
        200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "prefer")), "safest");
    json_t *squares = json_object_get(doc, "squares");
    size_t n = json_array_size(squares);
    cr_assert_gt(n, 10);
    double last = 0.0;
    bool some_risk = false;
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(squares, i);
        double e = real(s, "expected_damage");
        cr_assert_geq(e, last, "square %zu is listed after a safer one", i);
        last = e;
        size_t aoos = json_array_size(json_object_get(s, "attacks_of_opportunity"));
        if (aoos == 0) {
            cr_assert_eq(e, 0.0);
            cr_assert_eq(real(s, "drop_chance"), 0.0);
        } else {
            cr_assert_eq(aoos, 1);
            cr_assert(fabs(e - 0.65 * 3.5) < 1e-12, "%.17g", e);
            /* 5 hp: 1d6 of 5 or 6, 2 in 6. */
            cr_assert(fabs(real(s, "drop_chance") - 0.65 * 2 / 6) < 1e-15);
            some_risk = true;
        }
    }
    cr_assert(some_risk, "squares past the orc are listed");
    json_decref(doc);
}

/* A creature's id is the user's text: as written in explain, escaped in explain_markdown (a
 * backslash before each character Discord's markdown reads as markup), so an id cannot link or
 * format. The figures are figure 3's, as in the case above. */
Test(movement_api, path_explain_markdown_escapes_the_ids)
{
    json_t *doc = http_post_json(
        &srv, "/v1/movement/path",
        "{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"map\":{\"width\":10,\"height\":10},"
        "\"creatures\":[{\"id\":\"[f](http://e)_1\",\"x\":5,\"y\":5,\"facing\":6}],"
        "\"mover\":{\"x\":6,\"y\":4,\"facing\":4,\"speeds\":{\"walk\":30}},\"mode\":\"move\","
        "\"path\":[{\"x\":6,\"y\":5},{\"x\":6,\"y\":6},{\"x\":6,\"y\":7}]}",
        200);
    tb_explain_is(doc, "Legal: 15 ft, provokes 1 attack of opportunity ([f](http://e)_1).",
                  "**Legal**: **15 ft**, provokes **1** attack of opportunity "
                  "(\\[f\\]\\(http\\://e\\)\\_1).");
    json_decref(doc);
}

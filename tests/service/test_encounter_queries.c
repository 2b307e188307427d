/* Asking in encounter terms (issue 18): reach, route, threats and flanking from the stored map
 * and combatants. Kroh (party) at 5,5, the goblin (monsters) at 6,5, Mira (party) at 7,5, on
 * an open 12 x 12 map under the default rules (d20-3.5: 000's alternating diagonals, 004's
 * flanking and safe starting square, the SRD's critical hits). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/service/harness.h"

SERVER_TEST_SUITE(encounter_queries);

static void board(struct enc *e)
{
    enc_create(&srv, e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":5}");
    static const char *const bodies[] = {
        "{\"id\":\"fighter\",\"name\":\"Kroh\",\"side\":\"party\",\"x\":5,\"y\":5,\"speeds\":{"
        "\"walk\":30},\"defense\":{\"armor\":5},\"max_hp\":20,\"dex\":12,\"attacks\":[{\"name\":"
        "\"longsword\",\"attack_bonus\":6,\"damage\":\"1d8+3\"}]}",
        "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":2,\"dex\":1,\"size\":1},\"max_hp\":6,\"dex\":13,\"attacks\":[{"
        "\"name\":\"morningstar\",\"attack_bonus\":2,\"damage\":\"1d6\"}]}",
        "{\"id\":\"mira\",\"side\":\"party\",\"x\":7,\"y\":5,\"speeds\":{\"walk\":30},\"defense\":{"
        "\"armor\":3},\"max_hp\":12,\"dex\":10}",
    };
    for (int i = 0; i < 3; i++)
        json_decref(enc_call(&srv, e, "POST", "/combatants", NULL, bodies[i], 201));
}

static json_t *get(struct enc *e, const char *suffix, int status)
{
    return enc_call(&srv, e, "GET", suffix, NULL, NULL, status);
}

static json_t *square(json_t *doc, int x, int y)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(doc, "squares"), i, s)
    {
        if (json_integer_value(json_object_get(s, "x")) == x &&
            json_integer_value(json_object_get(s, "y")) == y)
            return s;
    }
    return NULL;
}

/* 000: three diagonals cost 5 + 10 + 5 = 20 ft; straight 15 ft for three squares; the goblin's
 * square is an enemy's (001 Walk: never entered). */
Test(encounter_queries, reach_prices_the_stored_board)
{
    struct enc e;
    board(&e);
    json_t *doc = get(&e, "/reach?actor=fighter", 200);
    cr_assert_eq(json_integer_value(json_object_get(square(doc, 2, 2), "cost_ft")), 20);
    cr_assert_eq(json_integer_value(json_object_get(square(doc, 5, 2), "cost_ft")), 15);
    cr_assert_null(square(doc, 6, 5));
    json_decref(doc);
}

/* Mira round the goblin to 3,5: it strikes as she leaves its threatened squares (not her
 * starting square: 004). +2 against AC 13 needs 11 on the d20: 10 of 20; a critical 1/20 x
 * 10/20; 1d6, doubled on a critical: 0.475 x 3.5 + 0.025 x 7 = 1.8375. 12 hp drop only on a
 * critical of 12 (1 in 36). */
Test(encounter_queries, route_with_odds_from_the_stored_profiles)
{
    struct enc e;
    board(&e);
    json_t *doc = get(&e, "/route?actor=mira&to=3,5&odds=true", 200);
    cr_assert(json_is_true(json_object_get(doc, "found")));
    json_t *aoos = json_object_get(doc, "attacks_of_opportunity");
    cr_assert_eq(json_array_size(aoos), 1);
    json_t *odds = json_object_get(json_array_get(aoos, 0), "odds");
    cr_assert(fabs(json_number_value(json_object_get(odds, "hit")) - 0.5) < 1e-15);
    cr_assert(fabs(json_number_value(json_object_get(odds, "expected_damage")) - 1.8375) < 1e-12);
    json_t *all = json_object_get(doc, "odds");
    cr_assert(fabs(json_number_value(json_object_get(all, "drop_chance")) - 0.025 / 36) < 1e-15);
    json_decref(doc);
    /* To threaten a combatant: Kroh already does. */
    doc = get(&e, "/route?actor=fighter&to=goblin", 200);
    cr_assert_eq(json_integer_value(json_object_get(doc, "route_cost_ft")), 0);
    json_decref(doc);
}

/* 004: "An attack of opportunity is a single melee attack": a goblin whose first profile is a
 * bow (1d12 here) strikes with its morningstar, +2 and 1d6, so the odds are the morningstar's
 * alone: 0.475 x 3.5 + 0.025 x 7 = 1.8375 (the bow's 1d12 would make it 3.4125). */
Test(encounter_queries, route_odds_take_the_melee_profile_an_attack_of_opportunity_uses)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":5}");
    static const char *const bodies[] = {
        "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":2,\"dex\":1,\"size\":1},\"max_hp\":6,\"dex\":13,\"attacks\":["
        "{\"name\":\"shortbow\",\"attack\":\"ranged\",\"attack_bonus\":9,\"damage\":\"1d12\"},"
        "{\"name\":\"morningstar\",\"attack_bonus\":2,\"damage\":\"1d6\"}]}",
        "{\"id\":\"mira\",\"side\":\"party\",\"x\":7,\"y\":5,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":3},\"max_hp\":12,\"dex\":10}",
    };
    for (int i = 0; i < 2; i++)
        json_decref(enc_call(&srv, &e, "POST", "/combatants", NULL, bodies[i], 201));
    json_t *doc = get(&e, "/route?actor=mira&to=3,5&odds=true", 200);
    json_t *aoos = json_object_get(doc, "attacks_of_opportunity");
    cr_assert_eq(json_array_size(aoos), 1);
    json_t *odds = json_object_get(json_array_get(aoos, 0), "odds");
    cr_assert(fabs(json_number_value(json_object_get(odds, "hit")) - 0.5) < 1e-15);
    cr_assert(fabs(json_number_value(json_object_get(odds, "expected_damage")) - 1.8375) < 1e-12,
              "expected damage %f", json_number_value(json_object_get(odds, "expected_damage")));
    json_decref(doc);
}

/* Whether the array of ids arr holds id. */
static bool lists(json_t *arr, const char *id)
{
    bool found = false;
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) found |= strcmp(json_string_value(v), id) == 0;
    return found;
}

Test(encounter_queries, threats_and_flanking_from_the_stored_positions)
{
    struct enc e;
    board(&e);
    json_t *doc = get(&e, "/threats", 200);
    json_t *list = json_object_get(doc, "combatants");
    cr_assert_eq(json_array_size(list), 3);
    json_t *gob = json_array_get(list, 1);
    cr_assert_str_eq(json_string_value(json_object_get(gob, "id")), "goblin");
    cr_assert(lists(json_object_get(gob, "threatens"), "fighter"));
    cr_assert(lists(json_object_get(gob, "threatens"), "mira"));
    cr_assert(lists(json_object_get(gob, "threatened_by"), "mira"));
    cr_assert(!lists(json_object_get(json_array_get(list, 0), "threatens"), "mira"));
    json_decref(doc);
    /* 004 Flanking: Kroh and Mira on opposite sides each flank it, +2. */
    doc = get(&e, "/flanking?target=goblin", 200);
    json_t *att = json_object_get(doc, "attackers");
    cr_assert_eq(json_array_size(att), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *f = json_object_get(json_array_get(att, i), "flanking");
        cr_assert(json_is_true(json_object_get(f, "flanked")));
        cr_assert_eq(json_integer_value(json_object_get(f, "bonus")), 2);
        /* Told with the stored names (else ids). */
        if (i == 0)
            cr_assert_str_eq(json_string_value(json_object_get(f, "explain")),
                             "goblin is flanked by mira (opposite sides): +2 on Kroh's melee "
                             "attack (004 Flanking).");
    }
    json_decref(doc);
    /* Mira steps away (as the game master places her): Kroh no longer flanks. */
    json_decref(enc_call(&srv, &e, "PATCH", "/combatants/mira", NULL, "{\"x\":7,\"y\":8}", 200));
    doc = get(&e, "/flanking?target=goblin&attacker=fighter", 200);
    att = json_object_get(doc, "attackers");
    cr_assert_eq(json_array_size(att), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(att, 0), "attacker")),
                     "fighter");
    cr_assert(json_is_false(
        json_object_get(json_object_get(json_array_get(att, 0), "flanking"), "flanked")));
    json_decref(doc);
}

Test(encounter_queries, bad_queries_name_their_parameter)
{
    struct enc e;
    board(&e);
    enc_get_refused(&srv, &e, "/reach", "?actor");
    enc_get_refused(&srv, &e, "/reach?actor=nobody", "?actor");
    enc_get_refused(&srv, &e, "/reach?actor=fighter&mode=teleport", "?mode");
    enc_get_refused(&srv, &e, "/reach?actor=fighter&prefer=prettiest", "?prefer");
    enc_get_refused(&srv, &e, "/route?actor=fighter", "?to");
    enc_get_refused(&srv, &e, "/route?actor=fighter&to=nowhere", "?to");
    enc_get_refused(&srv, &e, "/route?actor=fighter&to=99,99", "?to");
    /* A square is two whole numbers of at most 18 digits: past that, no overflow, a refusal. */
    enc_get_refused(&srv, &e, "/route?actor=fighter&to=99999999999999999999,3", "?to");
    enc_get_refused(&srv, &e, "/route?actor=fighter&to=3,3x", "?to");
    enc_get_refused(&srv, &e, "/route?actor=fighter&to=3,3&odds=maybe", "?odds");
    enc_get_refused(&srv, &e, "/flanking", "?target");
    enc_get_refused(&srv, &e, "/flanking?target=goblin&attacker=goblin", "?attacker");
}

/* d20 3.5 SRD, Combat: Charge: with one action (the surprise round, 004 Step One) "you can still
 * charge, but you are only allowed to move up to your speed": the reach query asks what the
 * charge action would allow, so along a clear row the farthest square is 30 ft away, not 60. */
Test(encounter_queries, a_charge_in_the_surprise_round_reaches_its_speed)
{
    struct enc e;
    enc_create(
        &srv, &e,
        "{\"map\":{\"width\":16,\"height\":1},\"seed\":3,\"combatants\":[{\"id\":\"c\","
        "\"side\":\"p\",\"x\":0,\"y\":0,\"speeds\":{\"walk\":30},\"defense\":{\"armor\":2},"
        "\"max_hp\":20,\"dex\":10},{\"id\":\"t\",\"side\":\"m\",\"x\":15,\"y\":0,\"speeds\":{"
        "\"walk\":30},\"defense\":{\"armor\":2},\"max_hp\":20,\"dex\":10}],\"initiative\":{"
        "\"results\":[20,1,1,1],\"aware\":[\"c\"]}}");
    enc_post_ok(&srv, &e, "/next-turn", NULL); /* the surprise round: c */
    json_t *doc = get(&e, "/reach?actor=c&mode=charge", 200);
    long long far = 0;
    size_t i;
    json_t *sq;
    json_array_foreach(json_object_get(doc, "squares"), i, sq)
    {
        long long c = json_integer_value(json_object_get(sq, "cost_ft"));
        far = c > far ? c : far;
    }
    cr_assert_eq(far, 30);
    cr_assert_not_null(square(doc, 6, 0));
    cr_assert_null(square(doc, 7, 0));
    json_decref(doc);
}

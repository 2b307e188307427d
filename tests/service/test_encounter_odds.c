/* GET /v1/encounters/{id}/odds (issue 23): an encounter's attack odds from its stored state.
 * The figures are worked by hand below from 004 (flanking +2), the d20 3.5 SRD (natural 20
 * and 1, critical threat and confirmation, x2 by rolling the damage twice, dead at -10) and
 * the dice; the request never carries the map, the placements or the hit points. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(encounter_odds);

static double real(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    cr_assert(json_is_number(v), "%s is a number", key);
    return json_number_value(v);
}

/* Kroh (+6, 1d8+3, base attack bonus 6) at 5,5 and the goblin (AC 10 + 2 armor + 1 Dex + 1
 * size = 14, 6 hp) at 6,5; with `ally`, Mira at 7,5 on the goblin's far side. The default
 * rules (d20-3.5): critical hits and the SRD's hit point states on. */
static void board(struct enc *e, bool ally)
{
    enc_create(&srv, e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":5}");
    json_decref(enc_call(
        &srv, e, "POST", "/combatants", NULL,
        "{\"id\":\"fighter\",\"name\":\"Kroh\",\"side\":\"party\",\"x\":5,\"y\":5,\"speeds\":{"
        "\"walk\":30},\"defense\":{\"armor\":5},\"max_hp\":20,\"dex\":12,\"base_attack_bonus\":6,"
        "\"attacks\":[{\"name\":\"longsword\",\"attack_bonus\":6,\"damage\":\"1d8+3\"},{\"name\":"
        "\"bow\",\"attack\":\"ranged\",\"attack_bonus\":4,\"damage\":\"1d6\"}]}",
        201));
    json_decref(enc_call(
        &srv, e, "POST", "/combatants", NULL,
        "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{"
        "\"walk\":30},\"defense\":{\"armor\":2,\"dex\":1,\"size\":1},\"max_hp\":"
        "6,\"dex\":13,\"attacks\":[{\"name\":\"morningstar\",\"attack_bonus\":2,\"damage\":"
        "\"1d6\"}]}",
        201));
    if (ally)
        json_decref(enc_call(&srv, e, "POST", "/combatants", NULL,
                             "{\"id\":\"mira\",\"side\":\"party\",\"x\":7,\"y\":5,\"speeds\":{"
                             "\"walk\":30},\"defense\":{\"armor\":3},\"max_hp\":12,\"dex\":10}",
                             201));
}

static json_t *odds(struct enc *e, const char *query, int status)
{
    char suffix[256];
    snprintf(suffix, sizeof suffix, "/odds?%s", query);
    return enc_call(&srv, e, "GET", suffix, NULL, NULL, status);
}

/* Whether the answer applies a modifier of `value` cited to `source`. */
static bool has_modifier(json_t *doc, const char *source, int value)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(doc, "modifiers"), i, m)
    {
        if (strcmp(json_string_value(json_object_get(m, "source")), source) == 0 &&
            json_integer_value(json_object_get(m, "value")) == value &&
            json_is_true(json_object_get(m, "applied")))
            return true;
    }
    return false;
}

/* +6 against AC 14 needs 8 on the d20: 13 of 20. A threat (a natural 20) confirms on a second
 * roll that hits: 1/20 x 13/20 = 0.0325. 6 hp drop on a normal hit of 1d8+3 >= 6 (d8 >= 3, 6 of
 * 8) or any critical (2d8+6): 0.6175 x 0.75 + 0.0325 = 0.495625. Dead at -10 (16 damage) only
 * on a critical with 2d8 >= 10 (28 of 64): 0.0325 x 0.4375. */
Test(encounter_odds, the_stored_state_gives_hit_critical_drop_and_kill_chances)
{
    struct enc e;
    board(&e, false);
    json_t *doc = odds(&e, "actor=fighter&target=goblin", 200);
    cr_assert_eq(json_integer_value(json_object_get(doc, "target_number")), 14);
    cr_assert(fabs(real(doc, "hit") - 0.65) < 1e-15);
    cr_assert(fabs(real(doc, "critical") - 0.0325) < 1e-15);
    json_t *dmg = json_object_get(doc, "damage");
    cr_assert(fabs(real(dmg, "drop_chance") - 0.495625) < 1e-15);
    cr_assert(fabs(real(dmg, "kill_chance") - 0.0325 * 0.4375) < 1e-15);
    cr_assert_str_eq(json_string_value(json_object_get(dmg, "kill_source")),
                     "d20 3.5 SRD, Combat: Injury and Death");
    json_t *ctx = json_object_get(doc, "encounter");
    cr_assert_str_eq(json_string_value(json_object_get(ctx, "attack")), "longsword");
    cr_assert_eq(json_integer_value(json_object_get(ctx, "at")), e.version);
    cr_assert(!has_modifier(doc, "004 Flanking", 2));
    json_decref(doc);
}

/* With Mira opposite, 004's flanking +2: needs 6, 15 of 20; critical 1/20 x 15/20 = 0.0375;
 * drop 0.7125 x 0.75 + 0.0375 = 0.571875. ?at=N still answers for the board before Mira came. */
Test(encounter_odds, an_ally_opposite_flanks_and_at_answers_for_an_earlier_board)
{
    struct enc e;
    board(&e, true);
    json_t *doc = odds(&e, "actor=fighter&target=goblin", 200);
    cr_assert(has_modifier(doc, "004 Flanking", 2));
    cr_assert(fabs(real(doc, "hit") - 0.75) < 1e-15);
    cr_assert(fabs(real(doc, "critical") - 0.0375) < 1e-15);
    cr_assert(fabs(real(json_object_get(doc, "damage"), "drop_chance") - 0.571875) < 1e-15);
    json_decref(doc);
    char q[96];
    snprintf(q, sizeof q, "actor=fighter&target=goblin&at=%lld", e.version - 1);
    doc = odds(&e, q, 200);
    cr_assert(!has_modifier(doc, "004 Flanking", 2));
    cr_assert(fabs(real(doc, "hit") - 0.65) < 1e-15);
    json_decref(doc);
}

/* Base attack bonus 6 gives a second attack at -5 (SRD Full Attack): +8 and +3 with the flank,
 * needing 6 and 11: 15 and 10 of 20. Cover (002: half, +4 AC) raises both targets by 4. */
Test(encounter_odds, full_attack_cover_and_a_named_attack)
{
    struct enc e;
    board(&e, true);
    json_t *doc = odds(&e, "actor=fighter&target=goblin&full=true", 200);
    json_t *each = json_object_get(json_object_get(doc, "full_attack"), "attacks");
    cr_assert_eq(json_array_size(each), 2);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(each, 1), "attack_bonus")), 1);
    cr_assert(fabs(real(json_array_get(each, 0), "hit") - 0.75) < 1e-15);
    cr_assert(fabs(real(json_array_get(each, 1), "hit") - 0.50) < 1e-15);
    json_decref(doc);
    doc = odds(&e, "actor=fighter&target=goblin&cover=half", 200);
    cr_assert_eq(json_integer_value(json_object_get(doc, "target_number")), 18);
    json_decref(doc);
    /* The bow: ranged, so no flanking (004: flanking is for melee) and no reach needed. */
    doc = odds(&e, "actor=fighter&target=goblin&attack=bow", 200);
    cr_assert(!has_modifier(doc, "004 Flanking", 2));
    json_decref(doc);
}

Test(encounter_odds, bad_queries_name_their_parameter)
{
    struct enc e;
    board(&e, false);
    enc_get_refused(&srv, &e, "/odds?target=goblin", "?actor");
    enc_get_refused(&srv, &e, "/odds?actor=fighter&target=nobody", "?target");
    enc_get_refused(&srv, &e, "/odds?actor=fighter&target=fighter", "?target");
    enc_get_refused(&srv, &e, "/odds?actor=fighter&target=goblin&attack=axe", "?attack");
    enc_get_refused(&srv, &e, "/odds?actor=fighter&target=goblin&full=yes", "?full");
    enc_get_refused(&srv, &e, "/odds?actor=fighter&target=goblin&cover=lots", "?cover");
    enc_get_refused(&srv, &e, "/odds?actor=fighter&target=goblin&cover=total", "?cover");
    enc_get_refused(&srv, &e, "/odds?actor=fighter&target=goblin&concealment=smoke",
                    "?concealment");
    /* The goblin moved away: the longsword no longer reaches. */
    json_decref(
        enc_call(&srv, &e, "PATCH", "/combatants/goblin", NULL, "{\"x\":10,\"y\":10}", 200));
    enc_get_refused(&srv, &e, "/odds?actor=fighter&target=goblin", "?target");
    json_t *doc =
        enc_call(&srv, &e, "GET", "/odds?actor=fighter&target=goblin&at=99", NULL, NULL, 422);
    json_decref(doc);
}

/* d20 3.5 SRD, Combat: Charge: after a charge, "you may make a single melee attack" at the
 * designated opponent, "+2 on the attack roll". The odds ask what the action would allow: at the
 * opponent, +2 (the attacker condition charging); at another enemy in reach, nothing, since the
 * action refuses it (the odds showed that attack, +2 and all). */
Test(encounter_odds, after_a_charge_only_its_opponent_is_asked_about)
{
    struct enc e;
    enc_create(&srv, &e,
               "{\"map\":{\"width\":12,\"height\":3},\"seed\":3,\"combatants\":[{\"id\":\"c\","
               "\"side\":\"p\",\"x\":4,\"y\":1,\"speeds\":{\"walk\":30},\"defense\":{\"armor\":2},"
               "\"max_hp\":20,\"dex\":10,\"attacks\":[{\"name\":\"sword\",\"attack_bonus\":5,"
               "\"damage\":\"1d8\"}]},{\"id\":\"t\",\"side\":\"m\",\"x\":9,\"y\":1,\"speeds\":{"
               "\"walk\":30},\"defense\":{\"armor\":2},\"max_hp\":20,\"dex\":10},{\"id\":\"u\","
               "\"side\":\"m\",\"x\":9,\"y\":2,\"speeds\":{\"walk\":30},\"defense\":{\"armor\":2},"
               "\"max_hp\":20,\"dex\":10}],\"initiative\":{\"results\":[20,1,1,1,1,2]}}");
    enc_post_ok(&srv, &e, "/next-turn", NULL);
    enc_post_ok(
        &srv, &e, "/actions",
        "{\"type\":\"move\",\"actor\":\"c\",\"mode\":\"charge\",\"target\":\"t\","
        "\"path\":[{\"x\":5,\"y\":1},{\"x\":6,\"y\":1},{\"x\":7,\"y\":1},{\"x\":8,\"y\":1}]}");
    json_t *doc = odds(&e, "actor=c&target=t", 200);
    cr_assert(has_modifier(doc, "d20 3.5 SRD, Combat: Charge", 2));
    json_decref(doc);
    doc = odds(&e, "actor=c&target=u", 422);
    cr_assert_str_eq(tb_first_pointer(doc), "?target");
    json_decref(doc);
}

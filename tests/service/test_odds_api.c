/* POST /v1/dice/odds and POST /v1/attacks/odds against the real server (issue 23). The
 * answers here are the OpenAPI examples. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(odds_api);

static double real(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    cr_assert(json_is_number(v), "%s is a number", key);
    return json_number_value(v);
}

/* The entry of `total` in a distribution list. */
static json_t *entry(json_t *dist, int total)
{
    size_t i;
    json_t *e;
    json_array_foreach(dist, i, e)
    {
        if (json_integer_value(json_object_get(e, "total")) == total)
            return e;
    }
    return NULL;
}

Test(odds_api, two_d6_answers_every_total_with_mean_sd_and_at_least)
{
    json_t *doc = http_post_json(&srv, "/v1/dice/odds", "{\"expression\":\"2d6\"}", 200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "probabilities")), "double");
    cr_assert_eq(json_integer_value(json_object_get(doc, "min")), 2);
    cr_assert_eq(json_integer_value(json_object_get(doc, "max")), 12);
    cr_assert(fabs(real(doc, "mean") - 7.0) < 1e-12);
    cr_assert(fabs(real(doc, "sd") - sqrt(35.0 / 6)) < 1e-12);
    json_t *dist = json_object_get(doc, "distribution");
    cr_assert_eq(json_array_size(dist), 11);
    cr_assert(fabs(real(entry(dist, 7), "p") - 1.0 / 6) < 1e-15);
    cr_assert(fabs(real(entry(dist, 11), "at_least") - 3.0 / 36) < 1e-15);
    cr_assert_eq(real(entry(dist, 2), "at_least"), 1.0);
    json_decref(doc);
}

Test(odds_api, keep_highest_is_exact_over_http)
{
    json_t *doc = http_post_json(&srv, "/v1/dice/odds", "{\"expression\":\"4d6kh3\"}", 200);
    cr_assert(fabs(real(doc, "mean") - 15869.0 / 1296) < 1e-12);
    json_decref(doc);
}

Test(odds_api, bad_notation_and_work_past_the_budget_are_422)
{
    json_t *doc = http_post_json(&srv, "/v1/dice/odds", "{\"expression\":\"3d\"}", 422);
    cr_assert_str_eq(tb_first_pointer(doc), "/expression");
    json_decref(doc);
    doc = http_post_json(&srv, "/v1/dice/odds", "{\"expression\":\"1000d1000\"}", 422);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "limit")), "odds_work");
    json_decref(doc);
}

/* Critical hits off, for the closed forms below; critical_hits_change_damage_not_the_hit_chance
 * has them on. */
#define FIGHTER                                                                                    \
    "{\"rules\":{\"options\":{\"critical_hits\":false}},"                                          \
    "\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":5,\"damage\":\"1d8+3\"},"                      \
    "\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":5},\"hp\":9,\"damage_reduction\":1}"

Test(odds_api, plus_five_against_ac_15_lands_55_percent_with_damage_and_drop_chance)
{
    json_t *doc = http_post_json(&srv, "/v1/attacks/odds", FIGHTER "}", 200);
    cr_assert_eq(json_integer_value(json_object_get(doc, "target_number")), 15);
    cr_assert(fabs(real(doc, "hit") - 0.55) < 1e-15);
    cr_assert(fabs(real(doc, "lands") - 0.55) < 1e-15);
    cr_assert(json_is_null(json_object_get(doc, "critical")));
    json_t *dmg = json_object_get(doc, "damage");
    /* 1d8+3-1: 3..10, mean 6.5 on landing; 9 or more on 8 of 8: 7, 8 -> 2 of 8. */
    cr_assert(fabs(real(dmg, "expected_on_landing") - 6.5) < 1e-12);
    cr_assert(fabs(real(dmg, "expected") - 0.55 * 6.5) < 1e-12);
    cr_assert(fabs(real(dmg, "drop_chance") - 0.55 * 2 / 8) < 1e-15);
    cr_assert(fabs(real(entry(json_object_get(dmg, "distribution"), 0), "p") - 0.45) < 1e-15);
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "explain")), "Lands 55%"));
    json_decref(doc);
}

Test(odds_api, a_full_attack_sums_each_attacks_damage)
{
    json_t *doc = http_post_json(&srv, "/v1/attacks/odds", FIGHTER ",\"attacks\":[6,1]}", 200);
    json_t *full = json_object_get(doc, "full_attack");
    json_t *each = json_object_get(full, "attacks");
    cr_assert_eq(json_array_size(each), 2);
    cr_assert(fabs(real(json_array_get(each, 0), "hit") - 0.60) < 1e-15);
    cr_assert(fabs(real(json_array_get(each, 1), "hit") - 0.35) < 1e-15);
    json_t *dmg = json_object_get(full, "damage");
    cr_assert(fabs(real(dmg, "expected") - 0.95 * 6.5) < 1e-12);
    cr_assert(fabs(real(entry(json_object_get(dmg, "distribution"), 0), "p") - 0.40 * 0.65) <
              1e-15);
    json_decref(doc);
}

Test(odds_api, sneak_attack_concealment_and_cover_have_their_chances)
{
    json_t *doc = http_post_json(
        &srv, "/v1/attacks/odds",
        "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":5,\"sneak_attack_dice\":2,"
        "\"damage\":\"1d6\"},\"defender\":{\"x\":5,\"y\":5,\"defense\":{},\"conditions\":"
        "[\"flat_footed\"]},\"cover\":\"half\",\"concealment\":[\"half\"]}",
        200);
    /* AC 10 + 4 cover: 9..20 hit (60%), 5..8 strike the cover (20%); concealment 20%. */
    cr_assert(fabs(real(doc, "hit") - 0.60) < 1e-15);
    cr_assert(fabs(real(doc, "cover_struck") - 0.20) < 1e-15);
    cr_assert(fabs(real(doc, "concealment_miss") - 0.12) < 1e-15);
    json_t *sneak = json_object_get(doc, "sneak_attack");
    cr_assert(json_is_true(json_object_get(sneak, "eligible")));
    cr_assert(fabs(real(sneak, "chance") - 0.48) < 1e-15);
    json_decref(doc);
}

Test(odds_api, rolls_and_bad_extras_are_refused_at_their_fields)
{
    json_t *doc = http_post_json(&srv, "/v1/attacks/odds",
                                 "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":5},"
                                 "\"defender\":{\"x\":5,\"y\":5,\"defense\":{},\"hp\":0},"
                                 "\"attacks\":[6,\"x\"],\"seed\":4}",
                                 422);
    const char *want[] = {"/seed", "/attacks/1", "/defender/hp"};
    json_t *errors = json_object_get(doc, "errors");
    for (size_t k = 0; k < 3; k++) {
        bool found = false;
        for (size_t i = 0; i < json_array_size(errors); i++)
            found |=
                strcmp(json_string_value(json_object_get(json_array_get(errors, i), "pointer")),
                       want[k]) == 0;
        cr_assert(found, "an error at %s", want[k]);
    }
    json_decref(doc);
    /* /resolve still refuses hp: it is this operation's member only. */
    doc = http_post_json(&srv, "/v1/attacks/resolve", FIGHTER ",\"seed\":1}", 422);
    json_decref(doc);
}

/* Issue 23 for issue 18's notation: a reroll-once of 1s on a d6 makes a 1 1/36 and every other
 * face 7/36; an explosion reports the chance of reaching its depth as `remainder`. */
Test(odds_api, rerolls_and_explosions_are_exact_with_the_capped_remainder)
{
    json_t *doc = http_post_json(&srv, "/v1/dice/odds", "{\"expression\":\"1d6ro1\"}", 200);
    json_t *dist = json_object_get(doc, "distribution");
    cr_assert(fabs(real(entry(dist, 1), "p") - 1.0 / 36) < 1e-15);
    cr_assert(fabs(real(entry(dist, 6), "p") - 7.0 / 36) < 1e-15);
    cr_assert_eq(real(doc, "remainder"), 0.0);
    json_decref(doc);
    doc = http_post_json(&srv, "/v1/dice/odds", "{\"expression\":\"1d2e2\"}", 200);
    /* 20 more dice at most: 1d2e2 is 2k + 1 for k twos then a one, or 42 after 21 twos. */
    cr_assert_eq(json_integer_value(json_object_get(doc, "max")), 42);
    cr_assert(fabs(real(doc, "remainder") - pow(0.5, 21)) < 1e-18);
    cr_assert(fabs(real(entry(json_object_get(doc, "distribution"), 3), "p") - 0.25) < 1e-15);
    cr_assert(fabs(real(doc, "mean") - (3.0 - 3.0 * pow(0.5, 21))) < 1e-12);
    json_decref(doc);
}

/* d20 3.5 SRD (Automatic Misses and Hits; Critical Hits), the d20-3.5 preset's option: with +5
 * against AC 15 a natural 1 misses and a natural 20 hits anyway, so the attack still lands 55%
 * of the time; a natural 20 threatens and is confirmed by a second roll of 10 or more (11 of
 * 20), so 1/20 x 11/20 = 2.75% are critical hits, dealing 1d8+3 twice (then DR 1). */
Test(odds_api, critical_hits_change_damage_not_the_hit_chance)
{
    json_t *doc = http_post_json(
        &srv, "/v1/attacks/odds",
        "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":5,\"damage\":\"1d8+3\"},"
        "\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":5},\"damage_reduction\":1}}",
        200);
    cr_assert(fabs(real(doc, "lands") - 0.55) < 1e-15);
    cr_assert(fabs(real(doc, "critical") - 0.0275) < 1e-15);
    /* Landing without a critical (0.55 - 0.0275) deals 1d8+3-1, mean 6.5; a critical deals
     * 2d8+6-1, mean 14. */
    json_t *dmg = json_object_get(doc, "damage");
    cr_assert(fabs(real(dmg, "expected") - (0.5225 * 6.5 + 0.0275 * 14.0)) < 1e-12,
              "expected %.15f", real(dmg, "expected"));
    json_decref(doc);
}

/* A defender's hit points are held to the bounds every request with hp is held to
 * (RULES_HP_MIN..RULES_HP_MAX in rules/encounter/hp.h): 100,000 is taken, 100,001 refused at
 * its field, as an encounter's combatant would be. */
Test(odds_api, a_defenders_hp_is_held_to_the_services_hit_point_bound)
{
#define ODDS_BODY(hp)                                                                              \
    "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":5},\"defender\":{\"x\":5,\"y\":5,"            \
    "\"defense\":{},\"hp\":" #hp "}}"
    json_decref(http_post_json(&srv, "/v1/attacks/odds", ODDS_BODY(100000), 200));
    const char *body = ODDS_BODY(100001);
#undef ODDS_BODY
    json_t *doc = http_post_json(&srv, "/v1/attacks/odds", body, 422);
    json_t *first = json_array_get(json_object_get(doc, "errors"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(first, "pointer")), "/defender/hp");
    json_decref(doc);
}

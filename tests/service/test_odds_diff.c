/* Differential tests of the odds (issue 23): each exact answer against 200,000 seeded rolls of
 * the real rolling code, called in process (no HTTP, to keep it fast): rules_dice_roll, which
 * /v1/dice/roll calls, and the /v1/attacks/resolve handler itself. Every probability must fall
 * within 5 standard errors of the rolled frequency (sqrt(p (1 - p) / n)); a chance of exactly
 * 0 or 1 must be rolled exactly so. Seeds are 0..n-1, so a failure reproduces. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/odds.h"
#include "service/api/api.h"
#include "service/http/http.h"

#define ROLLS 200000

static void assert_within(double exact, long long count, const char *what, int at)
{
    double f = (double)count / ROLLS;
    if (exact <= 0.0 || exact >= 1.0) {
        cr_assert(fabs(f - exact) < 1e-12, "%s at %d: exact %.17g, rolled %.6f", what, at, exact,
                  f);
        return;
    }
    double se = sqrt(exact * (1.0 - exact) / ROLLS);
    cr_assert(fabs(f - exact) <= 5.0 * se,
              "%s at %d: exact %.6f, rolled %.6f (%.1f standard errors)", what, at, exact, f,
              fabs(f - exact) / se);
}

/* Every total of a distribution (as {total, p} entries, or a rules_dist) against counts[]
 * indexed from lo; totals outside the exact support must never be rolled. */
static void assert_distribution(json_t *dist, const long long *counts, int lo, int n,
                                const char *what)
{
    double *exact = calloc((size_t)n, sizeof *exact);
    size_t i;
    json_t *e;
    json_array_foreach(dist, i, e)
    {
        int t = (int)json_integer_value(json_object_get(e, "total"));
        cr_assert(t >= lo && t < lo + n, "%s: total %d outside the test's range", what, t);
        exact[t - lo] = json_number_value(json_object_get(e, "p"));
    }
    for (int k = 0; k < n; k++)
        assert_within(exact[k], counts[k], what, lo + k);
    free(exact);
}

Test(odds_diff, dice_expressions_match_rules_dice_roll)
{
    /* The original notation, then issue 18's: rerolls once and while (to the cap of 100
     * rerolls a die: 1d20rr<18 reaches it with a chance of 0.85^100, 9e-8 a die), mi/ma, and
     * explosions (to the depth of 20 dice a die: 2d2e2 misses the rule as written with a chance
     * of about 2^-20), with keep/drop, per-die modifiers and labels. */
    static const char *const exprs[] = {
        "3d6",        "4d6kh3+1d4-2",       "3d6{+2}",        "2d20kh1",   "2d20kl1",
        "6d4dh2-1d6", "5d8d2{-1}",          "2d6ro<3",        "3d6rr1",    "1d20rr<18",
        "8d6mi2",     "4d6rr1mi2ma5kh3",    "3d4r1{+1}",      "2d6e6",     "1d4!+1d6e>4",
        "2d2e2",      "3d6ro1mi2e6 [fire]", "-2d4e4 + 3 [x]", "4d6ro>5kl2"};
    struct rules_roll *roll = malloc(sizeof *roll);
    for (size_t x = 0; x < sizeof exprs / sizeof exprs[0]; x++) {
        struct rules_dice_expr e;
        size_t at = 0;
        cr_assert_eq(rules_dice_parse(exprs[x], &e, &at), RULES_DICE_OK);
        struct rules_odds_budget b = {100000000, 0};
        struct rules_dist d;
        cr_assert_eq(rules_dist_of_expr(&e, &b, &d), RULES_ODDS_OK);
        long long *counts = calloc((size_t)d.len, sizeof *counts);
        struct rules_dice dice;
        for (int s = 0; s < ROLLS; s++) {
            rules_dice_from_seed(&dice, (uint64_t)s);
            cr_assert_eq(rules_dice_roll(&e, &dice, roll), RULES_DICE_OK);
            int k = roll->total - d.min;
            cr_assert(k >= 0 && k < d.len, "%s rolled %d outside its support", exprs[x],
                      roll->total);
            counts[k]++;
        }
        /* Totals expected fewer than 20 times (explosions' long tails) are pooled: a single
         * roll of a total of chance 1e-7 is no evidence against it, and the normal
         * approximation behind the 5 standard errors needs counts. */
        double tail = 0.0;
        long long tail_count = 0;
        for (int k = 0; k < d.len; k++) {
            if (d.p[k] * ROLLS >= 20.0) {
                assert_within(d.p[k], counts[k], exprs[x], d.min + k);
            } else {
                tail += d.p[k];
                tail_count += counts[k];
            }
        }
        assert_within(tail, tail_count, exprs[x], INT_MIN);
        free(counts);
        rules_dist_free(&d);
    }
    free(roll);
}

/* Calls handler h in process on body (as its text); returns the answer text (caller frees). */
static char *call(svc_handler h, const char *path, json_t *body)
{
    char *in = json_dumps(body, JSON_COMPACT);
    struct svc_request req = {.method = "POST", .path = path, .body = in, .body_len = strlen(in)};
    struct svc_response res;
    memset(&res, 0, sizeof res);
    h(&req, &res);
    free(in);
    cr_assert_eq(res.status, 200, "%s: %u %s", path, res.status, res.body ? res.body : "");
    char *text = res.body;
    res.body = NULL;
    svc_response_clear(&res);
    return text;
}

/* What one /resolve answer came to, read from its text: each member is written once. */
struct rolled {
    bool lands, missed, cover, creature, to_defender;
    int dealt;
};

static struct rolled read_resolve(const char *text)
{
    struct rolled r = {0};
    r.lands = strstr(text, "\"hit\":true") != NULL;
    r.missed = strstr(text, "\"missed\":true") != NULL;
    r.creature = strstr(text, "\"struck\":\"cover_creature\"") != NULL;
    r.cover = r.creature || strstr(text, "\"struck\":\"cover\"") != NULL;
    r.to_defender = strstr(text, "\"to\":\"defender\"") != NULL;
    const char *d = strstr(text, "\"dealt\":");
    r.dealt = d != NULL ? atoi(d + strlen("\"dealt\":")) : 0;
    return r;
}

#define MAX_DAMAGE 200

/* Rolls `body` ROLLS times through /resolve with attack bonuses bonuses[0..n) (one roll each,
 * its own seed), and checks the /odds answer for the same body: with n == 1 the single
 * attack's chances and damage; with n > 1 the full attack's total damage and drop chance. */
static void differential(const char *text, const int *bonuses, int n, int hp)
{
    json_t *body = json_loads(text, 0, NULL);
    cr_assert_not_null(body);
    json_t *attacker = json_object_get(body, "attacker");

    json_t *odds_body = json_deep_copy(body);
    json_object_set_new(json_object_get(odds_body, "defender"), "hp", json_integer(hp));
    if (n > 1) {
        json_t *list = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(list, json_integer(bonuses[i]));
        json_object_set_new(odds_body, "attacks", list);
    } else {
        json_object_set_new(attacker, "attack_bonus", json_integer(bonuses[0]));
        json_object_set_new(json_object_get(odds_body, "attacker"), "attack_bonus",
                            json_integer(bonuses[0]));
    }
    char *answer = call(svc_handle_attack_odds, "/v1/attacks/odds", odds_body);
    json_t *odds = json_loads(answer, 0, NULL);
    free(answer);
    json_decref(odds_body);
    cr_assert_not_null(odds);

    long long lands = 0, hit = 0, missed = 0, cover = 0, creature = 0, drop = 0;
    long long *damage = calloc(MAX_DAMAGE, sizeof *damage);
    for (int s = 0; s < ROLLS; s++) {
        int total = 0;
        for (int i = 0; i < n; i++) {
            json_object_set_new(body, "seed", json_integer((json_int_t)s * n + i));
            if (n > 1)
                json_object_set_new(attacker, "attack_bonus", json_integer(bonuses[i]));
            char *t = call(svc_handle_attack_resolve, "/v1/attacks/resolve", body);
            struct rolled r = read_resolve(t);
            free(t);
            lands += r.lands, missed += r.missed, hit += r.lands || r.missed;
            cover += r.cover, creature += r.creature;
            total += r.to_defender ? r.dealt : 0;
        }
        cr_assert(total >= 0 && total < MAX_DAMAGE);
        damage[total]++;
        drop += total >= hp;
    }
    json_t *dmg;
    if (n == 1) {
        assert_within(json_number_value(json_object_get(odds, "lands")), lands, "lands", 0);
        assert_within(json_number_value(json_object_get(odds, "hit")), hit, "hit", 0);
        assert_within(json_number_value(json_object_get(odds, "concealment_miss")), missed,
                      "concealment miss", 0);
        assert_within(json_number_value(json_object_get(odds, "cover_struck")), cover, "cover", 0);
        assert_within(json_number_value(json_object_get(odds, "cover_creature")), creature,
                      "cover creature", 0);
        json_t *sneak = json_object_get(odds, "sneak_attack");
        if (json_is_true(json_object_get(sneak, "eligible")))
            assert_within(json_number_value(json_object_get(sneak, "chance")), lands, "sneak", 0);
        dmg = json_object_get(odds, "damage");
    } else {
        dmg = json_object_get(json_object_get(odds, "full_attack"), "damage");
    }
    assert_distribution(json_object_get(dmg, "distribution"), damage, 0, MAX_DAMAGE, "damage");
    assert_within(json_number_value(json_object_get(dmg, "drop_chance")), drop, "drop", hp);
    free(damage);
    json_decref(odds);
    json_decref(body);
}

/* Sneak attack on a flat-footed defender behind half cover and half concealment, with damage
 * reduction larger than the weapon's least roll (so the clamp at 0 is exercised). */
Test(odds_diff, attack_with_sneak_attack_dr_cover_and_concealment, .timeout = 600)
{
    int bonus = 5;
    differential("{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":5,\"sneak_attack_dice\":2,"
                 "\"damage\":\"1d4+1\"},\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":2},"
                 "\"conditions\":[\"flat_footed\"],\"damage_reduction\":5},\"cover\":\"half\","
                 "\"concealment\":[\"half\"]}",
                 &bonus, 1, 8);
}

/* A ranged attack past a covering creature: the creature takes the blow, or dodges and the
 * target is hit after all (002 Striking the Cover Instead of a Missed Target). */
Test(odds_diff, attack_past_a_covering_creature, .timeout = 600)
{
    int bonus = 2;
    differential("{\"attacker\":{\"x\":5,\"y\":2,\"attack\":\"ranged\",\"attack_bonus\":2,"
                 "\"damage\":\"2d6\"},\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":3}},"
                 "\"cover\":\"half\",\"cover_creature\":{\"ac\":13,\"dex_and_dodge\":2}}",
                 &bonus, 1, 10);
}

/* Iterative +6/+1 with sneak attack and damage reduction: the total of two attacks. */
Test(odds_diff, full_attack_with_sneak_attack_and_dr, .timeout = 600)
{
    static const int bonuses[] = {6, 1};
    differential("{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":6,\"sneak_attack_dice\":1,"
                 "\"damage\":\"1d8+2\"},\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":4},"
                 "\"conditions\":[\"flat_footed\"],\"damage_reduction\":3}}",
                 bonuses, 2, 12);
}

static const char *no_env(const char *name)
{
    (void)name;
    return NULL;
}

/* A move's odds (issue 23) against the real engine: a path that provokes two attacks of
 * opportunity (the orc's, then the goblin's; critical hits on), priced with odds by
 * /v1/movement/path, then each of ROLLS moves played through /v1/attacks/resolve: each
 * attack of opportunity as the path ruled it (the attacker at its square, the mover in the
 * square it leaves, the other enemy helping to flank), one after another, the move stopping
 * once the mover (5 hp) is dropped. The damage taken, the drop chance and the chance to arrive
 * with each number of hit points must match. */
Test(odds_diff, a_move_past_two_attacks_of_opportunity, .timeout = 600)
{
    char *argv[] = {"tacticsd", NULL};
    struct svc_config cfg;
    char err[256];
    cr_assert_eq(svc_config_parse(1, argv, no_env, &cfg, err, sizeof err), SVC_CONFIG_RUN);
    struct svc_context ctx = {.config = &cfg};
    json_t *body = json_loads(
        "{\"rules\":{\"options\":{\"start_square\":\"threatened\"}},\"map\":{\"width\":10,"
        "\"height\":10},\"creatures\":[{\"id\":\"orc\",\"x\":6,\"y\":5,\"attack_bonus\":4,"
        "\"damage\":\"1d6+1\",\"crit_range\":19},{\"id\":\"goblin\",\"x\":2,\"y\":5,\"attack_"
        "bonus\":"
        "2,\"damage\":\"1d4\"}],\"mode\":\"move\",\"path\":[{\"x\":4,\"y\":5},{\"x\":3,\"y\":5},{"
        "\"x\":3,\"y\":6}],\"odds\":true,\"mover\":{\"x\":5,\"y\":5,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":2},\"hp\":5,\"damage_reduction\":1}}",
        0, NULL);
    char *in = json_dumps(body, JSON_COMPACT);
    struct svc_request req = {.method = "POST",
                              .path = "/v1/movement/path",
                              .body = in,
                              .body_len = strlen(in),
                              .ctx = &ctx};
    struct svc_response res;
    memset(&res, 0, sizeof res);
    svc_handle_move_path(&req, &res);
    free(in);
    cr_assert_eq(res.status, 200, "%s", res.body ? res.body : "");
    json_t *path = json_loads(res.body, 0, NULL);
    svc_response_clear(&res);
    json_t *aoos = json_object_get(path, "attacks_of_opportunity");
    cr_assert_eq(json_array_size(aoos), 2);
    json_t *odds = json_object_get(path, "odds");

    /* Each attack as /resolve takes it. */
    json_t *attacks[2];
    for (int i = 0; i < 2; i++) {
        json_t *a = json_array_get(aoos, (size_t)i);
        bool orc = strcmp(json_string_value(json_object_get(a, "creature")), "orc") == 0;
        json_t *leaving = json_object_get(a, "leaving");
        attacks[i] = json_pack(
            "{s:{s:{s:s}}, s:{s:i, s:i, s:i, s:s, s:s, s:i}, s:{s:O, s:O, s:{s:i}, s:i}, "
            "s:[{s:i, s:i}]}",
            "rules", "options", "start_square", "threatened", "attacker", "x", orc ? 6 : 2, "y", 5,
            "attack_bonus", orc ? 4 : 2, "damage", orc ? "1d6+1" : "1d4", "kind",
            "attack_of_opportunity", "crit_range", orc ? 19 : 20, "defender", "x",
            json_object_get(leaving, "x"), "y", json_object_get(leaving, "y"), "defense", "armor",
            2, "damage_reduction", 1, "allies", "x", orc ? 2 : 6, "y", 5);
        /* The same ruling: the path's attack total is /resolve's. */
        json_object_set_new(attacks[i], "seed", json_integer(1));
        char *t = call(svc_handle_attack_resolve, "/v1/attacks/resolve", attacks[i]);
        json_t *ans = json_loads(t, 0, NULL);
        free(t);
        cr_assert_eq(json_integer_value(json_object_get(ans, "attack_total")),
                     json_integer_value(json_object_get(a, "attack_total")), "attack %d", i);
        json_decref(ans);
    }

    enum { HP = 5 };
    long long taken[MAX_DAMAGE] = {0}, dropped = 0;
    for (int s = 0; s < ROLLS; s++) {
        int total = 0;
        for (int i = 0; i < 2 && total < HP; i++) {
            json_object_set_new(attacks[i], "seed", json_integer((json_int_t)s * 2 + i));
            char *t = call(svc_handle_attack_resolve, "/v1/attacks/resolve", attacks[i]);
            struct rolled r = read_resolve(t);
            free(t);
            total += r.to_defender ? r.dealt : 0;
        }
        cr_assert(total < MAX_DAMAGE);
        taken[total]++;
        dropped += total >= HP;
    }
    assert_distribution(json_object_get(json_object_get(odds, "damage_taken"), "distribution"),
                        taken, 0, MAX_DAMAGE, "damage taken");
    assert_within(json_number_value(json_object_get(odds, "drop_chance")), dropped, "drop", HP);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(odds, "arrives"), i, e)
    {
        int hp = (int)json_integer_value(json_object_get(e, "hp"));
        long long at_least = 0;
        for (int t = 0; t <= HP - hp; t++)
            at_least += taken[t];
        assert_within(json_number_value(json_object_get(e, "at_least")), at_least, "arrives", hp);
    }
    for (int k = 0; k < 2; k++)
        json_decref(attacks[k]);
    json_decref(path);
    json_decref(body);
}

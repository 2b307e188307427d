/* Odds (issue 23) against closed forms and against enumerating every roll. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "rules/attack/odds.h"

#define BIG_BUDGET 2000000000LL

static struct rules_dist dist_of(const char *text)
{
    struct rules_dice_expr e;
    size_t at = 0;
    cr_assert_eq(rules_dice_parse(text, &e, &at), RULES_DICE_OK, "%s", text);
    struct rules_odds_budget b = {BIG_BUDGET, 0};
    struct rules_dist d;
    cr_assert_eq(rules_dist_of_expr(&e, &b, &d), RULES_ODDS_OK, "%s", text);
    return d;
}

static double p_of(const struct rules_dist *d, int total)
{
    int i = total - d->min;
    return i >= 0 && i < d->len ? d->p[i] : 0.0;
}

/* Relative closeness: every result is exact up to a few rounding errors. */
static void assert_close(double got, double want, const char *what, int total)
{
    cr_assert(fabs(got - want) <= 1e-12 * fabs(want) + 1e-300, "%s at %d: %.17g, want %.17g", what,
              total, got, want);
}

Test(dice_odds, three_d6_is_the_published_triangle_over_216)
{
    static const int ways[] = {1, 3, 6, 10, 15, 21, 25, 27, 27, 25, 21, 15, 10, 6, 3, 1};
    struct rules_dist d = dist_of("3d6");
    cr_assert_eq(d.min, 3);
    cr_assert_eq(d.len, 16);
    for (int t = 3; t <= 18; t++)
        assert_close(p_of(&d, t), ways[t - 3] / 216.0, "3d6", t);
    assert_close(rules_dist_mean(&d), 10.5, "mean", 0);
    assert_close(rules_dist_sd(&d), sqrt(3 * 35.0 / 12), "sd", 0);
    assert_close(rules_dist_at_least(&d, 17), 4 / 216.0, "at least", 17);
    rules_dist_free(&d);
}

Test(dice_odds, four_d6_keep_highest_three_has_anydices_mean_12_2446)
{
    struct rules_dist d = dist_of("4d6kh3");
    cr_assert_eq(d.min, 3);
    cr_assert_eq(d.len, 16);
    /* 15,869 / 1,296 exactly; AnyDice prints 12.2446. */
    assert_close(rules_dist_mean(&d), 15869.0 / 1296.0, "mean", 0);
    cr_assert(fabs(rules_dist_mean(&d) - 12.2446) < 5e-5);
    assert_close(p_of(&d, 18), 21 / 1296.0, "4d6kh3", 18);
    assert_close(p_of(&d, 3), 1 / 1296.0, "4d6kh3", 3);
    rules_dist_free(&d);
}

Test(dice_odds, two_d20_keep_highest_is_2v_minus_1_over_400)
{
    struct rules_dist hi = dist_of("2d20kh1"), lo = dist_of("2d20kl1");
    for (int v = 1; v <= 20; v++) {
        assert_close(p_of(&hi, v), (2 * v - 1) / 400.0, "2d20kh1", v);
        assert_close(p_of(&lo, v), (41 - 2 * v) / 400.0, "2d20kl1", v);
    }
    assert_close(rules_dist_mean(&hi), 13.825, "advantage mean", 0);
    rules_dist_free(&hi);
    rules_dist_free(&lo);
}

/* Counts every ordered roll of n dice of `sides` and its kept sum, as rules_dice_roll keeps. */
static void enumerate(int n, int sides, enum rules_dice_keep keep, int keep_n, int per_die,
                      double *ways, int *min)
{
    int faces[8], total_rolls = 1;
    for (int i = 0; i < n; i++)
        total_rolls *= sides;
    int kept = keep == RULES_KEEP_HIGHEST || keep == RULES_KEEP_LOWEST ? keep_n
               : keep == RULES_KEEP_ALL                                ? n
                                                                       : n - keep_n;
    bool high = keep == RULES_KEEP_HIGHEST || keep == RULES_DROP_LOWEST || keep == RULES_KEEP_ALL;
    *min = kept * (1 + per_die);
    for (int r = 0; r < total_rolls; r++) {
        int x = r;
        for (int i = 0; i < n; i++)
            faces[i] = x % sides + 1, x /= sides;
        for (int i = 1; i < n; i++) /* insertion sort, descending when keeping high */
            for (int j = i; j > 0 && (high ? faces[j] > faces[j - 1] : faces[j] < faces[j - 1]);
                 j--) {
                int t = faces[j];
                faces[j] = faces[j - 1];
                faces[j - 1] = t;
            }
        int s = 0;
        for (int i = 0; i < kept; i++)
            s += faces[i] + per_die;
        ways[s - *min] += 1.0 / total_rolls;
    }
}

Test(dice_odds, keep_and_drop_match_every_roll_enumerated)
{
    static const struct {
        const char *text;
        int n, sides;
        enum rules_dice_keep keep;
        int keep_n, per_die;
    } cases[] = {
        {"5d4dh2", 5, 4, RULES_DROP_HIGHEST, 2, 0}, {"4d6kl2{+1}", 4, 6, RULES_KEEP_LOWEST, 2, 1},
        {"3d8d1", 3, 8, RULES_DROP_LOWEST, 1, 0},   {"6d3k4{-1}", 6, 3, RULES_KEEP_HIGHEST, 4, -1},
        {"5d5kh5", 5, 5, RULES_KEEP_HIGHEST, 5, 0}, {"4d10kl1", 4, 10, RULES_KEEP_LOWEST, 1, 0},
        {"7d2dl3", 7, 2, RULES_DROP_LOWEST, 3, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double ways[64] = {0};
        int min = 0;
        enumerate(cases[c].n, cases[c].sides, cases[c].keep, cases[c].keep_n, cases[c].per_die,
                  ways, &min);
        struct rules_dist d = dist_of(cases[c].text);
        cr_assert_eq(d.min, min, "%s", cases[c].text);
        for (int i = 0; i < 64; i++)
            cr_assert(fabs(p_of(&d, min + i) - ways[i]) < 1e-13, "%s at %d: %.17g want %.17g",
                      cases[c].text, min + i, p_of(&d, min + i), ways[i]);
        rules_dist_free(&d);
    }
}

Test(dice_odds, terms_combine_with_signs_constants_and_percentile)
{
    struct rules_dist d = dist_of("1d6-1d4+3");
    cr_assert_eq(d.min, 0);
    cr_assert_eq(d.len, 9);
    assert_close(p_of(&d, 0), 1 / 24.0, "1d6-1d4+3", 0);
    assert_close(p_of(&d, 5), 4 / 24.0, "1d6-1d4+3", 5);
    assert_close(rules_dist_mean(&d), 4.0, "mean", 0);
    rules_dist_free(&d);
    d = dist_of("d%");
    assert_close(p_of(&d, 100), 0.01, "d%", 100);
    rules_dist_free(&d);
}

Test(dice_odds, twenty_d6_keep_ten_sums_to_one_with_a_tiny_exact_tail)
{
    struct rules_dist d = dist_of("20d6kh10");
    cr_assert_eq(d.min, 10);
    cr_assert_eq(d.len, 51);
    double sum = 0;
    for (int i = 0; i < d.len; i++)
        sum += d.p[i];
    cr_assert(fabs(sum - 1.0) < 1e-12);
    /* All ten kept dice show 1 only when all twenty do: 6^-20. */
    assert_close(p_of(&d, 10), pow(6.0, -20), "20d6kh10", 10);
    rules_dist_free(&d);
}

Test(dice_odds, a_budget_refuses_before_the_work)
{
    struct rules_dice_expr e;
    size_t at = 0;
    cr_assert_eq(rules_dice_parse("1000d1000", &e, &at), RULES_DICE_OK);
    struct rules_odds_budget b = {100000000, 0};
    struct rules_dist d = {0, 0, NULL};
    cr_assert_eq(rules_dist_of_expr(&e, &b, &d), RULES_ODDS_ERR_TOO_EXPENSIVE);
    cr_assert_null(d.p);
    cr_assert(b.used <= b.limit);
}

static struct rules_attack_odds_in plain_attack(int bonus, int ac)
{
    return (struct rules_attack_odds_in){
        .attack_total = bonus, .target_number = ac, .crit = {.threat_min = RULES_CRIT_NONE}};
}

static struct rules_attack_odds odds_of(const struct rules_attack_odds_in *in)
{
    struct rules_odds_budget b = {BIG_BUDGET, 0};
    struct rules_attack_odds o;
    cr_assert_eq(rules_attack_odds(in, &b, &o), RULES_ODDS_OK);
    return o;
}

Test(attack_odds, plus_five_hits_ac_15_fifty_five_percent)
{
    struct rules_attack_odds_in in = plain_attack(5, 15);
    struct rules_attack_odds o = odds_of(&in);
    assert_close(o.hit, 0.55, "hit", 0);
    assert_close(o.lands, 0.55, "lands", 0);
    cr_assert_eq(o.critical, 0.0);
    rules_dist_free(&o.damage);
}

Test(attack_odds, concealment_and_cover_split_the_d20)
{
    struct rules_attack_odds_in in = plain_attack(5, 19);
    in.cover = RULES_COVER_HALF; /* +4: 15 without it */
    in.target_without_cover = 15;
    in.miss_chance = 20;
    struct rules_attack_odds o = odds_of(&in);
    assert_close(o.hit, 0.35, "hit", 0);                    /* 14..20 */
    assert_close(o.concealment_miss, 0.07, "concealed", 0); /* 35% x 20% */
    assert_close(o.lands, 0.28, "lands", 0);
    assert_close(o.cover_struck, 0.20, "cover", 0); /* 10..13 */
    rules_dist_free(&o.damage);
}

Test(attack_odds, damage_reduction_clamps_at_zero_and_sneak_adds_d6s)
{
    struct rules_dice_expr dmg;
    size_t at = 0;
    rules_dice_parse("1d6", &dmg, &at);
    struct rules_attack_odds_in in = plain_attack(10, 11); /* always hits */
    in.damage = &dmg;
    in.damage_reduction = 3;
    struct rules_attack_odds o = odds_of(&in);
    assert_close(p_of(&o.damage, 0), 0.5, "dealt", 0);
    assert_close(o.expected_damage, 1.0, "mean", 0); /* (1 + 2 + 3) / 6 */
    rules_dist_free(&o.damage);
    in.sneak_dice = 1;
    in.damage_reduction = 0;
    o = odds_of(&in);
    assert_close(o.sneak_attack, 1.0, "sneak", 0);
    assert_close(o.expected_damage, 7.0, "mean", 0);
    assert_close(p_of(&o.damage, 12), 1 / 36.0, "2d6", 12);
    rules_dist_free(&o.damage);
}

Test(attack_odds, a_19_20_x2_critical_needs_a_confirming_hit)
{
    struct rules_dice_expr dmg;
    size_t at = 0;
    rules_dice_parse("1d8+2", &dmg, &at);
    struct rules_attack_odds_in in = plain_attack(5, 15);
    in.damage = &dmg;
    in.sneak_dice = 1;
    in.crit = (struct rules_crit){.threat_min = 19, .multiplier = 2, .confirm = true};
    struct rules_attack_odds o = odds_of(&in);
    assert_close(o.critical, 2 / 20.0 * 11 / 20.0, "critical", 0);
    /* A critical rolls 2d8+4 and sneak's 1d6 once: mean 13 + 3.5. */
    double normal = 6.5 + 3.5, crit = 13 + 3.5;
    assert_close(o.expected_damage, (0.55 - 0.055) * normal + 0.055 * crit, "mean", 0);
    assert_close(o.expected_on_landing, ((0.55 - 0.055) * normal + 0.055 * crit) / 0.55, "on", 0);
    assert_close(p_of(&o.damage, 26), 0.055 / 64 / 6, "max", 26);
    rules_dist_free(&o.damage);
    /* Natural 1 and 20: +30 still misses on a 1; without confirmation every threat counts. */
    in = plain_attack(30, 15);
    in.natural_1_and_20 = true;
    in.crit = (struct rules_crit){.threat_min = 20, .multiplier = 3};
    o = odds_of(&in);
    assert_close(o.hit, 0.95, "hit", 0);
    assert_close(o.critical, 0.05, "critical", 0);
    rules_dist_free(&o.damage);
}

Test(attack_odds, full_attack_total_is_the_convolution_of_each)
{
    struct rules_dice_expr dmg;
    size_t at = 0;
    rules_dice_parse("1d4", &dmg, &at);
    struct rules_attack_odds_in first = plain_attack(6, 16), second = plain_attack(1, 16);
    first.damage = second.damage = &dmg;
    struct rules_attack_odds a = odds_of(&first), b = odds_of(&second);
    struct rules_odds_budget budget = {BIG_BUDGET, 0};
    struct rules_dist total;
    cr_assert_eq(rules_dist_convolve(&a.damage, &b.damage, &budget, &total), RULES_ODDS_OK);
    assert_close(p_of(&total, 0), 0.45 * 0.70, "none", 0);
    assert_close(p_of(&total, 8), 0.55 * 0.30 / 16, "both max", 8);
    assert_close(rules_dist_mean(&total), (0.55 + 0.30) * 2.5, "mean", 0);
    rules_dist_free(&a.damage);
    rules_dist_free(&b.damage);
    rules_dist_free(&total);
}

/* A move's attacks of opportunity, one after another, stopping once the mover is dropped
 * (rules_dist_gauntlet). Two attacks of {0: 1/2, 5: 1/2} on a mover with 5 hp: the first hit
 * drops it and ends its move, so it takes 0 (1/4) or 5 (3/4), never 10; without hit points
 * (stop 0) the plain sum 0, 5, 10 with 1/4, 1/2, 1/4. */
Test(dice_odds, a_gauntlet_stops_once_the_mover_is_dropped)
{
    double half[6] = {0.5, 0, 0, 0, 0, 0.5};
    struct rules_dist hit = {0, 6, half};
    struct rules_dist hits[2] = {hit, hit};
    struct rules_odds_budget b = {1000000, 0};
    struct rules_dist taken;
    cr_assert_eq(rules_dist_gauntlet(hits, 2, 5, &b, &taken), RULES_ODDS_OK);
    cr_assert_eq(taken.min, 0);
    cr_assert_eq(taken.len, 6, "no mass past 5: trimmed");
    cr_assert_eq(p_of(&taken, 0), 0.25);
    cr_assert_eq(p_of(&taken, 5), 0.75);
    rules_dist_free(&taken);
    cr_assert_eq(rules_dist_gauntlet(hits, 2, 0, &b, &taken), RULES_ODDS_OK);
    cr_assert_eq(taken.len, 11);
    cr_assert_eq(p_of(&taken, 5), 0.5);
    cr_assert_eq(p_of(&taken, 10), 0.25);
    rules_dist_free(&taken);
    /* No attacks: it takes nothing. */
    cr_assert_eq(rules_dist_gauntlet(hits, 0, 5, &b, &taken), RULES_ODDS_OK);
    cr_assert_eq(taken.len, 1);
    cr_assert_eq(p_of(&taken, 0), 1.0);
    rules_dist_free(&taken);
    /* The work is charged: a budget of 1 multiply-add refuses it. */
    struct rules_odds_budget tiny = {1, 0};
    cr_assert_eq(rules_dist_gauntlet(hits, 2, 5, &tiny, &taken), RULES_ODDS_ERR_TOO_EXPENSIVE);
}

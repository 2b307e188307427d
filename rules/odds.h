/* Odds: the exact chance of every outcome before anyone rolls (issue 23).
 *
 * rules_dist is the distribution of an integer total. rules_dist_of_expr gives it for any
 * expression rules_dice_parse accepts (dice.h), keep and drop included, by dynamic programming
 * over order statistics rather than by enumerating rolls. rules_attack_odds gives, for one
 * attack already evaluated (attack.h), the chance of every outcome /v1/attacks/resolve can
 * rule, with the distribution of the damage dealt; rules_dist_convolve sums several attacks.
 *
 * Precision: probabilities are doubles. The counts behind them do not fit 64-bit integers
 * (1000d20 has 20^1000 outcomes), and rationals of that size are no use to a caller, so every
 * probability is computed from the exact rational model by additions and multiplications of
 * non-negative doubles only, never by subtracting one probability from another. Each result
 * therefore carries a relative error of at most about (operations on its path) x 2^-53, tiny
 * tails included; the binomial weights of keep/drop go through exp and lgamma, which add
 * about 1e-13 relative. The attack's own d20, percentile and confirmation outcomes are counted
 * exactly in integers (out of 20 x 100 x 20) and divided once.
 *
 * Work: every function takes a budget of multiply-adds and refuses, before doing the work,
 * with RULES_ODDS_ERR_TOO_EXPENSIVE when the next step would exceed it. */
#ifndef TACTICS_RULES_ODDS_H
#define TACTICS_RULES_ODDS_H

#include <stdbool.h>

#include "attack.h"
#include "dice.h"

enum rules_odds_status {
    RULES_ODDS_OK = 0,
    RULES_ODDS_ERR_NOMEM = -1,
    RULES_ODDS_ERR_TOO_EXPENSIVE = -2, /* the budget would be exceeded */
    RULES_ODDS_ERR_INVALID = -3,       /* an input outside its documented range */
};

/* The work allowed and done, in multiply-adds (a rough proxy for time: ~1 ns each). */
struct rules_odds_budget {
    long long limit;
    long long used;
};

/* P(total == min + i) is p[i], for i in [0, len); p is owned (rules_dist_free). A point mass
 * at 0 is {min 0, len 1, p {1}}. */
struct rules_dist {
    int min;
    int len;
    double *p;
};

/* Releases d->p and leaves d empty (len 0); safe on an empty or zeroed dist. */
void rules_dist_free(struct rules_dist *d);

/* The distribution of expr's total: each term's, convolved. */
int rules_dist_of_expr(const struct rules_dice_expr *expr, struct rules_odds_budget *b,
                       struct rules_dist *out);

/* The chance that some die of expr reaches a cap: a reroll-while that used its
 * RULES_DICE_MAX_REROLLS rerolls and still matched, or an explosion RULES_DICE_EXPLODE_DEPTH
 * dice deep whose last die still matched. The roll stops there, and rules_dist_of_expr is the
 * distribution of that capped roll, exactly; this is the share of it where the rule as written
 * would have rolled on (0 without rr, r, e or !). */
double rules_dice_cap_chance(const struct rules_dice_expr *expr);

/* The distribution of a + b (independent). out may not alias a or b. */
int rules_dist_convolve(const struct rules_dist *a, const struct rules_dist *b,
                        struct rules_odds_budget *budget, struct rules_dist *out);

/* The damage a creature takes from the attacks hits[0..n) (each the distribution of one
 * attack's damage dealt, totals >= 0), made one after another as a move provokes them, when it
 * takes no more once the total reaches stop (it is dropped and takes no more: d20 3.5 SRD,
 * Combat: Injury and Death; stop <= 0: it takes them all, the plain sum). */
int rules_dist_gauntlet(const struct rules_dist *hits, int n, int stop,
                        struct rules_odds_budget *budget, struct rules_dist *out);

double rules_dist_mean(const struct rules_dist *d);
/* The standard deviation (population: the distribution is exact, not a sample). */
double rules_dist_sd(const struct rules_dist *d);
/* P(total >= t), summed from the top so small tails keep their precision. */
double rules_dist_at_least(const struct rules_dist *d, int t);

/* Critical hits. The seeds are silent on them (004 only says a combatant "can score critical
 * hits"), so this follows the d20 3.5 SRD (Combat: Critical Hits) as an option: a natural roll
 * of threat_min..20 that hits threatens; with `confirm`, a second roll with the same
 * modifiers (plus confirm_bonus) must also hit, else every threat is a critical; a critical
 * rolls the weapon's damage, bonuses included, `multiplier` times, and "extra damage over and
 * above a weapon's normal damage" (sneak attack) once. */
struct rules_crit {
    int threat_min; /* 2..20; RULES_CRIT_NONE (21): no critical hits, as /resolve today */
    int multiplier; /* 2..10 when critical hits are on */
    bool confirm;
    int confirm_bonus;
};
#define RULES_CRIT_NONE 21

/* One attack, as rules_attack_evaluate ruled it plus what /resolve reads besides. */
struct rules_attack_odds_in {
    int attack_total;  /* added to the d20 */
    int target_number; /* the defense to reach, cover included */
    /* SRD (Attack Roll: Automatic Misses and Hits): a natural 1 misses and a natural 20
     * hits, on the attack and on the confirmation. Not in the seeds, and /resolve does not
     * apply it yet; off by default. */
    bool natural_1_and_20;
    enum rules_cover cover;
    int target_without_cover;
    /* 002 Striking the Cover Instead of a Missed Target, a creature as the cover. */
    bool has_cover_creature;
    int cover_ac, cover_dex_dodge;
    bool cover_applies_dex_dodge;
    int miss_chance;                      /* percent, 0..100: the concealment used */
    const struct rules_dice_expr *damage; /* the weapon's damage; NULL: none rolled */
    int sneak_dice;                       /* d6s added on the defender; 0 when not eligible */
    int damage_reduction;                 /* subtracted on the defender, clamped at 0 */
    struct rules_crit crit;
};

/* Every chance of one attack. Chances are of the whole attack (not conditional). */
struct rules_attack_odds {
    double hit;                 /* the roll reaches the defender (before concealment) */
    double concealment_miss;    /* it would hit, and the miss chance makes it miss */
    double lands;               /* it lands on the defender */
    double cover_struck;        /* it misses and strikes the cover (object or creature) */
    double cover_creature;      /* of those, the covering creature is hit and takes damage */
    double critical;            /* a critical hit lands (0 with RULES_CRIT_NONE) */
    double sneak_attack;        /* sneak attack dice are dealt */
    struct rules_dist damage;   /* dealt to the defender, 0 when it does not land; owned */
    double expected_damage;     /* mean of damage */
    double expected_on_landing; /* mean damage given that it lands (0 when it never does) */
};

/* Fills out (whose damage the caller frees with rules_dist_free, also after an error). */
int rules_attack_odds(const struct rules_attack_odds_in *in, struct rules_odds_budget *b,
                      struct rules_attack_odds *out);

#endif

/* Dice odds: the exact distribution of a dice expression before anyone rolls.
 *
 * rules_dist is the distribution of an integer total. rules_dist_of_expr gives it for any
 * expression rules_dice_parse accepts (dice.h), keep and drop included, by dynamic programming
 * over order statistics rather than by enumerating rolls. rules_dist_convolve sums
 * independent totals (the attack odds, rules/attack/odds.h, build on these).
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
#ifndef TACTICS_RULES_DICE_ODDS_H
#define TACTICS_RULES_DICE_ODDS_H

#include <stdbool.h>

#include "rules/dice/dice.h"

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

#endif

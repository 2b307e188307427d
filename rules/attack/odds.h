/* Attack odds: for one attack already evaluated (rules/attack/attack.h), the chance of every
 * outcome /v1/attacks/resolve can rule, with the distribution of the damage dealt, on the dice
 * distributions of rules/dice/odds.h (precision and work budget as described there). */
#ifndef TACTICS_RULES_ATTACK_ODDS_H
#define TACTICS_RULES_ATTACK_ODDS_H

#include <stdbool.h>

#include "rules/attack/attack.h"
#include "rules/dice/odds.h"

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

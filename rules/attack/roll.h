/* The attack roll: what the dice decide once rules/attack.c has itemised the modifiers.
 *   the d20 against the target number, and with the critical_hits option the d20 3.5 SRD's
 *       natural 20 and natural 1 (Combat: Automatic Misses and Hits) and critical hits
 *       (Combat: Critical Hits: threat range, confirmation roll, damage rolled more than once);
 *   002's cover struck instead of a missed target, a covering creature hit or dodging, and the
 *       concealment miss chance;
 *   the sneak attack d6s (eligibility from rules_attack_evaluate), never multiplied;
 *   the damage dice, less the defender's damage reduction.
 * Both POST /v1/attacks/resolve and an encounter's attack call this one function. */
#ifndef TACTICS_RULES_ATTACK_ROLL_H
#define TACTICS_RULES_ATTACK_ROLL_H

#include <stdbool.h>

#include "rules/attack/attack.h"
#include "rules/dice/dice.h"

/* d20 3.5 SRD, Combat: Critical Hits: "Unless otherwise specified, the threat range for a
 * critical hit on an attack roll is 20, and the multiplier is x2." The bounds are ours: a
 * threat range may start as low as 2 (a natural 1 always misses) and the SRD's weapons go to
 * x4; x10 leaves room for stacked effects without letting one request roll without end. */
#define RULES_CRIT_RANGE_DEFAULT      20
#define RULES_CRIT_RANGE_MIN          2
#define RULES_CRIT_MULTIPLIER_DEFAULT 2
#define RULES_CRIT_MULTIPLIER_MIN     2
#define RULES_CRIT_MULTIPLIER_MAX     10

/* The citations the roll reports, one place each. */
#define RULES_SRC_AUTOMATIC_HIT_MISS "d20 3.5 SRD, Combat: Automatic Misses and Hits"
#define RULES_SRC_CRITICAL_HITS      "d20 3.5 SRD, Combat: Critical Hits"
#define RULES_SRC_COVER_STRUCK       "002 Striking the Cover Instead of a Missed Target"
#define RULES_SRC_CONCEALMENT        "002 Table: Concealment"

/* A creature used as cover (002 Striking the Cover Instead of a Missed Target). */
struct rules_cover_creature {
    int ac;                     /* its Defense */
    int dex_and_dodge;          /* the part of that Defense from Dexterity and dodge bonuses */
    bool applies_dex_and_dodge; /* false: it chose not to apply them, as 002 allows */
};

/* What the roll needs besides the evaluated attack. */
struct rules_attack_roll_params {
    bool critical_hits;   /* rules_options.critical_hits */
    int crit_range;       /* a natural roll this high or higher threatens: 20 for 20 only */
    int crit_multiplier;  /* times the weapon's damage is rolled on a critical hit */
    int sneak_dice;       /* the attacker's sneak attack d6s, rolled when ev->sneak_attack */
    int damage_reduction; /* the defender's, subtracted once every die is added */
    const struct rules_cover_creature *cover_creature; /* NULL: the cover is not a creature */
};

/* What a natural roll decided by itself (only with the critical_hits option). */
enum rules_natural {
    RULES_NATURAL_NONE = 0,
    RULES_NATURAL_HIT,  /* a natural 20 is always a hit */
    RULES_NATURAL_MISS, /* a natural 1 is always a miss */
};

enum rules_struck {
    RULES_STRUCK_NONE = 0,
    RULES_STRUCK_DEFENDER,
    RULES_STRUCK_COVER,          /* the cover, an object, took the blow (002) */
    RULES_STRUCK_COVER_CREATURE, /* the covering creature takes the damage (002) */
};

/* Every roll of one attack and what it came to. */
struct rules_attack_rolled {
    int d20, total;                     /* the d20 and the d20 plus ev->attack_total */
    enum rules_natural natural;         /* with critical hits: a natural 20 or 1 decided the hit */
    bool hit;                           /* it hits the defender, before concealment */
    bool lands;                         /* it lands on the defender, after concealment */
    bool cover_struck;                  /* 002: missed with the cover, would have hit without */
    enum rules_struck struck;           /* what took the blow */
    bool threat;                        /* a hit with a natural roll in the threat range */
    bool confirm_rolled;                /* the confirmation d20 was rolled (after a threat) */
    int confirm_d20;                    /* the confirmation roll, when rolled */
    int confirm_total;                  /* confirm_d20 plus ev->attack_total */
    enum rules_natural confirm_natural; /* a natural 20 or 1 on the confirmation roll */
    bool confirmed;                     /* the confirmation roll hit the same target number */
    bool critical;        /* confirmed and landed: the weapon's damage is multiplied */
    bool pct_rolled;      /* the concealment percentile was rolled (after a hit) */
    int pct;              /* that percentile, 1..100 */
    bool missed;          /* lost to concealment */
    bool damage_rolled;   /* damage was rolled: it landed, or struck a covering creature */
    int weapon_rolls;     /* times the weapon's damage was rolled: 1, or the multiplier */
    int sneak_dice;       /* sneak attack d6s rolled, never multiplied */
    int damage_reduction; /* what was subtracted: the defender's when it landed, else 0 */
    int dealt;            /* damage.total less damage_reduction, at least 0 */
    struct rules_dice_expr damage_expr; /* rolled: the weapon's terms weapon_rolls times, then
                                           the sneak d6s as one last term */
    struct rules_roll damage;           /* large (rules_roll): keep this struct off small stacks */
};

enum rules_attack_roll_status {
    RULES_ATTACK_ROLL_OK = 0,
    RULES_ATTACK_ROLL_ERR_PARAMS = -1,       /* crit_range or crit_multiplier out of bounds */
    RULES_ATTACK_ROLL_ERR_TOO_LARGE = -2,    /* the multiplied damage passes the dice limits */
    RULES_ATTACK_ROLL_ERR_D20 = -3,          /* no (valid) d20 to draw */
    RULES_ATTACK_ROLL_ERR_CONFIRMATION = -4, /* no (valid) confirmation d20 to draw */
    RULES_ATTACK_ROLL_ERR_PERCENTILE = -5,   /* no (valid) miss-chance percentile to draw */
    RULES_ATTACK_ROLL_ERR_DAMAGE = -6,       /* not enough (valid) damage dice to draw */
    RULES_ATTACK_ROLL_ERR_LEFTOVER = -7,     /* supplied results remain unused */
};

/* Rolls one attack evaluated by rules_attack_evaluate. Dice are drawn from d in this order,
 * each only when needed:
 *   1. the d20;
 *   2. with critical_hits, the confirmation d20, only after a threat;
 *   3. the concealment percentile (d100), only when the attack hits and ev->miss_chance > 0;
 *   4. the damage, only when damage is given and the attack lands or strikes a covering
 *      creature: damage's dice term by term, once, or crit_multiplier times on a critical hit,
 *      then the sneak attack d6s when the defender was struck and ev->sneak_attack.
 * damage may be NULL (nothing rolled for damage). With supplied results d must hold exactly
 * what is drawn: RULES_ATTACK_ROLL_ERR_LEFTOVER when some remain. Returns 0 or a negative
 * rules_attack_roll_status; out is filled as far as the roll got. The limits of the multiplied
 * damage are checked before any die is drawn, so the status never depends on the dice. */
int rules_attack_roll(const struct rules_attack_eval *ev, const struct rules_attack_roll_params *p,
                      const struct rules_dice_expr *damage, struct rules_dice *d,
                      struct rules_attack_rolled *out);

#endif

/* Attack modifiers: every positional modifier of an attack, itemised with its source.
 *   000 Combat Facing (attacking into one's own flank or rear, the defender's flank and rear,
 *       its exceptions, shields by side, the shield spell, sneak attacks);
 *   003 (the flanked condition from side spaces, doubled from the rear);
 *   002 Position modifiers (Table: Defense Modifiers and Table: Attack Roll Modifiers with
 *       their footnotes; cover; concealment);
 *   004 (size modifiers, touch attacks, flat-footed, flanking) and 001 (squeezing, flanking).
 * No dice here: rules_attack_evaluate gives the modifiers, the target number and the
 * eligibility of sneak attack; the caller rolls. */
#ifndef TACTICS_RULES_ATTACK_H
#define TACTICS_RULES_ATTACK_H

#include "rules/board/cover.h"
#include "rules/board/facing.h"
#include "rules/board/flanking.h"

enum rules_attack_kind {
    RULES_ATTACK_NORMAL = 0,
    RULES_ATTACK_OF_OPPORTUNITY,
    RULES_ATTACK_CLEAVE, /* a Cleave or Great Cleave extra attack */
};

/* 002 Table: Defense Modifiers, conditions of the defender (bits). */
enum rules_defender_condition {
    RULES_COND_SITTING = 1 << 0, /* sitting or kneeling */
    RULES_COND_PRONE = 1 << 1,
    RULES_COND_STUNNED = 1 << 2, /* stunned or cowering */
    RULES_COND_CLIMBING = 1 << 3,
    RULES_COND_FLAT_FOOTED = 1 << 4,
    RULES_COND_RUNNING = 1 << 5,
    RULES_COND_GRAPPLING = 1 << 6, /* the attacker is not */
    RULES_COND_PINNED = 1 << 7,
    RULES_COND_HELPLESS = 1 << 8,
    RULES_COND_SQUEEZING = 1 << 9, /* 001 Squeezing */
    RULES_COND_CHARGING = 1 << 10, /* charged since its last turn began (d20 3.5 SRD, Charge) */
};

enum rules_shield_side { RULES_SHIELD_NONE = 0, RULES_SHIELD_LEFT, RULES_SHIELD_RIGHT };

/* Defense in parts: AC = 10 + every part. */
struct rules_defense {
    int armor, shield, shield_enhancement, natural, dex, dodge, deflection, size, other;
    bool size_given; /* false: the size part comes from the size table in force */
};

struct rules_attacker {
    struct rules_creature c;
    int attack_bonus;
    bool size_included; /* attack_bonus already holds the size modifier (004) */
    bool player_character;
    bool ranged, touch;
    bool spell; /* a spell or spell-like ability (ranged): 000 Spellcasting */
    enum rules_attack_kind kind;
    bool whirlwind_attack, combat_reflexes, flank_attack, rear_attack;
    bool mounted_combat; /* 000 Mounted Combat, riding `steed` */
    bool has_steed;
    struct rules_creature steed;
    int sneak_dice, rogue_level;
    bool prone, invisible, squeezing, higher_ground;
    bool charging; /* the attack that ends a charge (d20 3.5 SRD, Charge) */
    /* A situational bonus (or penalty) the table gives this one attack, as Avrae's -b: the
     * seeds list the circumstances they rule; the rest is the table's (d20 3.5 SRD, Attack
     * Roll: "circumstance bonuses"). 0: none. */
    int situational;
    int pack_bonus;    /* 003 Pack-Fighter-type bonus against a flanked defender */
    bool shifts_bands; /* 003: flanking features that work one band further forward */
};

struct rules_defender {
    struct rules_creature c;
    struct rules_defense ac;
    bool player_character;
    int shield_spell; /* the shield spell's bonus, front area only (000) */
    enum rules_shield_side shield_side;
    unsigned conditions; /* enum rules_defender_condition bits */
    bool improved_uncanny_dodge;
    int iud_level;
    bool uncanny_dodge, all_around_vision, immune_sneak_attack;
    bool invisible; /* 002: see Concealment (total) */
};

enum rules_applies { RULES_APPLIES_ATTACK, RULES_APPLIES_DEFENSE };

#define RULES_MAX_MODIFIERS 48

struct rules_modifier {
    int value;
    enum rules_applies applies_to;
    const char *reason;
    const char *source; /* document and section */
    bool applied;       /* false: listed because it did not apply or did not stack */
    unsigned condition; /* the defender condition (RULES_COND_*) it comes from, else 0 */
};

struct rules_attack_eval {
    struct rules_modifier mods[RULES_MAX_MODIFIERS];
    int mod_count;
    int attack_total;                    /* attack bonus plus every applied attack modifier */
    int target_number;                   /* the defense the d20 + attack_total must reach */
    bool touch, flat_footed, shieldless; /* which AC */
    bool dex_lost;                       /* the defender's Dexterity bonus is lost */
    enum rules_cover cover;
    int cover_bonus;
    int target_without_cover;
    int miss_chance;                    /* percent, the highest concealment */
    enum rules_concealment concealment; /* the one used; the others were dropped (not summed) */
    bool guess_square;                  /* total concealment: the attacker must guess the square */
    bool sneak_attack;
    const char *sneak_reason;
    enum rules_area attacker_area; /* where the attacker stands in the defender's areas */
    enum rules_area target_area;   /* where the defender stands in the attacker's areas */
    bool flanked;
    const char *flank_rule;
};

enum rules_attack_status {
    RULES_ATTACK_OK = 0,
    RULES_ATTACK_ERR_TOTAL_COVER = -1,      /* "Total (on the other side of a solid wall)" */
    RULES_ATTACK_ERR_NO_SIZE_MODIFIER = -2, /* 004's table stops at Colossal */
    RULES_ATTACK_ERR_SPELL_INTO_REAR = -3,  /* 000: "can't target anything in his rear area" */
};

/* Computes every modifier of one attack. concealments holds each concealment that applies
 * (the highest is used, 002). allies are for flanking. */
int rules_attack_evaluate(const struct rules_options *o, const struct rules_attacker *a,
                          const struct rules_defender *d, const struct rules_creature *allies,
                          int ally_count, enum rules_cover cover,
                          const enum rules_concealment *concealments, int concealment_count,
                          struct rules_attack_eval *out);

/* 002 Table: Cover and Table: Concealment. */
int rules_cover_bonus(enum rules_cover c);
int rules_cover_reflex(enum rules_cover c);
/* 002 Table: Cover's footnote to a degree's Reflex save bonus, or NULL when it has none: only
 * nine-tenths cover's "+4 1" carries one (RULES.md 5). */
const char *rules_cover_reflex_footnote(enum rules_cover c);
#define RULES_SRC_COVER_FOOTNOTE "002 Table: Cover, footnote 1"
#define RULES_SRC_CHARGE         "d20 3.5 SRD, Combat: Charge"
/* A circumstance bonus the seeds do not rule is the table's to give (the request's bonus). */
#define RULES_SRC_CIRCUMSTANCE "d20 3.5 SRD, Bonuses (circumstance): given by the table"
int rules_concealment_miss_chance(enum rules_concealment c);

#endif

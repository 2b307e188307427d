/* An attack in an encounter as its state makes it, on the typed state (state.h): the attacker's
 * profile, both sides, the allies that flank, and (derived_defense) the defender's Dexterity part,
 * cover and concealment derived from what the encounter stores; and the attack of opportunity
 * the engine makes itself for an open reaction (004 Attacks of Opportunity), from the reaction
 * to the ruling. Pure: the caller gives every array; no allocation, no I/O. */
#ifndef TACTICS_RULES_ENCOUNTER_OPPORTUNITY_H
#define TACTICS_RULES_ENCOUNTER_OPPORTUNITY_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/attack/attack.h"
#include "rules/attack/roll.h"
#include "rules/board/cover.h"
#include "rules/dice/dice.h"
#include "rules/encounter/encounter.h"
#include "rules/encounter/state.h"

/* What an attack asks: combatant a's profile p at combatant t. */
struct rules_enc_attack_ask {
    int a, t, p;
    bool aoo; /* an attack of opportunity */
    /* Where the attack finds t (an attack of opportunity: the square it was leaving); NULL:
     * where it stands. */
    const struct rules_creature *target_at;
    int iterative; /* its place among a full attack's attacks (rules_iterative_penalty); 0 */
    bool charging; /* the charge's attack (the gate's charge_attack): +2 */
    /* The action declares the cover or the concealment itself: that one is not derived. */
    bool cover_declared, concealment_declared;
};

/* The caller's arrays an attack is set up in, each with room for e->count creatures: the
 * attacker's allies that can flank, and the other creatures the lines of sight cross (others,
 * with index: each one's combatant index). */
struct rules_enc_attack_room {
    struct rules_creature *allies;
    struct rules_creature *others;
    int *index;
};

/* The attack as the state makes it. */
struct rules_enc_attack_setup {
    struct rules_attacker attacker; /* attack_bonus: the profile's, iterative penalty taken */
    struct rules_defender defender;
    int ally_count; /* in room->allies */
    /* With derived_defense: the defender's Dexterity part of its Defense, from
     * its stored Dexterity score (d20 3.5 SRD Ability Modifiers), when its stored Defense gives
     * none. Already in defender.ac.dex. */
    bool derived_dex;
    int dex, dex_score;
    /* With derived_defense, on a decoded map: sighted, with rules_sight_between's answer (sight_rc)
     * over the other_count creatures of room->others; cover and concealment are what it derived and
     * the action did not declare (NONE: nothing to set). */
    bool sighted;
    int sight_rc;
    struct rules_sight sight;
    int other_count;
    enum rules_cover cover;
    enum rules_concealment concealment;
    /* The profile's damage (NULL: none), parsed (damage_rc: rules_dice_parse's answer, RULES_
     * DICE_OK, and damage_at where it failed), and the roll's parameters: critical hits by the
     * rules, the profile's threat range and multiplier and sneak attack, the defender's damage
     * reduction; no cover creature. */
    const char *damage;
    struct rules_dice_expr damage_expr;
    int damage_rc;
    size_t damage_at;
    struct rules_attack_roll_params params;
};

/* Total cover from the attacker (d20 3.5 SRD, Combat: Total Cover; 002 Table: Cover, Total),
 * derived and not declared: no attack. */
#define RULES_ENC_ATTACK_TOTAL_COVER (-12)

/* Sets up ask's attack on e's state in out (and room): the attacker's place, Combat Reflexes and
 * prone, its profile's bonus (rules_iterative_penalty lower for an iterative attack), form,
 * touch, sneak attack, the kind; both sides as rules_encounter_attack_sides reads them; with
 * derived_defense the derived Dexterity part, cover and concealment. Returns RULES_ENC_ATTACK_OK or
 * RULES_ENC_ATTACK_TOTAL_COVER. */
int rules_encounter_attack_setup(const struct rules_encounter *e,
                                 const struct rules_enc_attack_ask *ask,
                                 const struct rules_enc_attack_room *room,
                                 struct rules_enc_attack_setup *out);

/* The attack of opportunity the engine makes for an open reaction. */
struct rules_enc_opportunity {
    int by, mover, profile; /* combatant indices and by's profile (-1 when there is none) */
    struct rules_creature target_at; /* the mover in the square it was leaving */
    struct rules_enc_attack_gate gate;
    struct rules_enc_attack_setup setup;
    bool rolled; /* ruling holds the roll (dice were given) */
    struct rules_enc_attack_ruling ruling;
};

#define RULES_ENC_ATTACK_GONE       (-10) /* the reactor is no longer in the encounter */
#define RULES_ENC_ATTACK_NO_TARGET  (-11) /* the mover is no longer in the encounter */
#define RULES_ENC_ATTACK_NO_PROFILE (-13) /* the reactor has no profile to make it with */
#define RULES_ENC_ATTACK_DAMAGE     (-14) /* its profile's damage is no dice expression */

/* The attack of opportunity of open reaction r of e, made by the engine (the reactor's policy
 * always, or the mover's decision take; 004 Attacks of Opportunity): the reactor strikes the
 * mover in the square it was leaving, facing as it faced there (004 Provoking an Attack of
 * Opportunity by Moving), with the profile it makes attacks of opportunity with
 * (rules_encounter_aoo_profile_of: "a single melee attack" with melee_aoo), if the gate lets it
 * (rules_encounter_attack_gate: reach, flat-footed, stunned, the round's count), set up as
 * rules_encounter_attack_setup does, then, when d is not NULL, evaluated and rolled from d
 * (rules_encounter_attack: what it leaves too). Returns RULES_ENC_ATTACK_OK, a gate's refusal,
 * RULES_ENC_ATTACK_GONE, NO_TARGET, NO_PROFILE, TOTAL_COVER, DAMAGE, or rules_encounter_attack's
 * EVALUATE and ROLL. out->ruling.after is zero unless it was rolled. */
int rules_encounter_opportunity(const struct rules_encounter *e, int r, struct rules_dice *d,
                                const struct rules_enc_attack_room *room,
                                struct rules_enc_opportunity *out);

/* The reaction open to combatant by's attack of opportunity on mover (their indices), or -1:
 * what an attack of opportunity answers and a decline declines (004 Attacks of Opportunity: it
 * answers a move that provoked it, before any other event). A move's ruling lists each reactor
 * once, so there is at most one. */
int rules_encounter_reaction_of(const struct rules_encounter *e, int mover, int by);

/* Whether open reaction i of e stays open once reaction `answered` is answered by an attack of
 * opportunity that stopped its mover or not (rules_attack_after's stopped): the answered one
 * closes (004 Making an Attack of Opportunity: "a single melee attack"); when the attack dropped
 * the mover, its move goes no further (it was struck as it left that square, 004 Provoking an
 * Attack of Opportunity by Moving, and "can take no actions", d20 3.5 SRD Dying), so the
 * reactions to the later steps of that move close with it. Others stay. */
bool rules_encounter_reaction_stays(const struct rules_encounter *e, int answered, bool stopped,
                                    int i);

/* Whether the encounter still awaits an answer once reaction `answered` is answered (stopped as
 * in rules_encounter_reaction_stays): an asked reaction stays open (rules_reactions_awaited over
 * the ones that stay; 004 Attacks of Opportunity: each asked reactor decides its own). */
bool rules_encounter_awaits_after_answer(const struct rules_encounter *e, int answered,
                                         bool stopped);

/* Whether answering (or declining) an open reaction lets the engine go on with the move that
 * opened it (004 Attacks of Opportunity: the attacks come in the order the squares are left):
 * an attack the engine makes itself is open (policy always), or, with paused_moves, the encounter
 * awaits an asked one, whose move is paused until it is settled. */
bool rules_encounter_settles_on_answer(const struct rules_encounter *e);

/* Where the mover of a paused move belongs now (paused_moves; 004 Provoking an Attack of
 * Opportunity by Moving: the attack is made as the mover leaves the square, so a move that
 * provokes pauses at the square being left): while an asked reaction to its move is open, the
 * square of the earliest such step (rules_reactions_first_asked's order), facing as it faced
 * there; once none is, where the move ends, the pause over, and a stand-up's pause (stands)
 * leaves it standing; a mover dropped meanwhile stays where the attack found it (not set), the
 * pause over. */
struct rules_enc_pause_place {
    bool set; /* the mover is put at (x, y), facing `facing` when has_facing */
    int x, y;
    bool has_facing;
    int facing;
    bool over;   /* the pause ends */
    bool stands; /* it stands up: no longer prone */
};
/* False (out zeroed) when e has no paused move of combatant mover. */
bool rules_encounter_pause_place(const struct rules_encounter *e, int mover,
                                 struct rules_enc_pause_place *out);

#endif

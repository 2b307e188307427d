/* The encounter as a state machine, on plain structs: initiative and the surprise round
 * (004 Initiative, Step One), turns and rounds (004 The Combat Round), durations, and hit
 * points changed from outside the fight. The turn's own action budget is turn.h, hit point
 * states hp.h, reactions reaction.h.
 *
 * Each event kind here is one function that takes the state before it and returns its ruling
 * as a struct; the caller (the service, which stores the state) turns the ruling into the
 * event's result and effects. Combatants and initiative slots are indices: the caller keeps
 * what it knows them by. Pure: no allocation, no I/O. */
#ifndef TACTICS_RULES_ENCOUNTER_H
#define TACTICS_RULES_ENCOUNTER_H

#include <stdbool.h>

#include "dice.h"
#include "hp.h"
#include "options.h"
#include "turn.h"

/* What the turn machinery reads of a combatant. */
struct rules_enc_combatant {
    int hp, max_hp;
    int dex;                 /* Dexterity: initiative's first tie-break */
    int initiative_modifier; /* added to the initiative d20 */
};

/* One place in the initiative order. */
struct rules_enc_slot {
    int combatant; /* its index in combatants; -1 once it has left the encounter */
    bool aware;    /* aware at the start, so it acts in a surprise round */
};

struct rules_encounter {
    /* The rules an event is ruled under: 1, before the action economy (no turn budget, no
     * hit point states); 2, with them. */
    int engine;
    const struct rules_options *rules;
    bool started; /* initiative has been rolled */
    int round;    /* 0: the surprise round */
    int turn;     /* the slot whose turn it is; -1 before the first turn */
    int count;
    const struct rules_enc_combatant *combatants;
    int slots;
    const struct rules_enc_slot *order;
};

enum rules_enc_status {
    RULES_ENC_OK = 0,
    RULES_ENC_STARTED = -1,       /* initiative has been rolled already */
    RULES_ENC_NO_COMBATANTS = -2, /* nothing to roll for */
    RULES_ENC_DICE = -3,          /* too few supplied results, or one out of range */
    RULES_ENC_EXTRA_DICE = -4,    /* supplied results left over */
    RULES_ENC_NOT_STARTED = -5,   /* roll initiative first */
    RULES_ENC_NO_ONE_ACTS = -6,   /* engine 2: every combatant in the order is dying or dead */
};

/* One combatant's initiative check (004 Initiative Check: "a Dexterity check"). */
struct rules_initiative_roll {
    int combatant;
    int d20, modifier, total;
    int dex;  /* the first tie-break */
    int coin; /* the second: 1 or 2 */
};

/* Rolls initiative for every combatant, in their order in e->combatants: a d20 and then a
 * coin each, from d. Fills rolls (e->count of them), sorted into the initiative order:
 * highest total first; ties by Dexterity, highest first; then by the coin. *surprise: "If no
 * one or everyone starts the battle aware, there is no surprise round" (004 Step One), so
 * there is one when 0 < aware < e->count. Every combatant is flat-footed until its first
 * turn (004 Flat-Footed): the caller records it. */
int rules_encounter_initiative(const struct rules_encounter *e, int aware, struct rules_dice *d,
                               struct rules_initiative_roll *rolls, bool *surprise);

/* A turn passed over because its combatant cannot act (engine 2). */
struct rules_enc_skip {
    int combatant;
    enum rules_hp_state state;
};

/* The turn that begins at a next_turn event. */
struct rules_next_turn {
    int round, turn; /* its round and slot */
    int combatant;   /* the slot's combatant; -1 if it has left the encounter */
    /* What its fresh budget may spend (engine 2): a partial action in the surprise round
     * (004 Step One) or while disabled (d20 3.5 SRD, Disabled). */
    struct rules_turn_limits limits;
    int skipped_count;
    struct rules_enc_skip *skipped; /* the caller's array, room for e->slots */
};

/* 004 The Combat Round: the next slot in initiative order whose combatant acts; after the
 * last, a new round from the first. In the surprise round only the aware act (004 Step One);
 * under engine 2 the slot of a combatant that has left is passed over, and a dying or dead
 * combatant's turn is skipped (d20 3.5 SRD: a dying character
 * "is unconscious and can take no actions"), at most e->slots skips recorded. The combatant
 * whose turn begins stops being flat-footed (004 Flat-Footed): the caller records it. */
int rules_encounter_next_turn(const struct rules_encounter *e, struct rules_next_turn *out);

/* When an effect of `rounds` rounds begun at (round, turn) ends: 004, "Effects that last a
 * certain number of rounds end just before the same initiative count that they began on."
 * It has ended once a turn at or past (*end_round, *end_turn) begins. */
void rules_duration_end(int round, int turn, int rounds, long long *end_round, int *end_turn);

/* Whether an effect that ends at (end_round, end_turn) has ended when the turn (round, turn)
 * begins. */
bool rules_duration_ended(long long end_round, long long end_turn, long long round, long long turn);

/* Hit points changed from outside the fight (the hp event): set to `value` (set) or changed
 * by it. Healing stops at max_hp (d20 3.5 SRD, Healing: "can't restore hit points past your
 * full normal hit point total"); a creature already above it keeps what it has. Never below
 * RULES_HP_FLOOR. *capped: healing was cut short. */
#define RULES_HP_FLOOR (-100000)
long long rules_hp_after(long long before, long long max, bool set, long long value, bool *capped);

#endif

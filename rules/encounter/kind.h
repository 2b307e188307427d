/* The kinds of action an action event takes, as one table: each kind's name, what it spends,
 * the first engine that rules it, how it is taken, and the rule it is from. The service decodes
 * each kind's members and encodes its ruling (service/encounter/actions.c, one row per kind of
 * the same enum); everything the referee reads about a kind before it rules it is here. */
#ifndef TACTICS_RULES_ENCOUNTER_KIND_H
#define TACTICS_RULES_ENCOUNTER_KIND_H

#include <stdbool.h>

#include "rules/encounter/turn.h"
#include "rules/move/move.h"

/* How an action kind is taken. */
enum rules_action_taken {
    /* By the actor on its own turn, spending its cost (action_economy, engine.h). An attack of
     * kind attack_of_opportunity is a reaction instead. */
    RULES_TAKEN_ON_TURN = 0,
    /* In answer to another's provoking move: out of turn, from nobody's budget, and by one down
     * too, as declining what it could not make anyway (004 Attacks of Opportunity). */
    RULES_TAKEN_REACTION,
    /* It happens to a creature whenever it happens: out of turn, from nobody's budget, and also
     * to a creature that is down. */
    RULES_TAKEN_HAPPENS,
    /* The game master's: on the actor's turn spending nothing, or with the rule condition_free
     * at any time, as what happens. */
    RULES_TAKEN_APPLIED,
};

/* The spending of a kind that spends nothing. */
#define RULES_SPENDS_NOTHING RULES_ACTION_COUNT

/* X(enum tail, name, cost, first engine, taken, source): one row per action type. A move's cost
 * depends on its mode (rules_move_cost); the costs are turn.h's. */
#define RULES_ACTION_KINDS(X)                                                                      \
    X(ATTACK, "attack", RULES_ACTION_ATTACK, 1, RULES_TAKEN_ON_TURN,                               \
      "d20 3.5 SRD, Attack: a standard action; of kind attack_of_opportunity, 004 Attacks of "     \
      "Opportunity: a reaction")                                                                   \
    X(MOVE, "move", RULES_ACTION_MOVE, 1, RULES_TAKEN_ON_TURN,                                     \
      "001 Types of Movement: by its mode")                                                        \
    X(FIVE_FOOT_STEP, "five_foot_step", RULES_ACTION_FIVE_FOOT_STEP, 1, RULES_TAKEN_ON_TURN,       \
      "001 5-Foot Step")                                                                           \
    X(FACING, "facing", RULES_ACTION_FACING, 1, RULES_TAKEN_ON_TURN,                               \
      "000 Changing Facing: once as a free action, or as a move action")                           \
    X(FORCED, "forced", RULES_SPENDS_NOTHING, 1, RULES_TAKEN_HAPPENS,                              \
      "001 Forced Movement: done to a creature by another")                                        \
    X(FALL, "fall", RULES_SPENDS_NOTHING, 1, RULES_TAKEN_HAPPENS, "a fall happens to a creature")  \
    X(CONDITION, "condition", RULES_SPENDS_NOTHING, 1, RULES_TAKEN_APPLIED,                        \
      "004: effects that last a number of rounds; the table records what happened")                \
    X(STAND_UP, "stand_up", RULES_ACTION_STAND_UP, 2, RULES_TAKEN_ON_TURN,                         \
      "001 Part of a Move Action: standing up from Prone")                                         \
    X(FULL_ATTACK, "full_attack", RULES_ACTION_FULL_ATTACK, 2, RULES_TAKEN_ON_TURN,                \
      "d20 3.5 SRD, Full Attack: every iterative attack, a full-round action")                     \
    X(DECLINE_REACTION, "decline_reaction", RULES_SPENDS_NOTHING, 1, RULES_TAKEN_REACTION,         \
      "004 Attacks of Opportunity: not making one that was offered")

/* The types of action, in the table's order. */
enum rules_action_type {
#define RULES_ACT_ENUM_(k, ...) RULES_ACT_##k,
    RULES_ACTION_KINDS(RULES_ACT_ENUM_)
#undef RULES_ACT_ENUM_
        RULES_ACT_TYPE_COUNT
};

struct rules_action_kind_row {
    const char *name;
    enum rules_action cost; /* RULES_SPENDS_NOTHING for what spends no action */
    int since;              /* the first engine that rules it */
    enum rules_action_taken taken;
    const char *source;
};
extern const struct rules_action_kind_row rules_action_kinds[RULES_ACT_TYPE_COUNT];

/* "attack", "move", ... "decline_reaction" (the table's names), NULL-terminated. */
extern const char *const rules_action_type_names[];

/* The type named name, or -1. */
int rules_action_type_of(const char *name);

/* How the referee takes an action of one kind, under one engine, before ruling it. */
struct rules_action_kind {
    /* It answers another's provoking move (an attack of opportunity, or declining one): taken
     * out of turn and from nobody's budget (004 Attacks of Opportunity). */
    bool reaction;
    /* It happens to a creature whenever it happens (forced movement, a fall) or, with the rule
     * condition_free (engine.h), is the game master's to apply at any time (a condition): out of
     * turn, from nobody's budget, and also to a creature that is down. */
    bool anytime;
    /* It may be taken by a combatant that is down (unconscious, helpless, dying or dead): what
     * happens to one anytime, and declining a reaction it could not make anyway. */
    bool while_down;
    /* With action_economy, once initiative is rolled: it spends `cost` from the actor's turn. */
    bool spends;
    enum rules_action cost;
    int from_engine; /* the first engine that rules it (stand_up and full_attack: 2) */
    /* With action_economy: its result names its kind ("type"). */
    bool named;
    /* With the rule shapes: its members (the reactors, the ids it lists) are checked before it is
     * ruled, whatever the turn. */
    bool shaped;
};

/* How action type t is taken under engine; aoo: an attack of kind attack_of_opportunity (the
 * table's row, and the rules of that engine). The costs are turn.h's: 001 Types of Movement and
 * 004 The Combat Round. */
void rules_action_kind_of(int engine, enum rules_action_type t, bool aoo,
                          struct rules_action_kind *out);

/* What a move action in mode costs: a move action (move); the whole turn for a double move
 * (001 Double Move: "Type of Action: Full Attack Action"), a run (001 Run: "a full-round
 * action") and a charge (d20 3.5 SRD, Charge); a standard action (001 Withdraw); a move
 * action (001 Crawling). */
enum rules_action rules_move_cost(enum rules_move_mode mode);

#endif

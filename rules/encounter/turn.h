/* The action economy of one turn: what a combatant may still do, and what an action costs.
 * 001 Types of Movement and 004 The Combat Round: each turn one standard action and one move
 * action, or one full-round action, plus free actions; 004 Step One: in the surprise round a
 * partial action; 000 Changing Facing: one free facing change. Pure: the caller keeps the
 * struct with the combatant and passes it in. */
#ifndef TACTICS_RULES_TURN_H
#define TACTICS_RULES_TURN_H

#include <stdbool.h>
#include <stddef.h>

enum rules_action {
    RULES_ACTION_ATTACK,         /* one attack: a standard action (d20 3.5 SRD, Attack) */
    RULES_ACTION_WITHDRAW,       /* 001 Withdraw: "Type of Action: Standard Action" */
    RULES_ACTION_MOVE,           /* 001 Walk: "Type of Action: Move Action" */
    RULES_ACTION_CRAWL,          /* 001 Crawling: "you can crawl 5 feet as a move action" */
    RULES_ACTION_STAND_UP,       /* 001 Part of a Move Action: "standing up from Prone" */
    RULES_ACTION_FACING,         /* 000 Changing Facing: free once, else a move action */
    RULES_ACTION_FIVE_FOOT_STEP, /* 001 5-Foot Step: a free action, no other movement */
    RULES_ACTION_DOUBLE_MOVE,    /* 001 Double Move: both actions */
    RULES_ACTION_RUN,            /* 001 Run: "Type of Action: Full-Round Action" */
    RULES_ACTION_CHARGE,         /* full-round (d20 3.5 SRD, Charge: the seeds give none) */
    RULES_ACTION_FULL_ATTACK,    /* full-round: every iterative attack */
    RULES_ACTION_COUNT
};

/* What a combatant has spent this turn. All false when its turn begins. */
struct rules_turn {
    bool standard;    /* its standard action */
    bool move;        /* its move action */
    bool full_round;  /* a full-round action: nothing more but free actions */
    bool moved;       /* it moved of its own will (any movement but the free 5-foot step) */
    bool ran;         /* it ran (001 Run): the mover's ran_this_round */
    bool stepped;     /* it took its free 5-foot step */
    bool free_facing; /* it used its one free facing change */
    /* It charged (the rule charge), and then made the charge's one attack (d20 3.5 SRD, Charge:
     * "After moving, you may make a single melee attack"). */
    bool charged, charge_attacked;
};

/* What narrows a turn below one standard and one move action. */
struct rules_turn_limits {
    /* One move or one standard action, not both, and no full-round action: the surprise round
     * (004 Step One: "each take a partial action") and a disabled creature (d20 3.5 SRD,
     * Disabled: "a single move action or standard action each turn"). */
    bool partial;
    /* A standard action may be taken as a move action instead (001 Double Move: "converting
     * your standard action to a move action and moving twice"): on with the rule standard_as_move.
     */
    bool standard_as_move;
    /* A charge ends in one melee attack (d20 3.5 SRD, Charge): on with the rule charge. */
    bool charge_attack;
};

/* What is left of a turn, for answers and refusals. */
struct rules_turn_left {
    bool standard, move, full_round, five_foot_step, free_facing;
    bool charge_attack; /* the single melee attack its charge allows, not yet made */
};

enum rules_turn_status { RULES_TURN_OK = 0, RULES_TURN_REFUSED = -1 };

/* Why an action does not fit the turn: the rule (a citation) and a sentence. */
struct rules_turn_refusal {
    const char *rule;
    char message[200];
};

/* Spends what `a` costs from *t: RULES_TURN_OK, or RULES_TURN_REFUSED with *why filled and *t
 * unchanged. */
int rules_turn_spend(struct rules_turn *t, const struct rules_turn_limits *lim, enum rules_action a,
                     struct rules_turn_refusal *why);

void rules_turn_left(const struct rules_turn *t, const struct rules_turn_limits *lim,
                     struct rules_turn_left *out);

/* What is left of the turn in words, for refusals: "a standard action, a move action, a
 * 5-foot step" (those left, in that order, with a full-round action and a free facing change),
 * or "free actions only". */
void rules_turn_describe_left(const struct rules_turn *t, const struct rules_turn_limits *lim,
                              char *out, size_t cap);

/* "attack", "withdraw", "move", ... "full_attack". */
const char *rules_action_name(enum rules_action a);

#endif

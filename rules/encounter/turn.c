#include "rules/encounter/turn.h"

#include <assert.h>
#include <stdio.h>

#define SOURCE_ECONOMY "001 Types of Movement; 004 The Combat Round"
#define SOURCE_PARTIAL "004 Step One (a partial action); d20 3.5 SRD, Disabled"
#define SOURCE_STEP    "001 5-Foot Step"
#define SOURCE_FACING  "000 Changing Facing"

const char *rules_action_name(enum rules_action a)
{
    static const char *const names[] = {"attack",   "withdraw", "move",           "crawl",
                                        "stand_up", "facing",   "five_foot_step", "double_move",
                                        "run",      "charge",   "full_attack"};
    _Static_assert(sizeof names / sizeof names[0] == RULES_ACTION_COUNT, "one name per action");
    assert(a < RULES_ACTION_COUNT);
    return names[a];
}

void rules_turn_left(const struct rules_turn *t, const struct rules_turn_limits *lim,
                     struct rules_turn_left *out)
{
    bool one_taken = t->standard || t->move;
    out->standard = !t->standard && !t->full_round && !(lim->partial && one_taken);
    out->move = (!t->move || (lim->standard_as_move && !t->standard)) && !t->full_round &&
                !(lim->partial && one_taken);
    out->full_round = !one_taken && !t->full_round && !lim->partial;
    /* 001: "in any round in which they don't perform any other kind of movement", and "not
     * more than one of these sorts of 5-foot steps in a round". */
    out->five_foot_step = !t->moved && !t->stepped;
    /* 000: "If you do not move during your turn, or if your movement is limited to a 5-foot
     * step, you may change facing once ... as a free action." */
    out->free_facing = !t->moved && !t->free_facing;
    out->charge_attack = t->charged && !t->charge_attacked;
}

static int refuse(struct rules_turn_refusal *why, const char *rule, const char *message)
{
    why->rule = rule;
    snprintf(why->message, sizeof why->message, "%s", message);
    return RULES_TURN_REFUSED;
}

/* Why a kind of action is not left: the sentence for the slot it needs. */
static int refuse_slot(struct rules_turn_refusal *why, const struct rules_turn *t,
                       const struct rules_turn_limits *lim, const char *slot)
{
    if (t->full_round)
        return refuse(why, SOURCE_ECONOMY,
                      "a full-round action was taken this turn: only free actions are left");
    if (lim->partial && (t->standard || t->move))
        return refuse(why, SOURCE_PARTIAL,
                      "only a partial action this turn (a move or a standard action, not both), "
                      "and it was taken");
    char msg[160];
    snprintf(msg, sizeof msg,
             "the %s action of this turn is spent (one standard and one move action a turn)", slot);
    return refuse(why, SOURCE_ECONOMY, msg);
}

/* Movement other than the free 5-foot step, after that step: 001 allows the step only "in any
 * round in which they don't perform any other kind of movement". */
static bool moves_after_step(const struct rules_turn *t, struct rules_turn_refusal *why)
{
    if (!t->stepped)
        return false;
    refuse(why, SOURCE_STEP,
           "it took a 5-foot step this round, which is allowed only in a round with no other "
           "movement");
    return true;
}

/* Spends a move action: the turn's own, else (rules_turn_left allowed it) its standard action
 * taken as one (001 Double Move). */
static void take_move(struct rules_turn *t)
{
    if (!t->move)
        t->move = true;
    else
        t->standard = true;
}

int rules_turn_spend(struct rules_turn *t, const struct rules_turn_limits *lim, enum rules_action a,
                     struct rules_turn_refusal *why)
{
    struct rules_turn_left left;
    rules_turn_left(t, lim, &left);
    switch (a) {
    case RULES_ACTION_ATTACK:
    case RULES_ACTION_WITHDRAW:
        /* d20 3.5 SRD, Charge: "After moving, you may make a single melee attack" (the caller
         * checks that it is a melee attack). */
        if (a == RULES_ACTION_ATTACK && left.charge_attack) {
            t->charge_attacked = true;
            return RULES_TURN_OK;
        }
        if (!left.standard)
            return refuse_slot(why, t, lim, "standard");
        if (a == RULES_ACTION_WITHDRAW && moves_after_step(t, why))
            return RULES_TURN_REFUSED;
        t->standard = true;
        /* 001 Withdraw: "Because the withdraw action is considered movement, you can't perform
         * a 5-foot step during the same round in which you withdraw." */
        t->moved |= a == RULES_ACTION_WITHDRAW;
        return RULES_TURN_OK;
    case RULES_ACTION_MOVE:
    case RULES_ACTION_CRAWL:
    case RULES_ACTION_STAND_UP:
        if (!left.move)
            return refuse_slot(why, t, lim, "move");
        if (a != RULES_ACTION_STAND_UP && moves_after_step(t, why))
            return RULES_TURN_REFUSED;
        take_move(t);
        t->moved |= a != RULES_ACTION_STAND_UP;
        return RULES_TURN_OK;
    case RULES_ACTION_FACING:
        if (left.free_facing) {
            t->free_facing = true;
            return RULES_TURN_OK;
        }
        if (!left.move) {
            int rc = refuse_slot(why, t, lim, "move");
            why->rule = SOURCE_FACING;
            snprintf(why->message, sizeof why->message, "%s",
                     t->moved ? "its free facing change is gone (it moved more than a 5-foot "
                                "step), and changing facing otherwise takes a move action, which "
                                "is spent"
                              : "its free facing change is used, and changing facing again takes "
                                "a move action, which is spent");
            return rc;
        }
        take_move(t);
        return RULES_TURN_OK;
    case RULES_ACTION_FIVE_FOOT_STEP:
        if (t->stepped)
            return refuse(why, SOURCE_STEP, "one 5-foot step a round, and it was taken");
        if (t->moved)
            return refuse(why, SOURCE_STEP,
                          "it moved this round, and a 5-foot step is allowed only in a round "
                          "with no other movement");
        t->stepped = true;
        return RULES_TURN_OK;
    case RULES_ACTION_DOUBLE_MOVE:
    case RULES_ACTION_RUN:
    case RULES_ACTION_CHARGE:
    case RULES_ACTION_FULL_ATTACK:
        /* d20 3.5 SRD, Charge: "If you are able to take only a standard action or a move action
         * on your turn, you can still charge" (with charge_attack, the rule charge): the one
         * action. */
        if (a == RULES_ACTION_CHARGE && lim->partial && lim->charge_attack && !t->standard &&
            !t->move && !t->full_round) {
            if (moves_after_step(t, why))
                return RULES_TURN_REFUSED;
            t->full_round = t->moved = t->charged = true;
            return RULES_TURN_OK;
        }
        if (!left.full_round) {
            if (lim->partial && !t->standard && !t->move && !t->full_round)
                return refuse(why, SOURCE_PARTIAL,
                              "only a partial action this turn (a move or a standard action), "
                              "never a full-round action");
            return refuse(why, SOURCE_ECONOMY,
                          "a full-round action needs the whole turn, and part of it is spent");
        }
        if (a != RULES_ACTION_FULL_ATTACK && moves_after_step(t, why))
            return RULES_TURN_REFUSED;
        t->full_round = true;
        t->moved |= a != RULES_ACTION_FULL_ATTACK;
        t->charged = a == RULES_ACTION_CHARGE && lim->charge_attack;
        return RULES_TURN_OK;
    case RULES_ACTION_COUNT:
        break;
    }
    assert(0 && "an action of the enum");
    return refuse(why, SOURCE_ECONOMY, "unknown action");
}

void rules_turn_describe_left(const struct rules_turn *t, const struct rules_turn_limits *lim,
                              char *out, size_t cap)
{
    struct rules_turn_left l;
    rules_turn_left(t, lim, &l);
    const char *parts[6];
    int n = 0;
    if (l.full_round)
        parts[n++] = "a full-round action";
    if (l.charge_attack)
        parts[n++] = "the charge's melee attack";
    if (l.standard && l.move && t->move) /* the move only in the standard's place */
        parts[n++] = "a standard action (or a move action in its place)";
    else {
        if (l.standard)
            parts[n++] = "a standard action";
        if (l.move)
            parts[n++] = "a move action";
    }
    if (l.five_foot_step)
        parts[n++] = "a 5-foot step";
    if (l.free_facing)
        parts[n++] = "a free facing change";
    size_t used = (size_t)snprintf(out, cap, "%s", n ? "" : "free actions only");
    for (int i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? ", " : "", parts[i]);
}

/* Attacks of opportunity as reactions: who decides whether a provoked attack is taken, and
 * in which order the reactions to one move are settled. 004 Attacks of Opportunity: a move
 * that leaves a threatened square provokes, and the threatening enemy "does not have to make an
 * attack of opportunity if the combatant doesn't want to" (004 Making an Attack of
 * Opportunity): whether it does is the reactor's choice, made by a
 * per-combatant policy or by a decision the mover's request carries. Pure: the caller keeps
 * the policies with its combatants. */
#ifndef TACTICS_RULES_REACTION_H
#define TACTICS_RULES_REACTION_H

#include <stdbool.h>

#define RULES_REACTION_SOURCE "004 Attacks of Opportunity"

/* A combatant's standing answer to the attacks of opportunity it is given. */
enum rules_aoo_policy {
    RULES_AOO_POLICY_UNSET, /* none set: the reaction stays open until the next event (reactions) */
    RULES_AOO_POLICY_ASK,   /* the encounter waits for the attack or a decline */
    RULES_AOO_POLICY_ALWAYS, /* the engine makes the attack inside the provoking move */
    RULES_AOO_POLICY_NEVER,  /* the reaction is not opened */
    RULES_AOO_POLICY_COUNT
};

/* A decision the mover's request carries for one reactor, overriding its policy for that move. */
enum rules_aoo_decision {
    RULES_AOO_DECISION_NONE,    /* the reactor's policy decides */
    RULES_AOO_DECISION_TAKE,    /* as always */
    RULES_AOO_DECISION_DECLINE, /* as never */
    RULES_AOO_DECISION_COUNT
};

/* What happens to one provoked attack of opportunity. */
enum rules_aoo_outcome {
    RULES_AOO_LAPSING, /* opened; it lapses at the next event that does not answer it */
    RULES_AOO_ASKED,   /* opened; the encounter awaits its answer or decline */
    RULES_AOO_MADE,    /* the engine makes it, at the square the mover is leaving */
    RULES_AOO_DECLINED /* not opened */
};

/* The outcome of an attack of opportunity provoked from a reactor with policy p, given the
 * mover's decision d for it. */
enum rules_aoo_outcome rules_aoo_outcome_of(enum rules_aoo_policy p, enum rules_aoo_decision d);

/* "unset", "ask", "always", "never"; and back: the policy named, or -1. */
const char *rules_aoo_policy_name(enum rules_aoo_policy p);
int rules_aoo_policy_from(const char *name);

/* "lapsing", "awaiting", "made", "declined". */
const char *rules_aoo_outcome_name(enum rules_aoo_outcome o);

/* Whether a reaction to step `step` of a move may be settled (made by the engine, answered or
 * declined) while a reaction the encounter waits for is open at step `asked_step` of the same
 * move: the move reaches the later square only after the earlier one is settled, so a reaction
 * is settled only when no asked one is open at an earlier step (inferred from 004 Provoking an
 * Attack of Opportunity by Moving, which provokes at each threatened square the mover leaves:
 * the attacks come in the order the squares are left). */
bool rules_aoo_may_settle(int step, int asked_step);

/* A reaction a move (or standing up) left open: reactor `by` may make an attack of opportunity
 * on `mover`, who was leaving (x, y) facing `facing` (-1: none) at step `step`, as its reactor's
 * policy or the mover's decision left it (`policy`: ask, always, or unset). */
struct rules_enc_reaction {
    int mover, by; /* combatant indices (-1: no longer in the encounter) */
    int step;
    int x, y, facing;
    enum rules_aoo_policy policy;
};

/* What becomes of open reaction r (004 Making an Attack of Opportunity: the threatening enemy
 * "does not have to make an attack of opportunity"; its policy or the mover's decision says
 * whether it does): ASKED when the encounter awaits its answer or decline (policy ask), MADE
 * when the engine makes it once it may be settled (always), else LAPSING at the next event. */
enum rules_aoo_outcome rules_reaction_outcome(const struct rules_enc_reaction *r);

/* Whether the encounter awaits an answer among the n open reactions of list (awaiting_reactions):
 * one of them is asked (rules_reaction_outcome). 004 Attacks of Opportunity: the reactor, not the
 * engine, decides an asked one, so nothing else is ruled until it answers or declines. */
bool rules_reactions_awaited(const struct rules_enc_reaction *list, int n);

/* The asked reaction at the earliest step among the n of list (of mover's move; mover -1:
 * anyone's), other than the one at index except (-1: none); -1 when there is none. Of equal
 * steps (two reactors at one square), the first listed: the order the move's ruling gave them
 * (the documents order only the squares). */
int rules_reactions_first_asked(const struct rules_enc_reaction *list, int n, int mover,
                                int except);

/* The reaction the engine makes next for mover's move: the first listed that it makes itself
 * (MADE) and that may be settled now, no asked reaction to anyone's move being open at an
 * earlier step (rules_aoo_may_settle); -1 when there is none. */
int rules_reactions_next_made(const struct rules_enc_reaction *list, int n, int mover);

/* Whether reaction `at` of the list may be settled now (answered, declined or made): no asked
 * reaction other than it is open at an earlier step (rules_aoo_may_settle; 004 Provoking an
 * Attack of Opportunity by Moving: the mover leaves the earlier square first); *blocking gets
 * that one's index, or -1. */
bool rules_reactions_may_settle(const struct rules_enc_reaction *list, int n, int at,
                                int *blocking);

/* Attacks of opportunity a combatant may make in a round: one (004 Making an Attack of
 * Opportunity: "a combatant can only make one per round"); with Combat Reflexes one more per
 * point of Dexterity bonus (d20 3.5 SRD, Combat Reflexes; 000's Combat Reflexes only lets flank
 * attacks go without penalty). dex: the Dexterity score. */
int rules_aoo_per_round(bool combat_reflexes, int dex);

#endif

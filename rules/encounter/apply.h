/* What an event leaves on the typed encounter, applied to the structs themselves: a combatant's
 * derived flags, the start of its turn, a combatant leaving the fight. A caller that rules step
 * after step within one event (the turn after a removal, ...) applies each step here to a copy
 * of the structs and rules the next step on that copy, instead of folding the step's stored
 * effects into a copy of the stored state and decoding it again. Each function is what
 * svc_enc_typed_decode would read from the state the event's effects leave (debug builds of the
 * service compare the two). */
#ifndef TACTICS_RULES_ENCOUNTER_APPLY_H
#define TACTICS_RULES_ENCOUNTER_APPLY_H

#include <stdbool.h>

#include "rules/encounter/encounter.h"
#include "rules/encounter/state.h"

/* A copy of an encounter whose parts may be changed: e's arrays are the ones below (the
 * combatants' attack profiles and the encounter's rules and map stay borrowed from the
 * original). Made by rules_encounter_work_copy, freed by rules_encounter_work_free. */
struct rules_encounter_work {
    struct rules_encounter e;
    struct rules_enc_combatant *combatants;
    struct rules_enc_timed *timed; /* every combatant's timed effects, in combatant order */
    struct rules_enc_slot *order;
    struct rules_enc_reaction *reactions;
};

/* Copies from (borrowed) into out, its arrays allocated for the caller (rules_encounter_work_free
 * releases them). False when out of memory (out then holds nothing to free). */
bool rules_encounter_work_copy(const struct rules_encounter *from,
                               struct rules_encounter_work *out);
void rules_encounter_work_free(struct rules_encounter_work *w);

/* What combatant c's state derives from its conditions and hit point state, set on c: prone,
 * flat-footed (004 Flat-Footed), stunned (d20 3.5 SRD, Stunned), and down: unconscious or
 * helpless (d20 3.5 SRD, Unconscious: "knocked out and helpless"), or by its hit point state
 * unable to act (rules_hp_acts: disabled acts; dying, stable and dead "can take no actions"). */
void rules_enc_combatant_derive(struct rules_enc_combatant *c);

/* Whether combatant c counts as dropped where an attack ends a move or a full attack (a mover
 * an attack of opportunity stopped, 004; a full attack's target that dropped, d20 3.5 SRD, Full
 * Attack): unconscious or helpless, or by its stored hit point state dying or dead. A stable
 * creature is not dropped here, as every engine up to this one rules it (stable comes only with
 * the rule srd_dying), although it is down (rules_enc_combatant_derive): a change would need
 * an engine rule of its own, so that stored logs re-rule as they were ruled. */
bool rules_enc_combatant_dropped(const struct rules_enc_combatant *c);

/* Combatant c's hit point state by its hit points now: with the rule hp_states as the rules in
 * force rule them (rules_hp_state_of: d20 3.5 SRD, disabled at 0, dying below, dead at the
 * threshold); without it always up. Not its stored hp_state, which a combatant added before the
 * rule join_state never got. */
enum rules_hp_state rules_encounter_hp_state(const struct rules_encounter *e, int c);

/* What beginning its own turn does to combatant c under engine: a fresh turn with no charge
 * (004 The Combat Round), no longer flat-footed (004 Flat-Footed: a combatant is flat-footed
 * "at the start of a battle", d20 3.5 SRD Flat-Footed: until it first acts), and with the rule
 * condition_sources each condition forced on it has now had its opportunity to be acted on
 * (rules_condition_source_at_turn; 001 Forced Movement: "until it has had an opportunity to
 * stand up"); then its derived flags again. */
void rules_enc_combatant_begin_turn(int engine, struct rules_enc_combatant *c);

/* Begins the turn next (rules_encounter_next_turn's ruling on e) on e: its round and slot, the
 * conditions of the timed effects that ended leave their combatants (004: "Effects that last a
 * certain number of rounds end just before the same initiative count that they began on"; the
 * timed lists themselves are the caller's), and the combatant whose turn it is begins it
 * (rules_enc_combatant_begin_turn). cs is e's combatants, writable. */
void rules_encounter_begin_turn(struct rules_encounter *e, struct rules_enc_combatant *cs,
                                const struct rules_next_turn *next);

/* ---- what one ruling step sets on a combatant, applied to a work copy ----
 * Each is the change the step's stored set effect makes, as a fresh decode of the state it
 * leaves reads it, so that a caller ruling step after step within one event (a full attack's
 * attacks, the attacks of opportunity the engine makes in a move) rules each step on the copy. */

/* Combatant c's hit points become hp (clamped to +-1,000,000, as a stored state is read), and
 * with the rule hp_states and the option on (rules_encounter_stores_hp_state) its hit point
 * state with them (d20 3.5 SRD, Injury and Death: "disabled" at 0, "dying" from -1 to -9,
 * "dead" at -10 or lower, or the threshold in force); then what it derives from them
 * (rules_enc_combatant_derive: down when it can take no actions). Without the rule the stored
 * state stays as it was. */
void rules_encounter_set_hp(struct rules_encounter_work *w, int c, long long hp);

/* Combatant c now stands at (x, y) and, when facing >= 0, faces `facing` (a 5-foot step's end,
 * 001 5-Foot Step; 000 Changing Facing). */
void rules_encounter_set_place(struct rules_encounter_work *w, int c, int x, int y, int facing);

/* What a single attack records on its attacker's turn as it stores it (the attack's own turn
 * member: {moved, ran, attacked}): it attacked, which a stored turn counts as its standard action
 * (d20 3.5 SRD, Attack: "a standard action"), and whether it moved or ran this turn is kept;
 * nothing else is recorded (the action's budget is stamped onto it once the action is ruled), so
 * it names no charge opponent either. */
void rules_encounter_set_attacked(struct rules_encounter_work *w, int c);

/* Reactor c made an attack of opportunity in round `round`, its `made`-th this round (004
 * Making an Attack of Opportunity: "a combatant can only make one per round"; d20 3.5 SRD, Combat
 * Reflexes: one more per point of Dexterity bonus). */
void rules_encounter_set_aoo(struct rules_encounter_work *w, int c, long long round, int made);

/* Open reaction `at` is settled (answered by an attack of opportunity that stopped its mover or
 * not, declined, or refused): the reactions that stay (rules_encounter_reaction_stays) are the
 * open ones, in their order, and the encounter awaits an answer while an asked one is among them
 * (rules_reactions_awaited; 004 Attacks of Opportunity). */
void rules_encounter_settle_reaction(struct rules_encounter_work *w, int at, bool stopped);

/* paused_moves: mover's move pauses with asked reactions open (004 Provoking an Attack of
 * Opportunity by Moving: the attack is made as the mover leaves the square); it ends at (x, y),
 * facing `facing` when >= 0, once they are settled. */
void rules_encounter_pause_move(struct rules_encounter_work *w, int mover, int x, int y,
                                int facing);

/* The paused move is over: no move is paused. */
void rules_encounter_end_pause(struct rules_encounter_work *w);

/* Combatant c stands up (001 Part of a Move Action: standing up from Prone): no longer prone,
 * and what it derives from that. */
void rules_encounter_stand(struct rules_encounter_work *w, int c);

/* What a legal move (rules_encounter_move's ruling m) leaves on its mover c, as the move's own
 * set effect stores it: its end square and facing (rules_encounter_set_place); its turn's marks,
 * kept with what the turn spent before (a 5-foot step is its free step, 001 5-Foot Step;
 * anything else is movement, and a run marks the turn as run); with foe >= 0 the charge's
 * designated opponent (d20 3.5 SRD, Charge: "you must move to the closest space from which you
 * can attack the opponent"), else the one it had; 001 Run: "they gain the flat-footed condition
 * until the start of their next turn, unless they have the Runner (Feat)"; and with the rule
 * charge a charge's one-round charging condition and its timed effect (d20 3.5 SRD, Charge:
 * "take a -2 penalty to your AC until the start of your next turn"), kept after the mover's
 * other timed effects. Then what it derives from its conditions. False when out of memory (the
 * timed effect could not be added; w is then as it was but for the square, turn and
 * conditions). */
bool rules_encounter_set_moved(struct rules_encounter_work *w, int c,
                               const struct rules_enc_move_ruling *m, int foe);

/* The reactions a move (or standing up) opened replace the open reactions: list's n, in their
 * order (as the move's effect stores them, whatever was open before it gone), and the encounter
 * awaits an answer while an asked one is among them (rules_reactions_awaited; 004 Making an
 * Attack of Opportunity: "The combatant does not have to make an attack of opportunity if the
 * combatant doesn't want to": an asked reactor says whether it does). list must not be w's own.
 * False when out of memory (w is then as it was). */
bool rules_encounter_open_reactions(struct rules_encounter_work *w,
                                    const struct rules_enc_reaction *list, int n);

/* What a combatant leaving the fight (the rule leaving) left on the encounter. */
struct rules_enc_left {
    int slot;    /* the initiative slot it held, or -1 (not in the order, or not started) */
    bool passes; /* it left on its own turn: the turn passes on (rules_encounter_next_turn) */
};

/* Combatant c leaves w (the combatant_removed event): it is taken out of the combatants and of
 * the initiative order, and every index after it moves down one (a reaction or a paused move
 * of it names nobody, -1). With leaving, once initiative is rolled, the order closes up around
 * its place: the turn stays with the combatant whose turn it is (one slot earlier when the
 * leaver's slot was before it), and timed effects still end just before the count they began on
 * (004), so an end past its place moves down one too. If it leaves on its own turn, the turn
 * goes back to the slot before (none before the first) and *out says the turn passes on, as
 * next_turn would pass it. */
void rules_encounter_leave(struct rules_encounter_work *w, int c, bool leaving,
                           struct rules_enc_left *out);

#endif

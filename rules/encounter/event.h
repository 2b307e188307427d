/* What an event stores, checks and opens under the engine it is ruled with: each engine rule
 * (engine.h) the service would otherwise branch on, as the decision it makes, so that the
 * service only calls it and encodes the answer. Each names its rule and quotes its source. */
#ifndef TACTICS_RULES_ENCOUNTER_EVENT_H
#define TACTICS_RULES_ENCOUNTER_EVENT_H

#include <stdbool.h>

#include "rules/encounter/hp.h"
#include "rules/encounter/reaction.h"
#include "rules/encounter/state.h"
#include "rules/move/move.h"
#include "rules/options.h"

/* The hit point state of a combatant at hp (d20 3.5 SRD, Injury and Death: disabled at 0, dying
 * below, dead at the threshold in force): with the rule hp_states rules_hp_state_of, without it
 * always up (hit points were a number only). */
enum rules_hp_state rules_encounter_hp_state_at(int engine, const struct rules_options *o,
                                                long long hp);

/* Whether an event that sets a combatant's hit points also stores its hit point state: with the
 * rule hp_states and the option hp_states on (not none). */
bool rules_encounter_stores_hp_state(int engine, const struct rules_options *o);

/* Whether a combatant joining stores its hit point state at once (the rule join_state: "a
 * combatant has its hit point state from the moment it joins, so one joining at 0 hp or below
 * is disabled, dying or dead"), as rules_encounter_stores_hp_state says; before it only its
 * first change did. */
bool rules_encounter_joins_with_hp_state(int engine, const struct rules_options *o);

/* The members of a combatant that make up its place (where it stands, how big, how it moves,
 * what it reaches, where it faces), NULL-terminated. */
extern const char *const rules_encounter_place_members[];

/* Whether a combatant's update checks its place again (001 Blocked Terrain, 001 Alternative
 * Movement Types): with the rule placing only when the change touches one of its place's members
 * (touches_place), so that one pushed where its speeds do not go can still have its other members
 * changed; before it, every update did. */
bool rules_encounter_update_checks_place(int engine, bool touches_place);

/* Whether an event's members (and a combatant's) are checked before it is ruled: no duplicates,
 * no strays (the rule shapes). */
bool rules_encounter_checks_shapes(int engine);

/* Whether blocked terrain, or terrain none of its speeds enters, refuses a combatant's place
 * (the rule placing: 001 Blocked Terrain, "terrain it is impossible to move into"; 001
 * Alternative Movement Types); before it only the map's edge and other creatures did. */
bool rules_encounter_place_refuses_terrain(int engine);

/* Whether a move opens reactions for the attacks of opportunity it provoked, each made only in
 * answer to it (the rule reactions; 004 Attacks of Opportunity). */
bool rules_encounter_move_opens_reactions(int engine);

/* Whether an attack of opportunity is made only in answer to an open reaction, which it consumes
 * (the rule reactions); before it one was an attack like another, out of turn. */
bool rules_encounter_aoo_answers_reaction(int engine);

/* Whether an attack of opportunity that names no profile is made with the attacker's first melee
 * one (the rule melee_aoo, 004: "An attack of opportunity is a single melee attack";
 * rules_encounter_aoo_profile_of); before it with its first. */
bool rules_encounter_aoo_first_melee(int engine);

/* Whether the encounter waits, before it rules anything else, for an open reaction stored with
 * policy `policy` (an enum rules_aoo_policy; -1: one this build does not know): an asked one
 * (rules_aoo_outcome_of), answered by an attack of opportunity or a decline (004 Attacks of
 * Opportunity: the reactor decides); one opened with no policy lapses and waits for nothing. */
bool rules_encounter_awaits_reaction(int policy);

/* Whether action type `type` (an enum rules_action_type; -1: none, as for an event that is no
 * action), an attack of opportunity when aoo, answers an open reaction: the kind table says so
 * (rules_action_kind_of's reaction: an attack of opportunity, or a decline). 004 Attacks of
 * Opportunity: while the encounter awaits a reactor's answer, only that answer (the attack or its
 * decline) is ruled; such an event does not close the reactions either. */
bool rules_encounter_answers_reaction(int engine, int type, bool aoo);

/* Whether an event closes the reactions a move left open: with the rule reactions, "the next
 * other event closes it", so any event while `open` reactions stand, but an answer to one (an
 * attack of opportunity or a decline: answers) and an undo (which may take back the move that
 * opened them). */
bool rules_encounter_event_closes_reactions(int engine, int open, bool answers, bool undo);

/* Whether a move in `mode` records its designated opponent on the mover's turn (the rule charge:
 * d20 3.5 SRD, Charge, "directly toward the designated opponent"): a charge under it. */
bool rules_encounter_move_names_opponent(int engine, enum rules_move_mode mode);

/* Whether standing up from prone is ruled with the attacks of opportunity it provokes, each
 * opening a reaction (rules_encounter_stand_up_provokes says from whom): the rule
 * stand_up_provokes, d20 3.5 SRD, Actions in Combat: standing up from prone provokes. */
bool rules_encounter_stand_up_opens_reactions(int engine);

/* Whether an attack's Dex to AC, cover and concealment come from what the encounter stores and
 * its result tells what was derived (the rule derived_defense). */
bool rules_encounter_derives_defense(int engine);

/* Whether a combatant's attacks of opportunity are counted against 1 + its Dexterity modifier a
 * round with Combat Reflexes (the rule aoo_per_round; d20 3.5 SRD, Combat Reflexes), else one a
 * round (004 Making an Attack of Opportunity). */
bool rules_encounter_counts_aoo(int engine);

/* The attacks combatant c of e makes in a full attack, from its base attack bonus (d20 3.5 SRD,
 * Full Attack: "an additional attack at base attack bonus +6, +11 and +16";
 * rules_iterative_attacks). */
int rules_encounter_iterative_of(const struct rules_encounter *e, int c);

/* Whether a move stops at an asked reaction it provoked, the mover standing in the square it was
 * leaving, and goes on once the reaction is settled (the rule paused_moves; 004 Attacks of
 * Opportunity: the reactor decides); before it the move ended where it was going at once. */
bool rules_encounter_move_pauses(int engine);

/* Whether the table's dice for an attack of opportunity that do not fit it refuse the event, as
 * any other results would, rather than lose the attack (the rule paused_moves). */
bool rules_encounter_refuses_unfit_reaction_dice(int engine);

/* Whether a combatant removed leaves the initiative order, its place closing up and the turn
 * passing on if it was its own (the rule leaving); before it the order kept it. */
bool rules_encounter_removal_leaves_order(int engine);

/* Whether the next turn lists the turns it passed over for the down (the rule leaving). */
bool rules_encounter_lists_skipped(int engine);

/* Whether a turn that begins stores the budget it starts with (the rule action_economy; 004 The
 * Combat Round: one standard and one move action, or one full-round action). */
bool rules_encounter_turn_has_budget(int engine);

/* Whether the hp event (the owner's damage or healing from outside the fight) is ruled at all:
 * it came with the rule hp_states (d20 3.5 SRD, Injury and Death). */
bool rules_encounter_rules_hp_event(int engine);

/* Whether healing stops short of the dead (the rule no_healing_dead; d20 3.5 SRD, Dead: "Dead
 * characters cannot benefit from normal or magical healing"); an owner's set still overrides. */
bool rules_encounter_heals_not_the_dead(int engine);

#endif

/* A small encounter on structs for the referee's tests (test_referee_*.c): combatants placed on
 * an open map under the d20-3.5 preset, and the calls the service makes on them, in the order it
 * makes them (rules_encounter_admit, rules_encounter_board with rules_encounter_mover_of and
 * rules_encounter_move, rules_encounter_next_turn, rules_encounter_attack_sides with
 * rules_attack_evaluate). Each test then asserts the documents' numbers on what they rule. */
#ifndef TACTICS_TESTS_RULES_REFEREE_H
#define TACTICS_TESTS_RULES_REFEREE_H

#include "rules/encounter/encounter.h"

#define REFEREE_MAX 6

struct referee {
    struct rules_options o;
    struct rules_map map;
    struct rules_enc_profile club, bow; /* club +2 (melee, 1d6); bow +6 (ranged, 1d8) */
    struct rules_enc_combatant c[REFEREE_MAX];
    struct rules_enc_slot order[REFEREE_MAX]; /* slot i holds combatant i */
    struct rules_encounter e;
    /* What the last call ruled. */
    struct rules_admission adm;
    struct rules_enc_move_ruling move;
    struct rules_next_turn next;
    /* Scratch for the rulings above. */
    struct rules_enc_skip skips[REFEREE_MAX];
    struct rules_enc_ended ended[REFEREE_MAX];
    struct rules_map_creature board[REFEREE_MAX];
    int board_index[REFEREE_MAX];
    struct rules_step_result steps[32];
    struct rules_aoo aoos[REFEREE_MAX];
};

/* An encounter under engine on an open w x h map with the d20-3.5 preset, initiative rolled, in
 * round 1 before anyone's turn (turn -1), nobody in it yet. The map stays the fixture's: the
 * next referee_init frees it. */
void referee_init(struct referee *r, int engine, int w, int h);

/* Adds a Medium combatant of side at (x, y), aware, in the next slot: 10 hp of 10, Dex 10, walk
 * 30, AC 12 (armor 2), the club; returns its index (its slot too). */
int referee_add(struct referee *r, const char *id, const char *side, int x, int y);

/* Sets combatant c's hit points and, as the stored state keeps it, its hit point state under the
 * options, and what the typed state derives from them (rules_enc_combatant_derive). */
void referee_hp(struct referee *r, int c, int hp);

/* Gives (on) or takes away combatant c's condition, with what the typed state derives from it
 * (rules_enc_combatant_derive: prone, flat-footed, stunned, down). */
void referee_condition(struct referee *r, int c, enum rules_condition k, bool on);

/* Begins the next turn (rules_encounter_next_turn into r->next) as the service records it
 * (rules_encounter_begin_turn: the round and slot, a fresh turn for its combatant, no longer
 * flat-footed, each condition forced on it marked as having had its turn since). Returns the
 * call's status. */
int referee_next_turn(struct referee *r);

/* Admits action type (mode for a move) by actor (rules_encounter_admit into r->adm); when
 * admitted, the actor's turn becomes what it spent. Returns the gate's status. */
int referee_admit(struct referee *r, enum rules_action_type type, int actor,
                  enum rules_move_mode mode);

/* Rules mover's move in mode along path (n squares; a charge at combatant target, -1: none)
 * with the turn it has spent so far (call it before referee_admit spends the move), every other
 * combatant as it sees them (rules_encounter_board) and itself as rules_encounter_mover_of makes
 * it; into r->move. When legal the mover stands where it ends. Returns rules_encounter_move's
 * status. */
int referee_move(struct referee *r, int mover, enum rules_move_mode mode, const int (*path)[2],
                 int n, int target);

/* The movement request of mover in mode among the creatures on map under o (no withdraw target,
 * no work budget). */
struct rules_move_query referee_query(const struct rules_options *o, const struct rules_map *map,
                                      const struct rules_map_creature *creatures, int count,
                                      const struct rules_mover *mover, enum rules_move_mode mode);

/* Rules move m of encounter e (its query, target, melee attack, Runner, charging) along path, n
 * squares each facing the way of its step, keeping the last step's facing: rules_encounter_move
 * into out, whose path arrays the caller gives. */
int referee_rule_move(const struct rules_encounter *e, struct rules_enc_move m,
                      const int (*path)[2], int n, struct rules_enc_move_ruling *out);

/* The attacks of opportunity r->move provoked from combatant c. */
int referee_provoked_by(const struct referee *r, int c);

/* Evaluates combatant a's attack with its first profile on t as the service does
 * (rules_encounter_attack_sides; the profile's bonus, form and sneak attack; the charge's +2 when
 * rules_encounter_attack_gate says it is the charge's attack; rules_attack_evaluate under cover),
 * into out; returns rules_attack_evaluate's status. */
int referee_evaluate(const struct referee *r, int a, int t, enum rules_cover cover,
                     struct rules_attack_eval *out);

/* Whether out lists an applied modifier with reason and value. */
bool referee_has_modifier(const struct rules_attack_eval *ev, const char *reason, int value);

#endif

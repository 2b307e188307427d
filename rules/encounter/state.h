/* The whole encounter as plain structs: every combatant with its place, its numbers, its
 * conditions (an enum, each with where it came from), its attack profiles and what its turn has
 * done so far; the initiative order and whose turn it is; the reactions a move left open and a
 * move paused for them. Every rule of the encounter reads this one struct, and every view of an
 * encounter (threats, flanking, reach, route, odds, pictures, texts) is derived from it through
 * the same rules functions, so two views cannot disagree about a creature.
 *
 * Strings (ids, names, sides, profile names, damage) are borrowed: the caller that decoded the
 * state keeps what they point into. Indices name combatants (their place in combatants) and
 * initiative slots. */
#ifndef TACTICS_RULES_ENCOUNTER_STATE_H
#define TACTICS_RULES_ENCOUNTER_STATE_H

#include <stdbool.h>

#include "rules/attack/attack.h"
#include "rules/board/map.h"
#include "rules/encounter/hp.h"
#include "rules/encounter/reaction.h"
#include "rules/encounter/turn.h"
#include "rules/move/move.h"
#include "rules/options.h"

/* The conditions an encounter tracks. The first RULES_CONDITION_ATTACK_COUNT are an attack's
 * defender conditions too, in the order of their RULES_COND_* bits (rules/attack/attack.h): bit
 * i of an encounter's condition set is bit i of the attack's. */
enum rules_condition {
    RULES_CONDITION_SITTING = 0,
    RULES_CONDITION_PRONE,
    RULES_CONDITION_STUNNED,
    RULES_CONDITION_CLIMBING,
    RULES_CONDITION_FLAT_FOOTED,
    RULES_CONDITION_RUNNING,
    RULES_CONDITION_GRAPPLING,
    RULES_CONDITION_PINNED,
    RULES_CONDITION_HELPLESS,
    RULES_CONDITION_SQUEEZING,
    RULES_CONDITION_CHARGING,
    RULES_CONDITION_UNCONSCIOUS, /* the encounter's own: an attack reads it as helpless */
    RULES_CONDITION_COUNT
};
#define RULES_CONDITION_ATTACK_COUNT (RULES_CONDITION_CHARGING + 1)

/* "sitting", "prone", ... "unconscious", in enum order, NULL-terminated. */
extern const char *const rules_condition_names[];

/* The condition named name, or -1. */
int rules_condition_of(const char *name);

/* A condition set (bits 1u << enum rules_condition) as an attack's defender conditions
 * (RULES_COND_*): unconscious is helpless (d20 3.5 SRD, Unconscious: "knocked out and helpless").
 */
unsigned rules_condition_attack_bits(unsigned conditions);

/* Where a condition came from (the rule condition_sources, engine.h): the event that gave it,
 * whether it was forced on the creature (a fall, forced movement, another's doing) rather than
 * taken of its own will, and whether the creature has since had an opportunity to act on it (a turn
 * of its own began). */
struct rules_condition_source {
    long long event; /* 0: not known (an older engine's, or given with the combatant) */
    bool involuntary;
    bool had_turn;
};

/* How a condition was gained (condition_sources): of the creature's own will (dropping prone) or
 * forced on it (a fall, forced movement, another's doing). */
enum rules_condition_cause {
    RULES_CAUSE_OWN = 0,
    RULES_CAUSE_FALL,
    RULES_CAUSE_FORCED,
    RULES_CAUSE_OTHER,
};

/* Whether a condition gained so was forced on the creature (rules_condition_source). */
bool rules_condition_involuntary(enum rules_condition_cause cause);

/* Where a condition came from once a turn of the creature's own begins: one forced on it has
 * now had its opportunity to act on it (001 Forced Movement: a creature "made prone
 * involuntarily gains no such resistance to forced movement until it has had an opportunity to
 * stand up"); one taken of its own will is as it was. */
struct rules_condition_source rules_condition_source_at_turn(struct rules_condition_source s);

/* Whether events of engine keep where each condition came from (condition_sources). */
bool rules_encounter_keeps_sources(int engine);

/* Whether a full attack's plan may change facing and target between its attacks (full_attack_plans;
 * 000's Kroh: "attack the bugbear, take his free action to change facing towards the goblin,
 * then attack the goblin"). */
bool rules_encounter_full_attack_plans(int engine);

/* An attack profile as a combatant lists it. */
enum rules_attack_form { RULES_FORM_MELEE = 0, RULES_FORM_RANGED, RULES_FORM_SPELL };
struct rules_enc_profile {
    const char *name;
    int attack_bonus;
    enum rules_attack_form form;
    bool touch;
    int sneak_dice, rogue_level;
    int crit_range, crit_multiplier;
    const char *damage; /* dice notation, or NULL */
};

/* An effect that lasts a number of rounds, as stored: it has ended once a turn at or past
 * (end_round, end_turn) begins (rules_duration_end, rules_duration_ended). */
struct rules_enc_timed {
    long long end_round, end_turn;
    int condition; /* its enum rules_condition, or -1 when it names none this build knows */
};

/* One combatant. */
struct rules_enc_combatant {
    const char *id, *name, *side, *owner; /* name and owner "" when not given */
    /* Where it stands: its place, size, facing and reach (rules/board/threat.h); placed is
     * false only for a state that could not be read (a forged one). */
    struct rules_creature body;
    bool placed;
    int speed[RULES_MOVE_TYPES]; /* base speeds in feet (0: none) */
    enum rules_burden armor, load;
    int constitution;
    bool runner, darkvision, player_character;
    int base_attack_bonus;
    int damage_reduction;
    enum rules_aoo_policy aoo_policy;
    struct rules_defense defense;
    int hp, max_hp;
    /* Its hit point state as its last change was ruled (the stored hp_state; RULES_HP_UP when
     * none is stored, as without the rule hp_states or under the option hp_states none). */
    enum rules_hp_state hp_state;
    int dex; /* Dexterity: initiative's first tie-break */
    /* What the stored combatant gives (with derived_defense, the Dexterity part of a Defense that
     * has none is derived from the score: rules_encounter_attack_setup): a Defense, a Dexterity
     * part in it, a Dexterity score. */
    bool has_defense, defense_dex, has_dex;
    int initiative_modifier; /* added to the initiative d20 */
    bool has_initiative;
    int initiative;
    unsigned conditions; /* bits 1u << enum rules_condition */
    struct rules_condition_source sources[RULES_CONDITION_COUNT];
    int attack_count;
    const struct rules_enc_profile *attacks;
    int timed_count;
    const struct rules_enc_timed *timed; /* its timed effects, in the order it keeps them */
    /* Unconscious or helpless, or dying or dead as its hit points were last ruled (hp_states):
     * down, it takes no actions and threatens nobody. */
    bool down;
    bool prone;
    bool flat_footed;       /* 004 Flat-Footed: no attacks of opportunity */
    bool combat_reflexes;   /* d20 3.5 SRD, Combat Reflexes */
    bool stunned;           /* d20 3.5 SRD, Stunned: "can't take actions" (the rule stunned) */
    struct rules_turn turn; /* what its turn has spent (turn.h) */
    int charge_target;      /* its charge's designated opponent this turn, or -1 */
    /* The round of its last attack of opportunity (-1: none yet) and how many it made then
     * (without aoo_per_round only the round is recorded: one). */
    long long aoo_round;
    int aoo_made;
};

/* One place in the initiative order. */
struct rules_enc_slot {
    int combatant; /* its index in combatants; -1 once it has left the encounter */
    bool aware;    /* aware at the start, so it acts in a surprise round */
};

/* struct rules_enc_reaction: a reaction a move left open (rules/encounter/reaction.h). */

/* A move paused for an asked reaction: its mover stands at (x, y) until the reactions are
 * settled; `stands`: the pause is a stand-up's, which completes once they are. */
struct rules_enc_pause {
    int mover; /* -1: none */
    int x, y;
    bool has_facing; /* the move ends facing `facing` */
    int facing;
    bool stands;
};

struct rules_encounter {
    /* The rules an event is ruled under (rules/encounter/engine.h). */
    int engine;
    const struct rules_options *rules;
    const struct rules_map *map; /* NULL: not decoded (the turn machinery does not read it) */
    bool started;                /* initiative has been rolled */
    bool surprise;               /* the first round is a surprise round */
    bool revealed;               /* its seed is revealed: it takes no more events */
    int round;                   /* 0: the surprise round */
    int turn;                    /* the slot whose turn it is; -1 before the first turn */
    int count;
    const struct rules_enc_combatant *combatants;
    int slots;
    const struct rules_enc_slot *order;
    int reaction_count;
    const struct rules_enc_reaction *reactions;
    bool awaiting_reactions; /* one of them is asked: nothing else is ruled until it is settled */
    struct rules_enc_pause paused;
};

/* The combatant with id, or -1. */
int rules_encounter_find(const struct rules_encounter *e, const char *id);

/* The combatant whose turn it is, or -1 when no turn has begun (or its slot is empty). */
int rules_encounter_turn_of(const struct rules_encounter *e);

/* Whether combatants a and b are enemies (different sides). */
bool rules_encounter_enemies(const struct rules_encounter *e, int a, int b);

/* The profile of combatant c named name (its first when name is NULL or ""), or -1. */
int rules_encounter_profile(const struct rules_enc_combatant *c, const char *name);

/* ---- what every view of an encounter derives from the state (view.c) ----
 * Each takes the encounter and combatant indices; each is the one place its question is
 * answered, for the actions, the queries, the pictures and the texts alike. */

/* Whether combatant c has a melee attack to threaten with (rules_encounter_has_melee over its
 * profiles). */
bool rules_encounter_melee_of(const struct rules_encounter *e, int c);

/* The profile combatant c makes its attacks of opportunity with (rules_encounter_aoo_profile
 * over its profiles), or -1. */
int rules_encounter_aoo_profile_of(const struct rules_encounter *e, int c);

/* Whether combatant c threatens at all now (004 Threatened Area: the area into which it can
 * make a melee attack): not down (unconscious, helpless, dying, dead: "can take no actions",
 * d20 3.5 SRD), and with the rule stunned not stunned (SRD, Stunned: "can't take actions") and with
 * a melee attack. */
bool rules_encounter_threatening(const struct rules_encounter *e, int c);

/* Whether combatant a threatens combatant b now: a threatens at all (above) and b is within its
 * reach, or only its reach weapon's ring (004 Threatened Area; 001 Reach). */
bool rules_encounter_threatens(const struct rules_encounter *e, int a, int b);

/* Whether combatant c may make an attack of opportunity now: not down, and
 * rules_encounter_may_aoo (flat-footed, stunned, the round's count, a melee attack). */
bool rules_encounter_aoo_now(const struct rules_encounter *e, int c);

/* The other combatants as combatant `me` sees them when it moves (rules/move/move.h): where
 * each stands, whether it is on me's side, whether it is up (conscious: it threatens, and may
 * not be passed through), whether it may make an attack of opportunity now
 * (rules_encounter_aoo_now: can_threaten), Combat Reflexes, and the bonus of the profile it
 * strikes with (rules_encounter_aoo_profile_of; 004: "a single melee attack"). Fills out and
 * index (each creature's combatant index), room for e->count - 1; returns how many. A
 * combatant that could not be placed is left out. */
int rules_encounter_board(const struct rules_encounter *e, int me, struct rules_map_creature *out,
                          int *index);

/* Combatant me as the mover of a move in mode with `turn` spent (NULL: a traded step, which
 * "does not count as movement"): its body, speeds, burdens, Constitution, Runner, darkvision,
 * prone, whether it moved or ran this round, then rules_encounter_mover (one action this turn:
 * the surprise round, 004 Step One; disabled, d20 3.5 SRD). */
void rules_encounter_mover_of(const struct rules_encounter *e, int me,
                              const struct rules_turn *turn, enum rules_move_mode mode,
                              struct rules_mover *out);

/* The two sides of an attack by combatant a on combatant t, as rules/attack/attack.h evaluates
 * it, from the state: the attacker's place, Combat Reflexes and prone (its profile's bonus,
 * form, damage and sneak attack are the caller's, as an iterative attack changes the bonus);
 * the defender's place, Defense and conditions (unconscious as helpless, 002; with down_helpless
 * dying or dead as helpless, d20 3.5 SRD Dying, whatever conditions were recorded); and the
 * attacker's allies that help flank (up, on its side, neither a nor t, each can_threaten as
 * rules_encounter_flanker says). target_at, when not NULL, is where the attack finds t (an
 * attack of opportunity: the square it was leaving); else where t stands. allies has room for
 * e->count; *ally_count gets how many. */
void rules_encounter_attack_sides(const struct rules_encounter *e, int a, int t,
                                  const struct rules_creature *target_at,
                                  struct rules_attacker *attacker, struct rules_defender *defender,
                                  struct rules_creature *allies, int *ally_count);

struct rules_enc_attack_gate;
/* Whether combatant a may attack combatant t now with its profile p (an attack of opportunity
 * when aoo): rules_encounter_attack_check with the attack as the state makes it (both bodies,
 * whether p is a melee attack, and whether a's charge this turn named another opponent);
 * target_at as in rules_encounter_attack_sides.
 * Returns RULES_ENC_ATTACK_OK or the refusal, with *gate filled. */
int rules_encounter_attack_gate(const struct rules_encounter *e, int a, int t, int p, bool aoo,
                                const struct rules_creature *target_at,
                                struct rules_enc_attack_gate *gate);

/* Whether combatant c resists forced movement now (001 Forced Movement: "A creature which has
 * voluntarily dropped to Prone can elect to ignore any forced movement inflicted upon it as
 * long as it remains prone. However, a creature which was made prone involuntarily gains no
 * such resistance to forced movement until it has had an opportunity to stand up"): prone, with
 * the source of its prone condition known (rules_encounter_prone_known) and either its own
 * doing or followed by a turn of its own since (it then had a move action available). It is
 * taken to elect to ignore the movement whenever it may. */
bool rules_encounter_resists_forced(const struct rules_encounter *e, int c);

/* Whether the encounter knows how combatant c became prone (an event with the rule
 * condition_sources made it so); else, as without it, a forced movement's action says whether it
 * resists. */
bool rules_encounter_prone_known(const struct rules_encounter *e, int c);

/* Whether combatant c, its turn passed over as it is dying, plays its dying round now
 * (rules_hp_dying_round): with the rule srd_dying, under hp_states srd and the option dying srd,
 * dying by its hit points and not stable. */
bool rules_encounter_bleeds(const struct rules_encounter *e, int c);

/* Whether combatant c helps an ally flank now: rules_encounter_flanks (not down; not stunned and
 * with a melee attack with flanking_ally; not flat-footed without it). */
bool rules_encounter_flanker(const struct rules_encounter *e, int c);

#endif

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

#include "rules/attack/attack.h"
#include "rules/attack/roll.h"
#include "rules/dice/dice.h"
#include "rules/encounter/hp.h"
#include "rules/encounter/kind.h"
#include "rules/encounter/state.h"
#include "rules/encounter/turn.h"
#include "rules/move/move.h"
#include "rules/options.h"

/* The kinds of event an encounter's log holds, in the order of rules_event_kind_names. */
enum rules_event_kind {
    RULES_EVENT_CREATED = 0,
    RULES_EVENT_COMBATANT_ADDED,
    RULES_EVENT_COMBATANT_UPDATED,
    RULES_EVENT_COMBATANT_REMOVED,
    RULES_EVENT_INITIATIVE,
    RULES_EVENT_NEXT_TURN,
    RULES_EVENT_ACTION,
    RULES_EVENT_REVEALED,
    RULES_EVENT_HP,
    RULES_EVENT_IMPORTED, /* an import's own last event: a copy, with a seed of its own */
    RULES_EVENT_UNDONE,   /* takes back the last event still standing (service/encounter/undo.c) */
    RULES_EVENT_KIND_COUNT
};

/* "created", "combatant_added", ... "hp", NULL-terminated. */
extern const char *const rules_event_kind_names[];

/* The kind named name, or -1. */
int rules_event_kind_of(const char *name);

enum rules_enc_status {
    RULES_ENC_OK = 0,
    RULES_ENC_STARTED = -1,       /* initiative has been rolled already */
    RULES_ENC_NO_COMBATANTS = -2, /* nothing to roll for, or nobody left in the order */
    RULES_ENC_DICE = -3,          /* too few supplied results, or one out of range */
    RULES_ENC_EXTRA_DICE = -4,    /* supplied results left over */
    RULES_ENC_NOT_STARTED = -5,   /* roll initiative first */
    RULES_ENC_NO_ONE_ACTS = -6,   /* hp_states: every combatant in the order is dying or dead */
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

/* A turn passed over because its combatant cannot act (the rule hp_states, engine.h). */
struct rules_enc_skip {
    int combatant;
    enum rules_hp_state state;
};

/* One timed effect ending: combatants[combatant].timed[timed]. */
struct rules_enc_ended {
    int combatant, timed;
};

/* The turn that begins at a next_turn event. */
struct rules_next_turn {
    int round, turn; /* its round and slot */
    int combatant;   /* the slot's combatant; -1 if it has left the encounter */
    /* What its fresh budget may spend (action_economy): a partial action in the surprise round
     * (004 Step One) or while disabled (d20 3.5 SRD, Disabled). */
    struct rules_turn_limits limits;
    int skipped_count;
    struct rules_enc_skip *skipped; /* the caller's array, room for e->slots */
    /* The timed effects that end as this turn begins (004: "Effects that last a certain number
     * of rounds end just before the same initiative count that they began on"), in combatant
     * order, then each combatant's order: the caller's array, room for every combatant's
     * timed_count. */
    int ended_count;
    struct rules_enc_ended *ended;
};

/* An action as the turn's gate reads it, before it is ruled. */
struct rules_enc_action {
    enum rules_action_type type;
    int actor;                 /* its index in combatants */
    bool aoo;                  /* an attack of kind attack_of_opportunity */
    enum rules_move_mode mode; /* a move's mode (RULES_ACT_MOVE) */
};

/* Why the gate refuses an action, in the order it checks. */
enum rules_admit_status {
    RULES_ADMIT_OK = 0,
    RULES_ADMIT_NOT_ITS_TURN = -1, /* 004 The Combat Round: turn_of acts now (-1: nobody) */
    RULES_ADMIT_DOWN = -2,         /* the actor is down: hp_state says why */
    RULES_ADMIT_ENGINE = -3,       /* the action is ruled from kind.from_engine on */
    RULES_ADMIT_NOT_PRONE = -4,    /* standing up needs a prone creature */
    RULES_ADMIT_BUDGET = -5,       /* its cost does not fit the turn: why */
    RULES_ADMIT_STUNNED = -6,      /* stunned: the actor is stunned (d20 3.5 SRD, Stunned) */
};

struct rules_admission {
    struct rules_action_kind kind;
    int turn_of; /* RULES_ADMIT_NOT_ITS_TURN: the combatant whose turn it is, or -1 */
    /* RULES_ADMIT_DOWN: the actor's hit point state now (up: it is unconscious or helpless;
     * else dying or dead: SRD "can take no actions"). */
    enum rules_hp_state hp_state;
    /* Admitted: whether it spent `cost` from the actor's turn (action_economy, once initiative
     * is rolled; rules_action_kind_of, rules_move_cost), and then the turn after it and its
     * limits; RULES_ADMIT_BUDGET: the turn as it was, its limits, and why. */
    bool spends;
    enum rules_action cost;
    struct rules_turn turn;
    struct rules_turn_limits limits;
    struct rules_turn_refusal why;
};

/* The turn's gate (004 The Combat Round; 001 Types of Movement): whether action a may be taken
 * now, and what it spends. In order: once initiative is rolled, only on the actor's own turn,
 * unless it is a reaction or happens to a creature at any time (rules_action_kind_of); a
 * creature down (or, with the rule stunned, stunned) takes no actions but those taken while
 * down; stand_up and full_attack with action_economy; standing up only from prone (001 Part of a
 * Move Action); then the cost, spent from the actor's turn (turn.h), with a partial action in the
 * surprise round (004 Step One) or while disabled (d20 3.5 SRD, Disabled). Returns RULES_ADMIT_OK
 * or the refusal, *out filled. */
int rules_encounter_admit(const struct rules_encounter *e, const struct rules_enc_action *a,
                          struct rules_admission *out);

/* Whether combatant c (of encounter e) may make an attack of opportunity now: not while flat-footed
 * (004 Flat-Footed: "A flat-footed combatant can't make attacks of opportunity") unless, with
 * reflexes_flat, it has Combat Reflexes (SRD: "you may also make attacks of opportunity while
 * flat-footed"), nor (stunned) while stunned (SRD, Stunned); with aoo_per_round, at most
 * rules_aoo_per_round a round (004: "a combatant can only make one per round"; d20 3.5 SRD,
 * Combat Reflexes), *made and *allowed telling how many; without it, one a round unless it has
 * Combat Reflexes. */
enum rules_aoo_status {
    RULES_AOO_OK = 0,
    RULES_AOO_FLAT_FOOTED = -1,
    RULES_AOO_SPENT = -2,
    RULES_AOO_STUNNED = -3, /* stunned: SRD, Stunned: "can't take actions" */
};
/* What an attack ruled in an encounter does beyond its ruling: the attack's consequences as the
 * encounter keeps them (the caller encodes them as the event's effects). */
struct rules_attack_after {
    bool damaged;          /* damage went to the target */
    long long target_hp;   /* the target's hit points after it */
    bool stopped;          /* an attack of opportunity left the mover unable to act: its move
                              stops in the square it was leaving (004; d20 3.5 SRD, Dying) */
    int aoo_made;          /* an attack of opportunity: the attacker's count this round after it */
    int strain;            /* strain: the hit points a disabled attacker pays (rules_hp_strain) */
    long long attacker_hp; /* the attacker's hit points after the strain */
};

/* The consequences of an attack by attacker on target (combatants of e) that dealt `dealt` to
 * the target when to_target (else to cover, or nothing); aoo: an attack of opportunity, made
 * after `made` others this round. */
void rules_encounter_attack_after(const struct rules_encounter *e,
                                  const struct rules_enc_combatant *attacker,
                                  const struct rules_enc_combatant *target, bool aoo, int made,
                                  bool to_target, int dealt, struct rules_attack_after *out);

/* The part of rules_encounter_aoo_check that is the combatant's own state, whatever it made this
 * round: not flat-footed (or, with reflexes_flat, with Combat Reflexes), and (stunned) not
 * stunned. */
bool rules_encounter_makes_aoo(int engine, const struct rules_enc_combatant *c);

int rules_encounter_aoo_check(const struct rules_encounter *e, const struct rules_enc_combatant *c,
                              int *made, int *allowed);

/* 004 Combat Sequence, Step Three: "Combatants act in initiative order"; Step Four: "When
 * everyone has had a turn, the combatant with the highest initiative acts again": the next
 * slot whose combatant acts, and after the last a new round from the first. In the surprise
 * round only the aware act (004 Step One); under hp_states a dying or dead combatant's turn is
 * skipped (d20 3.5 SRD: a dying character "is unconscious and can take no actions"), at most
 * e->slots skips recorded. (A slot whose combatant is -1 is passed over under leaving too;
 * the service's order never holds one: removal closes it up.) The combatant whose turn begins
 * stops being flat-footed (004 Flat-Footed says each combatant is flat-footed "at the start of
 * a battle"; d20 3.5 SRD, Flat-Footed: until it first acts): the caller records it.
 * RULES_ENC_NO_COMBATANTS when the order is empty. */
int rules_encounter_next_turn(const struct rules_encounter *e, struct rules_next_turn *out);

/* When an effect of `rounds` rounds begun at (round, turn) ends: 004, "Effects that last a
 * certain number of rounds end just before the same initiative count that they began on."
 * It has ended once a turn at or past (*end_round, *end_turn) begins. */
void rules_duration_end(int round, int turn, int rounds, long long *end_round, int *end_turn);

/* Whether an effect that ends at (end_round, end_turn) has ended when the turn (round, turn)
 * begins. */
bool rules_duration_ended(long long end_round, long long end_turn, long long round, long long turn);

/* Where a creature may stand, in an encounter and in every movement request: its whole space on
 * the map (squares or hexes, rules_body_squares), none of it in blocked terrain (001 Blocked
 * Terrain: "terrain it is impossible to move into"), sharing no square with another creature
 * unless one of the two is 2 size categories or more larger than the other (001 Walk: a move
 * never ends in an occupied space; 001 Stepover: "If a creature is 2 size categories or larger
 * than a nearby creature, it can effectively ignore that creature when moving ... ending its
 * move either on or past the smaller creature"; 001 Internal Flanking: "it is possible for
 * smaller foes to be inside the space of a larger figure"). Returns, checked in this order,
 * RULES_PLACE_OFF_MAP, the index in others of the first creature it may not share with,
 * RULES_PLACE_BLOCKED (*bx, *by: the first such square; either may be NULL), then, when
 * move_types (bits 1u << enum rules_move_type; RULES_ANY_MOVE_TYPE when its speeds are not
 * known) has none able to enter a square's terrain (rules_terrain_move_types: earth without a
 * burrow speed, water without swim or fly, air without fly), RULES_PLACE_TERRAIN (*bx, *by
 * again), or RULES_PLACE_OK. */
#define RULES_PLACE_OK       (-1)
#define RULES_PLACE_OFF_MAP  (-2)
#define RULES_PLACE_BLOCKED  (-3)
#define RULES_PLACE_TERRAIN  (-4) /* terrain none of its movement types enters */
#define RULES_TERRAIN_SOURCE "001 Alternative Movement Types"
#define RULES_BLOCKED_SOURCE "001 Blocked Terrain: \"terrain it is impossible to move into\""
int rules_place_conflict(const struct rules_options *o, const struct rules_map *m,
                         const struct rules_creature *me, unsigned move_types,
                         const struct rules_creature *others, int count, int *bx, int *by);

/* Whether creatures a and b may not stand where they are together: their spaces overlap and
 * neither is 2 size categories or more larger than the other (001 Stepover). */
bool rules_bodies_clash(const struct rules_options *o, const struct rules_creature *a,
                        const struct rules_creature *b);

/* d20 3.5 SRD, Combat: Charge (the seeds give the charge no rule beyond 001's terrain): "You
 * must move at least 10 feet (2 squares) and may move up to double your speed directly toward
 * the designated opponent", "to the closest space from which you can attack the opponent".
 * Whether mover's path (n steps, each square in turn; facing ignored) is such a charge at
 * target: at least 2 steps, every one nearer the target than the last (directly toward it; the
 * SRD's further test, that no line from the start to the end crosses a blocking square or a
 * creature, is not drawn), ending at the first square from which it threatens the target. *at
 * gets the first step that goes wrong (AWAY, PAST). */
#define RULES_CHARGE_SOURCE "d20 3.5 SRD, Combat: Charge"
enum rules_charge {
    RULES_CHARGE_OK = 0,
    RULES_CHARGE_SHORT = -1, /* under 2 squares */
    RULES_CHARGE_AWAY = -2,  /* a step not nearer the target */
    RULES_CHARGE_AFAR = -3,  /* it ends where it cannot attack the target */
    RULES_CHARGE_PAST = -4,  /* it goes on past the first space from which it could attack
                                ("the closest space from which you can attack the opponent") */
};
int rules_charge_check(const struct rules_options *o, const struct rules_creature *mover,
                       const struct rules_step *steps, int n, const struct rules_creature *target,
                       int *at);

/* What a legal move in `mode` leaves on its mover's turn and conditions, beyond its square:
 * a 5-foot step is its free step (001 5-Foot Step); anything else is movement, and a run marks
 * the turn as run and (001 Run) "they gain the flat-footed condition until the start of their
 * next turn, unless they have the Runner (Feat)". */
struct rules_move_marks {
    bool stepped, moved, ran;
    bool flat_footed;
};
void rules_move_marks_of(enum rules_move_mode mode, bool runner, struct rules_move_marks *out);

/* An attack in an encounter, as its combatant makes it (an attack action, one of a full
 * attack's, or an attack of opportunity answering a provoking move), before it is rolled. */
struct rules_enc_attack {
    const struct rules_creature *attacker, *target; /* where each stands (the target: for an
                                                       attack of opportunity, where it was) */
    bool aoo;                                       /* kind attack_of_opportunity */
    bool melee; /* the profile is a melee attack (not ranged, not a spell) */
    /* The attacker's turn named a charge's designated opponent other than this target. */
    bool charge_elsewhere;
};

enum rules_enc_attack_status {
    RULES_ENC_ATTACK_OK = 0,
    /* A melee attack reaches the squares its attacker threatens (004 Threatened Area; 001
     * Reach); on its own action a combatant swings whether or not it could make attacks of
     * opportunity. */
    RULES_ENC_ATTACK_REACH = -1,
    /* The rule melee_aoo, 004: "An attack of opportunity is a single melee attack". */
    RULES_ENC_ATTACK_AOO_MELEE = -2,
    /* rules_encounter_aoo_check's refusals: stunned (the rule stunned), flat-footed, spent
       (out->made). */
    RULES_ENC_ATTACK_AOO_STUNNED = -3,
    RULES_ENC_ATTACK_AOO_FLAT_FOOTED = -4,
    RULES_ENC_ATTACK_AOO_SPENT = -5,
    /* The rule charge, d20 3.5 SRD, Charge: the charge's one attack is a melee attack at its
     * designated opponent. */
    RULES_ENC_ATTACK_CHARGE_TARGET = -6,
    RULES_ENC_ATTACK_CHARGE_MELEE = -7,
};

struct rules_enc_attack_gate {
    int made, allowed;  /* an attack of opportunity: the attacker's this round, and its limit */
    bool charge_attack; /* it is the charge's attack: +2 (the attacker condition charging) */
};

/* Whether a melee swing of attacker reaches target (004 Threatened Area; 001 Reach): the squares
 * it threatens, its reach or only its reach weapon's ring, whether or not it could make attacks
 * of opportunity now (flat-footed): on its own action it swings all the same. */
bool rules_encounter_reaches(const struct rules_options *o, const struct rules_creature *attacker,
                             const struct rules_creature *target);

/* Whether attacker (a combatant of e) may make attack a now, in the order of the statuses above,
 * and what it is (out). Returns RULES_ENC_ATTACK_OK or the refusal. */
int rules_encounter_attack_check(const struct rules_encounter *e,
                                 const struct rules_enc_combatant *attacker,
                                 const struct rules_enc_attack *a,
                                 struct rules_enc_attack_gate *out);

/* The attack itself, as rules/attack.h evaluates it and rules/attack_roll.h rolls it. */
struct rules_enc_attack_roll {
    const struct rules_attacker *attacker; /* charging is set from the gate's charge_attack */
    const struct rules_defender *defender;
    const struct rules_creature *allies; /* the attacker's side that can flank */
    int ally_count;
    enum rules_cover cover;
    const enum rules_concealment *concealments;
    int concealment_count;
    const struct rules_attack_roll_params *params;
    const struct rules_dice_expr *damage; /* NULL: no damage dice */
};

/* An attack's ruling and what it leaves on the encounter. */
struct rules_enc_attack_ruling {
    int evaluate_rc; /* rules_attack_evaluate's answer */
    int roll_rc;     /* rules_attack_roll's answer */
    struct rules_attack_eval ev;
    struct rules_attack_rolled rolled;
    struct rules_attack_after after;
};

#define RULES_ENC_ATTACK_EVALUATE (-8) /* rules_attack_evaluate refused it: out->evaluate_rc */
#define RULES_ENC_ATTACK_ROLL     (-9) /* rules_attack_roll refused the dice: out->roll_rc */

/* An encounter's attack by attacker on target (combatants of e), admitted by
 * rules_encounter_attack_check (gate): every modifier (rules_attack_evaluate, the charge's +2
 * when gate->charge_attack), the roll from d (rules_attack_roll), and what it leaves
 * (rules_encounter_attack_after: hit points, a stopped mover, the round's attacks of
 * opportunity, a disabled attacker's strain). Returns RULES_ENC_ATTACK_OK, EVALUATE or ROLL. */
int rules_encounter_attack(const struct rules_encounter *e,
                           const struct rules_enc_combatant *attacker,
                           const struct rules_enc_combatant *target, bool aoo,
                           const struct rules_enc_attack_gate *gate,
                           const struct rules_enc_attack_roll *roll, struct rules_dice *d,
                           struct rules_enc_attack_ruling *out);

/* The attack profile a combatant makes its attacks of opportunity with, of the n it lists
 * (melee[i]: profile i is a melee attack): its first without the rule melee_aoo; with it its
 * first melee one (004: "An attack of opportunity is a single melee attack"), -1 when it has none.
 */
int rules_encounter_aoo_profile(int engine, const bool *melee, int n);

/* Whether a combatant listing those n profiles has a melee attack to threaten with (004
 * Threatened Area: "the area into which it can make a melee attack"): without the rule
 * melee_aoo always; with it it needs a melee profile, and one listing no profile at all is taken to
 * have one (the project's choice where the documents are silent: a combatant described without its
 * weapons is not known to be unarmed). */
bool rules_encounter_has_melee(int engine, const bool *melee, int n);

/* Whether combatant c of e may make an attack of opportunity now: rules_encounter_makes_aoo
 * without the rule melee_aoo; with it rules_encounter_aoo_check (not flat-footed without Combat
 * Reflexes, not stunned, not spent this round) and a melee attack (has_melee). */
bool rules_encounter_may_aoo(const struct rules_encounter *e, const struct rules_enc_combatant *c,
                             bool has_melee);

/* Whether c helps an ally flank (004 Flanking: the ally must threaten): not down; without the
 * rule flanking_ally not flat-footed; with it flat-footed or not (004 Threatened Area: a combatant
 * threatens "even when it is not a combatant's action"), but not stunned (SRD, Stunned) and with a
 * melee attack. */
bool rules_encounter_flanks(int engine, const struct rules_enc_combatant *c, bool has_melee);

/* With stand_up_provokes: whether standing up provokes an attack of opportunity from c (body: where
 * it stands) against the creature standing up (whom): c is up, may make one now
 * (rules_encounter_may_aoo) and threatens it (004 Provoking an Attack of Opportunity by Taking
 * an Action; d20 3.5 SRD, Actions in Combat: standing up from prone provokes). */
bool rules_encounter_stand_up_provokes(const struct rules_encounter *e,
                                       const struct rules_enc_combatant *c, bool has_melee,
                                       const struct rules_creature *body,
                                       const struct rules_creature *whom);

/* A move in an encounter (a move action in any mode, a 5-foot step), as its combatant asks it,
 * on the state before it. */
struct rules_enc_move {
    /* The move: the encounter's map, every other combatant (creatures: ally is the mover's side,
     * conscious is up, can_threaten whether it may make an attack of opportunity now:
     * rules_encounter_makes_aoo, and with melee_aoo rules_encounter_aoo_check with a melee
     * attack), the mover (after rules_encounter_mover), the mode and a withdraw's primary
     * target. */
    const struct rules_move_query *q;
    const struct rules_step *steps; /* the path, each square in turn (the start excluded) */
    int n;
    int end_facing;    /* -1: keep the last step's */
    bool target_named; /* the action names a target (a charge's designated opponent) */
    int target;        /* its index in q->creatures (below creature_count); -1 when it names none */
    bool has_melee;    /* the mover has a melee attack to end a charge with */
    bool runner;       /* the mover has the Runner feat (001 Run) */
    bool charging;     /* the mover is charging already (its -2 AC runs on) */
};

enum rules_enc_move_status {
    RULES_ENC_MOVE_OK = 0,
    /* The rule charge (d20 3.5 SRD, Combat: Charge): a charge names its designated opponent, an
     * enemy that is up; it ends in a melee attack. TARGET: a target named by a move that is no
     * charge is refused (the project's choice, where the documents are silent: a stray member would
     * otherwise be stored unread). */
    RULES_ENC_MOVE_NO_OPPONENT = -1,
    RULES_ENC_MOVE_NO_MELEE = -2,
    RULES_ENC_MOVE_TARGET = -3,
    RULES_ENC_MOVE_ILLEGAL = -4, /* the path ruling found it illegal: out->path says why */
    RULES_ENC_MOVE_CHARGE = -5,  /* charge: not a charge's path: out->charge, out->charge_at */
    RULES_ENC_MOVE_NOMEM = -6,
};

/* What a move rules, and what it leaves on the encounter (the caller encodes the effects). */
struct rules_enc_move_ruling {
    struct rules_path_result path; /* the caller's arrays: steps (n), aoos (creature_count) */
    int charge, charge_at;         /* RULES_ENC_MOVE_CHARGE: rules_charge_check's answer */
    int end_x, end_y, end_facing;  /* where the mover ends (end_facing -1: it has none) */
    struct rules_move_marks marks; /* on its turn and conditions (rules_move_marks_of) */
    /* The rule charge, d20 3.5 SRD, Charge: "take a -2 penalty to your AC until the start of your
     * next turn": a one-round charging condition begins (rules_duration_end), unless it runs on. */
    bool charging;
    long long charging_end_round;
    int charging_end_turn;
};

/* The mover a move is ruled with, from the combatant's own state (mv, changed in place): without
 * the rule crawl a prone creature moves as if standing (only a crawl is told it is prone), as
 * its stored rulings keep; with the rule charge a creature with one action this turn
 * (single_action: the surprise round, 004 Step One; disabled, d20 3.5 SRD) charges up to its speed
 * (SRD, Charge: "you can still charge, but you are only allowed to move up to your speed"). */
void rules_encounter_mover(int engine, enum rules_move_mode mode, bool single_action,
                           struct rules_mover *mv);

/* Rules the move m of encounter e: with the rule charge, a charge's opponent and melee attack
 * first, then the path (rules_move_path: cost, legality and the attacks of opportunity it
 * provokes), then a charge's path (rules_charge_check), and what the move leaves. Returns
 * RULES_ENC_MOVE_OK, or why it is refused (out->path is filled from ILLEGAL on). */
int rules_encounter_move(const struct rules_encounter *e, const struct rules_enc_move *m,
                         struct rules_enc_move_ruling *out);

/* rules_encounter_move's first checks, on what the move names before its path: the charge's
 * designated opponent and melee attack, and a target named by a move that is no charge
 * (the rule charge). Returns RULES_ENC_MOVE_OK or NO_OPPONENT, NO_MELEE, TARGET; m->steps unread.
 */
int rules_encounter_move_target(const struct rules_encounter *e, const struct rules_enc_move *m);

/* 001 Trade Away Attacks From A Full Attack Action: "A player character that declares a Full
 * Attack Action may use attack actions to perform 5-foot steps, up to a maximum number of times
 * equal to the number of attack actions" it has, and each step taken reduces the attacks left;
 * the steps "'use up' the worst to-hit numbers", so the attacks made keep the best bonuses, in
 * order; such steps "do not count as movement"; "Monsters cannot trade attack actions for
 * 5-foot steps". Whether a full attack of `iterative` attacks may make `attacks` attacks and
 * `steps` traded steps. */
#define RULES_TRADE_SOURCE "001 Trade Away Attacks From A Full Attack Action"
enum rules_trade {
    RULES_TRADE_OK = 0,
    RULES_TRADE_MONSTER = -1,  /* steps by a creature that is not a player character */
    RULES_TRADE_TOO_MANY = -2, /* attacks and steps past the iterative attacks */
};
int rules_full_attack_trade(int iterative, int attacks, int steps, bool player_character);

/* A full attack's plan, item by item (001 Trade Away Attacks From A Full Attack Action; with
 * the rule full_attack_plans, 000 Changing Facing: Kroh may "attack the bugbear, take his free
 * action to change facing towards the goblin, then attack the goblin"): an attack (on the action's
 * target, or with full_attack_plans another's), a traded 5-foot step, or the turn's free facing
 * change. */
enum rules_plan_kind { RULES_PLAN_ATTACK = 0, RULES_PLAN_STEP, RULES_PLAN_FACING };
struct rules_plan_item {
    enum rules_plan_kind kind;
    int target; /* an attack's target, a combatant index; -1: the action's */
    int facing; /* a facing change's new facing */
};
/* The items a plan holds: 4 attacks or steps without full_attack_plans; with it a facing change
 * between any two as well. */
#define RULES_PLAN_MAX        8
#define RULES_PLAN_MAX_NARROW 4

enum rules_plan_status {
    RULES_PLAN_OK = 0,
    RULES_PLAN_LENGTH = -1,   /* more items than the engine's plan holds, or none */
    RULES_PLAN_WIDER = -2,    /* out->item: a facing or another target, without full_attack_plans */
    RULES_PLAN_MONSTER = -3,  /* steps by a creature that is not a player character */
    RULES_PLAN_TOO_MANY = -4, /* attacks and steps past the iterative attacks */
    RULES_PLAN_NO_FACING = -5,    /* out->item: the actor has no facing, or F is no facing */
    RULES_PLAN_FACING_SPENT = -6, /* out->item: its one free facing change is spent */
    RULES_PLAN_SELF = -7,         /* out->item: an attack on the actor itself */
};

struct rules_full_attack_plan {
    int iterative; /* the attacks its base attack bonus gives (rules_iterative_attacks) */
    int attacks, steps, facings;
    int item; /* the item a refusal is about; -1: the whole plan */
    /* Per item: an attack's place among the attacks (its iterative penalty is
     * rules_iterative_penalty of it: each step "uses up" the worst attack left, so the attacks
     * made keep the best bonuses, in order), else -1. */
    int attack_of[RULES_PLAN_MAX];
};

/* Checks the plan of n items of combatant `actor`'s full attack at `target` (its action's),
 * whose turn is `turn` after the full attack's own cost under `limits` (rules_encounter_admit):
 * the items the engine allows, the trade (rules_full_attack_trade), each attack's target, and
 * each facing change as the turn's one free one (spent in *turn, 000 Changing Facing: a
 * further one takes a move action, which a full attack leaves none of). */
int rules_encounter_full_attack_plan(const struct rules_encounter *e, int actor, int target,
                                     const struct rules_plan_item *items, int n,
                                     struct rules_turn *turn,
                                     const struct rules_turn_limits *limits,
                                     struct rules_full_attack_plan *out);

/* The attacks a full attack makes with base attack bonus bab: one, and one more at each of +6,
 * +11 and +16 (d20 3.5 SRD, Full Attack: "an additional attack at base attack bonus +6, +11 and
 * +16"), each 5 less than the one before. */
int rules_iterative_attacks(int bab);

/* The change to the attack bonus of the i-th iterative attack (0 for the first): 5 less for
 * each before it (d20 3.5 SRD, Full Attack). */
int rules_iterative_penalty(int i);

/* Hit points changed from outside the fight (the hp event): set to `value` (set) or changed
 * by it. Healing stops at max_hp (d20 3.5 SRD, Healing: "can't restore hit points past your
 * full normal hit point total"); a creature already above it keeps what it has. Never below
 * RULES_HP_MIN. *capped: healing was cut short. */
long long rules_hp_after(long long before, long long max, bool set, long long value, bool *capped);

#endif

/* Movement on a map: effective speed, the price and legality of a path, every reachable
 * square, the best route, and forced movement.
 *
 * Sources, each cited again where it is used:
 *   001 General Movement Rules, Walk, Double Move, Run, 5-Foot Step, Crawling, Stepover,
 *       Withdraw, Space and Reach (gaps), Combining Movement Types, Encumbrance, Squeezing,
 *       Difficult / Impeded / Blocked / Hazardous Terrain, Cutting Corners, Occupied Squares,
 *       Threatened Area, Forced Movement (Push, Pull, Slide), Forced Movement In 3-D;
 *   000 Facing and Movement (moving into one's flank or rear costs double; 5-foot steps),
 *       Attacks of Opportunity figures 1 to 3;
 *   004 Attacks of Opportunity (provoking by moving, the starting square, one per round).
 *
 * Decisions where the documents are silent (also in the API documentation):
 *  - Squares into difficult terrain "count as two squares": the step's own price doubles, so
 *    a diagonal that counts 10 ft under the alternating rule costs 20 ft there. Moving into
 *    one's flank or rear (000) doubles the price again.
 *  - Impeded terrain takes "a full-round action to move 5 feet": a step into it is legal only
 *    as the whole of a double move (the full-round movement action), and uses all of it.
 *  - A charge moves like a run over terrain (001: no running or charging through difficult
 *    terrain) and up to twice speed; no document gives the charge's distance, twice speed is
 *    the d20 rule it comes from.
 *  - Under 003 a creature "declares its facing at the end of the movement": while moving it
 *    faces the way it moves, and turning costs nothing.
 *  - Armor and load penalties (001 Encumbrance) apply to the Walk speed, which is the speed
 *    001's text names ("if your Walk speed is above 20 feet").
 *  - Ground squares are entered walking or flying, water swimming or flying, air flying, and
 *    earth burrowing; every square a large creature enters must suit one movement type.
 *  - Unconscious creatures and allies may be passed through, never ended on (001 Walk), unless
 *    the mover is two size categories larger (001 Stepover).
 *  - "Prefer fewest attacks of opportunity" counts provoking steps: a step that leaves a
 *    square threatened by an enemy counts once (001 Double Move: one attack per enemy per
 *    action; the attacks actually provoked are then listed for the path found). */
#ifndef TACTICS_RULES_MOVEMENT_H
#define TACTICS_RULES_MOVEMENT_H

#include <stdint.h>

#include "rules/attack/attack.h"
#include "rules/board/map.h"

/* The movement types (bits 1u << enum rules_move_type) able to enter terrain t: water swim or
 * fly, air fly, earth burrow, blocked none, any other walk or fly (001 Alternative Movement
 * Types: "these movement types do not provide any useful benefits to movement outside of their
 * native element"; 001 Blocked Terrain). */
unsigned rules_terrain_move_types(enum rules_map_terrain t);

/* Every movement type: a creature whose speeds are not known. */
#define RULES_ANY_MOVE_TYPE ((1u << 5) - 1u)

enum rules_move_type {
    RULES_MOVE_WALK = 0,
    RULES_MOVE_SWIM,
    RULES_MOVE_CLIMB,
    RULES_MOVE_FLY,
    RULES_MOVE_BURROW,
    RULES_MOVE_TYPES
};

const char *rules_move_type_name(enum rules_move_type t);
/* "walk", "swim", "climb", "fly", "burrow": the types by name in enum order, NULL-terminated (for
 * decoders: a speed of each). */
extern const char *const rules_move_type_names[];

enum rules_move_mode {
    RULES_MODE_MOVE = 0, /* a move action: speed */
    RULES_MODE_DOUBLE,   /* 001 Double Move: twice speed */
    RULES_MODE_RUN,      /* 001 Run / Encumbrance: the run multiplier */
    RULES_MODE_CHARGE,   /* twice speed, no difficult terrain */
    RULES_MODE_STEP,     /* 001 5-Foot Step */
    RULES_MODE_WITHDRAW, /* 001 Withdraw: speed, always away from the primary target */
    RULES_MODE_CRAWL,    /* 001 Crawling: 5 ft while prone */
    RULES_MODE_COUNT
};

/* "move", "double_move", "run", "charge", "five_foot_step", "withdraw", "crawl": the modes by
 * name in enum order, NULL-terminated (for decoders). */
extern const char *const rules_move_mode_names[];
const char *rules_move_mode_name(enum rules_move_mode m);

/* Armor category or load (001 Encumbrance: "exactly as the armor of the same name"). */
enum rules_burden { RULES_BURDEN_LIGHT = 0, RULES_BURDEN_MEDIUM, RULES_BURDEN_HEAVY };

/* Another creature on the map. */
struct rules_map_creature {
    struct rules_creature c;
    bool ally;      /* on the mover's side */
    bool conscious; /* false: threatens nothing and may be passed through */
    bool combat_reflexes;
    int attack_bonus; /* for the attacks of opportunity it makes */
};

/* The creature that moves. speed[] are base speeds in feet (0: none). */
struct rules_mover {
    struct rules_creature c;
    int speed[RULES_MOVE_TYPES];
    enum rules_burden armor, load;
    int constitution;
    bool runner, darkvision, blinded, prone;
    bool moved;  /* has already moved this round */
    bool ran;    /* has declared a run this round */
    bool turned; /* has used its one free facing change this turn (000) */
    /* It has taken another action this turn before this move (an attack, a move action,
     * standing up): 004's starting square is safe only "if all a combatant does is take a
     * normal move or a double move (not a run)". */
    bool acted;
    int extra_steps; /* 5-foot steps granted by class features and the like */
    /* It may take only one action this turn (the surprise round, disabled): a charge then
     * moves up to its speed, not double (d20 3.5 SRD, Combat: Charge). */
    bool single_action;
    struct rules_defense ac; /* its Defense against attacks of opportunity (all 0: 10 + size) */
};

/* 001 Encumbrance and Run: the speeds a mover has. */
struct rules_speed {
    int base_walk_ft;
    int armor_penalty_ft, load_penalty_ft;
    int walk_ft;      /* after both, at least 0 */
    bool move_action; /* false: penalties reduced Walk to 0; 5 ft takes a standard action */
    int run_multiplier;
    const char *run_rule;
    int run_ft;
    int run_rounds;     /* rounds of running before Might checks: the Constitution score */
    bool step_possible; /* a 5-foot step this round, wherever it goes */
    int step_violation; /* enum rules_move_violation when not possible */
    const char *step_reason;
};

void rules_speed_eval(const struct rules_options *o, const struct rules_mover *m,
                      struct rules_speed *out);

/* The Might DC to keep running on check number n (0-based) after the free rounds: 30 + 2n. */
int rules_run_check_dc(int n);

/* Why a step or a path is illegal. */
enum rules_move_violation {
    RULES_MV_OFF_MAP = 0,
    RULES_MV_NOT_ADJACENT,
    RULES_MV_BLOCKED,
    RULES_MV_CORNER,
    RULES_MV_ENEMY_SQUARE,
    RULES_MV_GAP,
    RULES_MV_NO_SPEED,
    RULES_MV_OUT_OF_MOVEMENT,
    RULES_MV_RUN_TERRAIN,
    RULES_MV_IMPEDED,
    RULES_MV_STEP_TERRAIN,
    RULES_MV_STEP_CONCEALED,
    RULES_MV_STEP_SLOW,
    RULES_MV_STEP_MOVED,
    RULES_MV_STEP_LENGTH,
    RULES_MV_STEP_FACING,
    RULES_MV_WITHDRAW_CLOSER,
    RULES_MV_WITHDRAW_TARGET,
    RULES_MV_BLIND,
    RULES_MV_NOT_PRONE,
    RULES_MV_PRONE, /* a prone creature moves only by crawling */
    RULES_MV_END_OCCUPIED,
    RULES_MV_NO_MOVE_ACTION,
    RULES_MV_COUNT
};

/* A stable code ("blocked"), a one-line explanation, and its document and section. */
const char *rules_move_violation_code(enum rules_move_violation v);
const char *rules_move_violation_text(enum rules_move_violation v);
const char *rules_move_violation_source(enum rules_move_violation v);

/* Why a step costs what it does (bits). */
#define RULES_COST_DIAGONAL_DOUBLE 0x01u /* 000: every other diagonal counts double */
#define RULES_COST_DIFFICULT       0x02u /* 001 Difficult Terrain: x2 */
#define RULES_COST_SQUEEZE         0x04u /* 001 Squeezing: counts as difficult terrain */
#define RULES_COST_IMPEDED         0x08u /* 001 Impeded Terrain: the full round */
#define RULES_COST_BACKWARD        0x10u /* 000: into one's flank or rear area, x2 */
#define RULES_COST_HAZARDOUS       0x20u /* 001 Hazardous Terrain: no cost, but it is entered */
#define RULES_COST_STEPOVER        0x40u /* 001 Stepover: a creature ignored */
#define RULES_COST_FIVE_FOOT       0x80u /* 001 5-Foot Step: one square */

/* A work budget for the searches (reach, fewest attacks, route, path), in two counts, each
 * with its own limit (0: none), which the searches advance and check as they go:
 *  - states (limit, used): each state a search sets up (per layer of the fewest-attacks
 *    search), each state it expands (a square expanded with facing counts its 8 or 6 facings;
 *    a step priced square by square counts more, and the more squares it looks at:
 *    rules_move_expand_units; a route's A* expansion counts 2), each step walked back to list
 *    a reached square's path,
 *    and each enemy looked at to list a step's attacks of opportunity;
 *  - threatened squares (threat_limit, threat_used): each square tested for whether an enemy
 *    threatens it when a search sets up its window (both passes). It is known before the test
 *    (rules_move_threat_tests) and charged before any, so a board whose enemies threaten more
 *    than the limit is refused before the work.
 * Past a limit the searches stop with RULES_MOVE_TOO_EXPENSIVE and the count is the figure
 * reached (rules_work_spent says which). One budget may span several calls. */
struct rules_work {
    long long limit;
    long long used;
    long long threat_limit;
    long long threat_used;
};

/* Which count of w is past its limit ("search_states" or "threatened_squares", the names the
 * service answers with), its limit and the figure reached; NULL when neither is. */
const char *rules_work_spent(const struct rules_work *w, long long *limit, long long *reached);

/* What a movement request brings. */
struct rules_move_query {
    const struct rules_options *o;
    const struct rules_map *map;
    const struct rules_map_creature *creatures;
    int creature_count;
    const struct rules_mover *mover;
    enum rules_move_mode mode;
    int primary_target;      /* withdraw: index into creatures; -1 otherwise */
    const bool *no_attack;   /* NULL, or per creature: may not attack (a withdraw check) */
    struct rules_work *work; /* NULL: no work budget */
};

#define RULES_MAX_PATH 10000

struct rules_step {
    int x, y;
    int facing; /* in: -1 to face the way of the step; out: the facing held on the step */
};

struct rules_step_result {
    int x, y, facing;
    int cost_ft, spent_ft; /* this step; the total after it */
    enum rules_move_type type;
    unsigned why;        /* RULES_COST_* */
    uint32_t violations; /* bits of enum rules_move_violation */
};

struct rules_aoo {
    int creature; /* index into creatures */
    int step;     /* index of the step that leaves the threatened square */
    int from_x, from_y;
    int facing; /* the mover's facing as it leaves */
    struct rules_attack_eval eval;
};

struct rules_path_result {
    bool legal;
    uint32_t action_violations; /* about the action, not a step */
    int total_ft;
    int budget_ft[RULES_MOVE_TYPES]; /* what the action allows per type */
    int remaining_ft[RULES_MOVE_TYPES];
    int end_facing;
    int steps_in_budget;             /* steps taken before the first out-of-movement step */
    struct rules_step_result *steps; /* caller's array of the path's length */
    struct rules_aoo *aoos;          /* caller's array of creature_count entries */
    int aoo_count;
};

enum rules_move_status {
    RULES_MOVE_OK = 0,
    RULES_MOVE_ERR_NOMEM = -1,
    RULES_MOVE_TOO_EXPENSIVE = -2, /* the query's work budget ran out (see rules_work) */
};

/* The attack of opportunity of creature k on q's mover as it leaves (x, y) facing f, with its
 * positional modifiers (000 Attacks of Opportunity figures; 003; 002); the other conscious
 * enemies help flank. allies: scratch room for creature_count creatures. */
void rules_move_aoo_evaluate(const struct rules_move_query *q, int k, int x, int y, int f,
                             struct rules_creature *allies, struct rules_attack_eval *out);

/* Prices and checks a path (steps exclude the start). end_facing -1 keeps the last facing. */
int rules_move_path(const struct rules_move_query *q, const struct rules_step *steps, int n,
                    int end_facing, struct rules_path_result *out);

/* Every square the mover can end on. */
struct rules_reach_square {
    int x, y;
    int cost_ft;
    int provoking_steps;
    uint8_t facings; /* bit f: facing f possible there */
};

struct rules_reach;

/* What a search will cost, from the query alone, before any work (the service admits and
 * refuses by it, and the searches charge these figures first):
 *  - states: the states a reach sets up (its window, times facings and parities; the first
 *    layer of a fewest-attacks search), which it may also expand: a route, whose search is
 *    not known in advance, gives those of the whole map (the most it can set up);
 *  - threat_tests: the squares tested for a threat (rules_move_threat_tests of its window);
 *  - expand_units: what expanding one state counts (rules_move_expand_units). */
struct rules_move_estimate {
    long long states;
    long long threat_tests;
    int expand_units;
};
/* What expanding one state counts when its steps are priced square by square (a mover larger
 * than a square, hexes, a withdrawal, a 5-foot step): one, plus for every direction two and
 * one per 12 squares its step looks at. A plain expansion counts one (a route's, two). */
int rules_move_expand_units(const struct rules_move_query *q);

void rules_move_reach_estimate(const struct rules_move_query *q, bool prefer_fewest_aoo,
                               struct rules_move_estimate *out);
void rules_move_route_estimate(const struct rules_move_query *q, struct rules_move_estimate *out);

/* The squares tested for a threat when the enemies' threatened squares are set up over the
 * window [x0, x1) x [y0, y1) (clipped to the map): over every enemy that may attack, the
 * squares of the box its reach can touch that lie in the window, twice (a counting pass and a
 * filling pass). O(creatures). */
long long rules_move_threat_tests(const struct rules_move_query *q, int x0, int y0, int x1, int y1);

/* Runs the search. prefer_fewest_aoo: fewest provoking steps first, then cost. Returns
 * RULES_MOVE_OK, RULES_MOVE_ERR_NOMEM or RULES_MOVE_TOO_EXPENSIVE (then *out is NULL).
 * rules_reach_get and rules_reach_aoos charge the steps they walk back to the query's work:
 * a caller listing every square checks it between squares. */
int rules_move_reach(const struct rules_move_query *q, bool prefer_fewest_aoo,
                     struct rules_reach **out);
int rules_reach_count(const struct rules_reach *r);
void rules_reach_get(const struct rules_reach *r, int i, struct rules_reach_square *out);
/* The attacks of opportunity on the path found to square i: creature indexes and the step
 * leaving; returns how many (at most creature_count). */
int rules_reach_aoos(struct rules_reach *r, int i, int *creatures, int *from_x, int *from_y);
/* The path found to square i, excluding the start; returns its length (at most max). */
int rules_reach_path(const struct rules_reach *r, int i, struct rules_step *steps, int max);
void rules_reach_free(struct rules_reach *r);

/* The cheapest path to a square or to threaten a creature, over the whole map, ignoring the
 * action's budget (rules_move_path then says how far this action gets). Returns the number of
 * steps written to steps (at most max), 0 when the mover is already there, -1 when no legal
 * path exists, RULES_MOVE_ERR_NOMEM - 1 when out of memory, RULES_MOVE_TOO_EXPENSIVE - 1 when
 * the query's work budget ran out. */
struct rules_route_goal {
    int x, y;     /* the square */
    int creature; /* or, when >= 0, a creature to threaten */
};
int rules_move_route(const struct rules_move_query *q, const struct rules_route_goal *goal,
                     struct rules_step *steps, int max, int *cost_ft);

/* 001 Forced Movement. */
#define RULES_FORCED_MAX 100 /* squares a request may move */

enum rules_forced_kind { RULES_FORCED_PUSH = 0, RULES_FORCED_PULL, RULES_FORCED_SLIDE };

enum rules_forced_stop {
    RULES_FORCED_COMPLETE = 0, /* moved every square asked */
    RULES_FORCED_OBSTRUCTED,   /* a creature in the way */
    RULES_FORCED_BLOCKED,      /* blocked terrain in the way */
    RULES_FORCED_NO_ROOM,      /* no room for its space (the map's edge) */
    RULES_FORCED_DIRECTION,    /* the next square is not away from (push) or toward (pull) */
    RULES_FORCED_PRONE,        /* the target fell prone to end it */
    RULES_FORCED_RESISTED,     /* reductions took every square */
    RULES_FORCED_IGNORED,      /* voluntarily prone: ignores forced movement */
    RULES_FORCED_GROUND,       /* moved down as far as the ground */
};

const char *rules_forced_stop_code(enum rules_forced_stop s);
const char *rules_forced_stop_text(enum rules_forced_stop s);

struct rules_forced_query {
    const struct rules_options *o;
    const struct rules_map *map;
    const struct rules_map_creature *creatures; /* everyone else */
    int creature_count;
    struct rules_creature target;
    struct rules_creature attacker;
    enum rules_forced_kind kind;
    int squares;   /* distance asked */
    int reduction; /* sum of the target's forced-movement reductions */
    bool voluntarily_prone;
    int fall_prone_at; /* -1, or the step index (0: the starting square) where it drops */
    const struct rules_step *path; /* the requested squares, one per square moved */
    int path_len;
};

struct rules_forced_result {
    int moved; /* squares moved */
    int x, y, z;
    bool vertical; /* in the air: moved straight down or up instead (001 Forced Movement In 3-D) */
    int dz;
    enum rules_forced_stop stop;
    int stop_step;                 /* index of the step refused, -1 */
    int obstacle;                  /* creature index for OBSTRUCTED, -1 */
    bool prone;                    /* the target is prone afterwards */
    int hazards[RULES_FORCED_MAX]; /* steps entering hazardous squares */
    int hazard_count;
};

void rules_move_forced(const struct rules_forced_query *q, struct rules_forced_result *out);

#endif

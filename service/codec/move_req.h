/* What the movement endpoints' files share, private to them: movement_api.c (the handlers),
 * move_codec.c (decoding the requests), map_codec.c (decoding body.map) and move_answer.c
 * (writing the answers). Other parts of the service use move_codec.h. */
#ifndef TACTICS_SVC_MOVE_REQ_H
#define TACTICS_SVC_MOVE_REQ_H

#include <jansson.h>
#include <stdbool.h>

#include "rules/attack/odds.h"
#include "rules/move/move.h"
#include "service/codec/answer.h"
#include "service/codec/rule_options.h"
#include "service/codec/ruling.h"
#include "service/json/errors.h"

/* A creature's attack as its attacks of opportunity deal it, for a move's odds. */
struct move_attack_profile {
    const char *damage; /* NULL: none given (the odds then give chances, no damage) */
    struct rules_dice_expr damage_expr;
    int crit_range, crit_multiplier;
};

/* A movement request as decoded. */
struct move_req {
    struct svc_rules rules;
    const struct rules_options *o;
    struct rules_map map;
    bool map_ok;
    bool map_borrowed; /* map was decoded beforehand (the ruling's `map` argument): not freed */
    struct rules_map_creature *cs;
    const char **ids;
    int nc;
    struct rules_mover mover;
    bool has_constitution;
    /* An encounter's combatant as mover: its id, and whether it has no melee attack to end a
     * charge with (a stateless request lists no attacks, and is not asked). */
    const char *mover_id;
    bool no_melee;
    enum rules_move_mode mode;
    int primary;
    bool *no_attack;
    struct move_attack_profile *profiles; /* one per creature */
    /* path and route with odds: true: the mover's hit points (0: not given) and
     * damage reduction. */
    bool odds;
    int mover_hp, mover_dr;
    struct rules_odds_budget odds_work; /* multiply-adds, as /v1/attacks/odds */
    /* Work budgets (config.h SVC_BUDGET_*, times --budget-scale). */
    struct rules_work work; /* search states; the searches advance it */
    long long paint_limit;  /* map squares painted and rows rectangles visit */
    long long answer_limit; /* bytes */
    const char *spent;      /* the budget that ran out while decoding, or NULL */
    long long spent_budget, spent_reached;
};

/* Whether the request's grid is hexes (q, r) rather than squares (x, y). */
static inline bool move_hex(const struct move_req *r)
{
    return r->o->grid == RULES_GRID_HEX;
}

/* The names of forced movement's kind and reach's prefer, in enum order, NULL-terminated (the
 * modes' are rules_move_mode_names). */
extern const char *const move_forced_names[];
extern const char *const move_prefer_names[];
enum { MOVE_PREFER_COST = 0, MOVE_PREFER_FEWEST = 1, MOVE_PREFER_SAFEST = 2 };

/* ---- move_codec.c ---- */

void move_req_free(struct move_req *r);

/* Sets r's work budgets from the configuration. */
void move_budgets_init(struct move_req *r, const struct svc_config *cfg);

/* A mover's burdens into r->mover: speeds (an error when missing and speeds_required), armor,
 * load, constitution, runner and darkvision, as a stored combatant keeps them too (the one
 * decoder of those members: an encounter checks its combatants' with it). */
void move_decode_burdens(json_t *m, const char *ptr, bool speeds_required, struct move_req *r,
                         struct svc_errors *e);

/* body.withdraw, required by mode withdraw (r->mode) and refused with any other: its
 * primary_target and no_attack, by the ids of r's creatures. */
void move_decode_withdraw(json_t *body, struct move_req *r, struct svc_errors *e);

/* Starts a path, reach or route request: the body (borrowed; only `allowed` among the
 * movement members), its rules, map (map when not NULL: decoded beforehand, borrowed), creatures,
 * mover, mode and withdraw, with the budgets of cfg. Initialises e. False when the answer is
 * already in out (e and r released); otherwise the caller answers, then frees e and r. */
bool move_begin(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                const char *const *allowed, struct svc_errors *e, struct move_req *r,
                struct svc_answer *out);

/* The rules query of a decoded request (no work budget: the caller sets q.work). */
struct rules_move_query move_query_of(const struct move_req *r);

/* body[key]: [{x, y, facing?}] (q, r on hexes), at most max, each adjacent to the one before
 * (the first to (from_x, from_y)); facings: whether steps may set one. Returns the steps
 * (calloc'd, *n of them) or NULL. */
struct rules_step *move_decode_steps(json_t *body, const char *key, size_t max,
                                     const struct move_req *r, int from_x, int from_y, bool facings,
                                     int *n, struct svc_errors *e);

/* body.target of a route: a square or a creature to threaten. */
void move_decode_target(json_t *body, const struct move_req *r, struct rules_route_goal *goal,
                        struct svc_errors *e);

/* A forced movement request into r and q: rules, map (map when not NULL, as move_begin),
 * creatures, target, attacker, kind, squares and path. Returns the path (calloc'd, *n steps)
 * or NULL. */
struct rules_step *move_decode_forced(json_t *body, const struct svc_config *cfg,
                                      const struct rules_map *map, struct move_req *r,
                                      struct rules_forced_query *q, int *n, struct svc_errors *e);

/* A speed request: rules, mover (movement fields only) and checks. */
void move_decode_speed(json_t *body, struct move_req *r, long long *checks, struct svc_errors *e);

/* ---- movement_api.c ---- */

/* Reach (prefer: MOVE_PREFER_*) and route (to goal) for a request already decoded into r, as
 * POST /v1/movement/reach and /route answer them, each at the searches' gate (503 busy without
 * a place): for the encounter's queries, which read the stored state into r. */
void svc_rule_move_reach_req(struct move_req *r, int prefer, const struct svc_config *cfg,
                             struct svc_answer *out);
void svc_rule_move_route_req(struct move_req *r, const struct rules_route_goal *goal,
                             const struct svc_config *cfg, struct svc_answer *out);

/* ---- map_codec.c ---- */

/* body.map: {width, height, rows?, squares?} into r->map (r->map_ok once allocated), painting
 * within r->paint_limit (r->spent set when it ran out). */
void move_decode_map(json_t *body, const struct svc_config *cfg, struct move_req *r,
                     struct svc_errors *e);

/* ---- move_answer.c: each writes the whole answer (or a problem) into ans ---- */

/* Runs the path checker over steps and answers (path, and route with its cost). */
void move_answer_path(struct svc_answer *ans, struct move_req *r, const struct rules_step *steps,
                      int n, int end_facing, int route_cost, bool route);
/* The same answer from a path already ruled (p, of n steps): an encounter's move, which rules
 * it with rules_encounter_move. */
void move_answer_path_ruled(struct svc_answer *ans, struct move_req *r, int n,
                            const struct rules_path_result *p, int route_cost, bool route);
/* Lists every square of reach (walking each one's path, charged to r->work). */
void move_answer_reach(struct svc_answer *ans, const struct move_req *r, struct rules_reach *reach,
                       int prefer);
/* A route search that found no way. */
void move_answer_no_route(struct svc_answer *ans, const struct move_req *r);
/* Why a charge is refused, in words into buf (actor and foe are ids): status is a
 * rules_enc_move_status (NO_OPPONENT, NO_MELEE, TARGET; or CHARGE, and then charge is
 * rules_charge_check's answer). Returns its code: no_opponent, no_melee, target, short, away,
 * afar or past. */
const char *move_charge_why(int status, int charge, const char *actor, const char *foe, char *buf,
                            size_t n);
/* A route in mode charge to a creature that no charge can take (found false): the code and
 * words of move_charge_why, and the route's step that breaks it (-1: none). */
void move_answer_no_charge(struct svc_answer *ans, const struct move_req *r, const char *code,
                           const char *why, int step);
/* A route asked for the combatant whose turn it is (any, before initiative) that its move
 * action could not take now (found false): the action's refusal, its code (as
 * enc_admit_refusal's, or awaiting_reactions) and its sentence. */
void move_answer_refused(struct svc_answer *ans, const struct move_req *r, const char *code,
                         const char *why);
void move_answer_forced(struct svc_answer *ans, const struct move_req *r,
                        const struct rules_forced_query *q, const struct rules_forced_result *out,
                        const struct rules_step *path);
void move_answer_speed(struct svc_answer *ans, const struct move_req *r,
                       const struct rules_speed *sp, int checks);

#endif

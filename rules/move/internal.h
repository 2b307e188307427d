/* What the parts of movement (speed.c, step.c, path.c, reach.c, route.c, forced.c) share: the
 * search context over a window of the map, the CI_* bits it keeps per square, pricing one step
 * and the checks of a whole action. Not part of the library's interface (move.h is): what is
 * not static carries the internal prefix rules__, which no caller outside rules/move/ may use. */
#ifndef TACTICS_RULES_MOVE_INTERNAL_H
#define TACTICS_RULES_MOVE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "rules/move/move.h"

#define UNREACHED UINT32_MAX
#define MAX_FOOT  2304 /* 48 x 48: titanic-three-plus */

struct rules__move_ctx {
    const struct rules_move_query *q;
    const struct rules_options *o;
    const struct rules_map *map;
    const struct rules_mover *m;
    bool hex;
    int ndirs;
    int side;         /* mover's footprint side on squares */
    bool facing_cost; /* 000 facing: moving into flank or rear costs double */
    int budget[RULES_MOVE_TYPES];
    int max_budget;
    int impeded_cost; /* the full round of a double move */
    /* the window of the map the search may touch */
    int wx0, wy0, ww, wh;
    uint32_t *info;       /* per window square: CI_* bits */
    ptrdiff_t off[8];     /* square grid: the window index step of each direction */
    unsigned speed_types; /* movement types with a budget */
    int type_budget[1u << RULES_MOVE_TYPES]; /* the largest budget among a set of types */
    uint32_t *thr_off; /* CSR: enemies threatening each window square (eligible to attack) */
    int32_t *thr_idx;
    /* Movers larger than a square: summed-area tables of the window's occupied and threatened
     * squares ((ww + 1) x (wh + 1)), so that a question about a whole space is O(1). */
    uint32_t *occ_sat, *thr_sat;
};

struct rules__step_eval {
    int cost_front; /* the price facing the way of the step (or with no facing) */
    int cost_back;  /* the price keeping a facing that puts the square in flank or rear */
    unsigned why;
    uint32_t bad;   /* violations that do not depend on the budget */
    unsigned types; /* movement types with a speed that may enter */
    bool diagonal;
    bool impeded;
};

#define BIT(v) (1u << (v))

/* What a square holds for this mover, as CI_* bits (computed once per window square). */
#define CI_TYPES   0x1Fu /* movement types the terrain admits */
#define CI_BLOCKED 0x20u
#define CI_DIFF    0x40u
#define CI_SQUEEZE 0x80u
#define CI_IMP     0x100u
#define CI_HAZ     0x200u
#define CI_CONC    0x400u
#define CI_GAP     0x800u  /* narrower than the mover can squeeze through */
#define CI_ENEMY   0x1000u /* an enemy it may not pass */
#define CI_OCC     0x2000u /* a creature it may not end on */
#define CI_OVER    0x4000u /* a creature it steps over */
#define CI_SOLID   0x8000u /* blocked, with corners that cannot be cut */
#define CI_OFFMAP  0x10000u

/* The eight step directions on squares, clockwise from north (the facings' order); the odd
 * ones are the diagonals. Defined here so that the searches' inner loops see the constants. */
static const int sq_dirs[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                  {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};

/* The step offsets of the grid (8 on squares, 6 on hexes). */
const int (*rules__dirs_of(const struct rules__move_ctx *c))[2];

static inline bool in_window(const struct rules__move_ctx *c, int x, int y)
{
    return x >= c->wx0 && y >= c->wy0 && x < c->wx0 + c->ww && y < c->wy0 + c->wh;
}

/* The window index of (x, y), which must be in the window. */
static inline size_t wcell(const struct rules__move_ctx *c, int x, int y)
{
    return (size_t)(y - c->wy0) * (size_t)c->ww + (size_t)(x - c->wx0);
}

static inline bool on_map(const struct rules_map *map, int x, int y)
{
    return x >= 0 && y >= 0 && x < map->width && y < map->height;
}

/* The map index of (x, y), which must be on the map. */
static inline size_t mcell(const struct rules_map *map, int x, int y)
{
    return (size_t)y * (size_t)map->width + (size_t)x;
}

static inline bool in_footprint(const int *fx, const int *fy, int n, int x, int y)
{
    for (int i = 0; i < n; i++)
        if (fx[i] == x && fy[i] == y)
            return true;
    return false;
}

/* Whether facing `dir` (a step direction) lies in the front of facing f: within 45 degrees on
 * squares, 60 on hexes (the angle rule of facing.h). */
static inline bool dir_in_front(const struct rules__move_ctx *c, int dir, int f)
{
    int n = c->ndirs;
    int d = dir - f + n; /* both in [0, n) */
    d = d >= n ? d - n : d;
    return d == 0 || d == 1 || d == n - 1;
}

/* The squares (or hexes) of a body of the mover's shape at (x, y), at most MAX_FOOT
 * (rules_body_squares). */
int rules__footprint(const struct rules__move_ctx *c, int x, int y, int *fx, int *fy);

/* Charges n units of work to the query's budget; false once it is spent. */
bool rules__charge(const struct rules_move_query *q, long long n);

/* Clips the window [x0, x1) x [y0, y1) to the map (at least one square). */
void rules__clip_window(const struct rules_map *map, int *x0, int *y0, int *x1, int *y1);

/* Sets up the window [x0, x1) x [y0, y1) (clipped to the map): budgets per type (unlimited: the
 * route's), CI_* bits and occupancy of every window square, and with `threats` the enemies
 * threatening each, their tests charged first (rules_move_threat_tests). Returns 0,
 * RULES_MOVE_ERR_NOMEM or RULES_MOVE_TOO_EXPENSIVE (nothing set up); rules__ctx_free releases it.
 */
int rules__ctx_init(struct rules__move_ctx *c, const struct rules_move_query *q, int x0, int y0,
                    int x1, int y1, bool unlimited, bool threats);
void rules__ctx_free(struct rules__move_ctx *c);

/* speed.c: the budget of each movement type for the query's mode (unlimited: the route's),
 * the largest, the types with one, and the impeded price. Reads c->q, c->o and c->m only. */
void rules__set_budgets(struct rules__move_ctx *c, bool unlimited);

/* The CI_* bits of map square mi from its terrain, flags and gap alone, and the bits
 * creature k puts on its squares for this mover. */
uint32_t rules__terrain_info(const struct rules__move_ctx *c, size_t mi);
uint32_t rules__creature_info(const struct rules__move_ctx *c, int k);

/* The CI_* bits of a square of each terrain without flags or gaps, indexed by terrain. */
void rules__terrain_plain(const struct rules__move_ctx *c, uint32_t plain[256]);

/* Prices the step from (x, y) to (x + dx, y + dy) with `parity` diagonals counted so far
 * (000's alternating rule); `step` is its index in the move. Budget checks are the caller's. */
void rules__eval_step(const struct rules__move_ctx *c, int x, int y, int dx, int dy, int parity,
                      int step, struct rules__step_eval *e);

/* True when the mover may end with its space at (x, y). */
bool rules__end_ok(const struct rules__move_ctx *c, int x, int y);

/* True when leaving the footprint at (x, y) on step `step` provokes. Needs the context's
 * threats (rules__ctx_init with threats). */
bool rules__step_provokes(const struct rules__move_ctx *c, int x, int y, int step);

/* path.c: the violations of the action as a whole (RULES_MV_* bits), before any step. */
uint32_t rules__action_checks(const struct rules__move_ctx *c);

#endif

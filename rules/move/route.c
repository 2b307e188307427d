/* The route (movement.h, rules_move_route): the cheapest legal path to a square, or to a square
 * from which the mover threatens a creature, over the whole map and ignoring the action's
 * budget (rules_move_path then says how far one action gets).
 *
 * A* over states (square, diagonal parity). The mover faces the way of each step, so 000's
 * doubled price for moving into one's flank or rear never applies, and parity is in the state
 * only under the alternating diagonal rule (000: "every other diagonal counts double"), where
 * the next diagonal's price depends on it.
 *
 * What keeps it close to a plain A* on a plain grid (figures in bench/README.md):
 *  - Nothing is set up for the whole map. The map is cut into tiles of 32 x 32 squares, each
 *    set up when the search first looks into it: its prices, the step that reached each state
 *    and, for a one-square mover, a class byte per square (closed, single, double or impeded;
 *    a corner that cannot be cut; a creature it may not end on). A search that explores a band
 *    of the map sets up, touches and charges to the work budget that band only.
 *  - Every price is a multiple of 5 ft (of 1 ft when an impeded square's full round is not),
 *    so the open list is a ring of buckets by estimated total (Dial): O(1) each way. Within a
 *    bucket the last state queued comes out first, which favours the deepest states among
 *    equal estimates: the ones nearest the goal.
 *  - The estimate is the exact price on an empty map: 5 ft a square of the longer axis, plus,
 *    under 5-10-5, 5 ft for every second diagonal of the shorter one counting the parity
 *    already reached (octile). Every real step costs at least as much as the same step on an
 *    empty map, so it is consistent: a state's first expansion is its cheapest.
 * Movers larger than a square, hexes, withdrawals and 5-foot steps price each step with
 * rules__eval_step over a context of the whole map, as the reach does. */
#include <stdlib.h>
#include <string.h>

#include "rules/move/internal.h"
#include "rules/move/move.h"

/* What an expansion counts: each of its 8 steps is estimated and queued, about twice the work
 * of a reach's expansion (bench/cost_bench). */
#define ROUTE_EXPAND_UNITS 2

#define TILE_SHIFT 5
#define TILE_SIDE  (1 << TILE_SHIFT)
#define TILE_CELLS (TILE_SIDE * TILE_SIDE)

/* A square's class byte for a one-square mover. */
#define RC_PRICE  0x03u /* 0 closed to this mover and mode, 1 single, 2 double, 3 impeded */
#define RC_SOLID  0x04u /* blocked, with corners that cannot be cut */
#define RC_OCC    0x08u /* a creature the mover may not end on */
#define RC_CLOSED 0x00u

struct tile {
    uint8_t cls[TILE_CELLS];      /* RC_* per square (one-square movers only) */
    uint8_t from[2 * TILE_CELLS]; /* per state: the direction of the step that reached it */
    uint32_t g[];                 /* per state (square * np + parity): price, or UINT32_MAX */
};

/* The effect of a creature on the squares of its space. */
struct occupant {
    uint32_t tile;
    uint16_t cell;
    uint8_t rc; /* RC_OCC, and whether it closes the square */
};

struct entry {
    uint32_t state, g;
};

struct bucket {
    struct entry *v;
    size_t n, cap;
};

/* The open list: a ring of buckets by estimated total in units (see the top). */
struct open_list {
    struct bucket *b;
    uint32_t mask, cur;
    size_t size;
};

struct route {
    struct rules__move_ctx c;
    const struct rules_move_query *q;
    const struct rules_route_goal *goal;
    bool fast;      /* a one-square mover on squares: class bytes, no rules__eval_step */
    int slow_units; /* without: what an expansion adds (rules_move_expand_units - 1) */
    int np;         /* parities in the state */
    bool octile;    /* the estimate counts 5-10-5's doubled diagonals */
    int unit;       /* every price is a multiple of it (ft) */
    /* tiles over the map padded by one square on each side (x + 1, y + 1) */
    int tiles_x, tiles_y;
    struct tile **tiles;
    int state_shift;     /* state = tile << state_shift | square * np + parity */
    uint32_t plain[256]; /* CI_* bits by terrain, for squares without flags or gaps */
    struct occupant *occ;
    uint32_t *occ_start; /* per tile: its first occupant (CSR) */
    struct open_list open;
    int err; /* RULES_MOVE_ERR_NOMEM or RULES_MOVE_TOO_EXPENSIVE once set */
};

static int open_init(struct open_list *ol, int max_step_units)
{
    uint32_t nb = 16;
    while (nb <= (uint32_t)max_step_units + 2)
        nb *= 2;
    ol->b = calloc(nb, sizeof *ol->b);
    ol->mask = nb - 1, ol->cur = 0, ol->size = 0;
    return ol->b == NULL ? RULES_MOVE_ERR_NOMEM : 0;
}

static void open_free(struct open_list *ol)
{
    for (uint32_t i = 0; ol->b != NULL && i <= ol->mask; i++)
        free(ol->b[i].v);
    free(ol->b);
}

static int open_push(struct open_list *ol, uint32_t key, uint32_t state, uint32_t g)
{
    struct bucket *b = &ol->b[key & ol->mask];
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        struct entry *v = realloc(b->v, cap * sizeof *v);
        if (v == NULL)
            return RULES_MOVE_ERR_NOMEM;
        b->v = v, b->cap = cap;
    }
    b->v[b->n++] = (struct entry){state, g};
    ol->size++;
    return 0;
}

/* Pops the state queued last among those of the smallest key. Keys never fall below the last
 * one popped (the estimate is consistent) and span less than the ring, so the bucket of the
 * current key holds that key only. */
static bool open_pop(struct open_list *ol, struct entry *e)
{
    if (ol->size == 0)
        return false;
    for (;;) {
        struct bucket *b = &ol->b[ol->cur & ol->mask];
        if (b->n > 0) {
            *e = b->v[--b->n];
            ol->size--;
            return true;
        }
        ol->cur++;
    }
}

/* The class byte of a square's CI_* bits (as classify and rules__eval_step decide). */
static uint8_t route_class(const struct route *r, uint32_t ci)
{
    enum rules_move_mode mode = r->q->mode;
    bool runlike = mode == RULES_MODE_RUN || mode == RULES_MODE_CHARGE;
    unsigned price = 1;
    if ((ci & (CI_OFFMAP | CI_BLOCKED | CI_GAP | CI_ENEMY)) || (ci & r->c.speed_types) == 0)
        price = RC_CLOSED;
    else if (ci & CI_IMP)
        price = runlike ? RC_CLOSED : 3; /* 001: no running or charging through it */
    else if (ci & (CI_DIFF | CI_SQUEEZE))
        price = runlike ? RC_CLOSED : 2;
    return (uint8_t)(price | (ci & CI_SOLID ? RC_SOLID : 0));
}

/* Sets up tile ti: its prices unreached and, for a one-square mover, its class bytes; charges
 * its states to the work budget. NULL with r->err set on failure. */
static struct tile *tile_make(struct route *r, size_t ti)
{
    size_t states = (size_t)TILE_CELLS * (size_t)r->np;
    if (!rules__charge(r->q, (long long)states)) {
        r->err = RULES_MOVE_TOO_EXPENSIVE;
        return NULL;
    }
    struct tile *t = malloc(sizeof *t + states * sizeof *t->g);
    if (t == NULL) {
        r->err = RULES_MOVE_ERR_NOMEM;
        return NULL;
    }
    memset(t->g, 0xff, states * sizeof *t->g);
    r->tiles[ti] = t;
    if (!r->fast)
        return t;
    const struct rules_map *map = r->q->map;
    int x0 = (int)(ti % (size_t)r->tiles_x) * TILE_SIDE - 1;
    int y0 = (int)(ti / (size_t)r->tiles_x) * TILE_SIDE - 1;
    for (int j = 0; j < TILE_SIDE; j++) {
        int y = y0 + j;
        uint8_t *row = t->cls + j * TILE_SIDE;
        if (y < 0 || y >= map->height) {
            memset(row, RC_CLOSED, TILE_SIDE);
            continue;
        }
        for (int i = 0; i < TILE_SIDE; i++) {
            int x = x0 + i;
            if (x < 0 || x >= map->width) {
                row[i] = RC_CLOSED; /* off the map: closed, and its corners may be cut */
                continue;
            }
            size_t mi = (size_t)y * (size_t)map->width + (size_t)x;
            uint32_t ci = map->flags[mi] == 0 && map->gap_in == NULL
                              ? r->plain[map->terrain[mi]]
                              : rules__terrain_info(&r->c, mi);
            row[i] = route_class(r, ci);
        }
    }
    for (uint32_t k = r->occ_start[ti]; k < r->occ_start[ti + 1]; k++) {
        uint8_t *cls = &t->cls[r->occ[k].cell];
        if (!(r->occ[k].rc & RC_PRICE))
            *cls &= (uint8_t)~RC_PRICE; /* an enemy it may not pass */
        *cls |= (uint8_t)(r->occ[k].rc & RC_OCC);
    }
    return t;
}

static struct tile *tile_get(struct route *r, size_t ti)
{
    return r->tiles[ti] != NULL ? r->tiles[ti] : tile_make(r, ti);
}

/* The tile and square index of padded square (X, Y). */
static size_t tile_of(const struct route *r, int X, int Y, unsigned *cell)
{
    *cell = (unsigned)((Y & (TILE_SIDE - 1)) << TILE_SHIFT | (X & (TILE_SIDE - 1)));
    return (size_t)(Y >> TILE_SHIFT) * (size_t)r->tiles_x + (size_t)(X >> TILE_SHIFT);
}

/* The creatures' squares, grouped by tile (one-square movers: what each does to the class). */
static int occupants_init(struct route *r)
{
    const struct rules_move_query *q = r->q;
    size_t ntiles = (size_t)r->tiles_x * (size_t)r->tiles_y, n = 0;
    r->occ_start = calloc(ntiles + 2, sizeof *r->occ_start);
    if (r->occ_start == NULL)
        return RULES_MOVE_ERR_NOMEM;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < q->creature_count; i++) {
            const struct rules_body *b = &q->creatures[i].c.body;
            uint32_t ci = rules__creature_info(&r->c, i);
            uint8_t rc = (uint8_t)((ci & CI_OCC ? RC_OCC : 0) | (ci & CI_ENEMY ? 0 : 1));
            int fx[MAX_FOOT], fy[MAX_FOOT];
            int fn = rules_body_squares(q->o, b, fx, fy, MAX_FOOT);
            for (int j = 0; j < fn; j++) {
                if (!on_map(q->map, fx[j], fy[j]))
                    continue;
                unsigned cell;
                size_t ti = tile_of(r, fx[j] + 1, fy[j] + 1, &cell);
                if (pass == 0)
                    r->occ_start[ti + 2]++, n++;
                else
                    r->occ[r->occ_start[ti + 1]++] =
                        (struct occupant){(uint32_t)ti, (uint16_t)cell, rc};
            }
        }
        if (pass == 0) {
            for (size_t t = 0; t < ntiles; t++)
                r->occ_start[t + 2] += r->occ_start[t + 1];
            r->occ = malloc((n ? n : 1) * sizeof *r->occ);
            if (r->occ == NULL)
                return RULES_MOVE_ERR_NOMEM;
        }
    }
    /* The fill pass advanced each start (shifted by one) to the next tile's. */
    return 0;
}

static int cheb_gap(const struct rules_body *a, const struct rules_body *b)
{
    int gx = rules_span_gap(a->x, a->side, b->x, b->side);
    int gy = rules_span_gap(a->y, a->side, b->y, b->side);
    return gx > gy ? gx : gy;
}

static int hex_len(int dq, int dr)
{
    int a = dq < 0 ? -dq : dq, b = dr < 0 ? -dr : dr, s = dq + dr < 0 ? -(dq + dr) : dq + dr;
    int m = a > b ? a : b;
    return m > s ? m : s;
}

/* The estimate in feet from (x, y) at parity p (see the top). For a creature, every step
 * costs at least 5 ft and closes the gap by one square at most. */
static uint32_t estimate(const struct route *r, int x, int y, int p)
{
    const struct rules_route_goal *g = r->goal;
    if (g->creature < 0) {
        if (r->c.hex)
            return (uint32_t)(5 * hex_len(g->x - x, g->y - y));
        int dx = g->x - x < 0 ? x - g->x : g->x - x, dy = g->y - y < 0 ? y - g->y : g->y - y;
        int hi = dx > dy ? dx : dy, lo = dx > dy ? dy : dx;
        return (uint32_t)(5 * hi + (r->octile ? 5 * ((lo + p) / 2) : 0));
    }
    if (r->c.hex)
        return 0;
    struct rules_body b = r->c.m->c.body;
    b.x = x, b.y = y;
    int gap = cheb_gap(&b, &r->q->creatures[g->creature].c.body) - r->c.m->c.reach_ft / 5;
    return gap > 0 ? (uint32_t)(5 * gap) : 0;
}

/* Whether the mover may stop at (x, y) and has arrived; cls is the square's class byte for a
 * one-square mover. */
static bool at_goal(const struct route *r, int x, int y, unsigned cls)
{
    const struct rules_route_goal *g = r->goal;
    if (g->creature < 0 && (x != g->x || y != g->y))
        return false;
    if (r->fast ? (cls & RC_OCC) != 0 : !rules__end_ok(&r->c, x, y))
        return false;
    if (g->creature < 0)
        return true;
    struct rules_creature me = r->c.m->c;
    me.body.x = x, me.body.y = y;
    return rules_threatens_creature(r->c.o, &me, &r->q->creatures[g->creature].c);
}

/* Queues state (tile ti, square cell, parity p) at (x, y) at price g, reached by step d. */
static inline int relax(struct route *r, struct tile *t, size_t ti, unsigned cell, int p, int x,
                        int y, uint32_t g, int d)
{
    unsigned i = cell * (unsigned)r->np + (unsigned)p;
    if (g >= t->g[i])
        return 0;
    t->g[i] = g;
    t->from[i] = (uint8_t)d;
    uint32_t key = (g + estimate(r, x, y, p)) / (uint32_t)r->unit;
    return open_push(&r->open, key, (uint32_t)(ti << r->state_shift) | i, g);
}

/* The price of entering a square of class k by step d at parity p (one-square movers), or -1
 * when closed; *np gets the parity after it. */
static inline int fast_price(const struct route *r, unsigned k, bool diagonal, int p, int *np)
{
    unsigned price = k & RC_PRICE;
    *np = p;
    if (price == RC_CLOSED)
        return -1;
    int base = 5;
    if (diagonal && r->np > 1) {
        base = p ? 10 : 5; /* 000: "every other diagonal counts double" */
        *np = p ^ 1;
    }
    if (price == 3)
        return r->c.impeded_cost; /* 001 Impeded Terrain: the full round, on a long route */
    return base * (int)price;
}

static void route_free(struct route *r)
{
    for (size_t i = 0; r->tiles != NULL && i < (size_t)r->tiles_x * (size_t)r->tiles_y; i++)
        free(r->tiles[i]);
    free(r->tiles);
    free(r->occ);
    free(r->occ_start);
    open_free(&r->open);
    rules__ctx_free(&r->c);
}

/* Expands the state of price g at (x, y), parity p, in tile t (index ti) at square cell. */
static int expand(struct route *r, struct tile *t, size_t ti, unsigned cell, int x, int y, int p,
                  uint32_t g, bool first)
{
    const int(*dirs)[2] = rules__dirs_of(&r->c);
    unsigned cx = cell & (TILE_SIDE - 1), cy = cell >> TILE_SHIFT;
    if (r->fast && cx > 0 && cy > 0 && cx + 1 < TILE_SIDE && cy + 1 < TILE_SIDE) {
        /* Inside the tile: every square looked at is in it. */
        for (int d = 0; d < 8; d++) {
            int dx = dirs[d][0], dy = dirs[d][1], np;
            unsigned tc = (unsigned)((int)cell + dy * TILE_SIDE + dx);
            bool diagonal = d & 1; /* odd directions are the diagonals */
            if (diagonal &&
                ((t->cls[(int)cell + dx] | t->cls[(int)cell + dy * TILE_SIDE]) & RC_SOLID))
                continue; /* 001 Cutting Corners */
            int price = fast_price(r, t->cls[tc], diagonal, p, &np);
            if (price < 0)
                continue;
            if (relax(r, t, ti, tc, np, x + dx, y + dy, g + (uint32_t)price, d) != 0)
                return RULES_MOVE_ERR_NOMEM;
        }
        return 0;
    }
    for (int d = 0; d < r->c.ndirs; d++) {
        int dx = dirs[d][0], dy = dirs[d][1], tx = x + dx, ty = y + dy, np = p, price;
        if (tx < 0 || ty < 0 || tx >= r->q->map->width || ty >= r->q->map->height)
            continue;
        unsigned tc;
        size_t tti = tile_of(r, tx + 1, ty + 1, &tc);
        struct tile *tt = tile_get(r, tti);
        if (tt == NULL)
            return r->err;
        if (r->fast) {
            bool diagonal = d & 1;
            if (diagonal) {
                unsigned c1, c2;
                struct tile *t1 = tile_get(r, tile_of(r, tx + 1, y + 1, &c1));
                struct tile *t2 = tile_get(r, tile_of(r, x + 1, ty + 1, &c2));
                if (t1 == NULL || t2 == NULL)
                    return r->err;
                if ((t1->cls[c1] | t2->cls[c2]) & RC_SOLID)
                    continue;
            }
            price = fast_price(r, tt->cls[tc], diagonal, p, &np);
            if (price < 0)
                continue;
        } else {
            struct rules__step_eval e;
            rules__eval_step(&r->c, x, y, dx, dy, p, first ? 0 : 1, &e);
            if (e.impeded) /* a full round each on a long route, not only a double move's */
                e.bad &= ~BIT(RULES_MV_IMPEDED);
            if (e.bad || e.types == 0)
                continue;
            np = r->np > 1 && e.diagonal ? p ^ 1 : p;
            price = e.cost_front;
        }
        if (relax(r, tt, tti, tc, np, tx, ty, g + (uint32_t)price, d) != 0)
            return RULES_MOVE_ERR_NOMEM;
    }
    return 0;
}

/* Writes the path that reached state (ti, i) at (x, y) into steps, excluding the start.
 * Returns its length, or -1 when longer than max. */
static int walk_back(struct route *r, size_t ti, unsigned i, int x, int y, struct rules_step *steps,
                     int max)
{
    const int(*dirs)[2] = rules__dirs_of(&r->c);
    const struct rules_body *b = &r->c.m->c.body;
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t t = ti;
        unsigned s = i;
        int px = x, py = y, k = n;
        while (r->tiles[t]->g[s] != 0 || px != b->x || py != b->y) {
            if (pass == 0)
                n++;
            else
                steps[--k] = (struct rules_step){.x = px, .y = py, .facing = -1};
            int d = r->tiles[t]->from[s], p = (int)(s % (unsigned)r->np);
            bool diagonal = !r->c.hex && dirs[d][0] != 0 && dirs[d][1] != 0;
            p = r->np > 1 && diagonal ? p ^ 1 : p;
            px -= dirs[d][0], py -= dirs[d][1];
            unsigned cell;
            t = tile_of(r, px + 1, py + 1, &cell);
            s = cell * (unsigned)r->np + (unsigned)p;
        }
        if (pass == 0 && n > max)
            return -1;
    }
    return n;
}

void rules_move_route_estimate(const struct rules_move_query *q, struct rules_move_estimate *out)
{
    const struct rules_body *b = &q->mover->c.body;
    bool hex = q->o->grid == RULES_GRID_HEX;
    bool fast =
        !hex && b->side == 1 && q->mode != RULES_MODE_WITHDRAW && q->mode != RULES_MODE_STEP;
    int np = !hex && q->o->diagonals == RULES_DIAGONALS_ALTERNATING ? 2 : 1;
    long long tiles = (long long)((q->map->width + 2 + TILE_SIDE - 1) / TILE_SIDE) *
                      ((q->map->height + 2 + TILE_SIDE - 1) / TILE_SIDE);
    /* The most it can set up: every tile, and without class bytes the map's squares first. */
    out->states = tiles * TILE_CELLS * np + (fast ? 0 : (long long)q->map->width * q->map->height);
    out->threat_tests = 0; /* a route sets up no threats */
    out->expand_units = ROUTE_EXPAND_UNITS + (fast ? 0 : rules_move_expand_units(q) - 1);
}

int rules_move_route(const struct rules_move_query *q, const struct rules_route_goal *goal,
                     struct rules_step *steps, int max, int *cost_ft)
{
    struct route r = {.q = q, .goal = goal};
    const struct rules_body *b = &q->mover->c.body;
    const struct rules_map *map = q->map;
    bool hex = q->o->grid == RULES_GRID_HEX;
    *cost_ft = 0;
    r.fast = !hex && b->side == 1 && q->mode != RULES_MODE_WITHDRAW && q->mode != RULES_MODE_STEP;
    r.slow_units = r.fast ? 0 : rules_move_expand_units(q) - 1;
    int rc;
    if (r.fast) {
        /* Only the budgets and the creature bits are wanted: a one-square window. */
        rc = rules__ctx_init(&r.c, q, b->x, b->y, b->x + 1, b->y + 1, true, false);
    } else {
        /* rules__eval_step reads the bits of every square of the map: set up before the search. */
        if (!rules__charge(q, (long long)map->width * map->height))
            return RULES_MOVE_TOO_EXPENSIVE - 1;
        rc = rules__ctx_init(&r.c, q, 0, 0, map->width, map->height, true, false);
    }
    if (rc != 0)
        return RULES_MOVE_ERR_NOMEM - 1;
    struct rules__move_ctx *c = &r.c;
    bool alternating = !hex && q->o->diagonals == RULES_DIAGONALS_ALTERNATING;
    r.np = alternating ? 2 : 1;
    /* 5-10-5's estimate needs every step to cost at least its open-map price; an impeded
     * square of a slow walker (a full round under 10 ft) and a 5-foot step would not. */
    r.octile = alternating && q->mode != RULES_MODE_STEP && c->impeded_cost >= 10;
    r.unit = c->impeded_cost % 5 == 0 ? 5 : 1;
    r.state_shift = 2 * TILE_SHIFT + (r.np - 1);
    r.tiles_x = (map->width + 2 + TILE_SIDE - 1) / TILE_SIDE;
    r.tiles_y = (map->height + 2 + TILE_SIDE - 1) / TILE_SIDE;
    size_t ntiles = (size_t)r.tiles_x * (size_t)r.tiles_y;
    int result = RULES_MOVE_ERR_NOMEM - 1;
    if (ntiles > (UINT32_MAX >> r.state_shift))
        goto out; /* state numbers would not fit: no map the service accepts comes near */
    int max_price = c->impeded_cost > 20 ? c->impeded_cost : 20;
    r.tiles = calloc(ntiles, sizeof *r.tiles);
    if (r.tiles == NULL || open_init(&r.open, (max_price + 10) / r.unit + 1) != 0)
        goto out;
    if (r.fast) {
        rules__terrain_plain(c, r.plain);
        if (occupants_init(&r) != 0)
            goto out;
    }
    unsigned cell;
    size_t ti = tile_of(&r, b->x + 1, b->y + 1, &cell);
    struct tile *t = tile_get(&r, ti);
    if (t == NULL) {
        result = r.err - 1;
        goto out;
    }
    if (at_goal(&r, b->x, b->y, r.fast ? t->cls[cell] : 0)) {
        result = 0;
        goto out;
    }
    if (relax(&r, t, ti, cell, 0, b->x, b->y, 0, 0) != 0)
        goto out;
    struct entry e;
    while (open_pop(&r.open, &e)) {
        ti = e.state >> r.state_shift;
        unsigned i = e.state & ((1u << r.state_shift) - 1);
        t = r.tiles[ti];
        if (t->g[i] != e.g)
            continue; /* queued before a cheaper price was found */
        if (!rules__charge(q, ROUTE_EXPAND_UNITS + r.slow_units)) {
            result = RULES_MOVE_TOO_EXPENSIVE - 1;
            goto out;
        }
        cell = i / (unsigned)r.np;
        int p = (int)(i % (unsigned)r.np);
        int x = (int)(ti % (size_t)r.tiles_x) * TILE_SIDE + (int)(cell & (TILE_SIDE - 1)) - 1;
        int y = (int)(ti / (size_t)r.tiles_x) * TILE_SIDE + (int)(cell >> TILE_SHIFT) - 1;
        bool first = e.g == 0 && x == b->x && y == b->y;
        if (!first && at_goal(&r, x, y, r.fast ? t->cls[cell] : 0)) {
            int n = walk_back(&r, ti, i, x, y, steps, max);
            *cost_ft = n < 0 ? 0 : (int)e.g;
            result = n;
            goto out;
        }
        rc = expand(&r, t, ti, cell, x, y, p, e.g, first);
        if (rc != 0) {
            result = rc - 1;
            goto out;
        }
    }
    result = -1;
out:
    route_free(&r);
    return result;
}

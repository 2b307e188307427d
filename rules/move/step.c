/* Pricing one step (movement.h, move_internal.h): the terrain classes and the CI_* bits of each
 * square for a mover, the search context over a window of the map (occupancy and the enemies
 * threatening each square), the price and the violations of one step, whether it provokes, and
 * whether a move may end on a square. The names of movement types live here too. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rules/move/internal.h"
#include "rules/move/move.h"

/* ---- names ---- */

const char *const rules_move_type_names[RULES_MOVE_TYPES + 1] = {"walk", "swim",   "climb",
                                                                 "fly",  "burrow", NULL};

const char *rules_move_type_name(enum rules_move_type t)
{
    return rules_move_type_names[t];
}

/* ---- the search context (struct rules__move_ctx: move_internal.h) ---- */

const int (*rules__dirs_of(const struct rules__move_ctx *c))[2]
{
    return c->hex ? rules_hex_dirs : sq_dirs;
}

/* The squares (or hexes) of a body of the mover's shape at (x, y). */
int rules__footprint(const struct rules__move_ctx *c, int x, int y, int *fx, int *fy)
{
    struct rules_body b = c->m->c.body;
    b.x = x, b.y = y;
    return rules_body_squares(c->o, &b, fx, fy, MAX_FOOT);
}

/* Charges n units of work to the query's budget; false once it is spent. */
bool rules__charge(const struct rules_move_query *q, long long n)
{
    if (q->work == NULL)
        return true;
    q->work->used += n;
    return q->work->limit <= 0 || q->work->used <= q->work->limit;
}

/* Charges n squares tested for a threat; false once that budget is spent. */
static bool charge_threats(const struct rules_move_query *q, long long n)
{
    if (q->work == NULL)
        return true;
    q->work->threat_used += n;
    return q->work->threat_limit <= 0 || q->work->threat_used <= q->work->threat_limit;
}

const char *rules_work_spent(const struct rules_work *w, long long *limit, long long *reached)
{
    if (w->threat_limit > 0 && w->threat_used > w->threat_limit) {
        *limit = w->threat_limit, *reached = w->threat_used;
        return "threatened_squares";
    }
    if (w->limit > 0 && w->used > w->limit) {
        *limit = w->limit, *reached = w->used;
        return "search_states";
    }
    *limit = *reached = 0;
    return NULL;
}

static bool eligible_attacker(const struct rules_move_query *q, int i)
{
    const struct rules_map_creature *k = &q->creatures[i];
    if (k->ally || !k->conscious || !k->c.can_threaten)
        return false;
    if (q->mode == RULES_MODE_WITHDRAW && i == q->primary_target)
        return false; /* 001 Withdraw: "the primary target may not make any attacks" */
    return q->no_attack == NULL || !q->no_attack[i];
}

void rules__ctx_free(struct rules__move_ctx *c)
{
    free(c->info);
    c->info = NULL;
    free(c->thr_off);
    free(c->thr_idx);
    free(c->occ_sat);
    free(c->thr_sat);
    c->thr_off = NULL, c->thr_idx = NULL, c->occ_sat = c->thr_sat = NULL;
}

void rules__clip_window(const struct rules_map *map, int *x0, int *y0, int *x1, int *y1)
{
    *x0 = *x0 < 0 ? 0 : *x0, *y0 = *y0 < 0 ? 0 : *y0;
    *x1 = *x1 > map->width ? map->width : *x1;
    *y1 = *y1 > map->height ? map->height : *y1;
    if (*x1 <= *x0 || *y1 <= *y0)
        *x1 = *x0 + 1, *y1 = *y0 + 1;
}

/* The box of squares around creature k that its reach may touch (one square of slack each
 * way), as rules__ctx_init scans it. */
static void threat_box(const struct rules_creature *k, int *bx0, int *by0, int *bx1, int *by1)
{
    int r = k->reach_ft / 5 + 1;
    *bx0 = k->body.x - r - 1, *by0 = k->body.y - r - 1;
    *bx1 = k->body.x + k->body.side + r + 1, *by1 = k->body.y + k->body.side + r + 1;
}

static long long span(int a0, int a1, int w0, int w1)
{
    int lo = a0 < w0 ? w0 : a0, hi = a1 > w1 ? w1 : a1;
    return hi > lo ? hi - lo : 0;
}

long long rules_move_threat_tests(const struct rules_move_query *q, int x0, int y0, int x1, int y1)
{
    rules__clip_window(q->map, &x0, &y0, &x1, &y1);
    long long n = 0;
    for (int i = 0; i < q->creature_count; i++) {
        if (!eligible_attacker(q, i))
            continue;
        int bx0, by0, bx1, by1;
        threat_box(&q->creatures[i].c, &bx0, &by0, &bx1, &by1);
        n += span(bx0, bx1, x0, x1) * span(by0, by1, y0, y1);
    }
    return 2 * n; /* the counting pass and the filling pass */
}

/* A summed-area table of the window: sat[(y + 1) * (ww + 1) + x + 1] counts the squares of
 * [0, x] x [0, y] for which bit(w) holds, so that any box is asked in O(1). */
static uint32_t *window_sat(const struct rules__move_ctx *c,
                            bool (*bit)(const struct rules__move_ctx *, size_t))
{
    size_t W = (size_t)c->ww + 1, H = (size_t)c->wh + 1;
    uint32_t *sat = calloc(W * H, sizeof *sat);
    if (sat == NULL)
        return NULL;
    for (size_t y = 1; y < H; y++) {
        uint32_t row = 0;
        for (size_t x = 1; x < W; x++) {
            row += bit(c, (y - 1) * (size_t)c->ww + (x - 1)) ? 1u : 0u;
            sat[y * W + x] = sat[(y - 1) * W + x] + row;
        }
    }
    return sat;
}

/* How many squares of the box [x0, x1) x [y0, y1), which lies in the window, sat counts. */
static uint32_t sat_box(const struct rules__move_ctx *c, const uint32_t *sat, int x0, int y0,
                        int x1, int y1)
{
    size_t W = (size_t)c->ww + 1;
    size_t a = (size_t)(y0 - c->wy0) * W + (size_t)(x0 - c->wx0);
    size_t b = (size_t)(y0 - c->wy0) * W + (size_t)(x1 - c->wx0);
    size_t d = (size_t)(y1 - c->wy0) * W + (size_t)(x0 - c->wx0);
    size_t e = (size_t)(y1 - c->wy0) * W + (size_t)(x1 - c->wx0);
    return sat[e] - sat[b] - sat[d] + sat[a];
}

static bool bit_threatened(const struct rules__move_ctx *c, size_t w)
{
    return c->thr_off[w + 1] > c->thr_off[w];
}

static bool bit_occupied(const struct rules__move_ctx *c, size_t w)
{
    return (c->info[w] & CI_OCC) != 0;
}

/* Sets up the window [x0, x1) x [y0, y1) (clipped to the map), the occupancy of every
 * creature and the squares each eligible enemy threatens there. The squares tested for a
 * threat are charged before the first test. */
int rules__ctx_init(struct rules__move_ctx *c, const struct rules_move_query *q, int x0, int y0,
                    int x1, int y1, bool unlimited, bool threats)
{
    *c = (struct rules__move_ctx){.q = q, .o = q->o, .map = q->map, .m = q->mover};
    c->hex = q->o->grid == RULES_GRID_HEX;
    c->ndirs = c->hex ? 6 : 8;
    c->side = c->hex ? 1 : q->mover->c.body.side;
    c->facing_cost = q->o->facing == RULES_FACING_000 && rules_has_facing(q->o, &q->mover->c);
    rules__set_budgets(c, unlimited);
    if (threats && !charge_threats(q, rules_move_threat_tests(q, x0, y0, x1, y1)))
        return RULES_MOVE_TOO_EXPENSIVE;
    rules__clip_window(q->map, &x0, &y0, &x1, &y1);
    c->wx0 = x0, c->wy0 = y0, c->ww = x1 - x0, c->wh = y1 - y0;
    /* off[d] must follow the grid's own directions: the searches step with rules__dirs_of(c)[d]
     * and off[d] together, and square offsets on hexes land off the window at its edge. */
    const int(*dirs)[2] = rules__dirs_of(c);
    for (int d = 0; d < 8; d++)
        c->off[d] = d < c->ndirs ? (ptrdiff_t)dirs[d][1] * c->ww + dirs[d][0] : 0;
    size_t n = (size_t)c->ww * (size_t)c->wh;
    /* No enemy that may attack: nothing is threatened, and nothing is set up for it. */
    bool attackers = false;
    for (int i = 0; threats && i < q->creature_count && !attackers; i++)
        attackers = eligible_attacker(q, i);
    threats = threats && attackers;
    c->thr_off = calloc(threats ? n + 1 : 1, sizeof *c->thr_off);
    c->info = malloc(n * sizeof *c->info);
    if (c->thr_off == NULL || c->info == NULL)
        goto fail;
    /* Squares without flags or gaps take their bits from a table by terrain. */
    uint32_t plain[256];
    rules__terrain_plain(c, plain);
    for (int y = y0; y < y1; y++) {
        uint32_t *row = c->info + (size_t)(y - y0) * (size_t)c->ww;
        size_t mi = mcell(q->map, x0, y);
        const uint8_t *tr = q->map->terrain + mi, *fl = q->map->flags + mi;
        for (int x = 0; x < c->ww; x++)
            row[x] = fl[x] == 0 && q->map->gap_in == NULL ? plain[tr[x]]
                                                          : rules__terrain_info(c, mi + (size_t)x);
    }
    int z = q->mover->c.body.z;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < q->creature_count; i++) {
            const struct rules_creature *k = &q->creatures[i].c;
            int fx[MAX_FOOT], fy[MAX_FOOT];
            int fn = rules_body_squares(q->o, &k->body, fx, fy, MAX_FOOT);
            if (pass == 0)
                for (int j = 0; j < fn; j++)
                    if (in_window(c, fx[j], fy[j]))
                        c->info[wcell(c, fx[j], fy[j])] |= rules__creature_info(c, i);
            if (!threats || !eligible_attacker(q, i))
                continue;
            int bx0, by0, bx1, by1; /* as rules_move_threat_tests counts them */
            threat_box(k, &bx0, &by0, &bx1, &by1);
            for (int y = by0 < y0 ? y0 : by0; y < (by1 > y1 ? y1 : by1); y++)
                for (int x = bx0 < x0 ? x0 : bx0; x < (bx1 > x1 ? x1 : bx1); x++) {
                    if (!rules_threatens_square(q->o, k, x, y, z))
                        continue;
                    size_t w = wcell(c, x, y);
                    if (pass == 0)
                        c->thr_off[w + 1]++;
                    else
                        c->thr_idx[c->thr_off[w]++] = i;
                }
        }
        if (!threats)
            break;
        if (pass == 0) {
            for (size_t w = 0; w < n; w++)
                c->thr_off[w + 1] += c->thr_off[w];
            c->thr_idx = malloc((c->thr_off[n] ? c->thr_off[n] : 1) * sizeof *c->thr_idx);
            if (c->thr_idx == NULL)
                goto fail;
        }
    }
    if (threats) {
        /* The fill pass advanced each start to the next one's: shift back. */
        for (size_t w = n; w > 0; w--)
            c->thr_off[w] = c->thr_off[w - 1];
        c->thr_off[0] = 0;
    }
    /* A mover larger than a square asks about its whole space at every step: whether any of
     * it is threatened (rules__step_provokes) and whether any is occupied (rules__end_ok), in O(1)
     * each from a summed-area table rather than square by square. */
    if (c->side > 1) {
        c->occ_sat = window_sat(c, bit_occupied);
        c->thr_sat = threats ? window_sat(c, bit_threatened) : NULL;
        if (c->occ_sat == NULL || (threats && c->thr_sat == NULL))
            goto fail;
    }
    return 0;
fail:
    rules__ctx_free(c);
    return RULES_MOVE_ERR_NOMEM;
}

static bool square_threatened(const struct rules__move_ctx *c, int x, int y)
{
    if (c->thr_idx == NULL || !in_window(c, x, y))
        return false;
    size_t w = wcell(c, x, y);
    return c->thr_off[w + 1] > c->thr_off[w];
}

/* True when leaving the footprint at (x, y) on step `step` provokes (001 Walk, Threatened
 * Area; 004 Provoking an Attack of Opportunity by Moving). */
bool rules__step_provokes(const struct rules__move_ctx *c, int x, int y, int step)
{
    enum rules_move_mode mode = c->q->mode;
    if (mode == RULES_MODE_STEP)
        return false; /* 001 5-Foot Step: "without provoking attacks of opportunity" */
    /* 004: "If all a combatant does is take a normal move or a double move (not a run), the
     * space that the combatant started out in is not considered threatened": not after another
     * action this turn, and not for a second move action (mover.acted). */
    if (step == 0 && c->o->start_square == RULES_START_SQUARE_SAFE &&
        (mode == RULES_MODE_MOVE || mode == RULES_MODE_DOUBLE) && !c->q->mover->acted)
        return false;
    if (c->side == 1 || c->hex) {
        int fx[3], fy[3];
        int n = rules__footprint(c, x, y, fx, fy);
        for (int i = 0; i < n; i++)
            if (square_threatened(c, fx[i], fy[i]))
                return true;
        return false;
    }
    if (c->thr_sat == NULL)
        return false; /* no threats set up */
    /* Squares outside the window are threatened by nobody the search knows of. */
    int x0 = x < c->wx0 ? c->wx0 : x, y0 = y < c->wy0 ? c->wy0 : y;
    int x1 = x + c->side, y1 = y + c->side;
    x1 = x1 > c->wx0 + c->ww ? c->wx0 + c->ww : x1;
    y1 = y1 > c->wy0 + c->wh ? c->wy0 + c->wh : y1;
    return x1 > x0 && y1 > y0 && sat_box(c, c->thr_sat, x0, y0, x1, y1) > 0;
}

/* The creature on (x, y), outside the window (paths reaching past it: inside it, the window's
 * CI_* bits tell): looked for through the list. */
static int creature_at(const struct rules__move_ctx *c, int x, int y)
{
    for (int i = 0; i < c->q->creature_count; i++) {
        const struct rules_body *b = &c->q->creatures[i].c.body;
        if (c->hex) {
            int hq[3], hr[3];
            int n = rules_hex_members(b, hq, hr);
            for (int j = 0; j < n; j++)
                if (hq[j] == x && hr[j] == y)
                    return i;
        } else if (x >= b->x && x < b->x + b->side && y >= b->y && y < b->y + b->side) {
            return i;
        }
    }
    return -1;
}

/* 001 Stepover: two size categories or more larger. */
static bool steps_over(const struct rules__move_ctx *c, int k)
{
    return (int)c->m->c.size >= (int)c->q->creatures[k].c.size + 2;
}

unsigned rules_terrain_move_types(enum rules_map_terrain t)
{
    switch (t) {
    case RULES_MAP_WATER:
        return 1u << RULES_MOVE_SWIM | 1u << RULES_MOVE_FLY;
    case RULES_MAP_AIR:
        return 1u << RULES_MOVE_FLY;
    case RULES_MAP_EARTH:
        return 1u << RULES_MOVE_BURROW;
    case RULES_MAP_BLOCKED:
        return 0;
    default:
        return 1u << RULES_MOVE_WALK | 1u << RULES_MOVE_FLY;
    }
}

/* The bits of map square mi that depend on the terrain and the mover's size. */
uint32_t rules__terrain_info(const struct rules__move_ctx *c, size_t mi)
{
    const struct rules_map *map = c->map;
    uint8_t t = map->terrain[mi];
    uint32_t ci = rules_terrain_move_types((enum rules_map_terrain)t);
    if (t == RULES_MAP_BLOCKED)
        ci |= CI_BLOCKED;
    if ((t == RULES_MAP_BLOCKED || t == RULES_MAP_EARTH) &&
        !(map->flags[mi] & RULES_SQUARE_CUTTABLE))
        ci |= CI_SOLID;
    if (t == RULES_MAP_DIFFICULT)
        ci |= CI_DIFF;
    if (t == RULES_MAP_IMPEDED)
        ci |= CI_IMP;
    if (t == RULES_MAP_HAZARDOUS)
        ci |= CI_HAZ;
    if (map->flags[mi] & RULES_SQUARE_CONCEALED)
        ci |= CI_CONC;
    if (map->gap_in != NULL && map->gap_in[mi] != 0) {
        const struct rules_size_info *sz = rules_size_info(c->m->c.size);
        int g = map->gap_in[mi];
        if (g < sz->impeded_gap_in)
            ci |= CI_GAP;
        else if (g < sz->squeeze_gap_in)
            ci |= CI_SQUEEZE | CI_IMP; /* "considered impeded terrain, in addition to ..." */
        else if (g < sz->fit_gap_in)
            ci |= CI_SQUEEZE;
    }
    return ci;
}

/* The bits creature k puts on its squares for this mover. */
uint32_t rules__creature_info(const struct rules__move_ctx *c, int k)
{
    const struct rules_map_creature *mc = &c->q->creatures[k];
    if (steps_over(c, k))
        return CI_OVER;
    return !mc->ally && mc->conscious ? CI_OCC | CI_ENEMY : CI_OCC;
}

void rules__terrain_plain(const struct rules__move_ctx *c, uint32_t plain[256])
{
    memset(plain, 0, 256 * sizeof *plain);
    for (int t = 0; t < RULES_MAP_COUNT; t++) {
        struct rules_map one = {.width = 1, .height = 1};
        uint8_t terrain = (uint8_t)t, flags = 0;
        one.terrain = &terrain, one.flags = &flags;
        struct rules__move_ctx probe = *c;
        probe.map = &one;
        plain[t] = rules__terrain_info(&probe, 0);
    }
}

static uint32_t compute_info(const struct rules__move_ctx *c, int x, int y)
{
    if (!on_map(c->map, x, y))
        return CI_OFFMAP;
    uint32_t ci = rules__terrain_info(c, mcell(c->map, x, y));
    int k = creature_at(c, x, y);
    return k >= 0 ? ci | rules__creature_info(c, k) : ci;
}

static uint32_t cell_info(const struct rules__move_ctx *c, int x, int y)
{
    return in_window(c, x, y) ? c->info[wcell(c, x, y)] : compute_info(c, x, y);
}

/* Prices the step from (x, y) to (x + dx, y + dy) with `parity` diagonals counted so far
 * (000's alternating rule). Budget checks are the caller's: they depend on the type. */
void rules__eval_step(const struct rules__move_ctx *c, int x, int y, int dx, int dy, int parity,
                      int step, struct rules__step_eval *e)
{
    enum rules_move_mode mode = c->q->mode;
    *e = (struct rules__step_eval){0};
    int tx = x + dx, ty = y + dy;
    uint32_t all = 0, types = CI_TYPES;
    if (c->side == 1 && !c->hex) {
        all = cell_info(c, tx, ty);
        types = all;
    } else if (!c->hex) {
        /* 001: "Leaving a square is always free"; squares entered count: those of the space
         * at (tx, ty) outside the space at (x, y), at most two of its edges for a step. */
        int n = c->side;
        for (int yy = ty; yy < ty + n; yy++) {
            bool old_row = yy >= y && yy < y + n;
            for (int xx = tx; xx < tx + n; xx++) {
                if (old_row && xx >= x && xx < x + n) {
                    xx = x + n - 1; /* the old space's part of this row */
                    continue;
                }
                uint32_t ci = cell_info(c, xx, yy);
                all |= ci;
                types &= ci;
            }
        }
    } else {
        int ox[MAX_FOOT], oy[MAX_FOOT], nx[MAX_FOOT], ny[MAX_FOOT];
        int on = rules__footprint(c, x, y, ox, oy), nn = rules__footprint(c, tx, ty, nx, ny);
        for (int i = 0; i < nn; i++) {
            if (in_footprint(ox, oy, on, nx[i], ny[i]))
                continue; /* 001: "Leaving a square is always free"; squares entered count */
            uint32_t ci = cell_info(c, nx[i], ny[i]);
            all |= ci;
            types &= ci;
        }
    }
    if (all & CI_OFFMAP)
        e->bad |= BIT(RULES_MV_OFF_MAP);
    if (all & CI_BLOCKED)
        e->bad |= BIT(RULES_MV_BLOCKED);
    if (all & CI_GAP)
        e->bad |= BIT(RULES_MV_GAP);
    if (all & CI_ENEMY)
        e->bad |= BIT(RULES_MV_ENEMY_SQUARE);
    bool diff = all & CI_DIFF, squeeze = all & CI_SQUEEZE, imp = all & CI_IMP;
    bool haz = all & CI_HAZ, conc = all & CI_CONC, over = all & CI_OVER;
    e->diagonal = !c->hex && dx != 0 && dy != 0;
    if (e->diagonal) {
        /* 001 Cutting Corners: the two squares beside the diagonal, outside both spaces. */
        int n = c->side;
        int c1x = dx > 0 ? x + n : x - 1, c1y = dy > 0 ? y : y + n - 1;
        int c2x = dx > 0 ? x : x + n - 1, c2y = dy > 0 ? y + n : y - 1;
        if ((cell_info(c, c1x, c1y) | cell_info(c, c2x, c2y)) & CI_SOLID)
            e->bad |= BIT(RULES_MV_CORNER);
    }
    unsigned with_speed = types & c->speed_types;
    e->types = with_speed;
    if (with_speed == 0 && !(e->bad & BIT(RULES_MV_BLOCKED)) && !(e->bad & BIT(RULES_MV_OFF_MAP)))
        e->bad |= BIT(RULES_MV_NO_SPEED);
    if (over)
        e->why |= RULES_COST_STEPOVER;
    if (haz)
        e->why |= RULES_COST_HAZARDOUS;
    int base = 5;
    if (mode == RULES_MODE_STEP) {
        /* 001 5-Foot Step: one square, into "any adjacent square" (000), never doubled. */
        e->why |= RULES_COST_FIVE_FOOT;
        if (diff || imp || squeeze)
            e->bad |= BIT(RULES_MV_STEP_TERRAIN);
        if (conc && !c->m->darkvision)
            e->bad |= BIT(RULES_MV_STEP_CONCEALED);
        if (step > 0)
            e->bad |= BIT(RULES_MV_STEP_LENGTH);
        e->cost_front = e->cost_back = 5;
        return;
    }
    if (e->diagonal && c->o->diagonals == RULES_DIAGONALS_ALTERNATING && parity) {
        base = 10; /* 000: "every other diagonal counts double" */
        e->why |= RULES_COST_DIAGONAL_DOUBLE;
    }
    if (diff)
        e->why |= RULES_COST_DIFFICULT;
    if (squeeze)
        e->why |= RULES_COST_SQUEEZE;
    if (diff || squeeze)
        base *= 2; /* 001 Difficult Terrain: "counts as two squares"; Squeezing: "difficult" */
    if ((mode == RULES_MODE_RUN || mode == RULES_MODE_CHARGE) && (diff || imp || squeeze))
        e->bad |= BIT(RULES_MV_RUN_TERRAIN);
    e->cost_front = base;
    e->cost_back = c->facing_cost ? 2 * base : base; /* 000: "costs two squares" */
    if (imp) {
        e->impeded = true;
        e->why |= RULES_COST_IMPEDED;
        e->cost_front = e->cost_back = c->impeded_cost;
        if (mode != RULES_MODE_DOUBLE || step > 0)
            e->bad |= BIT(RULES_MV_IMPEDED);
    }
    if (mode == RULES_MODE_WITHDRAW && c->q->primary_target >= 0) {
        const struct rules_creature *pt = &c->q->creatures[c->q->primary_target].c;
        struct rules_body from = c->m->c.body, to = c->m->c.body;
        from.x = x, from.y = y, to.x = tx, to.y = ty;
        struct rules_distance d0, d1;
        rules_distance(c->o, &from, &pt->body, &d0);
        rules_distance(c->o, &to, &pt->body, &d1);
        if (d1.squares <= d0.squares)
            e->bad |= BIT(RULES_MV_WITHDRAW_CLOSER);
    }
}

/* True when the mover may end with its space at (x, y). */
bool rules__end_ok(const struct rules__move_ctx *c, int x, int y)
{
    if (c->side == 1 && !c->hex)
        return !(cell_info(c, x, y) & CI_OCC);
    if (c->occ_sat != NULL && in_window(c, x, y) && in_window(c, x + c->side - 1, y + c->side - 1))
        return sat_box(c, c->occ_sat, x, y, x + c->side, y + c->side) == 0;
    int fx[MAX_FOOT], fy[MAX_FOOT];
    int n = rules__footprint(c, x, y, fx, fy);
    for (int i = 0; i < n; i++)
        if (cell_info(c, fx[i], fy[i]) & CI_OCC)
            return false;
    return true;
}

/* The reach search (movement.h, rules_move_reach and rules_reach_*): every square a mover can
 * reach with the action, at its cheapest price or with the fewest attacks of opportunity, and
 * the path and the attacks of each. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "rules/move/internal.h"
#include "rules/move/move.h"

/* Reach is Dijkstra's algorithm over states (square, facing, diagonal parity):
 *  - facing is part of the state only under 000 for a mover with a facing, because only there
 *    does it change a price: entering a square of one's flank or rear costs double. 000 lets a
 *    mover turn freely "before you step into each new square", so from (s, f) every facing f'
 *    may be taken for the next step, and the step costs single when it goes into the front of
 *    f', double otherwise; the state reached is (next square, f'). Facing changes therefore
 *    cost through the step they allow: keeping a facing toward an enemy while backing away is
 *    the double-priced move of 000's figure 2. At the end a mover may turn again, so every
 *    facing is possible on every square reached (except after a 5-foot step, where 000 allows
 *    one free change a turn);
 *  - parity is part of the state under the alternating diagonal rule (000), since the next
 *    diagonal's price depends on how many came before.
 * All prices are multiples of 5 ft and at most a small bound, so the queue is a ring of
 * buckets (Dial's algorithm): each push and pop is O(1).
 *
 * Preferring fewest attacks of opportunity runs the search in layers: layer k holds the
 * cheapest price of every state over paths with at most k provoking steps. Layer 0 never
 * takes a provoking step; the provoking steps out of layer k seed layer k + 1, which starts
 * from layer k's prices. A square's answer is the first layer that reaches it, at that
 * layer's price: fewest provoking steps, then cheapest. Budgets are respected throughout, so
 * every answer is a legal move. */

/* True when some eligible enemy threatens some square of the window. */
static bool any_threat(const struct rules__move_ctx *c)
{
    return c->thr_idx != NULL && c->thr_off[(size_t)c->ww * (size_t)c->wh] > 0;
}

struct bucket {
    uint32_t *v;
    size_t n, cap;
};

struct queue {
    struct bucket *b;
    size_t nb; /* a power of two */
    size_t size;
    uint32_t cur; /* the smallest key that may be queued */
};

static int queue_init(struct queue *qu, int max_step_units)
{
    size_t nb = 16;
    while (nb <= (size_t)max_step_units + 2)
        nb *= 2;
    qu->b = calloc(nb, sizeof *qu->b);
    qu->nb = nb, qu->size = 0, qu->cur = 0;
    return qu->b == NULL ? -1 : 0;
}

static void queue_free(struct queue *qu)
{
    for (size_t i = 0; qu->b != NULL && i < qu->nb; i++)
        free(qu->b[i].v);
    free(qu->b);
    qu->b = NULL;
}

static int queue_push(struct queue *qu, uint32_t key, uint32_t state)
{
    struct bucket *b = &qu->b[key & (qu->nb - 1)];
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        uint32_t *v = realloc(b->v, cap * 2 * sizeof *v);
        if (v == NULL)
            return -1;
        b->v = v, b->cap = cap;
    }
    b->v[2 * b->n] = key, b->v[2 * b->n + 1] = state;
    b->n++;
    qu->size++;
    return 0;
}

/* Pops an entry of the smallest key. */
static bool queue_pop(struct queue *qu, uint32_t *key, uint32_t *state)
{
    if (qu->size == 0)
        return false;
    for (;;) {
        struct bucket *b = &qu->b[qu->cur & (qu->nb - 1)];
        for (size_t i = b->n; i > 0; i--) {
            if (b->v[2 * (i - 1)] != qu->cur)
                continue;
            *key = b->v[2 * (i - 1)], *state = b->v[2 * (i - 1) + 1];
            b->v[2 * (i - 1)] = b->v[2 * (b->n - 1)];
            b->v[2 * (i - 1) + 1] = b->v[2 * (b->n - 1) + 1];
            b->n--;
            qu->size--;
            return true;
        }
        /* Drained, and no key below the next is ever queued again: its room goes back, so the
         * queue holds the frontier, not every state ever queued. */
        if (b->n == 0 && b->cap > 64) {
            free(b->v);
            b->v = NULL, b->cap = 0;
        }
        qu->cur++;
    }
}

struct search {
    struct rules__move_ctx c;
    int nf, np; /* facings and parities in the state */
    size_t cells, states;
    uint32_t start;
    int layers;
    uint32_t **dist; /* per layer */
    int32_t **pred;  /* per layer: prev state * 2 + (1 when it came from the layer before) */
    /* answers, per cell */
    uint32_t *best_cost;
    uint32_t *best_state;
    uint16_t *best_layer;
    /* the squares reached, in the order found */
    uint32_t *found;
    size_t found_n;
    /* scratch for the attack listing */
    uint32_t *seen_epoch;
    uint32_t epoch;
    uint32_t *expanded; /* facing searches: cheapest price expanded per (square, parity) */
    bool fast;          /* fast_step applies */
    uint8_t *sc;        /* one-square movers without facing: step_classes */
    bool split;         /* layered by provoking steps */
    int slow_units;     /* what an expansion priced step by step adds (expand_units - 1) */
    int capped_layer;   /* the last layer, which relaxed every step; -1 */
};

struct rules_reach {
    struct search s;
};

static uint32_t state_of(const struct search *s, size_t cell, int f, int p)
{
    return (uint32_t)((cell * (size_t)s->nf + (size_t)f) * (size_t)s->np + (size_t)p);
}

static void search_free(struct search *s)
{
    for (int i = 0; i < s->layers; i++) {
        free(s->dist[i]);
        free(s->pred[i]);
    }
    free(s->dist);
    free(s->pred);
    free(s->best_cost);
    free(s->best_state);
    free(s->best_layer);
    free(s->found);
    free(s->seen_epoch);
    free(s->expanded);
    free(s->sc);
    rules__ctx_free(&s->c);
}

/* Adds a layer of prices and predecessors, charging its states to the work budget first
 * (the first layer's were charged before the window was set up): setting up and copying a
 * layer costs about what expanding its states would, and a window of 16 million states took a
 * second to set up before the first expansion. */
static int add_layer(struct search *s)
{
    if (s->layers > 0 && !rules__charge(s->c.q, (long long)s->states))
        return RULES_MOVE_TOO_EXPENSIVE;
    uint32_t **d = realloc(s->dist, (size_t)(s->layers + 1) * sizeof *d);
    if (d == NULL)
        return -1;
    s->dist = d;
    int32_t **p = realloc(s->pred, (size_t)(s->layers + 1) * sizeof *p);
    if (p == NULL)
        return -1;
    s->pred = p;
    s->dist[s->layers] = malloc(s->states * sizeof **s->dist);
    s->pred[s->layers] = malloc(s->states * sizeof **s->pred);
    s->layers++;
    if (s->dist[s->layers - 1] == NULL || s->pred[s->layers - 1] == NULL)
        return -1;
    if (s->layers == 1)
        memset(s->dist[0], 0xff, s->states * sizeof **s->dist);
    else
        memcpy(s->dist[s->layers - 1], s->dist[s->layers - 2], s->states * sizeof **s->dist);
    memset(s->pred[s->layers - 1], 0xff, s->states * sizeof **s->pred);
    return 0;
}

struct seed {
    uint32_t state, cost;
    int32_t pred;
};

struct seeds {
    struct seed *v;
    size_t n, cap;
};

static int seeds_add(struct seeds *sd, uint32_t state, uint32_t cost, int32_t pred)
{
    if (sd->n == sd->cap) {
        size_t cap = sd->cap ? sd->cap * 2 : 256;
        struct seed *v = realloc(sd->v, cap * sizeof *v);
        if (v == NULL)
            return -1;
        sd->v = v, sd->cap = cap;
    }
    sd->v[sd->n++] = (struct seed){state, cost, pred};
    return 0;
}

static void state_pos(const struct search *s, uint32_t st, int *x, int *y, int *f, int *p)
{
    size_t v = st;
    *p = (int)(v % (size_t)s->np);
    v /= (size_t)s->np;
    *f = (int)(v % (size_t)s->nf);
    v /= (size_t)s->nf;
    *x = s->c.wx0 + (int)(v % (size_t)s->c.ww);
    *y = s->c.wy0 + (int)(v / (size_t)s->c.ww);
}

/* The common case in one place: a one-square mover on squares, any mode but a 5-foot step
 * or a withdraw, into a square that is not impeded. Gives the same answer as rules__eval_step (the
 * tests run both through rules_move_path and the searches); returns -1 when the step is
 * illegal, 0 when rules__eval_step must decide, 1 with the prices and the types that may enter. */
static inline __attribute__((always_inline)) int fast_step(const struct rules__move_ctx *c,
                                                           size_t cell, int d, int parity,
                                                           int *front, int *back, unsigned *types,
                                                           bool *diagonal)
{
    int dx = sq_dirs[d][0], dy = sq_dirs[d][1];
    uint32_t ci = c->info[(size_t)((ptrdiff_t)cell + c->off[d])];
    if (ci & (CI_OFFMAP | CI_BLOCKED | CI_GAP | CI_ENEMY))
        return -1;
    if (ci & CI_IMP)
        return 0;
    *types = ci & c->speed_types;
    if (*types == 0)
        return -1;
    bool diag = dx != 0 && dy != 0;
    if (diag && ((c->info[(size_t)((ptrdiff_t)cell + dx)] |
                  c->info[(size_t)((ptrdiff_t)cell + (ptrdiff_t)dy * c->ww)]) &
                 CI_SOLID))
        return -1;
    int base = diag && parity && c->o->diagonals == RULES_DIAGONALS_ALTERNATING ? 10 : 5;
    if (ci & (CI_DIFF | CI_SQUEEZE)) {
        if (c->q->mode == RULES_MODE_RUN || c->q->mode == RULES_MODE_CHARGE)
            return -1;
        base *= 2;
    }
    *front = base;
    *back = c->facing_cost ? 2 * base : base;
    *diagonal = diag;
    return 1;
}

/* One byte a window square for the search's inner loop: the movement types that may enter
 * (CI_TYPES), the price class (0 closed to this mover and mode, 1 single, 2 double, 3
 * impeded: decided by rules__eval_step) and SC_SOLID for a corner that cannot be cut. */
#define SC_SOLID 0x80u

/* The class byte of one square's bits. */
static uint8_t classify(const struct rules__move_ctx *c, uint32_t ci)
{
    bool runlike = c->q->mode == RULES_MODE_RUN || c->q->mode == RULES_MODE_CHARGE;
    unsigned types = ci & c->speed_types, cls = 1;
    if ((ci & (CI_OFFMAP | CI_BLOCKED | CI_GAP | CI_ENEMY)) || types == 0)
        cls = 0;
    else if (ci & CI_IMP)
        cls = 3;
    else if (ci & (CI_DIFF | CI_SQUEEZE))
        cls = runlike ? 0 : 2;
    return (uint8_t)(types | cls << 5 | (ci & CI_SOLID ? SC_SOLID : 0));
}

static int step_classes(struct search *s)
{
    const struct rules__move_ctx *c = &s->c;
    s->sc = malloc(s->cells);
    if (s->sc == NULL)
        return -1;
    for (size_t i = 0; i < s->cells; i++)
        s->sc[i] = classify(c, c->info[i]);
    return 0;
}

/* Expands state st (at window cell cell0, parity p, `spent` feet in) the common way, one byte
 * a square (see step_classes): the same rules as fast_step, without the general bookkeeping.
 * Sets *slow when a neighbour is impeded (the general expansion then decides). Returns 0, or
 * -1 when the queue cannot grow. */
static int expand_classed(struct search *s, struct queue *qu, uint32_t st, size_t cell0, int p,
                          int spent, bool *slow)
{
    struct rules__move_ctx *c = &s->c;
    uint32_t *dist = s->dist[s->layers - 1];
    int32_t *pred = s->pred[s->layers - 1];
    bool alt = s->np > 1 && p;
    for (int d = 0; d < 8; d++) {
        size_t tc = (size_t)((ptrdiff_t)cell0 + c->off[d]);
        unsigned k = s->sc[tc], cls = (k >> 5) & 3u;
        if (cls == 0)
            continue;
        int cost = 5, np = p;
        if (d & 1) { /* odd directions are the diagonals */
            size_t c1 = (size_t)((ptrdiff_t)cell0 + sq_dirs[d][0]);
            size_t c2 = (size_t)((ptrdiff_t)cell0 + (ptrdiff_t)sq_dirs[d][1] * c->ww);
            if ((s->sc[c1] | s->sc[c2]) & SC_SOLID)
                continue;
            cost = alt ? 10 : 5;
            np = s->np > 1 ? p ^ 1 : 0;
        }
        if (cls == 3) {
            *slow = true; /* impeded: the general loop decides */
            return 0;
        }
        cost *= (int)cls;
        if (spent + cost > c->type_budget[k & CI_TYPES])
            continue;
        uint32_t nd = (uint32_t)(spent + cost), ns = (uint32_t)(tc * (size_t)s->np) + (uint32_t)np;
        if (nd >= dist[ns])
            continue;
        dist[ns] = nd;
        pred[ns] = (int32_t)st * 2;
        if (queue_push(qu, nd / 5, ns) != 0)
            return -1;
    }
    return 0;
}

/* Where a step from a state lands, and what the state is. */
struct expansion {
    uint32_t st;  /* the state expanded */
    int x, y, p;  /* its square and diagonal parity */
    int spent;    /* feet spent to reach it */
    int step;     /* 0 from the start, 1 after */
    size_t cell0; /* its window cell */
    bool provokes, inner;
};

/* Expands one state the general way, every direction priced by fast_step or rules__eval_step
 * into every facing; a provoking step's successors go to next instead. Returns 0, or -1 when
 * the queue or the seeds cannot grow. */
static int expand_priced(struct search *s, struct queue *qu, struct seeds *next,
                         const struct expansion *x)
{
    struct rules__move_ctx *c = &s->c;
    uint32_t *dist = s->dist[s->layers - 1];
    int32_t *pred = s->pred[s->layers - 1];
    const int(*dirs)[2] = rules__dirs_of(c);
    for (int d = 0; d < c->ndirs; d++) {
        int tx = x->x + dirs[d][0], ty = x->y + dirs[d][1];
        if (!in_window(c, tx, ty))
            continue;
        struct rules__step_eval e = {0};
        int fs = s->fast && x->inner ? fast_step(c, x->cell0, d, x->p, &e.cost_front, &e.cost_back,
                                                 &e.types, &e.diagonal)
                                     : 0;
        if (fs < 0)
            continue;
        if (fs == 0)
            rules__eval_step(c, x->x, x->y, dirs[d][0], dirs[d][1], x->p, x->step, &e);
        if (e.bad)
            continue;
        int np = c->o->diagonals == RULES_DIAGONALS_ALTERNATING && e.diagonal ? x->p ^ 1 : x->p;
        if (s->np == 1)
            np = 0;
        size_t cell = (size_t)((ptrdiff_t)x->cell0 + c->off[d]);
        assert(cell == wcell(c, tx, ty));
        for (int nf = 0; nf < s->nf; nf++) {
            int cost = e.cost_front;
            if (s->nf > 1 && !dir_in_front(c, d, nf))
                cost = e.cost_back;
            if (e.impeded)
                cost = c->max_budget - x->spent;
            if (x->spent + cost > c->type_budget[e.types])
                continue; /* no type that may enter has the price left (pick_type) */
            uint32_t nd = (uint32_t)(x->spent + cost);
            uint32_t ns = state_of(s, cell, nf, np);
            if (x->provokes) {
                if (nd < dist[ns] && seeds_add(next, ns, nd, (int32_t)x->st * 2 + 1) != 0)
                    return -1;
                continue;
            }
            if (nd >= dist[ns])
                continue;
            dist[ns] = nd;
            pred[ns] = (int32_t)x->st * 2;
            if (queue_push(qu, nd / 5, ns) != 0)
                return -1;
        }
    }
    return 0;
}

/* One layer of the search from the queued states. With `split`, provoking steps go to next
 * instead of being relaxed here. Route mode (goal != NULL) uses A* keys. */
static int run_layer(struct search *s, struct queue *qu, bool split, struct seeds *next)
{
    struct rules__move_ctx *c = &s->c;
    assert(s->layers > 0);
    if (s->expanded != NULL)
        memset(s->expanded, 0xff, s->cells * (size_t)s->np * sizeof *s->expanded);
    uint32_t *dist = s->dist[s->layers - 1];
    uint32_t key, st;
    while (queue_pop(qu, &key, &st)) {
        if (key != dist[st] / 5)
            continue;
        /* An expansion relaxes the successors of every facing at once (see below), so it
         * counts as nf states: a reach with facing costs its squares times 8. One priced step
         * by step (expand_priced) counts what rules_move_expand_units says. */
        if (!rules__charge(c->q, s->nf))
            return RULES_MOVE_TOO_EXPENSIVE;
        struct expansion x = {.st = st, .spent = (int)dist[st]};
        int f;
        state_pos(s, st, &x.x, &x.y, &f, &x.p);
        if (x.spent >= c->max_budget)
            continue;
        if (s->nf > 1) {
            /* Turning is free while moving (000), so every facing at this square and parity
             * has the same successors: only the cheapest one is expanded. */
            size_t ek = (st / (uint32_t)(s->nf * s->np)) * (size_t)s->np + (size_t)x.p;
            if ((uint32_t)x.spent >= s->expanded[ek])
                continue;
            s->expanded[ek] = (uint32_t)x.spent;
        }
        x.step = st == s->start ? 0 : 1;
        x.provokes = split && rules__step_provokes(c, x.x, x.y, x.step);
        x.cell0 = st / (uint32_t)(s->nf * s->np);
        /* Squares on the window's edge may look past it: those take the general path. */
        x.inner =
            x.x > c->wx0 && x.y > c->wy0 && x.x + 1 < c->wx0 + c->ww && x.y + 1 < c->wy0 + c->wh;
        if (x.inner && s->sc != NULL && !x.provokes) {
            bool slow = false;
            if (expand_classed(s, qu, st, x.cell0, x.p, x.spent, &slow) != 0)
                return -1;
            if (!slow)
                continue;
        }
        if (!(s->fast && x.inner) && s->slow_units > 0 && !rules__charge(c->q, s->slow_units))
            return RULES_MOVE_TOO_EXPENSIVE; /* priced by rules__eval_step, square by square */
        if (expand_priced(s, qu, next, &x) != 0)
            return -1;
    }
    return 0;
}

/* Records, for every cell, the first layer that reaches it where the mover may end. */
static int record_layer(struct search *s)
{
    int L = s->layers - 1;
    size_t start_cell = s->start / (uint32_t)(s->nf * s->np);
    for (size_t cell = 0; cell < s->cells; cell++) {
        if (s->best_layer[cell] != UINT16_MAX || cell == start_cell)
            continue;
        uint32_t best = UNREACHED, bst = 0;
        for (int f = 0; f < s->nf; f++)
            for (int p = 0; p < s->np; p++) {
                uint32_t st = state_of(s, cell, f, p);
                if (s->dist[L][st] < best)
                    best = s->dist[L][st], bst = st;
            }
        if (best == UNREACHED)
            continue;
        int x = s->c.wx0 + (int)(cell % (size_t)s->c.ww),
            y = s->c.wy0 + (int)(cell / (size_t)s->c.ww);
        if (!rules__end_ok(&s->c, x, y))
            continue;
        s->best_cost[cell] = best;
        s->best_state[cell] = bst;
        s->best_layer[cell] = (uint16_t)L;
        s->found[s->found_n++] = (uint32_t)cell;
    }
    return 0;
}

/* Layers of the fewest-attacks search: at most 64, and at most 32 MB of prices and
 * predecessors (a request's memory stays within the 64 MB: 256 MB allowed 8 layers of
 * a 1,000 x 1,000 map). The last layer allowed relaxes every step, so every reachable square is
 * still found; its squares report the provoking steps of the path they got. */
#define MAX_LAYERS  64
#define LAYER_BYTES (32u * 1024 * 1024)

/* The window a reach searches: the budget bounds it, as every step costs at least 5 ft. */
static void reach_window(const struct rules_move_query *q, int *x0, int *y0, int *x1, int *y1)
{
    const struct rules_body *b = &q->mover->c.body;
    struct rules__move_ctx probe = {.q = q, .o = q->o, .m = q->mover};
    rules__set_budgets(&probe, false);
    int radius = probe.max_budget / 5 + 1;
    *x0 = b->x - radius, *y0 = b->y - radius;
    *x1 = b->x + b->side + radius, *y1 = b->y + b->side + radius;
}

/* Facings and parities in a search's state (see the top). */
static void state_shape(const struct rules_move_query *q, int *nf, int *np)
{
    bool hex = q->o->grid == RULES_GRID_HEX;
    bool facing_cost = q->o->facing == RULES_FACING_000 && rules_has_facing(q->o, &q->mover->c);
    *nf = facing_cost ? (hex ? 6 : 8) : 1;
    *np = !hex && q->o->diagonals == RULES_DIAGONALS_ALTERNATING ? 2 : 1;
}

int rules_move_expand_units(const struct rules_move_query *q)
{
    /* A step priced square by square (rules__eval_step) costs about two plain expansions, plus the
     * squares the space enters (about two of its edges, and the corners beside a diagonal) at
     * a dozen squares a unit: bench/cost_bench measures the plain loop, hexes and a Colossal
     * mover at about the same time per unit with these weights. */
    bool hex = q->o->grid == RULES_GRID_HEX;
    int side = hex ? 1 : q->mover->c.body.side;
    int dirs = hex ? 6 : 8;
    return 1 + dirs * (2 + (2 * side + 1) / 12);
}

void rules_move_reach_estimate(const struct rules_move_query *q, bool prefer_fewest_aoo,
                               struct rules_move_estimate *out)
{
    (void)prefer_fewest_aoo; /* its later layers depend on the board: charged as they come */
    int x0, y0, x1, y1, nf, np;
    reach_window(q, &x0, &y0, &x1, &y1);
    long long threats = rules_move_threat_tests(q, x0, y0, x1, y1);
    rules__clip_window(q->map, &x0, &y0, &x1, &y1);
    state_shape(q, &nf, &np);
    out->states = (long long)(x1 - x0) * (y1 - y0) * nf * np;
    out->threat_tests = threats;
    out->expand_units = rules_move_expand_units(q);
}

int rules_move_reach(const struct rules_move_query *q, bool prefer_fewest_aoo,
                     struct rules_reach **out)
{
    *out = NULL;
    /* What it will set up, charged before anything is: the first layer's states, then (by
     * rules__ctx_init) the squares tested for a threat. */
    struct rules_move_estimate est;
    rules_move_reach_estimate(q, prefer_fewest_aoo, &est);
    if (!rules__charge(q, est.states))
        return RULES_MOVE_TOO_EXPENSIVE;
    struct rules_reach *r = calloc(1, sizeof *r);
    if (r == NULL)
        return RULES_MOVE_ERR_NOMEM;
    struct search *s = &r->s;
    const struct rules_body *b = &q->mover->c.body;
    int x0, y0, x1, y1;
    reach_window(q, &x0, &y0, &x1, &y1);
    int rc = rules__ctx_init(&s->c, q, x0, y0, x1, y1, false, true);
    if (rc != 0) {
        free(r);
        return rc;
    }
    s->split = prefer_fewest_aoo;
    s->fast =
        s->c.side == 1 && !s->c.hex && q->mode != RULES_MODE_STEP && q->mode != RULES_MODE_WITHDRAW;
    s->capped_layer = -1;
    state_shape(q, &s->nf, &s->np);
    s->slow_units = est.expand_units - 1;
    s->cells = (size_t)s->c.ww * (size_t)s->c.wh;
    s->states = s->cells * (size_t)s->nf * (size_t)s->np;
    s->best_cost = malloc(s->cells * sizeof *s->best_cost);
    s->best_state = malloc(s->cells * sizeof *s->best_state);
    s->best_layer = malloc(s->cells * sizeof *s->best_layer);
    s->found = malloc(s->cells * sizeof *s->found);
    s->seen_epoch = calloc((size_t)q->creature_count + 1, sizeof *s->seen_epoch);
    struct queue qu = {0};
    struct seeds sd = {0}, nsd = {0};
    if (s->nf > 1)
        s->expanded = malloc(s->cells * (size_t)s->np * sizeof *s->expanded);
    if (s->fast && s->nf == 1 && step_classes(s) != 0)
        goto nomem;
    if (s->best_cost == NULL || s->best_state == NULL || s->best_layer == NULL ||
        (s->nf > 1 && s->expanded == NULL) || s->found == NULL || s->seen_epoch == NULL)
        goto nomem;
    rc = add_layer(s);
    if (rc != 0)
        goto fail;
    if (queue_init(&qu, s->c.max_budget / 5 + 8) != 0)
        goto nomem;
    memset(s->best_layer, 0xff, s->cells * sizeof *s->best_layer);
    bool blocked = rules__action_checks(&s->c) != 0;
    int start_f = s->nf > 1 ? q->mover->c.facing % s->nf : 0;
    s->start = state_of(s, wcell(&s->c, b->x, b->y), start_f, 0);
    if (!blocked) {
        s->dist[0][s->start] = 0;
        if (queue_push(&qu, 0, s->start) != 0)
            goto nomem;
    }
    size_t per_layer = s->states * (sizeof **s->dist + sizeof **s->pred);
    int max_layers = (int)(LAYER_BYTES / (per_layer ? per_layer : 1));
    max_layers = max_layers < 2 ? 2 : max_layers > MAX_LAYERS ? MAX_LAYERS : max_layers;
    for (;;) {
        bool last = s->layers >= max_layers;
        if (last)
            s->capped_layer = s->layers - 1;
        rc = run_layer(s, &qu, prefer_fewest_aoo && !last, &nsd);
        if (rc != 0)
            goto fail;
        record_layer(s);
        if (!prefer_fewest_aoo || nsd.n == 0 || last)
            break;
        struct seeds t = sd;
        sd = nsd, nsd = t;
        nsd.n = 0;
        /* Its seeds (the provoking steps out of the layer before) are queued states too. */
        if (!rules__charge(q, (long long)sd.n)) {
            rc = RULES_MOVE_TOO_EXPENSIVE;
            goto fail;
        }
        rc = add_layer(s);
        if (rc != 0)
            goto fail;
        int L = s->layers - 1;
        bool any = false;
        qu.cur = UINT32_MAX;
        for (size_t i = 0; i < sd.n; i++) {
            struct seed *e = &sd.v[i];
            if (e->cost >= s->dist[L][e->state])
                continue;
            s->dist[L][e->state] = e->cost;
            s->pred[L][e->state] = e->pred;
            qu.cur = e->cost / 5 < qu.cur ? e->cost / 5 : qu.cur;
            if (queue_push(&qu, e->cost / 5, e->state) != 0)
                goto nomem;
            any = true;
        }
        if (!any)
            break;
    }
    free(sd.v);
    free(nsd.v);
    queue_free(&qu);
    *out = r;
    return RULES_MOVE_OK;
nomem:
    rc = RULES_MOVE_ERR_NOMEM;
fail:
    free(sd.v);
    free(nsd.v);
    queue_free(&qu);
    search_free(s);
    free(r);
    return rc;
}

static int walk_back(const struct search *s, int i, uint32_t *states, int max);

/* Steps of the path found to square i that leave a threatened square. */
static int provoking_steps(const struct search *s, int i)
{
    if (!any_threat(&s->c))
        return 0;
    int max = s->c.max_budget / 5 + 2;
    uint32_t *states = malloc((size_t)max * sizeof *states);
    if (states == NULL)
        return 0;
    int n = walk_back(s, i, states, max), count = 0, x, y, f, p;
    rules__charge(s->c.q, n);
    state_pos(s, s->start, &x, &y, &f, &p);
    for (int j = n; j > 0; j--) {
        count += rules__step_provokes(&s->c, x, y, n - j);
        state_pos(s, states[j - 1], &x, &y, &f, &p);
    }
    free(states);
    return count;
}

int rules_reach_count(const struct rules_reach *r)
{
    return (int)r->s.found_n;
}

void rules_reach_get(const struct rules_reach *r, int i, struct rules_reach_square *out)
{
    const struct search *s = &r->s;
    uint32_t cell = s->found[i];
    out->x = s->c.wx0 + (int)(cell % (uint32_t)s->c.ww);
    out->y = s->c.wy0 + (int)(cell / (uint32_t)s->c.ww);
    out->cost_ft = (int)s->best_cost[cell];
    out->provoking_steps = s->split && s->best_layer[cell] != s->capped_layer
                               ? s->best_layer[cell]
                               : provoking_steps(s, i);
    const struct rules_mover *m = s->c.q->mover;
    out->facings = 0;
    if (rules_has_facing(s->c.o, &m->c)) {
        int nf = rules_facing_count(s->c.o);
        if (s->c.q->mode == RULES_MODE_STEP && m->turned)
            out->facings = (uint8_t)(1u << m->c.facing);
        else
            out->facings = (uint8_t)((1u << nf) - 1);
    }
}

/* Walks the predecessors of square i back to the start: states in reverse order. */
static int walk_back(const struct search *s, int i, uint32_t *states, int max)
{
    uint32_t cell = s->found[i];
    uint32_t st = s->best_state[cell];
    int L = s->best_layer[cell], n = 0;
    while (st != s->start && n < max) {
        states[n++] = st;
        int l = L;
        while (l > 0 && s->pred[l][st] < 0)
            l--;
        int32_t pr = s->pred[l][st];
        if (pr < 0)
            break;
        st = (uint32_t)pr >> 1;
        L = l - (pr & 1);
    }
    return n;
}

int rules_reach_path(const struct rules_reach *r, int i, struct rules_step *steps, int max)
{
    const struct search *s = &r->s;
    uint32_t *states = malloc((size_t)(max > 0 ? max : 1) * sizeof *states);
    if (states == NULL)
        return 0;
    int n = walk_back(s, i, states, max);
    for (int j = 0; j < n; j++) {
        int x, y, f, p;
        state_pos(s, states[n - 1 - j], &x, &y, &f, &p);
        steps[j] = (struct rules_step){.x = x, .y = y, .facing = s->nf > 1 ? f : -1};
    }
    free(states);
    return n;
}

int rules_reach_aoos(struct rules_reach *r, int i, int *creatures, int *from_x, int *from_y)
{
    struct search *s = &r->s;
    struct rules__move_ctx *c = &s->c;
    if (!any_threat(c))
        return 0; /* nobody threatens a square: no path provokes */
    int max = c->max_budget / 5 + 2;
    uint32_t *states = malloc((size_t)max * sizeof *states);
    if (states == NULL)
        return 0;
    int n = walk_back(s, i, states, max);
    rules__charge(c->q, n);
    if (++s->epoch == 0)
        s->epoch = 1;
    int count = 0, x, y, f, p;
    state_pos(s, s->start, &x, &y, &f, &p);
    for (int j = n; j > 0; j--) {
        int step = n - j;
        if (rules__step_provokes(c, x, y, step)) {
            int fx[MAX_FOOT], fy[MAX_FOOT];
            int fn = rules__footprint(c, x, y, fx, fy);
            for (int k = 0; k < fn; k++) {
                if (!in_window(c, fx[k], fy[k]))
                    continue;
                size_t w = wcell(c, fx[k], fy[k]);
                rules__charge(c->q, (long long)(c->thr_off[w + 1] - c->thr_off[w])); /* looked at */
                for (uint32_t t = c->thr_off[w]; t < c->thr_off[w + 1]; t++) {
                    int e = c->thr_idx[t];
                    if (s->seen_epoch[e] == s->epoch)
                        continue;
                    s->seen_epoch[e] = s->epoch;
                    creatures[count] = e, from_x[count] = x, from_y[count] = y;
                    count++;
                }
            }
        }
        state_pos(s, states[j - 1], &x, &y, &f, &p);
    }
    free(states);
    return count;
}

void rules_reach_free(struct rules_reach *r)
{
    if (r == NULL)
        return;
    search_free(&r->s);
    free(r);
}

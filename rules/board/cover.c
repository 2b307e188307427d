/* Cover and concealment by the d20 3.5 SRD's corner-to-corner lines (see cover.h). */
#include "rules/board/cover.h"

const char *const rules_degree_names[] = {"none",        "quarter", "half", "three_quarters",
                                          "nine_tenths", "total",   NULL};

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static_assert(sizeof rules_degree_names / sizeof rules_degree_names[0] == RULES_COVER_TOTAL + 2,
              "one name per degree, then NULL");
static_assert((int)RULES_CONCEAL_TOTAL == (int)RULES_COVER_TOTAL,
              "cover and concealment share the names");

/* A bound on the work of one ruling: lines times the squares each crosses. A fight on a
 * 100,000-square map between two Colossal creatures stays well inside it. */
#define WORK_MAX 8000000LL

static long long floor_div(long long a, long long b) /* b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static long long ceil_div(long long a, long long b) /* b > 0 */
{
    return -floor_div(-a, b);
}

/* The sign of the cross product of (x2 - x1, y2 - y1) and (px - x1, py - y1). */
static int side_of(long long x1, long long y1, long long x2, long long y2, long long px,
                   long long py)
{
    long long c = (x2 - x1) * (py - y1) - (y2 - y1) * (px - x1);
    return (c > 0) - (c < 0);
}

/* The segment's line separates two corners of the rectangle strictly (so it crosses the
 * interior), and the segment's box overlaps the open rectangle; with lattice end points, which
 * are never inside an open rectangle with lattice corners, that is the segment crossing it. */
bool rules_segment_crosses_rect(long long x1, long long y1, long long x2, long long y2,
                                long long rx, long long ry, long long w, long long h)
{
    long long lox = x1 < x2 ? x1 : x2, hix = x1 < x2 ? x2 : x1;
    long long loy = y1 < y2 ? y1 : y2, hiy = y1 < y2 ? y2 : y1;
    if (!(lox < rx + w && hix > rx && loy < ry + h && hiy > ry))
        return false;
    int pos = 0, neg = 0;
    long long cx[4] = {rx, rx + w, rx + w, rx}, cy[4] = {ry, ry, ry + h, ry + h};
    for (int i = 0; i < 4; i++) {
        int s = side_of(x1, y1, x2, y2, cx[i], cy[i]);
        pos |= s > 0;
        neg |= s < 0;
    }
    return pos && neg;
}

/* What a ruling looks for along its lines. */
enum look { LOOK_COVER, LOOK_WALLS, LOOK_CONCEALMENT };

struct walk {
    const struct rules_map *m;
    const struct rules_creature *attacker, *target, *others;
    int other_count;
    enum look look;
    long long work;
    /* Found along the current line, when recording. */
    struct rules_cover_square *found;
    int *found_count;
    bool *truncated;
};

static bool in_body(const struct rules_body *b, long long x, long long y)
{
    return x >= b->x && x < b->x + b->side && y >= b->y && y < b->y + b->side;
}

static void record(struct walk *w, int x, int y, int creature)
{
    if (w->found == NULL)
        return;
    for (int i = 0; i < *w->found_count; i++)
        if (w->found[i].x == x && w->found[i].y == y)
            return;
    if (*w->found_count == RULES_COVER_MAX_BLOCKING) {
        *w->truncated = true;
        return;
    }
    w->found[(*w->found_count)++] = (struct rules_cover_square){x, y, creature};
}

/* Whether the map square (x, y) is what w looks for. */
static bool square_counts(const struct walk *w, long long x, long long y)
{
    if (x < 0 || y < 0 || x >= w->m->width || y >= w->m->height)
        return false;
    size_t k = (size_t)y * (size_t)w->m->width + (size_t)x;
    if (w->look == LOOK_CONCEALMENT)
        return (w->m->flags[k] & RULES_SQUARE_CONCEALED) && !in_body(&w->attacker->body, x, y);
    return w->m->terrain[k] == RULES_MAP_BLOCKED;
}

/* Whether the segment from lattice point (x1, y1) to (x2, y2) passes through a square w looks
 * for (recording them when w records). Column by column: in column cx the line runs between
 * two heights, and crosses the interior of every square between them. */
static bool line_blocked(struct walk *w, long long x1, long long y1, long long x2, long long y2)
{
    bool hit = false;
    if (x1 > x2) {
        long long t = x1;
        x1 = x2, x2 = t;
        t = y1;
        y1 = y2, y2 = t;
    }
    long long dx = x2 - x1, dy = y2 - y1;
    if (dx != 0 && dy != 0) { /* along a grid line, it crosses no interior */
        long long c0 = x1 > 0 ? x1 : 0, c1 = x2 < w->m->width ? x2 : w->m->width;
        for (long long cx = c0; cx < c1; cx++) {
            long long na = y1 * dx + dy * (cx - x1), nb = y1 * dx + dy * (cx + 1 - x1);
            long long lo = na < nb ? na : nb, hi = na < nb ? nb : na;
            long long r0 = floor_div(lo, dx), r1 = ceil_div(hi, dx) - 1;
            if (r0 < 0)
                r0 = 0;
            if (r1 >= w->m->height)
                r1 = w->m->height - 1;
            w->work += r1 >= r0 ? r1 - r0 + 1 : 1;
            for (long long cy = r0; cy <= r1; cy++)
                if (square_counts(w, cx, cy)) {
                    hit = true;
                    if (w->found == NULL)
                        return true;
                    record(w, (int)cx, (int)cy, -1);
                }
        }
    }
    /* Borders: a line along a grid line passes through a border that blocks when the squares
     * on both its sides do, and a diagonal line through a corner where two blocking squares
     * meet, on the two sides of the line, passes through no gap. */
    long long g = llabs(dx) > llabs(dy) ? llabs(dx) : llabs(dy);
    if (dx != 0 && dy != 0) {
        long long a = llabs(dx), b = llabs(dy);
        while (b != 0) {
            long long t = a % b;
            a = b, b = t;
        }
        g = a;
    }
    for (long long k = dx == 0 || dy == 0 ? 0 : 1; k < g; k++) {
        long long px = x1 + dx / g * k, py = y1 + dy / g * k;
        long long sx[2], sy[2];
        w->work++;
        if (dy == 0) /* the edge from (px, py) to (px + 1, py) */
            sx[0] = sx[1] = px, sy[0] = py - 1, sy[1] = py;
        else if (dx == 0) { /* the edge from (px, py) to (px, py + 1), y1 < y2 or not */
            long long ey = dy > 0 ? py : py - 1;
            sx[0] = px - 1, sx[1] = px, sy[0] = sy[1] = ey;
        } else if ((dx > 0) == (dy > 0)) /* it enters NW and SE: the sides are NE and SW */
            sx[0] = px, sy[0] = py - 1, sx[1] = px - 1, sy[1] = py;
        else /* it enters NE and SW: the sides are NW and SE */
            sx[0] = px - 1, sy[0] = py - 1, sx[1] = px, sy[1] = py;
        if (square_counts(w, sx[0], sy[0]) && square_counts(w, sx[1], sy[1])) {
            hit = true;
            if (w->found == NULL)
                return true;
            record(w, (int)sx[0], (int)sy[0], -1);
            record(w, (int)sx[1], (int)sy[1], -1);
        }
    }
    if (w->look != LOOK_COVER)
        return hit;
    for (int i = 0; i < w->other_count; i++) {
        const struct rules_body *b = &w->others[i].body;
        w->work++;
        if (!rules_segment_crosses_rect(x1, y1, x2, y2, b->x, b->y, b->side, b->side))
            continue;
        hit = true;
        if (w->found == NULL)
            return true;
        /* The creature's squares the line crosses. */
        for (int yy = b->y; yy < b->y + b->side; yy++)
            for (int xx = b->x; xx < b->x + b->side; xx++)
                if (rules_segment_crosses_rect(x1, y1, x2, y2, xx, yy, 1, 1))
                    record(w, xx, yy, i);
    }
    return hit;
}

/* One choice of the attacker: lines from the attacker's corners ax[] ay[] (na of them) to the
 * four corners of the target's square (tx, ty). Counts the lines blocked, and sets bit 4 * i + j
 * of *mask (when not NULL) for each blocked line from corner i to corner j (see cover.h). */
static int choice_blocked(struct walk *w, const long long *ax, const long long *ay, int na,
                          long long tx, long long ty, unsigned *mask)
{
    int n = 0;
    long long cx[4] = {tx, tx + 1, tx + 1, tx}, cy[4] = {ty, ty, ty + 1, ty + 1};
    for (int i = 0; i < na; i++)
        for (int j = 0; j < 4; j++)
            if (line_blocked(w, ax[i], ay[i], cx[j], cy[j])) {
                n++;
                if (mask != NULL)
                    *mask |= 1u << (4 * i + j);
            }
    return n;
}

/* A choice: the attacker's corner (ranged) or square (melee), and the target's square. */
struct choice {
    long long ax[4], ay[4];
    int na;
    long long tx, ty;
    long long px, py; /* the corner or the square's north-west corner, reported */
};

/* The choices of the attacker, one at a time: index i of count. */
static int choice_count(const struct rules_creature *a, const struct rules_creature *t,
                        bool melee_adjacent)
{
    int sa = a->body.side, st = t->body.side;
    return (melee_adjacent ? sa * sa : (sa + 1) * (sa + 1)) * st * st;
}

static void choice_at(const struct rules_creature *a, const struct rules_creature *t,
                      bool melee_adjacent, int i, struct choice *c)
{
    int sa = a->body.side, st = t->body.side;
    int tsq = i % (st * st), asq = i / (st * st);
    c->tx = t->body.x + tsq % st;
    c->ty = t->body.y + tsq / st;
    if (melee_adjacent) {
        long long x = a->body.x + asq % sa, y = a->body.y + asq / sa;
        long long xs[4] = {x, x + 1, x + 1, x}, ys[4] = {y, y, y + 1, y + 1};
        memcpy(c->ax, xs, sizeof xs);
        memcpy(c->ay, ys, sizeof ys);
        c->na = 4;
        c->px = x, c->py = y;
    } else {
        c->ax[0] = c->px = a->body.x + asq % (sa + 1);
        c->ay[0] = c->py = a->body.y + asq / (sa + 1);
        c->na = 1;
    }
}

/* The attacker's best choice of corner and target square for walk w among the n choices (the
 * fewest of its `lines` lines blocked, the first on a tie), with its lines blocked in *blocked;
 * -1 when the walk ran past WORK_MAX. With walled (cover, not concealment), *walled is whether
 * every line of every choice is blocked by walls (SRD Total Cover), and the search goes on
 * while that may still hold. */
static int best_choice(struct walk *w, const struct rules_creature *attacker,
                       const struct rules_creature *target, bool madj, int n, int lines,
                       int *blocked, bool *walled)
{
    assert(n > 0 && blocked != NULL);
    int best = -1;
    struct choice c;
    for (int i = 0; i < n; i++) {
        choice_at(attacker, target, madj, i, &c);
        int b = choice_blocked(w, c.ax, c.ay, c.na, c.tx, c.ty, NULL);
        if (w->work > WORK_MAX)
            return -1;
        if (best < 0 || b < *blocked)
            best = i, *blocked = b;
        if (walled != NULL && *walled) {
            enum look keep = w->look;
            w->look = LOOK_WALLS;
            *walled = choice_blocked(w, c.ax, c.ay, c.na, c.tx, c.ty, NULL) == lines;
            w->look = keep;
        }
        if (*blocked == 0 && (walled == NULL || !*walled))
            break;
    }
    return best;
}

int rules_sight_between(const struct rules_options *o, const struct rules_map *m,
                        const struct rules_creature *attacker, const struct rules_creature *target,
                        const struct rules_creature *others, int other_count, bool melee,
                        bool darkvision, struct rules_sight *out)
{
    memset(out, 0, sizeof *out);
    if (o->grid == RULES_GRID_HEX)
        return RULES_COVER_ERR_HEX;
    if (attacker->body.side < 1 || target->body.side < 1 ||
        attacker->body.side > RULES_COVER_MAX_SIDE || target->body.side > RULES_COVER_MAX_SIDE)
        return RULES_COVER_ERR_BOUNDS;
    bool adjacent =
        rules_span_gap(attacker->body.x, attacker->body.side, target->body.x, target->body.side) <=
            1 &&
        rules_span_gap(attacker->body.y, attacker->body.side, target->body.y, target->body.side) <=
            1; /* rules_span_gap counts squares: 1 for neighbours */
    bool madj = out->melee_adjacent = melee && adjacent;
    struct walk w = {m, attacker, target, others, other_count, LOOK_COVER, 0, NULL, NULL, NULL};
    /* SRD: against an adjacent target in melee only walls give cover. */
    if (madj)
        w.look = LOOK_WALLS;
    int n = choice_count(attacker, target, madj);
    if ((long long)n * 4 * (madj ? 4 : 1) > WORK_MAX / 16)
        return RULES_COVER_ERR_BOUNDS;

    /* Cover: the attacker's best choice (fewest lines blocked, the first on a tie). */
    int best_blocked = 0, lines = madj ? 16 : 4;
    bool every_line_walled = true;
    int best = best_choice(&w, attacker, target, madj, n, lines, &best_blocked, &every_line_walled);
    if (best < 0)
        return RULES_COVER_ERR_BOUNDS;
    struct choice c;
    choice_at(attacker, target, madj, best, &c);
    out->corner_x = (int)c.px, out->corner_y = (int)c.py;
    out->target_x = (int)c.tx, out->target_y = (int)c.ty;
    out->lines = lines;
    out->lines_blocked = best_blocked;
    if (every_line_walled)
        out->cover = RULES_COVER_TOTAL; /* SRD Total Cover; 002 Table: Cover, "Total" */
    else if (best_blocked > 0)
        out->cover = RULES_COVER_HALF; /* SRD +4; 002 "One-half" */
    if (out->cover != RULES_COVER_NONE) {
        w.found = out->blocking;
        w.found_count = &out->blocking_count;
        w.truncated = &out->blocking_truncated;
        choice_blocked(&w, c.ax, c.ay, c.na, c.tx, c.ty, &out->line_mask);
    }

    /* Concealment. */
    if (darkvision)
        return RULES_COVER_OK;
    struct walk cw = {m, attacker, target, others, 0, LOOK_CONCEALMENT, 0, NULL, NULL, NULL};
    bool trunc = false;
    if (madj) {
        /* SRD: "if his space is entirely within an effect that grants concealment". */
        bool all = true;
        for (int y = target->body.y; y < target->body.y + target->body.side && all; y++)
            for (int x = target->body.x; x < target->body.x + target->body.side && all; x++)
                all = square_counts(&cw, x, y);
        if (all) {
            out->concealment = RULES_CONCEAL_HALF;
            for (int y = target->body.y; y < target->body.y + target->body.side; y++)
                for (int x = target->body.x; x < target->body.x + target->body.side; x++) {
                    cw.found = out->concealing;
                    cw.found_count = &out->concealing_count;
                    cw.truncated = &trunc;
                    record(&cw, x, y, -1);
                }
        }
        return RULES_COVER_OK;
    }
    int cbest_blocked = 0;
    int cbest = best_choice(&cw, attacker, target, false, n, 4, &cbest_blocked, NULL);
    if (cbest < 0)
        return RULES_COVER_ERR_BOUNDS;
    if (cbest_blocked > 0) {
        out->concealment = RULES_CONCEAL_HALF; /* SRD 20%; 002 "One-half" */
        choice_at(attacker, target, false, cbest, &c);
        cw.found = out->concealing;
        cw.found_count = &out->concealing_count;
        cw.truncated = &trunc;
        choice_blocked(&cw, c.ax, c.ay, c.na, c.tx, c.ty, NULL);
    }
    return RULES_COVER_OK;
}

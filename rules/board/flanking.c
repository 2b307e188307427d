#include "rules/board/flanking.h"

#include <stdint.h>
#include <stdlib.h>

/* --- exact segment/rectangle crossing ---
 *
 * The segment P + t (Q - P), t in [0, 1], is clipped against the closed rectangle with the
 * Liang-Barsky method. Each bound t = q / p is kept as a fraction with a positive denominator
 * and compared by cross-multiplication in 64 bits (coordinates are at most 4e6 half-squares
 * apart, so products stay below 2^62), so a line that grazes a corner or runs along a border
 * is decided the same way every time. The entry and exit points are then classified by which
 * sides they lie on: a point on two sides is a corner. */

struct frac {
    int64_t n, d; /* d > 0 */
};

static int frac_cmp(struct frac a, struct frac b)
{
    int64_t l = a.n * b.d, r = b.n * a.d;
    return (l > r) - (l < r);
}

/* Updates [lo, hi] with the constraint p t <= q. Returns false when it is empty. */
static bool clip(int64_t p, int64_t q, struct frac *lo, struct frac *hi)
{
    if (p == 0)
        return q >= 0; /* parallel: inside (or on) the boundary line, or wholly outside */
    struct frac t = p < 0 ? (struct frac){-q, -p} : (struct frac){q, p};
    if (p < 0) {
        if (frac_cmp(t, *lo) > 0)
            *lo = t;
    } else if (frac_cmp(t, *hi) < 0) {
        *hi = t;
    }
    return frac_cmp(*lo, *hi) <= 0;
}

enum side { WEST = 1, EAST = 2, NORTH = 4, SOUTH = 8 };

/* Sides of the rectangle the point P + t (Q - P) lies on, as a bit set. */
static int sides_at(const struct rules_flank_line *l, struct frac t, int x0, int y0, int x1, int y1)
{
    int64_t dx = l->x1 - l->x0, dy = l->y1 - l->y0;
    /* x = (x0 * d + n * dx) / d compared with a bound b: x0*d + n*dx == b*d */
    int64_t xn = (int64_t)l->x0 * t.d + t.n * dx, yn = (int64_t)l->y0 * t.d + t.n * dy;
    int s = 0;
    if (xn == (int64_t)x0 * t.d)
        s |= WEST;
    if (xn == (int64_t)x1 * t.d)
        s |= EAST;
    if (yn == (int64_t)y0 * t.d)
        s |= NORTH;
    if (yn == (int64_t)y1 * t.d)
        s |= SOUTH;
    return s;
}

static bool is_corner(int s)
{
    return (s & (WEST | EAST)) && (s & (NORTH | SOUTH));
}

enum rules_flank_how rules_line_through(const struct rules_flank_line *l, int x0, int y0, int x1,
                                        int y1)
{
    int64_t dx = l->x1 - l->x0, dy = l->y1 - l->y0;
    struct frac lo = {0, 1}, hi = {1, 1};
    if (!clip(-dx, l->x0 - x0, &lo, &hi) || !clip(dx, x1 - l->x0, &lo, &hi) ||
        !clip(-dy, l->y0 - y0, &lo, &hi) || !clip(dy, y1 - l->y0, &lo, &hi))
        return RULES_FLANK_NONE;
    if (frac_cmp(lo, hi) == 0)
        return RULES_FLANK_NONE; /* touches a single point: grazes a corner */
    int in = sides_at(l, lo, x0, y0, x1, y1), out = sides_at(l, hi, x0, y0, x1, y1);
    if (in == 0 || out == 0)
        return RULES_FLANK_NONE; /* starts or ends inside the space */
    /* A line along a border has both ends on that same border. */
    if ((in & out) != 0)
        return RULES_FLANK_NONE;
    if (is_corner(in) || is_corner(out)) {
        /* 001: "Corner squares ONLY flank with the opposite corner squares." */
        bool opposite =
            is_corner(in) && is_corner(out) && (in | out) == (WEST | EAST | NORTH | SOUTH);
        return opposite ? RULES_FLANK_OPPOSITE_CORNERS : RULES_FLANK_NONE;
    }
    if ((in | out) == (WEST | EAST) || (in | out) == (NORTH | SOUTH))
        return RULES_FLANK_OPPOSITE_SIDES;
    return RULES_FLANK_NONE; /* adjacent sides */
}

/* --- choosing lines --- */

/* The points a creature may draw its flanking lines from, in half-squares:
 *  - CENTRES: every square it occupies when Large or larger (001: "it can choose which of
 *    the squares in its space it wishes to determine flanks from"); otherwise its square;
 *  - ALL_CORNERS (a reach creature's own end): every corner of every square it occupies (001
 *    Reach and Flanking: "size large or larger creatures with reach can start this line from
 *    any corner of any square they occupy"; a smaller one has its square's four corners);
 *  - OUTER_CORNERS (the ally's end): "any corner of an ally's space", its space's four.
 * Points are produced by index, so no list is allocated. */
enum points { CENTRES, ALL_CORNERS, OUTER_CORNERS };

static int point_count(const struct rules_creature *c, enum points mode)
{
    int s = c->body.side;
    return mode == CENTRES ? s * s : mode == ALL_CORNERS ? (s + 1) * (s + 1) : 4;
}

static void point_at(const struct rules_creature *c, enum points mode, int i, int *x, int *y)
{
    int s = c->body.side;
    switch (mode) {
    case CENTRES:
        *x = 2 * (c->body.x + i % s) + 1;
        *y = 2 * (c->body.y + i / s) + 1;
        break;
    case ALL_CORNERS:
        *x = 2 * (c->body.x + i % (s + 1));
        *y = 2 * (c->body.y + i / (s + 1));
        break;
    case OUTER_CORNERS:
        *x = 2 * (c->body.x + (i % 2) * s);
        *y = 2 * (c->body.y + (i / 2) * s);
        break;
    }
}

static bool has_reach(const struct rules_creature *c)
{
    /* 001 Reach and Flanking: "Creatures with reach (or reach weapons)": more than the 5 ft
     * of adjacent squares. */
    return c->reach_weapon || c->reach_ft >= 10;
}

/* Searches point pairs for a flanking line; sets *line and returns how. */
static enum rules_flank_how search(const struct rules_creature *a, enum points a_mode,
                                   const struct rules_creature *b, enum points b_mode,
                                   const struct rules_body *t, struct rules_flank_line *line)
{
    int x0 = 2 * t->x, y0 = 2 * t->y, x1 = 2 * (t->x + t->side), y1 = 2 * (t->y + t->side);
    int na = point_count(a, a_mode), nb = point_count(b, b_mode);
    for (int i = 0; i < na; i++) {
        for (int j = 0; j < nb; j++) {
            struct rules_flank_line l;
            point_at(a, a_mode, i, &l.x0, &l.y0);
            point_at(b, b_mode, j, &l.x1, &l.y1);
            enum rules_flank_how how = rules_line_through(&l, x0, y0, x1, y1);
            if (how != RULES_FLANK_NONE) {
                *line = l;
                return how;
            }
        }
    }
    return RULES_FLANK_NONE;
}

/* 001 lines: centre to centre (any square for Large and larger), and for a reach creature
 * also any of its corners to any corner of the ally's space. */
static enum rules_flank_how lines_001(const struct rules_creature *a,
                                      const struct rules_creature *b, const struct rules_body *t,
                                      struct rules_flank_line *line)
{
    enum rules_flank_how how = search(a, CENTRES, b, CENTRES, t, line);
    if (how == RULES_FLANK_NONE && has_reach(a))
        how = search(a, ALL_CORNERS, b, OUTER_CORNERS, t, line);
    return how;
}

/* 004: the ally is "directly opposite", "so that the opponent is directly between": the line
 * joining the centres of the two whole spaces crosses opposite sides or corners of the
 * target's space. */
static enum rules_flank_how opposite_004(const struct rules_creature *a,
                                         const struct rules_creature *b, const struct rules_body *t,
                                         struct rules_flank_line *line)
{
    struct rules_flank_line l = {2 * a->body.x + a->body.side, 2 * a->body.y + a->body.side,
                                 2 * b->body.x + b->body.side, 2 * b->body.y + b->body.side};
    enum rules_flank_how how =
        rules_line_through(&l, 2 * t->x, 2 * t->y, 2 * (t->x + t->side), 2 * (t->y + t->side));
    if (how != RULES_FLANK_NONE)
        *line = l;
    return how;
}

/* The centroid of a body's hexes, in thirds of a hex. */
static void hex_centroid3(const struct rules_body *b, long long *q, long long *r)
{
    int hq[3], hr[3];
    int n = rules_hex_members(b, hq, hr);
    *q = *r = 0;
    for (int i = 0; i < n; i++)
        *q += hq[i], *r += hr[i];
    *q = *q * 3 / n;
    *r = *r * 3 / n;
}

/* Hex grids (000 Hex Grid) have no square sides or corners, so both flanking options use
 * 004's sentence directly: the target is "directly between" attacker and ally when, seen from
 * the centre of the target's hexes, the ally lies more than 150 degrees from the attacker:
 * within the 60-degree sector straight across, the sector of the one hex opposite a
 * neighbour (and the rear sector of hex facing). Around a one-hex target that means exactly
 * opposite neighbours; around a three-hex triangle, whose centre is a hex corner, no two
 * hexes are exactly opposite, so the sector is what makes it flankable at all. Exact:
 * rules_hex_dot against cos^2 150 = 3/4. */
static enum rules_flank_how opposite_hex(const struct rules_creature *a,
                                         const struct rules_creature *b, const struct rules_body *t)
{
    long long aq, ar, bq, br, tq, tr;
    hex_centroid3(&a->body, &aq, &ar);
    hex_centroid3(&b->body, &bq, &br);
    hex_centroid3(t, &tq, &tr);
    long long uq = aq - tq, ur = ar - tr, vq = bq - tq, vr = br - tr;
    long long dot = rules_hex_dot(uq, ur, vq, vr);
    long long uu = rules_hex_dot(uq, ur, uq, ur), vv = rules_hex_dot(vq, vr, vq, vr);
    bool across = dot < 0 && 4 * dot * dot > 3 * uu * vv;
    return across ? RULES_FLANK_OPPOSITE_SIDES : RULES_FLANK_NONE;
}

/* True when `inner`'s space lies within `outer`'s and outer is two or more sizes larger
 * (001 Internal Flanking). */
static bool inside(const struct rules_creature *inner, const struct rules_creature *outer)
{
    const struct rules_body *i = &inner->body, *o = &outer->body;
    return outer->size >= inner->size + 2 && i->x >= o->x && i->y >= o->y &&
           i->x + i->side <= o->x + o->side && i->y + i->side <= o->y + o->side;
}

void rules_flanking(const struct rules_options *o, const struct rules_creature *attacker,
                    const struct rules_creature *target, const struct rules_creature *allies,
                    int ally_count, struct rules_flank_ally *per_ally,
                    struct rules_flank_result *out)
{
    bool lines = o->flanking == RULES_FLANKING_LINES;
    *out = (struct rules_flank_result){.ally = -1, .rule = lines ? "001 Flanking" : "004 Flanking"};
    if (per_ally != NULL)
        for (int i = 0; i < ally_count; i++)
            per_ally[i] = (struct rules_flank_ally){0};
    if (o->facing != RULES_FACING_NONE) {
        out->why_not = RULES_FLANK_FACING_IN_FORCE;
        out->rule = o->facing == RULES_FACING_000 ? "000 Combat Facing: supersedes flanking"
                                                  : "003: replaces the normal rules for flanking";
        return;
    }
    if (target->cannot_be_flanked) {
        out->why_not = RULES_FLANK_TARGET_IMMUNE;
        return;
    }
    /* 001 Flanking: "If you do not threaten, you cannot flank"; 004: both threatening. */
    if (!rules_threatens_creature(o, attacker, target)) {
        out->why_not = RULES_FLANK_ATTACKER_NOT_THREATENING;
        return;
    }
    bool any_threat = false;
    for (int i = 0; i < ally_count; i++) {
        const struct rules_creature *ally = &allies[i];
        /* 001: "Only allies which threaten the creature you are threatening can provide
         * flanks." */
        bool threatens = rules_threatens_creature(o, ally, target);
        enum rules_flank_how how = RULES_FLANK_NONE;
        struct rules_flank_line line = {0};
        if (threatens) {
            any_threat = true;
            if (lines &&
                (inside(attacker, target) || inside(target, attacker) || inside(target, ally))) {
                /* 001 Internal Flanking: a small creature inside a large one flanks it with any
                 * threatening ally; the large one (and its allies) flank the small one inside
                 * it when an ally threatens the small one's square. */
                how = RULES_FLANK_INTERNAL;
            } else if (o->grid == RULES_GRID_HEX) {
                how = opposite_hex(attacker, ally, &target->body);
                line = (struct rules_flank_line){attacker->body.x, attacker->body.y, ally->body.x,
                                                 ally->body.y};
            } else if (lines) {
                how = lines_001(attacker, ally, &target->body, &line);
            } else {
                how = opposite_004(attacker, ally, &target->body, &line);
            }
        }
        if (per_ally != NULL)
            per_ally[i] = (struct rules_flank_ally){threatens, how, line};
        if (how != RULES_FLANK_NONE && !out->flanked) {
            out->flanked = true;
            out->ally = i;
            out->how = how;
            out->bonus = 2;
            if (how == RULES_FLANK_INTERNAL)
                out->rule = "001 Internal Flanking";
            else if (lines && has_reach(attacker) && line.x0 % 2 == 0 && line.y0 % 2 == 0)
                out->rule = "001 Reach and Flanking";
        }
    }
    if (!out->flanked)
        out->why_not = any_threat ? RULES_FLANK_NO_LINE : RULES_FLANK_NO_THREATENING_ALLY;
}

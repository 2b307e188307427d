#include "facing.h"

#include <stdint.h>

/* Facing vectors. Squares: dx, dy with y growing south. Hexes: axial (q, r), flat-topped. */
static const int square_dir[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                     {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};
static const int hex_dir[6][2] = {{0, -1}, {1, -1}, {1, 0}, {0, 1}, {-1, 1}, {-1, 0}};

int rules_facing_count(const struct rules_options *o)
{
    return o->grid == RULES_GRID_HEX ? 6 : 8;
}

bool rules_has_facing(const struct rules_options *o, const struct rules_creature *c)
{
    return o->facing != RULES_FACING_NONE && !c->faceless && c->size > RULES_SIZE_TINY;
}

/* Euclidean dot product of two axial hex vectors, times 4: with flat-topped hexes of unit
 * size, x = 3q/2 and y = sqrt(3) (q/2 + r), so 4 (x1 x2 + y1 y2) = 9 q1 q2 +
 * 3 (q1 + 2 r1)(q2 + 2 r2): an integer. */
static int64_t hex_dot(int64_t q1, int64_t r1, int64_t q2, int64_t r2)
{
    return 9 * q1 * q2 + 3 * (q1 + 2 * r1) * (q2 + 2 * r2);
}

enum rules_area rules_facing_area(const struct rules_options *o, const struct rules_creature *c,
                                  int x, int y)
{
    const struct rules_body *b = &c->body;
    bool own = o->grid == RULES_GRID_HEX
                   ? (x == b->x && y == b->y)
                   : (x >= b->x && x < b->x + b->side && y >= b->y && y < b->y + b->side);
    if (own)
        return RULES_AREA_SELF;
    if (!rules_has_facing(o, c))
        return RULES_AREA_NONE;
    enum rules_area middle = o->facing == RULES_FACING_003 ? RULES_AREA_SIDE : RULES_AREA_FLANK;
    int64_t dot, vv, ff;
    /* Front when cos >= cos(front limit); rear when cos <= -cos(rear limit), the limit itself
     * included only under 000 on squares. Compared squared: dot^2 * k >= vv * ff. */
    int64_t k_front, k_rear;
    bool rear_inclusive;
    if (o->grid == RULES_GRID_HEX) {
        int64_t dq = x - b->x, dr = y - b->y;
        const int *f = hex_dir[c->facing % 6];
        dot = hex_dot(dq, dr, f[0], f[1]);
        vv = hex_dot(dq, dr, dq, dr);
        ff = hex_dot(f[0], f[1], f[0], f[1]);
        k_front = k_rear = 4; /* cos^2 60 = 1/4 */
        rear_inclusive = false;
    } else {
        /* In half-squares: the space's centre is (2x + side, 2y + side). */
        int64_t vx = 2 * (int64_t)x + 1 - (2 * (int64_t)b->x + b->side);
        int64_t vy = 2 * (int64_t)y + 1 - (2 * (int64_t)b->y + b->side);
        const int *f = square_dir[c->facing % 8];
        dot = vx * f[0] + vy * f[1];
        vv = vx * vx + vy * vy;
        ff = f[0] * f[0] + f[1] * f[1];
        k_front = k_rear = 2; /* cos^2 45 = 1/2 */
        rear_inclusive = o->facing == RULES_FACING_000;
    }
    int64_t lhs_front = dot * dot * k_front, lhs_rear = dot * dot * k_rear, rhs = vv * ff;
    if (dot > 0 && lhs_front >= rhs)
        return RULES_AREA_FRONT;
    if (dot < 0 && (rear_inclusive ? lhs_rear >= rhs : lhs_rear > rhs))
        return RULES_AREA_REAR;
    return middle;
}

void rules_perception(const struct rules_options *o, enum rules_area area, bool combat_awareness,
                      bool all_around_vision, struct rules_perception *out)
{
    *out = (struct rules_perception){
        .spot = 0, .visual_trigger = true, .concealment = false, .rule = NULL};
    if (area == RULES_AREA_NONE || area == RULES_AREA_SELF || area == RULES_AREA_FRONT)
        return;
    if (o->facing == RULES_FACING_003) {
        if (area == RULES_AREA_REAR && !all_around_vision) {
            out->concealment = true;
            out->rule = "003: being behind a creature grants concealment from that creature";
        }
        return;
    }
    /* 000 Facing and Perception. */
    if (all_around_vision) {
        out->rule = "000 Spot Checks: creatures with all-around vision don't take this penalty";
        return;
    }
    if (area == RULES_AREA_FLANK) {
        out->spot = combat_awareness ? 0 : -5;
        out->rule = combat_awareness ? "000 Combat Awareness: no -5 penalty in or beyond your "
                                       "flank areas"
                                     : "000 Spot Checks: -5 in the flank area (or beyond)";
    } else if (area == RULES_AREA_REAR) {
        out->spot = combat_awareness ? -5 : -10;
        out->visual_trigger = false; /* 000 Readied Actions */
        out->rule = combat_awareness ? "000 Combat Awareness: the penalty in or beyond your rear "
                                       "area is -5"
                                     : "000 Spot Checks: -10 in the rear area (or beyond)";
    }
}

const char *rules_area_name(enum rules_area area)
{
    static const char *const names[] = {"none", "self", "front", "flank", "side", "rear"};
    return names[area];
}

#include "rules/board/facing.h"

#include <assert.h>
#include <stdint.h>

/* Facing vectors. Squares: dx, dy with y growing south. Hexes: axial (q, r), flat-topped. */
static const int square_dir[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                     {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};

int rules_facing_count(const struct rules_options *o)
{
    return o->grid == RULES_GRID_HEX ? 6 : 8;
}

bool rules_has_facing(const struct rules_options *o, const struct rules_creature *c)
{
    return o->facing != RULES_FACING_NONE && !c->faceless && c->size > RULES_SIZE_TINY;
}

enum rules_area rules_facing_area(const struct rules_options *o, const struct rules_creature *c,
                                  int x, int y)
{
    const struct rules_body *b = &c->body;
    int hq[3], hr[3], nh = 0;
    bool own;
    if (o->grid == RULES_GRID_HEX) {
        nh = rules_hex_members(b, hq, hr);
        own = false;
        for (int i = 0; i < nh; i++)
            own |= x == hq[i] && y == hr[i];
    } else {
        own = x >= b->x && x < b->x + b->side && y >= b->y && y < b->y + b->side;
    }
    if (own)
        return RULES_AREA_SELF;
    if (!rules_has_facing(o, c))
        return RULES_AREA_NONE;
    enum rules_area middle = o->facing == RULES_FACING_003 ? RULES_AREA_SIDE : RULES_AREA_FLANK;
    int64_t dot, vv, ff;
    /* Front when cos >= cos(front limit); rear when cos <= -cos(rear limit), the limit itself
     * included only under 000 on squares. Compared squared: dot^2 * k >= vv * ff. */
    int64_t k_front, k_rear, rear_scale = 1;
    bool rear_inclusive;
    if (o->grid == RULES_GRID_HEX) {
        /* From the centroid of its hexes, in thirds of a hex: 3 (q, r) - sum of members. */
        int64_t cq = 0, cr = 0;
        for (int i = 0; i < nh; i++)
            cq += hq[i], cr += hr[i];
        cq = cq * 3 / nh, cr = cr * 3 / nh;
        int64_t vq = 3 * (int64_t)x - cq, vr = 3 * (int64_t)y - cr;
        /* One hex faces a neighbour. A three-hex triangle's corners and edges lie 30 degrees
         * off the neighbour directions, so its facing f points between neighbours f and f + 1:
         * at one corner hex (003's "1 hex as its front side") or at an edge ("2 hexes"). */
        const int *f0 = rules_hex_dirs[c->facing % 6], *f1 = rules_hex_dirs[(c->facing + 1) % 6];
        int64_t fq = f0[0], fr = f0[1];
        if (nh == 3)
            fq += f1[0], fr += f1[1];
        dot = rules_hex_dot(vq, vr, fq, fr);
        vv = rules_hex_dot(vq, vr, vq, vr);
        ff = rules_hex_dot(fq, fr, fq, fr);
        k_front = 4; /* front: within 60 degrees, cos^2 = 1/4 */
        k_rear = 4;  /* rear: beyond 150 degrees, cos^2 = 3/4, so 4 dot^2 > 3 vv ff */
        rear_inclusive = false;
        rear_scale = 3;
    } else {
        /* In half-squares: the space's centre is (2x + side, 2y + side). */
        int64_t vx = 2 * (int64_t)x + 1 - (2 * (int64_t)b->x + b->side);
        int64_t vy = 2 * (int64_t)y + 1 - (2 * (int64_t)b->y + b->side);
        const int *f = square_dir[c->facing % 8];
        dot = vx * f[0] + vy * f[1];
        vv = vx * vx + vy * vy;
        ff = f[0] * f[0] + f[1] * f[1];
        k_front = k_rear = 2; /* front within 45, rear beyond 135 degrees: cos^2 = 1/2 */
        rear_inclusive = o->facing == RULES_FACING_000;
    }
    int64_t lhs_front = dot * dot * k_front, lhs_rear = dot * dot * k_rear, rhs = vv * ff;
    if (dot > 0 && lhs_front >= rhs)
        return RULES_AREA_FRONT;
    if (dot < 0 && (rear_inclusive ? lhs_rear >= rhs * rear_scale : lhs_rear > rhs * rear_scale))
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
    static_assert(sizeof names / sizeof names[0] == RULES_AREA_REAR + 1, "one name per area");
    assert((unsigned)area <= RULES_AREA_REAR);
    return names[area];
}

#include "rules/board/threat.h"

void rules_creature_init(struct rules_creature *c, enum rules_size size, int x, int y, int z)
{
    const struct rules_size_info *s = rules_size_info(size);
    *c = (struct rules_creature){
        .body = {.x = x, .y = y, .z = z, .side = s->squares},
        .size = size,
        .reach_ft = s->natural_reach_ft,
        .can_threaten = true,
    };
}

void rules_creature_on_hexes(struct rules_creature *c, int t)
{
    c->body.side = 1;
    c->body.tri = rules_size_info(c->size)->hexes == 3 ? 1 + t : 0;
}

bool rules_threatens_square(const struct rules_options *o, const struct rules_creature *c, int x,
                            int y, int z)
{
    if (!c->can_threaten)
        return false;
    struct rules_body sq = {.x = x, .y = y, .z = z, .side = 1, .tri = 0};
    struct rules_distance d;
    rules_distance(o, &c->body, &sq, &d);
    if (d.squares == 0)
        return true; /* 001: "ALL of any creature's occupied squares" are threatened */
    if (c->reach_ft < 5)
        return false; /* 001 Reach: Tiny and smaller "cannot threaten" beyond their space */
    if (c->reach_weapon && d.squares == 1)
        return false;
    return d.feet <= c->reach_ft;
}

bool rules_threatens_creature(const struct rules_options *o, const struct rules_creature *c,
                              const struct rules_creature *target)
{
    const struct rules_body *t = &target->body;
    if (o->grid == RULES_GRID_HEX) {
        int q[3], r[3];
        int n = rules_hex_members(t, q, r);
        for (int i = 0; i < n; i++)
            if (rules_threatens_square(o, c, q[i], r[i], t->z))
                return true;
        return false;
    }
    int height = t->side;
    for (int dz = 0; dz < height; dz++)
        for (int dy = 0; dy < t->side; dy++)
            for (int dx = 0; dx < t->side; dx++)
                if (rules_threatens_square(o, c, t->x + dx, t->y + dy, t->z + dz))
                    return true;
    return false;
}

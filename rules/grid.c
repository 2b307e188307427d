#include "grid.h"

#include <stdlib.h>

int rules_span_gap(int a, int an, int b, int bn)
{
    if (b >= a + an)
        return b - (a + an - 1);
    if (a >= b + bn)
        return a - (b + bn - 1);
    return 0;
}

void rules_distance(const struct rules_options *o, const struct rules_body *a,
                    const struct rules_body *b, struct rules_distance *out)
{
    int dz = rules_span_gap(a->z, a->side, b->z, b->side);
    int horizontal;
    out->straight_steps = out->diagonal_steps = 0;
    if (o->grid == RULES_GRID_HEX) {
        /* Axial hex distance: (|dq| + |dr| + |dq + dr|) / 2. */
        int dq = b->x - a->x, dr = b->y - a->y;
        horizontal = (abs(dq) + abs(dr) + abs(dq + dr)) / 2;
        out->rule = "000 Hex Grid";
    } else {
        int dx = rules_span_gap(a->x, a->side, b->x, b->side);
        int dy = rules_span_gap(a->y, a->side, b->y, b->side);
        int diag = dx < dy ? dx : dy;
        int straight = (dx > dy ? dx : dy) - diag;
        out->straight_steps = straight;
        out->diagonal_steps = diag;
        if (o->diagonals == RULES_DIAGONALS_ALTERNATING) {
            horizontal = straight + diag + diag / 2;
            out->rule = "000 Hex Grid: the standard \"every other square counts double\" rule";
        } else {
            horizontal = straight + diag;
            out->rule = "001 General Movement Rules: 1 for 1 counting";
        }
    }
    out->horizontal_squares = horizontal;
    out->vertical_squares = dz;
    out->squares = horizontal > dz ? horizontal : dz;
    if (dz > 0)
        out->rule = "001 Three Dimensional Movement: the greater of horizontal and vertical";
    out->feet = out->squares * 5;
}

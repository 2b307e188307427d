#include "rules/board/grid.h"

#include <stdlib.h>

int rules_span_gap(int a, int an, int b, int bn)
{
    if (b >= a + an)
        return b - (a + an - 1);
    if (a >= b + bn)
        return a - (b + bn - 1);
    return 0;
}

const int rules_hex_dirs[6][2] = {{0, -1}, {1, -1}, {1, 0}, {0, 1}, {-1, 1}, {-1, 0}};

int rules_hex_members(const struct rules_body *b, int q[3], int r[3])
{
    q[0] = b->x;
    r[0] = b->y;
    if (b->tri <= 0)
        return 1;
    int t = (b->tri - 1) % 6;
    for (int i = 0; i < 2; i++) {
        q[1 + i] = b->x + rules_hex_dirs[(t + i) % 6][0];
        r[1 + i] = b->y + rules_hex_dirs[(t + i) % 6][1];
    }
    return 3;
}

int rules_body_squares(const struct rules_options *o, const struct rules_body *b, int *xs, int *ys,
                       int max)
{
    if (o->grid == RULES_GRID_HEX) {
        int q[3], r[3];
        int n = rules_hex_members(b, q, r);
        n = n < max ? n : max;
        for (int i = 0; i < n; i++)
            xs[i] = q[i], ys[i] = r[i];
        return n;
    }
    int n = 0;
    for (int dy = 0; dy < b->side && n < max; dy++)
        for (int dx = 0; dx < b->side && n < max; dx++)
            xs[n] = b->x + dx, ys[n++] = b->y + dy;
    return n;
}

long long rules_hex_dot(long long q1, long long r1, long long q2, long long r2)
{
    return 9 * q1 * q2 + 3 * (q1 + 2 * r1) * (q2 + 2 * r2);
}

static int hex_distance(int q1, int r1, int q2, int r2)
{
    int dq = q2 - q1, dr = r2 - r1;
    return (abs(dq) + abs(dr) + abs(dq + dr)) / 2;
}

void rules_distance(const struct rules_options *o, const struct rules_body *a,
                    const struct rules_body *b, struct rules_distance *out)
{
    int dz = rules_span_gap(a->z, a->side, b->z, b->side);
    int horizontal;
    out->straight_steps = out->diagonal_steps = 0;
    if (o->grid == RULES_GRID_HEX) {
        /* Axial hex distance, (|dq| + |dr| + |dq + dr|) / 2, between the nearest hexes. */
        int aq[3], ar[3], bq[3], br[3];
        int na = rules_hex_members(a, aq, ar), nb = rules_hex_members(b, bq, br);
        horizontal = hex_distance(aq[0], ar[0], bq[0], br[0]);
        for (int i = 0; i < na; i++)
            for (int j = 0; j < nb; j++) {
                int h = hex_distance(aq[i], ar[i], bq[j], br[j]);
                horizontal = h < horizontal ? h : horizontal;
            }
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

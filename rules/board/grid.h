/* Grids and distance.
 *
 * Square grid: 5-ft squares at integer (x, y), x growing east and y growing south (screen
 * order, as virtual tabletops draw); an optional z counts 5-ft cubes upward (001 Three
 * Dimensional Movement). A creature's position is its north-west square (smallest x and y)
 * and lowest cube; it covers `side` squares along x and y, and `side` cubes up when z is used
 * (001: "The cube is a number of squares high equal to the number of squares per side").
 *
 * Hex grid (000 Hex Grid): flat-topped hexes in axial coordinates (q, r); the six neighbours,
 * clockwise from facing 0 = north, are (0,-1), (+1,-1), (+1,0), (0,+1), (-1,+1), (-1,0).
 * A creature covers one hex, or three for Large (003): its hex (q, r) and the neighbours in
 * directions t and t + 1, for a triangle orientation t of 0..5.
 *
 * Coordinates are limited to +/-RULES_COORD_MAX so no distance arithmetic can overflow. */
#ifndef TACTICS_RULES_GRID_H
#define TACTICS_RULES_GRID_H

#include <stdbool.h>

#include "rules/options.h"

#define RULES_COORD_MAX 1000000

struct rules_body {
    int x, y, z; /* square grid; q = x, r = y on a hex grid */
    int side;    /* footprint side in squares (rules_size_info()->squares); 1 on hexes */
    int tri;     /* hexes: 0 for one hex; 1 + t for the three-hex triangle of orientation t */
};

/* The neighbour offsets of a flat-topped hex, clockwise from north. */
extern const int rules_hex_dirs[6][2];

/* Euclidean dot product of two axial hex vectors, times 4: with flat-topped hexes of unit
 * size, x = 3q/2 and y = sqrt(3) (q/2 + r), so 4 (x1 x2 + y1 y2) = 9 q1 q2 +
 * 3 (q1 + 2 r1)(q2 + 2 r2), an integer. Angles on hexes are compared with it exactly. */
long long rules_hex_dot(long long q1, long long r1, long long q2, long long r2);

/* The hexes a body covers on a hex grid (1 or 3), written to q[] and r[]. */
int rules_hex_members(const struct rules_body *b, int q[3], int r[3]);

/* The squares (or hexes) a body covers under the grid in force: the one copy of a footprint.
 * On squares, side x side squares from (x, y) growing east and south, row by row; on hexes,
 * rules_hex_members. Writes at most max to xs[] and ys[] and returns the number written. */
int rules_body_squares(const struct rules_options *o, const struct rules_body *b, int *xs, int *ys,
                       int max);

struct rules_distance {
    int squares;            /* squares (or hexes) counted */
    int feet;               /* squares x 5 */
    int horizontal_squares; /* the counted distance on the map */
    int vertical_squares;   /* the difference in height, in cubes */
    int straight_steps;     /* square grid: orthogonal steps on the shortest route */
    int diagonal_steps;     /* square grid: diagonal steps on it */
    const char *rule;       /* the document and section the count comes from */
};

/* Distance between the nearest squares (or cubes) of two bodies under the rules in force:
 *  - square grid, alternating: 000's "every other diagonal counts double"
 *    (diagonal d counts d + d/2, rounded down);
 *  - square grid, one_for_one: 001 General Movement Rules (the larger of |dx| and |dy|);
 *  - hex grid: 000 Hex Grid, "count hexes by the shorter path" (between nearest hexes);
 *  - with height: 001 Three Dimensional Movement, "choose the greater of the horizontal
 *    distance, or the vertical distance, and that is the range"; the horizontal part is
 *    counted by the grid's own rule. Bodies overlapping in an axis are 0 apart on it. */
void rules_distance(const struct rules_options *o, const struct rules_body *a,
                    const struct rules_body *b, struct rules_distance *out);

/* The gap between the spans [a, a + an) and [b, b + bn) in whole squares (0 when they touch
 * or overlap). */
int rules_span_gap(int a, int an, int b, int bn);

#endif

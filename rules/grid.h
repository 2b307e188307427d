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
 *
 * Coordinates are limited to +/-RULES_COORD_MAX so no distance arithmetic can overflow. */
#ifndef TACTICS_RULES_GRID_H
#define TACTICS_RULES_GRID_H

#include <stdbool.h>

#include "options.h"

#define RULES_COORD_MAX 1000000

struct rules_body {
    int x, y, z; /* square grid; q = x, r = y on a hex grid */
    int side;    /* footprint side in squares (rules_size_info()->squares); 1 on hexes */
};

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
 *  - hex grid: 000 Hex Grid, "count hexes by the shorter path";
 *  - with height: 001 Three Dimensional Movement, "choose the greater of the horizontal
 *    distance, or the vertical distance, and that is the range"; the horizontal part is
 *    counted by the grid's own rule. Bodies overlapping in an axis are 0 apart on it. */
void rules_distance(const struct rules_options *o, const struct rules_body *a,
                    const struct rules_body *b, struct rules_distance *out);

/* The gap between the spans [a, a + an) and [b, b + bn) in whole squares (0 when they touch
 * or overlap). */
int rules_span_gap(int a, int an, int b, int bn);

#endif

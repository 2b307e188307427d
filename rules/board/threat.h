/* Threatened squares (004 Threatened Area; 001 Reach, Threatened Area, Occupied Squares). */
#ifndef TACTICS_RULES_THREAT_H
#define TACTICS_RULES_THREAT_H

#include <stdbool.h>

#include "rules/board/grid.h"
#include "rules/board/size.h"

/* A creature on the map, as far as threat, flanking and facing need it. */
struct rules_creature {
    struct rules_body body; /* body.side must equal rules_size_info(size)->squares */
    enum rules_size size;
    int reach_ft;           /* its reach: natural (rules_size_info) or its weapon's */
    bool reach_weapon;      /* its only threatening weapon is a reach weapon */
    bool can_threaten;      /* false: no weapon, flat-footed, unconscious, cannot make AoOs */
    bool cannot_be_flanked; /* uncanny dodge, all-around vision, and the like */
    bool faceless;          /* 000 Faceless Creatures */
    int facing;             /* 0..7 on squares (0 = north, clockwise), 0..5 on hexes */
};

/* Fills c with a creature of `size` at (x, y, z) with its natural reach, able to threaten. */
void rules_creature_init(struct rules_creature *c, enum rules_size size, int x, int y, int z);

/* Places c on a hex grid: one hex, or for a three-hex creature the triangle of orientation t
 * (0..5) at (q, r). */
void rules_creature_on_hexes(struct rules_creature *c, int t);

/* True when c threatens the square at (x, y, z): every square of its own space (001
 * Threatened Area: "all spaces they occupy"), and every square within its reach, except that
 * a reach weapon alone does not threaten adjacent squares (004 Threatened Area: "Reach
 * weapons ... can change the threatened area"). Tiny and smaller creatures have no reach
 * beyond their own space (001 Reach). A creature that cannot make attacks of opportunity
 * threatens nothing (004 Flat-Footed; 001 Threatened Area). */
bool rules_threatens_square(const struct rules_options *o, const struct rules_creature *c, int x,
                            int y, int z);

/* True when c threatens any square of target's space. */
bool rules_threatens_creature(const struct rules_options *o, const struct rules_creature *c,
                              const struct rules_creature *target);

#endif

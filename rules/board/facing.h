/* Facing areas (000 Combat Facing; 003) and what they do to perception (000 Facing and
 * Perception).
 *
 * The geometry. The documents give counts, not diagrams (the diagrams are not in the text),
 * so one rule covers every facing, size and distance: a square's area is decided by the angle
 * between the creature's facing and the line from the centre of the creature's space to the
 * centre of the square.
 *   Square grid, 8 facings (0 = north, clockwise by 45 degrees):
 *     front: angle <= 45;  rear: >= 135 under 000, > 135 under 003;  otherwise flank (000) or
 *     side (003).
 *   Hex grid, 6 facings (0 = north, clockwise by 60 degrees):
 *     front: angle <= 60;  rear: > 150;  otherwise flank or side.
 *   A three-hex Large creature (003) measures from the centroid of its triangle, and its
 *   facing f points between neighbour directions f and f + 1, because a triangle's corner
 *   hexes and edges lie 30 degrees off the neighbour directions: each facing aims either at
 *   one corner hex or at one edge of two hexes.
 * This reproduces the documents' counts on the ring around the creature: 000 Medium 3 front,
 * 2 flank, 3 rear in all 8 facings; 000 larger creatures facing a side "the squares in front
 * of them (including those on the front corners)", rear row with its corners, flanks
 * "directly to their sides" (Large 4/4/4, Huge 5/6/5); 003 one space 3 front, 4 side, 1 rear
 * in all 8 facings, Large 4 front, 6 side, 2 rear; hexes 3 front, 2 side, 1 rear; a Large
 * three-hex creature 4 front, 4 side, 1 rear facing a corner hex ("1 hex as its front side")
 * and 3 front, 4 side, 2 rear facing an edge ("2 hexes"), three facings of each. Facing a
 * diagonal, an even-sized creature's ring is split symmetrically about the diagonal (Large:
 * 3/6/3 under both variants), since no count for that case is given and no symmetric
 * split of 12 squares gives 4 front. Squares beyond the ring (reach, ranged attacks,
 * perception) take the area of their direction, as 000 says of "the squares beyond" an area.
 * All comparisons are exact: integer dot products against cos^2 45 = 1/2 and cos^2 60 = 1/4.
 *
 * On hexes creatures cover one hex, or three for Large (see grid.h). 000's own hex facing
 * diagram is not in the text; both variants use 003's hex split there. */
#ifndef TACTICS_RULES_FACING_H
#define TACTICS_RULES_FACING_H

#include "rules/board/threat.h"

enum rules_area {
    RULES_AREA_NONE = 0, /* no facing in force, or a faceless or Tiny-or-smaller creature */
    RULES_AREA_SELF,     /* a square of its own space (with or without facing) */
    RULES_AREA_FRONT,
    RULES_AREA_FLANK, /* 000 */
    RULES_AREA_SIDE,  /* 003 */
    RULES_AREA_REAR,
};

/* Facings on the grid in force: 8 on squares, 6 on hexes. */
int rules_facing_count(const struct rules_options *o);

/* True when c has a facing under o: a facing variant is in force, c is not faceless, and c is
 * larger than Tiny (000: "Tiny and smaller creatures don't have facing"). */
bool rules_has_facing(const struct rules_options *o, const struct rules_creature *c);

/* The area of c's square (x, y) falls in. */
enum rules_area rules_facing_area(const struct rules_options *o, const struct rules_creature *c,
                                  int x, int y);

/* Perception of what happens in an area (000 Facing and Perception). */
struct rules_perception {
    int spot;            /* Spot modifier: flank -5, rear -10; Combat Awareness 0 and -5 */
    bool visual_trigger; /* a readied action may respond to a trigger it must see there */
    bool concealment;    /* 003: "being behind a creature grants concealment from that
                            creature" */
    const char *rule;
};

void rules_perception(const struct rules_options *o, enum rules_area area, bool combat_awareness,
                      bool all_around_vision, struct rules_perception *out);

const char *rules_area_name(enum rules_area area);

#endif

/* Cover and concealment from the map, by the d20 3.5 SRD's corner-to-corner lines (Combat,
 * "Cover" and "Concealment"), on a square grid:
 *  - Ranged attacks, and melee attacks on a target that isn't adjacent (reach): "choose a corner
 *    of your square. If any line from this corner to any corner of the target's square passes
 *    through a square or border that blocks line of effect or provides cover, or through a
 *    square occupied by a creature, the target has cover (+4 to AC)." The attacker chooses, so
 *    the target has cover only when every corner it could choose has such a line.
 *  - Melee attacks on an adjacent target: "your target has cover if any line from your square
 *    to the target's square goes through a wall"; creatures are soft cover against ranged
 *    attacks only (SRD "Soft Cover").
 *  - Big creatures (SRD "Big Creatures and Cover"): an attacker larger than one square may
 *    choose any square it occupies, and against a target larger than one square any square
 *    the target occupies; the lines run between the corners of the two squares chosen.
 *  - Total cover (SRD "Total Cover"): no line from the attacker's square to the target's square
 *    avoids a solid barrier.
 *  - Concealment is ruled by the same lines over the map's concealed squares (dim light,
 *    darkness, fog), except that against an adjacent target in melee "your target has
 *    concealment if his space is entirely within an effect that grants concealment". The
 *    attacker's own squares do not hide its target, and darkvision sees through them (as 001's
 *    5-Foot Step treats the same squares).
 *
 * 002 (Cover, and its Table: Cover) leaves the degree of cover to the GM ("not a strict
 * mathematical calculation"); the SRD's cover (+4 to AC) is 002's
 * "One-half" (+4; "behind a creature of same size" is 002's own example of it), so that is the
 * degree derived. The SRD's concealment (20% miss chance) is 002's "One-half" (20%; "shadows;
 * dense fog at 5 ft."). 002 Table: Cover's "Total" is the SRD's total cover.
 *
 * A line "passes through" a square when it crosses the square's interior: a line that only
 * touches a corner or runs along an edge does not (the map stores walls as squares, not
 * borders). Coordinates are whole squares, corners are lattice points, and every test is in
 * integers. */
#ifndef TACTICS_RULES_COVER_H
#define TACTICS_RULES_COVER_H

#include "rules/board/map.h"
#include "rules/board/threat.h"

enum rules_cover {
    RULES_COVER_NONE = 0,
    RULES_COVER_QUARTER,
    RULES_COVER_HALF,
    RULES_COVER_THREE_QUARTERS,
    RULES_COVER_NINE_TENTHS,
    RULES_COVER_TOTAL,
};

/* 002's degrees of cover and of concealment by name, in enum order (rules_cover and
 * rules_concealment share them): "none", "quarter", "half", "three_quarters", "nine_tenths",
 * "total", NULL-terminated. */
extern const char *const rules_degree_names[];

enum rules_concealment {
    RULES_CONCEAL_NONE = 0,
    RULES_CONCEAL_QUARTER,
    RULES_CONCEAL_HALF,
    RULES_CONCEAL_THREE_QUARTERS,
    RULES_CONCEAL_NINE_TENTHS,
    RULES_CONCEAL_TOTAL,
};

#define RULES_COVER_SOURCE "d20 3.5 SRD, Combat: Cover (corner to corner); 002 Table: Cover"
#define RULES_CONCEALMENT_SOURCE                                                                   \
    "d20 3.5 SRD, Combat: Concealment (corner to corner); 002 Table: Concealment"

#define RULES_COVER_MAX_BLOCKING 32

struct rules_cover_square {
    int x, y;
    int creature; /* index into others, or -1 for a square of the map that blocks */
};

struct rules_sight {
    enum rules_cover cover;             /* NONE, HALF or TOTAL */
    enum rules_concealment concealment; /* NONE or HALF */
    bool melee_adjacent;                /* the melee rule was used, not the ranged one */
    int corner_x, corner_y;             /* the corner of the attacker's square the cover was
                                           ruled from (ranged and reach); the corner of the
                                           attacker's square chosen (melee) */
    int target_x, target_y;             /* the target's square the lines run to (its only
                                           square unless it is larger than one) */
    int lines, lines_blocked;           /* of the choice ruled from */
    /* Which of those lines are blocked: bit 4 * i + j is the line from the attacker's corner i
     * to the target square's corner j, corners in the order north-west, north-east,
     * south-east, south-west; i is 0 for the one corner of the ranged rule, and runs over the
     * four corners of the attacker's square chosen under the melee rule (16 lines). */
    unsigned line_mask;
    /* The squares that gave the cover (walls and creatures crossed by the lines of the choice
     * ruled from), each once, in the order found; none without cover. */
    struct rules_cover_square blocking[RULES_COVER_MAX_BLOCKING];
    int blocking_count;
    bool blocking_truncated;
    /* The concealed squares the concealment came from, likewise. */
    struct rules_cover_square concealing[RULES_COVER_MAX_BLOCKING];
    int concealing_count;
};

enum rules_cover_status {
    RULES_COVER_OK = 0,
    RULES_COVER_ERR_HEX = -1,    /* the SRD's lines are drawn on squares */
    RULES_COVER_ERR_BOUNDS = -2, /* a body is larger than RULES_COVER_MAX_SIDE */
};

#define RULES_COVER_MAX_SIDE 64

/* The cover and concealment of target against attacker on map m (walls: RULES_MAP_BLOCKED
 * squares; concealment: RULES_SQUARE_CONCEALED squares; squares off the map block nothing).
 * others are the other creatures on the map (soft cover); melee says the attack is a melee
 * attack (adjacent or not decides which rule), darkvision that the attacker sees in the dark.
 * Pure: no allocation. */
int rules_sight_between(const struct rules_options *o, const struct rules_map *m,
                        const struct rules_creature *attacker, const struct rules_creature *target,
                        const struct rules_creature *others, int other_count, bool melee,
                        bool darkvision, struct rules_sight *out);

/* Whether the segment between lattice points (x1, y1) and (x2, y2) crosses the interior of the
 * rectangle [rx, rx + w] x [ry, ry + h] (w, h > 0). */
bool rules_segment_crosses_rect(long long x1, long long y1, long long x2, long long y2,
                                long long rx, long long ry, long long w, long long h);

#endif

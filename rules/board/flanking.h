/* Flanking without facing (RULES.md 4): 004 "Flanking" (an ally directly opposite) and 001
 * "Flanking", "Reach and Flanking" and "Internal Flanking" (lines between squares). */
#ifndef TACTICS_RULES_FLANKING_H
#define TACTICS_RULES_FLANKING_H

#include "rules/board/threat.h"

enum rules_flank_how {
    RULES_FLANK_NONE = 0,
    RULES_FLANK_OPPOSITE_SIDES,   /* the line crosses two opposite sides of the target's space */
    RULES_FLANK_OPPOSITE_CORNERS, /* the line runs from one corner to the opposite corner */
    RULES_FLANK_INTERNAL,         /* 001 Internal Flanking */
};

enum rules_flank_why_not {
    RULES_FLANK_OK = 0,
    RULES_FLANK_FACING_IN_FORCE, /* 000/003 replace flanking by facing areas */
    RULES_FLANK_TARGET_IMMUNE,   /* the target cannot be flanked */
    RULES_FLANK_ATTACKER_NOT_THREATENING,
    RULES_FLANK_NO_THREATENING_ALLY,
    RULES_FLANK_NO_LINE, /* allies threaten, but none is opposite */
};

/* A line in half-squares: square (x, y)'s centre is (2x + 1, 2y + 1), its corners even.
 * On a hex grid it holds the attacker's and the ally's hexes (q, r) as they are. */
struct rules_flank_line {
    int x0, y0, x1, y1;
};

/* What each ally contributes. */
struct rules_flank_ally {
    bool threatens;
    enum rules_flank_how how;
    struct rules_flank_line line; /* set for sides and corners */
};

struct rules_flank_result {
    bool flanked;
    enum rules_flank_why_not why_not;
    int ally;                 /* index of the first ally that flanks, or -1 */
    enum rules_flank_how how; /* how that ally flanks */
    int bonus;                /* +2 when flanked (004 Flanking; 001 Flanking) */
    const char *rule;         /* document and section of the decision */
};

/* Decides whether attacker flanks target with any of the allies, under o (facing none; with
 * facing in force the answer is RULES_FLANK_FACING_IN_FORCE). per_ally, when not NULL, gets
 * one entry per ally. */
void rules_flanking(const struct rules_options *o, const struct rules_creature *attacker,
                    const struct rules_creature *target, const struct rules_creature *allies,
                    int ally_count, struct rules_flank_ally *per_ally,
                    struct rules_flank_result *out);

/* How the segment (in half-squares) crosses the axis-aligned rectangle [x0, x1] x [y0, y1]
 * (also in half-squares): opposite sides, opposite corners, or NONE (misses it, touches one
 * point, runs along a border, or crosses adjacent sides or a side and a corner). Exact. */
enum rules_flank_how rules_line_through(const struct rules_flank_line *line, int x0, int y0, int x1,
                                        int y1);

#endif

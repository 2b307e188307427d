/* Flanking without facing: each sentence of 001 "Flanking", "Reach and Flanking" and
 * "Internal Flanking", and 004 "Flanking", as a positive and a negative case. */
#include <criterion/criterion.h>

#include "rules/board/flanking.h"

static struct rules_options lines, opposite;

static void setup(void)
{
    cr_assert_eq(rules_preset_apply("epic-path", &lines), RULES_OPTION_OK);
    cr_assert_eq(rules_preset_apply("d20-3.5", &opposite), RULES_OPTION_OK);
}

TestSuite(flanking, .init = setup);

static struct rules_creature at(enum rules_size size, int x, int y)
{
    struct rules_creature c;
    rules_creature_init(&c, size, x, y, 0);
    return c;
}

#define MEDIUM(X, Y) at(RULES_SIZE_MEDIUM, (X), (Y))

static struct rules_flank_result flank(const struct rules_options *o, struct rules_creature a,
                                       struct rules_creature t, struct rules_creature ally)
{
    struct rules_flank_result r;
    rules_flanking(o, &a, &t, &ally, 1, NULL, &r);
    return r;
}

/* Under `lines` (001), a creature at a and its ally at ally flank the Medium enemy at (5, 5)
 * by `how`; the result, for more checks. */
static struct rules_flank_result flanks_by(struct rules_creature a, struct rules_creature ally,
                                           enum rules_flank_how how)
{
    struct rules_flank_result r = flank(&lines, a, MEDIUM(5, 5), ally);
    cr_assert(r.flanked);
    cr_assert_eq(r.how, how);
    return r;
}

/* "Trace a line from the center of a square you occupy to the center of a square your ally
 * occupies, and if that line passes through opposite sides or opposite corners of the
 * enemy's space, you have a flank" and "+2 flanking bonus". */
Test(flanking, line_through_opposite_sides_flanks_for_plus_two)
{
    cr_assert_eq(flanks_by(MEDIUM(5, 4), MEDIUM(5, 6), RULES_FLANK_OPPOSITE_SIDES).bonus, 2);
    flanks_by(MEDIUM(4, 5), MEDIUM(6, 5), RULES_FLANK_OPPOSITE_SIDES);
}

Test(flanking, line_through_opposite_corners_flanks)
{
    flanks_by(MEDIUM(4, 4), MEDIUM(6, 6), RULES_FLANK_OPPOSITE_CORNERS);
    flanks_by(MEDIUM(6, 4), MEDIUM(4, 6), RULES_FLANK_OPPOSITE_CORNERS);
}

/* "Corner squares ONLY flank with the opposite corner squares": side to corner is no flank. */
Test(flanking, corner_square_does_not_flank_with_a_side_square)
{
    struct rules_flank_result r = flank(&lines, MEDIUM(4, 4), MEDIUM(5, 5), MEDIUM(5, 6));
    cr_assert_not(r.flanked);
    cr_assert_eq(r.why_not, RULES_FLANK_NO_LINE);
    r = flank(&lines, MEDIUM(5, 4), MEDIUM(5, 5), MEDIUM(6, 6));
    cr_assert_not(r.flanked);
}

/* "enters the side of a target creature's space and exits an adjacent side ... is not a
 * flank": against a Large target, from its north edge out of its east edge. */
Test(flanking, entering_one_side_and_leaving_an_adjacent_side_is_no_flank)
{
    struct rules_creature large = at(RULES_SIZE_LARGE, 5, 5); /* squares 5..6 */
    struct rules_flank_line l = {11, 9, 15, 13};              /* (5,4) centre to (7,6) */
    cr_assert_eq(rules_line_through(&l, 10, 10, 14, 14), RULES_FLANK_NONE);
    cr_assert_not(flank(&lines, MEDIUM(5, 4), large, MEDIUM(7, 6)).flanked);
}

/* "any line which passes directly along the border of a target creature's space is not a
 * flank", and a line that only touches a corner is none either. */
Test(flanking, a_line_along_a_border_or_through_one_corner_point_is_no_flank)
{
    struct rules_flank_line along = {10, 8, 10, 14}, across = {11, 8, 11, 14};
    cr_assert_eq(rules_line_through(&along, 10, 10, 12, 12), RULES_FLANK_NONE);
    cr_assert_eq(rules_line_through(&across, 10, 10, 12, 12), RULES_FLANK_OPPOSITE_SIDES);
    struct rules_flank_line graze = {9, 11, 11, 9}; /* touches only the corner (10, 10) */
    cr_assert_eq(rules_line_through(&graze, 10, 10, 12, 12), RULES_FLANK_NONE);
    struct rules_flank_line bottom = {8, 12, 14, 12}; /* along the south border */
    cr_assert_eq(rules_line_through(&bottom, 10, 10, 12, 12), RULES_FLANK_NONE);
}

/* "against larger creatures, you only have to be able to trace the line against any portion
 * of the opposite side of its space." */
Test(flanking, against_a_large_creature_any_part_of_the_opposite_side_will_do)
{
    struct rules_creature large = at(RULES_SIZE_LARGE, 5, 5);
    struct rules_flank_result r = flank(&lines, MEDIUM(4, 5), large, MEDIUM(7, 6));
    cr_assert(r.flanked);
    cr_assert_eq(r.how, RULES_FLANK_OPPOSITE_SIDES);
    /* Still not from one side to an adjacent one. */
    cr_assert_not(flank(&lines, MEDIUM(4, 5), large, MEDIUM(6, 7)).flanked);
}

/* "If a creature is size-large or larger, it can choose which of the squares in its space it
 * wishes to determine flanks from". 004's whole-space centres do not flank here. */
Test(flanking, a_large_flanker_may_use_any_of_its_squares)
{
    struct rules_creature big = at(RULES_SIZE_LARGE, 4, 3); /* squares (4..5, 3..4) */
    struct rules_flank_result r = flank(&lines, big, MEDIUM(5, 5), MEDIUM(6, 6));
    cr_assert(r.flanked);
    cr_assert_eq(r.how, RULES_FLANK_OPPOSITE_CORNERS); /* from its square (4, 4) */
    cr_assert_not(flank(&opposite, big, MEDIUM(5, 5), MEDIUM(6, 6)).flanked);
}

/* "Only allies which threaten the creature you are threatening can provide flanks" and
 * "Creatures not wielding a weapon which threatens, or that have a reach of 0 can't flank". */
Test(flanking, only_threatening_allies_flank)
{
    struct rules_creature unarmed = MEDIUM(5, 6);
    unarmed.can_threaten = false;
    struct rules_flank_result r = flank(&lines, MEDIUM(5, 4), MEDIUM(5, 5), unarmed);
    cr_assert_not(r.flanked);
    cr_assert_eq(r.why_not, RULES_FLANK_NO_THREATENING_ALLY);
    r = flank(&lines, MEDIUM(5, 4), MEDIUM(5, 5), at(RULES_SIZE_TINY, 5, 6)); /* reach 0 */
    cr_assert_eq(r.why_not, RULES_FLANK_NO_THREATENING_ALLY);
}

/* "If you do not threaten, you cannot flank or gain benefits from a flank." */
Test(flanking, an_attacker_that_does_not_threaten_cannot_flank)
{
    struct rules_creature flat_footed = MEDIUM(5, 4);
    flat_footed.can_threaten = false; /* 004 Flat-Footed: can't make attacks of opportunity */
    struct rules_flank_result r = flank(&lines, flat_footed, MEDIUM(5, 5), MEDIUM(5, 6));
    cr_assert_eq(r.why_not, RULES_FLANK_ATTACKER_NOT_THREATENING);
    r = flank(&lines, MEDIUM(5, 3), MEDIUM(5, 5), MEDIUM(5, 6)); /* two squares off, 5 ft reach */
    cr_assert_eq(r.why_not, RULES_FLANK_ATTACKER_NOT_THREATENING);
}

/* 001 Reach and Flanking: "they can trace a line from any corner of their own space to any
 * corner of an ally's space". Centre to centre, (3,4) and (6,5) only graze the corner. */
Test(flanking, a_reach_flanker_may_use_corner_to_corner_lines)
{
    struct rules_creature pole = MEDIUM(3, 4);
    pole.reach_ft = 10;
    pole.reach_weapon = true;
    struct rules_flank_result r = flank(&lines, pole, MEDIUM(5, 5), MEDIUM(6, 5));
    cr_assert(r.flanked);
    cr_assert_str_eq(r.rule, "001 Reach and Flanking");
    /* 004 has no corner rule: the centre line grazes the corner, so no flank. */
    r = flank(&opposite, pole, MEDIUM(5, 5), MEDIUM(6, 5));
    cr_assert_not(r.flanked);
    cr_assert_eq(r.why_not, RULES_FLANK_NO_LINE);
    /* "Creatures with reach ... don't have to be adjacent": straight across at range. */
    struct rules_creature far = MEDIUM(5, 3);
    far.reach_ft = 10;
    cr_assert(flank(&lines, far, MEDIUM(5, 5), MEDIUM(5, 6)).flanked);
}

/* 001 Internal Flanking: inside a creature two sizes larger, with any ally threatening it. */
Test(flanking, a_small_creature_inside_a_large_one_flanks_it_with_any_threatening_ally)
{
    struct rules_creature rat = at(RULES_SIZE_TINY, 5, 5);
    struct rules_creature ogre = at(RULES_SIZE_LARGE, 5, 5);
    struct rules_flank_result r =
        flank(&lines, rat, ogre, MEDIUM(7, 7)); /* diagonal, not opposite */
    cr_assert(r.flanked);
    cr_assert_eq(r.how, RULES_FLANK_INTERNAL);
    cr_assert_str_eq(r.rule, "001 Internal Flanking");
    /* A Medium creature is only one size smaller than Large: no internal flank. */
    cr_assert_not(flank(&lines, MEDIUM(5, 5), ogre, MEDIUM(7, 7)).flanked);
}

/* "The larger creature flanks the smaller (internal) creature if any of the larger creature's
 * allies are able to threaten the square the smaller creature occupies." */
Test(flanking, the_large_creature_flanks_the_one_inside_it)
{
    struct rules_creature rat = at(RULES_SIZE_TINY, 5, 5);
    struct rules_creature ogre = at(RULES_SIZE_LARGE, 5, 5);
    cr_assert(flank(&lines, ogre, rat, MEDIUM(4, 5)).flanked);
    struct rules_flank_result r = flank(&lines, ogre, rat, MEDIUM(9, 9));
    cr_assert_eq(r.why_not, RULES_FLANK_NO_THREATENING_ALLY);
    /* "The larger creature's ally also gets a flank against the smaller creature." */
    r = flank(&lines, MEDIUM(4, 5), rat, ogre);
    cr_assert(r.flanked);
    cr_assert_eq(r.how, RULES_FLANK_INTERNAL);
}

/* "If a single square contains more than one creature, and you establish a legal flank to
 * that square, you flank all creatures in that square." */
Test(flanking, every_creature_in_a_flanked_square_is_flanked)
{
    struct rules_creature a = at(RULES_SIZE_TINY, 5, 5), b = at(RULES_SIZE_TINY, 5, 5);
    cr_assert(flank(&lines, MEDIUM(4, 5), a, MEDIUM(6, 5)).flanked);
    cr_assert(flank(&lines, MEDIUM(4, 5), b, MEDIUM(6, 5)).flanked);
}

/* 004 Flanking: "an ally directly opposite", "so that the opponent is directly between". */
Test(flanking, d20_opposite_rule_needs_the_ally_directly_opposite)
{
    cr_assert(flank(&opposite, MEDIUM(5, 4), MEDIUM(5, 5), MEDIUM(5, 6)).flanked);
    cr_assert(flank(&opposite, MEDIUM(4, 4), MEDIUM(5, 5), MEDIUM(6, 6)).flanked);
    struct rules_flank_result r = flank(&opposite, MEDIUM(5, 4), MEDIUM(5, 5), MEDIUM(6, 5));
    cr_assert_not(r.flanked);
    cr_assert_eq(r.why_not, RULES_FLANK_NO_LINE);
    cr_assert_str_eq(r.rule, "004 Flanking");
}

Test(flanking, facing_variants_and_immunity_replace_flanking)
{
    struct rules_options facing = opposite;
    facing.facing = RULES_FACING_000;
    struct rules_flank_result r = flank(&facing, MEDIUM(5, 4), MEDIUM(5, 5), MEDIUM(5, 6));
    cr_assert_eq(r.why_not, RULES_FLANK_FACING_IN_FORCE);
    struct rules_creature dodger = MEDIUM(5, 5);
    dodger.cannot_be_flanked = true;
    r = flank(&lines, MEDIUM(5, 4), dodger, MEDIUM(5, 6));
    cr_assert_eq(r.why_not, RULES_FLANK_TARGET_IMMUNE);
}

/* With many allies, the first that flanks is named and every ally is reported. */
Test(flanking, reports_each_ally)
{
    struct rules_creature allies[3] = {MEDIUM(9, 9), MEDIUM(6, 5), MEDIUM(5, 6)};
    struct rules_flank_ally per[3];
    struct rules_flank_result r;
    struct rules_creature a = MEDIUM(5, 4), t = MEDIUM(5, 5);
    rules_flanking(&lines, &a, &t, allies, 3, per, &r);
    cr_assert(r.flanked);
    cr_assert_eq(r.ally, 2);
    cr_assert_not(per[0].threatens);
    cr_assert(per[1].threatens);
    cr_assert_eq(per[1].how, RULES_FLANK_NONE);
    cr_assert_eq(per[2].how, RULES_FLANK_OPPOSITE_SIDES);
}

/* On hexes the target must lie on the straight line between attacker and ally. */
Test(flanking, on_hexes_the_ally_must_be_directly_opposite)
{
    struct rules_options hex = opposite;
    hex.grid = RULES_GRID_HEX;
    struct rules_creature t = MEDIUM(0, 0);
    cr_assert(flank(&hex, MEDIUM(0, -1), t, MEDIUM(0, 1)).flanked);      /* north, south */
    cr_assert(flank(&hex, MEDIUM(1, -1), t, MEDIUM(-1, 1)).flanked);     /* NE, SW */
    cr_assert_not(flank(&hex, MEDIUM(0, -1), t, MEDIUM(1, 0)).flanked);  /* N, SE */
    cr_assert_not(flank(&hex, MEDIUM(0, -1), t, MEDIUM(-1, 1)).flanked); /* N, SW */
    hex.flanking = RULES_FLANKING_LINES;
    cr_assert(flank(&hex, MEDIUM(-1, 0), t, MEDIUM(1, 0)).flanked); /* NW, SE */
}

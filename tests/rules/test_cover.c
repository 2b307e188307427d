/* Cover and concealment from the map by the d20 3.5 SRD's corner-to-corner lines (Combat,
 * "Cover", "Big Creatures and Cover", "Soft Cover", "Total Cover", "Concealment"), mapped onto
 * 002's tables: the SRD's cover (+4) is 002's one-half (+4), its concealment (20%) 002's
 * one-half (20%). Each expected square below is worked out from the lines by hand in the
 * comment above it. */
#include <criterion/criterion.h>

#include "rules/board/cover.h"

static struct rules_options o;
static struct rules_map m;

static void setup(void)
{
    cr_assert_eq(rules_preset_apply("d20-3.5", &o), RULES_OPTION_OK);
    cr_assert_eq(rules_map_init(&m, 8, 4), 0);
}

static void teardown(void)
{
    rules_map_free(&m);
}

TestSuite(cover, .init = setup, .fini = teardown);

static struct rules_creature at(enum rules_size size, int x, int y)
{
    struct rules_creature c;
    rules_creature_init(&c, size, x, y, 0);
    return c;
}

#define MEDIUM(X, Y) at(RULES_SIZE_MEDIUM, (X), (Y))

static void wall(int x, int y)
{
    m.terrain[y * m.width + x] = RULES_MAP_BLOCKED;
}

static void dark(int x, int y)
{
    m.flags[y * m.width + x] |= RULES_SQUARE_CONCEALED;
}

static struct rules_sight sight(struct rules_creature a, struct rules_creature t,
                                const struct rules_creature *others, int n, bool melee,
                                bool darkvision)
{
    struct rules_sight s;
    cr_assert_eq(rules_sight_between(&o, &m, &a, &t, others, n, melee, darkvision, &s),
                 RULES_COVER_OK);
    return s;
}

static bool reported(const struct rules_sight *s, int x, int y)
{
    for (int i = 0; i < s->blocking_count; i++)
        if (s->blocking[i].x == x && s->blocking[i].y == y)
            return true;
    return false;
}

Test(cover, clear_lines_give_no_cover)
{
    struct rules_sight s = sight(MEDIUM(0, 0), MEDIUM(4, 0), NULL, 0, false, false);
    cr_assert_eq(s.cover, RULES_COVER_NONE);
    cr_assert_eq(s.blocking_count, 0);
    cr_assert_eq(s.concealment, RULES_CONCEAL_NONE);
}

/* A pillar at (2,0) between (0,0) and (4,0). From corner (1,0) the line to (4,0) runs along the
 * pillar's edge (not through it), but the line to (5,1) crosses column 2 between heights 0.25
 * and 0.5: inside the pillar. Every corner of the attacker's square has such a line, so the
 * target has cover (+4, 002 one-half), and not total cover, since the line along the edge is
 * clear. */
Test(cover, a_wall_square_between_gives_cover_and_is_reported)
{
    wall(2, 0);
    struct rules_sight s = sight(MEDIUM(0, 0), MEDIUM(4, 0), NULL, 0, false, false);
    cr_assert_eq(s.cover, RULES_COVER_HALF);
    cr_assert_eq(s.blocking_count, 1);
    cr_assert(reported(&s, 2, 0));
    cr_assert_eq(s.blocking[0].creature, -1);
}

/* The same pillar: every corner of the attacker's square has two blocked lines (from (0,0): to
 * (5,1), crossing column 2 between heights 0.4 and 0.6, and to (4,1), between 0.5 and 0.75; the
 * lines to (4,0) and (5,0) run along row 0's top edge), so the first, (0,0), is the one ruled
 * from, and its blocked lines are those to the target's south-east and south-west corners:
 * bits 2 and 3 of the mask (corners NW, NE, SE, SW). */
Test(cover, the_blocked_lines_of_the_corner_ruled_from_are_reported)
{
    wall(2, 0);
    struct rules_sight s = sight(MEDIUM(0, 0), MEDIUM(4, 0), NULL, 0, false, false);
    cr_assert_eq(s.corner_x, 0);
    cr_assert_eq(s.corner_y, 0);
    cr_assert_eq(s.target_x, 4);
    cr_assert_eq(s.target_y, 0);
    cr_assert_eq(s.lines, 4);
    cr_assert_eq(s.lines_blocked, 2);
    cr_assert_eq(s.line_mask, (1u << 2) | (1u << 3));
}

/* SRD "Big Creatures and Cover": against a Large target (squares x 4-5, y 0-1) behind the same
 * pillar, the attacker may choose any square the target occupies. From corner (0,1) every line
 * to the corners of square (4,1) stays at height 1 or more, below the pillar (y 0 to 1): no
 * cover, and the ruling names that corner and that square. Corners (0,0) and (1,0) have a
 * blocked line to every square of the target (to (4,1)'s corner (4,2) from (1,0), for one,
 * the line crosses column 2 between heights 2/3 and 4/3), so (0,1) is the first clear choice. */
Test(cover, a_large_target_is_ruled_at_the_square_chosen)
{
    wall(2, 0);
    struct rules_sight s = sight(MEDIUM(0, 0), at(RULES_SIZE_LARGE, 4, 0), NULL, 0, false, false);
    cr_assert_eq(s.cover, RULES_COVER_NONE);
    cr_assert_eq(s.corner_x, 0);
    cr_assert_eq(s.corner_y, 1);
    cr_assert_eq(s.target_x, 4);
    cr_assert_eq(s.target_y, 1);
    cr_assert_eq(s.line_mask, 0u);
}

/* A wall the height of the map across column 2: every line from (0,1)'s corners (y 1 or 2) to
 * (4,1)'s crosses column 2 between heights 1 and 2, so through (2,1) or along the border
 * between two wall squares: SRD Total Cover, 002 "Total". */
Test(cover, a_solid_wall_gives_total_cover)
{
    for (int y = 0; y < 4; y++)
        wall(2, y);
    struct rules_sight s = sight(MEDIUM(0, 1), MEDIUM(4, 1), NULL, 0, false, false);
    cr_assert_eq(s.cover, RULES_COVER_TOTAL);
    cr_assert(reported(&s, 2, 1));
}

/* Walls along row 0 only: the lines from (0,1) to (4,1) stay between heights 1 and 2, so they
 * at most graze the walls' faces: no cover. */
Test(cover, a_line_along_a_wall_face_is_not_cover)
{
    for (int x = 1; x < 4; x++)
        wall(x, 0);
    struct rules_sight s = sight(MEDIUM(0, 1), MEDIUM(4, 1), NULL, 0, false, false);
    cr_assert_eq(s.cover, RULES_COVER_NONE);
}

/* SRD "Soft Cover": a creature between, as the pillar above, gives a ranged attack's target
 * cover; the square reported names it. */
Test(cover, a_creature_in_between_gives_cover_against_ranged)
{
    struct rules_creature other = MEDIUM(2, 0);
    struct rules_sight s = sight(MEDIUM(0, 0), MEDIUM(4, 0), &other, 1, false, false);
    cr_assert_eq(s.cover, RULES_COVER_HALF);
    cr_assert(reported(&s, 2, 0));
    cr_assert_eq(s.blocking[0].creature, 0);
}

/* A reach attack (melee, not adjacent) uses the ranged rule: the creature between is cover. */
Test(cover, a_reach_attack_uses_the_ranged_rule)
{
    struct rules_creature other = MEDIUM(1, 0);
    struct rules_sight s = sight(MEDIUM(0, 0), MEDIUM(2, 0), &other, 1, true, false);
    cr_assert(!s.melee_adjacent);
    cr_assert_eq(s.cover, RULES_COVER_HALF);
    cr_assert(reported(&s, 1, 0));
}

/* Around a wall corner: attacker (0,0), target (1,1) diagonally, wall at (1,0). In melee "any
 * line from your square to the target's square" counts: (0,0) to (2,1) crosses column 1 between
 * heights 0.5 and 1, inside the wall: cover. A ranged attacker chooses a corner: from (0,1) (or
 * the shared corner (1,1)) the lines to (1,1), (2,1), (2,2), (1,2) stay at heights 1 to 2 and
 * touch the wall at most along its edge: no cover. */
Test(cover, around_a_wall_corner_melee_has_cover_and_ranged_does_not)
{
    wall(1, 0);
    struct rules_sight melee = sight(MEDIUM(0, 0), MEDIUM(1, 1), NULL, 0, true, false);
    cr_assert(melee.melee_adjacent);
    cr_assert_eq(melee.cover, RULES_COVER_HALF);
    cr_assert(reported(&melee, 1, 0));
    struct rules_sight ranged = sight(MEDIUM(0, 0), MEDIUM(1, 1), NULL, 0, false, false);
    cr_assert_eq(ranged.cover, RULES_COVER_NONE);
    cr_assert_eq(ranged.blocking_count, 0);
}

/* Against an adjacent target in melee only walls count: a creature beside is not cover. */
Test(cover, a_creature_is_no_cover_in_adjacent_melee)
{
    struct rules_creature other = MEDIUM(1, 0);
    struct rules_sight s = sight(MEDIUM(0, 0), MEDIUM(1, 1), &other, 1, true, false);
    cr_assert_eq(s.cover, RULES_COVER_NONE);
}

/* SRD "Big Creatures and Cover": a Medium attacker at (1,1) strikes (2,0) past the wall at
 * (2,1): the line (2,2)-(3,0) crosses column 2 from height 2 to 0, through the wall: cover. A
 * Large attacker at (0,0) (squares x 0-1, y 0-1) may choose a square of its top row, (1,0) or
 * (0,0), whose corners all lie at height 1 or less, so no line from it enters the wall (y 1
 * to 2): no cover. */
Test(cover, a_large_attacker_chooses_its_best_square)
{
    wall(2, 1);
    struct rules_sight medium = sight(MEDIUM(1, 1), MEDIUM(2, 0), NULL, 0, true, false);
    cr_assert_eq(medium.cover, RULES_COVER_HALF);
    cr_assert(reported(&medium, 2, 1));
    struct rules_sight large =
        sight(at(RULES_SIZE_LARGE, 0, 0), MEDIUM(2, 0), NULL, 0, true, false);
    cr_assert(large.melee_adjacent);
    cr_assert_eq(large.cover, RULES_COVER_NONE);
    cr_assert_eq(large.corner_y, 0); /* a square of its top row, as (1,0) or (0,0) */
}

/* A target standing in darkness: the lines to the far corners of its square cross it, so it
 * has concealment (SRD 20%, 002 one-half) against an attacker without darkvision, and none
 * against one with darkvision. */
Test(cover, a_target_in_darkness_is_concealed_without_darkvision)
{
    dark(4, 0);
    struct rules_sight s = sight(MEDIUM(0, 0), MEDIUM(4, 0), NULL, 0, false, false);
    cr_assert_eq(s.concealment, RULES_CONCEAL_HALF);
    cr_assert_eq(s.concealing_count, 1);
    cr_assert_eq(s.concealing[0].x, 4);
    struct rules_sight dv = sight(MEDIUM(0, 0), MEDIUM(4, 0), NULL, 0, false, true);
    cr_assert_eq(dv.concealment, RULES_CONCEAL_NONE);
}

/* The attacker's own dark square does not hide a lit target. */
Test(cover, an_attacker_in_darkness_sees_a_lit_target)
{
    dark(0, 0);
    struct rules_sight s = sight(MEDIUM(0, 0), MEDIUM(4, 0), NULL, 0, false, false);
    cr_assert_eq(s.concealment, RULES_CONCEAL_NONE);
}

/* Adjacent melee: concealment only "if his space is entirely within" the darkness. A Large
 * target with one of its four squares dark has none; all four dark, it has. */
Test(cover, adjacent_melee_needs_the_whole_space_concealed)
{
    dark(1, 0);
    struct rules_sight part = sight(MEDIUM(0, 0), at(RULES_SIZE_LARGE, 1, 0), NULL, 0, true, false);
    cr_assert_eq(part.concealment, RULES_CONCEAL_NONE);
    dark(2, 0), dark(1, 1), dark(2, 1);
    struct rules_sight all = sight(MEDIUM(0, 0), at(RULES_SIZE_LARGE, 1, 0), NULL, 0, true, false);
    cr_assert_eq(all.concealment, RULES_CONCEAL_HALF);
}

Test(cover, hex_grids_are_not_ruled)
{
    o.grid = RULES_GRID_HEX;
    struct rules_creature a = MEDIUM(0, 0), t = MEDIUM(3, 0);
    struct rules_sight s;
    cr_assert_eq(rules_sight_between(&o, &m, &a, &t, NULL, 0, false, false, &s),
                 RULES_COVER_ERR_HEX);
}

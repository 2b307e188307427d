#include <criterion/criterion.h>

#include "rules/board/grid.h"
#include "rules/board/size.h"
#include "rules/options.h"

static struct rules_options preset(const char *name)
{
    struct rules_options o;
    cr_assert_eq(rules_preset_apply(name, &o), RULES_OPTION_OK, "%s", name);
    return o;
}

static struct rules_distance dist(const struct rules_options *o, struct rules_body a,
                                  struct rules_body b)
{
    struct rules_distance d;
    rules_distance(o, &a, &b, &d);
    return d;
}

#define AT(X, Y, Z, S) ((struct rules_body){.x = (X), .y = (Y), .z = (Z), .side = (S)})

/* RULES.md 1: three diagonals are 15 ft counted 1-for-1 (001) and 20 ft alternating (000). */
Test(distance, three_diagonals_are_15_ft_one_for_one_and_20_ft_alternating)
{
    struct rules_options ep = preset("epic-path"), d35 = preset("d20-3.5");
    cr_assert_eq(dist(&ep, AT(0, 0, 0, 1), AT(3, 3, 0, 1)).feet, 15);
    cr_assert_eq(dist(&d35, AT(0, 0, 0, 1), AT(3, 3, 0, 1)).feet, 20);
    cr_assert_eq(dist(&d35, AT(0, 0, 0, 1), AT(1, 1, 0, 1)).feet, 5);  /* first diagonal 5 */
    cr_assert_eq(dist(&d35, AT(0, 0, 0, 1), AT(2, 2, 0, 1)).feet, 15); /* 5 + 10 */
    struct rules_distance d = dist(&d35, AT(0, 0, 0, 1), AT(5, 2, 0, 1));
    cr_assert_eq(d.diagonal_steps, 2);
    cr_assert_eq(d.straight_steps, 3);
    cr_assert_eq(d.feet, 5 * (3 + 2 + 1));
}

/* 001 Three Dimensional Movement: the orc 30 ft up a tree. Thirty feet or more from the base,
 * the range is the range to the tree's square; closer, it is 30 ft. */
Test(distance, orc_thirty_feet_up_a_tree)
{
    struct rules_options ep = preset("epic-path");
    struct rules_body orc = AT(10, 0, 6, 1); /* its cube starts 6 cubes (30 ft) up */
    cr_assert_eq(dist(&ep, AT(2, 0, 0, 1), orc).feet, 40);
    cr_assert_eq(dist(&ep, AT(4, 0, 0, 1), orc).feet, 30);
    cr_assert_eq(dist(&ep, AT(8, 0, 0, 1), orc).feet, 30);
    cr_assert_eq(dist(&ep, AT(10, 1, 0, 1), orc).feet, 30); /* right beside the trunk */
    struct rules_distance d = dist(&ep, AT(9, 0, 0, 1), orc);
    cr_assert_eq(d.vertical_squares, 6);
    cr_assert_eq(d.horizontal_squares, 1);
}

/* Between creatures of any size, distance runs between their nearest squares. */
Test(distance, large_creatures_measure_from_their_nearest_square)
{
    struct rules_options ep = preset("epic-path");
    /* A Large creature at (0,0) covers x 0..1; a Medium one at (3,0) is 2 squares away. */
    cr_assert_eq(dist(&ep, AT(0, 0, 0, 2), AT(3, 0, 0, 1)).squares, 2);
    cr_assert_eq(dist(&ep, AT(0, 0, 0, 2), AT(2, 2, 0, 1)).squares, 1); /* diagonal neighbour */
    cr_assert_eq(dist(&ep, AT(0, 0, 0, 3), AT(1, 1, 0, 1)).squares, 0); /* inside its space */
    /* 001: a Huge elephant's back is 15 ft up; a rider standing on it is adjacent above. */
    cr_assert_eq(dist(&ep, AT(0, 0, 0, 3), AT(1, 1, 3, 1)).squares, 1);
}

Test(distance, hexes_count_the_shorter_path)
{
    struct rules_options o = preset("d20-3.5");
    cr_assert_eq(rules_option_set(&o, "grid", true, "hex", 0), RULES_OPTION_OK);
    cr_assert_eq(dist(&o, AT(0, 0, 0, 1), AT(2, -1, 0, 1)).squares, 2);
    cr_assert_eq(dist(&o, AT(0, 0, 0, 1), AT(3, 0, 0, 1)).squares, 3);
    cr_assert_eq(dist(&o, AT(0, 0, 0, 1), AT(-2, -2, 0, 1)).squares, 4);
    cr_assert_eq(dist(&o, AT(1, 1, 0, 1), AT(1, 1, 0, 1)).feet, 0);
}

/* 001 Space and Reach: a Large creature's space is 10 ft, 2 x 2 squares; 003: on hexes a
 * Medium creature covers one hex and a Large one three, its hex and the neighbours in
 * directions t and t + 1 (grid.h). rules_body_squares is the one copy of a footprint. */
Test(footprint, large_covers_four_squares_or_three_hexes)
{
    struct rules_options sq = preset("d20-3.5"), hx = preset("d20-3.5");
    cr_assert_eq(rules_option_set(&hx, "grid", true, "hex", 0), RULES_OPTION_OK);
    int xs[8], ys[8];
    cr_assert_eq(rules_body_squares(&sq, &AT(2, 3, 0, 2), xs, ys, 8), 4);
    int want[4][2] = {{2, 3}, {3, 3}, {2, 4}, {3, 4}};
    for (int i = 0; i < 4; i++)
        cr_assert(xs[i] == want[i][0] && ys[i] == want[i][1], "square %d", i);
    cr_assert_eq(rules_body_squares(&sq, &AT(2, 3, 0, 2), xs, ys, 3), 3); /* at most max */
    cr_assert_eq(rules_body_squares(&sq, &AT(5, 5, 0, 1), xs, ys, 8), 1);
    cr_assert(xs[0] == 5 && ys[0] == 5);
    cr_assert_eq(rules_body_squares(&hx, &AT(4, 4, 0, 1), xs, ys, 8), 1); /* Medium: one hex */
    struct rules_body large = {.x = 0, .y = 0, .side = 1, .tri = 1 + 2};
    cr_assert_eq(rules_body_squares(&hx, &large, xs, ys, 8), 3);
    int hexes[3][2] = {{0, 0}, {1, 0}, {0, 1}}; /* directions 2 (+1,0) and 3 (0,+1) */
    for (int i = 0; i < 3; i++)
        cr_assert(xs[i] == hexes[i][0] && ys[i] == hexes[i][1], "hex %d", i);
}

Test(options, presets_set_every_disagreement_as_documented)
{
    struct rules_options d35 = preset("d20-3.5"), ep = preset("epic-path");
    struct rules_options mod = preset("d20-modern"), fac = preset("d20-3.5-facing");
    cr_assert_eq(d35.diagonals, RULES_DIAGONALS_ALTERNATING);
    cr_assert_eq(ep.diagonals, RULES_DIAGONALS_ONE_FOR_ONE);
    cr_assert_eq(ep.flanking, RULES_FLANKING_LINES);
    cr_assert_eq(d35.flanking, RULES_FLANKING_OPPOSITE);
    cr_assert_eq(ep.start_square, RULES_START_SQUARE_THREATENED);
    cr_assert_eq(d35.start_square, RULES_START_SQUARE_SAFE);
    cr_assert_eq(fac.facing, RULES_FACING_000);
    cr_assert(fac.shields_by_side);
    cr_assert_eq(mod.size_table, RULES_SIZE_TABLE_004);
    cr_assert_eq(ep.size_table, RULES_SIZE_TABLE_001);
    cr_assert_eq(ep.falling_max_dice, 20); /* 001 Falling: "normally ... 20d6" */
    struct rules_options o;
    cr_assert_eq(rules_preset_apply("pathfinder", &o), RULES_OPTION_ERR_UNKNOWN);
}

Test(options, overrides_are_checked_by_name_type_and_value)
{
    struct rules_options o = preset("d20-3.5");
    cr_assert_eq(rules_option_set(&o, "facing", true, "003", 0), RULES_OPTION_OK);
    cr_assert_eq(o.facing, RULES_FACING_003);
    cr_assert_eq(rules_option_set(&o, "facing", true, "004", 0), RULES_OPTION_ERR_VALUE);
    cr_assert_eq(rules_option_set(&o, "facing", false, NULL, 1), RULES_OPTION_ERR_TYPE);
    cr_assert_eq(rules_option_set(&o, "falling_max_dice", false, NULL, 0), RULES_OPTION_OK);
    cr_assert_eq(o.falling_max_dice, 0);
    cr_assert_eq(rules_option_set(&o, "falling_max_dice", false, NULL, -1), RULES_OPTION_ERR_VALUE);
    cr_assert_eq(rules_option_set(&o, "falling_max_dice", true, "20", 0), RULES_OPTION_ERR_TYPE);
    cr_assert_eq(rules_option_set(&o, "shields_by_side", false, NULL, 1), RULES_OPTION_OK);
    cr_assert(o.shields_by_side);
    cr_assert_eq(rules_option_set(&o, "colour", true, "red", 0), RULES_OPTION_ERR_UNKNOWN);
    /* Reading back gives what was set. */
    int count = 0;
    const struct rules_option_info *t = rules_option_table(&count);
    for (int i = 0; i < count; i++) {
        const char *s;
        long long n;
        rules_option_get(&o, i, &s, &n);
        if (t[i].kind == RULES_OPTION_ENUM)
            cr_assert_not_null(s, "%s", t[i].name);
    }
}

/* 001 Space and Reach, bullet by bullet. */
Test(size, space_reach_and_gaps_follow_001)
{
    const struct rules_size_info *large = rules_size_info(RULES_SIZE_LARGE);
    cr_assert_eq(large->squares, 2);
    cr_assert_eq(large->natural_reach_ft, 10);
    cr_assert_eq(large->fit_gap_in, 120);    /* 10 ft */
    cr_assert_eq(large->squeeze_gap_in, 60); /* 5 ft */
    cr_assert_eq(large->impeded_gap_in, 30); /* 2 1/2 ft */
    const struct rules_size_info *fine = rules_size_info(RULES_SIZE_FINE);
    cr_assert_eq(fine->space_in, 6);
    cr_assert_eq(fine->natural_reach_ft, 0);
    cr_assert_eq(fine->per_square, 4);
    cr_assert_eq(fine->impeded_gap_in, 1);
    cr_assert_eq(rules_size_info(RULES_SIZE_TINY)->per_square, 2);
    const struct rules_size_info *tp = rules_size_info(RULES_SIZE_TITANIC_PLUS);
    cr_assert_eq(tp->squares, 12);
    cr_assert_eq(tp->natural_reach_ft, 60);
    cr_assert_eq(tp->squeeze_gap_in, 360); /* 30 ft */
    cr_assert_eq(rules_size_info(RULES_SIZE_TITANIC_THREE_PLUS)->squares, 48);
    /* 001 Occupied Squares: Huge 9, Gargantuan 16, Colossal 25, Titanic 36 squares. */
    cr_assert_eq(rules_size_info(RULES_SIZE_HUGE)->squares, 3);
    cr_assert_eq(rules_size_info(RULES_SIZE_TITANIC)->squares, 6);
    cr_assert_eq(rules_size_from_name("gargantuan"), RULES_SIZE_GARGANTUAN);
    cr_assert_eq(rules_size_from_name("enormous"), -1);
}

Test(size, modifiers_follow_the_table_in_force)
{
    struct rules_options d35 = preset("d20-3.5"), ep = preset("epic-path");
    int atk = 99, ac = 99;
    cr_assert_eq(rules_size_modifiers(&d35, RULES_SIZE_FINE, false, &atk, &ac), RULES_SIZE_OK);
    cr_assert_eq(atk, 8); /* 004: Fine +8 */
    cr_assert_eq(rules_size_modifiers(&d35, RULES_SIZE_COLOSSAL, false, &atk, &ac), RULES_SIZE_OK);
    cr_assert_eq(ac, -8); /* 004: Colossal -8 */
    cr_assert_eq(rules_size_modifiers(&d35, RULES_SIZE_TITANIC, false, &atk, &ac),
                 RULES_SIZE_ERR_NO_MODIFIER);
    cr_assert_eq(rules_size_modifiers(&ep, RULES_SIZE_TITANIC, true, &atk, &ac), RULES_SIZE_OK);
    cr_assert_eq(atk, 0); /* 001 gives no attack modifier */
    cr_assert_eq(ac, -5); /* 001: Titanic PC -5 to AC */
    cr_assert_eq(rules_size_modifiers(&ep, RULES_SIZE_TITANIC, false, &atk, &ac), RULES_SIZE_OK);
    cr_assert_eq(ac, 0); /* "does not apply to monsters" */
}

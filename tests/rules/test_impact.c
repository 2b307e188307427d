/* 001 Falling, Collisions, Falling into Water, Thrown or Dropped Objects: every example. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/world/impact.h"

static struct rules_options ep;

static void setup(void)
{
    cr_assert_eq(rules_preset_apply("epic-path", &ep), RULES_OPTION_OK);
}

TestSuite(impact, .init = setup);

static struct rules_fall_outcome fall(struct rules_fall f)
{
    struct rules_fall_outcome out;
    rules_fall(&ep, &f, &out);
    return out;
}

/* "a character who slips from a ledge 30 feet up takes 3d6 ... If the same character
 * deliberately jumps, they take 2d6 ... with a successful Acrobatics check, they take only
 * 1d6". */
Test(impact, the_thirty_foot_ledge)
{
    cr_assert_str_eq(fall((struct rules_fall){.height_ft = 30}).dice.expression, "3d6");
    cr_assert_str_eq(fall((struct rules_fall){.height_ft = 30, .deliberate = true}).dice.expression,
                     "2d6");
    struct rules_fall_outcome o =
        fall((struct rules_fall){.height_ft = 30, .deliberate = true, .acrobatics_success = true});
    cr_assert_str_eq(o.dice.expression, "1d6");
    cr_assert_eq(o.dice.free_ft, 20);
    /* "1d6 ... per 10 feet fallen": 29 ft is two full 10-ft increments. */
    cr_assert_str_eq(fall((struct rules_fall){.height_ft = 29}).dice.expression, "2d6");
    cr_assert_str_eq(fall((struct rules_fall){.height_ft = 9}).dice.expression, "");
}

/* "the normal maximum for falling damage is 20d6 ... Falling in the Aether ... may have no
 * maximum limit at all". */
Test(impact, the_falling_maximum_is_an_option)
{
    struct rules_fall_outcome o = fall((struct rules_fall){.height_ft = 300});
    cr_assert_str_eq(o.dice.expression, "20d6");
    cr_assert(o.dice.capped);
    struct rules_options aether = ep;
    aether.falling_max_dice = 0;
    struct rules_fall f = {.height_ft = 300};
    rules_fall(&aether, &f, &o);
    cr_assert_str_eq(o.dice.expression, "30d6");
    cr_assert_not(o.dice.capped);
}

/* Obsidian +2 per die, broken tree trunks or solid stone +1, soft loam or deep grass -1. */
Test(impact, surfaces_change_every_die)
{
    cr_assert_str_eq(fall((struct rules_fall){.height_ft = 30, .surface = RULES_SURFACE_OBSIDIAN})
                         .dice.expression,
                     "3d6{+2}");
    cr_assert_str_eq(
        fall((struct rules_fall){.height_ft = 30, .surface = RULES_SURFACE_STONE}).dice.expression,
        "3d6{+1}");
    cr_assert_str_eq(
        fall((struct rules_fall){.height_ft = 30, .surface = RULES_SURFACE_SOFT}).dice.expression,
        "3d6{-1}");
}

/* "If the water is at least 10 feet deep, the first 20 feet of falling does no damage. The
 * next 20 feet of falling deals half normal falling damage (1d3 per 10-foot increment).
 * Beyond that ... 1d6 per additional 10-foot increment." */
Test(impact, falling_into_deep_water)
{
    struct rules_fall w = {.surface = RULES_SURFACE_WATER, .water_depth_ft = 10};
    w.height_ft = 20;
    cr_assert_str_eq(fall(w).dice.expression, "");
    w.height_ft = 30;
    cr_assert_str_eq(fall(w).dice.expression, "1d3");
    w.height_ft = 40;
    cr_assert_str_eq(fall(w).dice.expression, "2d3");
    w.height_ft = 70;
    cr_assert_str_eq(fall(w).dice.expression, "2d3+3d6");
    /* Shallower than 10 ft, the water rule does not apply. */
    w.water_depth_ft = 5;
    cr_assert_str_eq(fall(w).dice.expression, "7d6");
    cr_assert_not(fall(w).water);
}

/* "Characters who deliberately dive into water take no damage on a successful DC 15 ...
 * check, so long as the water is at least 10 feet deep for every 30 feet fallen. The DC of
 * the check, however, increases by 5 for every 50 feet of the dive." */
Test(impact, diving)
{
    struct rules_fall d = {.height_ft = 60,
                           .surface = RULES_SURFACE_WATER,
                           .water_depth_ft = 20,
                           .dive = true,
                           .dive_success = true};
    struct rules_fall_outcome o = fall(d);
    cr_assert(o.dive_unharmed);
    cr_assert_eq(o.dive_dc, 20);
    cr_assert_str_eq(o.dice.expression, "");
    d.water_depth_ft = 19; /* 60 ft needs 20 ft of water */
    o = fall(d);
    cr_assert_not(o.dive_deep_enough);
    cr_assert_str_eq(o.dice.expression, "2d3+2d6");
    d.water_depth_ft = 20;
    d.dive_success = false;
    cr_assert_not(fall(d).dive_unharmed);
    d.height_ft = 49;
    cr_assert_eq(fall(d).dive_dc, 15);
    d.height_ft = 100;
    cr_assert_eq(fall(d).dive_dc, 25);
}

/* "If he has a base speed of 50 feet and a Haste spell to raise his speed to 80, then he takes
 * 8d6 from this collision." */
Test(impact, collisions)
{
    struct rules_impact im;
    struct rules_collision c = {.speed_ft = 80, .motion = RULES_MOTION_CHARGE};
    rules_collision(&ep, &c, &im);
    cr_assert_str_eq(im.expression, "8d6");
    c.motion = RULES_MOTION_WALK; /* cautious: "no damage at all" */
    rules_collision(&ep, &c, &im);
    cr_assert_str_eq(im.expression, "");
    c.motion = RULES_MOTION_DOUBLE_MOVE;
    rules_collision(&ep, &c, &im);
    cr_assert_str_eq(im.expression, "");
    c.motion = RULES_MOTION_CHARGE; /* deliberate ramming never hurts the instigator */
    c.deliberate = true;
    rules_collision(&ep, &c, &im);
    cr_assert_str_eq(im.expression, "");
    c = (struct rules_collision){.speed_ft = 120, .motion = RULES_MOTION_RUN};
    rules_collision(&ep, &c, &im);
    cr_assert_str_eq(im.expression, "12d6");
    c = (struct rules_collision){.speed_ft = 60, .motion = RULES_MOTION_THROWN};
    rules_collision(&ep, &c, &im);
    cr_assert_str_eq(im.expression, "6d6");
}

/* The Object Size Damage table, row by row, and the materials. */
Test(impact, dropped_objects)
{
    static const struct {
        enum rules_size size;
        int dice;
    } table[] = {{RULES_SIZE_TINY, 1},          {RULES_SIZE_SMALL, 2},
                 {RULES_SIZE_MEDIUM, 3},        {RULES_SIZE_LARGE, 5},
                 {RULES_SIZE_HUGE, 8},          {RULES_SIZE_GARGANTUAN, 13},
                 {RULES_SIZE_COLOSSAL, 21},     {RULES_SIZE_TITANIC, 34},
                 {RULES_SIZE_TITANIC_PLUS, 34}, {RULES_SIZE_TITANIC_THREE_PLUS, 34}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        cr_assert_eq(rules_object_size_dice(table[i].size), table[i].dice);
    cr_assert_eq(rules_object_size_dice(RULES_SIZE_DIMINUTIVE), -1);
    struct rules_impact im;
    cr_assert_eq(rules_dropped_object(&ep, RULES_SIZE_MEDIUM, 30, RULES_MATERIAL_NORMAL, 0, &im),
                 0);
    cr_assert_str_eq(im.expression, "6d6"); /* 3d6 for 30 ft + 3d6 for Medium */
    rules_dropped_object(&ep, RULES_SIZE_LARGE, 0, RULES_MATERIAL_FEATHERS, 0, &im);
    cr_assert_str_eq(im.expression, "5d6{-2}");
    rules_dropped_object(&ep, RULES_SIZE_SMALL, 10, RULES_MATERIAL_BRUSH, 0, &im);
    cr_assert_str_eq(im.expression, "3d6{-1}");
    rules_dropped_object(&ep, RULES_SIZE_HUGE, 20, RULES_MATERIAL_DENSE, 0, &im);
    cr_assert_str_eq(im.expression, "10d6{+1}");
    rules_dropped_object(&ep, RULES_SIZE_TINY, 500, RULES_MATERIAL_HARMFUL, 0, &im);
    cr_assert_str_eq(im.expression, "21d6{+2}"); /* the fall capped at 20d6, plus Tiny's 1d6 */
    cr_assert_eq(rules_dropped_object(&ep, RULES_SIZE_FINE, 10, RULES_MATERIAL_NORMAL, 0, &im), -1);
}

/* A die never counts below 0, and damage reduction never makes damage negative. */
Test(impact, totals_floor_each_die_and_the_damage)
{
    struct rules_dice_expr e;
    size_t at;
    cr_assert_eq(rules_dice_parse("3d6{-2}", &e, &at), RULES_DICE_OK);
    int faces[] = {1, 6, 3};
    struct rules_dice d;
    rules_dice_from_supplied(&d, faces, 3);
    struct rules_roll roll;
    cr_assert_eq(rules_dice_roll(&e, &d, &roll), RULES_DICE_OK);
    cr_assert_eq(roll.total, 4);                       /* the engine itself does not floor */
    cr_assert_eq(rules_impact_total(&roll, -2, 0), 5); /* 0 + 4 + 1 */
    cr_assert_eq(rules_impact_total(&roll, -2, 3), 2);
    cr_assert_eq(rules_impact_total(&roll, -2, 10), 0);
}

/* "Such attacks generally have a range increment of 20 feet": the first 20 ft are increment
 * 1, each 20 ft begun after it one more, and the penalty the caller states counts from the
 * second. Only a Large or larger object fills an area. */
Test(impact, a_dropped_object_range_increments_and_area)
{
    static const int want[][2] = {{0, 1}, {20, 1}, {21, 2}, {40, 2}, {41, 3}, {45, 3}, {100, 5}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert_eq(rules_dropped_range_increment(want[i][0]), want[i][1], "%d ft", want[i][0]);
    cr_assert_eq(rules_dropped_range_penalty(45, 2), 4);
    cr_assert_eq(rules_dropped_range_penalty(20, 2), 0);
    cr_assert_not(rules_dropped_fills_area(RULES_SIZE_MEDIUM));
    cr_assert(rules_dropped_fills_area(RULES_SIZE_LARGE));
    cr_assert(rules_dropped_fills_area(RULES_SIZE_COLOSSAL));
}

/* The ranged touch attack: d20 + bonus - range penalty against touch AC; a hit takes the
 * object's damage less its own DR, never below 0. */
Test(impact, a_dropped_object_strikes_by_a_ranged_touch_attack)
{
    struct rules_dropped_strike s;
    rules_dropped_strike(10, 3, 4, 9, 12, 0, &s);
    cr_assert_eq(s.attack_total, -1);
    cr_assert_eq(s.roll_total, 9);
    cr_assert(s.hit);
    cr_assert_eq(s.damage, 12);
    rules_dropped_strike(10, 3, 4, 10, 12, 0, &s);
    cr_assert_not(s.hit);
    cr_assert_eq(s.damage, 0);
    rules_dropped_strike(20, 0, 0, 15, 12, 5, &s);
    cr_assert_eq(s.damage, 7);
    rules_dropped_strike(20, 0, 0, 15, 3, 5, &s);
    cr_assert(s.hit);
    cr_assert_eq(s.damage, 0);
}

/* 001 Overland Travel: every row of the three tables and every example. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "rules/world/travel.h"

/* Table: Movement and Distance, One Hour Walk (miles, in eighths) for each column; Hustle is
 * double; One Day Walk is eight hours. */
/* One leg of `miles` on a plains road, eight hours a day, at the overland pace of speed_ft. */
static struct rules_journey day_on_the_road(int miles, int speed_ft)
{
    struct rules_journey j = {.leg_count = 1, .hours_per_day = 8};
    j.pace_eighths_per_hour = rules_overland_eighths_per_hour(speed_ft);
    j.legs[0] = (struct rules_leg){miles * RULES_MILE_UNITS, RULES_TERRAIN_PLAINS, RULES_WAY_ROAD};
    return j;
}

Test(travel, movement_and_distance_table)
{
    static const struct {
        int speed, walk_eighths, day_miles;
    } cols[] = {
        {5, 4, 4},       {10, 16, 16},    {20, 16, 16},    {25, 24, 24},    {30, 24, 24},
        {35, 32, 32},    {40, 32, 32},    {45, 40, 40},    {50, 40, 40},    {55, 48, 48},
        {60, 48, 48},    {65, 56, 56},    {70, 56, 56},    {75, 64, 64},    {80, 64, 64},
        {85, 72, 72},    {90, 72, 72},    {95, 80, 80},    {100, 80, 80},   {105, 120, 120},
        {120, 120, 120}, {125, 160, 160}, {140, 160, 160}, {145, 200, 200}, {160, 200, 200},
        {165, 240, 240}, {180, 240, 240}, {185, 320, 320}, {200, 320, 320}, {205, 400, 400},
        {500, 400, 400},
    };
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        int e = rules_overland_eighths_per_hour(cols[i].speed);
        cr_assert_eq(e, cols[i].walk_eighths, "speed %d", cols[i].speed);
        cr_assert_eq(e * 8 / 8, cols[i].day_miles, "speed %d: a day is 8 hours", cols[i].speed);
    }
    /* Between columns, round down to a multiple of 5 ft; below 5 ft, no overland movement. */
    cr_assert_eq(rules_overland_eighths_per_hour(22), 16);
    cr_assert_eq(rules_overland_eighths_per_hour(4), 0);
}

/* Table: Terrain and Overland Movement, all 27 cells (quarters). */
Test(travel, terrain_table)
{
    static const int want[9][3] = {{4, 2, 2}, {4, 4, 2}, {4, 3, 2}, {4, 3, 1}, {4, 4, 3},
                                   {3, 3, 2}, {4, 4, 3}, {4, 3, 2}, {4, 3, 3}};
    for (int t = 0; t < 9; t++) {
        cr_assert_eq(rules_terrain_quarters(t, RULES_WAY_HIGHWAY, false), want[t][0]);
        cr_assert_eq(rules_terrain_quarters(t, RULES_WAY_ROAD, false), want[t][1]);
        cr_assert_eq(rules_terrain_quarters(t, RULES_WAY_TRAIL, false), want[t][1]);
        cr_assert_eq(rules_terrain_quarters(t, RULES_WAY_TRACKLESS, false), want[t][2]);
    }
    /* A trail "does not benefit a party traveling with vehicles". */
    cr_assert_eq(rules_terrain_quarters(RULES_TERRAIN_JUNGLE, RULES_WAY_TRAIL, true), 1);
}

/* Table: Overland Travel By Vehicle, every row (eighths of a mile). */
Test(travel, vehicle_table)
{
    static const struct {
        enum rules_vehicle v;
        int hour, day, hours;
    } rows[] = {{RULES_VEHICLE_CART, 16, 128, 8},          {RULES_VEHICLE_RAFT, 4, 40, 10},
                {RULES_VEHICLE_KEELBOAT, 8, 80, 10},       {RULES_VEHICLE_ROWBOAT, 12, 120, 10},
                {RULES_VEHICLE_SAILING_SHIP, 16, 384, 24}, {RULES_VEHICLE_WARSHIP, 20, 480, 24},
                {RULES_VEHICLE_LONGSHIP, 24, 576, 24},     {RULES_VEHICLE_GALLEY, 32, 768, 24}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int h, d, n;
        rules_vehicle_speed(rows[i].v, &h, &d, &n);
        cr_assert(h == rows[i].hour && d == rows[i].day && n == rows[i].hours, "row %zu", i);
    }
}

static struct rules_travel_result *run(struct rules_journey *j, const int *faces, size_t n,
                                       int expect)
{
    struct rules_travel_result *r = malloc(sizeof *r);
    r->days = malloc(sizeof *r->days * RULES_TRAVEL_MAX_DAYS);
    struct rules_dice d;
    if (faces != NULL)
        rules_dice_from_supplied(&d, faces, n);
    else
        rules_dice_from_seed(&d, 1);
    cr_assert_eq(rules_travel(j, &d, r), expect);
    return r;
}

static void done(struct rules_travel_result *r)
{
    free(r->days);
    free(r);
}

/* 001: "it takes a full round effort to move five feet, and doing so all day long will get you
 * a scant four miles, and ... doing this in trackless mountains lowers that to a paltry two
 * miles." */
Test(travel, climbing_everest)
{
    struct rules_journey j = day_on_the_road(4, 5);
    struct rules_travel_result *r = run(&j, NULL, 0, RULES_TRAVEL_OK);
    cr_assert_eq(r->day_count, 1);
    cr_assert_eq(r->days[0].minutes, 8 * 60);
    cr_assert_eq(r->legs[0].units_per_day, 4 * RULES_MILE_UNITS);
    done(r);
    j.legs[0] =
        (struct rules_leg){2 * RULES_MILE_UNITS, RULES_TERRAIN_MOUNTAINS, RULES_WAY_TRACKLESS};
    r = run(&j, NULL, 0, RULES_TRAVEL_OK);
    cr_assert_eq(r->legs[0].units_per_day, 2 * RULES_MILE_UNITS);
    cr_assert_eq(r->day_count, 1);
    cr_assert_eq(r->days[0].minutes, 8 * 60);
    done(r);
}

/* 001 Hustle: the first hour is free, "a second hour ... deals 1 point", "each additional hour
 * deals twice the damage taken during the previous hour", and the hustler is fatigued. */
Test(travel, hustle_damage_doubles_and_fatigues)
{
    struct rules_journey j = {.leg_count = 1, .hours_per_day = 8, .hustle_hours = 4};
    j.pace_eighths_per_hour = rules_overland_eighths_per_hour(30); /* 3 mph, hustle 6 */
    j.legs[0] = (struct rules_leg){36 * RULES_MILE_UNITS, RULES_TERRAIN_PLAINS, RULES_WAY_ROAD};
    struct rules_travel_result *r = run(&j, NULL, 0, RULES_TRAVEL_OK);
    /* 4 hours hustling (24 miles) and 4 walking (12): 36 miles in one day. */
    cr_assert_eq(r->day_count, 1);
    cr_assert_eq(r->days[0].hustle_damage, 0 + 1 + 2 + 4);
    cr_assert(r->days[0].fatigued);
    done(r);
    j.hustle_hours = 1; /* one hour is "without a problem" */
    r = run(&j, NULL, 0, RULES_TRAVEL_OK);
    cr_assert_eq(r->days[0].hustle_damage, 0);
    cr_assert_not(r->days[0].fatigued);
    done(r);
}

/* 001 Forced March: "For each hour of marching beyond 8 hours, the character takes 2d6". */
Test(travel, forced_march_rolls_2d6_per_hour_past_eight)
{
    struct rules_journey j = {.leg_count = 1, .hours_per_day = 10};
    j.pace_eighths_per_hour = rules_overland_eighths_per_hour(30);
    j.legs[0] = (struct rules_leg){30 * RULES_MILE_UNITS, RULES_TERRAIN_PLAINS, RULES_WAY_ROAD};
    int faces[] = {1, 2, 3, 4};
    struct rules_travel_result *r = run(&j, faces, 4, RULES_TRAVEL_OK);
    cr_assert_eq(r->day_count, 1);
    cr_assert_eq(r->days[0].forced_hours, 2);
    cr_assert_eq(r->days[0].forced_damage, 10);
    cr_assert(r->days[0].fatigued);
    done(r);
    r = run(&j, faces, 3, RULES_TRAVEL_ERR_DICE); /* supplied dice must cover every hour */
    done(r);
}

/* Legs of different terrain join mid-hour: 3 miles of plains road at 3 mph, then 3 miles of
 * trackless mountains at 1 1/2: 1 hour + 2 hours. */
Test(travel, legs_join_mid_hour)
{
    struct rules_journey j = {.leg_count = 2, .hours_per_day = 8};
    j.pace_eighths_per_hour = rules_overland_eighths_per_hour(30);
    j.legs[0] = (struct rules_leg){3 * RULES_MILE_UNITS, RULES_TERRAIN_PLAINS, RULES_WAY_ROAD};
    j.legs[1] =
        (struct rules_leg){3 * RULES_MILE_UNITS, RULES_TERRAIN_MOUNTAINS, RULES_WAY_TRACKLESS};
    struct rules_travel_result *r = run(&j, NULL, 0, RULES_TRAVEL_OK);
    cr_assert_eq(r->legs[0].end_minute, 60);
    cr_assert_eq(r->legs[1].end_minute, 180);
    cr_assert_eq(r->total_minutes_travelled, 180);
    cr_assert_eq(r->days[0].units, 6 * RULES_MILE_UNITS);
    done(r);
}

/* A journey over several days rests each night; a crewed ship sails all 24 hours. */
Test(travel, days_and_crewed_ships)
{
    struct rules_journey j = day_on_the_road(60, 30);
    struct rules_travel_result *r = run(&j, NULL, 0, RULES_TRAVEL_OK);
    cr_assert_eq(r->day_count, 3); /* 24 + 24 + 12 miles */
    cr_assert_eq(r->days[2].minutes, 4 * 60);
    done(r);
    int h, d, n;
    rules_vehicle_speed(RULES_VEHICLE_SAILING_SHIP, &h, &d, &n);
    struct rules_journey s = {.leg_count = 1,
                              .hours_per_day = n,
                              .vehicle = true,
                              .crewed = true,
                              .pace_eighths_per_hour = h};
    s.legs[0] = (struct rules_leg){96 * RULES_MILE_UNITS, RULES_TERRAIN_WATER, RULES_WAY_ROAD};
    r = run(&s, NULL, 0, RULES_TRAVEL_OK);
    cr_assert_eq(r->day_count, 2); /* 48 miles a day */
    cr_assert_eq(r->days[0].forced_hours, 0);
    cr_assert_not(r->days[0].fatigued);
    done(r);
}

Test(travel, a_journey_beyond_the_day_limit_is_refused)
{
    struct rules_journey j = {.leg_count = 1, .hours_per_day = 1};
    j.pace_eighths_per_hour = rules_overland_eighths_per_hour(5); /* half a mile a day */
    j.legs[0] = (struct rules_leg){(int64_t)2000 * RULES_MILE_UNITS, RULES_TERRAIN_JUNGLE,
                                   RULES_WAY_TRACKLESS};
    struct rules_travel_result *r = run(&j, NULL, 0, RULES_TRAVEL_ERR_TOO_LONG);
    done(r);
}

/* 001 Overland Travel: the party moves at its slowest member's speed; 001 Mounted Movement: a
 * rider uses its mount's speed; a pace given or a vehicle sets it instead. */
Test(travel, the_slowest_member_sets_the_pace_and_a_rider_goes_at_its_mount)
{
    struct rules_pace pace;
    const struct rules_traveller walkers[] = {{30, -1}, {20, -1}};
    struct rules_party p = {walkers, 2, -1, RULES_VEHICLE_NONE, 0, false};
    cr_assert_eq(rules_travel_pace(&p, &pace), RULES_TRAVEL_OK);
    cr_assert_eq(pace.speed_ft, 20);
    cr_assert_eq(pace.source, RULES_PACE_SLOWEST);
    cr_assert_eq(pace.eighths_per_hour, 16); /* 2 miles an hour */
    cr_assert_eq(pace.hours_per_day, 8);
    cr_assert_not(pace.mounted || pace.vehicle);

    const struct rules_traveller rider[] = {{30, 50}};
    p = (struct rules_party){rider, 1, -1, RULES_VEHICLE_NONE, 0, false};
    cr_assert_eq(rules_travel_pace(&p, &pace), RULES_TRAVEL_OK);
    cr_assert_eq(pace.speed_ft, 50);
    cr_assert_eq(pace.source, RULES_PACE_SLOWEST_MOUNTED);
    cr_assert_eq(pace.eighths_per_hour, 40); /* 5 miles an hour */
    cr_assert(pace.mounted);

    /* A walker at 30 ft is slower than a rider whose mount makes 60: the walker sets it. */
    const struct rules_traveller mixed[] = {{30, -1}, {20, 60}};
    p = (struct rules_party){mixed, 2, -1, RULES_VEHICLE_NONE, 0, false};
    cr_assert_eq(rules_travel_pace(&p, &pace), RULES_TRAVEL_OK);
    cr_assert_eq(pace.speed_ft, 30);
    cr_assert_eq(pace.source, RULES_PACE_SLOWEST);
    cr_assert(pace.mounted);

    p.pace_speed_ft = 40;
    cr_assert_eq(rules_travel_pace(&p, &pace), RULES_TRAVEL_OK);
    cr_assert_eq(pace.speed_ft, 40);
    cr_assert_eq(pace.source, RULES_PACE_GIVEN);
    cr_assert_eq(pace.eighths_per_hour, 32);
}

Test(travel, a_vehicle_sets_the_pace_and_its_hours)
{
    struct rules_pace pace;
    const struct rules_traveller walkers[] = {{5, -1}};
    struct rules_party p = {walkers, 1, -1, RULES_VEHICLE_CART, 0, false};
    cr_assert_eq(rules_travel_pace(&p, &pace), RULES_TRAVEL_OK);
    cr_assert_eq(pace.source, RULES_PACE_VEHICLE);
    cr_assert_eq(pace.eighths_per_hour, 16); /* a cart: 2 miles an hour, 16 a day */
    cr_assert_eq(pace.hours_per_day, 8);
    cr_assert(pace.vehicle);
    cr_assert_not(pace.crewed);
    p.vehicle = RULES_VEHICLE_SAILING_SHIP; /* 2 miles an hour, 48 a day: 24 hours */
    cr_assert_eq(rules_travel_pace(&p, &pace), RULES_TRAVEL_OK);
    cr_assert_eq(pace.hours_per_day, 24);
    cr_assert(pace.crewed);
    p = (struct rules_party){NULL, 0, -1, RULES_VEHICLE_CUSTOM, 20, true};
    cr_assert_eq(rules_travel_pace(&p, &pace), RULES_TRAVEL_OK);
    cr_assert_eq(pace.eighths_per_hour, 20);
    cr_assert_eq(pace.hours_per_day, 24);
    cr_assert(pace.crewed && pace.vehicle);
}

Test(travel, no_pace_or_one_below_five_feet_goes_nowhere)
{
    struct rules_pace pace;
    struct rules_party p = {NULL, 0, -1, RULES_VEHICLE_NONE, 0, false};
    cr_assert_eq(rules_travel_pace(&p, &pace), RULES_TRAVEL_ERR_NO_PACE);
    const struct rules_traveller slow[] = {{30, -1}, {4, -1}};
    p = (struct rules_party){slow, 2, -1, RULES_VEHICLE_NONE, 0, false};
    cr_assert_eq(rules_travel_pace(&p, &pace), RULES_TRAVEL_ERR_NO_PROGRESS);
    cr_assert_eq(pace.speed_ft, 4);
}

/* 001 Hustle: no damage the first hour, 1 the second, then double the hour before. */
Test(travel, hustle_damage_by_the_hour)
{
    static const int want[] = {0, 1, 2, 4, 8, 16};
    for (int h = 0; h < 6; h++) {
        cr_assert_eq(rules_hustle_damage(h, false), want[h], "hour %d", h);
        cr_assert_eq(rules_hustle_damage(h, true), 0, "crewed, hour %d", h);
    }
}

#include "rules/world/travel.h"

#include <assert.h>

/* 001 Table: Movement and Distance, One Hour, Walk: the upper speed of each column and its
 * miles an hour in eighths. Hustle doubles them; One Day is 8 hours of walking. */
static const struct {
    int max_speed;
    int eighths;
} bands[] = {
    {5, 4},   {20, 16},  {30, 24},   {40, 32},   {50, 40},   {60, 48},   {70, 56},   {80, 64},
    {90, 72}, {100, 80}, {120, 120}, {140, 160}, {160, 200}, {180, 240}, {200, 320}, {1 << 30, 400},
};

int rules_overland_eighths_per_hour(int speed_ft)
{
    int s = speed_ft - speed_ft % 5;
    if (s < 5)
        return 0;
    if (s < 10)
        return 4; /* the 5 ft column: impeded terrain */
    for (size_t i = 1; i < sizeof bands / sizeof bands[0]; i++)
        if (s <= bands[i].max_speed)
            return bands[i].eighths;
    return 400;
}

/* 001 Table: Terrain and Overland Movement, in quarters: highway, road or trail, trackless. */
static const int terrain[RULES_TERRAIN_COUNT][3] = {
    [RULES_TERRAIN_DESERT] = {4, 2, 2}, [RULES_TERRAIN_FOREST] = {4, 4, 2},
    [RULES_TERRAIN_HILLS] = {4, 3, 2},  [RULES_TERRAIN_JUNGLE] = {4, 3, 1},
    [RULES_TERRAIN_MOOR] = {4, 4, 3},   [RULES_TERRAIN_MOUNTAINS] = {3, 3, 2},
    [RULES_TERRAIN_PLAINS] = {4, 4, 3}, [RULES_TERRAIN_SWAMP] = {4, 3, 2},
    [RULES_TERRAIN_TUNDRA] = {4, 3, 3}, [RULES_TERRAIN_WATER] = {4, 4, 4},
};

int rules_terrain_quarters(enum rules_terrain t, enum rules_way w, bool with_vehicle)
{
    if (w == RULES_WAY_TRAIL && with_vehicle)
        w = RULES_WAY_TRACKLESS;
    int col = w == RULES_WAY_HIGHWAY ? 0 : (w == RULES_WAY_TRACKLESS ? 2 : 1);
    assert((unsigned)t < RULES_TERRAIN_COUNT);
    return terrain[t][col];
}

/* 001 Table: Overland Travel By Vehicle (per hour and per day, in eighths of a mile). */
void rules_vehicle_speed(enum rules_vehicle v, int *per_hour, int *per_day, int *hours)
{
    static const int table[RULES_VEHICLE_COUNT][2] = {
        [RULES_VEHICLE_CART] = {16, 128},         [RULES_VEHICLE_RAFT] = {4, 40},
        [RULES_VEHICLE_KEELBOAT] = {8, 80},       [RULES_VEHICLE_ROWBOAT] = {12, 120},
        [RULES_VEHICLE_SAILING_SHIP] = {16, 384}, [RULES_VEHICLE_WARSHIP] = {20, 480},
        [RULES_VEHICLE_LONGSHIP] = {24, 576},     [RULES_VEHICLE_GALLEY] = {32, 768},
    };
    assert((unsigned)v < RULES_VEHICLE_COUNT);
    *per_hour = table[v][0];
    *per_day = table[v][1];
    /* The table's days are 8 hours for a cart, 10 for boats poled or rowed by their
     * passengers, and 24 for ships, which "may be capable of operating non-stop for all 24
     * hours of a day" ("tripled"). */
    *hours = *per_hour > 0 ? *per_day / *per_hour : 0;
}

int rules_travel_pace(const struct rules_party *p, struct rules_pace *out)
{
    assert(p != NULL && out != NULL && (p->member_count == 0 || p->members != NULL));
    *out = (struct rules_pace){.speed_ft = -1, .hours_per_day = 8};
    for (int i = 0; i < p->member_count; i++) {
        const struct rules_traveller *m = &p->members[i];
        bool riding = m->mount_speed_ft >= 0;
        int speed = riding ? m->mount_speed_ft : m->speed_ft;
        out->mounted |= riding;
        if (out->speed_ft < 0 || speed < out->speed_ft) {
            out->speed_ft = speed;
            out->source = riding ? RULES_PACE_SLOWEST_MOUNTED : RULES_PACE_SLOWEST;
        }
    }
    if (p->pace_speed_ft >= 0) {
        out->speed_ft = p->pace_speed_ft;
        out->source = RULES_PACE_GIVEN;
    }
    if (p->vehicle == RULES_VEHICLE_CUSTOM) {
        out->eighths_per_hour = p->custom_eighths_per_hour;
        out->crewed = p->custom_crewed;
        out->hours_per_day = p->custom_crewed ? 24 : 8;
    } else if (p->vehicle != RULES_VEHICLE_NONE) {
        int per_day = 0;
        rules_vehicle_speed(p->vehicle, &out->eighths_per_hour, &per_day, &out->hours_per_day);
        out->crewed = out->hours_per_day == 24;
    } else if (out->speed_ft < 0) {
        return RULES_TRAVEL_ERR_NO_PACE;
    } else {
        out->eighths_per_hour = rules_overland_eighths_per_hour(out->speed_ft);
        return out->eighths_per_hour > 0 ? RULES_TRAVEL_OK : RULES_TRAVEL_ERR_NO_PROGRESS;
    }
    out->vehicle = true;
    out->source = RULES_PACE_VEHICLE;
    return out->eighths_per_hour > 0 ? RULES_TRAVEL_OK : RULES_TRAVEL_ERR_NO_PROGRESS;
}

int rules_hustle_damage(int hour, bool crewed)
{
    assert(hour >= 0 && hour < 24);
    if (crewed || hour == 0)
        return 0;
    return 1 << (hour - 1);
}

int rules_travel(const struct rules_journey *j, struct rules_dice *d,
                 struct rules_travel_result *out)
{
    out->day_count = 0;
    out->dice_count = 0;
    out->total_minutes_travelled = 0;
    if (j->pace_eighths_per_hour <= 0)
        return RULES_TRAVEL_ERR_NO_PROGRESS;
    int leg = 0;
    int64_t left = j->leg_count > 0 ? j->legs[0].units : 0;
    int minute_of_journey = 0;
    for (int i = 0; i < j->leg_count; i++) {
        int q = rules_terrain_quarters(j->legs[i].terrain, j->legs[i].way, j->vehicle);
        out->legs[i].eighths_per_hour = j->pace_eighths_per_hour * q / 4;
        /* Units per minute walking: eighths/h x q/4 / 60 min x 1920/8 units = eighths x q. */
        int64_t walk_min = (int64_t)j->pace_eighths_per_hour * q;
        out->legs[i].units_per_day = walk_min * 60 * (j->hours_per_day + j->hustle_hours);
        out->legs[i].start_minute = out->legs[i].end_minute = -1;
    }
    while (leg < j->leg_count && left == 0) {
        out->legs[leg].start_minute = out->legs[leg].end_minute = 0;
        leg++;
        left = leg < j->leg_count ? j->legs[leg].units : 0;
    }
    while (leg < j->leg_count) {
        if (out->day_count >= RULES_TRAVEL_MAX_DAYS)
            return RULES_TRAVEL_ERR_TOO_LONG;
        struct rules_travel_day *day = &out->days[out->day_count];
        *day = (struct rules_travel_day){.day = out->day_count + 1, .first_die = out->dice_count};
        for (int hour = 0; hour < j->hours_per_day && leg < j->leg_count; hour++) {
            bool hustling = hour < j->hustle_hours;
            /* Hour `hour` of the day is begun: its costs fall due now. */
            if (hustling) {
                day->hustle_hours_begun++;
                day->hustle_damage += rules_hustle_damage(hour, j->crewed);
            }
            if (hour >= 8 && !j->crewed) {
                day->forced_hours++;
                for (int k = 0; k < 2; k++) {
                    int v = 0;
                    if (rules_dice_draw(d, 6, &v) != RULES_DICE_OK)
                        return RULES_TRAVEL_ERR_DICE;
                    out->dice[out->dice_count++] = v;
                    day->forced_damage += v;
                }
                day->die_count += 2;
            }
            for (int minute = 0; minute < 60 && leg < j->leg_count; minute++) {
                int q = rules_terrain_quarters(j->legs[leg].terrain, j->legs[leg].way, j->vehicle);
                int64_t step = (int64_t)j->pace_eighths_per_hour * q * (hustling ? 2 : 1);
                if (out->legs[leg].start_minute < 0)
                    out->legs[leg].start_minute = minute_of_journey;
                minute_of_journey++;
                day->minutes++;
                int64_t moved = step < left ? step : left;
                day->units += moved;
                left -= moved;
                /* A leg that ends mid-minute hands the rest of the minute to the next. */
                int64_t spare = step - moved;
                while (left == 0 && leg < j->leg_count) {
                    out->legs[leg].end_minute = minute_of_journey;
                    leg++;
                    if (leg >= j->leg_count)
                        break;
                    left = j->legs[leg].units;
                    out->legs[leg].start_minute = minute_of_journey;
                    int q2 =
                        rules_terrain_quarters(j->legs[leg].terrain, j->legs[leg].way, j->vehicle);
                    /* Scale the spare time to the new leg's speed: spare/step of a minute. */
                    int64_t step2 = (int64_t)j->pace_eighths_per_hour * q2 * (hustling ? 2 : 1);
                    int64_t more = step > 0 ? spare * step2 / step : 0;
                    int64_t m2 = more < left ? more : left;
                    day->units += m2;
                    left -= m2;
                    spare = step2 > 0 ? (more - m2) * step / step2 : 0;
                }
            }
        }
        day->fatigued = day->hustle_damage > 0 || day->forced_damage > 0;
        out->total_minutes_travelled += day->minutes;
        out->day_count++;
        if (leg < j->leg_count)
            minute_of_journey += 24 * 60 - day->minutes; /* the night */
    }
    return RULES_TRAVEL_OK;
}

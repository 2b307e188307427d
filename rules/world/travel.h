/* Overland travel (001 "Overland Travel": Table: Movement and Distance, Table: Terrain and
 * Overland Movement, Table: Overland Travel By Vehicle, Hustle, Forced March, Mounted and
 * Vehicle Movement).
 *
 * Exact arithmetic: distances are counted in units of 1/1920 mile and time in minutes, so every
 * speed band (multiples of 1/2 mile an hour), terrain multiplier (quarters) and hustle (double)
 * moves a whole number of units per minute. */
#ifndef TACTICS_RULES_TRAVEL_H
#define TACTICS_RULES_TRAVEL_H

#include <stdbool.h>
#include <stdint.h>

#include "rules/dice/dice.h"

#define RULES_MILE_UNITS       1920
#define RULES_TRAVEL_MAX_LEGS  64
#define RULES_TRAVEL_MAX_DAYS  3650
#define RULES_TRAVEL_MAX_MILES 100000

enum rules_terrain {
    RULES_TERRAIN_DESERT,
    RULES_TERRAIN_FOREST,
    RULES_TERRAIN_HILLS,
    RULES_TERRAIN_JUNGLE,
    RULES_TERRAIN_MOOR,
    RULES_TERRAIN_MOUNTAINS,
    RULES_TERRAIN_PLAINS,
    RULES_TERRAIN_SWAMP,
    RULES_TERRAIN_TUNDRA,
    RULES_TERRAIN_WATER, /* for boats and ships: the vehicle table's speeds as they are */
    RULES_TERRAIN_COUNT
};

enum rules_way { RULES_WAY_HIGHWAY, RULES_WAY_ROAD, RULES_WAY_TRAIL, RULES_WAY_TRACKLESS };

enum rules_vehicle {
    RULES_VEHICLE_NONE = 0,
    RULES_VEHICLE_CART,
    RULES_VEHICLE_RAFT,
    RULES_VEHICLE_KEELBOAT,
    RULES_VEHICLE_ROWBOAT,
    RULES_VEHICLE_SAILING_SHIP,
    RULES_VEHICLE_WARSHIP,
    RULES_VEHICLE_LONGSHIP,
    RULES_VEHICLE_GALLEY,
    RULES_VEHICLE_CUSTOM,
    RULES_VEHICLE_COUNT
};

/* The walking miles per hour of a speed, in eighths of a mile (001 Table: Movement and
 * Distance; "5 ft" is the impeded-terrain column). Speeds between columns round down to a
 * multiple of 5 ft; below 5 ft there is no overland movement (returns 0). */
int rules_overland_eighths_per_hour(int speed_ft);

/* The terrain multiplier in quarters (001 Table: Terrain and Overland Movement). A trail "does
 * not benefit a party traveling with vehicles": it counts as trackless for them. */
int rules_terrain_quarters(enum rules_terrain t, enum rules_way w, bool with_vehicle);

/* A vehicle's miles per hour and per day, in eighths, and whether it runs 24 hours a day. */
void rules_vehicle_speed(enum rules_vehicle v, int *per_hour_eighths, int *per_day_eighths,
                         int *hours_per_day);

/* One member of a travelling party: its speed, and its mount's when it rides (-1: none). */
struct rules_traveller {
    int speed_ft;
    int mount_speed_ft;
};

/* What set a journey's pace. */
enum rules_pace_source {
    RULES_PACE_SLOWEST,         /* the slowest member on foot */
    RULES_PACE_SLOWEST_MOUNTED, /* the slowest member is a rider: its mount's speed */
    RULES_PACE_GIVEN,           /* a pace given instead of the members' */
    RULES_PACE_VEHICLE,         /* the vehicle's */
    RULES_PACE_SOURCE_COUNT
};

/* A party as it sets out. */
struct rules_party {
    const struct rules_traveller *members;
    int member_count;
    int pace_speed_ft;           /* a walking pace given instead of the members' (-1: none) */
    enum rules_vehicle vehicle;  /* NONE, one of the table's, or CUSTOM */
    int custom_eighths_per_hour; /* RULES_VEHICLE_CUSTOM: its miles an hour, in eighths */
    bool custom_crewed;          /* RULES_VEHICLE_CUSTOM: crewed, travelling 24 hours a day */
};

/* A party's pace: what sets it, its miles an hour, and the hours of a day's travel unless the
 * plan says otherwise. */
struct rules_pace {
    enum rules_pace_source source;
    int speed_ft;         /* the walking speed that sets it (not for a vehicle) */
    int eighths_per_hour; /* miles an hour, in eighths */
    int hours_per_day;    /* 8 walking (001 One Day); a vehicle's by its table */
    bool vehicle;         /* travelling by vehicle */
    bool crewed;          /* a crewed vehicle: 24 hours a day, no fatigue, no forced march */
    bool mounted;         /* some member rides: the mounts share damage and fatigue */
};

/* The party's pace (001 Overland Travel). A vehicle's, when it travels by one; otherwise the
 * pace given, or that of its slowest member: "the party moves at the speed of its slowest
 * member", a rider at its mount's speed (001 Mounted Movement: "they use the mounts speed").
 * Returns RULES_TRAVEL_OK, RULES_TRAVEL_ERR_NO_PACE when nothing sets it (no member, pace or
 * vehicle), or RULES_TRAVEL_ERR_NO_PROGRESS for a walking speed below 5 ft (out filled). */
int rules_travel_pace(const struct rules_party *p, struct rules_pace *out);

/* The damage of the hour-th hour (0-based) of a day's hustle: none the first, 1 the second,
 * then double the hour before (001 Hustle); none in a crewed vehicle. */
int rules_hustle_damage(int hour, bool crewed);

struct rules_leg {
    int64_t units; /* the leg's length in 1/1920 mile */
    enum rules_terrain terrain;
    enum rules_way way;
};

struct rules_journey {
    struct rules_leg legs[RULES_TRAVEL_MAX_LEGS];
    int leg_count;
    int pace_eighths_per_hour; /* walking speed of the party, from its slowest member or mount */
    bool vehicle;              /* travelling by vehicle (terrain by the vehicle rules) */
    bool crewed;               /* a crewed vehicle: no fatigue, no forced march */
    int hours_per_day;         /* hours travelled each day (1..24) */
    int hustle_hours;          /* of those, hours hustled (at double speed) */
    bool mounted;              /* riders on mounts: the mounts share damage and fatigue */
};

struct rules_travel_day {
    int day;                  /* 1-based */
    int minutes;              /* travelled this day */
    int64_t units;            /* distance covered this day */
    int hustle_hours_begun;   /* hours of hustle begun this day */
    int hustle_damage;        /* 1, then doubling, from the second hour of hustle */
    int forced_hours;         /* hours begun past the 8th */
    int forced_damage;        /* 2d6 per forced hour, rolled */
    bool fatigued;            /* any hustle or forced-march damage this day */
    int first_die, die_count; /* the forced-march d6s in the roll log */
};

struct rules_travel_leg_result {
    int eighths_per_hour;         /* walking miles an hour on this leg */
    int64_t units_per_day;        /* by the plan, a full day on this leg */
    int start_minute, end_minute; /* from the start of the journey, counting travel days of 24 h */
};

struct rules_travel_result {
    struct rules_travel_leg_result legs[RULES_TRAVEL_MAX_LEGS];
    struct rules_travel_day *days; /* caller-provided, RULES_TRAVEL_MAX_DAYS entries */
    int day_count;
    int total_minutes_travelled;
    int dice[RULES_TRAVEL_MAX_DAYS * 16]; /* forced-march d6 results in order */
    int dice_count;
};

enum rules_travel_status {
    RULES_TRAVEL_OK = 0,
    RULES_TRAVEL_ERR_TOO_LONG = -1,    /* more than RULES_TRAVEL_MAX_DAYS days */
    RULES_TRAVEL_ERR_DICE = -2,        /* supplied dice ran out or did not fit */
    RULES_TRAVEL_ERR_NO_PROGRESS = -3, /* a pace too slow to cover ground (below 5 ft) */
    RULES_TRAVEL_ERR_NO_PACE = -4,     /* nothing sets the pace: no member, pace or vehicle */
};

/* Travels the journey hour by hour: each day hustles its first hustle_hours (double speed),
 * walks the rest of hours_per_day, and stops for the night; the journey ends the minute the
 * last leg is covered, mid-hour or mid-day. Hustle: no damage the first hour of a day, 1 the
 * second, then double the previous hour's (001 Hustle). Forced march: 2d6 for each hour begun
 * past the 8th (001 Forced March), rolled with d. Crewed vehicles travel without fatigue or
 * forced march (001 Overland Travel). */
int rules_travel(const struct rules_journey *j, struct rules_dice *d,
                 struct rules_travel_result *out);

#endif

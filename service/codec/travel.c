/* POST /v1/travel's shape and answer (travel.h). The rules decide the pace and the journey
 * (rules/world/travel.h); this reads the request's legs, party and plan, and writes the
 * journey hour by hour as the answer. */
#include "service/codec/travel.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "service/json/fields.h"

#define MAX_MEMBERS 64

const char *const svc_travel_members[] = {"rules", "legs",    "party", "plan",
                                          "seed",  "results", NULL};

static const char *const terrains[] = {"desert", "forest", "hills",  "jungle", "moor", "mountains",
                                       "plains", "swamp",  "tundra", "water",  NULL};
static_assert(sizeof terrains / sizeof terrains[0] == RULES_TERRAIN_COUNT + 1,
              "one name per terrain");
static const char *const ways[] = {"highway", "road", "trail", "trackless", NULL};
static_assert(sizeof ways / sizeof ways[0] == RULES_WAY_TRACKLESS + 2, "one name per way");
static const char *const vehicles[] = {"none",         "cart",    "raft",     "keelboat", "rowboat",
                                       "sailing_ship", "warship", "longship", "galley",   NULL};
static_assert(sizeof vehicles / sizeof vehicles[0] == RULES_VEHICLE_CUSTOM + 1,
              "one name per vehicle of the table");
static const char *const pace_sources[] = {
    [RULES_PACE_SLOWEST] = "slowest member",
    [RULES_PACE_SLOWEST_MOUNTED] = "slowest member (mounted)",
    [RULES_PACE_GIVEN] = "pace_speed_ft",
    [RULES_PACE_VEHICLE] = "vehicle",
};
static_assert(sizeof pace_sources / sizeof pace_sources[0] == RULES_PACE_SOURCE_COUNT,
              "one name per pace source");

/* A positive number of miles (or miles an hour) no larger than max, in 1/scale units. */
static bool miles_field(json_t *obj, const char *base, const char *key, bool required, double max,
                        long long scale, long long *out, struct svc_errors *e)
{
    char ptr[CODEC_PTR_MAX];
    codec_pointer(ptr, base, key);
    json_t *v = json_object_get(obj, key);
    if (v == NULL) {
        if (required)
            svc_errors_add(e, ptr, "is required");
        return false;
    }
    if (!json_is_number(v) || json_number_value(v) <= 0 || json_number_value(v) > max) {
        svc_errors_add(e, ptr, "must be a number above 0 and at most %g", max);
        return false;
    }
    *out = llround(json_number_value(v) * (double)scale);
    if (*out <= 0) {
        svc_errors_add(e, ptr, "is smaller than 1/%lld", scale);
        return false;
    }
    return true;
}

static double miles(int64_t units)
{
    return (double)units / RULES_MILE_UNITS;
}

/* /legs: at least one, and no longer in all than RULES_TRAVEL_MAX_MILES. */
static void decode_legs(json_t *body, struct svc_travel *t, struct svc_errors *e)
{
    json_t *legs = NULL, *leg;
    if (!codec_get_array(body, "", "legs", true, RULES_TRAVEL_MAX_LEGS, &legs, e))
        return;
    if (json_array_size(legs) == 0)
        svc_errors_add(e, "/legs", "must hold at least one leg");
    size_t i;
    json_array_foreach(legs, i, leg)
    {
        static const char *const keys[] = {"miles", "terrain", "way", NULL};
        char ptr[CODEC_PTR_MAX];
        snprintf(ptr, sizeof ptr, "/legs/%zu", i);
        long long units = 0;
        if (!codec_expect_object(leg, ptr, e))
            continue;
        codec_reject_unknown(leg, ptr, keys, e);
        miles_field(leg, ptr, "miles", true, RULES_TRAVEL_MAX_MILES, RULES_MILE_UNITS, &units, e);
        int terrain = codec_get_enum(leg, ptr, "terrain", terrains, true, 0, e);
        int way = codec_get_enum(leg, ptr, "way", ways, true, 0, e);
        t->journey.legs[i] =
            (struct rules_leg){units, (enum rules_terrain)(terrain < 0 ? 0 : terrain),
                               (enum rules_way)(way < 0 ? 0 : way)};
        t->total_units += units;
    }
    t->journey.leg_count = (int)json_array_size(legs);
    if (t->total_units > (int64_t)RULES_TRAVEL_MAX_MILES * RULES_MILE_UNITS)
        svc_errors_add(e, "/legs", "the journey is longer than %d miles", RULES_TRAVEL_MAX_MILES);
}

/* /party/members into members (*count of them). */
static void decode_members(json_t *party, struct rules_traveller *members, int *count,
                           struct svc_errors *e)
{
    json_t *list = NULL, *m;
    *count = 0;
    if (!codec_get_array(party, "/party", "members", false, MAX_MEMBERS, &list, e))
        return;
    size_t i;
    json_array_foreach(list, i, m)
    {
        static const char *const keys[] = {"speed_ft", "mount_speed_ft", NULL};
        char ptr[CODEC_PTR_MAX];
        snprintf(ptr, sizeof ptr, "/party/members/%zu", i);
        if (!codec_expect_object(m, ptr, e))
            continue;
        codec_reject_unknown(m, ptr, keys, e);
        long long speed = 0, mount = -1;
        codec_get_int(m, ptr, "speed_ft", true, 0, 100000, &speed, e);
        codec_get_int(m, ptr, "mount_speed_ft", false, 0, 100000, &mount, e);
        assert(*count < MAX_MEMBERS);
        members[(*count)++] = (struct rules_traveller){(int)speed, (int)mount};
    }
}

/* /party: who travels and how, and from it the pace (rules_travel_pace). */
static void decode_party(json_t *body, struct svc_travel *t, struct svc_errors *e)
{
    static const char *const keys[] = {"members",     "pace_speed_ft", "vehicle",
                                       "vehicle_mph", "crewed",        NULL};
    json_t *party = json_object_get(body, "party");
    if (party == NULL) {
        svc_errors_add(e, "/party", "is required");
        return;
    }
    if (!codec_expect_object(party, "/party", e))
        return;
    codec_reject_unknown(party, "/party", keys, e);
    struct rules_traveller members[MAX_MEMBERS];
    struct rules_party p = {.members = members, .pace_speed_ft = -1};
    decode_members(party, members, &p.member_count, e);
    long long pace = -1, mph8 = 0;
    codec_get_int(party, "/party", "pace_speed_ft", false, 0, 100000, &pace, e);
    p.pace_speed_ft = (int)pace;
    bool custom = miles_field(party, "/party", "vehicle_mph", false, 1000, 8, &mph8, e);
    /* A vehicle the table does not list is an error in e; the pace is then the members'. */
    int vehicle =
        codec_get_enum(party, "/party", "vehicle", vehicles, false, RULES_VEHICLE_NONE, e);
    p.vehicle = vehicle > RULES_VEHICLE_NONE ? (enum rules_vehicle)vehicle : RULES_VEHICLE_NONE;
    bool has_crewed = codec_get_bool(party, "/party", "crewed", false, &p.custom_crewed, e);
    if (custom && p.vehicle > RULES_VEHICLE_NONE)
        svc_errors_add(e, "/party/vehicle_mph", "give vehicle or vehicle_mph, not both");
    if (has_crewed && !custom)
        svc_errors_add(e, "/party/crewed", "applies to a custom vehicle (vehicle_mph)");
    if (custom) {
        p.vehicle = RULES_VEHICLE_CUSTOM;
        p.custom_eighths_per_hour = (int)mph8;
    }
    int rc = rules_travel_pace(&p, &t->pace);
    if (rc == RULES_TRAVEL_ERR_NO_PACE)
        svc_errors_add(e, "/party/members", "give at least one member, a pace or a vehicle");
    else if (rc == RULES_TRAVEL_ERR_NO_PROGRESS)
        svc_errors_add(
            e, t->pace.source == RULES_PACE_GIVEN ? "/party/pace_speed_ft" : "/party/members",
            "a speed below 5 ft makes no overland progress (001 Table: Movement and "
            "Distance starts at 5 ft)");
}

/* /plan: hours a day and hustle, checked against the pace. */
static void decode_plan(json_t *body, struct svc_travel *t, struct svc_errors *e)
{
    long long hours = t->pace.vehicle ? t->pace.hours_per_day : 8, hustle = 0;
    json_t *plan = json_object_get(body, "plan");
    if (plan != NULL && codec_expect_object(plan, "/plan", e)) {
        static const char *const keys[] = {"hours_per_day", "hustle_hours", NULL};
        codec_reject_unknown(plan, "/plan", keys, e);
        codec_get_int(plan, "/plan", "hours_per_day", false, 1, 24, &hours, e);
        codec_get_int(plan, "/plan", "hustle_hours", false, 0, 24, &hustle, e);
        if (hustle > hours)
            svc_errors_add(e, "/plan/hustle_hours", "cannot exceed hours_per_day (%lld)", hours);
        if (hustle > 0 && t->pace.vehicle)
            svc_errors_add(e, "/plan/hustle_hours",
                           "a vehicle does not hustle (001 Hustle is a character's)");
    }
    t->journey.hours_per_day = (int)hours;
    t->journey.hustle_hours = (int)hustle;
}

void svc_decode_travel(json_t *body, struct svc_travel *t, struct svc_errors *e)
{
    assert(t != NULL && e != NULL);
    svc_decode_rules(body, &t->rules, e);
    decode_legs(body, t, e);
    decode_party(body, t, e);
    decode_plan(body, t, e);
    t->journey.pace_eighths_per_hour = t->pace.eighths_per_hour;
    t->journey.vehicle = t->pace.vehicle;
    t->journey.crewed = t->pace.crewed;
    t->journey.mounted = t->pace.mounted;
    t->result.days = t->days;
    svc_decode_dice_source(body, &t->src, e);
}

static json_t *encode_pace(const struct svc_travel *t)
{
    const struct rules_journey *j = &t->journey;
    assert(t->pace.source < RULES_PACE_SOURCE_COUNT);
    json_t *pace =
        json_pack("{s:s, s:f, s:f, s:i, s:b, s:b}", "source", pace_sources[t->pace.source],
                  "miles_per_hour", j->pace_eighths_per_hour / 8.0, "hustle_miles_per_hour",
                  j->vehicle ? j->pace_eighths_per_hour / 8.0 : j->pace_eighths_per_hour / 4.0,
                  "hours_per_day", j->hours_per_day, "vehicle", j->vehicle, "crewed", j->crewed);
    if (!j->vehicle)
        json_object_set_new(pace, "speed_ft", json_integer(t->pace.speed_ft));
    return pace;
}

static json_t *encode_legs(const struct svc_travel *t)
{
    const struct rules_journey *j = &t->journey;
    json_t *list = json_array();
    for (int i = 0; i < j->leg_count; i++) {
        const struct rules_travel_leg_result *r = &t->result.legs[i];
        int q = rules_terrain_quarters(j->legs[i].terrain, j->legs[i].way, j->vehicle);
        json_array_append_new(
            list,
            json_pack("{s:i, s:f, s:s, s:s, s:f, s:f, s:f, s:f, s:f}", "index", i, "miles",
                      miles(j->legs[i].units), "terrain", terrains[j->legs[i].terrain], "way",
                      ways[j->legs[i].way], "terrain_multiplier", q / 4.0, "miles_per_hour",
                      r->eighths_per_hour / 8.0, "miles_per_day", miles(r->units_per_day),
                      "start_hour", r->start_minute / 60.0, "end_hour", r->end_minute / 60.0));
    }
    return list;
}

static json_t *encode_day(const struct svc_travel *t, const struct rules_travel_day *day)
{
    json_t *dice = json_array();
    for (int k = 0; k < day->die_count; k++)
        json_array_append_new(dice, json_integer(t->result.dice[day->first_die + k]));
    json_t *by_hour = json_array();
    for (int h = 0; h < day->hustle_hours_begun; h++)
        json_array_append_new(by_hour, json_integer(rules_hustle_damage(h, t->journey.crewed)));
    return json_pack("{s:i, s:f, s:f, s:i, s:i, s:o, s:i, s:o, s:i, s:b}", "day", day->day, "hours",
                     day->minutes / 60.0, "miles", miles(day->units), "hustle_hours",
                     day->hustle_hours_begun, "hustle_damage", day->hustle_damage,
                     "hustle_damage_by_hour", by_hour, "forced_march_hours", day->forced_hours,
                     "forced_march_dice", dice, "forced_march_damage", day->forced_damage,
                     "fatigued", day->fatigued);
}

json_t *svc_encode_travel(const struct svc_travel *t)
{
    const struct rules_travel_result *r = &t->result;
    json_t *doc = json_pack("{s:o, s:o, s:o}", "rules", svc_encode_rules(&t->rules), "pace",
                            encode_pace(t), "legs", encode_legs(t));
    json_t *days = json_array();
    int hustle = 0, forced = 0;
    bool fatigued = false;
    for (int i = 0; i < r->day_count; i++) {
        json_array_append_new(days, encode_day(t, &r->days[i]));
        hustle += r->days[i].hustle_damage;
        forced += r->days[i].forced_damage;
        fatigued |= r->days[i].fatigued;
    }
    json_object_set_new(doc, "days", days);
    int last = r->day_count > 0 ? r->days[r->day_count - 1].minutes : 0;
    double elapsed = r->day_count > 0 ? (r->day_count - 1) * 24.0 + last / 60.0 : 0;
    json_object_set_new(
        doc, "total",
        json_pack("{s:f, s:i, s:f, s:f, s:i, s:i, s:b, s:b}", "miles", miles(t->total_units),
                  "travel_days", r->day_count, "hours_travelled", r->total_minutes_travelled / 60.0,
                  "elapsed_hours", elapsed, "hustle_damage", hustle, "forced_march_damage", forced,
                  "fatigued", fatigued, "mounts_fatigued", t->journey.mounted && fatigued));
    json_object_set_new(doc, "rule",
                        json_string("001 Overland Travel: Table: Movement and Distance, Table: "
                                    "Terrain and Overland Movement, Hustle, Forced March"));
    return doc;
}

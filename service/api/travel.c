/* POST /v1/travel: how long a journey takes and what it costs (001 Overland Travel). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/world/travel.h"
#include "service/api/api.h"
#include "service/codec/dice.h"
#include "service/codec/rule_options.h"
#include "service/explain/explain.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

#define MAX_MEMBERS 64

static const char *const terrains[] = {"desert", "forest", "hills",  "jungle", "moor", "mountains",
                                       "plains", "swamp",  "tundra", "water",  NULL};
static const char *const ways[] = {"highway", "road", "trail", "trackless", NULL};
static const char *const vehicles[] = {"none",         "cart",    "raft",     "keelboat", "rowboat",
                                       "sailing_ship", "warship", "longship", "galley",   NULL};

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

void svc_handle_travel(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"rules", "legs", "party", "plan", "seed", "results", NULL};
    json_t *body, *doc = NULL;
    struct svc_errors e;
    struct svc_rules rules;
    struct rules_journey *j = calloc(1, sizeof *j);
    struct rules_travel_result *r = calloc(1, sizeof *r);
    struct rules_travel_day *days = calloc(RULES_TRAVEL_MAX_DAYS, sizeof *days);
    struct svc_dice_source *src = malloc(sizeof *src);
    if (j == NULL || r == NULL || days == NULL || src == NULL) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        free(j), free(r), free(days), free(src);
        return;
    }
    r->days = days;
    if (!svc_decode_begin(req, res, known, &body, &e))
        goto out;
    svc_decode_rules(body, &rules, &e);

    /* Legs. */
    json_t *legs = NULL;
    int64_t total_units = 0;
    if (codec_get_array(body, "", "legs", true, RULES_TRAVEL_MAX_LEGS, &legs, &e)) {
        if (json_array_size(legs) == 0)
            svc_errors_add(&e, "/legs", "must hold at least one leg");
        size_t i;
        json_t *leg;
        json_array_foreach(legs, i, leg)
        {
            static const char *const lkeys[] = {"miles", "terrain", "way", NULL};
            char ptr[CODEC_PTR_MAX];
            snprintf(ptr, sizeof ptr, "/legs/%zu", i);
            long long units = 0;
            if (!codec_expect_object(leg, ptr, &e))
                continue;
            codec_reject_unknown(leg, ptr, lkeys, &e);
            miles_field(leg, ptr, "miles", true, RULES_TRAVEL_MAX_MILES, RULES_MILE_UNITS, &units,
                        &e);
            int t = codec_get_enum(leg, ptr, "terrain", terrains, true, 0, &e);
            int w = codec_get_enum(leg, ptr, "way", ways, true, 0, &e);
            j->legs[i] = (struct rules_leg){units, (enum rules_terrain)(t < 0 ? 0 : t),
                                            (enum rules_way)(w < 0 ? 0 : w)};
            total_units += units;
        }
        j->leg_count = (int)json_array_size(legs);
        if (total_units > (int64_t)RULES_TRAVEL_MAX_MILES * RULES_MILE_UNITS)
            svc_errors_add(&e, "/legs", "the journey is longer than %d miles",
                           RULES_TRAVEL_MAX_MILES);
    }

    /* The party: the slowest member (or its mount) sets the pace, unless a pace or a vehicle
     * is given. */
    json_t *party = json_object_get(body, "party");
    const char *pace_source = NULL;
    long long pace_speed = -1;
    int vehicle = RULES_VEHICLE_NONE, table_hours = 8;
    if (party == NULL) {
        svc_errors_add(&e, "/party", "is required");
    } else if (codec_expect_object(party, "/party", &e)) {
        static const char *const pkeys[] = {"members",     "pace_speed_ft", "vehicle",
                                            "vehicle_mph", "crewed",        NULL};
        codec_reject_unknown(party, "/party", pkeys, &e);
        json_t *members = NULL;
        if (codec_get_array(party, "/party", "members", false, MAX_MEMBERS, &members, &e)) {
            size_t i;
            json_t *m;
            json_array_foreach(members, i, m)
            {
                static const char *const mkeys[] = {"speed_ft", "mount_speed_ft", NULL};
                char ptr[CODEC_PTR_MAX];
                snprintf(ptr, sizeof ptr, "/party/members/%zu", i);
                if (!codec_expect_object(m, ptr, &e))
                    continue;
                codec_reject_unknown(m, ptr, mkeys, &e);
                long long speed = 0, mount = 0;
                codec_get_int(m, ptr, "speed_ft", true, 0, 100000, &speed, &e);
                /* 001 Mounted Movement: "they use the mounts speed". */
                if (codec_get_int(m, ptr, "mount_speed_ft", false, 0, 100000, &mount, &e)) {
                    speed = mount;
                    j->mounted = true;
                }
                if (pace_speed < 0 || speed < pace_speed) {
                    pace_speed = speed;
                    pace_source = j->mounted && mount == speed ? "slowest member (mounted)"
                                                               : "slowest member";
                }
            }
        }
        long long override = 0;
        if (codec_get_int(party, "/party", "pace_speed_ft", false, 0, 100000, &override, &e)) {
            pace_speed = override;
            pace_source = "pace_speed_ft";
        }
        long long mph8 = 0;
        bool custom = miles_field(party, "/party", "vehicle_mph", false, 1000, 8, &mph8, &e);
        vehicle =
            codec_get_enum(party, "/party", "vehicle", vehicles, false, RULES_VEHICLE_NONE, &e);
        bool crewed = false;
        bool has_crewed = codec_get_bool(party, "/party", "crewed", false, &crewed, &e);
        if (custom && vehicle > RULES_VEHICLE_NONE)
            svc_errors_add(&e, "/party/vehicle_mph", "give vehicle or vehicle_mph, not both");
        if (has_crewed && !custom)
            svc_errors_add(&e, "/party/crewed", "applies to a custom vehicle (vehicle_mph)");
        if (custom) {
            j->vehicle = true;
            j->crewed = crewed;
            j->pace_eighths_per_hour = (int)mph8;
            table_hours = crewed ? 24 : 8;
            pace_source = "vehicle";
        } else if (vehicle > RULES_VEHICLE_NONE) {
            int per_day = 0;
            rules_vehicle_speed((enum rules_vehicle)vehicle, &j->pace_eighths_per_hour, &per_day,
                                &table_hours);
            j->vehicle = true;
            j->crewed = table_hours == 24;
            pace_source = "vehicle";
        } else if (pace_speed < 0) {
            svc_errors_add(&e, "/party/members", "give at least one member, a pace or a vehicle");
        } else {
            j->pace_eighths_per_hour = rules_overland_eighths_per_hour((int)pace_speed);
            if (j->pace_eighths_per_hour == 0)
                svc_errors_add(&e,
                               pace_source && strcmp(pace_source, "pace_speed_ft") == 0
                                   ? "/party/pace_speed_ft"
                                   : "/party/members",
                               "a speed below 5 ft makes no overland progress (001 Table: "
                               "Movement and Distance starts at 5 ft)");
        }
    }

    /* The plan. */
    long long hours = j->vehicle ? table_hours : 8, hustle = 0;
    json_t *plan = json_object_get(body, "plan");
    if (plan != NULL && codec_expect_object(plan, "/plan", &e)) {
        static const char *const plkeys[] = {"hours_per_day", "hustle_hours", NULL};
        codec_reject_unknown(plan, "/plan", plkeys, &e);
        codec_get_int(plan, "/plan", "hours_per_day", false, 1, 24, &hours, &e);
        codec_get_int(plan, "/plan", "hustle_hours", false, 0, 24, &hustle, &e);
        if (hustle > hours)
            svc_errors_add(&e, "/plan/hustle_hours", "cannot exceed hours_per_day (%lld)", hours);
        if (hustle > 0 && j->vehicle)
            svc_errors_add(&e, "/plan/hustle_hours",
                           "a vehicle does not hustle (001 Hustle is "
                           "a character's)");
    }
    j->hours_per_day = (int)hours;
    j->hustle_hours = (int)hustle;
    svc_decode_dice_source(body, src, &e);
    if (svc_errors_any(&e))
        goto fail;

    struct rules_dice d;
    svc_dice_source_open(src, &d);
    int rc = rules_travel(j, &d, r);
    if (rc == RULES_TRAVEL_ERR_TOO_LONG) {
        svc_errors_add(&e, "/legs", "the journey takes more than %d days of travel",
                       RULES_TRAVEL_MAX_DAYS);
        goto fail;
    }
    if (rc == RULES_TRAVEL_ERR_DICE || !rules_dice_all_used(&d)) {
        svc_errors_add(&e, "/results",
                       "supply exactly 2 d6 for each forced-march hour (this "
                       "journey needs %zu)",
                       (size_t)r->dice_count + (rc == RULES_TRAVEL_ERR_DICE ? 2 : 0));
        goto fail;
    }

    doc = json_pack("{s:o}", "rules", svc_encode_rules(&rules));
    json_t *pace =
        json_pack("{s:s, s:f, s:f, s:i, s:b, s:b}", "source", pace_source, "miles_per_hour",
                  j->pace_eighths_per_hour / 8.0, "hustle_miles_per_hour",
                  j->vehicle ? j->pace_eighths_per_hour / 8.0 : j->pace_eighths_per_hour / 4.0,
                  "hours_per_day", j->hours_per_day, "vehicle", j->vehicle, "crewed", j->crewed);
    if (!j->vehicle)
        json_object_set_new(pace, "speed_ft", json_integer(pace_speed));
    json_object_set_new(doc, "pace", pace);
    json_t *leg_list = json_array();
    for (int i = 0; i < j->leg_count; i++) {
        int q = rules_terrain_quarters(j->legs[i].terrain, j->legs[i].way, j->vehicle);
        json_array_append_new(
            leg_list,
            json_pack("{s:i, s:f, s:s, s:s, s:f, s:f, s:f, s:f, s:f}", "index", i, "miles",
                      miles(j->legs[i].units), "terrain", terrains[j->legs[i].terrain], "way",
                      ways[j->legs[i].way], "terrain_multiplier", q / 4.0, "miles_per_hour",
                      r->legs[i].eighths_per_hour / 8.0, "miles_per_day",
                      miles(r->legs[i].units_per_day), "start_hour", r->legs[i].start_minute / 60.0,
                      "end_hour", r->legs[i].end_minute / 60.0));
    }
    json_object_set_new(doc, "legs", leg_list);
    json_t *day_list = json_array();
    int hustle_total = 0, forced_total = 0;
    bool fatigued = false;
    for (int i = 0; i < r->day_count; i++) {
        const struct rules_travel_day *dd = &days[i];
        json_t *dice = json_array();
        for (int k = 0; k < dd->die_count; k++)
            json_array_append_new(dice, json_integer(r->dice[dd->first_die + k]));
        /* 001 Hustle, hour by hour: nothing the first hour, 1 the second, then doubling. */
        json_t *by_hour = json_array();
        for (int h = 0, dmg = 0; h < dd->hustle_hours_begun; h++) {
            dmg = j->crewed ? 0 : (h == 0 ? 0 : (h == 1 ? 1 : dmg * 2));
            json_array_append_new(by_hour, json_integer(dmg));
        }
        json_array_append_new(day_list,
                              json_pack("{s:i, s:f, s:f, s:i, s:i, s:o, s:i, s:o, s:i, s:b}", "day",
                                        dd->day, "hours", dd->minutes / 60.0, "miles",
                                        miles(dd->units), "hustle_hours", dd->hustle_hours_begun,
                                        "hustle_damage", dd->hustle_damage, "hustle_damage_by_hour",
                                        by_hour, "forced_march_hours", dd->forced_hours,
                                        "forced_march_dice", dice, "forced_march_damage",
                                        dd->forced_damage, "fatigued", dd->fatigued));
        hustle_total += dd->hustle_damage;
        forced_total += dd->forced_damage;
        fatigued |= dd->fatigued;
    }
    json_object_set_new(doc, "days", day_list);
    int last = r->day_count > 0 ? days[r->day_count - 1].minutes : 0;
    double elapsed = r->day_count > 0 ? (r->day_count - 1) * 24.0 + last / 60.0 : 0;
    json_object_set_new(
        doc, "total",
        json_pack("{s:f, s:i, s:f, s:f, s:i, s:i, s:b, s:b}", "miles", miles(total_units),
                  "travel_days", r->day_count, "hours_travelled", r->total_minutes_travelled / 60.0,
                  "elapsed_hours", elapsed, "hustle_damage", hustle_total, "forced_march_damage",
                  forced_total, "fatigued", fatigued, "mounts_fatigued", j->mounted && fatigued));
    json_object_set_new(doc, "rule",
                        json_string("001 Overland Travel: Table: Movement and Distance, Table: "
                                    "Terrain and Overland Movement, Hustle, Forced March"));
    svc_dice_source_describe(src, doc);
    svc_explain_travel(doc);
    svc_respond_json(res, 200, doc);
    doc = NULL;
    goto out;
fail:
    svc_errors_respond(&e, res);
out:
    json_decref(doc);
    svc_errors_free(&e);
    free(j);
    free(r);
    free(days);
    free(src);
    json_decref(body);
}

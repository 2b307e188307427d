/* POST /v1/travel against the real server. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

#define JSON_CT "Content-Type: application/json\r\n"

SERVER_TEST_SUITE(travel_api);

static json_t *travel(const char *body, int status)
{
    return http_post_json(&srv, "/v1/travel", body, status);
}

static json_t *first_leg(json_t *doc)
{
    return json_array_get(json_object_get(doc, "legs"), 0);
}

/* Member key of the answer's first day, an integer. */
static long long first_day(json_t *doc, const char *key)
{
    return tb_num(json_array_get(json_object_get(doc, "days"), 0), key);
}

static double real(json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

/* POSTs a trip (200): asserts its first leg's miles a day and the days travelled, and returns
 * the answer's total (its doc in *doc, decref it). */
static json_t *trip(const char *body, double miles_per_day, long long days, json_t **doc)
{
    *doc = travel(body, 200);
    cr_assert_eq(real(first_leg(*doc), "miles_per_day"), miles_per_day);
    json_t *total = json_object_get(*doc, "total");
    cr_assert_eq(tb_num(total, "travel_days"), days);
    return total;
}

/* 001: moving 5 ft a round "all day long will get you a scant four miles, and ... in trackless
 * mountains ... a paltry two miles." */
Test(travel_api, speed_five_climbs_four_miles_a_day_or_two_in_trackless_mountains)
{
    json_t *doc;
    json_t *total = trip("{\"legs\":[{\"miles\":4,\"terrain\":\"plains\",\"way\":\"road\"}],"
                         "\"party\":{\"members\":[{\"speed_ft\":5}]}}",
                         4.0, 1, &doc);
    cr_assert_eq(real(total, "hours_travelled"), 8.0);
    json_decref(doc);
    doc = travel("{\"legs\":[{\"miles\":2,\"terrain\":\"mountains\",\"way\":\"trackless\"}],"
                 "\"party\":{\"members\":[{\"speed_ft\":5}]}}",
                 200);
    json_t *leg = first_leg(doc);
    cr_assert_eq(real(leg, "miles_per_day"), 2.0);
    cr_assert_eq(real(leg, "terrain_multiplier"), 0.5);
    json_decref(doc);
}

Test(travel_api, the_slowest_member_or_its_mount_sets_the_pace)
{
    json_t *doc = travel("{\"legs\":[{\"miles\":12,\"terrain\":\"plains\",\"way\":\"highway\"}],"
                         "\"party\":{\"members\":[{\"speed_ft\":30},{\"speed_ft\":20}]}}",
                         200);
    json_t *pace = json_object_get(doc, "pace");
    cr_assert_eq(json_integer_value(json_object_get(pace, "speed_ft")), 20);
    cr_assert_eq(real(pace, "miles_per_hour"), 2.0);
    cr_assert_eq(real(json_object_get(doc, "total"), "hours_travelled"), 6.0);
    json_decref(doc);
    doc = travel("{\"legs\":[{\"miles\":40,\"terrain\":\"plains\",\"way\":\"highway\"}],"
                 "\"party\":{\"members\":[{\"speed_ft\":30,\"mount_speed_ft\":50}]}}",
                 200);
    cr_assert_eq(real(json_object_get(doc, "pace"), "miles_per_hour"), 5.0);
    json_decref(doc);
}

/* Hustle: 0, 1, 2, 4 over four hours; the riders' mounts are fatigued with them. */
Test(travel_api, hustling_hurts_from_the_second_hour_and_fatigues_mounts_too)
{
    json_t *doc = travel("{\"legs\":[{\"miles\":36,\"terrain\":\"plains\",\"way\":\"road\"}],"
                         "\"party\":{\"members\":[{\"speed_ft\":30}]},"
                         "\"plan\":{\"hours_per_day\":8,\"hustle_hours\":4}}",
                         200);
    cr_assert_eq(first_day(doc, "hustle_damage"), 7);
    json_t *day = json_array_get(json_object_get(doc, "days"), 0);
    json_t *by_hour = json_object_get(day, "hustle_damage_by_hour");
    cr_assert_eq(json_array_size(by_hour), 4);
    for (size_t h = 0; h < 4; h++) /* 0, 1, 2, 4 */
        cr_assert_eq(json_integer_value(json_array_get(by_hour, h)), h == 0 ? 0 : 1 << (h - 1));
    cr_assert(json_is_true(json_object_get(day, "fatigued")));
    cr_assert(json_is_false(json_object_get(json_object_get(doc, "total"), "mounts_fatigued")));
    json_decref(doc);
    doc = travel("{\"legs\":[{\"miles\":60,\"terrain\":\"plains\",\"way\":\"road\"}],"
                 "\"party\":{\"members\":[{\"speed_ft\":30,\"mount_speed_ft\":40}]},"
                 "\"plan\":{\"hours_per_day\":8,\"hustle_hours\":3}}",
                 200);
    cr_assert(json_is_true(json_object_get(json_object_get(doc, "total"), "mounts_fatigued")));
    json_decref(doc);
}

/* Forced march: 2d6 per hour past the 8th, rolled with the request's dice. */
Test(travel_api, forced_march_dice_are_reported_and_may_be_supplied)
{
    /* Two hours past the 8th want four dice: three are refused. */
    json_t *doc = travel("{\"legs\":[{\"miles\":30,\"terrain\":\"plains\",\"way\":\"road\"}],"
                         "\"party\":{\"members\":[{\"speed_ft\":30}]},"
                         "\"plan\":{\"hours_per_day\":10},\"results\":[1,2,3]}",
                         422);
    json_decref(doc);
    doc = travel("{\"legs\":[{\"miles\":30,\"terrain\":\"plains\",\"way\":\"road\"}],"
                 "\"party\":{\"members\":[{\"speed_ft\":30}]},"
                 "\"plan\":{\"hours_per_day\":10},\"results\":[1,2,3,4]}",
                 200);
    cr_assert_eq(first_day(doc, "forced_march_hours"), 2);
    cr_assert_eq(first_day(doc, "forced_march_damage"), 10);
    json_t *day = json_array_get(json_object_get(doc, "days"), 0);
    cr_assert_eq(json_array_size(json_object_get(day, "forced_march_dice")), 4);
    json_decref(doc);
}

/* A crewed sailing ship sails 24 hours: 48 miles a day, no fatigue. */
Test(travel_api, ships_sail_all_day)
{
    json_t *doc;
    json_t *total = trip("{\"legs\":[{\"miles\":96,\"terrain\":\"water\",\"way\":\"trackless\"}],"
                         "\"party\":{\"vehicle\":\"sailing_ship\"}}",
                         48.0, 2, &doc);
    cr_assert(json_is_false(json_object_get(total, "fatigued")));
    cr_assert(json_is_true(json_object_get(json_object_get(doc, "pace"), "crewed")));
    json_decref(doc);
}

Test(travel_api, bad_input_names_the_field)
{
    static const struct tb_refusal cases[] = {
        {"{\"legs\":[],\"party\":{\"members\":[{\"speed_ft\":30}]}}", "/legs"},
        {"{\"legs\":[{\"miles\":-1,\"terrain\":\"plains\",\"way\":\"road\"}],\"party\":{"
         "\"members\":[{\"speed_ft\":30}]}}",
         "/legs/0/miles"},
        {"{\"legs\":[{\"miles\":1,\"terrain\":\"lava\",\"way\":\"road\"}],\"party\":{"
         "\"members\":[{\"speed_ft\":30}]}}",
         "/legs/0/terrain"},
        {"{\"legs\":[{\"miles\":1,\"terrain\":\"plains\",\"way\":\"canal\"}],\"party\":{"
         "\"members\":[{\"speed_ft\":30}]}}",
         "/legs/0/way"},
        {"{\"legs\":[{\"miles\":1,\"terrain\":\"plains\",\"way\":\"road\"}],\"party\":{"
         "\"members\":[{\"speed_ft\":3}]}}",
         "/party/members"},
        {"{\"legs\":[{\"miles\":1,\"terrain\":\"plains\",\"way\":\"road\"}],\"party\":{"
         "\"vehicle\":\"airship\"}}",
         "/party/vehicle"},
        {"{\"legs\":[{\"miles\":1,\"terrain\":\"plains\",\"way\":\"road\"}],\"party\":{"
         "\"members\":[{\"speed_ft\":30}]},\"plan\":{\"hours_per_day\":6,\"hustle_hours\":7}}",
         "/plan/hustle_hours"},
        {"{\"legs\":[{\"miles\":1,\"terrain\":\"plains\",\"way\":\"road\"}],\"party\":{"
         "\"members\":[{\"speed_ft\":30}]},\"plan\":{\"hours_per_day\":25}}",
         "/plan/hours_per_day"},
        {"{\"legs\":[{\"miles\":1,\"terrain\":\"plains\",\"way\":\"road\"}],\"party\":{"
         "\"vehicle\":\"cart\"},\"plan\":{\"hustle_hours\":1}}",
         "/plan/hustle_hours"},
        {"{\"legs\":[{\"miles\":99999,\"terrain\":\"jungle\",\"way\":\"trackless\"}],\"party\":{"
         "\"members\":[{\"speed_ft\":5}]},\"plan\":{\"hours_per_day\":1}}",
         "/legs"},
        {"{\"legs\":[{\"miles\":1,\"terrain\":\"plains\",\"way\":\"road\"}]}", "/party"},
    };
    TB_EACH_REFUSED(&srv, "/v1/travel", cases);
}

/* GET /v1/rules/presets and POST /v1/geometry/distance against the real server. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

#define JSON_CT "Content-Type: application/json\r\n"

SERVER_TEST_SUITE(geometry_api);

static json_t *post(const char *path, const char *body, int status)
{
    return http_post_json(&srv, path, body, status);
}

Test(geometry_api, presets_list_every_option_with_each_preset_value)
{
    struct http_response r;
    http_request(&srv, "GET", "/v1/rules/presets", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    json_t *doc = json_loads(r.body, 0, NULL);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "default")), "d20-3.5");
    json_t *options = json_object_get(doc, "options");
    json_t *presets = json_object_get(doc, "presets");
    cr_assert_geq(json_array_size(presets), 3);
    size_t i;
    json_t *p;
    json_array_foreach(presets, i, p)
    {
        json_t *values = json_object_get(p, "options");
        cr_assert_eq(json_object_size(values), json_array_size(options),
                     "preset %s must state every option",
                     json_string_value(json_object_get(p, "name")));
    }
    const char *names[] = {"d20-3.5", "d20-3.5-facing", "epic-path", "d20-modern"};
    for (size_t k = 0; k < 4; k++) {
        bool found = false;
        json_array_foreach(presets, i, p)
        {
            found |= strcmp(json_string_value(json_object_get(p, "name")), names[k]) == 0;
        }
        cr_assert(found, "preset %s", names[k]);
    }
    json_decref(doc);
    http_response_free(&r);
}

/* POSTs a distance (200): asserts it is `feet`; returns the answer (decref it). */
static json_t *distance_ft(const char *body, long long feet)
{
    json_t *doc = post("/v1/geometry/distance", body, 200);
    cr_assert_eq(tb_num(doc, "feet"), feet, "%s", body);
    return doc;
}

Test(geometry_api, distance_echoes_the_rules_and_counts_by_them)
{
    json_t *doc = distance_ft("{\"rules\":{\"preset\":\"epic-path\"},\"from\":{\"x\":0,\"y\":0},"
                              "\"to\":{\"x\":3,\"y\":3}}",
                              15);
    json_t *rules = json_object_get(doc, "rules");
    cr_assert_str_eq(json_string_value(json_object_get(rules, "preset")), "epic-path");
    cr_assert_str_eq(
        json_string_value(json_object_get(json_object_get(rules, "options"), "diagonals")),
        "one_for_one");
    json_decref(doc);
    doc = distance_ft(
        "{\"rules\":{\"preset\":\"epic-path\",\"options\":{\"diagonals\":\"alternating\"}},"
        "\"from\":{\"x\":0,\"y\":0},\"to\":{\"x\":3,\"y\":3}}",
        20);
    json_decref(doc);
}

Test(geometry_api, distance_without_rules_uses_the_default_preset)
{
    json_t *doc = distance_ft("{\"from\":{\"x\":0,\"y\":0,\"size\":\"large\"},"
                              "\"to\":{\"x\":10,\"y\":0,\"z\":6}}",
                              45);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "rules"), "preset")),
                     "d20-3.5");
    cr_assert_eq(json_integer_value(json_object_get(doc, "horizontal_squares")), 9);
    /* 001: a Large creature is a cube 2 squares high, so it spans z 0..1 and the gap to a cube
     * at z 6 is 5. */
    cr_assert_eq(json_integer_value(json_object_get(doc, "vertical_squares")), 5);
    json_decref(doc);
}

Test(geometry_api, hex_distance_takes_axial_coordinates)
{
    json_t *doc = post("/v1/geometry/distance",
                       "{\"rules\":{\"options\":{\"grid\":\"hex\"}},\"from\":{\"q\":0,\"r\":0},"
                       "\"to\":{\"q\":-2,\"r\":-2}}",
                       200);
    cr_assert_eq(json_integer_value(json_object_get(doc, "squares")), 4);
    cr_assert_null(json_object_get(doc, "diagonal_steps"));
    json_decref(doc);
    doc = post("/v1/geometry/distance",
               "{\"rules\":{\"options\":{\"grid\":\"hex\"}},\"from\":{\"x\":0,\"y\":0},"
               "\"to\":{\"q\":1,\"r\":0}}",
               422);
    cr_assert_str_eq(tb_first_pointer(doc), "/from/x");
    json_decref(doc);
}

Test(geometry_api, bad_rules_and_positions_are_422_at_their_pointer)
{
    static const struct tb_refusal cases[] = {
        {"{\"rules\":{\"preset\":\"pathfinder\"},\"from\":{\"x\":0,\"y\":0},\"to\":{\"x\":1,\"y\":"
         "0}}",
         "/rules/preset"},
        {"{\"rules\":{\"options\":{\"diagonal\":\"alternating\"}},\"from\":{\"x\":0,\"y\":0},"
         "\"to\":{\"x\":1,\"y\":0}}",
         "/rules/options/diagonal"},
        {"{\"rules\":{\"options\":{\"facing\":\"004\"}},\"from\":{\"x\":0,\"y\":0},"
         "\"to\":{\"x\":1,\"y\":0}}",
         "/rules/options/facing"},
        {"{\"rules\":{\"options\":{\"falling_max_dice\":\"20\"}},\"from\":{\"x\":0,\"y\":0},"
         "\"to\":{\"x\":1,\"y\":0}}",
         "/rules/options/falling_max_dice"},
        {"{\"from\":{\"x\":1000001,\"y\":0},\"to\":{\"x\":1,\"y\":0}}", "/from/x"},
        {"{\"from\":{\"x\":0,\"y\":0,\"size\":\"enormous\"},\"to\":{\"x\":1,\"y\":0}}",
         "/from/size"},
        {"{\"from\":{\"x\":0,\"y\":0}}", "/to"},
        {"{\"from\":{\"x\":0,\"y\":0},\"to\":{\"x\":1.5,\"y\":0}}", "/to/x"},
        {"{\"rules\":{\"options\":{\"grid\":\"hex\"}},\"from\":{\"q\":0,\"r\":0,"
         "\"size\":\"huge\"},\"to\":{\"q\":1,\"r\":0}}",
         "/from/size"},
        {"{\"rules\":{\"options\":{\"grid\":\"hex\"}},\"from\":{\"q\":0,\"r\":0,"
         "\"size\":\"large\"},\"to\":{\"q\":1,\"r\":0}}",
         "/from/triangle"},
        {"{\"rules\":{\"options\":{\"grid\":\"hex\"}},\"from\":{\"q\":0,\"r\":0,"
         "\"triangle\":2},\"to\":{\"q\":1,\"r\":0}}",
         "/from/triangle"},
    };
    TB_EACH_REFUSED(&srv, "/v1/geometry/distance", cases);
}

/* POSTs a flanking question (200): asserts the target is flanked under `rule`; returns the
 * answer (decref it). */
static json_t *flanked(const char *body, const char *rule)
{
    json_t *doc = post("/v1/geometry/flanking", body, 200);
    cr_assert(json_is_true(json_object_get(doc, "flanked")), "%s", body);
    cr_assert_str_eq(tb_text(doc, "rule"), rule);
    return doc;
}

Test(geometry_api, flanking_reports_who_flanks_how_and_the_line)
{
    json_t *doc = flanked("{\"rules\":{\"preset\":\"epic-path\"},"
                          "\"attacker\":{\"x\":5,\"y\":4},\"target\":{\"x\":5,\"y\":5},"
                          "\"allies\":[{\"x\":9,\"y\":9},{\"x\":5,\"y\":6}]}",
                          "001 Flanking");
    cr_assert_eq(json_integer_value(json_object_get(doc, "bonus")), 2);
    cr_assert_eq(json_integer_value(json_object_get(doc, "by")), 1);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "how")), "opposite_sides");
    json_t *allies = json_object_get(doc, "allies");
    cr_assert(json_is_false(json_object_get(json_array_get(allies, 0), "threatens")));
    json_t *line = json_object_get(json_array_get(allies, 1), "line");
    cr_assert_eq(json_real_value(json_array_get(json_array_get(line, 0), 0)), 5.5);
    cr_assert_eq(json_real_value(json_array_get(json_array_get(line, 1), 1)), 6.5);
    json_decref(doc);
}

/* Not flanked (no bonus, no one flanking), and why: no ally opposite (004 Flanking), an attacker
 * that does not threaten, facing in force. */
Test(geometry_api, flanking_says_why_not)
{
    static const struct {
        const char *body, *reason, *rule;
    } cases[] = {
        {"{\"attacker\":{\"x\":5,\"y\":4},\"target\":{\"x\":5,\"y\":5},"
         "\"allies\":[{\"x\":6,\"y\":5}]}",
         "no_ally_opposite", "004 Flanking"},
        {"{\"attacker\":{\"x\":5,\"y\":4,\"can_threaten\":false},\"target\":{\"x\":5,"
         "\"y\":5},\"allies\":[{\"x\":5,\"y\":6}]}",
         "attacker_not_threatening", NULL},
        {"{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"attacker\":{\"x\":5,\"y\":4},"
         "\"target\":{\"x\":5,\"y\":5},\"allies\":[{\"x\":5,\"y\":6}]}",
         "facing_in_force", NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        json_t *doc = post("/v1/geometry/flanking", cases[k].body, 200);
        cr_assert(json_is_false(json_object_get(doc, "flanked")), "%s", cases[k].body);
        cr_assert_eq(tb_num(doc, "bonus"), 0, "%s", cases[k].body);
        cr_assert(json_is_null(json_object_get(doc, "by")), "%s", cases[k].body);
        cr_assert_str_eq(tb_text(doc, "reason"), cases[k].reason);
        if (cases[k].rule != NULL)
            cr_assert_str_eq(tb_text(doc, "rule"), cases[k].rule);
        json_decref(doc);
    }
}

Test(geometry_api, flanking_reach_and_internal_cases)
{
    json_t *doc = flanked("{\"rules\":{\"preset\":\"epic-path\"},"
                          "\"attacker\":{\"x\":3,\"y\":4,\"reach_ft\":10,\"reach_weapon\":true},"
                          "\"target\":{\"x\":5,\"y\":5},\"allies\":[{\"x\":6,\"y\":5}]}",
                          "001 Reach and Flanking");
    json_decref(doc);
    doc = post("/v1/geometry/flanking",
               "{\"rules\":{\"preset\":\"epic-path\"},\"attacker\":{\"x\":5,\"y\":5,"
               "\"size\":\"tiny\"},\"target\":{\"x\":5,\"y\":5,\"size\":\"large\"},"
               "\"allies\":[{\"x\":7,\"y\":7}]}",
               200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "how")), "internal");
    json_decref(doc);
}

Test(geometry_api, flanking_input_errors_name_the_field)
{
    /* More than 512 allies is refused (a documented bound: SVC_MAX_ALLIES). */
    char big[20000] = "{\"attacker\":{\"x\":0,\"y\":0},\"target\":{\"x\":1,\"y\":0},\"allies\":[";
    for (int i = 0; i < 513; i++)
        strcat(big, i ? ",{\"x\":2,\"y\":0}" : "{\"x\":2,\"y\":0}");
    strcat(big, "]}");
    const struct tb_refusal cases[] = {
        {"{\"attacker\":{\"x\":5,\"y\":4},\"target\":{\"x\":5,\"y\":5},"
         "\"allies\":[{\"x\":5,\"y\":6},{\"x\":5,\"y\":6,\"reach_ft\":-5}]}",
         "/allies/1/reach_ft"},
        {"{\"attacker\":{\"x\":5,\"y\":4},\"target\":{\"x\":5,\"y\":5}}", "/allies"},
        {big, "/allies"},
    };
    TB_EACH_REFUSED(&srv, "/v1/geometry/flanking", cases);
}

static json_t *areas(const char *body, int status)
{
    return post("/v1/geometry/areas", body, status);
}

/* POSTs areas (200): asserts the ring around the creature, front, `middle` ("flank" under 000,
 * "side" under 003) and rear; returns the answer (decref it). */
static json_t *ring_of(const char *body, long long front, const char *middle, long long mid,
                       long long rear)
{
    json_t *doc = areas(body, 200);
    json_t *ring = json_object_get(doc, "ring");
    cr_assert_eq(tb_num(ring, "front"), front, "%s", body);
    cr_assert_eq(tb_num(ring, middle), mid, "%s", body);
    cr_assert_eq(tb_num(ring, "rear"), rear, "%s", body);
    return doc;
}

Test(geometry_api, areas_label_every_square_and_count_the_ring)
{
    json_t *doc =
        ring_of("{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"creature\":{\"x\":0,\"y\":0,"
                "\"facing\":0},\"radius_ft\":10}",
                3, "flank", 2, 3);
    /* Radius 10 ft under alternating diagonals: a 5x5 block less its 4 corners (15 ft). */
    cr_assert_eq(json_array_size(json_object_get(doc, "squares")), 21);
    cr_assert_eq(json_integer_value(json_object_get(doc, "threatened_count")), 9);
    size_t i;
    json_t *sq;
    json_array_foreach(json_object_get(doc, "squares"), i, sq)
    {
        long long x = json_integer_value(json_object_get(sq, "x"));
        long long y = json_integer_value(json_object_get(sq, "y"));
        const char *area = json_string_value(json_object_get(sq, "area"));
        if (x == 0 && y == 2) { /* straight behind, 10 ft */
            cr_assert_str_eq(area, "rear");
            cr_assert_eq(json_integer_value(json_object_get(sq, "spot")), -10);
            cr_assert(json_is_false(json_object_get(sq, "visual_trigger")));
        }
        if (x == 2 && y == 0) { /* flank, beyond */
            cr_assert_str_eq(area, "flank");
            cr_assert_eq(json_integer_value(json_object_get(sq, "spot")), -5);
        }
    }
    json_decref(doc);
}

Test(geometry_api, areas_under_003_and_on_hexes)
{
    json_t *doc = ring_of("{\"rules\":{\"options\":{\"facing\":\"003\"}},\"creature\":{\"x\":0,"
                          "\"y\":0,\"size\":\"large\",\"facing\":4},\"radius_ft\":5}",
                          4, "side", 6, 2);
    json_decref(doc);
    doc = ring_of("{\"rules\":{\"options\":{\"facing\":\"003\",\"grid\":\"hex\"}},\"creature\":{"
                  "\"q\":0,\"r\":0,\"facing\":5},\"radius_ft\":5}",
                  3, "side", 2, 1);
    json_decref(doc);
}

Test(geometry_api, areas_without_facing_still_list_threatened_squares)
{
    /* A reach weapon threatens at 10 ft but not adjacent (004 Threatened Area). */
    json_t *doc = areas("{\"creature\":{\"x\":0,\"y\":0,\"reach_ft\":10,\"reach_weapon\":true},"
                        "\"radius_ft\":10}",
                        200);
    cr_assert(json_is_false(json_object_get(doc, "has_facing")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "counts"), "none")), 20);
    /* 21 squares within 10 ft; the own square and the 12 at 10 ft are threatened, not the 8
     * adjacent. */
    cr_assert_eq(json_integer_value(json_object_get(doc, "threatened_count")), 13);
    json_decref(doc);
}

Test(geometry_api, areas_input_errors)
{
    static const struct tb_refusal cases[] = {
        {"{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"creature\":{\"x\":0,\"y\":0},"
         "\"radius_ft\":5}",
         "/creature/facing"},
        {"{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"creature\":{\"x\":0,\"y\":0,\"facing\":8},"
         "\"radius_ft\":5}",
         "/creature/facing"},
        {"{\"rules\":{\"preset\":\"d20-3.5-facing\",\"options\":{\"grid\":\"hex\"}},"
         "\"creature\":{\"q\":0,\"r\":0,\"facing\":6},\"radius_ft\":5}",
         "/creature/facing"},
        {"{\"creature\":{\"x\":0,\"y\":0,\"faceless\":true,\"facing\":2},\"radius_ft\":5}",
         "/creature/facing"},
        {"{\"creature\":{\"x\":0,\"y\":0},\"radius_ft\":255}", "/radius_ft"},
        {"{\"creature\":{\"x\":0,\"y\":0}}", "/radius_ft"},
    };
    TB_EACH_REFUSED(&srv, "/v1/geometry/areas", cases);
}

Test(geometry_api, sizes_list_001_space_and_reach)
{
    struct http_response r;
    http_request(&srv, "GET", "/v1/rules/sizes", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    json_t *doc = json_loads(r.body, 0, NULL);
    json_t *sizes = json_object_get(doc, "sizes");
    cr_assert_eq(json_array_size(sizes), 13); /* Fine ... Titanic-Three-Plus */
    json_t *huge = json_array_get(sizes, 6);
    cr_assert_str_eq(json_string_value(json_object_get(huge, "name")), "huge");
    cr_assert_eq(json_integer_value(json_object_get(huge, "natural_reach_ft")), 15);
    cr_assert_eq(json_integer_value(json_object_get(huge, "modifier_004")), -2);
    cr_assert(json_is_null(json_object_get(json_array_get(sizes, 9), "modifier_004")));
    json_t *pc = json_object_get(json_array_get(sizes, 0), "player_character_001");
    cr_assert_eq(json_integer_value(json_object_get(pc, "ac")), 4); /* Fine: +4 to AC */
    cr_assert_eq(json_integer_value(json_object_get(pc, "walk_ft")), -10);
    json_decref(doc);
    http_response_free(&r);
}

/* 003's three-hex Large creature through the API: facing a corner hex 4/4/1, an edge 3/4/2. */
Test(geometry_api, three_hex_creature_areas)
{
    json_t *doc = areas("{\"rules\":{\"options\":{\"facing\":\"003\",\"grid\":\"hex\"}},"
                        "\"creature\":{\"q\":0,\"r\":0,\"size\":\"large\",\"triangle\":0,"
                        "\"facing\":0},\"radius_ft\":5}",
                        200);
    json_t *ring = json_object_get(doc, "ring");
    int front = (int)json_integer_value(json_object_get(ring, "front"));
    int side = (int)json_integer_value(json_object_get(ring, "side"));
    int rear = (int)json_integer_value(json_object_get(ring, "rear"));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "counts"), "self")), 3);
    cr_assert((front == 4 && side == 4 && rear == 1) || (front == 3 && side == 4 && rear == 2),
              "%d/%d/%d", front, side, rear);
    json_decref(doc);
    doc = areas("{\"rules\":{\"options\":{\"facing\":\"003\",\"grid\":\"hex\"}},"
                "\"creature\":{\"q\":0,\"r\":0,\"size\":\"large\",\"triangle\":0,"
                "\"facing\":1},\"radius_ft\":5}",
                200);
    ring = json_object_get(doc, "ring");
    /* Facings alternate between a corner and an edge. */
    cr_assert_neq(json_integer_value(json_object_get(ring, "front")), front);
    json_decref(doc);
}

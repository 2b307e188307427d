/* POST /v1/render and GET /v1/encounters/{id}/map.png|svg against the real server: the media
 * type chosen, the picture decoded and sized, ETags, and refusals as problem+json. */
#include <cairo.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "tests/service/harness.h"
#include "tests/support/png.h"

SERVER_TEST_SUITE(render_api);

static const char board[] =
    "{\"map\":{\"width\":12,\"height\":8,\"rows\":[\"............\",\"....#.......\","
    "\"....#.......\",\"....o...dd..\",\"........dd..\",\"..........ww\",\"..hh......ww\","
    "\"............\"]},"
    "\"creatures\":[{\"id\":\"orc\",\"side\":\"enemy\",\"x\":7,\"y\":4,\"hp\":4,\"max_hp\":11},"
    "{\"id\":\"cleric\",\"side\":\"ally\",\"x\":8,\"y\":2,\"conditions\":[\"prone\"]}],"
    "\"mover\":{\"id\":\"fighter\",\"label\":\"Ftr\",\"x\":1,\"y\":4,\"speeds\":{\"walk\":30}},"
    "\"overlays\":{\"threatened\":true,\"reach\":true,\"flanking\":true,"
    "\"path\":[{\"x\":2,\"y\":4},{\"x\":3,\"y\":4},{\"x\":4,\"y\":4},{\"x\":5,\"y\":5}],"
    "\"cover\":[{\"attacker\":\"fighter\",\"target\":\"orc\"}],\"area\":[{\"x\":9,\"y\":6}],"
    "\"forced\":{\"creature\":\"orc\",\"path\":[{\"x\":8,\"y\":4}]}}}";

/* Decodes a PNG answer and returns its size. */
static void png_size(const struct http_response *r, int *w, int *h)
{
    cairo_surface_t *s = test_png_decode(r->body, r->body_len);
    *w = cairo_image_surface_get_width(s);
    *h = cairo_image_surface_get_height(s);
    cairo_surface_destroy(s);
}

static void post(const char *query, const char *accept, const char *body, struct http_response *r)
{
    char path[128], headers[256];
    snprintf(path, sizeof path, "/v1/render%s", query);
    snprintf(headers, sizeof headers, "Content-Type: application/json\r\n%s%s%s",
             accept ? "Accept: " : "", accept ? accept : "", accept ? "\r\n" : "");
    http_request(&srv, "POST", path, headers, body, r);
}

static void expect_type(const struct http_response *r, const char *type)
{
    char ct[80] = "";
    cr_assert(http_header(r, "Content-Type", ct, sizeof ct));
    cr_assert_str_eq(ct, type, "%.300s", r->head);
}

static int count(const struct http_response *r, const char *needle)
{
    int n = 0;
    for (const char *p = r->body; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

Test(render_api, png_by_default_same_request_same_bytes_and_etag)
{
    struct http_response a, b;
    post("", NULL, board, &a);
    cr_assert_eq(a.status, 200, "%.400s", a.body);
    expect_type(&a, "image/png");
    int w, h;
    png_size(&a, &w, &h);
    cr_assert(w > 100 && w <= 1024 && h > 100 && h <= 1024, "%d x %d", w, h);
    post("", NULL, board, &b);
    cr_assert_eq(b.status, 200);
    cr_assert_eq(a.body_len, b.body_len);
    cr_assert_eq(memcmp(a.body, b.body, a.body_len), 0, "the same request gives the same bytes");
    char ea[80], eb[80];
    cr_assert(http_header(&a, "ETag", ea, sizeof ea));
    cr_assert(http_header(&b, "ETag", eb, sizeof eb));
    cr_assert_str_eq(ea, eb);
    http_response_free(&a);
    http_response_free(&b);
}

Test(render_api, svg_by_query_or_accept_with_a_group_per_creature)
{
    struct http_response r;
    post("?format=svg", NULL, board, &r);
    cr_assert_eq(r.status, 200, "%.400s", r.body);
    expect_type(&r, "image/svg+xml");
    cr_assert_eq(count(&r, "class=\"creature"), 3);
    cr_assert_eq(count(&r, "<g id=\"creature-orc\" data-id=\"orc\""), 1);
    cr_assert_eq(count(&r, "<g id=\"creature-cleric\""), 1);
    cr_assert_eq(count(&r, "<g id=\"creature-fighter\" data-id=\"fighter\" class=\"creature "
                           "mover\""),
                 1);
    cr_assert_eq(count(&r, ">Ftr</text>"), 1);
    cr_assert_eq(count(&r, "</svg>"), 1);
    http_response_free(&r);
    post("", "image/svg+xml", board, &r);
    cr_assert_eq(r.status, 200);
    expect_type(&r, "image/svg+xml");
    http_response_free(&r);
    post("", "image/png, image/svg+xml;q=0.5", board, &r);
    expect_type(&r, "image/png");
    http_response_free(&r);
}

Test(render_api, size_bounds_the_picture)
{
    struct http_response r;
    post("?size=300", NULL, board, &r);
    cr_assert_eq(r.status, 200, "%.400s", r.body);
    int w, h;
    png_size(&r, &w, &h);
    cr_assert(w <= 300 && h <= 300, "%d x %d", w, h);
    http_response_free(&r);
    post("?size=50", NULL, board, &r);
    cr_assert_eq(r.status, 422);
    expect_type(&r, "application/problem+json");
    cr_assert_neq(strstr(r.body, "\"?size\""), NULL, "%s", r.body);
    http_response_free(&r);
    post("?format=gif", NULL, board, &r);
    cr_assert_eq(r.status, 422);
    cr_assert_neq(strstr(r.body, "\"?format\""), NULL, "%s", r.body);
    http_response_free(&r);
}

Test(render_api, refusals_name_the_field)
{
    struct {
        const char *body, *pointer;
    } cases[] = {
        {"{\"map\":{\"width\":5,\"height\":5},\"overlays\":{\"reach\":true}}", "/overlays/reach"},
        {"{\"map\":{\"width\":5,\"height\":5},\"overlays\":{\"glow\":true}}", "/overlays/glow"},
        {"{\"map\":{\"width\":5,\"height\":5},\"focus\":\"nobody\"}", "/focus"},
        {"{\"map\":{\"width\":5,\"height\":5},\"creatures\":[{\"id\":\"a\",\"x\":1,\"y\":1,"
         "\"conditions\":[\"glowing\"]}]}",
         "/creatures/0/conditions/0"},
        {"{\"map\":{\"width\":5,\"height\":5},\"creatures\":[{\"id\":\"a\",\"x\":1,\"y\":1,"
         "\"hp\":3}]}",
         "/creatures/0/max_hp"},
        {"{\"map\":{\"width\":5,\"height\":5},\"creatures\":[{\"id\":\"a\",\"x\":9,\"y\":1}]}",
         "/creatures/0"},
        {"{\"map\":{\"width\":5000,\"height\":5}}", "/map/width"},
        {"{\"creatures\":[]}", "/map"},
        {"{\"map\":{\"width\":5,\"height\":5},\"overlays\":{\"cover\":[{\"attacker\":\"x\","
         "\"target\":\"y\"}]}}",
         "/overlays/cover/0/attacker"},
        {"{\"map\":{\"width\":5,\"height\":5},\"creatures\":[{\"id\":\"a\",\"x\":1,\"y\":1},"
         "{\"id\":\"b\",\"x\":3,\"y\":1}],\"overlays\":{\"cover\":[{\"attacker\":\"a\","
         "\"target\":\"b\",\"melee\":\"yes\"}]}}",
         "/overlays/cover/0/melee"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct http_response r;
        post("", NULL, cases[i].body, &r);
        cr_assert_eq(r.status, 422, "%s: %d %s", cases[i].body, r.status, r.body);
        expect_type(&r, "application/problem+json");
        char want[96];
        snprintf(want, sizeof want, "\"pointer\":\"%s\"", cases[i].pointer);
        cr_assert_neq(strstr(r.body, want), NULL, "%s: %s", cases[i].body, r.body);
        http_response_free(&r);
    }
}

/* The cover pair's melee flag picks the SRD's rule (Combat: Cover). Fighter (1,1), orc
 * diagonally adjacent at (2,2), a wall on (2,1). In melee against an adjacent target "your
 * target has cover if any line from your square to the target's square goes through a wall":
 * (1,1)-(3,2), (2,1)-(3,2) and (2,1)-(3,3) do, 3 of the 16. A ranged attacker chooses a
 * corner: from (1,2) the lines to (2,2) and (3,2) run along the wall's bottom edge, with the
 * open (2,2) beside it, and those to (3,3) and (2,3) stay below it: no cover. Without melee
 * the ranged rule is the default. */
Test(render_api, cover_pairs_take_the_melee_rule)
{
    static const char head[] =
        "{\"map\":{\"width\":6,\"height\":5,\"rows\":[\"......\",\"..#...\",\"......\","
        "\"......\",\"......\"]},\"creatures\":[{\"id\":\"fighter\",\"side\":\"ally\","
        "\"x\":1,\"y\":1},{\"id\":\"orc\",\"side\":\"enemy\",\"x\":2,\"y\":2}],"
        "\"overlays\":{\"cover\":[{\"attacker\":\"fighter\",\"target\":\"orc\"%s}]}}";
    const char *melee[] = {",\"melee\":true", ",\"melee\":false", ""};
    const char *want[] = {">half cover +4 (3/16 lines, melee)</text>",
                          ">no cover (0/4 lines)</text>", ">no cover (0/4 lines)</text>"};
    for (int i = 0; i < 3; i++) {
        char body[512];
        snprintf(body, sizeof body, head, melee[i]);
        struct http_response r;
        post("?format=svg", NULL, body, &r);
        cr_assert_eq(r.status, 200, "%.400s", r.body);
        cr_assert_eq(count(&r, want[i]), 1, "%s: wants %s", melee[i], want[i]);
        cr_assert_eq(count(&r, "class=\"cover-blocking wall\""), i == 0 ? 1 : 0);
        http_response_free(&r);
    }
}

Test(render_api, hex_board_renders)
{
    struct http_response r;
    post("", NULL,
         "{\"rules\":{\"options\":{\"grid\":\"hex\"}},\"map\":{\"width\":8,\"height\":6},"
         "\"creatures\":[{\"id\":\"ogre\",\"q\":4,\"r\":2,\"size\":\"large\",\"triangle\":1}],"
         "\"mover\":{\"q\":1,\"r\":2,\"speeds\":{\"walk\":20}},\"overlays\":{\"reach\":true,"
         "\"threatened\":true}}",
         &r);
    cr_assert_eq(r.status, 200, "%.400s", r.body);
    int w, h;
    png_size(&r, &w, &h);
    cr_assert(w > 0 && h > 0);
    http_response_free(&r);
}

/* --- the encounter's frames --- */

struct encounter {
    char id[64], token[128];
};

static void encounter_with_two(struct encounter *enc)
{
    json_t *doc = http_post_json(&srv, "/v1/encounters",
                                 "{\"map\":{\"width\":10,\"height\":8,\"squares\":[{\"x\":4,"
                                 "\"y\":1,\"height\":3,\"terrain\":\"blocked\"}]}}",
                                 201);
    snprintf(enc->id, sizeof enc->id, "%s", json_string_value(json_object_get(doc, "id")));
    snprintf(enc->token, sizeof enc->token, "%s", json_string_value(json_object_get(doc, "token")));
    json_decref(doc);
    const char *bodies[] = {
        "{\"id\":\"aria\",\"name\":\"Aria\",\"side\":\"party\",\"x\":2,\"y\":4,"
        "\"speeds\":{\"walk\":30},\"defense\":{},\"max_hp\":20,\"dex\":14}",
        "{\"id\":\"gob1\",\"name\":\"Goblin 1\",\"side\":\"goblins\",\"x\":6,\"y\":4,"
        "\"speeds\":{\"walk\":30},\"defense\":{},\"max_hp\":7,\"dex\":12}"};
    for (int i = 0; i < 2; i++) {
        char path[160], headers[300];
        snprintf(path, sizeof path, "/v1/encounters/%s/combatants", enc->id);
        snprintf(headers, sizeof headers,
                 "Authorization: Bearer %s\r\nIf-Match: \"v%d\"\r\nContent-Type: "
                 "application/json\r\n",
                 enc->token, i + 1);
        struct http_response r;
        http_request(&srv, "POST", path, headers, bodies[i], &r);
        cr_assert_eq(r.status, 201, "%s", r.body);
        http_response_free(&r);
    }
}

static void get_frame(const struct encounter *enc, const char *file, const char *query,
                      const char *headers, struct http_response *r)
{
    char path[256];
    snprintf(path, sizeof path, "/v1/encounters/%s/%s%s", enc->id, file, query);
    http_request(&srv, "GET", path, headers, NULL, r);
}

Test(render_api, encounter_frame_after_each_event_with_an_etag_that_follows_it)
{
    struct encounter enc;
    encounter_with_two(&enc);
    struct http_response r;
    get_frame(&enc, "map.png", "", NULL, &r);
    cr_assert_eq(r.status, 200, "%.300s", r.body);
    expect_type(&r, "image/png");
    int w, h;
    png_size(&r, &w, &h);
    cr_assert(w <= 1024 && h <= 1024);
    char latest[80], cc[80];
    cr_assert(http_header(&r, "ETag", latest, sizeof latest));
    cr_assert_eq(strncmp(latest, "\"v3-png-", 8), 0, "%s", latest);
    cr_assert(http_header(&r, "Cache-Control", cc, sizeof cc));
    cr_assert_str_eq(cc, "no-cache");
    http_response_free(&r);

    /* After event 2 only Aria stands on the board. */
    get_frame(&enc, "map.svg", "?at=2", NULL, &r);
    cr_assert_eq(r.status, 200, "%.300s", r.body);
    expect_type(&r, "image/svg+xml");
    cr_assert_eq(count(&r, "class=\"creature"), 1);
    cr_assert_eq(count(&r, "data-id=\"aria\""), 1);
    char at2[80];
    cr_assert(http_header(&r, "ETag", at2, sizeof at2));
    cr_assert_eq(strncmp(at2, "\"v2-svg-", 8), 0, "%s", at2);
    http_response_free(&r);
    get_frame(&enc, "map.svg", "?at=3", NULL, &r);
    cr_assert_eq(count(&r, "class=\"creature"), 2);
    cr_assert_eq(count(&r, ">G1</text>"), 1, "Goblin 1 is labelled G1");
    http_response_free(&r);

    /* A client holding the frame revalidates for nothing. */
    char inm[128];
    snprintf(inm, sizeof inm, "If-None-Match: %s\r\n", latest);
    get_frame(&enc, "map.png", "", inm, &r);
    cr_assert_eq(r.status, 304);
    cr_assert_eq(r.body_len, 0u);
    http_response_free(&r);

    /* Overlays and focus shape the frame, and its ETag. */
    get_frame(&enc, "map.png", "?overlay=threatened,reach&focus=aria&size=512", NULL, &r);
    cr_assert_eq(r.status, 200, "%.300s", r.body);
    png_size(&r, &w, &h);
    cr_assert(w <= 512 && h <= 512);
    char shaped[80];
    cr_assert(http_header(&r, "ETag", shaped, sizeof shaped));
    cr_assert_str_neq(shaped, latest);
    http_response_free(&r);
}

Test(render_api, encounter_frame_refusals)
{
    struct encounter enc;
    encounter_with_two(&enc);
    struct {
        const char *file, *query;
        int status;
    } cases[] = {
        {"map.png", "?at=9", 422},         {"map.png", "?at=zero", 422},
        {"map.svg", "?overlay=glow", 422}, {"map.png", "?overlay=reach", 422},
        {"map.png", "?focus=nobody", 422}, {"map.png", "?size=99999", 422},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct http_response r;
        get_frame(&enc, cases[i].file, cases[i].query, NULL, &r);
        cr_assert_eq(r.status, cases[i].status, "%s%s: %d %s", cases[i].file, cases[i].query,
                     r.status, r.body);
        expect_type(&r, "application/problem+json");
        http_response_free(&r);
    }
    struct http_response r;
    http_request(&srv, "GET", "/v1/encounters/0123456789abcdef0123456789abcdef/map.png", NULL, NULL,
                 &r);
    cr_assert_eq(r.status, 404);
    http_response_free(&r);
}

/* Issue 31: "the goblin" and "the gnoll" were both labelled "tg" on every frame. The labels of
 * one board are made together (svc_picture_labels): one more character of the last word tells
 * these two apart, and Kroh keeps his. */
Test(render_api, an_encounter_frame_labels_no_two_combatants_alike)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":10,\"height\":8}}");
    static const char *const bodies[] = {
        "{\"id\":\"g1\",\"name\":\"the goblin\",\"side\":\"monsters\",\"x\":2,\"y\":2,"
        "\"speeds\":{\"walk\":30},\"defense\":{},\"max_hp\":7,\"dex\":12}",
        "{\"id\":\"g2\",\"name\":\"the gnoll\",\"side\":\"monsters\",\"x\":4,\"y\":2,"
        "\"speeds\":{\"walk\":30},\"defense\":{},\"max_hp\":11,\"dex\":12}",
        "{\"id\":\"kroh\",\"name\":\"Kroh\",\"side\":\"party\",\"x\":3,\"y\":5,"
        "\"speeds\":{\"walk\":30},\"defense\":{},\"max_hp\":20,\"dex\":12}"};
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++)
        json_decref(enc_call(&srv, &e, "POST", "/combatants", NULL, bodies[i], 201));
    char path[160];
    snprintf(path, sizeof path, "/v1/encounters/%s/map.svg", e.id);
    struct http_response r;
    http_request(&srv, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, 200, "%.300s", r.body);
    cr_assert_eq(count(&r, ">tg</text>"), 0, "no token is labelled tg");
    cr_assert_eq(count(&r, ">tgo</text>"), 1, "the goblin");
    cr_assert_eq(count(&r, ">tgn</text>"), 1, "the gnoll");
    cr_assert_eq(count(&r, ">Kroh</text>"), 1);
    http_response_free(&r);
}

/* POST /v1/render labels from ids, as one scene: goblin-1 and goblin-2 by their own numbers,
 * and the mover "goblin" by the first free one; a label the request gives is kept, and the
 * labels made keep clear of it ("gnoll" would be "gno", which the orc's label holds). */
Test(render_api, a_scene_labels_no_two_creatures_alike)
{
    static const char scene[] =
        "{\"map\":{\"width\":10,\"height\":8},\"creatures\":["
        "{\"id\":\"goblin-1\",\"side\":\"enemy\",\"x\":2,\"y\":2},"
        "{\"id\":\"goblin-2\",\"side\":\"enemy\",\"x\":4,\"y\":2},"
        "{\"id\":\"orc\",\"label\":\"gno\",\"side\":\"enemy\",\"x\":6,\"y\":2},"
        "{\"id\":\"gnoll\",\"side\":\"enemy\",\"x\":8,\"y\":2}],"
        "\"mover\":{\"id\":\"goblin\",\"x\":3,\"y\":6,\"speeds\":{\"walk\":30}}}";
    struct http_response r;
    post("?format=svg", NULL, scene, &r);
    cr_assert_eq(r.status, 200, "%.400s", r.body);
    static const char *const want[] = {">gob1</text>", ">gob2</text>", ">gob3</text>",
                                       ">gno</text>", ">gnol</text>"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert_eq(count(&r, want[i]), 1, "%s in %.2000s", want[i], r.body);
    cr_assert_eq(count(&r, ">gob</text>"), 0);
    http_response_free(&r);
}

/* Names in any script (issue 28): Cyrillic, CJK, emoji and combining marks in names, ids,
 * labels and side names, through every picture route (POST /v1/render as PNG and SVG, GET
 * .../map.png and .../map.svg with every overlay) and the text answers that quote them. Before,
 * "Дракон" or "Orc ☠" made the PNG answers 500 and the SVG invalid UTF-8: labels were cut by
 * byte. Every answer here is 200 (or the refusal asked for), well-formed UTF-8, and each label
 * is its name's first characters, whole: a letter with its marks, an emoji sequence, a flag. */
#include <cairo.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/harness.h"
#include "tests/support/png.h"
#include "text/text.h"

SERVER_TEST_SUITE(scripts);

#define E_ACUTE "e\xcc\x81" /* e + COMBINING ACUTE ACCENT */
#define E_GRAVE "e\xcc\x80"
#define FAMILY  "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7"
#define FLAG_US "\xf0\x9f\x87\xba\xf0\x9f\x87\xb8"
#define WAVE    "\xf0\x9f\x91\x8b\xf0\x9f\x8f\xbd" /* waving hand, medium skin tone */
#define SKULL   "\xe2\x98\xa0"                     /* U+2620 */

static void expect_png(const struct http_response *r, const char *what)
{
    cr_assert_eq(r->status, 200, "%s: %d %.300s", what, r->status, r->body);
    cairo_surface_t *s = test_png_decode(r->body, r->body_len);
    cairo_surface_destroy(s);
}

/* A 200 SVG of well-formed UTF-8 whose every text and attribute is escaped (no '<' or '&'
 * that does not open a tag or an entity). */
static void expect_svg(const struct http_response *r, const char *what)
{
    cr_assert_eq(r->status, 200, "%s: %d %.300s", what, r->status, r->body);
    cr_assert(text_utf8_valid(r->body, r->body_len), "%s: the SVG is not UTF-8", what);
    cr_assert_not_null(strstr(r->body, "</svg>"));
    for (const char *p = r->body; (p = strchr(p, '&')) != NULL; p++)
        cr_assert(strncmp(p, "&amp;", 5) == 0 || strncmp(p, "&lt;", 4) == 0 ||
                      strncmp(p, "&gt;", 4) == 0 || strncmp(p, "&quot;", 6) == 0 ||
                      strncmp(p, "&apos;", 6) == 0,
                  "%s: a bare & at %.20s", what, p);
    cr_assert_null(strstr(r->body, "\xef\xbf\xbf"), "%s: U+FFFF is no XML character", what);
}

/* How many times the SVG draws `label` as a creature's label (its bold text). */
static int labels(const struct http_response *r, const char *label)
{
    char needle[256];
    snprintf(needle, sizeof needle, ">%s</text>", label);
    int n = 0;
    for (const char *p = r->body; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void expect_json(const struct http_response *r, int status, const char *what)
{
    cr_assert_eq(r->status, status, "%s: %d %.300s", what, r->status, r->body);
    cr_assert(text_utf8_valid(r->body, r->body_len), "%s: the answer is not UTF-8", what);
    json_error_t err;
    json_t *doc = json_loadb(r->body, r->body_len, 0, &err);
    cr_assert_not_null(doc, "%s: not JSON: %s", what, err.text);
    json_decref(doc);
}

static const char board[] =
    "{\"map\":{\"width\":8,\"height\":6},\"creatures\":["
    "{\"id\":\"Дракон\",\"side\":\"enemy\",\"x\":2,\"y\":2},"
    "{\"id\":\"龍王の影\",\"side\":\"enemy\",\"x\":3,\"y\":2},"
    "{\"id\":\"" E_ACUTE "l" E_GRAVE "ve\",\"side\":\"ally\",\"x\":2,\"y\":3},"
    "{\"id\":\"fam\",\"label\":\"" FAMILY FLAG_US WAVE SKULL "x\",\"side\":\"enemy\",\"x\":4,"
    "\"y\":3},"
    "{\"id\":\"Ящер Лучник 3\",\"side\":\"enemy\",\"x\":5,\"y\":4},"
    "{\"id\":\"x<&\\uffff\",\"label\":\"<&\\uffff\",\"side\":\"ally\",\"x\":6,\"y\":1}],"
    "\"mover\":{\"id\":\"Orc " SKULL "\",\"x\":1,\"y\":1,\"speeds\":{\"walk\":30}},"
    "\"overlays\":{\"threatened\":true,\"reach\":true,\"flanking\":true,"
    "\"path\":[{\"x\":1,\"y\":2}],"
    "\"cover\":[{\"attacker\":\"Orc " SKULL "\",\"target\":\"Дракон\"}]}}";

static void post_render(const char *query, struct http_response *r)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/render%s", query);
    http_request(&srv, "POST", path, "Content-Type: application/json\r\n", board, r);
}

Test(scripts, render_draws_names_in_any_script_as_png_and_svg)
{
    struct http_response r;
    post_render("", &r);
    expect_png(&r, "POST /v1/render");
    http_response_free(&r);
    post_render("?size=256", &r);
    expect_png(&r, "POST /v1/render?size=256");
    http_response_free(&r);
    post_render("?format=svg", &r);
    expect_svg(&r, "POST /v1/render?format=svg");
    /* Each label is its id's (or its own) first characters, never a byte of one: one word of
     * more than four characters gives three; several give initials and a number; a given
     * label its first four. */
    cr_assert_eq(labels(&r, "Дра"), 1);
    cr_assert_eq(labels(&r, "龍王の影"), 1);
    cr_assert_eq(labels(&r, E_ACUTE "l" E_GRAVE), 1);
    cr_assert_eq(labels(&r, FAMILY FLAG_US WAVE SKULL), 1, "the label cuts whole emoji");
    cr_assert_eq(labels(&r, "ЯЛ3"), 1);
    cr_assert_eq(labels(&r, "O" SKULL), 1);
    cr_assert_eq(labels(&r, "&lt;&amp;\xef\xbf\xbd"), 1, "escaped, U+FFFF replaced");
    /* The groups carry the ids, escaped. */
    cr_assert_not_null(strstr(r.body, "data-id=\"Дракон\""));
    cr_assert_not_null(strstr(r.body, "data-id=\"x&lt;&amp;\xef\xbf\xbd\""));
    http_response_free(&r);
}

struct enc_ids {
    char id[64], token[128];
    int version;
};

static void write(struct enc_ids *e, const char *suffix, const char *body, int status)
{
    char path[160], headers[300];
    snprintf(path, sizeof path, "/v1/encounters/%s%s", e->id, suffix);
    snprintf(headers, sizeof headers,
             "Authorization: Bearer %s\r\nIf-Match: \"v%d\"\r\nContent-Type: application/json\r\n",
             e->token, e->version);
    struct http_response r;
    http_request(&srv, "POST", path, headers, body, &r);
    expect_json(&r, status, suffix);
    if (status < 300)
        e->version++;
    http_response_free(&r);
}

static void get(struct enc_ids *e, const char *suffix, struct http_response *r)
{
    char path[256];
    snprintf(path, sizeof path, "/v1/encounters/%s%s", e->id, suffix);
    http_request(&srv, "GET", path, NULL, NULL, r);
}

Test(scripts, encounter_frames_and_texts_carry_names_in_any_script)
{
    json_t *doc = http_post_json(
        &srv, "/v1/encounters",
        "{\"name\":\"Засада " SKULL " 龍\",\"map\":{\"width\":10,\"height\":10},\"seed\":5}", 201);
    struct enc_ids e = {.version = 1};
    snprintf(e.id, sizeof e.id, "%s", json_string_value(json_object_get(doc, "id")));
    snprintf(e.token, sizeof e.token, "%s", json_string_value(json_object_get(doc, "token")));
    json_decref(doc);
    static const char *const combatants[] = {
        "{\"id\":\"drake\",\"name\":\"дракон\",\"side\":\"Орки\",\"x\":2,\"y\":2,",
        "{\"id\":\"orc\",\"name\":\"Orc " SKULL "\",\"side\":\"龍の軍\",\"x\":3,\"y\":2,",
        "{\"id\":\"ryu\",\"name\":\"龍王の影\",\"side\":\"Орки\",\"x\":2,\"y\":3,",
        "{\"id\":\"eleve\",\"name\":\"" E_ACUTE "l" E_GRAVE "ve\",\"side\":\"party " FAMILY
        "\",\"x\":4,\"y\":4,",
        "{\"id\":\"fam\",\"name\":\"" FAMILY FLAG_US WAVE SKULL "x\",\"side\":\"party " FAMILY
        "\",\"x\":4,\"y\":2,"};
    for (size_t i = 0; i < sizeof combatants / sizeof combatants[0]; i++) {
        char body[600];
        snprintf(body, sizeof body,
                 "%s\"speeds\":{\"walk\":30},\"defense\":{\"armor\":2},\"max_hp\":10,\"dex\":12,"
                 "\"attacks\":[{\"name\":\"Меч " SKULL "\",\"attack_bonus\":3,\"damage\":"
                 "\"1d6+1\"}]}",
                 combatants[i]);
        write(&e, "/combatants", body, 201);
    }
    static const char *const frames[] = {
        "/map.png",
        "/map.svg",
        "/map.png?overlay=threatened,flanking,reach,facing&focus=orc",
        "/map.svg?overlay=threatened,flanking,reach,facing&focus=orc",
        "/map.png?size=128",
        NULL};
    for (int i = 0; frames[i] != NULL; i++) {
        struct http_response r;
        get(&e, frames[i], &r);
        if (strstr(frames[i], ".png") != NULL) {
            expect_png(&r, frames[i]);
        } else {
            expect_svg(&r, frames[i]);
            cr_assert_eq(labels(&r, "дра"), 1, "%s", frames[i]);
            cr_assert_eq(labels(&r, "龍王の影"), 1, "%s", frames[i]);
            cr_assert_eq(labels(&r, E_ACUTE "l" E_GRAVE), 1, "%s", frames[i]);
            cr_assert_eq(labels(&r, "O" SKULL), 1, "%s", frames[i]);
            /* One word of more than four characters: its first three, whole. */
            cr_assert_eq(labels(&r, FAMILY FLAG_US WAVE), 1, "%s", frames[i]);
            cr_assert_not_null(strstr(r.body, ">龍の軍</text>"), "the legend names the side");
        }
        http_response_free(&r);
    }
    /* The texts that quote them: the events told (a sentence opens with a capital in any
     * script), the state, a refusal quoting an attack's name. */
    write(&e, "/initiative", "{}", 200);
    struct http_response r;
    get(&e, "/events", &r);
    expect_json(&r, 200, "/events");
    json_t *log = json_loadb(r.body, r.body_len, 0, NULL);
    const char *told = json_string_value(
        json_object_get(json_array_get(json_object_get(log, "events"), 1), "explain"));
    cr_assert_str_eq(told, "Дракон joins the Орки side at (2, 2) with 10 hp.");
    told = json_string_value(
        json_object_get(json_array_get(json_object_get(log, "events"), 0), "explain_markdown"));
    cr_assert_str_eq(told, "Encounter \"Засада " SKULL " 龍\" created on a 10 by 10 map.");
    json_decref(log);
    http_response_free(&r);
    get(&e, "/state", &r);
    expect_json(&r, 200, "/state");
    http_response_free(&r);
    write(&e, "/actions",
          "{\"type\":\"attack\",\"actor\":\"drake\",\"target\":\"orc\",\"attack\":\"Меч\"}", 422);
}

/* The refusals that quote what was sent: a member name in any script, too long for a pointer,
 * is cut where a character ends; a dice label is quoted whole and placed by character. */
Test(scripts, refusals_quote_names_whole)
{
    char body[1200] = "{\"x"; /* one byte, then two-byte letters: a byte cut splits one */
    for (int i = 0; i < 200; i++)
        strcat(body, "Ж");
    strcat(body, "\":1}");
    struct http_response r;
    http_request(&srv, "POST", "/v1/render", "Content-Type: application/json\r\n", body, &r);
    expect_json(&r, 422, "an unknown member in Cyrillic");
    json_t *doc = json_loadb(r.body, r.body_len, 0, NULL);
    json_t *err = json_array_get(json_object_get(doc, "errors"), 0);
    const char *ptr = json_string_value(json_object_get(err, "pointer"));
    cr_assert_not_null(ptr, "the pointer was dropped: %s", r.body);
    cr_assert_eq(strncmp(ptr, "/xЖЖЖ", strlen("/xЖЖЖ")), 0);
    cr_assert_not_null(json_object_get(err, "message"));
    json_decref(doc);
    http_response_free(&r);
    http_request(&srv, "POST", "/v1/dice/roll", "Content-Type: application/json\r\n",
                 "{\"expression\":\"1d6[жж] + 2d4[огонь\"}", &r);
    expect_json(&r, 422, "an unclosed label");
    doc = json_loadb(r.body, r.body_len, 0, NULL);
    const char *detail = json_string_value(json_object_get(doc, "detail"));
    cr_assert_not_null(strstr(detail, "(at character 13: '[огонь')"), "%s", detail);
    json_decref(doc);
    http_response_free(&r);
}

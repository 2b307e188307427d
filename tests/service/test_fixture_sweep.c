/* Every view agrees with the referee, at every event of the engine fixtures (issue 30, What to
 * build 3: "A test replays every event of the engine fixtures and checks, at each version, that
 * the frame's threatened squares equal /threats, and that a route the query calls legal is
 * accepted as an action"). The fixtures are the logs tests/service/fixtures holds: the engine 1
 * log (encounter_v1.json, 20 events) and the engine 3 skirmish (encounter_v3.json, 58 events,
 * every kind of move and attack); each is imported, so its events are re-ruled by this build.
 * At each event N:
 *  - threats: map.svg?at=N&overlay=threatened lists each side's threatened squares on its group
 *    (<g class="threatened" data-side data-squares>, openapi.yaml), and a combatant stands on a
 *    square of side S's exactly when /threats?at=N says a combatant of S threatens it;
 *  - routes: for the combatant whose turn it is, GET .../route?at=N to every other combatant
 *    (modes move, double_move, run, charge) and to four squares at fixed offsets from it (move,
 *    double_move, run); every route it calls legal (found, legal) is posted as that move action
 *    (its steps as the path; a charge names the target) on a copy of the log up to N (an import
 *    of events 1..N), and must be accepted (200); each accepted move is undone before the next.
 * No sampling: every event, every query. Under ASan on the 2-core machine the two tests take
 * 6-7 s of wall time (5-6 s of CPU), whether run side by side or one after the other:
 *   build/asan/tests/service/test_service --filter 'fixture_sweep/ *' (without the space). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(fixture_sweep);

/* What a sweep covered, for the floors each test asserts (so that it cannot pass by checking
 * nothing). */
struct sweep {
    int events;
    int threatened_seen; /* combatants /threats listed as threatened by a side, checked */
    int routes_asked;    /* route queries made */
    int routes_legal;    /* ... called legal, each posted and accepted */
    int routes_refused;  /* ... answered found false with `refused` (the action's refusal) */
    int turns_swept;     /* events at which somebody's turn it was */
};

static json_t *get(struct enc *e, const char *suffix)
{
    return enc_call(&srv, e, "GET", suffix, NULL, NULL, 200);
}

/* The squares of side `side` in the SVG's threatened group, as "x,y" words between spaces, or
 * NULL when the side has no group (threatens no square). Points into svg. */
static const char *side_squares(const char *svg, const char *side, size_t *len)
{
    char head[160];
    snprintf(head, sizeof head, "<g class=\"threatened\" data-side=\"%s\" data-squares=\"", side);
    const char *p = strstr(svg, head);
    if (p == NULL)
        return NULL;
    p += strlen(head);
    const char *end = strchr(p, '"');
    cr_assert_not_null(end);
    *len = (size_t)(end - p);
    return p;
}

static bool lists_square(const char *list, size_t len, long long x, long long y)
{
    char word[48];
    int n = snprintf(word, sizeof word, "%lld,%lld", x, y);
    for (const char *p = list; p != NULL && p + n <= list + len;) {
        if (strncmp(p, word, (size_t)n) == 0 && (p + n == list + len || p[n] == ' '))
            return true;
        p = memchr(p, ' ', (size_t)(list + len - p));
        p = p ? p + 1 : NULL;
    }
    return false;
}

static json_t *by_id(json_t *list, const char *id)
{
    size_t i;
    json_t *c;
    json_array_foreach(list, i, c)
    {
        if (strcmp(tb_text(c, "id"), id) == 0)
            return c;
    }
    return NULL;
}

/* (a) The frame's threatened squares against /threats, at event n. */
static void check_threats(struct enc *e, json_t *state, long long n, struct sweep *sw)
{
    char suffix[96];
    snprintf(suffix, sizeof suffix, "/threats?at=%lld", n);
    json_t *threats = get(e, suffix);
    char path[160];
    snprintf(path, sizeof path, "/v1/encounters/%s/map.svg?at=%lld&overlay=threatened", e->id, n);
    struct http_response r;
    http_request(&srv, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, 200, "%s: %d %s", path, r.status, r.body);
    json_t *cs = json_object_get(state, "combatants"), *c;
    size_t i;
    json_array_foreach(cs, i, c)
    {
        /* One square each: the fixtures' creatures are all Medium (a larger one would need its
         * whole space looked up). */
        const char *size = tb_text_or(c, "size", ""); /* absent: Medium */
        cr_assert(*size == '\0' || strcmp(size, "medium") == 0 || strcmp(size, "small") == 0,
                  "at %lld: %s is %s: the sweep reads one square a creature", n, tb_text(c, "id"),
                  size);
        json_t *t = by_id(json_object_get(threats, "combatants"), tb_text(c, "id"));
        cr_assert_not_null(t, "at %lld: /threats leaves out %s", n, tb_text(c, "id"));
        size_t j;
        json_t *other;
        json_array_foreach(cs, j, other)
        {
            const char *side = tb_text(other, "side");
            if (strcmp(side, tb_text(c, "side")) == 0)
                continue;
            /* Threatened by side `side`, as /threats says and as the frame shades it. */
            bool said = false;
            size_t k;
            json_t *by;
            json_array_foreach(json_object_get(t, "threatened_by"), k, by)
            {
                said |= strcmp(tb_text(by_id(cs, json_string_value(by)), "side"), side) == 0;
            }
            size_t len = 0;
            const char *list = side_squares(r.body, side, &len);
            bool shaded =
                list != NULL && lists_square(list, len, json_integer_value(json_object_get(c, "x")),
                                             json_integer_value(json_object_get(c, "y")));
            cr_assert_eq(shaded, said,
                         "at %lld: %s at %lld,%lld is %sthreatened by side %s on the frame, and "
                         "/threats says %s",
                         n, tb_text(c, "id"), json_integer_value(json_object_get(c, "x")),
                         json_integer_value(json_object_get(c, "y")), shaded ? "" : "not ", side,
                         json_dumps(t, JSON_COMPACT));
            sw->threatened_seen += said;
        }
    }
    http_response_free(&r);
    json_decref(threats);
}

/* The log's first n events, as an export of the encounter at version n. */
static json_t *log_upto(json_t *doc, long long n)
{
    json_t *events = json_array();
    for (long long i = 0; i < n; i++)
        json_array_append(events, json_array_get(json_object_get(doc, "events"), (size_t)i));
    return json_pack("{s:s, s:I, s:o}", "format", "tactics-encounter/1", "version", (json_int_t)n,
                     "events", events);
}

/* The move action a found route stands for: its steps as the path, its mode, a charge's
 * target, the route's end facing when it has one. */
static char *move_of(json_t *route, const char *actor, const char *mode, const char *target)
{
    json_t *path = json_array();
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(route, "steps"), i, s)
    {
        json_array_append_new(path, json_pack("{s:O, s:O}", "x", json_object_get(s, "x"), "y",
                                              json_object_get(s, "y")));
    }
    json_t *act = json_pack("{s:s, s:s, s:s, s:o}", "type", "move", "actor", actor, "mode", mode,
                            "path", path);
    if (strcmp(mode, "charge") == 0)
        json_object_set_new(act, "target", json_string(target));
    json_t *facing = json_object_get(json_object_get(route, "end"), "facing");
    if (json_is_integer(facing))
        json_object_set(act, "end_facing", facing);
    char *body = json_dumps(act, JSON_COMPACT);
    json_decref(act);
    return body;
}

/* (b) Each route the query calls legal for whoever's turn it is at n, posted on a copy of the
 * log up to n. */
static void check_routes(struct enc *e, json_t *doc, json_t *state, long long n, struct sweep *sw)
{
    const char *actor = json_string_value(json_object_get(state, "turn_of"));
    if (actor == NULL)
        return;
    sw->turns_swept++;
    json_t *me = by_id(json_object_get(state, "combatants"), actor);
    long long mx = json_integer_value(json_object_get(me, "x"));
    long long my = json_integer_value(json_object_get(me, "y"));
    json_t *map = json_object_get(state, "map");
    long long w = json_integer_value(json_object_get(map, "width"));
    long long h = json_integer_value(json_object_get(map, "height"));
    char to[32][64];
    const char *modes[32][4];
    int targets = 0;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(state, "combatants"), i, c)
    {
        if (strcmp(tb_text(c, "id"), actor) == 0 || targets == 28)
            continue;
        snprintf(to[targets], sizeof to[targets], "%s", tb_text(c, "id"));
        memcpy(modes[targets++], (const char *[]){"move", "double_move", "run", "charge"},
               sizeof modes[0]);
    }
    static const int offsets[4][2] = {{2, 0}, {0, -3}, {-6, 1}, {5, 5}};
    for (int k = 0; k < 4; k++) {
        long long x = mx + offsets[k][0], y = my + offsets[k][1];
        if (x < 0 || y < 0 || x >= w || y >= h)
            continue;
        snprintf(to[targets], sizeof to[targets], "%lld,%lld", x, y);
        memcpy(modes[targets++], (const char *[]){"move", "double_move", "run", NULL},
               sizeof modes[0]);
    }
    struct enc copy = {0};
    bool copied = false;
    for (int t = 0; t < targets; t++)
        for (int m = 0; m < 4 && modes[t][m] != NULL; m++) {
            char suffix[256];
            int len = snprintf(suffix, sizeof suffix, "/route?at=%lld&actor=%s&to=%s&mode=%s", n,
                               actor, to[t], modes[t][m]);
            cr_assert(len > 0 && (size_t)len < sizeof suffix);
            json_t *route = get(e, suffix);
            sw->routes_asked++;
            if (json_object_get(route, "refused") != NULL)
                sw->routes_refused++;
            if (!json_is_true(json_object_get(route, "found")) ||
                !json_is_true(json_object_get(route, "legal")) ||
                json_array_size(json_object_get(route, "steps")) == 0) {
                json_decref(route);
                continue;
            }
            if (!copied) {
                json_t *upto = log_upto(doc, n);
                enc_import(&srv, &copy, upto);
                json_decref(upto);
                copied = true;
            }
            char *body = move_of(route, actor, modes[t][m], to[t]);
            struct http_response r;
            char path[160], headers[256];
            snprintf(path, sizeof path, "/v1/encounters/%s/actions", copy.id);
            tb_write_headers(headers, sizeof headers, &copy, copy.version, "");
            http_request(&srv, "POST", path, headers, body, &r);
            cr_assert_eq(r.status, 200,
                         "at %lld: %s says \"%s\", but the action %s is refused: %d %s", n, suffix,
                         tb_text(route, "explain"), body, r.status, r.body);
            json_t *ans = json_loads(r.body, 0, NULL);
            copy.version = json_integer_value(json_object_get(ans, "version"));
            json_decref(ans);
            http_response_free(&r);
            json_decref(enc_call(&srv, &copy, "POST", "/undo", NULL, NULL, 200));
            sw->routes_legal++;
            free(body);
            json_decref(route);
        }
}

static void sweep(const char *fixture, struct sweep *sw)
{
    json_t *doc = load_fixture(fixture);
    struct enc e;
    enc_import(&srv, &e, doc);
    long long events = (long long)json_array_size(json_object_get(doc, "events"));
    for (long long n = 1; n <= events; n++) {
        char suffix[64];
        snprintf(suffix, sizeof suffix, "/state?at=%lld", n);
        json_t *at = get(&e, suffix);
        json_t *state = json_object_get(at, "state");
        check_threats(&e, state, n, sw);
        check_routes(&e, doc, state, n, sw);
        json_decref(at);
        sw->events++;
    }
    cr_log_info("%s: %d events, %d threatened checked, %d routes asked, %d legal and accepted, "
                "%d refused as the action refuses",
                fixture, sw->events, sw->threatened_seen, sw->routes_asked, sw->routes_legal,
                sw->routes_refused);
    json_decref(doc);
}

/* Sweeps the fixture log: exactly least->events events, and at least its other counts. */
static void sweep_expecting(const char *fixture, const struct sweep *least)
{
    struct sweep sw = {0};
    sweep(fixture, &sw);
    cr_assert_eq(sw.events, least->events, "%s", fixture);
    cr_assert_geq(sw.turns_swept, least->turns_swept, "%s", fixture);
    cr_assert_geq(sw.threatened_seen, least->threatened_seen, "%s", fixture);
    cr_assert_geq(sw.routes_legal, least->routes_legal, "%s", fixture);
    cr_assert_geq(sw.routes_refused, least->routes_refused, "%s: routes refused", fixture);
}

/* The engine 1 log: its routes are asked of engine 4's queries and posted under engine 4 (the
 * copy's new events), as a player continuing it would. The floors are what this build's sweep
 * of the log covers (its counts in the report), rounded down. */
Test(fixture_sweep, the_engine_1_log_agrees_at_every_event, .timeout = 240)
{
    /* Refused: the turns spent (double moves after an attack). */
    sweep_expecting("encounter_v1.json", &(struct sweep){.events = 20,
                                                         .turns_swept = 10,
                                                         .threatened_seen = 50,
                                                         .routes_legal = 100,
                                                         .routes_refused = 60});
}

Test(fixture_sweep, the_engine_3_log_agrees_at_every_event, .timeout = 240)
{
    /* Refused: spent turns, the dying, awaited reactions. */
    sweep_expecting("encounter_v3.json", &(struct sweep){.events = 58,
                                                         .turns_swept = 40,
                                                         .threatened_seen = 250,
                                                         .routes_legal = 400,
                                                         .routes_refused = 450});
}

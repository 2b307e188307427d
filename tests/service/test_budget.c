/* The hardening issue's item 5 (OWASP API4, unrestricted resource consumption): map
 * rectangles paint in time proportional to rectangles plus squares, every movement request
 * has work budgets answered by 422 too-expensive, --budget-scale raises them, and searches
 * beyond half the workers get 503 so that /healthz stays fast while heavy ones run.
 * What is asserted is work, not time: the server counts its work against each budget, so an
 * answer (200 within budget, 422 with the figure `reached` just past it) bounds the work done
 * whatever the machine's load. How long each takes, and /healthz's latency under eight heavy
 * clients, are measured by bench/budget.sh in Release. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

static struct server srv;

static void budget_stop(void)
{
    server_stop(&srv);
}

TestSuite(budget, .fini = budget_stop, .timeout = 120);

/* A growing string for request bodies too large to write out. */
struct text {
    char *s;
    size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        cr_assert(n >= 0);
        if (t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap ? 2 * t->cap + (size_t)n : 4096 + (size_t)n;
        t->s = realloc(t->s, t->cap);
        cr_assert_not_null(t->s);
    }
}

/* Asserts a 422 too-expensive problem naming `limit`, with the figure past the budget. */
static void assert_too_expensive(json_t *doc, const char *limit)
{
    cr_assert_str_eq(json_string_value(json_object_get(doc, "type")),
                     "tag:tactics.dev,2026:problem:too-expensive");
    cr_assert_str_eq(json_string_value(json_object_get(doc, "limit")), limit);
    json_int_t budget = json_integer_value(json_object_get(doc, "budget"));
    cr_assert(budget > 0);
    cr_assert(json_integer_value(json_object_get(doc, "reached")) > budget);
}

/* 16,600 rectangles each covering a 1,000 x 1,000 map (a 1 MB body): painted in order that
 * was 16.6 billion square writes (19.5 s in Release); painted latest first, skipping squares
 * already painted, it is one map's worth. The last rectangle wins: difficult terrain. The 200
 * shows the painting stayed within the map_squares budget (10 million, counted by the server). */
Test(budget, overlapping_rectangles_paint_each_square_once)
{
    server_start(&srv, NULL);
    struct text b = {0};
    put(&b, "{\"map\":{\"width\":1000,\"height\":1000,\"squares\":[");
    for (int i = 0; i < 16600; i++)
        put(&b, "%s{\"x\":0,\"y\":0,\"width\":1000,\"height\":1000,\"terrain\":\"%s\"}",
            i ? "," : "", i % 2 ? "difficult" : "clear");
    put(&b, "]},\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":30}},\"mode\":\"move\","
            "\"path\":[{\"x\":1,\"y\":0}]}");
    json_t *doc = http_post_json(&srv, "/v1/movement/path", b.s, 200);
    cr_assert_eq(json_integer_value(json_object_get(doc, "total_ft")), 10); /* difficult */
    json_decref(doc);
    free(b.s);
}

/* Each field is last-writer-wins on its own: a later rectangle setting only concealment
 * leaves the terrain an earlier one set, and a later one clearing concealment on part of the
 * map leaves the rest concealed. */
Test(budget, each_field_keeps_its_own_last_writer)
{
    server_start(&srv, NULL);
    const char *map = "\"map\":{\"width\":4,\"height\":1,\"squares\":["
                      "{\"x\":0,\"y\":0,\"width\":4,\"terrain\":\"blocked\"},"
                      "{\"x\":0,\"y\":0,\"width\":2,\"terrain\":\"clear\"},"
                      "{\"x\":0,\"y\":0,\"width\":4,\"concealed\":true},"
                      "{\"x\":0,\"y\":0,\"concealed\":false}]}";
    char body[1024];
    snprintf(body, sizeof body,
             "{%s,\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":30}},"
             "\"mode\":\"five_foot_step\",\"path\":[{\"x\":1,\"y\":0}]}",
             map);
    json_t *doc = http_post_json(&srv, "/v1/movement/path", body, 200);
    json_t *v = json_array_get(json_object_get(doc, "violations"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(v, "code")), "step_into_concealed");
    cr_assert_eq(json_array_size(json_object_get(doc, "violations")), 1);
    json_decref(doc);
    snprintf(body, sizeof body,
             "{%s,\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":30}},"
             "\"mode\":\"move\",\"path\":[{\"x\":1,\"y\":0},{\"x\":2,\"y\":0}]}",
             map);
    doc = http_post_json(&srv, "/v1/movement/path", body, 200);
    v = json_array_get(json_object_get(doc, "violations"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(v, "code")), "blocked");
    cr_assert_eq(json_integer_value(json_object_get(v, "step")), 1);
    json_decref(doc);
}

/* The heaviest documented request: a run over a whole 1,000 x 1,000 map with facing (16
 * million states; it was 12 s of CPU and a 108 MB answer). Refused at once by the search
 * budget, with or without the fewest-attacks search. */
Test(budget, reach_with_facing_over_the_largest_map_is_refused_at_once)
{
    server_start(&srv, NULL);
    const char *prefer[] = {"cost", "fewest_attacks"};
    for (int i = 0; i < 2; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"map\":{\"width\":1000,"
                 "\"height\":1000},\"mover\":{\"x\":500,\"y\":500,\"facing\":0,\"speeds\":"
                 "{\"walk\":10000}},\"mode\":\"run\",\"prefer\":\"%s\"}",
                 prefer[i]);
        json_t *doc = http_post_json(&srv, "/v1/movement/reach", body, 422);
        assert_too_expensive(doc, "search_states");
        json_decref(doc);
    }
}

/* A body of 2,000 creatures on a 1,000 x 1,000 map, the mover running at 10,000 ft. */
static char *crowd(bool facing)
{
    struct text b = {0};
    put(&b,
        "{\"rules\":{\"preset\":\"%s\"},\"map\":{\"width\":1000,\"height\":1000},"
        "\"creatures\":[",
        facing ? "d20-3.5-facing" : "d20-3.5");
    for (int i = 0; i < 2000; i++)
        put(&b, "%s{\"id\":\"e%d\",\"x\":%d,\"y\":%d}", i ? "," : "", i, (i * 37) % 1000,
            (i * 7919) % 997);
    put(&b,
        "],\"mover\":{\"x\":500,\"y\":500,%s\"speeds\":{\"walk\":10000}},\"mode\":\"run\","
        "\"prefer\":\"fewest_attacks\"}",
        facing ? "\"facing\":0," : "");
    return b.s;
}

/* The fewest-attacks search among 2,000 creatures (layer after layer of the whole map):
 * refused (in 0.1 and 0.6 s in Release: bench/budget.sh, against the 2 s the issue allows). With
 * facing, by the search budget before it starts; without, its layers are held to 32 MB (two of
 * the whole map), so the search fits and its answer, a million squares, does not. */
Test(budget, fewest_attacks_among_2000_creatures_is_refused)
{
    server_start(&srv, NULL);
    for (int facing = 1; facing >= 0; facing--) {
        char *body = crowd(facing);
        json_t *doc = http_post_json(&srv, "/v1/movement/reach", body, 422);
        assert_too_expensive(doc, facing ? "search_states" : "answer_bytes");
        json_decref(doc);
        free(body);
    }
}

/* A reach without facing over the whole map fits the search budget but its answer (a
 * million squares, ~70 MB) does not fit the answer budget. */
Test(budget, an_answer_past_its_budget_is_refused)
{
    server_start(&srv, NULL);
    json_t *doc = http_post_json(&srv, "/v1/movement/reach",
                                 "{\"map\":{\"width\":1000,\"height\":1000},\"mover\":{\"x\":500,"
                                 "\"y\":500,\"speeds\":{\"walk\":10000}},\"mode\":\"run\"}",
                                 422);
    assert_too_expensive(doc, "answer_bytes");
    json_decref(doc);
}

/* A reach with facing and a run of 40,000 ft on a 750 x 750 map sets up 9 million states
 * (over the default budget of 8 million, within twice it), though walls keep the mover in
 * a 10 x 10 room. */
static const char reach_750[] =
    "{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"map\":{\"width\":750,\"height\":750,"
    "\"squares\":[{\"x\":0,\"y\":0,\"width\":750,\"height\":750,\"terrain\":\"blocked\"},"
    "{\"x\":0,\"y\":0,\"width\":10,\"height\":10,\"terrain\":\"clear\"}]},"
    "\"mover\":{\"x\":0,\"y\":0,\"facing\":0,\"speeds\":{\"walk\":10000}},\"mode\":\"run\"}";

Test(budget, the_default_budget_refuses_a_large_window)
{
    server_start(&srv, NULL);
    json_t *doc = http_post_json(&srv, "/v1/movement/reach", reach_750, 422);
    assert_too_expensive(doc, "search_states");
    cr_assert_eq(json_integer_value(json_object_get(doc, "budget")), 8000000);
    json_decref(doc);
}

Test(budget, budget_scale_raises_every_budget)
{
    const char *const args[] = {"--budget-scale", "2", NULL};
    server_start(&srv, args);
    json_t *doc = http_post_json(&srv, "/v1/movement/reach", reach_750, 200);
    cr_assert_eq(json_integer_value(json_object_get(doc, "count")), 99);
    json_decref(doc);
}

/* A route to a walled-off square searches the whole 400 x 400 map: a search that holds its
 * place for a while (about 2 s under ASan) and answers little. */
static const char route_nowhere[] =
    "{\"map\":{\"width\":400,\"height\":400,\"squares\":[{\"x\":397,\"y\":0,\"width\":1,"
    "\"height\":400,\"terrain\":\"blocked\"}]},\"mover\":{\"x\":0,\"y\":0,\"speeds\":"
    "{\"walk\":30}},\"mode\":\"move\",\"target\":{\"x\":399,\"y\":399}}";

enum { HEAVY = 8 };

/* One heavy client: waits at the barrier for the seven others, then connects and sends its
 * route, so that the eight reach the server together, however the machine schedules the
 * threads. (Connected before the barrier instead, the eight are accepted while every worker is
 * free, a few workers take several each, and a worker runs its connections one after another:
 * the searches then never meet.) */
struct heavy {
    pthread_barrier_t *ready;
    struct http_response r;
};

static void *post_route(void *arg)
{
    struct heavy *h = arg;
    pthread_barrier_wait(h->ready);
    http_request(&srv, "POST", "/v1/movement/route", "Content-Type: application/json\r\n",
                 route_nowhere, &h->r);
    return NULL;
}

/* Eight searches at once on four workers: at most two run, the others are answered 503 with
 * Retry-After at once, and /healthz is answered all the while (before: every worker was inside a
 * search and /healthz waited for one to finish; its latency under eight heavy clients is
 * bench/budget.sh's). The eight are sent together (a barrier), so they meet in the server even
 * on a loaded machine; a round where none had to wait is tried again, up to ten rounds; a
 * server without the gate never answers 503 and fails all ten. */
Test(budget, searches_past_half_the_workers_get_503_and_healthz_stays_fast)
{
    const char *const args[] = {"--threads", "4", NULL};
    server_start(&srv, args);
    int ok = 0, busy = 0;
    for (int round = 0; round < 10 && busy < 2; round++) {
        pthread_barrier_t ready;
        pthread_barrier_init(&ready, NULL, HEAVY);
        pthread_t th[HEAVY];
        struct heavy hs[HEAVY];
        for (int i = 0; i < HEAVY; i++) {
            hs[i].ready = &ready;
            cr_assert_eq(pthread_create(&th[i], NULL, post_route, &hs[i]), 0);
        }
        for (int i = 0; i < 5; i++) {
            struct http_response h;
            http_request(&srv, "GET", "/healthz", NULL, NULL, &h);
            cr_assert_eq(h.status, 200);
            http_response_free(&h);
        }
        ok = busy = 0;
        for (int i = 0; i < HEAVY; i++) {
            pthread_join(th[i], NULL);
            struct http_response *r = &hs[i].r;
            if (r->status == 200) {
                ok++;
            } else {
                cr_assert_eq(r->status, 503, "status %d: %s", r->status, r->body);
                char retry[16];
                cr_assert(http_header(r, "Retry-After", retry, sizeof retry));
                cr_assert_str_eq(retry, "1");
                busy++;
            }
            http_response_free(r);
        }
        pthread_barrier_destroy(&ready);
    }
    cr_assert(ok >= 1 && ok <= HEAVY - 2, "%d answered, %d busy", ok, busy);
    cr_assert(busy >= 2, "%d answered, %d busy", ok, busy);
}

/* ---- costs no request may buy (issue 28): estimated from the request, refused before ---- */

/* 2,000 Colossal creatures of reach 1,000 ft over the largest map, as a body. */
static char *giants(const char *tail)
{
    struct text b = {0};
    put(&b, "{\"map\":{\"width\":1000,\"height\":1000},\"creatures\":[");
    for (int i = 0; i < 2000; i++)
        put(&b, "%s{\"id\":\"g%d\",\"x\":%d,\"y\":%d,\"size\":\"colossal\",\"reach_ft\":1000}",
            i ? "," : "", i, (i % 166) * 6, (i / 166) * 80);
    put(&b, "],%s}", tail);
    return b.s;
}

/* The threatened overlay of 2,000 creatures of long reach, and a fewest-attacks reach among
 * them: each refused by the squares it would test for a threat, counted from the body before
 * the first (before: 4 to 19 s of CPU and up to 770 MB, then refused by search_states). */
Test(budget, a_crowd_of_long_reach_is_refused_from_its_estimate)
{
    server_start(&srv, NULL);
    char *body = giants("\"overlays\":{\"threatened\":true}");
    json_t *doc = http_post_json(&srv, "/v1/render?format=svg", body, 422);
    assert_too_expensive(doc, "threatened_squares");
    cr_assert_eq(json_integer_value(json_object_get(doc, "budget")), 16000000);
    json_decref(doc);
    free(body);
    body = giants("\"mover\":{\"x\":999,\"y\":999,\"speeds\":{\"walk\":10000}},\"mode\":\"run\","
                  "\"prefer\":\"fewest_attacks\"");
    doc = http_post_json(&srv, "/v1/movement/reach", body, 422);
    assert_too_expensive(doc, "threatened_squares");
    json_decref(doc);
    free(body);
}

/* An SVG of 100,000 squares of a spell's area, two shapes each (21 MB of text): refused by the
 * answer budget as its text reaches it, not after (before: answered whole, 72.8 MiB for the
 * issue's 184 KB body). */
Test(budget, a_picture_stops_at_its_answer_budget)
{
    const char *const args[] = {"--max-body", "4194304", NULL};
    server_start(&srv, args);
    struct text b = {0};
    put(&b, "{\"map\":{\"width\":400,\"height\":250},\"overlays\":{\"area\":[");
    for (int i = 0; i < 100000; i++)
        put(&b, "%s{\"x\":%d,\"y\":%d}", i ? "," : "", i % 400, i / 400);
    put(&b, "]}}");
    json_t *doc = http_post_json(&srv, "/v1/render?format=svg", b.s, 422);
    assert_too_expensive(doc, "answer_bytes");
    json_int_t budget = json_integer_value(json_object_get(doc, "budget"));
    cr_assert_eq(budget, 16 << 20);
    cr_assert_lt(json_integer_value(json_object_get(doc, "reached")), budget + 4096);
    json_decref(doc);
    free(b.s);
}

/* n Medium combatants of reach 1,000 ft on a 1,000 x 1,000 map, each 202 squares or more from
 * its edges, so that each one's reach box (405 x 405 squares) lies on it: 2 x 164,025 tests a
 * combatant. `extra` (may be empty) comes after them. */
static char *long_reach_board(int n, const char *extra)
{
    struct text b = {0};
    put(&b, "{\"map\":{\"width\":1000,\"height\":1000},\"combatants\":[");
    for (int i = 0; i < n; i++)
        put(&b,
            "%s{\"id\":\"c%d\",\"side\":\"%s\",\"x\":%d,\"y\":%d,\"reach_ft\":1000,\"speeds\":"
            "{\"walk\":10000},\"defense\":{},\"max_hp\":9,\"dex\":10}",
            i ? "," : "", i, i % 2 ? "b" : "a", 210 + (i % 20) * 29, 210 + (i / 20) * 29);
    put(&b, "%s]}", extra);
    return b.s;
}

/* A board's queries cost, at most, its combatants' reach boxes on the map: create and every
 * write that adds a combatant or changes one refuse a board past the threatened_squares budget,
 * once, rather than every anonymous read after. 48 combatants of reach 1,000 ft fit (15.7
 * million tests); a 49th, or one of reach 5 ft raised to 1,000, does not (16.07 million). */
Test(budget, a_board_whose_queries_would_be_past_the_budget_is_refused)
{
    server_start(&srv, NULL);
    char *body = long_reach_board(100, "");
    json_t *doc = http_post_json(&srv, "/v1/encounters", body, 422);
    assert_too_expensive(doc, "threatened_squares");
    cr_assert_eq(json_integer_value(json_object_get(doc, "reached")), 2LL * 100 * 164025);
    json_decref(doc);
    free(body);
    body =
        long_reach_board(48, ",{\"id\":\"s\",\"side\":\"b\",\"x\":5,\"y\":5,\"speeds\":{\"walk\":"
                             "30},\"defense\":{},\"max_hp\":9,\"dex\":10}");
    struct enc e;
    enc_create(&srv, &e, body);
    free(body);
    doc = enc_call(&srv, &e, "POST", "/combatants", NULL,
                   "{\"id\":\"c48\",\"side\":\"a\",\"x\":700,\"y\":700,\"reach_ft\":1000,"
                   "\"speeds\":{\"walk\":30},\"defense\":{},\"max_hp\":9,\"dex\":10}",
                   422);
    assert_too_expensive(doc, "threatened_squares");
    /* 49 boxes, and the small one's: its space and 2 squares around, 7 x 7 (on the map). */
    cr_assert_eq(json_integer_value(json_object_get(doc, "reached")), 2LL * (49 * 164025 + 49));
    json_decref(doc);
    doc = enc_call(&srv, &e, "PATCH", "/combatants/s", NULL, "{\"reach_ft\":1000}", 422);
    assert_too_expensive(doc, "threatened_squares");
    json_decref(doc);
    doc = enc_call(&srv, &e, "PATCH", "/combatants/s", NULL, "{\"reach_ft\":10}", 200);
    json_decref(doc);
}

/* A board stored under a larger budget (--budget-scale 4), read by a server with the default
 * one: a read past its budget is refused from its estimate, the figure reached being what the
 * read would have tested, nothing it did (before: the reach set up the threats of the whole
 * map and searched it, on every request). */
Test(budget, reads_of_a_board_past_a_lowered_budget_are_refused_before_the_work)
{
    const char *const big[] = {"--budget-scale", "4", NULL};
    server_start(&srv, big);
    char *body = long_reach_board(100, "");
    struct enc e;
    enc_create(&srv, &e, body);
    free(body);
    struct server plain;
    const char *const same_db[] = {"--db", srv.db_path, NULL};
    server_start(&plain, same_db);
    char path[160];
    /* c0's enemies are the 50 of side b, each testing its whole box: 2 x 50 x 164,025. */
    snprintf(path, sizeof path, "/v1/encounters/%s/reach?actor=c0&mode=run", e.id);
    struct http_response r;
    http_request(&plain, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, 422, "%s", r.body);
    json_t *doc = json_loads(r.body, 0, NULL);
    assert_too_expensive(doc, "threatened_squares");
    cr_assert_eq(json_integer_value(json_object_get(doc, "reached")), 2LL * 50 * 164025);
    json_decref(doc);
    http_response_free(&r);
    /* The picture tests the boxes within its view only, the combatants' corner of the map and
     * a margin: that fits, and it is drawn. */
    snprintf(path, sizeof path, "/v1/encounters/%s/map.png?overlay=threatened", e.id);
    http_request(&plain, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_response_free(&r);
    /* Its export, imported there, is refused as create would refuse it. */
    json_t *exported = enc_call(&srv, &e, "GET", "/export", NULL, NULL, 200);
    char *text = json_dumps(exported, JSON_COMPACT);
    doc = http_post_json(&plain, "/v1/encounters/import", text, 422);
    assert_too_expensive(doc, "threatened_squares");
    cr_assert_eq(json_integer_value(json_object_get(doc, "reached")), 2LL * 100 * 164025);
    json_decref(doc);
    free(text);
    json_decref(exported);
    server_stop(&plain);
}

/* The value of a metric without labels on /metrics, or -1 when it is missing. */
static long long metric(const char *name)
{
    return tb_metric(&srv, name);
}

/* A read of a stored board refused too-expensive after its work (a run over the whole map: the
 * search fits, its million squares do not) is refused again from the first refusal, not the
 * work (issue 28: "a 422 on a stored board's read is computed again on every request"): the
 * same problem, counted by tactics_refusals_replayed_total. After a new event it is a read of
 * another board, ruled again. */
Test(budget, a_refused_read_of_a_stored_board_is_not_ruled_again)
{
    server_start(&srv, NULL);
    struct enc e;
    enc_create(&srv, &e,
               "{\"map\":{\"width\":1000,\"height\":1000},\"combatants\":[{\"id\":\"a\",\"side\":"
               "\"p\",\"x\":500,\"y\":500,\"speeds\":{\"walk\":10000},\"defense\":{},\"max_hp\":9,"
               "\"dex\":10}]}");
    char path[160];
    snprintf(path, sizeof path, "/v1/encounters/%s/reach?actor=a&mode=run", e.id);
    struct http_response first, again;
    http_request(&srv, "GET", path, NULL, NULL, &first);
    cr_assert_eq(first.status, 422, "%s", first.body);
    json_t *doc = json_loads(first.body, 0, NULL);
    assert_too_expensive(doc, "answer_bytes");
    json_decref(doc);
    cr_assert_eq(metric("tactics_refusals_replayed_total"), 0);
    http_request(&srv, "GET", path, NULL, NULL, &again);
    cr_assert_eq(again.status, 422);
    cr_assert_str_eq(again.body, first.body);
    cr_assert_eq(metric("tactics_refusals_replayed_total"), 1);
    http_response_free(&again);
    json_decref(enc_call(&srv, &e, "POST", "/hp", NULL, "{\"target\":\"a\",\"set\":5}", 200));
    http_request(&srv, "GET", path, NULL, NULL, &again);
    cr_assert_eq(again.status, 422);
    cr_assert_eq(metric("tactics_refusals_replayed_total"), 1, "a new board is ruled again");
    http_response_free(&again);
    http_response_free(&first);
    /* A picture too: a 4,096-pixel PNG of the whole map, whose canvas (twice its 16.8 million
     * pixels) is past the pixels budget before it is made. */
    snprintf(path, sizeof path, "/v1/encounters/%s/map.png?size=4096", e.id);
    for (int i = 0; i < 2; i++) {
        http_request(&srv, "GET", path, NULL, NULL, &again);
        cr_assert_eq(again.status, 422, "%s", again.body);
        doc = json_loads(again.body, 0, NULL);
        assert_too_expensive(doc, "pixels");
        json_decref(doc);
        http_response_free(&again);
    }
    cr_assert_eq(metric("tactics_refusals_replayed_total"), 2);
}

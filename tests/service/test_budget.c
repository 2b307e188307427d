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

#include "harness.h"

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
 * refused by the search budget (in 0.1 and 0.6 s in Release: bench/budget.sh, against the 2 s
 * the issue allows). */
Test(budget, fewest_attacks_among_2000_creatures_is_refused)
{
    server_start(&srv, NULL);
    for (int facing = 1; facing >= 0; facing--) {
        char *body = crowd(facing);
        json_t *doc = http_post_json(&srv, "/v1/movement/reach", body, 422);
        assert_too_expensive(doc, "search_states");
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

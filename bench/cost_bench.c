/* The cost model's calibration (issue 28): what one unit of each work budget costs on this
 * machine, in process (no HTTP). For each kind of work it runs a request shape that is mostly
 * that work, reads the units the request charged to its budget (rules_work, render_budget),
 * and prints the median time of RUNS runs over the units: nanoseconds per unit, and the time a
 * request spending the whole of that budget would take (the budget times ns/unit). Each unit
 * should cost about the same whatever the shape, and a whole budget well under the issue's
 * 0.5 s of CPU a request; service/api/movement.c's NS_PER_* (the gate's predicted cost) are
 * these figures rounded up.
 *   states: a reach run over an open map (a square mover without facing: the fast loop), with
 *           000's facing (8 facings a square), with a Colossal mover (priced square by square,
 *           rules_move_expand_units a state) and on hexes; the fewest-attacks search among
 *           2,000 creatures; a route across an open map and with a Colossal mover;
 *   threatened squares: a path across the whole map among 200 creatures of reach 250 ft, less
 *           the same path without them (setting up the window);
 *   pixels: a PNG of an empty 100 x 100 board at 1024 and 2048 pixels a side, and of the
 *           threatened overlay of 500 creatures (a shape per run of threatened squares);
 *   answer bytes: the same pictures as SVG.
 * Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID): other work on the machine does not
 * count, as a request's CPU time does not.
 * Usage: cost_bench [runs]  (Release build: make build, then build/release/bench/cost_bench) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/stats.h"
#include "render/render.h"
#include "rules/options.h"
#include "rules/rules.h"
#include "service/http/config.h"

static int RUNS = 5;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void row(const char *kind, const char *shape, long long units, double secs, long long budget)
{
    double ns = units > 0 ? secs * 1e9 / (double)units : 0;
    printf("  %-18s %-44s %11lld units %8.1f ms %6.1f ns/unit  whole budget %5.2f s\n", kind, shape,
           units, secs * 1e3, ns, ns * (double)budget / 1e9);
}

/* ---- searches ---- */

struct board {
    struct rules_options o;
    struct rules_map map;
    struct rules_map_creature *cs;
    int n;
    struct rules_mover m;
};

static void board(struct board *b, const char *preset, int w, int h)
{
    memset(b, 0, sizeof *b);
    if (rules_preset_apply(preset, &b->o) != 0 || rules_map_init(&b->map, w, h) != 0)
        exit(1);
    b->cs = calloc(2001, sizeof *b->cs);
}

static void mover(struct board *b, enum rules_size size, int x, int y, int walk)
{
    rules_creature_init(&b->m.c, size, x, y, 0);
    b->m.speed[RULES_MOVE_WALK] = walk;
    b->m.constitution = 10;
}

static void enemy(struct board *b, enum rules_size size, int x, int y, int reach_ft)
{
    struct rules_map_creature *k = &b->cs[b->n++];
    rules_creature_init(&k->c, size, x, y, 0);
    k->c.reach_ft = reach_ft;
    k->conscious = true;
}

static void board_free(struct board *b)
{
    rules_map_free(&b->map);
    free(b->cs);
}

static struct rules_move_query query(struct board *b, enum rules_move_mode mode,
                                     struct rules_work *w)
{
    return (struct rules_move_query){.o = &b->o,
                                     .map = &b->map,
                                     .creatures = b->cs,
                                     .creature_count = b->n,
                                     .mover = &b->m,
                                     .mode = mode,
                                     .primary_target = -1,
                                     .work = w};
}

static void reach(const char *shape, struct board *b, enum rules_move_mode mode, bool fewest)
{
    double t[64];
    long long units = 0;
    for (int i = 0; i < RUNS; i++) {
        struct rules_work w = {0};
        struct rules_move_query q = query(b, mode, &w);
        struct rules_reach *r = NULL;
        double t0 = now_s();
        int rc = rules_move_reach(&q, fewest, &r);
        t[i] = now_s() - t0;
        rules_reach_free(r);
        if (rc != RULES_MOVE_OK)
            exit(2);
        units = w.used;
    }
    row("search_states", shape, units, bench_median(t, RUNS), SVC_BUDGET_SEARCH_STATES);
}

static void route(const char *shape, struct board *b, int gx, int gy)
{
    double t[64];
    long long units = 0;
    struct rules_step *steps = calloc(4000000, sizeof *steps);
    for (int i = 0; i < RUNS; i++) {
        struct rules_work w = {0};
        struct rules_move_query q = query(b, RULES_MODE_MOVE, &w);
        struct rules_route_goal g = {.x = gx, .y = gy, .creature = -1};
        int cost = 0;
        double t0 = now_s();
        int n = rules_move_route(&q, &g, steps, 4000000, &cost);
        t[i] = now_s() - t0;
        if (n < -1)
            exit(3);
        units = w.used;
    }
    free(steps);
    row("search_states", shape, units, bench_median(t, RUNS), SVC_BUDGET_SEARCH_STATES);
}

/* A path from corner to corner: its window is the whole map. */
static double path_time(struct board *b, long long *tests)
{
    int n = b->map.width - 1;
    struct rules_step *steps = calloc((size_t)n, sizeof *steps);
    struct rules_step_result *res = calloc((size_t)n, sizeof *res);
    struct rules_aoo *aoos = calloc((size_t)b->n + 1, sizeof *aoos);
    for (int i = 0; i < n; i++)
        steps[i] = (struct rules_step){i + 1, i + 1, -1};
    double t[64];
    for (int i = 0; i < RUNS; i++) {
        struct rules_work w = {0};
        struct rules_move_query q = query(b, RULES_MODE_MOVE, &w);
        struct rules_path_result p = {.steps = res, .aoos = aoos};
        double t0 = now_s();
        rules_move_path(&q, steps, n, -1, &p);
        t[i] = now_s() - t0;
        *tests = w.threat_used;
    }
    free(steps);
    free(res);
    free(aoos);
    return bench_median(t, RUNS);
}

static void searches(void)
{
    struct board b;
    board(&b, "d20-3.5", 700, 700);
    mover(&b, RULES_SIZE_MEDIUM, 350, 350, 10000);
    reach("reach, run over 700 x 700", &b, RULES_MODE_RUN, false);
    board_free(&b);
    board(&b, "d20-3.5-facing", 300, 300);
    mover(&b, RULES_SIZE_MEDIUM, 150, 150, 10000);
    reach("reach with facing, 300 x 300", &b, RULES_MODE_RUN, false);
    board_free(&b);
    board(&b, "d20-3.5", 300, 300);
    mover(&b, RULES_SIZE_COLOSSAL, 150, 150, 10000);
    reach("reach, Colossal mover, 300 x 300", &b, RULES_MODE_RUN, false);
    board_free(&b);
    board(&b, "d20-3.5", 400, 400);
    b.o.grid = RULES_GRID_HEX;
    mover(&b, RULES_SIZE_MEDIUM, 200, 200, 10000);
    reach("reach on hexes, 400 x 400", &b, RULES_MODE_RUN, false);
    board_free(&b);
    board(&b, "d20-3.5", 700, 700);
    mover(&b, RULES_SIZE_MEDIUM, 350, 350, 10000);
    for (int i = 0; i < 2000; i++)
        enemy(&b, RULES_SIZE_MEDIUM, (i * 37) % 700, (i * 7919) % 697, 10);
    reach("reach fewest attacks among 2,000, 700 x 700", &b, RULES_MODE_RUN, true);
    board_free(&b);
    board(&b, "d20-3.5", 1000, 1000);
    mover(&b, RULES_SIZE_MEDIUM, 0, 0, 30);
    b.map.terrain[(size_t)999 * 1000 + 998] = RULES_MAP_BLOCKED; /* a walled-off goal */
    b.map.terrain[(size_t)998 * 1000 + 998] = RULES_MAP_BLOCKED;
    b.map.terrain[(size_t)998 * 1000 + 999] = RULES_MAP_BLOCKED;
    route("route to a walled-off square, 1,000 x 1,000", &b, 999, 999);
    board_free(&b);
    board(&b, "d20-3.5", 300, 300);
    mover(&b, RULES_SIZE_COLOSSAL, 0, 0, 30);
    for (int y = 0; y < 300; y++) /* a wall around the goal's corner */
        b.map.terrain[(size_t)y * 300 + 280] =
            (uint8_t)(y < 290 ? RULES_MAP_CLEAR : RULES_MAP_BLOCKED);
    for (int x = 280; x < 300; x++)
        b.map.terrain[(size_t)289 * 300 + (size_t)x] = RULES_MAP_BLOCKED;
    route("route, Colossal mover, walled off, 300 x 300", &b, 290, 290);
    board_free(&b);
}

static void threats(void)
{
    struct board b;
    board(&b, "d20-3.5", 1000, 1000);
    mover(&b, RULES_SIZE_MEDIUM, 0, 0, 30);
    long long none = 0, tests = 0;
    double bare = path_time(&b, &none);
    for (int i = 0; i < 200; i++)
        enemy(&b, RULES_SIZE_MEDIUM, 20 + (i % 14) * 70, 20 + (i / 14) * 70, 250);
    double with = path_time(&b, &tests);
    row("threatened_squares", "path across 1,000 x 1,000, 200 of reach 250", tests, with - bare,
        SVC_BUDGET_THREAT_SQUARES);
    board_free(&b);
}

/* ---- pictures ---- */

struct picture {
    struct rules_options o;
    struct rules_map map;
    struct render_creature *cs;
    int n;
    const char *sides[2];
    struct render_scene s;
};

static void picture(struct picture *p, int w, int h, int size)
{
    memset(p, 0, sizeof *p);
    if (rules_preset_apply(RULES_DEFAULT_PRESET, &p->o) != 0 || rules_map_init(&p->map, w, h))
        exit(1);
    p->cs = calloc(1000, sizeof *p->cs);
    p->sides[0] = "ally", p->sides[1] = "enemy";
    p->s = (struct render_scene){
        .o = &p->o,
        .map = &p->map,
        .creatures = p->cs,
        .side_names = p->sides,
        .side_count = 2,
        .mover = -1,
        .focus = -1,
        .ov = {.facing_of = -1, .forced_creature = -1, .path_end_facing = -1, .legend = true},
        .max_width = size,
        .max_height = size};
}

static void creature(struct picture *p, int side, int x, int y, int reach_ft)
{
    struct render_creature *k = &p->cs[p->n++];
    k->id = "c";
    k->label = "C";
    k->side = side;
    rules_creature_init(&k->mc.c, RULES_SIZE_MEDIUM, x, y, 0);
    k->mc.c.reach_ft = reach_ft;
    k->mc.conscious = true;
    p->s.creature_count = p->n;
}

static void draw(const char *shape, struct picture *p, enum render_format f)
{
    double t[64];
    struct render_budget b = {0};
    for (int i = 0; i < RUNS; i++) {
        struct rules_work w = {0};
        b = (struct render_budget){0};
        p->s.work = &w;
        p->s.budget = &b;
        struct render_image img;
        double t0 = now_s();
        int rc = render_draw(&p->s, f, &img);
        t[i] = now_s() - t0;
        if (rc != RENDER_OK)
            exit(4);
        if (f == RENDER_PNG)
            b.bytes = (long long)img.len;
        render_image_free(&img);
    }
    if (f == RENDER_PNG)
        row("pixels", shape, b.pixels, bench_median(t, RUNS), SVC_BUDGET_PIXELS);
    else
        row("answer_bytes", shape, b.bytes, bench_median(t, RUNS), SVC_BUDGET_ANSWER_BYTES);
}

static void pictures(void)
{
    struct picture p;
    for (int f = RENDER_PNG; f <= RENDER_SVG; f++) {
        const char *ext = f == RENDER_PNG ? "PNG" : "SVG";
        char shape[96];
        for (int size = 1024; size <= 2048; size *= 2) {
            picture(&p, 100, 100, size);
            snprintf(shape, sizeof shape, "%s, empty 100 x 100 at %d px", ext, size);
            draw(shape, &p, (enum render_format)f);
            rules_map_free(&p.map);
            free(p.cs);
        }
        picture(&p, 150, 150, 2048);
        p.s.ov.threatened = true;
        for (int i = 0; i < 500; i++)
            creature(&p, i % 2, (i * 37) % 150, (i * 71) % 149, 15);
        snprintf(shape, sizeof shape, "%s, threatened by 500, 150 x 150 at 2048 px", ext);
        draw(shape, &p, (enum render_format)f);
        rules_map_free(&p.map);
        free(p.cs);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        RUNS = atoi(argv[1]) > 0 && atoi(argv[1]) <= 64 ? atoi(argv[1]) : RUNS;
    printf("cost per unit of each budget, median of %d runs (whole budget: the budget's "
           "default times ns/unit)\n",
           RUNS);
    searches();
    threats();
    pictures();
    render_release_caches();
    return 0;
}

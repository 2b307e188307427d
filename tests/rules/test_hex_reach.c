/* Hex reach against a plain breadth-first search over hexes (000 Hex Grid: "Characters simply
 * move from hex to adjacent hex"; 001 Blocked Terrain). On clear and blocked hexes every step
 * costs 5 ft, so the squares a reach search finds, and their prices, must be exactly those a
 * BFS finds within the budget. The maps are every small size, where the map's edge cuts the
 * search window, and random ones. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/move/move.h"

/* A small deterministic generator, so that a failure reproduces. */
static uint32_t next_rand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static struct rules_options hex_rules(void)
{
    struct rules_options o;
    cr_assert_eq(rules_preset_apply("d20-3.5", &o), RULES_OPTION_OK);
    cr_assert_eq(rules_option_set(&o, "grid", true, "hex", 0), RULES_OPTION_OK);
    return o;
}

/* Hex steps from (x0, y0) to every hex of the map through unblocked ones; -1 unreached. */
static void bfs(const struct rules_map *m, int x0, int y0, int *steps)
{
    size_t n = (size_t)m->width * (size_t)m->height;
    int *queue = malloc(n * sizeof *queue);
    cr_assert_not_null(queue);
    for (size_t i = 0; i < n; i++)
        steps[i] = -1;
    size_t head = 0, tail = 0;
    steps[y0 * m->width + x0] = 0;
    queue[tail++] = y0 * m->width + x0;
    while (head < tail) {
        int cell = queue[head++], x = cell % m->width, y = cell / m->width;
        for (int d = 0; d < 6; d++) {
            int tx = x + rules_hex_dirs[d][0], ty = y + rules_hex_dirs[d][1];
            if (tx < 0 || ty < 0 || tx >= m->width || ty >= m->height)
                continue;
            int t = ty * m->width + tx;
            if (steps[t] >= 0 || m->terrain[t] == RULES_MAP_BLOCKED)
                continue;
            steps[t] = steps[cell] + 1;
            queue[tail++] = t;
        }
    }
    free(queue);
}

/* Runs the reach search from (x, y) and checks it against the BFS: the same hexes, each at
 * 5 ft a step, and nothing beyond the budget. */
static void check_against_bfs(const struct rules_options *o, const struct rules_map *map, int x,
                              int y, int walk, enum rules_move_mode mode, bool fewest_aoo)
{
    struct rules_mover m = {.constitution = 12};
    rules_creature_init(&m.c, RULES_SIZE_MEDIUM, x, y, 0);
    rules_creature_on_hexes(&m.c, 0);
    m.speed[RULES_MOVE_WALK] = walk;
    struct rules_move_query q = {
        .o = o, .map = map, .mover = &m, .mode = mode, .primary_target = -1};
    int budget = mode == RULES_MODE_DOUBLE ? 2 * walk : walk;
    size_t n = (size_t)map->width * (size_t)map->height;
    int *steps = malloc(n * sizeof *steps);
    char *seen = calloc(n, 1);
    cr_assert(steps != NULL && seen != NULL);
    bfs(map, x, y, steps);
    struct rules_reach *r;
    cr_assert_eq(rules_move_reach(&q, fewest_aoo, &r), RULES_MOVE_OK);
    for (int i = 0; i < rules_reach_count(r); i++) {
        struct rules_reach_square s;
        rules_reach_get(r, i, &s);
        cr_assert(s.x >= 0 && s.y >= 0 && s.x < map->width && s.y < map->height,
                  "%dx%d from (%d,%d): (%d,%d) is off the map", map->width, map->height, x, y, s.x,
                  s.y);
        int cell = s.y * map->width + s.x;
        cr_assert_eq(seen[cell], 0, "(%d,%d) reported twice", s.x, s.y);
        seen[cell] = 1;
        cr_assert(steps[cell] > 0, "%dx%d from (%d,%d): (%d,%d) found, BFS cannot reach it",
                  map->width, map->height, x, y, s.x, s.y);
        cr_assert_eq(s.cost_ft, 5 * steps[cell], "%dx%d from (%d,%d) to (%d,%d): %d ft, BFS %d",
                     map->width, map->height, x, y, s.x, s.y, s.cost_ft, 5 * steps[cell]);
        cr_assert_eq(s.provoking_steps, 0);
    }
    for (size_t i = 0; i < n; i++)
        if (steps[i] > 0 && 5 * steps[i] <= budget)
            cr_assert(seen[i], "%dx%d from (%d,%d): BFS reaches (%d,%d) in %d ft, reach does not",
                      map->width, map->height, x, y, (int)i % map->width, (int)i / map->width,
                      5 * steps[i]);
    rules_reach_free(r);
    free(steps);
    free(seen);
}

/* Every map from 1 x 1 to 12 x 12, the mover on every hex: the window is cut by the map's
 * edge on most of them (before the fix, ASan: heap-buffer-overflow in run_layer). */
Test(hex_reach, every_small_map_matches_bfs)
{
    struct rules_options o = hex_rules();
    for (int w = 1; w <= 12; w++)
        for (int h = 1; h <= 12; h++) {
            struct rules_map map;
            cr_assert_eq(rules_map_init(&map, w, h), 0);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    check_against_bfs(&o, &map, x, y, 30, RULES_MODE_MOVE, false);
            rules_map_free(&map);
        }
}

/* Random sizes, walls and speeds, both searches (cheapest, and fewest provoking steps, which
 * with no enemies must agree) and both a move and a double move. */
Test(hex_reach, random_maps_match_bfs)
{
    struct rules_options o = hex_rules();
    uint32_t seed = 12345;
    for (int round = 0; round < 400; round++) {
        int w = 1 + (int)(next_rand(&seed) % 40), h = 1 + (int)(next_rand(&seed) % 40);
        struct rules_map map;
        cr_assert_eq(rules_map_init(&map, w, h), 0);
        int walls = (int)(next_rand(&seed) % 40);
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
            if ((int)(next_rand(&seed) % 100) < walls)
                map.terrain[i] = RULES_MAP_BLOCKED;
        int x = (int)(next_rand(&seed) % (uint32_t)w), y = (int)(next_rand(&seed) % (uint32_t)h);
        map.terrain[(size_t)y * (size_t)w + (size_t)x] = RULES_MAP_CLEAR;
        int walk = 5 * (1 + (int)(next_rand(&seed) % 12));
        enum rules_move_mode mode = round % 2 ? RULES_MODE_DOUBLE : RULES_MODE_MOVE;
        check_against_bfs(&o, &map, x, y, walk, mode, round % 4 >= 2);
        rules_map_free(&map);
    }
}

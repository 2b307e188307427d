/* Routes against a plain Dijkstra over the same prices (issue 22): the route's price equals
 * the reference's on random maps, for Medium and Large movers and on hexes. Split from
 * test_movement.c, which passed 1,000 lines. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/move/move.h"
#include "tests/rules/move_fixtures.h"

/* ---- routes against a plain Dijkstra (issue 22) ---- */

static uint64_t diff_rng = 0x9e3779b97f4a7c15ULL;

static int diff_next(int n)
{
    diff_rng ^= diff_rng << 13, diff_rng ^= diff_rng >> 7, diff_rng ^= diff_rng << 17;
    return (int)((diff_rng >> 11) % (uint64_t)n);
}

/* The price of a one-square walker entering (tx, ty) from (x, y) with parity p, written from
 * the rules rather than from the search: -1 when it may not. occ: 0 free, 1 a creature it
 * may pass but not end on, 2 an enemy. */
static int ref_price(const struct rules_map *m, const uint8_t *occ, bool run, bool alternating,
                     int impeded, int x, int y, int tx, int ty, int p, int *np)
{
    *np = p;
    if (tx < 0 || ty < 0 || tx >= m->width || ty >= m->height)
        return -1;
    size_t i = (size_t)ty * (size_t)m->width + (size_t)tx;
    uint8_t t = m->terrain[i];
    if (t == RULES_MAP_BLOCKED || t == RULES_MAP_WATER || t == RULES_MAP_AIR || occ[i] == 2)
        return -1; /* a walker, no swim or fly speed */
    bool diagonal = tx != x && ty != y;
    if (diagonal) {
        size_t c1 = (size_t)y * (size_t)m->width + (size_t)tx;
        size_t c2 = (size_t)ty * (size_t)m->width + (size_t)x;
        if ((m->terrain[c1] == RULES_MAP_BLOCKED && !(m->flags[c1] & RULES_SQUARE_CUTTABLE)) ||
            (m->terrain[c2] == RULES_MAP_BLOCKED && !(m->flags[c2] & RULES_SQUARE_CUTTABLE)))
            return -1; /* 001 Cutting Corners */
    }
    int base = 5;
    if (diagonal && alternating) {
        base = p ? 10 : 5;
        *np = p ^ 1;
    }
    if (t == RULES_MAP_IMPEDED)
        return run ? -1 : impeded;
    if (t == RULES_MAP_DIFFICULT)
        return run ? -1 : 2 * base;
    return base;
}

/* The cheapest price to every square where a walker may end, from (sx, sy): Dijkstra with an
 * array scan for the minimum (slow and obviously right). */
static void ref_dijkstra(const struct rules_map *m, const uint8_t *occ, bool run, bool alternating,
                         int impeded, int sx, int sy, int *best)
{
    int n = m->width * m->height;
    int *dist = malloc((size_t)n * 2 * sizeof *dist);
    bool *done = calloc((size_t)n * 2, 1);
    for (int i = 0; i < 2 * n; i++)
        dist[i] = INT32_MAX;
    dist[(sy * m->width + sx) * 2] = 0;
    for (;;) {
        int u = -1;
        for (int i = 0; i < 2 * n; i++)
            if (!done[i] && dist[i] != INT32_MAX && (u < 0 || dist[i] < dist[u]))
                u = i;
        if (u < 0)
            break;
        done[u] = true;
        int x = (u / 2) % m->width, y = (u / 2) / m->width, p = u % 2;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int np, price;
                if ((dx == 0 && dy == 0) || (price = ref_price(m, occ, run, alternating, impeded, x,
                                                               y, x + dx, y + dy, p, &np)) < 0)
                    continue;
                int v = ((y + dy) * m->width + x + dx) * 2 + np;
                if (dist[u] + price < dist[v])
                    dist[v] = dist[u] + price;
            }
    }
    for (int i = 0; i < n; i++) {
        int d = dist[2 * i] < dist[2 * i + 1] ? dist[2 * i] : dist[2 * i + 1];
        best[i] = occ[i] != 0 ? -1 : d == INT32_MAX ? -1 : d;
    }
    free(dist);
    free(done);
}

/* Every route's price equals a plain Dijkstra's on random maps (clear, difficult, impeded,
 * blocked with and without cuttable corners, water, enemies, allies and the unconscious; sizes
 * that cross the route's 32-square tiles), for both diagonal rules, moving and running; and the
 * path it gives is adjacent steps from the start to the goal that cost that price. */
Test(movement, route_prices_equal_a_plain_dijkstra)
{
    for (int trial = 0; trial < 48; trial++) {
        int w = 5 + diff_next(60), h = 5 + diff_next(40);
        struct rules_map map = open_map(w, h);
        for (int i = 0; i < w * h; i++) {
            int r = diff_next(100);
            map.terrain[i] = r < 15   ? RULES_MAP_DIFFICULT
                             : r < 19 ? RULES_MAP_IMPEDED
                             : r < 29 ? RULES_MAP_BLOCKED
                             : r < 31 ? RULES_MAP_WATER
                                      : RULES_MAP_CLEAR;
            if (map.terrain[i] == RULES_MAP_BLOCKED && diff_next(3) == 0)
                map.flags[i] = RULES_SQUARE_CUTTABLE;
        }
        int sx = diff_next(w), sy = diff_next(h);
        map.terrain[sy * w + sx] = RULES_MAP_CLEAR;
        uint8_t *occ = calloc((size_t)(w * h), 1);
        struct rules_map_creature cs[12];
        int nc = 0;
        for (int k = diff_next(12); k > 0; k--) {
            int x = diff_next(w), y = diff_next(h), i = y * w + x;
            if (x == sx && y == sy)
                continue;
            cs[nc] = enemy_at(x, y);
            cs[nc].ally = diff_next(3) == 0;
            cs[nc].conscious = diff_next(4) != 0;
            occ[i] = !cs[nc].ally && cs[nc].conscious ? 2 : occ[i] ? occ[i] : 1;
            nc++;
        }
        struct rules_mover m = mover_at(sx, sy, 30);
        int *best = malloc((size_t)(w * h) * sizeof *best);
        struct rules_step *steps = malloc((size_t)(w * h) * sizeof *steps);
        for (int variant = 0; variant < 4; variant++) {
            bool alternating = variant & 1, run = variant & 2;
            struct rules_options o = preset("d20-3.5");
            rules_option_set(&o, "diagonals", true, alternating ? "alternating" : "one_for_one", 0);
            struct rules_move_query q = {.o = &o,
                                         .map = &map,
                                         .creatures = cs,
                                         .creature_count = nc,
                                         .mover = &m,
                                         .mode = run ? RULES_MODE_RUN : RULES_MODE_MOVE,
                                         .primary_target = -1};
            ref_dijkstra(&map, occ, run, alternating, 60, sx, sy, best);
            for (int goal = 0; goal < 12; goal++) {
                int gx = diff_next(w), gy = diff_next(h), cost = -7;
                struct rules_route_goal g = {.x = gx, .y = gy, .creature = -1};
                int n = rules_move_route(&q, &g, steps, w * h, &cost);
                int want = gx == sx && gy == sy ? 0 : best[gy * w + gx];
                cr_assert_eq(n < 0 ? -1 : cost, want,
                             "trial %d variant %d: (%d,%d) to (%d,%d) cost %d, Dijkstra %d", trial,
                             variant, sx, sy, gx, gy, cost, want);
                int x = sx, y = sy, p = 0, sum = 0;
                for (int i = 0; i < n; i++) {
                    int np, price = ref_price(&map, occ, run, alternating, 60, x, y, steps[i].x,
                                              steps[i].y, p, &np);
                    cr_assert(abs(steps[i].x - x) <= 1 && abs(steps[i].y - y) <= 1 && price > 0);
                    sum += price, x = steps[i].x, y = steps[i].y, p = np;
                }
                if (n >= 0)
                    cr_assert(x == gx && y == gy && sum == cost);
            }
        }
        free(best);
        free(steps);
        free(occ);
        rules_map_free(&map);
    }
}

/* Movers larger than a square and hexes price their steps through eval_step: their routes
 * equal the reach of a double move with speed to spare, square by square, on random maps
 * without impeded terrain (where a reach allows only a double move's single step). */
Test(movement, route_prices_equal_the_reach_for_large_movers_and_hexes)
{
    for (int trial = 0; trial < 12; trial++) {
        int w = 6 + diff_next(40), h = 6 + diff_next(40);
        struct rules_map map = open_map(w, h);
        for (int i = 0; i < w * h; i++) {
            int r = diff_next(100);
            map.terrain[i] = r < 15   ? RULES_MAP_DIFFICULT
                             : r < 23 ? RULES_MAP_BLOCKED
                                      : RULES_MAP_CLEAR;
            if (map.terrain[i] == RULES_MAP_BLOCKED && diff_next(3) == 0)
                map.flags[i] = RULES_SQUARE_CUTTABLE;
        }
        struct rules_map_creature cs[6];
        int nc = diff_next(6);
        for (int k = 0; k < nc; k++) {
            cs[k] = enemy_at(diff_next(w), diff_next(h));
            cs[k].ally = diff_next(2) == 0;
        }
        for (int variant = 0; variant < 3; variant++) {
            struct rules_options o = preset("d20-3.5");
            if (variant == 2)
                rules_option_set(&o, "grid", true, "hex", 0);
            else
                rules_option_set(&o, "diagonals", true, variant ? "alternating" : "one_for_one", 0);
            struct rules_mover m = mover_at(1, 1, 5000);
            if (variant < 2)
                rules_creature_init(&m.c, RULES_SIZE_LARGE, 1, 1, 0);
            for (int dy = 0; dy < 2; dy++)
                for (int dx = 0; dx < 2; dx++)
                    map.terrain[(1 + dy) * w + 1 + dx] = RULES_MAP_CLEAR;
            struct rules_move_query q = {.o = &o,
                                         .map = &map,
                                         .creatures = cs,
                                         .creature_count = nc,
                                         .mover = &m,
                                         .mode = RULES_MODE_DOUBLE,
                                         .primary_target = -1};
            struct rules_reach *r = NULL;
            cr_assert_eq(rules_move_reach(&q, false, &r), RULES_MOVE_OK);
            int found = rules_reach_count(r);
            struct rules_step *steps = malloc((size_t)(w * h) * sizeof *steps);
            for (int i = 0; i < found; i += 1 + found / 16) {
                struct rules_reach_square sq;
                rules_reach_get(r, i, &sq);
                struct rules_route_goal g = {.x = sq.x, .y = sq.y, .creature = -1};
                int cost = -7;
                int n = rules_move_route(&q, &g, steps, w * h, &cost);
                cr_assert(n > 0 && cost == sq.cost_ft, "trial %d variant %d (%d,%d): %d vs %d",
                          trial, variant, sq.x, sq.y, cost, sq.cost_ft);
            }
            free(steps);
            rules_reach_free(r);
        }
        rules_map_free(&map);
    }
}

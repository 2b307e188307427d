/* Movement benchmark (issue 6). A 1,000 x 1,000 map with 20% difficult terrain and 500 Medium
 * enemies; a Medium mover with speed 120 running (x4, 480 ft; a run cannot cross difficult
 * terrain, so those squares are closed to it). Times, each the median of several runs:
 *  - the floor: a plain Dijkstra (binary heap, squares only, 5 ft a step, difficult squares and
 *    creatures closed) over the same window and budget;
 *  - rules_move_reach without facing (diagonals one for one, the floor's metric), and with
 *    000's facing (diagonals alternating, the d20-3.5-facing preset: facing and parity in the
 *    state);
 *  - rules_move_route from one corner to the other.
 * Ratios are to the floor measured in the same process. With a file argument it also writes
 * the map for the PathFinding.js peer (bench/peer/astar.mjs): "W H sx sy gx gy", then one row
 * per line, 1 for a closed square.
 * Usage: movement_bench [peer-map-file] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules.h"

#define SIDE      1000
#define CREATURES 500
#define SPEED     120
#define RUNS      7

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint64_t rng = 0x853c49e6748fea9bULL;

static uint32_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* ---- the floor: a textbook Dijkstra with a binary heap ---- */

struct heap {
    uint32_t *key, *val;
    size_t n;
};

static void heap_push(struct heap *h, uint32_t k, uint32_t v)
{
    size_t i = h->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h->key[p] <= k)
            break;
        h->key[i] = h->key[p], h->val[i] = h->val[p];
        i = p;
    }
    h->key[i] = k, h->val[i] = v;
}

static void heap_pop(struct heap *h, uint32_t *k, uint32_t *v)
{
    *k = h->key[0], *v = h->val[0];
    uint32_t lk = h->key[--h->n], lv = h->val[h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->key[c + 1] < h->key[c])
            c++;
        if (h->key[c] >= lk)
            break;
        h->key[i] = h->key[c], h->val[i] = h->val[c];
        i = c;
    }
    h->key[i] = lk, h->val[i] = lv;
}

/* Squares reached within budget from (sx, sy); closed[] marks impassable squares. */
static int plain_dijkstra(const uint8_t *closed, int sx, int sy, int budget)
{
    int r = budget / 5 + 1;
    int x0 = sx - r < 0 ? 0 : sx - r, y0 = sy - r < 0 ? 0 : sy - r;
    int x1 = sx + r + 1 > SIDE ? SIDE : sx + r + 1, y1 = sy + r + 1 > SIDE ? SIDE : sy + r + 1;
    int w = x1 - x0, h = y1 - y0;
    size_t n = (size_t)w * (size_t)h;
    uint32_t *dist = malloc(n * sizeof *dist);
    struct heap hp = {malloc(8 * n * sizeof(uint32_t)), malloc(8 * n * sizeof(uint32_t)), 0};
    memset(dist, 0xff, n * sizeof *dist);
    uint32_t start = (uint32_t)((sy - y0) * w + (sx - x0));
    dist[start] = 0;
    heap_push(&hp, 0, start);
    int reached = 0;
    static const int d[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};
    while (hp.n > 0) {
        uint32_t k, v;
        heap_pop(&hp, &k, &v);
        if (k != dist[v])
            continue;
        reached++;
        int x = x0 + (int)(v % (uint32_t)w), y = y0 + (int)(v / (uint32_t)w);
        for (int i = 0; i < 8; i++) {
            int tx = x + d[i][0], ty = y + d[i][1];
            if (tx < x0 || ty < y0 || tx >= x1 || ty >= y1 || closed[ty * SIDE + tx])
                continue;
            uint32_t nd = k + 5, t = (uint32_t)((ty - y0) * w + (tx - x0));
            if (nd > (uint32_t)budget || nd >= dist[t])
                continue;
            dist[t] = nd;
            heap_push(&hp, nd, t);
        }
    }
    free(dist);
    free(hp.key);
    free(hp.val);
    return reached - 1;
}

int main(int argc, char **argv)
{
    struct rules_map map;
    if (rules_map_init(&map, SIDE, SIDE) != 0)
        return 1;
    uint8_t *closed = calloc((size_t)SIDE * SIDE, 1);
    for (size_t i = 0; i < (size_t)SIDE * SIDE; i++)
        if (next() % 5 == 0) {
            map.terrain[i] = RULES_MAP_DIFFICULT;
            closed[i] = 1;
        }
    /* The corners and the centre stay clear for the mover. */
    const size_t keep[] = {0, (size_t)SIDE * SIDE - 1, (size_t)500 * SIDE + 500};
    for (size_t k = 0; k < 3; k++)
        map.terrain[keep[k]] = RULES_MAP_CLEAR, closed[keep[k]] = 0;
    struct rules_map_creature *cs = calloc(CREATURES, sizeof *cs);
    for (int i = 0; i < CREATURES; i++) {
        int x, y;
        do {
            x = (int)(next() % SIDE), y = (int)(next() % SIDE);
        } while (closed[y * SIDE + x] == 2 || (size_t)(y * SIDE + x) == keep[0] ||
                 (size_t)(y * SIDE + x) == keep[1] || (size_t)(y * SIDE + x) == keep[2]);
        cs[i] = (struct rules_map_creature){.conscious = true};
        rules_creature_init(&cs[i].c, RULES_SIZE_MEDIUM, x, y, 0);
        closed[y * SIDE + x] = 2;
    }
    struct rules_options flat, facing;
    rules_preset_apply("d20-3.5", &flat);
    rules_option_set(&flat, "diagonals", true, "one_for_one", 0);
    rules_preset_apply("d20-3.5-facing", &facing);
    struct rules_mover mover = {.constitution = 10};
    rules_creature_init(&mover.c, RULES_SIZE_MEDIUM, 500, 500, 0);
    mover.speed[RULES_MOVE_WALK] = SPEED;
    struct rules_move_query q = {.map = &map,
                                 .creatures = cs,
                                 .creature_count = CREATURES,
                                 .mover = &mover,
                                 .mode = RULES_MODE_RUN,
                                 .primary_target = -1};
    int budget = 4 * SPEED;
    double t_floor[RUNS], t_reach[RUNS], t_face[RUNS], t_route[RUNS];
    int floor_n = 0, reach_n = 0, face_n = 0, route_n = 0, route_cost = 0;
    struct rules_step *steps = malloc((size_t)SIDE * SIDE * sizeof *steps);
    for (int run = 0; run < RUNS; run++) {
        double t0 = now_ms();
        floor_n = plain_dijkstra(closed, 500, 500, budget);
        t_floor[run] = now_ms() - t0;

        struct rules_reach *r;
        q.o = &flat;
        t0 = now_ms();
        if (rules_move_reach(&q, false, &r) != 0)
            return 1;
        t_reach[run] = now_ms() - t0;
        reach_n = rules_reach_count(r);
        rules_reach_free(r);

        q.o = &facing;
        t0 = now_ms();
        if (rules_move_reach(&q, false, &r) != 0)
            return 1;
        t_face[run] = now_ms() - t0;
        face_n = rules_reach_count(r);
        rules_reach_free(r);

        struct rules_mover corner = mover;
        corner.c.body.x = 0, corner.c.body.y = 0;
        struct rules_move_query rq = q;
        rq.o = &flat;
        rq.mover = &corner;
        struct rules_route_goal goal = {.x = SIDE - 1, .y = SIDE - 1, .creature = -1};
        t0 = now_ms();
        route_n = rules_move_route(&rq, &goal, steps, SIDE * SIDE, &route_cost);
        t_route[run] = now_ms() - t0;
    }
    double floor_ms = median(t_floor, RUNS), reach_ms = median(t_reach, RUNS);
    double face_ms = median(t_face, RUNS), route_ms = median(t_route, RUNS);
    printf("movement bench: %dx%d map, 20%% difficult, %d creatures, Medium mover, speed %d, "
           "run x4 = %d ft (difficult closed to a run); median of %d runs\n",
           SIDE, SIDE, CREATURES, SPEED, budget, RUNS);
    printf("floor: plain Dijkstra (binary heap)   %9.3f ms  %d squares\n", floor_ms, floor_n);
    printf("reach, no facing (one for one)       %9.3f ms  %d squares  %.2fx the floor "
           "(target <= 2x)\n",
           reach_ms, reach_n, reach_ms / floor_ms);
    printf("reach, 000 facing (alternating)      %9.3f ms  %d squares  %.2fx the floor\n", face_ms,
           face_n, face_ms / floor_ms);
    printf("route corner to corner (one for one) %9.3f ms  %d steps, %d ft\n", route_ms, route_n,
           route_cost);
    printf("ROUTE_MS %.3f\n", route_ms);
    if (argc > 1) {
        FILE *f = fopen(argv[1], "w");
        if (f == NULL)
            return 1;
        fprintf(f, "%d %d 0 0 %d %d\n", SIDE, SIDE, SIDE - 1, SIDE - 1);
        char *row = malloc(SIDE + 2);
        for (int y = 0; y < SIDE; y++) {
            for (int x = 0; x < SIDE; x++)
                row[x] = closed[y * SIDE + x] ? '1' : '0';
            row[SIDE] = '\n', row[SIDE + 1] = '\0';
            fputs(row, f);
        }
        free(row);
        fclose(f);
    }
    free(steps);
    free(cs);
    free(closed);
    rules_map_free(&map);
    return route_n > 0 ? 0 : 1;
}

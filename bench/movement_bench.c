/* Movement benchmark (issue 6). A 1,000 x 1,000 map with 20% difficult terrain and 500 Medium
 * enemies; a Medium mover with speed 120 running (x4, 480 ft; a run cannot cross difficult
 * terrain, so those squares are closed to it). Times, each the median of several runs:
 *  - the floor: a plain Dijkstra (binary heap, squares only, 5 ft a step, difficult squares and
 *    creatures closed) over the same window and budget;
 *  - rules_move_reach without facing (diagonals one for one, the floor's metric), and with
 *    000's facing (diagonals alternating, the d20-3.5-facing preset: facing and parity in the
 *    state);
 *  - rules_move_route from one corner to the other, against its own floor: a plain A* (binary
 *    heap, octile heuristic, the same prices: 5 ft a square, 1-for-1 or 5-10-5 diagonals,
 *    difficult terrain double, no cutting a wall's corner), on the same map and on a maze
 *    (corridors two squares wide between walls one square thick, with some walls knocked
 *    through so that it has loops: 30% walls). Route and floor alternate within one run and
 *    the ratio is the median of the pairs' ratios; the route's price must equal the floor's.
 * Ratios are to the floor measured in the same process. With a prefix argument it also writes
 * the maps for the PathFinding.js peer (bench/peer/astar.mjs), PREFIX-bench.txt and
 * PREFIX-maze.txt: "W H sx sy gx gy corners" (corners: "cut" when diagonals may pass a closed
 * square's corner, "nocut" when not), then one row per line, 1 for a closed square.
 * Usage: movement_bench [peer-map-prefix] */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/stats.h"
#include "rules/rules.h"

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

/* ---- the route's floor: a textbook A* with a binary heap ---- */

/* Square classes for the floor, built from the map by the bench itself (not by rules/). */
#define FL_CLOSED 0 /* the mover may not enter */
#define FL_SINGLE 1
#define FL_DOUBLE 2    /* difficult terrain: every price doubles */
#define FL_SOLID  0x10 /* a wall: diagonals may not cut its corners */

static void heap_grow(struct heap *h, size_t *cap)
{
    if (h->n < *cap)
        return;
    *cap = *cap ? 2 * *cap : 4096;
    h->key = realloc(h->key, *cap * sizeof *h->key);
    h->val = realloc(h->val, *cap * sizeof *h->val);
    if (h->key == NULL || h->val == NULL)
        abort();
}

/* The octile estimate in feet: the exact price on an open map. With alternating diagonals
 * (5-10-5) and `p` diagonals already counted odd, the dmin diagonals cost 5 each plus 5 for
 * every second one. */
static uint32_t octile(int x, int y, int gx, int gy, int p, bool alternating)
{
    int dx = abs(gx - x), dy = abs(gy - y);
    int hi = dx > dy ? dx : dy, lo = dx > dy ? dy : dx;
    return (uint32_t)(5 * hi + (alternating ? 5 * ((lo + p) / 2) : 0));
}

/* The cheapest price from (sx, sy) to (gx, gy) in feet on a w x h map of FL_* classes, or -1;
 * *steps gets the path's length. States are square x diagonal parity under 5-10-5. */
static int plain_astar(const uint8_t *cls, int w, int h, int sx, int sy, int gx, int gy,
                       bool alternating, int *steps)
{
    static const int d[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};
    int np = alternating ? 2 : 1;
    size_t n = (size_t)w * (size_t)h * (size_t)np;
    uint32_t *g = malloc(n * sizeof *g), *pred = malloc(n * sizeof *pred);
    struct heap hp = {0};
    size_t cap = 0;
    if (g == NULL || pred == NULL)
        abort();
    memset(g, 0xff, n * sizeof *g);
    uint32_t start = (uint32_t)((sy * w + sx) * np);
    g[start] = 0;
    heap_grow(&hp, &cap);
    heap_push(&hp, octile(sx, sy, gx, gy, 0, alternating), start);
    int result = -1;
    uint32_t k, v;
    while (hp.n > 0) {
        heap_pop(&hp, &k, &v);
        int p = (int)(v % (uint32_t)np), cell = (int)(v / (uint32_t)np);
        int x = cell % w, y = cell / w;
        if (k != g[v] + octile(x, y, gx, gy, p, alternating))
            continue; /* a stale entry: the state was reached cheaper since */
        if (x == gx && y == gy) {
            result = (int)g[v];
            int len = 0;
            for (uint32_t s = v; s != start; s = pred[s])
                len++;
            *steps = len;
            break;
        }
        for (int i = 0; i < 8; i++) {
            int tx = x + d[i][0], ty = y + d[i][1];
            if (tx < 0 || ty < 0 || tx >= w || ty >= h)
                continue;
            unsigned c = cls[ty * w + tx] & 0xfu;
            if (c == FL_CLOSED)
                continue;
            uint32_t cost = 5;
            int tp = p;
            if (d[i][0] != 0 && d[i][1] != 0) {
                if ((cls[y * w + tx] | cls[ty * w + x]) & FL_SOLID)
                    continue; /* 001 Cutting Corners */
                if (alternating)
                    cost = p ? 10 : 5, tp = p ^ 1;
            }
            cost *= c;
            uint32_t t = (uint32_t)((ty * w + tx) * np + tp), nd = g[v] + cost;
            if (nd >= g[t])
                continue;
            g[t] = nd, pred[t] = v;
            heap_grow(&hp, &cap);
            heap_push(&hp, nd + octile(tx, ty, gx, gy, tp, alternating), t);
        }
    }
    free(g);
    free(pred);
    free(hp.key);
    free(hp.val);
    return result;
}

/* A maze (see the top): cells of 2 x 2 squares on a pitch of 3, joined by a random depth-first
 * walk, then walls between neighbouring cells knocked through at random until 30% of the
 * squares are walls. The last row and column are wall. */
static void make_maze(struct rules_map *map, uint8_t *cls)
{
    int cw = (SIDE - 1) / 3, cells = cw * cw;
    uint8_t *open = calloc((size_t)cells, 1); /* bit 0: east wall open, bit 1: south */
    uint8_t *seen = calloc((size_t)cells, 1);
    int *stack = malloc((size_t)cells * sizeof *stack), top = 0;
    stack[top++] = 0, seen[0] = 1;
    while (top > 0) {
        int c = stack[top - 1], cx = c % cw, cy = c / cw, opts[4], no = 0;
        if (cx + 1 < cw && !seen[c + 1])
            opts[no++] = c + 1;
        if (cx > 0 && !seen[c - 1])
            opts[no++] = c - 1;
        if (cy + 1 < cw && !seen[c + cw])
            opts[no++] = c + cw;
        if (cy > 0 && !seen[c - cw])
            opts[no++] = c - cw;
        if (no == 0) {
            top--;
            continue;
        }
        int t = opts[next() % (uint32_t)no];
        int lo = t < c ? t : c;
        open[lo] |= t - c == 1 || c - t == 1 ? 1 : 2;
        seen[t] = 1, stack[top++] = t;
    }
    /* Walls: everything but the cells' 4 squares and the 2 squares of each open side. */
    size_t walls = (size_t)SIDE * SIDE - (size_t)cells * 4 - (size_t)(cells - 1) * 2;
    while (walls > (size_t)SIDE * SIDE * 3 / 10) {
        int c = (int)(next() % (uint32_t)cells), b = 1 + (int)(next() % 2);
        if ((b == 1 && c % cw + 1 == cw) || (b == 2 && c / cw + 1 == cw) || open[c] & b)
            continue;
        open[c] |= (uint8_t)b;
        walls -= 2;
    }
    for (int y = 0; y < SIDE; y++)
        for (int x = 0; x < SIDE; x++) {
            int cx = x / 3, cy = y / 3, ix = x % 3, iy = y % 3, c = cy * cw + cx;
            bool floor = cx < cw && cy < cw &&
                         ((ix < 2 && iy < 2) || (ix == 2 && iy < 2 && (open[c] & 1)) ||
                          (iy == 2 && ix < 2 && (open[c] & 2)));
            size_t i = (size_t)y * SIDE + (size_t)x;
            map->terrain[i] = floor ? RULES_MAP_CLEAR : RULES_MAP_BLOCKED;
            cls[i] = floor ? FL_SINGLE : FL_CLOSED | FL_SOLID;
        }
    free(open);
    free(seen);
    free(stack);
}

/* One route case: RUNS pairs of rules_move_route and plain_astar corner to corner,
 * alternating which goes first; prints medians and the median of the pairs' ratios, and
 * returns the route's median in ms (for the peer's ratio), or -1 when the two disagree. */
static double route_case(const char *name, const struct rules_move_query *q, const uint8_t *cls,
                         int gx, int gy, struct rules_step *steps)
{
    bool alternating = q->o->diagonals == RULES_DIAGONALS_ALTERNATING;
    const struct rules_body *b = &q->mover->c.body;
    struct rules_route_goal goal = {.x = gx, .y = gy, .creature = -1};
    double t_route[RUNS], t_floor[RUNS], ratio[RUNS];
    int n = 0, cost = 0, floor_cost = 0, floor_n = 0;
    for (int run = 0; run < RUNS; run++) {
        for (int half = 0; half < 2; half++) {
            double t0 = now_ms();
            if ((half ^ run) & 1) {
                floor_cost =
                    plain_astar(cls, SIDE, SIDE, b->x, b->y, gx, gy, alternating, &floor_n);
                t_floor[run] = now_ms() - t0;
            } else {
                n = rules_move_route(q, &goal, steps, SIDE * SIDE, &cost);
                t_route[run] = now_ms() - t0;
            }
        }
        ratio[run] = t_route[run] / t_floor[run];
    }
    double route_ms = bench_median(t_route, RUNS), floor_ms = bench_median(t_floor, RUNS);
    double r = bench_median(ratio, RUNS);
    printf("route %-24s %9.3f ms  %d steps, %d ft; floor (plain A*) %9.3f ms, %d steps, %d ft; "
           "%.2fx the floor (target <= 1.3x)\n",
           name, route_ms, n, cost, floor_ms, floor_n, floor_cost, r);
    if (n < 0 || cost != floor_cost) {
        printf("MISMATCH: the route's price differs from the floor's\n");
        return -1;
    }
    return route_ms;
}

static int write_peer_map(const char *prefix, const char *name, const uint8_t *cls, int gx, int gy,
                          bool cut)
{
    char path[4096];
    snprintf(path, sizeof path, "%s-%s.txt", prefix, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fprintf(f, "%d %d 0 0 %d %d %s\n", SIDE, SIDE, gx, gy, cut ? "cut" : "nocut");
    char *row = malloc(SIDE + 2);
    for (int y = 0; y < SIDE; y++) {
        for (int x = 0; x < SIDE; x++)
            row[x] = (cls[y * SIDE + x] & 0xfu) == FL_CLOSED ? '1' : '0';
        row[SIDE] = '\n', row[SIDE + 1] = '\0';
        fputs(row, f);
    }
    free(row);
    return fclose(f);
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
    double t_floor[RUNS], t_reach[RUNS], t_face[RUNS];
    int floor_n = 0, reach_n = 0, face_n = 0;
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
    }
    double floor_ms = bench_median(t_floor, RUNS), reach_ms = bench_median(t_reach, RUNS);
    double face_ms = bench_median(t_face, RUNS);
    printf("movement bench: %dx%d map, 20%% difficult, %d creatures, Medium mover, speed %d, "
           "run x4 = %d ft (difficult closed to a run); median of %d runs\n",
           SIDE, SIDE, CREATURES, SPEED, budget, RUNS);
    printf("floor: plain Dijkstra (binary heap)   %9.3f ms  %d squares\n", floor_ms, floor_n);
    printf("reach, no facing (one for one)       %9.3f ms  %d squares  %.2fx the floor "
           "(target <= 2x)\n",
           reach_ms, reach_n, reach_ms / floor_ms);
    printf("reach, 000 facing (alternating)      %9.3f ms  %d squares  %.2fx the floor\n", face_ms,
           face_n, face_ms / floor_ms);
    /* Routes corner to corner. On the bench map as a run (difficult terrain closed, as the
     * peer's walls) with 1-for-1 diagonals, and walking with 5-10-5 (difficult doubles). */
    uint8_t *cls = malloc((size_t)SIDE * SIDE);
    for (size_t i = 0; i < (size_t)SIDE * SIDE; i++)
        cls[i] = closed[i] ? FL_CLOSED : FL_SINGLE;
    /* A page fault costs ~11 us on these VMs, and glibc gives large blocks back to the kernel
     * on free (mmap, or trimming the heap), so a plain A* allocating its whole-map tables each
     * call would pay ~1,000 faults per 4 MB every time. Keeping freed memory in the process
     * lets the floor reuse it as a long-running server would: its best case, the harder one
     * to come near. */
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
    struct rules_mover corner = mover;
    corner.c.body.x = 0, corner.c.body.y = 0;
    struct rules_move_query rq = q;
    rq.o = &flat, rq.mover = &corner;
    double bench_ms = route_case("bench map, run, 1-for-1", &rq, cls, SIDE - 1, SIDE - 1, steps);
    struct rules_options alt;
    rules_preset_apply("d20-3.5", &alt);
    rules_option_set(&alt, "diagonals", true, "alternating", 0);
    for (size_t i = 0; i < (size_t)SIDE * SIDE; i++)
        cls[i] = closed[i] == 2                          ? FL_CLOSED
                 : map.terrain[i] == RULES_MAP_DIFFICULT ? FL_DOUBLE
                                                         : FL_SINGLE;
    rq.o = &alt, rq.mode = RULES_MODE_MOVE;
    double walk_ms = route_case("bench map, walk, 5-10-5", &rq, cls, SIDE - 1, SIDE - 1, steps);
    if (argc > 1) {
        for (size_t i = 0; i < (size_t)SIDE * SIDE; i++)
            cls[i] = closed[i] ? FL_CLOSED : FL_SINGLE;
        if (write_peer_map(argv[1], "bench", cls, SIDE - 1, SIDE - 1, true) != 0)
            return 1;
    }
    /* The maze: walls only, no creatures. */
    make_maze(&map, cls);
    int mg = (SIDE - 1) / 3 * 3 - 2; /* the far corner's last floor square */
    rq.creatures = NULL, rq.creature_count = 0;
    rq.o = &flat;
    double maze_ms = route_case("maze, walk, 1-for-1", &rq, cls, mg, mg, steps);
    rq.o = &alt;
    double maze_alt_ms = route_case("maze, walk, 5-10-5", &rq, cls, mg, mg, steps);
    if (argc > 1 && write_peer_map(argv[1], "maze", cls, mg, mg, false) != 0)
        return 1;
    printf("ROUTE_MS bench %.3f\nROUTE_MS maze %.3f\n", bench_ms, maze_ms);
    free(cls);
    bool ok = bench_ms > 0 && walk_ms > 0 && maze_ms > 0 && maze_alt_ms > 0;
    free(steps);
    free(cs);
    free(closed);
    rules_map_free(&map);
    return ok ? 0 : 1;
}

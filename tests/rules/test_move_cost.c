/* What the searches charge to their work budget (issue 28): the squares tested for a threat,
 * counted from the query and charged before the first test; the squares a large mover's steps
 * look at; the enemies a path's attacks of opportunity are looked for among. And a large
 * mover's steps, priced from the squares its space enters and asked about its whole space at
 * once, checked against a reference that walks every square of both spaces. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rules/board/threat.h"
#include "tests/rules/move_fixtures.h"

static struct rules_map_creature reaching(int x, int y, int reach_ft)
{
    struct rules_map_creature k = enemy_at(x, y);
    k.c.reach_ft = reach_ft;
    return k;
}

/* A Medium mover moving 30 ft searches the squares its 30 ft can reach, plus one: x and y from
 * 23 to 37, 15 x 15. An enemy at (40, 30) of reach 10 ft (2 squares, plus 1 and a square of
 * slack: 4 around its space) is looked at over x 36..44 and y 26..34, of which x 36..37 lie
 * in the window: 2 x 9 squares, tested once to count and once to fill: 36. */
Test(move_cost, a_reach_charges_its_threat_tests_before_any)
{
    struct rules_options o = preset("d20-3.5");
    struct rules_map map = open_map(60, 60);
    struct rules_mover m = mover_at(30, 30, 30);
    struct rules_map_creature e = reaching(40, 30, 10);
    struct rules_work work = {.threat_limit = 35};
    struct rules_move_query q = {.o = &o,
                                 .map = &map,
                                 .creatures = &e,
                                 .creature_count = 1,
                                 .mover = &m,
                                 .mode = RULES_MODE_MOVE,
                                 .primary_target = -1,
                                 .work = &work};
    cr_assert_eq(rules_move_threat_tests(&q, 23, 23, 38, 38), 36);
    struct rules_move_estimate est;
    rules_move_reach_estimate(&q, false, &est);
    cr_assert_eq(est.threat_tests, 36);
    cr_assert_eq(est.states, 15 * 15 * 2); /* 5-10-5 diagonals: two parities a square */
    struct rules_reach *r = NULL;
    cr_assert_eq(rules_move_reach(&q, false, &r), RULES_MOVE_TOO_EXPENSIVE);
    cr_assert_null(r);
    long long limit = 0, reached = 0;
    cr_assert_str_eq(rules_work_spent(&work, &limit, &reached), "threatened_squares");
    cr_assert_eq(limit, 35);
    cr_assert_eq(reached, 36);
    cr_assert_eq(work.used, 450, "only the window's states, no expansion: %lld", work.used);
    work = (struct rules_work){.threat_limit = 36};
    cr_assert_eq(rules_move_reach(&q, false, &r), RULES_MOVE_OK);
    cr_assert_eq(work.threat_used, 36);
    cr_assert_null(rules_work_spent(&work, &limit, &reached));
    rules_reach_free(r);
    /* An ally threatens nothing the mover fears: nothing is tested. */
    e.ally = true;
    work = (struct rules_work){.threat_limit = 1};
    cr_assert_eq(rules_move_reach(&q, false, &r), RULES_MOVE_OK);
    cr_assert_eq(work.threat_used, 0);
    rules_reach_free(r);
    rules_map_free(&map);
}

/* Ten enemies of reach 1,000 ft on a 100 x 100 map each threaten the whole map: 2 x 10 x 10,000
 * tests. With a budget of half that the fewest-attacks search is refused having set up nothing
 * but its first layer's count (100 x 100 squares, two parities), before any threat is tested
 * or any state expanded. */
Test(move_cost, a_crowd_of_long_reach_is_refused_before_the_work)
{
    struct rules_options o = preset("d20-3.5");
    struct rules_map map = open_map(100, 100);
    struct rules_mover m = mover_at(50, 50, 10000);
    struct rules_map_creature cs[10];
    for (int i = 0; i < 10; i++)
        cs[i] = reaching(10 * i, 5, 1000);
    struct rules_work work = {.limit = 8000000, .threat_limit = 100000};
    struct rules_move_query q = {.o = &o,
                                 .map = &map,
                                 .creatures = cs,
                                 .creature_count = 10,
                                 .mover = &m,
                                 .mode = RULES_MODE_RUN,
                                 .primary_target = -1,
                                 .work = &work};
    struct rules_reach *r = NULL;
    cr_assert_eq(rules_move_reach(&q, true, &r), RULES_MOVE_TOO_EXPENSIVE);
    cr_assert_eq(work.threat_used, 200000);
    cr_assert_eq(work.used, 20000);
    rules_map_free(&map);
}

/* A path's threats are set up over its own box, charged first; then each enemy looked at, at
 * each square of the space left by a provoking step, counts as a state. */
Test(move_cost, a_path_charges_its_threats_and_the_enemies_it_looks_through)
{
    struct rules_options o = preset("d20-3.5");
    struct rules_map map = open_map(40, 40);
    struct rules_mover m = mover_at(5, 20, 10000);
    struct rules_map_creature cs[6];
    for (int i = 0; i < 6; i++)
        cs[i] = reaching(6 + i, 23, 15); /* a row below the path, each threatening it */
    struct rules_step steps[10];
    for (int i = 0; i < 10; i++)
        steps[i] = (struct rules_step){6 + i, 20, -1};
    struct rules_step_result res[10];
    struct rules_aoo aoos[6];
    struct rules_path_result p = {.steps = res, .aoos = aoos};
    struct rules_work work = {0};
    struct rules_move_query q = {.o = &o,
                                 .map = &map,
                                 .creatures = cs,
                                 .creature_count = 6,
                                 .mover = &m,
                                 .mode = RULES_MODE_RUN,
                                 .primary_target = -1,
                                 .work = &work};
    cr_assert_eq(rules_move_path(&q, steps, 10, -1, &p), RULES_MOVE_OK);
    cr_assert_eq(p.aoo_count, 6);
    /* The path's box: 2 around the start and every step, its side (plus one) beyond. */
    cr_assert_eq(work.threat_used, rules_move_threat_tests(&q, 3, 18, 19, 24));
    long long looked = work.used;
    cr_assert_gt(looked, 6, "each step leaving a threatened square looks through its enemies");
    work = (struct rules_work){.limit = looked - 1};
    cr_assert_eq(rules_move_path(&q, steps, 10, -1, &p), RULES_MOVE_TOO_EXPENSIVE);
    work = (struct rules_work){.threat_limit = 1};
    cr_assert_eq(rules_move_path(&q, steps, 10, -1, &p), RULES_MOVE_TOO_EXPENSIVE);
    cr_assert_eq(work.used, 0, "refused before looking at anything");
    rules_map_free(&map);
}

/* What an expansion counts: one for the plain loop; priced square by square, one plus two a
 * direction and one more per dozen squares a step looks at. */
Test(move_cost, an_expansion_counts_the_squares_its_steps_look_at)
{
    struct rules_options o = preset("d20-3.5");
    struct rules_map map = open_map(40, 40);
    struct rules_mover m = mover_at(20, 20, 30);
    struct rules_move_query q = {
        .o = &o, .map = &map, .mover = &m, .mode = RULES_MODE_MOVE, .primary_target = -1};
    cr_assert_eq(rules_move_expand_units(&q), 17); /* 1 + 8 x (2 + 3 / 12) */
    rules_creature_init(&m.c, RULES_SIZE_COLOSSAL, 20, 20, 0);
    cr_assert_eq(rules_move_expand_units(&q), 17); /* 1 + 8 x (2 + 11 / 12) */
    rules_creature_init(&m.c, RULES_SIZE_TITANIC_THREE_PLUS, 0, 0, 0);
    cr_assert_eq(rules_move_expand_units(&q), 81); /* 1 + 8 x (2 + 97 / 12) */
    /* A Colossal reach expands every state priced square by square: past its window's states,
     * it counts 17 a state expanded (1 for one at the end of its movement, not stepped from). */
    rules_creature_init(&m.c, RULES_SIZE_COLOSSAL, 20, 20, 0);
    struct rules_work work = {0};
    q.work = &work;
    struct rules_move_estimate est;
    rules_move_reach_estimate(&q, false, &est);
    struct rules_reach *r = NULL;
    cr_assert_eq(rules_move_reach(&q, false, &r), RULES_MOVE_OK);
    long long expanded = work.used - est.states;
    struct rules_work plain = {0};
    rules_creature_init(&m.c, RULES_SIZE_MEDIUM, 20, 20, 0);
    q.work = &plain;
    struct rules_reach *r2 = NULL;
    cr_assert_eq(rules_move_reach(&q, false, &r2), RULES_MOVE_OK);
    rules_move_reach_estimate(&q, false, &est);
    long long plain_expanded = plain.used - est.states;
    cr_assert_gt(expanded, 10 * rules_reach_count(r), "%lld", expanded);
    cr_assert_gt(expanded, 8 * plain_expanded, "%lld against %lld", expanded, plain_expanded);
    rules_reach_free(r2);
    rules_reach_free(r);
    rules_map_free(&map);
}

/* ---- large movers against a reference that walks every square ---- */

static uint64_t seed = 0x9e3779b97f4a7c15ULL;

static int next(int n)
{
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return (int)((seed >> 11) % (uint64_t)n);
}

struct world {
    struct rules_options o;
    struct rules_map map;
    struct rules_map_creature cs[8];
    int n;
};

/* The creature on (x, y), or -1. */
static int occupant(const struct world *w, int x, int y)
{
    for (int k = 0; k < w->n; k++) {
        const struct rules_body *b = &w->cs[k].c.body;
        if (x >= b->x && x < b->x + b->side && y >= b->y && y < b->y + b->side)
            return k;
    }
    return -1;
}

static bool in_space(int x, int y, int sx, int sy, int side)
{
    return x >= sx && x < sx + side && y >= sy && y < sy + side;
}

/* The reference step from (x, y) to (tx, ty) for a mover of `size` (and `side`): every square
 * of the new space outside the old one, looked at one by one. An enemy two sizes smaller is
 * stepped over (001 Stepover). */
static void reference_step(const struct world *w, enum rules_size size, int side, int x, int y,
                           int tx, int ty, bool *blocked, bool *enemy, bool *difficult, bool *off)
{
    *blocked = *enemy = *difficult = *off = false;
    for (int yy = ty; yy < ty + side; yy++)
        for (int xx = tx; xx < tx + side; xx++) {
            if (in_space(xx, yy, x, y, side))
                continue;
            if (xx < 0 || yy < 0 || xx >= w->map.width || yy >= w->map.height) {
                *off = true;
                continue;
            }
            uint8_t t = w->map.terrain[(size_t)yy * (size_t)w->map.width + (size_t)xx];
            *blocked |= t == RULES_MAP_BLOCKED;
            *difficult |= t == RULES_MAP_DIFFICULT;
            int k = occupant(w, xx, yy);
            *enemy |= k >= 0 && !w->cs[k].ally && w->cs[k].conscious &&
                      (int)size < (int)w->cs[k].c.size + 2;
        }
}

/* Whether enemy k threatens any square of the space at (x, y). */
static bool threatens_space(const struct world *w, int k, int x, int y, int side)
{
    const struct rules_map_creature *e = &w->cs[k];
    if (e->ally || !e->conscious || !e->c.can_threaten)
        return false;
    for (int yy = y; yy < y + side; yy++)
        for (int xx = x; xx < x + side; xx++)
            if (rules_threatens_square(&w->o, &e->c, xx, yy, 0))
                return true;
    return false;
}

/* Random boards and random walks of Large to Colossal movers: each step's price and whether it
 * is blocked, enters an enemy's square or leaves the map, and the attacks of opportunity (each
 * enemy threatening some square of a space left, once), as the reference finds them. */
Test(move_cost, large_movers_step_as_a_square_by_square_reference_says)
{
    enum rules_size sizes[] = {RULES_SIZE_LARGE, RULES_SIZE_HUGE, RULES_SIZE_GARGANTUAN,
                               RULES_SIZE_COLOSSAL};
    for (int trial = 0; trial < 200; trial++) {
        struct world w = {.o = preset("d20-3.5")};
        rules_option_set(&w.o, "diagonals", true, "one_for_one", 0);
        w.map = open_map(30, 30);
        for (int i = 0; i < 30 * 30; i++) {
            int t = next(10);
            w.map.terrain[i] = (uint8_t)(t == 0   ? RULES_MAP_BLOCKED
                                         : t == 1 ? RULES_MAP_DIFFICULT
                                                  : RULES_MAP_CLEAR);
        }
        w.n = 1 + next(6);
        for (int k = 0; k < w.n; k++) {
            w.cs[k] = reaching(next(30), next(30), 5 * next(4));
            w.cs[k].ally = next(4) == 0;
        }
        enum rules_size size = sizes[next(4)];
        struct rules_mover m = mover_at(0, 0, 10000);
        rules_creature_init(&m.c, size, 8 + next(10), 8 + next(10), 0);
        int side = m.c.body.side;
        struct rules_step steps[12];
        int x = m.c.body.x, y = m.c.body.y;
        for (int i = 0; i < 12; i++) {
            x += next(3) - 1, y += next(3) - 1;
            steps[i] = (struct rules_step){x, y, -1};
        }
        struct rules_step_result res[12];
        struct rules_aoo aoos[8];
        struct rules_path_result p = {.steps = res, .aoos = aoos};
        struct rules_move_query q = {.o = &w.o,
                                     .map = &w.map,
                                     .creatures = w.cs,
                                     .creature_count = w.n,
                                     .mover = &m,
                                     .mode = RULES_MODE_RUN, /* its first square provokes too */
                                     .primary_target = -1};
        cr_assert_eq(rules_move_path(&q, steps, 12, -1, &p), RULES_MOVE_OK);
        bool seen[8] = {0};
        int aoo = 0;
        x = m.c.body.x, y = m.c.body.y;
        for (int i = 0; i < 12; i++) {
            int tx = steps[i].x, ty = steps[i].y;
            bool blocked, enemy, difficult, off;
            if (tx != x || ty != y) {
                reference_step(&w, size, side, x, y, tx, ty, &blocked, &enemy, &difficult, &off);
                uint32_t v = res[i].violations;
                cr_assert_eq((v >> RULES_MV_BLOCKED) & 1, blocked, "trial %d step %d", trial, i);
                cr_assert_eq((v >> RULES_MV_ENEMY_SQUARE) & 1, enemy, "trial %d step %d", trial, i);
                cr_assert_eq((v >> RULES_MV_OFF_MAP) & 1, off, "trial %d step %d", trial, i);
                if (!blocked && !off)
                    cr_assert_eq(res[i].cost_ft, difficult ? 10 : 5, "trial %d step %d", trial, i);
            }
            /* The enemies first threatening a square of the space this step leaves, in any
             * order: each is one of the step's attacks of opportunity. */
            bool provokes = false;
            for (int k = 0; k < w.n; k++)
                provokes |= threatens_space(&w, k, x, y, side);
            int fresh = 0;
            for (int k = 0; provokes && k < w.n; k++)
                if (!seen[k] && threatens_space(&w, k, x, y, side)) {
                    seen[k] = true;
                    fresh++;
                    bool listed = false;
                    for (int a = 0; a < p.aoo_count; a++)
                        listed |= aoos[a].creature == k && aoos[a].step == i;
                    cr_assert(listed, "trial %d step %d: enemy %d's attack is missing", trial, i,
                              k);
                }
            aoo += fresh;
            x = tx, y = ty;
        }
        cr_assert_eq(p.aoo_count, aoo, "trial %d", trial);
        rules_map_free(&w.map);
    }
}

/* Movement: each rule sentence of 001's movement and terrain sections and of 000's Facing and
 * Movement, with the documents' own examples. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rules/move/move.h"
#include "tests/rules/move_fixtures.h"

/* A map from rows: '.' clear, 'd' difficult, 'i' impeded, '#' blocked, 'o' blocked with
 * cuttable corners, 'h' hazardous, 'w' water, 'a' air, 'c' concealed clear. */
static struct rules_map map_of(const char *const *rows)
{
    int h = 0;
    while (rows[h] != NULL)
        h++;
    struct rules_map m;
    cr_assert_eq(rules_map_init(&m, (int)strlen(rows[0]), h), 0);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < m.width; x++) {
            size_t i = (size_t)y * (size_t)m.width + (size_t)x;
            switch (rows[y][x]) {
            case 'd':
                m.terrain[i] = RULES_MAP_DIFFICULT;
                break;
            case 'i':
                m.terrain[i] = RULES_MAP_IMPEDED;
                break;
            case '#':
                m.terrain[i] = RULES_MAP_BLOCKED;
                break;
            case 'o':
                m.terrain[i] = RULES_MAP_BLOCKED;
                m.flags[i] = RULES_SQUARE_CUTTABLE;
                break;
            case 'h':
                m.terrain[i] = RULES_MAP_HAZARDOUS;
                break;
            case 'w':
                m.terrain[i] = RULES_MAP_WATER;
                break;
            case 'a':
                m.terrain[i] = RULES_MAP_AIR;
                break;
            case 'c':
                m.flags[i] = RULES_SQUARE_CONCEALED;
                break;
            default:
                break;
            }
        }
    return m;
}

struct run {
    struct rules_path_result r;
    struct rules_step_result steps[64];
    struct rules_aoo aoos[16];
};

static void walk(const struct rules_options *o, const struct rules_map *map,
                 const struct rules_map_creature *cs, int nc, const struct rules_mover *m,
                 enum rules_move_mode mode, const int (*path)[2], int n, struct run *out)
{
    struct rules_step steps[64];
    for (int i = 0; i < n; i++)
        steps[i] = (struct rules_step){path[i][0], path[i][1], -1};
    struct rules_move_query q = {.o = o,
                                 .map = map,
                                 .creatures = cs,
                                 .creature_count = nc,
                                 .mover = m,
                                 .mode = mode,
                                 .primary_target = -1};
    out->r.steps = out->steps;
    out->r.aoos = out->aoos;
    cr_assert_eq(rules_move_path(&q, steps, n, -1, &out->r), RULES_MOVE_OK);
}

static bool has(const struct run *r, int step, enum rules_move_violation v)
{
    return (r->steps[step].violations & (1u << v)) != 0;
}

/* 000: "every other diagonal counts double"; 001: "Diagonal moves are the same as straight
 * moves". Three diagonals: 20 ft alternating (5 + 10 + 5), 15 ft one for one. */
Test(movement, three_diagonals)
{
    struct rules_options d35 = preset("d20-3.5"), ep = preset("epic-path");
    struct rules_map map = open_map(10, 10);
    struct rules_mover m = mover_at(0, 0, 30);
    const int path[][2] = {{1, 1}, {2, 2}, {3, 3}};
    struct run r;
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_MOVE, path, 3, &r);
    cr_assert(r.r.legal);
    cr_assert_eq(r.r.total_ft, 20);
    cr_assert_eq(r.steps[0].cost_ft, 5);
    cr_assert_eq(r.steps[1].cost_ft, 10);
    cr_assert(r.steps[1].why & RULES_COST_DIAGONAL_DOUBLE);
    cr_assert_eq(r.steps[2].cost_ft, 5);
    cr_assert_eq(r.r.remaining_ft[RULES_MOVE_WALK], 10);
    walk(&ep, &map, NULL, 0, &m, RULES_MODE_MOVE, path, 3, &r);
    cr_assert_eq(r.r.total_ft, 15);
    rules_map_free(&map);
}

/* 001 Encumbrance: "Wearing heavy armor and carrying enough weight to place you in Medium
 * encumbrance reduces your movement by 15 feet if your Walk speed is above twenty feet or 10
 * feet if your Walk speed is twenty feet or below." */
Test(movement, heavy_armor_and_medium_load)
{
    struct rules_options ep = preset("epic-path");
    struct rules_mover m = mover_at(0, 0, 30);
    m.armor = RULES_BURDEN_HEAVY, m.load = RULES_BURDEN_MEDIUM;
    struct rules_speed s;
    rules_speed_eval(&ep, &m, &s);
    cr_assert_eq(s.walk_ft, 15);
    cr_assert_eq(s.armor_penalty_ft, 10);
    cr_assert_eq(s.load_penalty_ft, 5);
    m.speed[RULES_MOVE_WALK] = 20;
    rules_speed_eval(&ep, &m, &s);
    cr_assert_eq(s.walk_ft, 10);
    /* Read literally (the d20 presets' option value 0), medium load costs nothing at 20. */
    struct rules_options d35 = preset("d20-3.5");
    rules_speed_eval(&d35, &m, &s);
    cr_assert_eq(s.walk_ft, 15);
}

/* 001 Encumbrance: "a creature wearing heavy armor and carrying a heavy encumbrance has a Run
 * multiplier of only x1"; "A normal Run action is made at 5x"; medium "x4". 001 Run: "four
 * times ... (or three times ... heavy armor)". */
Test(movement, run_multipliers)
{
    struct rules_options ep = preset("epic-path"), d35 = preset("d20-3.5");
    struct rules_mover m = mover_at(0, 0, 30);
    struct rules_speed s;
    rules_speed_eval(&ep, &m, &s);
    cr_assert_eq(s.run_multiplier, 5);
    cr_assert_eq(s.run_ft, 150);
    m.load = RULES_BURDEN_MEDIUM;
    rules_speed_eval(&ep, &m, &s);
    cr_assert_eq(s.run_multiplier, 4);
    m.armor = RULES_BURDEN_HEAVY, m.load = RULES_BURDEN_HEAVY;
    rules_speed_eval(&ep, &m, &s);
    cr_assert_eq(s.run_multiplier, 1);
    cr_assert_eq(s.walk_ft, 10); /* 30 - 10 - 10 */
    cr_assert_eq(s.run_ft, 10);
    m = mover_at(0, 0, 30);
    rules_speed_eval(&d35, &m, &s);
    cr_assert_eq(s.run_multiplier, 4);
    m.armor = RULES_BURDEN_HEAVY;
    rules_speed_eval(&d35, &m, &s);
    cr_assert_eq(s.run_multiplier, 3);
}

/* 001 Run: "run for a number of rounds equal to their Constitution score, but after that
 * they must make a DC 30 might check ... increases by +2 for each check". */
Test(movement, running_rounds)
{
    struct rules_options ep = preset("epic-path");
    struct rules_mover m = mover_at(0, 0, 30);
    m.constitution = 14;
    struct rules_speed s;
    rules_speed_eval(&ep, &m, &s);
    cr_assert_eq(s.run_rounds, 14);
    cr_assert_eq(rules_run_check_dc(0), 30);
    cr_assert_eq(rules_run_check_dc(1), 32);
    cr_assert_eq(rules_run_check_dc(3), 36);
}

/* 001 Encumbrance: "If these penalties reduce your base move to zero, you can no longer use a
 * move action to move." */
Test(movement, penalties_to_zero)
{
    struct rules_options ep = preset("epic-path");
    struct rules_mover m = mover_at(0, 0, 10);
    m.armor = RULES_BURDEN_HEAVY, m.load = RULES_BURDEN_MEDIUM;
    struct rules_speed s;
    rules_speed_eval(&ep, &m, &s);
    cr_assert_eq(s.walk_ft, 0);
    cr_assert_not(s.move_action);
    struct rules_map map = open_map(5, 5);
    const int path[][2] = {{1, 0}};
    struct run r;
    walk(&ep, &map, NULL, 0, &m, RULES_MODE_MOVE, path, 1, &r);
    cr_assert(r.r.action_violations & (1u << RULES_MV_NO_MOVE_ACTION));
    rules_map_free(&map);
}

/* 001 Combining Movement Types, the example: Walk 30 and Lesser Swim 120. */
Test(movement, walk_thirty_and_swim_one_twenty)
{
    struct rules_options ep = preset("epic-path");
    const char *rows[] = {".......wwwwwwwwwwwwwwwwwwww", NULL};
    struct rules_map map = map_of(rows);
    struct rules_mover m = mover_at(0, 0, 30);
    m.speed[RULES_MOVE_SWIM] = 120;
    int path[25][2];
    for (int i = 0; i < 25; i++)
        path[i][0] = i + 1, path[i][1] = 0;
    struct run r;
    /* "Walk on the ground up to 30 feet, and if the next square ... was swimmable water ...
     * swim up to 90 additional feet": 6 ground squares and 18 water squares is 120 ft. */
    walk(&ep, &map, NULL, 0, &m, RULES_MODE_MOVE, (const int(*)[2])path, 24, &r);
    cr_assert(r.r.legal);
    cr_assert_eq(r.r.total_ft, 120);
    cr_assert_eq(r.steps[5].type, RULES_MOVE_WALK);
    cr_assert_eq(r.steps[6].type, RULES_MOVE_SWIM);
    cr_assert_eq(r.r.remaining_ft[RULES_MOVE_WALK], 0);
    walk(&ep, &map, NULL, 0, &m, RULES_MODE_MOVE, (const int(*)[2])path, 25, &r);
    cr_assert(has(&r, 24, RULES_MV_OUT_OF_MOVEMENT));
    cr_assert_eq(r.r.steps_in_budget, 24);

    /* "If the lake requires more than 30 feet of Walk speed to get to, the creature cannot
     * reach the lake". */
    const char *far[] = {"........wwww", NULL};
    struct rules_map map2 = map_of(far);
    walk(&ep, &map2, NULL, 0, &m, RULES_MODE_MOVE, (const int(*)[2])path, 8, &r);
    cr_assert(has(&r, 6, RULES_MV_OUT_OF_MOVEMENT));

    /* "if it uses a move action to first swim 35 or more feet, it cannot use its Walk speed
     * during any later portion of that move action". */
    const char *lake[] = {"wwwwwwww....", NULL};
    struct rules_map map3 = map_of(lake);
    walk(&ep, &map3, NULL, 0, &m, RULES_MODE_MOVE, (const int(*)[2])path, 8, &r);
    cr_assert_not(has(&r, 6, RULES_MV_OUT_OF_MOVEMENT)); /* 35 ft swum, still water */
    cr_assert(has(&r, 7, RULES_MV_OUT_OF_MOVEMENT));     /* ground: Walk is at 0 */
    rules_map_free(&map);
    rules_map_free(&map2);
    rules_map_free(&map3);
}

/* 001 Difficult Terrain: "each square moved into counts as two squares"; "Characters cannot
 * run or charge through difficult terrain, nor can they take 5-foot steps." */
Test(movement, difficult_terrain)
{
    struct rules_options d35 = preset("d20-3.5");
    const char *rows[] = {".dd...", NULL};
    struct rules_map map = map_of(rows);
    struct rules_mover m = mover_at(0, 0, 30);
    const int path[][2] = {{1, 0}, {2, 0}, {3, 0}};
    struct run r;
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_MOVE, path, 3, &r);
    cr_assert(r.r.legal);
    cr_assert_eq(r.steps[0].cost_ft, 10);
    cr_assert(r.steps[0].why & RULES_COST_DIFFICULT);
    cr_assert_eq(r.r.total_ft, 25);
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_RUN, path, 3, &r);
    cr_assert(has(&r, 0, RULES_MV_RUN_TERRAIN));
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_CHARGE, path, 3, &r);
    cr_assert(has(&r, 0, RULES_MV_RUN_TERRAIN));
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_STEP, path, 1, &r);
    cr_assert(has(&r, 0, RULES_MV_STEP_TERRAIN));
    /* A diagonal into difficult terrain: the second diagonal counts 10, doubled to 20. */
    const char *diag[] = {"...", "...", "..d", NULL};
    struct rules_map map2 = map_of(diag);
    const int dpath[][2] = {{1, 1}, {2, 2}};
    walk(&d35, &map2, NULL, 0, &m, RULES_MODE_MOVE, dpath, 2, &r);
    cr_assert_eq(r.steps[1].cost_ft, 20);
    rules_map_free(&map);
    rules_map_free(&map2);
}

/* 001 Impeded Terrain: "must use a full-round action to move 5 feet. This is not treated as a
 * 5-foot step and does provoke attacks of opportunity." */
Test(movement, impeded_terrain)
{
    struct rules_options d35 = preset("d20-3.5");
    const char *rows[] = {".ii.", NULL};
    struct rules_map map = map_of(rows);
    struct rules_mover m = mover_at(0, 0, 30);
    const int path[][2] = {{1, 0}, {2, 0}};
    struct run r;
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_MOVE, path, 1, &r);
    cr_assert(has(&r, 0, RULES_MV_IMPEDED));
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_DOUBLE, path, 1, &r);
    cr_assert(r.r.legal);
    cr_assert_eq(r.r.total_ft, 60);
    cr_assert_eq(r.r.remaining_ft[RULES_MOVE_WALK], 0);
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_DOUBLE, path, 2, &r);
    cr_assert(has(&r, 1, RULES_MV_IMPEDED));
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_STEP, path, 1, &r);
    cr_assert(has(&r, 0, RULES_MV_STEP_TERRAIN));
    /* Provokes: an enemy beside the impeded square. */
    struct rules_map_creature e = enemy_at(1, 1);
    struct rules_mover m2 = mover_at(1, 0, 30);
    const int out[][2] = {{2, 0}};
    walk(&d35, &map, &e, 1, &m2, RULES_MODE_DOUBLE, out, 1, &r);
    cr_assert(r.r.legal);
    cr_assert_eq(r.r.aoo_count, 0); /* 004: a double move's starting square is not threatened */
    struct rules_options ep = preset("epic-path");
    walk(&ep, &map, &e, 1, &m2, RULES_MODE_DOUBLE, out, 1, &r);
    cr_assert_eq(r.r.aoo_count, 1); /* 001: leaving any threatened square provokes */
    rules_map_free(&map);
}

/* 001 Blocked Terrain and Cutting Corners. */
Test(movement, blocked_and_corners)
{
    struct rules_options d35 = preset("d20-3.5");
    const char *rows[] = {".#.", "...", ".o.", NULL};
    struct rules_map map = map_of(rows);
    struct rules_mover m = mover_at(0, 1, 30);
    struct run r;
    const int into[][2] = {{1, 0}};
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_MOVE, into, 1, &r);
    cr_assert(has(&r, 0, RULES_MV_BLOCKED));
    /* "If the blocked space ... is completely filled ... you cannot cut a corner". */
    struct rules_mover m2 = mover_at(0, 0, 30);
    const int cut[][2] = {{1, 1}, {2, 0}};
    walk(&d35, &map, NULL, 0, &m2, RULES_MODE_MOVE, cut, 2, &r);
    cr_assert(has(&r, 0, RULES_MV_CORNER)); /* (1,0), a wall, is beside the first diagonal */
    cr_assert(has(&r, 1, RULES_MV_CORNER)); /* and beside the second */
    /* "a statue, a large tree or rounded pillar, then you can still cut the corner". */
    struct rules_mover m3 = mover_at(0, 1, 30);
    const int pillar[][2] = {{1, 2}, {2, 1}};
    walk(&d35, &map, NULL, 0, &m3, RULES_MODE_MOVE, pillar, 2, &r);
    cr_assert_not(has(&r, 0, RULES_MV_CORNER));
    cr_assert(has(&r, 0, RULES_MV_BLOCKED)); /* cutting past a pillar is not entering it */
    const int around[][2] = {{1, 1}, {2, 2}};
    walk(&d35, &map, NULL, 0, &m3, RULES_MODE_MOVE, around, 2, &r);
    cr_assert(r.r.legal);
    rules_map_free(&map);
}

/* 001 Walk: "Characters can only walk through unoccupied spaces or spaces occupied by allies,
 * and any walk must end in an unoccupied space"; 001 Stepover: "2 size categories or larger
 * ... ending its move either on or past the smaller creature". */
Test(movement, occupied_squares_and_stepover)
{
    struct rules_options d35 = preset("d20-3.5");
    struct rules_map map = open_map(8, 8);
    struct rules_mover m = mover_at(0, 0, 30);
    struct rules_map_creature cs[2] = {enemy_at(2, 0), enemy_at(1, 0)};
    cs[1].ally = true;
    struct run r;
    const int pass_ally[][2] = {{1, 0}};
    walk(&d35, &map, cs, 2, &m, RULES_MODE_MOVE, pass_ally, 1, &r);
    cr_assert(has(&r, 0, RULES_MV_END_OCCUPIED));
    const int through[][2] = {{1, 0}, {1, 1}};
    walk(&d35, &map, cs, 2, &m, RULES_MODE_MOVE, through, 2, &r);
    cr_assert(r.r.legal);
    const int into_enemy[][2] = {{1, 1}, {2, 0}, {3, 0}};
    walk(&d35, &map, cs, 2, &m, RULES_MODE_MOVE, into_enemy, 3, &r);
    cr_assert(has(&r, 1, RULES_MV_ENEMY_SQUARE));
    /* A Large mover (2 squares) over a Medium enemy: one size apart is not enough. */
    struct rules_mover big = mover_at(0, 2, 40);
    rules_creature_init(&big.c, RULES_SIZE_LARGE, 0, 2, 0);
    struct rules_map_creature small = enemy_at(3, 2);
    const int over[][2] = {{1, 2}, {2, 2}};
    walk(&d35, &map, &small, 1, &big, RULES_MODE_MOVE, over, 2, &r);
    cr_assert_not(has(&r, 0, RULES_MV_ENEMY_SQUARE));
    cr_assert(has(&r, 1, RULES_MV_ENEMY_SQUARE));
    rules_creature_init(&big.c, RULES_SIZE_HUGE, 0, 2, 0);
    walk(&d35, &map, &small, 1, &big, RULES_MODE_MOVE, over, 2, &r);
    cr_assert(r.r.legal);
    cr_assert(r.steps[0].why & RULES_COST_STEPOVER);
    rules_map_free(&map);
}

/* 001 Space and Reach (Medium: fits 5 ft, squeezes 2 1/2 ft, 1 ft as impeded) and Squeezing:
 * "Entering a square which requires you to squeeze counts as difficult terrain." */
Test(movement, gaps_and_squeezing)
{
    struct rules_options d35 = preset("d20-3.5");
    struct rules_map map = open_map(4, 1);
    map.gap_in = calloc(4, sizeof *map.gap_in);
    struct rules_mover m = mover_at(0, 0, 30);
    const int path[][2] = {{1, 0}};
    struct run r;
    map.gap_in[1] = 36;
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_MOVE, path, 1, &r);
    cr_assert(r.r.legal);
    cr_assert_eq(r.steps[0].cost_ft, 10);
    cr_assert(r.steps[0].why & RULES_COST_SQUEEZE);
    map.gap_in[1] = 12;
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_MOVE, path, 1, &r);
    cr_assert(has(&r, 0, RULES_MV_IMPEDED));
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_DOUBLE, path, 1, &r);
    cr_assert(r.r.legal);
    map.gap_in[1] = 11;
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_DOUBLE, path, 1, &r);
    cr_assert(has(&r, 0, RULES_MV_GAP));
    map.gap_in[1] = 60;
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_MOVE, path, 1, &r);
    cr_assert_eq(r.steps[0].cost_ft, 5);
    rules_map_free(&map);
}

/* 001 5-Foot Step and its Other Considerations. */
Test(movement, five_foot_steps)
{
    struct rules_options d35 = preset("d20-3.5");
    const char *rows[] = {".c.", "...", NULL};
    struct rules_map map = map_of(rows);
    struct rules_map_creature e = enemy_at(2, 1);
    struct rules_mover m = mover_at(1, 1, 30);
    struct run r;
    const int side[][2] = {{0, 1}};
    walk(&d35, &map, &e, 1, &m, RULES_MODE_STEP, side, 1, &r);
    cr_assert(r.r.legal);
    cr_assert_eq(r.r.aoo_count, 0); /* "without provoking attacks of opportunity" */
    cr_assert_eq(r.r.total_ft, 5);
    const int dark[][2] = {{1, 0}};
    walk(&d35, &map, &e, 1, &m, RULES_MODE_STEP, dark, 1, &r);
    cr_assert(has(&r, 0, RULES_MV_STEP_CONCEALED));
    m.darkvision = true;
    walk(&d35, &map, &e, 1, &m, RULES_MODE_STEP, dark, 1, &r);
    cr_assert(r.r.legal);
    const int two[][2] = {{0, 1}, {0, 0}};
    walk(&d35, &map, &e, 1, &m, RULES_MODE_STEP, two, 2, &r);
    cr_assert(has(&r, 1, RULES_MV_STEP_LENGTH));
    m.moved = true;
    walk(&d35, &map, &e, 1, &m, RULES_MODE_STEP, side, 1, &r);
    cr_assert(r.r.action_violations & (1u << RULES_MV_STEP_MOVED));
    m.extra_steps = 1; /* "classes ... allow them to make ... 5-foot steps ... in rounds in
                          which they have already moved" */
    walk(&d35, &map, &e, 1, &m, RULES_MODE_STEP, side, 1, &r);
    cr_assert(r.r.legal);
    struct rules_mover slow = mover_at(1, 1, 5);
    walk(&d35, &map, &e, 1, &slow, RULES_MODE_STEP, side, 1, &r);
    cr_assert(r.r.action_violations & (1u << RULES_MV_STEP_SLOW));
    struct rules_mover ran = mover_at(1, 1, 30);
    ran.ran = true; /* 001 Run: "they may not perform any 5-Foot Steps during the same round" */
    walk(&d35, &map, &e, 1, &ran, RULES_MODE_STEP, side, 1, &r);
    cr_assert(r.r.action_violations & (1u << RULES_MV_STEP_MOVED));
    rules_map_free(&map);
}

/* 001 Run: "Characters may not use the 'run' action if they cannot see"; Crawling: "While
 * Quelled, Prone, or Splayed, you can crawl 5 feet as a move action. Crawling provokes". */
Test(movement, run_blind_and_crawl)
{
    struct rules_options d35 = preset("d20-3.5");
    struct rules_map map = open_map(5, 5);
    struct rules_mover m = mover_at(1, 1, 30);
    m.blinded = true;
    struct run r;
    const int path[][2] = {{2, 1}, {3, 1}};
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_RUN, path, 2, &r);
    cr_assert(r.r.action_violations & (1u << RULES_MV_BLIND));
    m.blinded = false;
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_CRAWL, path, 1, &r);
    cr_assert(r.r.action_violations & (1u << RULES_MV_NOT_PRONE));
    m.prone = true;
    struct rules_map_creature e = enemy_at(1, 2);
    walk(&d35, &map, &e, 1, &m, RULES_MODE_CRAWL, path, 1, &r);
    cr_assert(r.r.legal);
    cr_assert_eq(r.r.aoo_count, 1);
    walk(&d35, &map, &e, 1, &m, RULES_MODE_CRAWL, path, 2, &r);
    cr_assert(has(&r, 1, RULES_MV_OUT_OF_MOVEMENT));
    /* Prone, only a crawl: a walk, a run or even a 5-foot step waits for standing up (001 Part
     * of a Move Action). */
    static const enum rules_move_mode modes[] = {RULES_MODE_MOVE, RULES_MODE_DOUBLE, RULES_MODE_RUN,
                                                 RULES_MODE_CHARGE, RULES_MODE_STEP};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        walk(&d35, &map, NULL, 0, &m, modes[i], path, 1, &r);
        cr_assert(r.r.action_violations & (1u << RULES_MV_PRONE), "mode %d", (int)modes[i]);
        cr_assert(!r.r.legal);
    }
    m.prone = false;
    walk(&d35, &map, NULL, 0, &m, RULES_MODE_MOVE, path, 1, &r);
    cr_assert(r.r.legal);
    rules_map_free(&map);
}

/* 004: "If all a combatant does is take a normal move or a double move (not a run), the space
 * that the combatant started out in is not considered threatened"; 001 Double Move: "you can
 * only be the target of one attack of opportunity per enemy creature". */
Test(movement, attacks_of_opportunity)
{
    struct rules_options d35 = preset("d20-3.5"), ep = preset("epic-path");
    struct rules_map map = open_map(8, 8);
    struct rules_map_creature e = enemy_at(2, 2);
    struct rules_mover m = mover_at(1, 1, 30);
    struct run r;
    const int along[][2] = {{1, 2}, {1, 3}, {1, 4}};
    walk(&d35, &map, &e, 1, &m, RULES_MODE_MOVE, along, 3, &r);
    cr_assert_eq(r.r.aoo_count, 1);
    cr_assert_eq(r.aoos[0].step, 1); /* leaving (1,2), not the start */
    cr_assert_eq(r.aoos[0].from_y, 2);
    walk(&d35, &map, &e, 1, &m, RULES_MODE_RUN, along, 3, &r);
    cr_assert_eq(r.r.aoo_count, 1);
    cr_assert_eq(r.aoos[0].step, 0); /* a run: the start counts */
    walk(&ep, &map, &e, 1, &m, RULES_MODE_MOVE, along, 3, &r);
    cr_assert_eq(r.aoos[0].step, 0);
    /* Unconscious enemies and ones that cannot threaten do not attack. */
    e.conscious = false;
    walk(&ep, &map, &e, 1, &m, RULES_MODE_MOVE, along, 3, &r);
    cr_assert_eq(r.r.aoo_count, 0);
    rules_map_free(&map);
}

/* 001 Withdraw: "Each square of your movement must take you further away from the primary
 * target" and "the primary target may not make any attacks of opportunity". */
Test(movement, withdraw)
{
    struct rules_options ep = preset("epic-path");
    struct rules_map map = open_map(8, 8);
    struct rules_map_creature cs[2] = {enemy_at(3, 2), enemy_at(2, 1)};
    struct rules_mover m = mover_at(2, 2, 30);
    struct rules_step away[2] = {{1, 2, -1}, {0, 2, -1}};
    struct rules_move_query q = {.o = &ep,
                                 .map = &map,
                                 .creatures = cs,
                                 .creature_count = 2,
                                 .mover = &m,
                                 .mode = RULES_MODE_WITHDRAW,
                                 .primary_target = 0};
    struct run r;
    r.r.steps = r.steps, r.r.aoos = r.aoos;
    cr_assert_eq(rules_move_path(&q, away, 2, -1, &r.r), 0);
    cr_assert(r.r.legal);
    cr_assert_eq(r.r.aoo_count, 1);
    cr_assert_eq(r.aoos[0].creature, 1);
    bool no_attack[2] = {false, true}; /* the Movement check beat the other one */
    q.no_attack = no_attack;
    cr_assert_eq(rules_move_path(&q, away, 2, -1, &r.r), 0);
    cr_assert_eq(r.r.aoo_count, 0);
    struct rules_step sideways[1] = {{2, 3, -1}}; /* still one square from (3,2) */
    cr_assert_eq(rules_move_path(&q, sideways, 1, -1, &r.r), 0);
    cr_assert(has(&r, 0, RULES_MV_WITHDRAW_CLOSER));
    q.primary_target = -1;
    cr_assert_eq(rules_move_path(&q, away, 2, -1, &r.r), 0);
    cr_assert(r.r.action_violations & (1u << RULES_MV_WITHDRAW_TARGET));
    rules_map_free(&map);
}

static int attack_sum(const struct rules_attack_eval *e)
{
    int s = 0;
    for (int i = 0; i < e->mod_count; i++)
        if (e->mods[i].applied && e->mods[i].applies_to == RULES_APPLIES_ATTACK)
            s += e->mods[i].value;
    return s;
}

/* 000 Attacks of Opportunity, figures 1 to 3: a fighter facing west; the rogue goes past. */
Test(movement, combat_facing_figures)
{
    struct rules_options o = preset("d20-3.5-facing");
    struct rules_map map = open_map(10, 10);
    struct rules_map_creature fighter = enemy_at(5, 5);
    fighter.c.facing = 6;
    struct run r;
    /* Figure 1: "Because the fighter is in her flank area, he gets a +2 bonus". */
    struct rules_mover rogue = mover_at(4, 4, 30);
    rogue.c.facing = 4;
    const int past[][2] = {{4, 5}, {4, 6}, {4, 7}};
    walk(&o, &map, &fighter, 1, &rogue, RULES_MODE_MOVE, past, 3, &r);
    cr_assert(r.r.legal);
    cr_assert_eq(r.r.aoo_count, 1);
    cr_assert_eq(r.aoos[0].eval.attacker_area, RULES_AREA_FLANK);
    cr_assert_eq(attack_sum(&r.aoos[0].eval), 2);
    cr_assert_eq(r.r.total_ft, 15);
    /* Figure 2: sideways, still facing the fighter: "it costs her two squares of movement to
     * enter each square ... he doesn't get the +2 bonus". */
    struct rules_step side[2] = {{4, 5, 2}, {4, 6, 2}};
    struct rules_move_query q = {.o = &o,
                                 .map = &map,
                                 .creatures = &fighter,
                                 .creature_count = 1,
                                 .mover = &rogue,
                                 .mode = RULES_MODE_MOVE,
                                 .primary_target = -1};
    r.r.steps = r.steps, r.r.aoos = r.aoos;
    cr_assert_eq(rules_move_path(&q, side, 2, -1, &r.r), 0);
    cr_assert_eq(r.steps[0].cost_ft, 10);
    cr_assert(r.steps[0].why & RULES_COST_BACKWARD);
    cr_assert_eq(r.r.total_ft, 20);
    cr_assert_eq(r.r.aoo_count, 1);
    cr_assert_eq(r.aoos[0].eval.attacker_area, RULES_AREA_FRONT);
    cr_assert_eq(attack_sum(&r.aoos[0].eval), 0);
    /* Figure 3: around the fighter's back: "-10 penalty because the rogue is in the fighter's
     * rear area. The fighter also gets a +2 bonus because he's in the rogue's flank area". */
    struct rules_mover back = mover_at(6, 4, 30);
    back.c.facing = 4;
    const int around[][2] = {{6, 5}, {6, 6}, {6, 7}};
    walk(&o, &map, &fighter, 1, &back, RULES_MODE_MOVE, around, 3, &r);
    cr_assert_eq(r.r.aoo_count, 1);
    cr_assert_eq(r.aoos[0].from_y, 5);
    cr_assert_eq(attack_sum(&r.aoos[0].eval), 2 - 10);
    /* 000 Combat Reflexes waives the penalty into flank areas only: the rear's -10 stays. */
    fighter.combat_reflexes = true;
    walk(&o, &map, &fighter, 1, &back, RULES_MODE_MOVE, around, 3, &r);
    cr_assert_eq(attack_sum(&r.aoos[0].eval), 2 - 10);
    /* 000 5-Foot Steps: "you can move into any adjacent square, even squares in your rear or
     * on your flank" at 5 ft. */
    struct rules_mover stepper = mover_at(2, 2, 30);
    const int behind[][2] = {{2, 3}};
    walk(&o, &map, NULL, 0, &stepper, RULES_MODE_STEP, behind, 1, &r);
    cr_assert(r.r.legal);
    cr_assert_eq(r.r.total_ft, 5);
    rules_map_free(&map);
}

/* Reach: every square within the budget by each diagonal rule, counted independently. */
Test(movement, reach_counts)
{
    struct rules_options d35 = preset("d20-3.5"), ep = preset("epic-path");
    struct rules_map map = open_map(41, 41);
    struct rules_mover m = mover_at(20, 20, 30);
    struct rules_move_query q = {
        .o = &d35, .map = &map, .mover = &m, .mode = RULES_MODE_MOVE, .primary_target = -1};
    struct rules_reach *r;
    cr_assert_eq(rules_move_reach(&q, false, &r), 0);
    int expect = 0;
    for (int dy = -6; dy <= 6; dy++)
        for (int dx = -6; dx <= 6; dx++) {
            int a = dx < 0 ? -dx : dx, b = dy < 0 ? -dy : dy;
            int hi = a > b ? a : b, lo = a > b ? b : a;
            if ((a || b) && 5 * (hi + lo / 2) <= 30)
                expect++;
        }
    cr_assert_eq(rules_reach_count(r), expect);
    for (int i = 0; i < rules_reach_count(r); i++) {
        struct rules_reach_square s;
        rules_reach_get(r, i, &s);
        int a = abs(s.x - 20), b = abs(s.y - 20);
        int hi = a > b ? a : b, lo = a > b ? b : a;
        cr_assert_eq(s.cost_ft, 5 * (hi + lo / 2), "(%d,%d)", s.x, s.y);
    }
    rules_reach_free(r);
    q.o = &ep;
    cr_assert_eq(rules_move_reach(&q, false, &r), 0);
    cr_assert_eq(rules_reach_count(r), 13 * 13 - 1);
    rules_reach_free(r);
    /* A run (001 Encumbrance: x5, 150 ft) covers the whole map. */
    q.mode = RULES_MODE_RUN;
    cr_assert_eq(rules_move_reach(&q, false, &r), 0);
    cr_assert_eq(rules_reach_count(r), 41 * 41 - 1); /* clipped by the map */
    rules_reach_free(r);
    rules_map_free(&map);
}

/* Reach around enemies: the cheapest path provokes; preferring fewest attacks of opportunity
 * takes the long way when the budget allows, and the listing names the attacker. */
Test(movement, reach_prefers_fewest_attacks)
{
    struct rules_options ep = preset("epic-path");
    /* A short corridor past an enemy in an alcove, and a long one out of its reach. */
    const char *rows[] = {"###.#####", ".........", ".#######.", ".........", NULL};
    struct rules_map map = map_of(rows);
    struct rules_map_creature e = enemy_at(3, 0);
    struct rules_mover m = mover_at(0, 1, 60);
    struct rules_move_query q = {.o = &ep,
                                 .map = &map,
                                 .creatures = &e,
                                 .creature_count = 1,
                                 .mover = &m,
                                 .mode = RULES_MODE_MOVE,
                                 .primary_target = -1};
    struct rules_reach *r;
    struct rules_reach_square s;
    int who[4], fx[4], fy[4];
    for (int prefer = 0; prefer < 2; prefer++) {
        cr_assert_eq(rules_move_reach(&q, prefer, &r), 0);
        int found = -1;
        for (int i = 0; i < rules_reach_count(r); i++) {
            rules_reach_get(r, i, &s);
            if (s.x == 8 && s.y == 1)
                found = i;
        }
        cr_assert_geq(found, 0);
        rules_reach_get(r, found, &s);
        struct rules_step path[32];
        int n = rules_reach_path(r, found, path, 32);
        cr_assert_eq(n * 5, s.cost_ft);
        if (!prefer) {
            cr_assert_eq(s.cost_ft, 40);        /* straight along the short corridor */
            cr_assert_eq(s.provoking_steps, 3); /* leaving (2,1), (3,1) and (4,1)... */
            cr_assert_eq(rules_reach_aoos(r, found, who, fx, fy), 1); /* ...one attack */
            cr_assert_eq(who[0], 0);
            cr_assert_eq(fx[0], 2); /* leaving (2,1), the first square it threatens */
        } else {
            cr_assert_eq(s.cost_ft, 60); /* down, along row 3, and up: 12 squares */
            cr_assert_eq(s.provoking_steps, 0);
            cr_assert_eq(rules_reach_aoos(r, found, who, fx, fy), 0);
            for (int i = 0; i < n; i++)
                cr_assert(path[i].y == 3 || path[i].x == 0 || path[i].x == 8, "(%d,%d)", path[i].x,
                          path[i].y);
        }
        rules_reach_free(r);
    }
    rules_map_free(&map);
}

/* Route: around a wall, and to a square threatening a creature. */
Test(movement, route)
{
    struct rules_options ep = preset("epic-path");
    const char *rows[] = {"..#....", "..#....", "..#....", ".......", NULL};
    struct rules_map map = map_of(rows);
    struct rules_mover m = mover_at(0, 0, 30);
    struct rules_move_query q = {
        .o = &ep, .map = &map, .mover = &m, .mode = RULES_MODE_MOVE, .primary_target = -1};
    struct rules_route_goal g = {.x = 4, .y = 0, .creature = -1};
    struct rules_step steps[64];
    int cost = 0;
    int n = rules_move_route(&q, &g, steps, 64, &cost);
    /* Through the only gap, (2,3), entered and left straight because the wall's corners
     * cannot be cut: 3 steps to (1,3), then (2,3), (3,3), and 3 more up to (4,0). */
    cr_assert_eq(n, 8);
    cr_assert_eq(cost, 40);
    cr_assert_eq(steps[3].x, 2);
    cr_assert_eq(steps[3].y, 3);
    cr_assert_eq(steps[n - 1].x, 4);
    struct rules_map_creature e = enemy_at(6, 3);
    q.creatures = &e, q.creature_count = 1;
    g = (struct rules_route_goal){.creature = 0};
    n = rules_move_route(&q, &g, steps, 64, &cost);
    cr_assert_gt(n, 0);
    struct rules_creature me = m.c;
    me.body.x = steps[n - 1].x, me.body.y = steps[n - 1].y;
    cr_assert(rules_threatens_creature(&ep, &me, &e.c));
    cr_assert_eq(cost, 5 * n);
    g = (struct rules_route_goal){.x = 2, .y = 0, .creature = -1};
    cr_assert_eq(rules_move_route(&q, &g, steps, 64, &cost), -1); /* a wall square */
    rules_map_free(&map);
}

static struct rules_forced_result force(const struct rules_options *o, const struct rules_map *map,
                                        const struct rules_map_creature *cs, int nc,
                                        struct rules_forced_query q, const int (*path)[2], int n)
{
    struct rules_step steps[16];
    for (int i = 0; i < n; i++)
        steps[i] = (struct rules_step){path[i][0], path[i][1], -1};
    q.o = o, q.map = map, q.creatures = cs, q.creature_count = nc;
    q.path = steps, q.path_len = n;
    struct rules_forced_result out;
    rules_move_forced(&q, &out);
    return out;
}

/* 001 Forced Movement, Push, Pull, Slide. */
Test(movement, forced_movement)
{
    struct rules_options ep = preset("epic-path");
    const char *rows[] = {"........", "......#.", "....h...", NULL};
    struct rules_map map = map_of(rows);
    struct rules_forced_query q = {.kind = RULES_FORCED_PUSH, .squares = 3, .fall_prone_at = -1};
    rules_creature_init(&q.attacker, RULES_SIZE_MEDIUM, 0, 1, 0);
    rules_creature_init(&q.target, RULES_SIZE_MEDIUM, 1, 1, 0);
    const int away[][2] = {{2, 1}, {3, 1}, {4, 1}};
    struct rules_forced_result r = force(&ep, &map, NULL, 0, q, away, 3);
    cr_assert_eq(r.stop, RULES_FORCED_COMPLETE);
    cr_assert_eq(r.x, 4);
    cr_assert_eq(r.moved, 3);
    /* "If any squares in the desired path are blocked or occupied by any creatures (friend or
     * foe) the push ends in the square prior to this obstruction." */
    struct rules_map_creature friend = enemy_at(3, 1);
    friend.ally = true;
    r = force(&ep, &map, &friend, 1, q, away, 3);
    cr_assert_eq(r.stop, RULES_FORCED_OBSTRUCTED);
    cr_assert_eq(r.x, 2);
    cr_assert_eq(r.obstacle, 0);
    q.target.body.x = 3;
    const int wall[][2] = {{4, 1}, {5, 1}, {6, 1}};
    r = force(&ep, &map, NULL, 0, q, wall, 3);
    cr_assert_eq(r.stop, RULES_FORCED_BLOCKED);
    cr_assert_eq(r.x, 5);
    /* "Each square of this forced movement must be further away from the attacker's squares". */
    q.target.body.x = 1;
    const int back[][2] = {{1, 0}, {0, 0}};
    r = force(&ep, &map, NULL, 0, q, back, 2);
    cr_assert_eq(r.stop, RULES_FORCED_DIRECTION);
    cr_assert_eq(r.moved, 0);
    /* Pull: closer, then any other square adjacent to the attacker. */
    q.kind = RULES_FORCED_PULL;
    q.target.body.x = 3;
    const int pull[][2] = {{2, 1}, {1, 1}, {1, 0}};
    r = force(&ep, &map, NULL, 0, q, pull, 3);
    cr_assert_eq(r.stop, RULES_FORCED_COMPLETE);
    cr_assert_eq(r.x, 1);
    cr_assert_eq(r.y, 0);
    /* Slide: any path; hazardous squares entered are reported; falling prone stops it. */
    q.kind = RULES_FORCED_SLIDE;
    q.target.body.x = 3, q.target.body.y = 1;
    const int slide[][2] = {{4, 2}, {5, 2}};
    r = force(&ep, &map, NULL, 0, q, slide, 2);
    cr_assert_eq(r.hazard_count, 1);
    cr_assert_eq(r.hazards[0], 0);
    q.fall_prone_at = 0; /* "including its starting square" */
    r = force(&ep, &map, NULL, 0, q, slide, 2);
    cr_assert_eq(r.stop, RULES_FORCED_PRONE);
    cr_assert_eq(r.moved, 0);
    cr_assert(r.prone);
    q.fall_prone_at = -1;
    q.voluntarily_prone = true;
    r = force(&ep, &map, NULL, 0, q, slide, 2);
    cr_assert_eq(r.stop, RULES_FORCED_IGNORED);
    q.voluntarily_prone = false;
    q.reduction = 2; /* "the sum of the reductions offered" */
    r = force(&ep, &map, NULL, 0, q, slide, 2);
    cr_assert_eq(r.moved, 1);
    cr_assert_eq(r.stop, RULES_FORCED_RESISTED);
    q.reduction = 3;
    r = force(&ep, &map, NULL, 0, q, slide, 2);
    cr_assert_eq(r.stop, RULES_FORCED_RESISTED);
    cr_assert_eq(r.moved, 0);
    rules_map_free(&map);
}

/* 001 Forced Movement In 3-D: "a creature in the air ... directly down"; a push from the
 * ground moves it "directly up"; never into blocked terrain (the ground). */
Test(movement, forced_in_the_air)
{
    struct rules_options ep = preset("epic-path");
    struct rules_map map = open_map(4, 4);
    struct rules_forced_query q = {.kind = RULES_FORCED_SLIDE, .squares = 3, .fall_prone_at = -1};
    rules_creature_init(&q.attacker, RULES_SIZE_MEDIUM, 0, 1, 0);
    rules_creature_init(&q.target, RULES_SIZE_MEDIUM, 1, 1, 2);
    const int path[][2] = {{2, 1}};
    struct rules_forced_result r = force(&ep, &map, NULL, 0, q, path, 1);
    cr_assert(r.vertical);
    cr_assert_eq(r.dz, -2);
    cr_assert_eq(r.z, 0);
    cr_assert_eq(r.stop, RULES_FORCED_GROUND);
    q.kind = RULES_FORCED_PUSH;
    r = force(&ep, &map, NULL, 0, q, path, 1);
    cr_assert_eq(r.dz, 3);
    cr_assert_eq(r.z, 5);
    rules_map_free(&map);
}

/* 000 Hex Grid: "Characters simply move from hex to adjacent hex": 10 ft reaches the 6 hexes
 * around and the 12 of the next ring, every step 5 ft. */
Test(movement, hex_reach)
{
    struct rules_options o = preset("d20-3.5");
    cr_assert_eq(rules_option_set(&o, "grid", true, "hex", 0), RULES_OPTION_OK);
    struct rules_map map = open_map(9, 9);
    struct rules_mover m = mover_at(4, 4, 10);
    struct rules_move_query q = {
        .o = &o, .map = &map, .mover = &m, .mode = RULES_MODE_MOVE, .primary_target = -1};
    struct rules_reach *r;
    cr_assert_eq(rules_move_reach(&q, false, &r), 0);
    cr_assert_eq(rules_reach_count(r), 18);
    int ring[3] = {0};
    for (int i = 0; i < rules_reach_count(r); i++) {
        struct rules_reach_square s;
        rules_reach_get(r, i, &s);
        ring[s.cost_ft / 5]++;
    }
    cr_assert_eq(ring[1], 6);
    cr_assert_eq(ring[2], 12);
    rules_reach_free(r);
    /* (1,-1) is a neighbour on a flat-topped hex grid; (1,1) is not. */
    const int path[][2] = {{5, 3}};
    struct run res;
    walk(&o, &map, NULL, 0, &m, RULES_MODE_MOVE, path, 1, &res);
    cr_assert(res.r.legal);
    const int bad[][2] = {{5, 5}};
    walk(&o, &map, NULL, 0, &m, RULES_MODE_MOVE, bad, 1, &res);
    cr_assert(has(&res, 0, RULES_MV_NOT_ADJACENT));
    rules_map_free(&map);
}

/* A Large mover moves its whole 2 x 2 space (001 Space and Reach): a one-square gap between
 * walls stops it, a blocked square under any part of its space too, and only the squares
 * newly entered are priced (001: "Leaving a square is always free"). */
Test(movement, large_movers_move_their_space)
{
    struct rules_options ep = preset("epic-path");
    const char *rows[] = {"......", "......", "..d...", "......", "##.###", "......", NULL};
    struct rules_map map = map_of(rows);
    struct rules_mover m = mover_at(0, 0, 40);
    rules_creature_init(&m.c, RULES_SIZE_LARGE, 0, 0, 0);
    struct run r;
    const int down[][2] = {{0, 1}, {1, 2}, {1, 3}};
    walk(&ep, &map, NULL, 0, &m, RULES_MODE_MOVE, down, 2, &r);
    cr_assert(r.r.legal);
    cr_assert_eq(r.steps[0].cost_ft, 5);  /* enters (0,2) and (1,2) */
    cr_assert_eq(r.steps[1].cost_ft, 10); /* enters (2,2), difficult, with (1,3) and (2,3) */
    walk(&ep, &map, NULL, 0, &m, RULES_MODE_MOVE, down, 3, &r);
    cr_assert(has(&r, 2, RULES_MV_BLOCKED)); /* (1,4) is wall: the gap is one square wide */
    /* A Medium creature passes the same gap. */
    struct rules_mover small = mover_at(2, 3, 30);
    const int through[][2] = {{2, 4}, {2, 5}};
    walk(&ep, &map, NULL, 0, &small, RULES_MODE_MOVE, through, 2, &r);
    cr_assert(r.r.legal);
    rules_map_free(&map);
}

/* A work budget stops each search once it has set up and expanded that many states, and
 * says how far it got; an ample one changes nothing. */
Test(movement, searches_stop_at_their_work_budget)
{
    struct rules_options o = preset("d20-3.5-facing");
    struct rules_map map = open_map(60, 60);
    struct rules_mover m = mover_at(30, 30, 60);
    struct rules_work work = {.limit = 100};
    struct rules_move_query q = {.o = &o,
                                 .map = &map,
                                 .mover = &m,
                                 .mode = RULES_MODE_DOUBLE,
                                 .primary_target = -1,
                                 .work = &work};
    /* The window is 51 x 51 squares, 8 facings and 2 parities: 41,616 states to set up. */
    struct rules_reach *r = NULL;
    cr_assert_eq(rules_move_reach(&q, false, &r), RULES_MOVE_TOO_EXPENSIVE);
    cr_assert_null(r);
    cr_assert_eq(work.used, 41616);
    /* Set up, then stopped after expanding a few squares (8 states each). */
    work = (struct rules_work){.limit = 41616 + 80};
    cr_assert_eq(rules_move_reach(&q, true, &r), RULES_MOVE_TOO_EXPENSIVE);
    cr_assert_eq(work.used, 41616 + 88);
    work = (struct rules_work){.limit = 10000000};
    cr_assert_eq(rules_move_reach(&q, false, &r), RULES_MOVE_OK);
    int count = rules_reach_count(r);
    rules_reach_free(r);
    q.work = NULL;
    cr_assert_eq(rules_move_reach(&q, false, &r), RULES_MOVE_OK);
    cr_assert_eq(rules_reach_count(r), count);
    rules_reach_free(r);
    rules_map_free(&map);
    /* The route sets up the map in tiles of 32 x 32 squares (the map padded by one square on
     * each side), 2 parities each, as its search first looks into them: from (40, 40) to
     * (10, 10) on a 200 x 200 map, the four tiles of the corner, then one unit a state
     * expanded. A budget one short stops it on its last expansion. */
    map = open_map(200, 200);
    m = mover_at(40, 40, 60);
    q.work = &work;
    struct rules_step steps[200];
    struct rules_route_goal g = {.x = 10, .y = 10, .creature = -1};
    int cost = 0;
    work = (struct rules_work){.limit = 100};
    cr_assert_eq(rules_move_route(&q, &g, steps, 200, &cost), RULES_MOVE_TOO_EXPENSIVE - 1);
    cr_assert_eq(work.used, 2048); /* refused on its first tile */
    work = (struct rules_work){0};
    cr_assert_eq(rules_move_route(&q, &g, steps, 200, &cost), 30);
    long long used = work.used;
    cr_assert_gt(used, 4 * 2048);
    cr_assert_lt(used, 4 * 2048 + 200, "%lld", used);
    work = (struct rules_work){.limit = used - 1};
    cr_assert_eq(rules_move_route(&q, &g, steps, 200, &cost), RULES_MOVE_TOO_EXPENSIVE - 1);
    cr_assert_eq(work.used, used);
    work = (struct rules_work){.limit = used};
    cr_assert_eq(rules_move_route(&q, &g, steps, 200, &cost), 30);
    rules_map_free(&map);
}

/* Rules benchmarks (issue 4): areas around a Colossal creature at radius 30 squares, and
 * flanking with 50 allies. Each figure is printed in microseconds per call and as a ratio to a
 * baseline measured in the same process (one Medium-vs-Medium flanking check with one ally),
 * because these machines are shared and noisy: ratios travel, absolute times do not.
 * Usage: rules_bench [seconds per figure, default 0.5] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rules/rules.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile long sink;

/* Runs fn repeatedly for about `budget` seconds, five times, and returns the best
 * microseconds per call. */
static double measure(void (*fn)(void), double budget)
{
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        long calls = 0;
        double start = now_s(), elapsed = 0;
        while (elapsed < budget / 5) {
            fn();
            calls++;
            elapsed = now_s() - start;
        }
        double us = elapsed * 1e6 / (double)calls;
        if (us < best)
            best = us;
    }
    return best;
}

static struct rules_options lines, facing000;
static struct rules_creature colossal, target, attacker, allies[50], one_ally;

static void baseline(void)
{
    struct rules_flank_result r;
    rules_flanking(&lines, &attacker, &target, &one_ally, 1, NULL, &r);
    sink += r.flanked;
}

/* What POST /v1/geometry/areas computes per square, without the JSON. */
static void areas_colossal_r30(void)
{
    const struct rules_body *b = &colossal.body;
    int r = 30;
    long n = 0;
    for (int y = b->y - r; y < b->y + b->side + r; y++) {
        for (int x = b->x - r; x < b->x + b->side + r; x++) {
            struct rules_body sq = {.x = x, .y = y, .z = 0, .side = 1};
            struct rules_distance d;
            rules_distance(&facing000, b, &sq, &d);
            if (d.squares > r)
                continue;
            enum rules_area a = rules_facing_area(&facing000, &colossal, x, y);
            struct rules_perception p;
            rules_perception(&facing000, a, false, false, &p);
            n += (long)a + p.spot + rules_threatens_square(&facing000, &colossal, x, y, 0);
        }
    }
    sink += n;
}

/* 50 allies around the target, none of them opposite the attacker: the worst case, every ally
 * searched in full. */
static void flanking_50(void)
{
    struct rules_flank_ally per[50];
    struct rules_flank_result r;
    rules_flanking(&lines, &attacker, &target, allies, 50, per, &r);
    sink += r.flanked;
}

int main(int argc, char **argv)
{
    double budget = argc > 1 ? atof(argv[1]) : 0.5;
    rules_preset_apply("epic-path", &lines);
    rules_preset_apply("d20-3.5-facing", &facing000);
    rules_creature_init(&colossal, RULES_SIZE_COLOSSAL, 0, 0, 0);
    colossal.facing = 1;
    rules_creature_init(&attacker, RULES_SIZE_MEDIUM, 9, 9, 0);
    attacker.reach_ft = 10; /* a reach flanker: both centre and corner lines are searched */
    rules_creature_init(&one_ally, RULES_SIZE_MEDIUM, 12, 12, 0);
    rules_creature_init(&target, RULES_SIZE_MEDIUM, 10, 10, 0);
    /* Allies on the attacker's own (north-west) side of the target: with 10 ft reach they
     * threaten it, but no line from the attacker to them crosses it. */
    static const int spots[3][2] = {{8, 8}, {9, 8}, {8, 9}};
    for (int i = 0; i < 50; i++) {
        rules_creature_init(&allies[i], RULES_SIZE_MEDIUM, spots[i % 3][0], spots[i % 3][1], 0);
        allies[i].reach_ft = 10;
    }
    struct rules_flank_result check;
    rules_flanking(&lines, &attacker, &target, allies, 50, NULL, &check);
    if (check.flanked || check.why_not != RULES_FLANK_NO_LINE) {
        fprintf(stderr, "bench setup error: the 50 allies must threaten and not flank\n");
        return 1;
    }

    double base = measure(baseline, budget);
    double areas = measure(areas_colossal_r30, budget);
    double flank = measure(flanking_50, budget);
    printf("baseline  flanking, 1 ally (Medium vs Medium): %10.3f us/call  1.0x\n", base);
    printf("areas     Colossal, radius 30 squares, 000:     %10.3f us/call  %.1fx\n", areas,
           areas / base);
    printf("flanking  50 threatening allies, none opposite: %10.3f us/call  %.1fx\n", flank,
           flank / base);
    return 0;
}

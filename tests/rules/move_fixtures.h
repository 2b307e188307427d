/* What the movement tests share: a preset's options, an open map, a Medium mover and a Medium
 * enemy. Static inline: each test file that includes it gets its own copy. */
#ifndef TACTICS_TESTS_MOVE_FIXTURES_H
#define TACTICS_TESTS_MOVE_FIXTURES_H

#include <criterion/criterion.h>

#include "rules/move/move.h"
#include "rules/options.h"

static inline struct rules_options preset(const char *name)
{
    struct rules_options o;
    cr_assert_eq(rules_preset_apply(name, &o), RULES_OPTION_OK);
    return o;
}

static inline struct rules_map open_map(int w, int h)
{
    struct rules_map m;
    cr_assert_eq(rules_map_init(&m, w, h), 0);
    return m;
}

static inline struct rules_mover mover_at(int x, int y, int walk)
{
    struct rules_mover m = {.constitution = 12};
    rules_creature_init(&m.c, RULES_SIZE_MEDIUM, x, y, 0);
    m.speed[RULES_MOVE_WALK] = walk;
    return m;
}

static inline struct rules_map_creature enemy_at(int x, int y)
{
    struct rules_map_creature k = {.conscious = true};
    rules_creature_init(&k.c, RULES_SIZE_MEDIUM, x, y, 0);
    return k;
}

#endif

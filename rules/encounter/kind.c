/* The kinds of action (kind.h). */
#include "rules/encounter/kind.h"

#include <assert.h>
#include <string.h>

#include "rules/encounter/engine.h"
#include "rules/encounter/event.h"

const struct rules_action_kind_row rules_action_kinds[RULES_ACT_TYPE_COUNT] = {
#define RULES_KIND_ROW_(k, name, cost, since, taken, source)                                       \
    [RULES_ACT_##k] = {name, cost, since, taken, source},
    RULES_ACTION_KINDS(RULES_KIND_ROW_)
#undef RULES_KIND_ROW_
};

const char *const rules_action_type_names[] = {
#define RULES_KIND_NAME_(k, name, ...) [RULES_ACT_##k] = name,
    RULES_ACTION_KINDS(RULES_KIND_NAME_)
#undef RULES_KIND_NAME_
        [RULES_ACT_TYPE_COUNT] = NULL};
static_assert(sizeof rules_action_type_names / sizeof rules_action_type_names[0] ==
                  RULES_ACT_TYPE_COUNT + 1,
              "one name per action type, then NULL");

int rules_action_type_of(const char *name)
{
    for (int t = 0; name != NULL && t < RULES_ACT_TYPE_COUNT; t++)
        if (strcmp(rules_action_kinds[t].name, name) == 0)
            return t;
    return -1;
}

void rules_action_kind_of(int engine, enum rules_action_type t, bool aoo,
                          struct rules_action_kind *out)
{
    assert((unsigned)t < RULES_ACT_TYPE_COUNT);
    const struct rules_action_kind_row *row = &rules_action_kinds[t];
    assert(row->name != NULL && row->since >= 1);
    *out = (struct rules_action_kind){.from_engine = row->since, .cost = row->cost};
    out->reaction = row->taken == RULES_TAKEN_REACTION ||
                    (row->taken == RULES_TAKEN_ON_TURN && aoo && t == RULES_ACT_ATTACK);
    out->anytime = row->taken == RULES_TAKEN_HAPPENS ||
                   (row->taken == RULES_TAKEN_APPLIED &&
                    rules_engine_has(engine, RULES_ENGINE_CONDITION_FREE));
    out->while_down = out->anytime || row->taken == RULES_TAKEN_REACTION;
    out->spends = rules_engine_has(engine, RULES_ENGINE_ACTION_ECONOMY) && !out->reaction &&
                  row->taken == RULES_TAKEN_ON_TURN;
    out->named = rules_engine_has(engine, RULES_ENGINE_ACTION_ECONOMY);
    out->shaped = rules_encounter_checks_shapes(engine);
}

enum rules_action rules_move_cost(enum rules_move_mode mode)
{
    switch (mode) {
    case RULES_MODE_DOUBLE:
        return RULES_ACTION_DOUBLE_MOVE;
    case RULES_MODE_RUN:
        return RULES_ACTION_RUN;
    case RULES_MODE_CHARGE:
        return RULES_ACTION_CHARGE;
    case RULES_MODE_WITHDRAW:
        return RULES_ACTION_WITHDRAW;
    case RULES_MODE_CRAWL:
        return RULES_ACTION_CRAWL;
    case RULES_MODE_STEP:
        return RULES_ACTION_FIVE_FOOT_STEP;
    default:
        return RULES_ACTION_MOVE;
    }
}

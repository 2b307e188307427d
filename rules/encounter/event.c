/* What an event stores, checks and opens by engine (event.h). */
#include "rules/encounter/event.h"

#include <assert.h>
#include <stddef.h>

#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/kind.h"

enum rules_hp_state rules_encounter_hp_state_at(int engine, const struct rules_options *o,
                                                long long hp)
{
    return rules_engine_has(engine, RULES_ENGINE_HP_STATES) ? rules_hp_state_of(o, hp)
                                                            : RULES_HP_UP;
}

bool rules_encounter_stores_hp_state(int engine, const struct rules_options *o)
{
    assert(o != NULL);
    return rules_engine_has(engine, RULES_ENGINE_HP_STATES) && o->hp_states != RULES_HP_STATES_NONE;
}

bool rules_encounter_joins_with_hp_state(int engine, const struct rules_options *o)
{
    return rules_engine_has(engine, RULES_ENGINE_JOIN_STATE) &&
           rules_encounter_stores_hp_state(engine, o);
}

const char *const rules_encounter_place_members[] = {
    "x", "y", "z", "size", "speeds", "reach_ft", "reach_weapon", "facing", "faceless", NULL};

bool rules_encounter_update_checks_place(int engine, bool touches_place)
{
    return !rules_engine_has(engine, RULES_ENGINE_PLACING) || touches_place;
}

bool rules_encounter_checks_shapes(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_SHAPES);
}

bool rules_encounter_place_refuses_terrain(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_PLACING);
}

bool rules_encounter_aoo_answers_reaction(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_REACTIONS);
}

bool rules_encounter_aoo_first_melee(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_MELEE_AOO);
}

bool rules_encounter_move_opens_reactions(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_REACTIONS);
}

bool rules_encounter_awaits_reaction(int policy)
{
    return policy >= 0 && policy < RULES_AOO_POLICY_COUNT &&
           rules_aoo_outcome_of((enum rules_aoo_policy)policy, RULES_AOO_DECISION_NONE) ==
               RULES_AOO_ASKED;
}

bool rules_encounter_answers_reaction(int engine, int type, bool aoo)
{
    if (type < 0 || type >= RULES_ACT_TYPE_COUNT)
        return false;
    struct rules_action_kind k;
    rules_action_kind_of(engine, (enum rules_action_type)type, aoo, &k);
    return k.reaction;
}

bool rules_encounter_event_closes_reactions(int engine, int open, bool answers, bool undo)
{
    assert(open >= 0);
    return rules_engine_has(engine, RULES_ENGINE_REACTIONS) && open > 0 && !answers && !undo;
}

bool rules_encounter_move_names_opponent(int engine, enum rules_move_mode mode)
{
    return rules_engine_has(engine, RULES_ENGINE_CHARGE) && mode == RULES_MODE_CHARGE;
}

bool rules_encounter_stand_up_opens_reactions(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_STAND_UP_PROVOKES);
}

bool rules_encounter_derives_defense(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_DERIVED_DEFENSE);
}

bool rules_encounter_counts_aoo(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_AOO_PER_ROUND);
}

int rules_encounter_iterative_of(const struct rules_encounter *e, int c)
{
    assert(c >= 0 && c < e->count);
    int bab = e->combatants[c].base_attack_bonus;
    return rules_iterative_attacks(bab > 1000 ? 1000 : bab);
}

bool rules_encounter_move_pauses(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_PAUSED_MOVES);
}

bool rules_encounter_refuses_unfit_reaction_dice(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_PAUSED_MOVES);
}

bool rules_encounter_removal_leaves_order(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_LEAVING);
}

bool rules_encounter_lists_skipped(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_LEAVING);
}

bool rules_encounter_turn_has_budget(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_ACTION_ECONOMY);
}

bool rules_encounter_rules_hp_event(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_HP_STATES);
}

bool rules_encounter_heals_not_the_dead(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_NO_HEALING_DEAD);
}

/* The encounter's typed state (state.h): the conditions' one table, and lookups. */
#include <assert.h>
#include <string.h>

#include "rules/encounter/engine.h"
#include "rules/encounter/state.h"

const char *const rules_condition_names[RULES_CONDITION_COUNT + 1] = {
    "sitting", "prone",    "stunned",   "climbing", "flat_footed", "running", "grappling",
    "pinned",  "helpless", "squeezing", "charging", "unconscious", NULL};

/* Bit i of a condition set is bit i of an attack's defender conditions, for the first
 * RULES_CONDITION_ATTACK_COUNT. */
static_assert(RULES_COND_SITTING == 1u << RULES_CONDITION_SITTING, "sitting");
static_assert(RULES_COND_PRONE == 1u << RULES_CONDITION_PRONE, "prone");
static_assert(RULES_COND_STUNNED == 1u << RULES_CONDITION_STUNNED, "stunned");
static_assert(RULES_COND_CLIMBING == 1u << RULES_CONDITION_CLIMBING, "climbing");
static_assert(RULES_COND_FLAT_FOOTED == 1u << RULES_CONDITION_FLAT_FOOTED, "flat-footed");
static_assert(RULES_COND_RUNNING == 1u << RULES_CONDITION_RUNNING, "running");
static_assert(RULES_COND_GRAPPLING == 1u << RULES_CONDITION_GRAPPLING, "grappling");
static_assert(RULES_COND_PINNED == 1u << RULES_CONDITION_PINNED, "pinned");
static_assert(RULES_COND_HELPLESS == 1u << RULES_CONDITION_HELPLESS, "helpless");
static_assert(RULES_COND_SQUEEZING == 1u << RULES_CONDITION_SQUEEZING, "squeezing");
static_assert(RULES_COND_CHARGING == 1u << RULES_CONDITION_CHARGING, "charging");
static_assert(RULES_CONDITION_COUNT <= 32, "a condition set is an unsigned");

int rules_condition_of(const char *name)
{
    for (int i = 0; name != NULL && i < RULES_CONDITION_COUNT; i++)
        if (strcmp(rules_condition_names[i], name) == 0)
            return i;
    return -1;
}

unsigned rules_condition_attack_bits(unsigned conditions)
{
    unsigned bits = conditions & ((1u << RULES_CONDITION_ATTACK_COUNT) - 1u);
    if (conditions & (1u << RULES_CONDITION_UNCONSCIOUS))
        bits |= RULES_COND_HELPLESS;
    return bits;
}

int rules_encounter_find(const struct rules_encounter *e, const char *id)
{
    assert(e != NULL);
    for (int i = 0; id != NULL && i < e->count; i++)
        if (strcmp(e->combatants[i].id, id) == 0)
            return i;
    return -1;
}

int rules_encounter_turn_of(const struct rules_encounter *e)
{
    assert(e != NULL);
    if (e->turn < 0 || e->turn >= e->slots)
        return -1;
    return e->order[e->turn].combatant;
}

bool rules_encounter_enemies(const struct rules_encounter *e, int a, int b)
{
    assert(a >= 0 && a < e->count && b >= 0 && b < e->count);
    return strcmp(e->combatants[a].side, e->combatants[b].side) != 0;
}

int rules_encounter_profile(const struct rules_enc_combatant *c, const char *name)
{
    assert(c != NULL);
    if (c->attack_count == 0)
        return -1;
    if (name == NULL || *name == '\0')
        return 0;
    for (int i = 0; i < c->attack_count; i++)
        if (strcmp(c->attacks[i].name, name) == 0)
            return i;
    return -1;
}

bool rules_condition_involuntary(enum rules_condition_cause cause)
{
    return cause != RULES_CAUSE_OWN;
}

struct rules_condition_source rules_condition_source_at_turn(struct rules_condition_source s)
{
    if (s.involuntary)
        s.had_turn = true;
    return s;
}

bool rules_encounter_keeps_sources(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_CONDITION_SOURCES);
}

bool rules_encounter_full_attack_plans(int engine)
{
    return rules_engine_has(engine, RULES_ENGINE_FULL_ATTACK_PLANS);
}

#include "rules/encounter/hp.h"

#include <assert.h>
#include <string.h>

#define DEAD_AT (-10) /* SRD: "Dead (-10 hit points or lower)" */

enum rules_hp_state rules_hp_state_of(const struct rules_options *o, long long hp)
{
    if (o->hp_states == RULES_HP_STATES_NONE || hp > 0)
        return RULES_HP_UP;
    /* SRD: "When your current hit points drop to exactly 0, you're disabled"; "between -1 and
     * -9 inclusive, you're dying"; "When your character's current hit points drop to -10 or
     * lower, he's dead." */
    if (hp == 0)
        return RULES_HP_DISABLED;
    return hp > DEAD_AT ? RULES_HP_DYING : RULES_HP_DEAD;
}

long long rules_hp_damage_to_kill(long long hp)
{
    return hp - DEAD_AT;
}

static const char *const state_names[] = {"up", "disabled", "dying", "dead", "stable"};
_Static_assert(sizeof state_names / sizeof state_names[0] == RULES_HP_STABLE + 1,
               "one name per state");

const char *rules_hp_state_name(enum rules_hp_state s)
{
    assert(s <= RULES_HP_STABLE);
    return state_names[s];
}

int rules_hp_state_from(const char *name)
{
    for (int i = 0; name != NULL && i <= RULES_HP_STABLE; i++)
        if (strcmp(state_names[i], name) == 0)
            return i;
    return -1;
}

bool rules_hp_acts(enum rules_hp_state s)
{
    return s == RULES_HP_UP || s == RULES_HP_DISABLED;
}

bool rules_hp_threatens(enum rules_hp_state s)
{
    return rules_hp_acts(s);
}

bool rules_hp_healable(enum rules_hp_state s)
{
    return s != RULES_HP_DEAD;
}

int rules_hp_strain(enum rules_hp_state s)
{
    return s == RULES_HP_DISABLED ? 1 : 0;
}

void rules_hp_dying_round(const struct rules_options *o, long long hp, int d100, bool *stable,
                          long long *hp_after, enum rules_hp_state *state_after)
{
    assert(d100 >= 1 && d100 <= 100);
    assert(stable != NULL && hp_after != NULL && state_after != NULL);
    *stable = d100 <= RULES_HP_STABLE_CHANCE;
    *hp_after = *stable ? hp : hp - 1;
    *state_after = *stable ? RULES_HP_STABLE : rules_hp_state_of(o, *hp_after);
}

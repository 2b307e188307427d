#include "rules/encounter/reaction.h"
#include "rules/attack/ability.h"

#include <assert.h>
#include <string.h>

enum rules_aoo_outcome rules_aoo_outcome_of(enum rules_aoo_policy p, enum rules_aoo_decision d)
{
    assert(p < RULES_AOO_POLICY_COUNT && d < RULES_AOO_DECISION_COUNT);
    if (d == RULES_AOO_DECISION_TAKE)
        return RULES_AOO_MADE;
    if (d == RULES_AOO_DECISION_DECLINE)
        return RULES_AOO_DECLINED;
    switch (p) {
    case RULES_AOO_POLICY_ASK:
        return RULES_AOO_ASKED;
    case RULES_AOO_POLICY_ALWAYS:
        return RULES_AOO_MADE;
    case RULES_AOO_POLICY_NEVER:
        return RULES_AOO_DECLINED;
    case RULES_AOO_POLICY_UNSET:
    case RULES_AOO_POLICY_COUNT:
        break;
    }
    return RULES_AOO_LAPSING;
}

static const char *const policy_names[] = {"unset", "ask", "always", "never"};
_Static_assert(sizeof policy_names / sizeof policy_names[0] == RULES_AOO_POLICY_COUNT,
               "one name per policy");

const char *rules_aoo_policy_name(enum rules_aoo_policy p)
{
    assert(p < RULES_AOO_POLICY_COUNT);
    return policy_names[p];
}

int rules_aoo_policy_from(const char *name)
{
    for (int i = 0; i < RULES_AOO_POLICY_COUNT; i++)
        if (strcmp(policy_names[i], name) == 0)
            return i;
    return -1;
}

const char *rules_aoo_outcome_name(enum rules_aoo_outcome o)
{
    static const char *const names[] = {"lapsing", "awaiting", "made", "declined"};
    static_assert(sizeof names / sizeof names[0] == RULES_AOO_DECLINED + 1, "one per outcome");
    assert(o <= RULES_AOO_DECLINED);
    return names[o];
}

bool rules_aoo_may_settle(int step, int asked_step)
{
    return step <= asked_step;
}

int rules_aoo_per_round(bool combat_reflexes, int dex)
{
    int bonus = rules_ability_modifier(dex);
    return combat_reflexes && bonus > 0 ? 1 + bonus : 1;
}

enum rules_aoo_outcome rules_reaction_outcome(const struct rules_enc_reaction *r)
{
    assert(r != NULL);
    return r->policy == RULES_AOO_POLICY_ASK      ? RULES_AOO_ASKED
           : r->policy == RULES_AOO_POLICY_ALWAYS ? RULES_AOO_MADE
                                                  : RULES_AOO_LAPSING;
}

bool rules_reactions_awaited(const struct rules_enc_reaction *list, int n)
{
    return rules_reactions_first_asked(list, n, -1, -1) >= 0;
}

int rules_reactions_first_asked(const struct rules_enc_reaction *list, int n, int mover, int except)
{
    int first = -1;
    for (int i = 0; i < n; i++)
        if (i != except && rules_reaction_outcome(&list[i]) == RULES_AOO_ASKED &&
            (mover < 0 || list[i].mover == mover) && (first < 0 || list[i].step < list[first].step))
            first = i;
    return first;
}

int rules_reactions_next_made(const struct rules_enc_reaction *list, int n, int mover)
{
    int asked = rules_reactions_first_asked(list, n, -1, -1);
    for (int i = 0; i < n; i++)
        if (rules_reaction_outcome(&list[i]) == RULES_AOO_MADE && list[i].mover == mover &&
            (asked < 0 || rules_aoo_may_settle(list[i].step, list[asked].step)))
            return i;
    return -1;
}

bool rules_reactions_may_settle(const struct rules_enc_reaction *list, int n, int at, int *blocking)
{
    int first = rules_reactions_first_asked(list, n, -1, at);
    *blocking = -1;
    if (first < 0 || rules_aoo_may_settle(list[at].step, list[first].step))
        return true;
    *blocking = first;
    return false;
}

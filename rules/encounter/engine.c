/* The engine versions (engine.h). */
#include "rules/encounter/engine.h"

#include <string.h>

const struct rules_engine_change rules_engine_history[RULES_ENGINE_VERSION] = {
    {1, "events without a stamp, from before the action economy: attacks, moves, facing, forced "
        "movement, falls and conditions, each ruled by its stateless endpoint's rules"},
    {2, "the action economy (rules/encounter/turn.h), hit point states (hp.h), attacks of "
        "opportunity only in answer to a provoking move, the hp event, stand up and full attack"},
    {3, "a prone creature moves only by crawling (001 Crawling); a stunned one takes no actions "
        "and threatens nobody (d20 3.5 SRD, Stunned); a flat-footed ally still threatens for "
        "flanking (004 Threatened Area); a dying or dead defender is helpless (SRD, Dying); Combat "
        "Reflexes allows attacks of opportunity while flat-footed; a standard action can be taken "
        "as a move action (001 Double Move); the charge's opponent, line and one attack (SRD, "
        "Charge); standing up provokes"},
    {4, "the starting square is safe only when all a combatant does that turn is one move or "
        "double move (004); a creature made prone involuntarily resists forced movement only once "
        "it has had a turn to stand (001 Forced Movement); a dying creature loses 1 hit point a "
        "round and may become stable (d20 3.5 SRD, Dying, the option dying); a full attack may "
        "change facing and target between its attacks (000 Changing Facing)"},
};

const struct rules_engine_option rules_engine_options[] = {
    {"hp_states", 2, "none"},
    {"critical_hits", 2, "false"},
    {"dying", 4, "steady"},
};
const int rules_engine_option_count =
    (int)(sizeof rules_engine_options / sizeof rules_engine_options[0]);

int rules_engine_option_since(const char *name)
{
    for (int i = 0; i < rules_engine_option_count; i++)
        if (strcmp(rules_engine_options[i].name, name) == 0)
            return rules_engine_options[i].since;
    return 1;
}

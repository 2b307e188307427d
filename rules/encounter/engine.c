/* The engine versions (engine.h). */
#include "rules/encounter/engine.h"

#include <string.h>

const struct rules_engine_rule_row rules_engine_rules[RULES_ENGINE_RULE_COUNT] = {
    [RULES_ENGINE_ACTION_ECONOMY] = {2, "action_economy",
                                     "each action spends its cost from the turn's budget (004 "
                                     "Actions In Combat; rules/encounter/turn.h), and its result "
                                     "names its kind"},
    [RULES_ENGINE_HP_STATES] = {2, "hp_states",
                                "hit points are ruled into disabled, dying and dead (d20 3.5 SRD, "
                                "Injury and Death; the option hp_states), and the hp event "
                                "changes them from outside the fight"},
    [RULES_ENGINE_REACTIONS] = {2, "reactions",
                                "an attack of opportunity is made only in answer to the move that "
                                "provoked it: the move opens it, and the next other event closes "
                                "it (004 Attacks of Opportunity)"},
    [RULES_ENGINE_AOO_PER_ROUND] = {2, "aoo_per_round",
                                    "Combat Reflexes allows 1 + Dexterity modifier attacks of "
                                    "opportunity a round (d20 3.5 SRD, Combat Reflexes)"},
    [RULES_ENGINE_CONDITION_FREE] = {2, "condition_free",
                                     "a condition event may come on anyone's turn: the table "
                                     "records what happened"},
    [RULES_ENGINE_LEAVING] = {2, "leaving",
                              "a combatant removed leaves the initiative order and has no turn; "
                              "the turns skipped for the down are listed"},
    [RULES_ENGINE_DERIVED_DEFENSE] = {2, "derived_defense",
                                      "an attack's Dex to AC, cover and concealment come from what "
                                      "the encounter stores, not from what the action declares"},
    [RULES_ENGINE_CRAWL] = {3, "crawl", "a prone creature moves only by crawling (001 Crawling)"},
    [RULES_ENGINE_STUNNED] = {3, "stunned",
                              "a stunned creature takes no actions, attacks of opportunity "
                              "included, and threatens nobody (d20 3.5 SRD, Stunned)"},
    [RULES_ENGINE_MELEE_AOO] = {3, "melee_aoo",
                                "an attack of opportunity is a melee attack, made with the first "
                                "melee profile; a creature without one threatens nobody (004 "
                                "Threatened Area)"},
    [RULES_ENGINE_FLANKING_ALLY] = {3, "flanking_ally",
                                    "a flat-footed ally still threatens for flanking, a stunned "
                                    "one or one without a melee attack does not (004 Threatened "
                                    "Area; 004 Flanking)"},
    [RULES_ENGINE_REFLEXES_FLAT] = {3, "reflexes_flat",
                                    "Combat Reflexes allows attacks of opportunity while "
                                    "flat-footed (d20 3.5 SRD, Combat Reflexes)"},
    [RULES_ENGINE_STANDARD_AS_MOVE] = {3, "standard_as_move",
                                       "a standard action can be taken as a move action (001 "
                                       "Double Move)"},
    [RULES_ENGINE_CHARGE] = {3, "charge",
                             "a charge names its opponent, moves directly toward it and ends in "
                             "one melee attack at +2 (d20 3.5 SRD, Charge)"},
    [RULES_ENGINE_DOWN_HELPLESS] = {3, "down_helpless",
                                    "a dying or dead defender is helpless (d20 3.5 SRD, Dying)"},
    [RULES_ENGINE_STRAIN] = {3, "strain",
                             "a disabled creature's strenuous action, an attack, costs it 1 hit "
                             "point (d20 3.5 SRD, Disabled)"},
    [RULES_ENGINE_STAND_UP_PROVOKES] = {3, "stand_up_provokes",
                                        "standing up from prone provokes attacks of opportunity "
                                        "(d20 3.5 SRD, Actions in Combat)"},
    [RULES_ENGINE_SHAPES] = {3, "shapes",
                             "an action's members (its reactors, the ids it lists) and a "
                             "combatant's (profile names, conditions) are checked before it is "
                             "ruled: no duplicates, no strays"},
    [RULES_ENGINE_JOIN_STATE] = {3, "join_state",
                                 "a combatant has its hit point state from the moment it joins, "
                                 "so one joining at 0 hp or below is disabled, dying or dead"},
    [RULES_ENGINE_PLACING] = {3, "placing",
                              "a combatant may not be placed on blocked terrain or where its "
                              "speeds do not go (001 Blocked Terrain, 001 Alternative Movement "
                              "Types), checked when a change touches its place"},
    [RULES_ENGINE_PAUSED_MOVES] = {3, "paused_moves",
                                   "a move pauses while a reaction it provoked is asked and goes "
                                   "on once it is settled; the table's dice that do not fit an "
                                   "attack of opportunity are refused, not the attack lost"},
    [RULES_ENGINE_NO_HEALING_DEAD] = {3, "no_healing_dead",
                                      "healing does not reach the dead (d20 3.5 SRD, Dead)"},
    [RULES_ENGINE_START_SQUARE] = {4, "start_square",
                                   "the starting square is safe only when all a combatant does "
                                   "that turn is one move or double move (004 Attacks of "
                                   "Opportunity)"},
    [RULES_ENGINE_CONDITION_SOURCES] = {4, "condition_sources",
                                        "where each condition came from is kept, and a creature "
                                        "made prone involuntarily resists forced movement only "
                                        "once it has had a turn to stand (001 Forced Movement)"},
    [RULES_ENGINE_FULL_ATTACK_PLANS] = {4, "full_attack_plans",
                                        "a full attack may change facing and target between its "
                                        "attacks (000 Changing Facing, Kroh's example)"},
    [RULES_ENGINE_SRD_DYING] = {4, "srd_dying",
                                "a dying creature loses 1 hit point a round and may become "
                                "stable (d20 3.5 SRD, Dying; the option dying)"},
};

bool rules_engine_known(int engine)
{
    return engine >= 1 && engine <= RULES_ENGINE_VERSION;
}

bool rules_engine_has(int engine, enum rules_engine_rule r)
{
    return (unsigned)r < RULES_ENGINE_RULE_COUNT && engine >= rules_engine_rules[r].since;
}

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

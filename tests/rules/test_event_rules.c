/* What an event stores, checks and opens under the engine it is ruled with
 * (rules/encounter/event.h): the decisions the service took on the engine's number before, each
 * quoting its rule (engine.h's table) and its document, each checked on both sides of the engine
 * that brought it. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/event.h"
#include "rules/encounter/kind.h"
#include "tests/rules/move_fixtures.h"

/* d20 3.5 SRD, Injury and Death: "Disabled (0 hit points)", "Dying (-1 to -9 hit points)",
 * "Dead (-10 hit points or lower)", with the rule hp_states; before it hit points were a number
 * and every combatant was up whatever it had. */
Test(event_rules, hit_point_states_with_hp_states)
{
    struct rules_options o = preset("d20-3.5");
    cr_assert_eq(rules_encounter_hp_state_at(2, &o, 1), RULES_HP_UP);
    cr_assert_eq(rules_encounter_hp_state_at(2, &o, 0), RULES_HP_DISABLED);
    cr_assert_eq(rules_encounter_hp_state_at(2, &o, -1), RULES_HP_DYING);
    cr_assert_eq(rules_encounter_hp_state_at(2, &o, -9), RULES_HP_DYING);
    cr_assert_eq(rules_encounter_hp_state_at(2, &o, -10), RULES_HP_DEAD);
    cr_assert_eq(rules_encounter_hp_state_at(1, &o, -10), RULES_HP_UP);
    cr_assert_eq(rules_encounter_hp_state_at(1, &o, 0), RULES_HP_UP);
}

/* engine.h, hp_states: "hit points are ruled into disabled, dying and dead (... the option
 * hp_states)": the state is stored with the hit points only under the rule and with the option
 * on. */
Test(event_rules, hit_point_state_stored_under_the_rule_and_the_option)
{
    struct rules_options o = preset("d20-3.5");
    cr_assert_eq(o.hp_states, RULES_HP_STATES_SRD);
    cr_assert(rules_encounter_stores_hp_state(2, &o));
    cr_assert_not(rules_encounter_stores_hp_state(1, &o));
    o.hp_states = RULES_HP_STATES_NONE;
    cr_assert_not(rules_encounter_stores_hp_state(RULES_ENGINE_VERSION, &o));
}

/* engine.h, join_state: "a combatant has its hit point state from the moment it joins, so one
 * joining at 0 hp or below is disabled, dying or dead" (engine 3); under engine 2 only its first
 * change gave it one. */
Test(event_rules, a_combatant_joins_with_its_hit_point_state_from_join_state)
{
    struct rules_options o = preset("d20-3.5");
    cr_assert_not(rules_encounter_joins_with_hp_state(2, &o));
    cr_assert(rules_encounter_joins_with_hp_state(3, &o));
    o.hp_states = RULES_HP_STATES_NONE;
    cr_assert_not(rules_encounter_joins_with_hp_state(3, &o));
}

/* engine.h, placing: "a combatant may not be placed on blocked terrain or where its speeds do not
 * go (001 Blocked Terrain, 001 Alternative Movement Types), checked when a change touches its
 * place"; before it, every update was checked. */
Test(event_rules, an_update_checks_the_place_only_when_it_touches_it)
{
    cr_assert(rules_encounter_update_checks_place(2, false));
    cr_assert(rules_encounter_update_checks_place(2, true));
    cr_assert_not(rules_encounter_update_checks_place(3, false));
    cr_assert(rules_encounter_update_checks_place(3, true));
    /* Where it stands, how big it is, how it moves (its speeds: 001 Alternative Movement Types),
     * what it reaches and where it faces; not its hit points or its name. */
    static const char *const place[] = {
        "x", "y", "z", "size", "speeds", "reach_ft", "reach_weapon", "facing", "faceless"};
    int n = 0;
    while (rules_encounter_place_members[n] != NULL)
        n++;
    cr_assert_eq(n, (int)(sizeof place / sizeof place[0]));
    for (int k = 0; k < n; k++)
        cr_assert_str_eq(rules_encounter_place_members[k], place[k]);
}

/* engine.h, placing: "a combatant may not be placed on blocked terrain or where its speeds do not
 * go (001 Blocked Terrain, 001 Alternative Movement Types)" (engine 3); under engine 2 only the
 * map's edge and the other creatures refused a place. */
Test(event_rules, blocked_terrain_refuses_a_place_from_placing)
{
    cr_assert_not(rules_encounter_place_refuses_terrain(2));
    cr_assert(rules_encounter_place_refuses_terrain(3));
}

/* engine.h, reactions: "an attack of opportunity is made only in answer to the move that provoked
 * it" (engine 2); melee_aoo: "an attack of opportunity is a melee attack, made with the first
 * melee profile" (engine 3, 004 Threatened Area). */
Test(event_rules, an_attack_of_opportunity_answers_a_reaction_with_a_melee_profile)
{
    cr_assert_not(rules_encounter_aoo_answers_reaction(1));
    cr_assert(rules_encounter_aoo_answers_reaction(2));
    cr_assert_not(rules_encounter_aoo_first_melee(2));
    cr_assert(rules_encounter_aoo_first_melee(3));
}

/* engine.h, shapes: "an action's members ... and a combatant's ... are checked before it is
 * ruled: no duplicates, no strays" (engine 3). */
Test(event_rules, members_checked_first_from_shapes)
{
    cr_assert_not(rules_encounter_checks_shapes(2));
    cr_assert(rules_encounter_checks_shapes(3));
    cr_assert(rules_encounter_checks_shapes(RULES_ENGINE_VERSION));
}

/* engine.h, reactions: "an attack of opportunity is made only in answer to the move that provoked
 * it: the move opens it, and the next other event closes it (004 Attacks of Opportunity)". */
Test(event_rules, the_next_other_event_closes_the_reactions)
{
    cr_assert_not(rules_encounter_move_opens_reactions(1));
    cr_assert(rules_encounter_move_opens_reactions(2));
    cr_assert(rules_encounter_event_closes_reactions(2, 1, false, false));
    cr_assert(rules_encounter_event_closes_reactions(2, 3, false, false));
    /* Nothing open, nothing to close; an answer (an attack of opportunity, a decline) consumes its
     * own; an undo may take back the move that opened them. */
    cr_assert_not(rules_encounter_event_closes_reactions(2, 0, false, false));
    cr_assert_not(rules_encounter_event_closes_reactions(2, 1, true, false));
    cr_assert_not(rules_encounter_event_closes_reactions(2, 1, false, true));
    cr_assert_not(rules_encounter_event_closes_reactions(1, 1, false, false));
}

/* 004 Making an Attack of Opportunity: the threatening enemy "does not have to make an attack of
 * opportunity if the combatant doesn't want to": a reaction whose reactor is asked holds every
 * other event until it answers or declines; one with no policy lapses, one made or declined is
 * not open, and a policy this build does not know holds nothing. */
Test(event_rules, only_an_asked_reaction_is_awaited)
{
    cr_assert(rules_encounter_awaits_reaction(RULES_AOO_POLICY_ASK));
    cr_assert_not(rules_encounter_awaits_reaction(RULES_AOO_POLICY_UNSET));
    cr_assert_not(rules_encounter_awaits_reaction(RULES_AOO_POLICY_ALWAYS));
    cr_assert_not(rules_encounter_awaits_reaction(RULES_AOO_POLICY_NEVER));
    cr_assert_not(rules_encounter_awaits_reaction(-1));
    cr_assert_not(rules_encounter_awaits_reaction(RULES_AOO_POLICY_COUNT));
    cr_assert_eq(rules_aoo_policy_from("ask"), RULES_AOO_POLICY_ASK);
}

/* 004 Attacks of Opportunity: while the encounter awaits a reactor's answer, only the answer is
 * ruled: an attack of opportunity or a decline_reaction answers an open reaction (and does not
 * close the others); a plain attack, a move, or an event that is no action does not. */
Test(event_rules, only_an_attack_of_opportunity_or_a_decline_answers_a_reaction)
{
    cr_assert(rules_encounter_answers_reaction(4, RULES_ACT_ATTACK, true));
    cr_assert(rules_encounter_answers_reaction(4, RULES_ACT_DECLINE_REACTION, false));
    cr_assert_not(rules_encounter_answers_reaction(4, RULES_ACT_ATTACK, false));
    cr_assert_not(rules_encounter_answers_reaction(4, RULES_ACT_MOVE, false));
    cr_assert_not(rules_encounter_answers_reaction(4, RULES_ACT_FULL_ATTACK, true));
    cr_assert_not(rules_encounter_answers_reaction(4, -1, true));
    cr_assert_not(rules_encounter_answers_reaction(4, RULES_ACT_TYPE_COUNT, true));
}

/* engine.h, charge: "a charge names its opponent, moves directly toward it and ends in one melee
 * attack at +2 (d20 3.5 SRD, Charge)" (engine 3): only a charge, only under the rule, records its
 * designated opponent. */
Test(event_rules, a_charge_names_its_opponent_from_charge)
{
    cr_assert(rules_encounter_move_names_opponent(3, RULES_MODE_CHARGE));
    cr_assert_not(rules_encounter_move_names_opponent(2, RULES_MODE_CHARGE));
    cr_assert_not(rules_encounter_move_names_opponent(3, RULES_MODE_MOVE));
    cr_assert_not(rules_encounter_move_names_opponent(3, RULES_MODE_RUN));
}

/* engine.h, stand_up_provokes: "standing up from prone provokes attacks of opportunity (d20 3.5
 * SRD, Actions in Combat)" (engine 3); under engine 2 standing up only cleared prone. */
Test(event_rules, standing_up_provokes_from_stand_up_provokes)
{
    cr_assert_not(rules_encounter_stand_up_opens_reactions(2));
    cr_assert(rules_encounter_stand_up_opens_reactions(3));
}

/* engine.h, derived_defense: "an attack's Dex to AC, cover and concealment come from what the
 * encounter stores, not from what the action declares" (engine 2). */
Test(event_rules, defense_derived_from_derived_defense)
{
    cr_assert_not(rules_encounter_derives_defense(1));
    cr_assert(rules_encounter_derives_defense(2));
}

/* engine.h, aoo_per_round: "Combat Reflexes allows 1 + Dexterity modifier attacks of opportunity
 * a round (d20 3.5 SRD, Combat Reflexes)"; under engine 1, 004's "one per round". */
Test(event_rules, attacks_of_opportunity_counted_from_aoo_per_round)
{
    cr_assert_not(rules_encounter_counts_aoo(1));
    cr_assert(rules_encounter_counts_aoo(2));
}

/* d20 3.5 SRD, Full Attack: "an additional attack at base attack bonus +6, +11 and +16", read
 * from the combatant on the typed state (the odds' full attack). */
Test(event_rules, a_full_attacks_attacks_from_the_combatants_base_attack_bonus)
{
    struct rules_options o = preset("d20-3.5");
    struct rules_enc_combatant c[5] = {{.id = "a", .base_attack_bonus = 5},
                                       {.id = "b", .base_attack_bonus = 6},
                                       {.id = "c", .base_attack_bonus = 11},
                                       {.id = "d", .base_attack_bonus = 16},
                                       {.id = "e", .base_attack_bonus = 2000}};
    struct rules_encounter e = {
        .engine = RULES_ENGINE_VERSION, .rules = &o, .count = 5, .combatants = c};
    static const int attacks[5] = {1, 2, 3, 4, 4};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(rules_encounter_iterative_of(&e, i), attacks[i], "%s", c[i].id);
}

/* engine.h, paused_moves: "a move pauses while a reaction it provoked is asked and goes on once
 * it is settled; the table's dice that do not fit an attack of opportunity are refused, not the
 * attack lost" (engine 3); under engine 2 the move went on to its end at once. */
Test(event_rules, a_move_pauses_at_an_asked_reaction_from_paused_moves)
{
    cr_assert_not(rules_encounter_move_pauses(2));
    cr_assert(rules_encounter_move_pauses(3));
    cr_assert_not(rules_encounter_refuses_unfit_reaction_dice(2));
    cr_assert(rules_encounter_refuses_unfit_reaction_dice(3));
}

/* engine.h, leaving: "a combatant removed leaves the initiative order and has no turn; the turns
 * skipped for the down are listed" (engine 2); under engine 1 the order kept it. */
Test(event_rules, a_removed_combatant_leaves_the_order_from_leaving)
{
    cr_assert_not(rules_encounter_removal_leaves_order(1));
    cr_assert(rules_encounter_removal_leaves_order(2));
    cr_assert_not(rules_encounter_lists_skipped(1));
    cr_assert(rules_encounter_lists_skipped(2));
}

/* engine.h, action_economy: "each action spends its cost from the turn's budget (004 Actions In
 * Combat)": a turn begins with its budget stored from engine 2, with none under engine 1. */
Test(event_rules, a_turn_begins_with_its_budget_from_action_economy)
{
    cr_assert_not(rules_encounter_turn_has_budget(1));
    cr_assert(rules_encounter_turn_has_budget(2));
}

/* engine.h, hp_states: "... and the hp event changes them from outside the fight" (engine 2);
 * no_healing_dead: "healing does not reach the dead (d20 3.5 SRD, Dead: Dead characters cannot
 * benefit from normal or magical healing)" (engine 3). */
Test(event_rules, the_hp_event_from_hp_states_and_no_healing_the_dead_from_no_healing_dead)
{
    cr_assert_not(rules_encounter_rules_hp_event(1));
    cr_assert(rules_encounter_rules_hp_event(2));
    cr_assert_not(rules_encounter_heals_not_the_dead(2));
    cr_assert(rules_encounter_heals_not_the_dead(3));
    cr_assert(rules_encounter_heals_not_the_dead(RULES_ENGINE_VERSION));
}
